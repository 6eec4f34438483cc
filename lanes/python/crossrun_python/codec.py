"""The crossrun wire protocol (protocol/SPEC.md): frame headers, the
splitmix64 payload generator, workload, counts and ERROR payloads.

The generator runs many splitmix64 blocks at once in one Python int: each
64-bit block sits in its own 128-bit lane, so a lane's 64x64-bit product
never reaches the next lane, and every step (add, shift, xor, multiply,
mask) is one C-speed operation over all lanes instead of a Python loop per
block. The bytes of a batch of frames (headers included) come out of one
to_bytes, and a batch received is checked against them with one compare.
"""

import struct
from array import array

VERSION = 1
HEADER_BYTES = 16
MAX_PAYLOAD_BYTES = 1048576
MAX_FRAME_BYTES = HEADER_BYTES + MAX_PAYLOAD_BYTES
MAX_IN_FLIGHT = 65536
WORKLOAD_BYTES = 24
COUNTS_BYTES = 32
MAX_REASON_BYTES = 512
RESPONSE_MASK = 0x5A
HELLO_FRAME_BYTES = HEADER_BYTES + WORKLOAD_BYTES
BYE_FRAME_BYTES = HEADER_BYTES + COUNTS_BYTES
WORKLOAD_SUM_LIMIT = 1 << 62
U64 = (1 << 64) - 1

HELLO, HELLO_ACK, REQUEST, RESPONSE, BYE, BYE_ACK, ERROR = range(1, 8)
TYPE_NAMES = {
    HELLO: "HELLO",
    HELLO_ACK: "HELLO_ACK",
    REQUEST: "REQUEST",
    RESPONSE: "RESPONSE",
    BYE: "BYE",
    BYE_ACK: "BYE_ACK",
    ERROR: "ERROR",
}

# ERROR frame codes of SPEC.md section 2.
CODE_UNSUPPORTED_VERSION = 1
CODE_BAD_WORKLOAD = 2
CODE_PROTOCOL_VIOLATION = 3
CODE_COUNT_MISMATCH = 4
CODE_NAMES = {
    1: "unsupported_version",
    2: "bad_workload",
    3: "protocol_violation",
    4: "count_mismatch",
}

# Rejection names of SPEC.md section 6.
REJECTIONS = (
    "unsupported_version",
    "unknown_type",
    "bad_flags",
    "frame_too_large",
    "bad_length",
    "truncated",
    "unexpected_eof",
    "unexpected_type",
    "wrong_sequence",
    "wrong_payload",
    "bad_workload",
    "count_mismatch",
    "peer_error",
)

HEADER = struct.Struct(">BBHIQ")
WORKLOAD = struct.Struct(">QQII")
COUNTS = struct.Struct(">QQQQ")
U16 = struct.Struct(">H")
U32 = struct.Struct(">I")
U64BE = struct.Struct(">Q")


def type_name(t):
    return TYPE_NAMES.get(t, "type %d" % t)


def code_name(code):
    return CODE_NAMES.get(code, "code %d" % code)


def code_for(rejection):
    if rejection == "unsupported_version":
        return CODE_UNSUPPORTED_VERSION
    if rejection == "bad_workload":
        return CODE_BAD_WORKLOAD
    if rejection == "count_mismatch":
        return CODE_COUNT_MISMATCH
    return CODE_PROTOCOL_VIOLATION


class ProtocolError(Exception):
    """A rejection of SPEC.md section 6: `rejection` is the spec's name,
    `detail` what was seen."""

    def __init__(self, rejection, detail):
        super().__init__("%s: %s" % (rejection, detail))
        self.rejection = rejection
        self.detail = detail


# ---------------------------------------------------------------- headers


def header_rejection(buf, off):
    """The header checks of SPEC.md section 1, in their order: None or the
    rejection name. Needs 16 bytes at buf[off]."""
    if buf[off] != VERSION:
        return "unsupported_version"
    t = buf[off + 1]
    if t < 1 or t > 7:
        return "unknown_type"
    if buf[off + 2] or buf[off + 3]:
        return "bad_flags"
    length = U32.unpack_from(buf, off + 4)[0]
    if length > MAX_PAYLOAD_BYTES:
        return "frame_too_large"
    if t in (HELLO, HELLO_ACK):
        if length != WORKLOAD_BYTES:
            return "bad_length"
    elif t in (BYE, BYE_ACK):
        if length != COUNTS_BYTES:
            return "bad_length"
    elif t == ERROR:
        # Not a fixed length, but its bounds are known from the header.
        if length < 2 or length > 2 + MAX_REASON_BYTES:
            return "bad_length"
    return None


def describe_header(buf, off):
    version, t, flags, length, seq = HEADER.unpack_from(buf, off)
    return "version %d, %s, flags %d, length %d, sequence %d" % (
        version,
        type_name(t),
        flags,
        length,
        seq,
    )


def check_header(buf, off):
    r = header_rejection(buf, off)
    if r is not None:
        raise ProtocolError(r, "header: " + describe_header(buf, off))


def encode_frame(t, seq, payload=b""):
    return HEADER.pack(VERSION, t, 0, len(payload), seq & U64) + payload


# ---------------------------------------------------------------- payloads

GAMMA = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB

_ONE_LANE = (1).to_bytes(16, "little")

# bytes.translate table: every byte XOR 0x5A.
XOR_TABLE = bytes(b ^ RESPONSE_MASK for b in range(256))


class _Lanes:
    """The constants of one batch shape: `frames` frames of `head` header
    words (0 or 2) and `blocks` generator blocks each. The words are split
    between two ints, the even ones in one and the odd ones in the other,
    one 128-bit lane per word, so the two can be packed into one int of
    64-bit words for the last step and to_bytes. Shaped by the workload
    only: nothing in them depends on a seed."""

    __slots__ = ("words", "size", "ones", "low", "base", "step", "m33", "xmask", "seq", "state")

    def __init__(self, frames, head, blocks):
        self.words = frames * (head + blocks)
        half = (self.words + 1) // 2
        self.size = 16 * half
        self.ones = int.from_bytes(_ONE_LANE * half, "little")
        self.low = self.ones * U64
        # Word (i, head + b) holds i + (b + 1) * GAMMA: adding the first
        # seed to every lane gives block b of seed seq0 + i its state.
        steps = [0] * head + [(b + 1) * GAMMA & U64 for b in range(blocks)]
        start = [i + s for i in range(frames) for s in steps] + [0]
        self.base = tuple(
            int.from_bytes(b"".join(v.to_bytes(16, "little") for v in start[k : 2 * half : 2]), "little")
            for k in (0, 1)
        )
        # The seeds of the next batch are these plus `frames` in every lane.
        self.step = frames * self.ones
        self.m33 = int.from_bytes(((1 << 33) - 1).to_bytes(8, "little") * (2 * half), "little")
        mask = bytes(8 * head) + b"\x5a" * (8 * blocks)
        self.xmask = int.from_bytes(mask * frames, "little")
        # The unmasked states of the last batch made, and its first seed.
        self.seq = None
        self.state = None


_LANES_CACHE = {}
# Words held by the cache (some 80 bytes each, in its ints): a bound on
# its memory whatever the payload size.
_LANES_CACHE_BUDGET = 1 << 16
_lanes_cached = 0


def _lanes(frames, head, blocks):
    global _lanes_cached
    key = (frames, head, blocks)
    c = _LANES_CACHE.get(key)
    if c is None:
        c = _Lanes(frames, head, blocks)
        if _lanes_cached + c.words > _LANES_CACHE_BUDGET:
            _LANES_CACHE.clear()
            _lanes_cached = 0
        _LANES_CACHE[key] = c
        _lanes_cached += c.words
    return c


def _blocks(seq0, frames, head, blocks, masked):
    """The generator words of `frames` consecutive seeds seq0, seq0 + 1, ...
    (`blocks` words each, behind `head` words left for a header), as a
    memoryview of little-endian 64-bit words; XORed with 0x5A when
    masked."""
    c = _lanes(frames, head, blocks)
    low = c.low
    if c.seq is not None and seq0 == c.seq + frames:
        # The batch that follows the last one: one add, not a multiply.
        step = c.step
        even, odd = c.state
        even += step
        odd += step
    else:
        spread = seq0 * c.ones
        even = spread + c.base[0]
        odd = spread + c.base[1]
    c.seq = seq0
    c.state = (even, odd)
    out = []
    for z in (even, odd):
        z &= low
        z = (((z ^ (z >> 30)) & low) * MUL1) & low
        out.append((((z ^ (z >> 27)) & low) * MUL2) & low)
    # Odd words into the high halves: one int of 64-bit words, whose last
    # xorshift keeps each word's shifted bits to itself.
    z = out[0] | (out[1] << 64)
    z ^= (z >> 31) & c.m33
    if masked:
        z ^= c.xmask
    return memoryview(z.to_bytes(c.size, "little"))[: 8 * c.words].cast("Q")


_LITTLE = array("Q", [1]).tobytes()[0] == 1


def gen(seq, length, masked=False):
    """gen(s, P) of SPEC.md section 4 (XORed with 0x5A when masked)."""
    if length == 0:
        return b""
    blocks = (length + 7) >> 3
    # The lanes' bytes are little-endian whatever the host: no swap.
    return _blocks(seq, 1, 0, blocks, masked).tobytes()[:length]


def respond(data):
    return bytes(data).translate(XOR_TABLE)


def frames(t, seq0, count, length):
    """`count` REQUEST (t = REQUEST) or RESPONSE (t = RESPONSE) frames of
    sequences seq0 .. seq0 + count - 1 and payload `length`, as one
    bytearray: headers, then gen(s, P), XORed with 0x5A for a RESPONSE."""
    return _frames(t, seq0, count, length)[0]


def frame_pair(seq0, count, length):
    """The `count` REQUEST frames of sequences seq0 .. seq0 + count - 1 and
    payload `length`, and the RESPONSE frames that answer them, as two
    bytearrays. The payloads are generated once: the responses are the
    requests XOR 0x5A (bytes.translate), their headers written again."""
    requests, seqs = _frames(REQUEST, seq0, count, length)
    if seqs is not None:
        responses = requests.translate(XOR_TABLE)
        w = memoryview(responses).cast("Q")
        per = (length >> 3) + 2
        w[0::per] = _head_words(RESPONSE, length, count)
        w[1::per] = seqs
        return requests, responses
    F = HEADER_BYTES + length
    pack = HEADER.pack
    responses = bytearray()
    for i in range(count):
        off = i * F
        responses += pack(VERSION, RESPONSE, 0, length, seq0 + i)
        responses += requests[off + HEADER_BYTES : off + F].translate(XOR_TABLE)
    return requests, responses


def _frames(t, seq0, count, length):
    """frames(), and the header words of their sequences (None for
    payloads cut short of a whole block)."""
    masked = t == RESPONSE
    if length & 7 == 0 and _LITTLE:
        blocks = length >> 3
        per = blocks + 2
        if blocks <= count:
            # Many short frames: the lanes hold payload words only (a fifth
            # fewer for 64 bytes) and each column of blocks goes into its
            # place in the frames with one strided copy.
            src = _blocks(seq0, count, 0, blocks, masked)
            buf = bytearray(count * (HEADER_BYTES + length))
            w = memoryview(buf).cast("Q")
            for b in range(blocks):
                w[2 + b :: per] = src[b::blocks]
        else:
            # Few long frames: lanes for the header words too, one copy.
            buf = bytearray(_blocks(seq0, count, 2, blocks, masked))
            w = memoryview(buf).cast("Q")
        w[0::per] = _head_words(t, length, count)
        seqs = _seq_words(seq0, count)
        w[1::per] = seqs
        return buf, seqs
    # Payloads cut short of a whole block: one header and one slice a frame.
    out = bytearray()
    if length:
        blocks = (length + 7) >> 3
        g = _blocks(seq0, count, 0, blocks, masked).tobytes()
    step = 8 * ((length + 7) >> 3)
    pack = HEADER.pack
    for i in range(count):
        out += pack(VERSION, t, 0, length, seq0 + i)
        if length:
            out += g[i * step : i * step + length]
    return out, None


# Shapes of the last few batches: their header words, and the ints that
# make their sequence words.
_HEAD_CACHE = {}
_SEQ_CACHE = {}
_SHAPES_CACHED = 8


def _head_words(t, length, count):
    key = (t, length, count)
    w = _HEAD_CACHE.get(key)
    if w is None:
        if len(_HEAD_CACHE) >= _SHAPES_CACHED:
            _HEAD_CACHE.clear()
        word = int.from_bytes(bytes((VERSION, t, 0, 0)) + U32.pack(length), "little")
        w = _HEAD_CACHE[key] = array("Q", (word,)) * count
    return w


def _seq_words(seq0, count):
    """The header words of sequences seq0 .. seq0 + count - 1 (each 8
    bytes big-endian), as a memoryview of 64-bit words: one int whose
    64-bit lanes hold 0 .. count - 1, seq0 added to every lane (no lane
    carries: sequences stay below 2^62), and one big-endian to_bytes."""
    c = _SEQ_CACHE.get(count)
    if c is None:
        if len(_SEQ_CACHE) >= _SHAPES_CACHED:
            _SEQ_CACHE.clear()
        ones = int.from_bytes(b"\0\0\0\0\0\0\0\1" * count, "big")
        ramp = int.from_bytes(b"".join(i.to_bytes(8, "big") for i in range(count)), "big")
        c = _SEQ_CACHE[count] = (ones, ramp)
    ones, ramp = c
    return memoryview((ramp + seq0 * ones).to_bytes(8 * count, "big")).cast("Q")


# ---------------------------------------------------------------- workload


class Workload:
    __slots__ = ("warmup", "round_trips", "payload_bytes", "max_in_flight")

    def __init__(self, warmup, round_trips, payload_bytes, max_in_flight):
        self.warmup = warmup
        self.round_trips = round_trips
        self.payload_bytes = payload_bytes
        self.max_in_flight = max_in_flight

    def encode(self):
        return WORKLOAD.pack(
            self.warmup, self.round_trips, self.payload_bytes, self.max_in_flight
        )

    @classmethod
    def decode(cls, buf, off=0):
        return cls(*WORKLOAD.unpack_from(buf, off))

    def problem(self):
        """None when the workload follows SPEC.md section 2, else why not."""
        if self.round_trips < 1:
            return "round_trips is 0"
        if self.payload_bytes > MAX_PAYLOAD_BYTES:
            return "payload_bytes %d is over %d" % (self.payload_bytes, MAX_PAYLOAD_BYTES)
        if not 1 <= self.max_in_flight <= MAX_IN_FLIGHT:
            return "max_in_flight %d is outside 1..%d" % (self.max_in_flight, MAX_IN_FLIGHT)
        if self.warmup + self.round_trips >= WORKLOAD_SUM_LIMIT:
            return "warmup + round_trips is not below 2^62"
        return None

    def __str__(self):
        return "warmup %d, round_trips %d, payload_bytes %d, max_in_flight %d" % (
            self.warmup,
            self.round_trips,
            self.payload_bytes,
            self.max_in_flight,
        )


def encode_counts(requests, responses, bytes_sent, bytes_received):
    # Counts wrap modulo 2^64 (SPEC.md section 2).
    return COUNTS.pack(requests & U64, responses & U64, bytes_sent & U64, bytes_received & U64)


def describe_counts(c):
    return "requests %d, responses %d, bytes_sent %d, bytes_received %d" % tuple(c)


def expected_counts(w, ack):
    """The counts BYE (ack False) or BYE_ACK (ack True) carries for a
    workload, modulo 2^64."""
    rt = w.warmup + w.round_trips
    traffic = HELLO_FRAME_BYTES + rt * (HEADER_BYTES + w.payload_bytes)
    return (
        rt & U64,
        rt & U64,
        traffic & U64,
        (traffic + (BYE_FRAME_BYTES if ack else 0)) & U64,
    )


def utf8_cut(reason, limit):
    """The UTF-8 bytes of reason, cut to at most `limit` bytes without
    splitting a character."""
    b = reason.encode("utf-8", "replace")
    if len(b) <= limit:
        return b
    n = limit
    while n > 0 and (b[n] & 0xC0) == 0x80:
        n -= 1
    return b[:n]


def encode_error(code, reason):
    return encode_frame(ERROR, 0, U16.pack(code) + utf8_cut(reason, MAX_REASON_BYTES))


def decode_error(payload):
    code = U16.unpack_from(payload, 0)[0]
    return code, bytes(payload[2:]).decode("utf-8", "replace")
