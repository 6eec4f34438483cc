"""Both sides of one session (SPEC.md section 3), independent of any socket:
bytes of one read in, the answer to every complete frame in them out.
Rejections are raised as codec.ProtocolError.

Every frame's header is checked as soon as its 16 bytes are in, in the
order of protocol/vectors/README.md ("Which check wins"); only the payload
waits for the whole frame. The common case, a run of REQUEST (server) or
RESPONSE (client) frames, is checked as one batch: the exact bytes those
frames must have (headers, gen(s, P), XOR 0x5A for responses) are made some
64 KiB of frames at a time (Runs), and a run that arrived is compared with
them in one compare per chunk it lies in. A run that differs anywhere is
walked again frame by frame through the full checks, so its rejection is
the one the rules name.
"""

import resource
import time
from collections import deque

from . import codec
from .codec import (
    BYE,
    BYE_ACK,
    ERROR,
    HEADER,
    HEADER_BYTES,
    HELLO,
    HELLO_ACK,
    REQUEST,
    RESPONSE,
    U32,
    U64,
    ProtocolError,
)
from .histogram import Histogram

_U64BE = codec.U64BE


def cpu_us():
    """This process's user and system CPU time in microseconds."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return round(r.ru_utime * 1e6), round(r.ru_stime * 1e6)


def unexpected(t, wanted):
    return ProtocolError("unexpected_type", "%s while waiting for %s" % (codec.type_name(t), wanted))


def peer_error(buf, off, length, have):
    """The rejection for a received ERROR frame from its header on: `have`
    of its `length` payload bytes are at buf[off:]."""
    have = min(have, length)
    if have < 2:
        e = ProtocolError("peer_error", "ERROR frame of %d payload bytes (its code did not arrive)" % length)
        e.peer_code = None
        return e
    code, reason = codec.decode_error(buf[off : off + have])
    cut = " (%d bytes of it did not arrive)" % (length - have) if have < length else ""
    e = ProtocolError(
        "peer_error",
        "ERROR code %d (%s): %r%s" % (code, codec.code_name(code), reason, cut),
    )
    e.peer_code = code
    return e


class Receiver:
    """Frame reassembly: the bytes of the one incomplete frame at the end of
    a read are kept (at most one frame) until the rest arrives.

    A subclass provides _check(buf, off, length) (the session's type,
    sequence and length rules on a header, not an ERROR one), _complete(buf,
    off, length) (the payload's checks of a whole frame) and may provide
    _batch(buf, pos, n) -> new pos (a run of the common frame)."""

    def __init__(self):
        self.acc = bytearray()
        # Bytes the stashed frame needs in all once its header passed, 0
        # while fewer than 16 of its bytes are in.
        self.need = 0

    def _admit(self, buf, off, avail):
        """Every check the 16 header bytes allow; the payload length."""
        codec.check_header(buf, off)
        length = U32.unpack_from(buf, off + 4)[0]
        if buf[off + 1] == ERROR:
            raise peer_error(buf, off + HEADER_BYTES, length, avail - HEADER_BYTES)
        self._check(buf, off, length)
        return length

    def feed(self, data):
        """Parses every complete frame of one read (and the header of an
        incomplete one)."""
        if self.acc:
            acc = self.acc
            acc += data
            if len(acc) < self.need:
                return
            data = bytes(acc)
            self.acc = bytearray()
            self.need = 0
        n = len(data)
        pos = 0
        batch = self._batch
        while n - pos >= HEADER_BYTES:
            pos = batch(data, pos, n)
            if n - pos < HEADER_BYTES:
                break
            length = self._admit(data, pos, n - pos)
            if n - pos < HEADER_BYTES + length:
                self.acc = bytearray(data[pos:])
                self.need = HEADER_BYTES + length
                return
            self._complete(data, pos, length)
            pos += HEADER_BYTES + length
        if pos < n:
            self.acc = bytearray(data[pos:])
            self.need = 0

    def _batch(self, buf, pos, n):
        return pos

    def _eof_partial(self):
        if not self.acc:
            return None
        return ProtocolError("truncated", "end of stream after %d bytes of a frame" % len(self.acc))

    def reset_rejection(self, cause):
        """A connection that failed (a reset) instead of ending: truncated
        inside a frame, else unexpected_eof whatever the state (SPEC.md
        section 3)."""
        e = self._eof_partial() or ProtocolError("unexpected_eof", "the connection failed between frames")
        return ProtocolError(e.rejection, "%s (connection error: %s)" % (e.detail, cause))


class FrameParser(Receiver):
    """A bare frame parser with no session: the header checks of SPEC.md
    section 1 and end of stream inside a frame."""

    def __init__(self):
        super().__init__()
        self.frames = []

    def _admit(self, buf, off, avail):
        codec.check_header(buf, off)
        return U32.unpack_from(buf, off + 4)[0]

    def _complete(self, buf, off, length):
        self.frames.append(bytes(buf[off : off + HEADER_BYTES + length]))

    def eof(self):
        e = self._eof_partial()
        if e:
            raise e


# ---------------------------------------------------------------- server

S_HELLO, S_REQUESTS, S_BYE, S_CLOSED = range(4)
_SERVER_WAITING = ("HELLO", "REQUEST", "BYE", "end of stream")


class ServerSession(Receiver):
    def __init__(self, cpu=cpu_us):
        super().__init__()
        self.cpu = cpu
        self.state = S_HELLO
        self.workload = None
        self.P = 0
        self.F = HEADER_BYTES
        self.W = 0
        self.total = 0
        self.received = 0  # REQUEST frames received (= RESPONSE frames sent)
        self.bytes_in = 0
        self.bytes_out = 0
        self.control_in = 0
        self.control_out = 0
        # CPU over the measured window (SPEC.md section 7): from just
        # before the read that delivers request W + 1 to the read of BYE.
        self.cpu0 = None
        self.cpu_user = 0
        self.cpu_system = 0
        self.out = []
        self.done = False
        self.runs = None

    def result(self):
        measured = self.received - self.W
        return {
            "round_trips": measured,
            "warmup_round_trips": self.received - measured,
            "payload_bytes": self.P,
            "max_in_flight": self.workload.max_in_flight,
            "frames_sent": self.received + self.control_out,
            "frames_received": self.received + self.control_in,
            "bytes_sent": self.bytes_out,
            "bytes_received": self.bytes_in,
            "cpu_user_us": self.cpu_user,
            "cpu_system_us": self.cpu_system,
            "runtime": "python",
        }

    def on_data(self, data):
        """One read in; the answers to its complete frames out, as one bytes
        object (b"" when there is nothing to send)."""
        out = self.out = []
        if (
            self.cpu0 is None
            and self.state == S_REQUESTS
            and self.received == self.W
            and self.total > self.W
        ):
            self.cpu0 = self.cpu()
        self.feed(data)
        self.out = []
        if not out:
            return b""
        return out[0] if len(out) == 1 else b"".join(out)

    def on_eof(self):
        """End of stream: returns only where the session allows it (right
        after the BYE this side acknowledged)."""
        e = self._eof_partial()
        if e:
            raise e
        if self.state != S_CLOSED:
            raise ProtocolError(
                "unexpected_eof",
                "end of stream while waiting for %s" % _SERVER_WAITING[self.state],
            )

    def _batch(self, buf, pos, n):
        if self.state != S_REQUESTS:
            return pos
        k = min((n - pos) // self.F, self.total - self.received)
        if k <= 0:
            return pos
        out = self.out
        for requests, responses, a, b in self.runs.pieces(self.received + 1, k):
            if not buf.startswith(requests[a:b], pos):
                # Somewhere in the run a frame breaks a rule: the full
                # checks, frame by frame, say which.
                return pos
            self._accepted(self.received + 1, (b - a) // self.F)
            # The requests are the bytes they must be: their answers are
            # the responses made with them.
            out.append(responses[a:b])
            pos += b - a
        return pos

    def _accepted(self, first, k):
        last = first + k - 1
        # A client that does not wait for the warm-up responses mixes
        # request W + 1 into an earlier read.
        if self.cpu0 is None and last > self.W:
            self.cpu0 = self.cpu()
        self.received = last
        self.bytes_in += k * self.F
        self.bytes_out += k * self.F
        self.runs.release(last + 1)
        if last == self.total:
            self.state = S_BYE

    def _check(self, buf, off, length):
        t = buf[off + 1]
        seq = _U64BE.unpack_from(buf, off + 8)[0]
        state = self.state
        if state == S_HELLO:
            if t != HELLO:
                raise unexpected(t, "HELLO")
            if seq != 0:
                raise ProtocolError("wrong_sequence", "HELLO sequence %d, expected 0" % seq)
        elif state == S_REQUESTS:
            # A BYE before all W + N requests too, whatever its sequence.
            want = self.received + 1
            if t != REQUEST:
                raise unexpected(t, "REQUEST %d" % want)
            if seq != want:
                raise ProtocolError("wrong_sequence", "REQUEST sequence %d, expected %d" % (seq, want))
            if length != self.P:
                raise ProtocolError(
                    "bad_length",
                    "REQUEST %d payload length %d, expected %d" % (seq, length, self.P),
                )
        elif state == S_BYE:
            # After all W + N requests only BYE may come, a REQUEST of any
            # sequence too: the type comes before the sequence.
            if t != BYE:
                raise unexpected(t, "BYE after all %d requests" % self.total)
            if seq != self.total + 1:
                raise ProtocolError("wrong_sequence", "BYE sequence %d, expected %d" % (seq, self.total + 1))
        else:
            # Fewer than 16 bytes and then end of stream: truncated (on_eof).
            raise ProtocolError(
                "unexpected_type",
                "%s after BYE (expected the end of stream)" % codec.type_name(t),
            )

    def _complete(self, buf, off, length):
        p = off + HEADER_BYTES
        state = self.state
        if state == S_HELLO:
            w = codec.Workload.decode(buf, p)
            problem = w.problem()
            if problem:
                raise ProtocolError("bad_workload", "HELLO %s: %s" % (w, problem))
            self.workload = w
            self.P = w.payload_bytes
            self.F = HEADER_BYTES + self.P
            self.W = w.warmup
            self.total = w.warmup + w.round_trips
            self.runs = Runs(self.P, self.total, 1)
            self.bytes_in += HEADER_BYTES + length
            self.control_in += 1
            ack = bytearray(buf[off : p + length])
            ack[1] = HELLO_ACK
            self.out.append(bytes(ack))
            self.bytes_out += len(ack)
            self.control_out += 1
            self.state = S_REQUESTS
        elif state == S_REQUESTS:
            seq = self.received + 1
            payload = buf[p : p + length]
            if payload != codec.gen(seq, self.P):
                raise ProtocolError(
                    "wrong_payload",
                    "REQUEST %d: payload differs from gen(%d, %d)" % (seq, seq, self.P),
                )
            self._accepted(seq, 1)
            self.out.append(encode_response(seq, payload))
        elif state == S_BYE:
            if self.cpu0 is not None:
                u, s = self.cpu()
                self.cpu_user = u - self.cpu0[0]
                self.cpu_system = s - self.cpu0[1]
            got = codec.COUNTS.unpack_from(buf, p)
            # The client's view mirrors this side's: what it sent is what
            # this side received before BYE, and the other way round.
            own = (
                self.received & U64,
                self.received & U64,
                self.bytes_in & U64,
                self.bytes_out & U64,
            )
            if got != own:
                raise ProtocolError(
                    "count_mismatch",
                    "BYE carries %s; expected %s"
                    % (codec.describe_counts(got), codec.describe_counts(own)),
                )
            self.bytes_in += HEADER_BYTES + length
            self.control_in += 1
            counts = codec.encode_counts(self.received, self.received, self.bytes_out, self.bytes_in)
            ack = codec.encode_frame(BYE_ACK, self.total + 1, counts)
            self.out.append(ack)
            self.bytes_out += len(ack)
            self.control_out += 1
            self.state = S_CLOSED
            self.done = True
        else:
            raise AssertionError("unreachable")


def encode_response(seq, payload):
    """The RESPONSE to request `seq` whose payload is `payload`."""
    return HEADER.pack(1, RESPONSE, 0, len(payload), seq) + bytes(payload).translate(codec.XOR_TABLE)


# Runs of the common frames are made this many bytes of them at a time (at
# least one frame): a batch's fixed cost is shared by many frames, and a
# chunk stays small next to the caches.
CHUNK_BYTES = 1 << 16


class Runs:
    """The exact REQUEST frames of sequences 1 .. last (payload P) and the
    RESPONSE frames that answer them, made a chunk of C consecutive
    sequences at a time: chunk j holds sequences j * C + 1 .. (j + 1) * C,
    as two bytes objects (requests, responses) of C frames each (fewer in
    the last). Chunks below the lowest sequence still wanted are dropped,
    and at most `keep` stay made (the oldest go first; a chunk asked for
    again once dropped is made again)."""

    __slots__ = ("P", "F", "C", "last", "keep", "made", "low")

    def __init__(self, P, last, keep):
        self.P = P
        self.F = HEADER_BYTES + P
        self.C = max(1, CHUNK_BYTES // self.F)
        self.last = last
        self.keep = max(1, keep)
        self.made = {}
        self.low = 0  # the lowest chunk still wanted

    def chunk(self, j):
        c = self.made.get(j)
        if c is None:
            c = self._make(j)
        return c

    def _make(self, j):
        first = j * self.C + 1
        k = min(self.C, self.last - first + 1)
        c = codec.frame_pair(first, k, self.P)
        made = self.made
        while len(made) >= self.keep:
            del made[min(made)]
        made[j] = c
        return c

    def pieces(self, first, k):
        """Where frames first .. first + k - 1 are: (requests, responses,
        a, b) for each chunk they are in, bytes a .. b of its two."""
        C = self.C
        F = self.F
        while k > 0:
            j, i = divmod(first - 1, C)
            m = min(k, C - i)
            requests, responses = self.chunk(j)
            yield requests, responses, i * F, (i + m) * F
            first += m
            k -= m

    def release(self, seq):
        """Sequences below seq are wanted no more."""
        low = (seq - 1) // self.C
        if low > self.low:
            self.low = low
            made = self.made
            for j in [j for j in made if j < low]:
                del made[j]


# ---------------------------------------------------------------- client

C_HELLO_ACK, C_RUN, C_BYE_ACK, C_DONE = range(4)
_CLIENT_WAITING = ("HELLO_ACK", "RESPONSE", "BYE_ACK", "end of stream")
# The client keeps the chunks of Runs that its outstanding requests are in
# (their responses made with the requests, as a server makes them) while a
# whole window of them fits in this many bytes; with a larger window the
# chunk of the oldest is made again when its responses arrive.
KEEP_BYTES = 1 << 20


class ClientSession(Receiver):
    """w: a codec.Workload. now() is the monotonic clock in ns, cpu() the
    process CPU time (user, system) in microseconds."""

    def __init__(self, w, now=time.monotonic_ns, cpu=cpu_us):
        super().__init__()
        self.workload = w
        self.now = now
        self.cpu = cpu
        self.W = w.warmup
        self.N = w.round_trips
        self.total = self.W + self.N
        self.P = w.payload_bytes
        self.F = HEADER_BYTES + self.P
        self.M = w.max_in_flight
        self.runs = Runs(self.P, self.total, 1)
        C = self.runs.C
        # The window spans at most this many chunks, and one more is made
        # ahead of it.
        span = (self.M + C - 1) // C + 2
        self.keep = span * C * self.F <= max(KEEP_BYTES, 2 * C * self.F)
        self.runs.keep = span if self.keep else 2
        self.hello_payload = w.encode()
        self.state = C_HELLO_ACK
        self.sent = 0  # REQUEST frames sent (the last sequence sent)
        self.recv = 0  # RESPONSE frames validated
        self.frames_out = 0
        self.frames_in = 0
        self.bytes_out = 0
        self.bytes_in = 0
        self.t0 = 0
        self.t1 = 0
        self.timing = False
        self.cpu0 = None
        self.cpu_user = 0
        self.cpu_system = 0
        # Latency (SPEC.md section 7): measured requests go out in batches
        # of one write, each [first, last, send time]; every response of
        # one read shares that read's time.
        self.batches = deque()
        self.recv_at = 0
        self.latency = Histogram()

    @property
    def done(self):
        return self.state == C_DONE

    def hello(self):
        f = codec.encode_frame(HELLO, 0, self.hello_payload)
        self.frames_out += 1
        self.bytes_out += len(f)
        return f

    def on_data(self, data):
        """Validates every complete frame of one read."""
        if self.timing:
            self.recv_at = self.now()
        self.feed(data)
        if self.state == C_DONE and self.acc:
            # The client closes once BYE_ACK validated: it ends the stream
            # inside the frame that follows it in the same read.
            raise ProtocolError("truncated", "%d bytes of a frame after BYE_ACK" % len(self.acc))

    def produce(self, max_bytes):
        """The next frames to send as one bytes-like object of at most
        about max_bytes (at least one frame), or None when nothing may be
        sent now. The send time of the measured ones is read here, once
        they are ready to write."""
        if self.state != C_RUN:
            return None
        recv = self.recv
        if recv == self.total:
            return self._bye()
        # Warm-up responses all arrive before the first measured request.
        limit = self.W if recv < self.W else self.total
        k = min(limit - self.sent, self.M - (self.sent - recv))
        if k <= 0:
            return None
        k = min(k, max(1, max_bytes // self.F))
        first = self.sent + 1
        if not self.timing and first == self.W + 1:
            self.timing = True
            self.cpu0 = self.cpu()
            self.t0 = self.now()
        out = self._requests(first, k)
        if self.timing:
            # The send time: read once the batch is ready to write.
            self.batches.append([first, first + k - 1, self.now()])
        self.sent = first + k - 1
        self.frames_out += k
        self.bytes_out += k * self.F
        return out

    def on_eof(self):
        e = self._eof_partial()
        if e:
            raise e
        if self.state != C_DONE:
            raise ProtocolError("unexpected_eof", "end of stream while waiting for %s" % self._waiting_for())

    def result(self):
        return {
            "round_trips": self.N,
            "warmup_round_trips": self.W,
            "payload_bytes": self.P,
            "max_in_flight": self.M,
            "frames_sent": self.frames_out,
            "frames_received": self.frames_in,
            "bytes_sent": self.bytes_out,
            "bytes_received": self.bytes_in,
            "elapsed_ns": self.t1 - self.t0,
            "cpu_user_us": self.cpu_user,
            "cpu_system_us": self.cpu_system,
            "latency": self.latency.to_result(),
            "runtime": "python",
        }

    def _waiting_for(self):
        if self.state == C_RUN:
            return "RESPONSE %d" % (self.recv + 1)
        return _CLIENT_WAITING[self.state]

    def _requests(self, first, k):
        """REQUEST frames first .. first + k - 1, as one bytes-like object."""
        parts = [requests[a:b] for requests, _, a, b in self.runs.pieces(first, k)]
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _bye(self):
        counts = codec.encode_counts(self.sent, self.recv, self.bytes_out, self.bytes_in)
        f = codec.encode_frame(BYE, self.total + 1, counts)
        self.frames_out += 1
        self.bytes_out += len(f)
        self.state = C_BYE_ACK
        return f

    def _batch(self, buf, pos, n):
        if self.state != C_RUN:
            return pos
        k = min((n - pos) // self.F, self.sent - self.recv)
        if k <= 0:
            return pos
        for _, responses, a, b in self.runs.pieces(self.recv + 1, k):
            if not buf.startswith(responses[a:b], pos):
                return pos
            self._accepted(self.recv + 1, (b - a) // self.F)
            pos += b - a
        return pos

    def _accepted(self, first, k):
        last = first + k - 1
        self.recv = last
        self.frames_in += k
        self.bytes_in += k * self.F
        self.runs.release(last + 1)
        if last <= self.W:
            return
        # Each measured response's latency: this read's time less the send
        # time of the batch that carried its request.
        at = self.recv_at
        batches = self.batches
        lo = max(first, self.W + 1)
        record = self.latency.record
        while lo <= last:
            b = batches[0]
            hi = min(last, b[1])
            record(at - b[2], hi - lo + 1)
            if hi == b[1]:
                batches.popleft()
            else:
                b[0] = hi + 1
            lo = hi + 1
        if last == self.total:
            # elapsed_ns ends once that response is validated (SPEC.md
            # section 3), so no latency can exceed it.
            self.t1 = self.now()
            u, s = self.cpu()
            self.cpu_user = u - self.cpu0[0]
            self.cpu_system = s - self.cpu0[1]

    def _check(self, buf, off, length):
        t = buf[off + 1]
        seq = _U64BE.unpack_from(buf, off + 8)[0]
        state = self.state
        # The type comes before the sequence for every frame: a RESPONSE is
        # allowed only while a request is outstanding, whatever its
        # sequence; then its sequence must be the oldest outstanding one's.
        if state == C_HELLO_ACK:
            if t != HELLO_ACK:
                raise unexpected(t, "HELLO_ACK")
            if seq != 0:
                raise ProtocolError("wrong_sequence", "HELLO_ACK sequence %d, expected 0" % seq)
        elif state == C_RUN:
            if t != RESPONSE:
                raise unexpected(t, "RESPONSE %d" % (self.recv + 1))
            if self.recv >= self.sent:
                raise ProtocolError(
                    "unexpected_type",
                    "RESPONSE %d with no request outstanding (%d sent, all answered)" % (seq, self.sent),
                )
            want = self.recv + 1
            if seq != want:
                raise ProtocolError("wrong_sequence", "RESPONSE sequence %d, expected %d" % (seq, want))
            if length != self.P:
                raise ProtocolError(
                    "bad_length",
                    "RESPONSE %d payload length %d, expected %d" % (seq, length, self.P),
                )
        elif state == C_BYE_ACK:
            if t != BYE_ACK:
                raise unexpected(t, "BYE_ACK")
            if seq != self.total + 1:
                raise ProtocolError(
                    "wrong_sequence", "BYE_ACK sequence %d, expected %d" % (seq, self.total + 1)
                )
        else:
            raise ProtocolError(
                "unexpected_type",
                "%s after BYE_ACK (expected the end of stream)" % codec.type_name(t),
            )

    def _complete(self, buf, off, length):
        p = off + HEADER_BYTES
        state = self.state
        if state == C_HELLO_ACK:
            echo = bytes(buf[p : p + length])
            if echo != self.hello_payload:
                got = codec.Workload.decode(echo)
                raise ProtocolError(
                    "bad_workload",
                    "HELLO_ACK echoes %s; sent %s" % (got, self.workload),
                )
            self.frames_in += 1
            self.bytes_in += HEADER_BYTES + length
            self.state = C_RUN
        elif state == C_RUN:
            seq = self.recv + 1
            if buf[p : p + length] != codec.gen(seq, self.P, True):
                raise ProtocolError(
                    "wrong_payload",
                    "RESPONSE %d: payload differs from respond(gen(%d, %d))" % (seq, seq, self.P),
                )
            self._accepted(seq, 1)
        elif state == C_BYE_ACK:
            got = codec.COUNTS.unpack_from(buf, p)
            # The server's view mirrors this side's.
            own = (
                self.sent & U64,
                self.recv & U64,
                self.bytes_in & U64,
                self.bytes_out & U64,
            )
            if got != own:
                raise ProtocolError(
                    "count_mismatch",
                    "BYE_ACK carries %s; expected %s"
                    % (codec.describe_counts(got), codec.describe_counts(own)),
                )
            self.frames_in += 1
            self.bytes_in += HEADER_BYTES + length
            self.state = C_DONE
        else:
            raise AssertionError("unreachable")
