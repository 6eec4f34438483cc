"""payloads.json and frames.json (protocol/vectors/README.md)."""

import pytest

from helpers import codec, load_cases, workload_of

PAYLOADS = load_cases("payloads.json")
FRAMES = load_cases("frames.json")


@pytest.mark.parametrize("c", PAYLOADS, ids=lambda c: "s%s_p%d" % (c["sequence"], c["length"]))
def test_payload(c):
    s, n = int(c["sequence"]), c["length"]
    assert codec.gen(s, n).hex() == c["payload"]
    assert codec.gen(s, n, True).hex() == c["response"]
    assert codec.respond(bytes.fromhex(c["payload"])).hex() == c["response"]


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 63, 64, 65, 1500])
@pytest.mark.parametrize("count", [1, 2, 5, 64])
def test_batched_frames_equal_frame_by_frame(length, count):
    # The batch generator is what the sessions compare whole runs with.
    for t, masked in ((codec.REQUEST, False), (codec.RESPONSE, True)):
        for first in (1, 2**32 - 1, 2**62 - 70):
            want = b"".join(
                codec.encode_frame(t, s, codec.gen(s, length, masked)) for s in range(first, first + count)
            )
            assert bytes(codec.frames(t, first, count, length)) == want


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 64, 65, 1500])
@pytest.mark.parametrize("count", [1, 2, 5, 64, 819])
def test_frame_pair_equals_frame_by_frame(length, count):
    # Requests and their responses made together, as the sessions' chunks.
    for first in (1, 2**32 - 1, 2**62 - 820):
        requests, responses = codec.frame_pair(first, count, length)
        for t, masked, got in ((codec.REQUEST, False, requests), (codec.RESPONSE, True, responses)):
            want = b"".join(
                codec.encode_frame(t, s, codec.gen(s, length, masked)) for s in range(first, first + count)
            )
            assert bytes(got) == want


@pytest.mark.parametrize("length", [0, 8, 64, 65])
@pytest.mark.parametrize("count", [1, 3, 64])
def test_consecutive_batches_equal_frame_by_frame(length, count):
    # A batch that follows the one before it starts from that one's states.
    for t, masked in ((codec.REQUEST, False), (codec.RESPONSE, True)):
        first = 2**30 - 2 * count
        for j in range(4):
            seq0 = first + j * count
            want = b"".join(
                codec.encode_frame(t, s, codec.gen(s, length, masked)) for s in range(seq0, seq0 + count)
            )
            assert bytes(codec.frames(t, seq0, count, length)) == want


def test_gen_is_really_splitmix64():
    # SPEC.md section 4's example, and a plain one-block-at-a-time loop.
    assert codec.gen(1, 8).hex() == "c15c0289ec2d0a91"
    assert codec.gen(1, 3).hex() == "c15c02"
    m = (1 << 64) - 1
    for seed in (0, 5, 2**64 - 1):
        state, out = seed, b""
        while len(out) < 100:
            state = (state + 0x9E3779B97F4A7C15) & m
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
            out += (z ^ (z >> 31)).to_bytes(8, "little")
        assert codec.gen(seed, 100) == out[:100]


@pytest.mark.parametrize("c", FRAMES, ids=lambda c: c["name"])
def test_frame(c):
    t, seq = c["type"], int(c["sequence"])
    payload = bytes.fromhex(c["payload"])
    frame = bytes.fromhex(c["frame"])
    if t in (codec.HELLO, codec.HELLO_ACK):
        payload_built = workload_of(c["workload"]).encode()
    elif t in (codec.BYE, codec.BYE_ACK):
        k = c["counts"]
        payload_built = codec.encode_counts(
            int(k["requests"]), int(k["responses"]), int(k["bytes_sent"]), int(k["bytes_received"])
        )
    elif t == codec.REQUEST:
        payload_built = codec.gen(seq, c["payload_length"])
    elif t == codec.RESPONSE:
        payload_built = codec.gen(seq, c["payload_length"], True)
    else:
        payload_built = codec.encode_error(c["code"], c["reason"])[16:]
    assert payload_built == payload
    assert codec.encode_frame(t, seq, payload) == frame
    if t == codec.ERROR:
        assert codec.encode_error(c["code"], c["reason"]) == frame
        assert codec.decode_error(payload) == (c["code"], c["reason"])
    version, t2, flags, length, seq2 = codec.HEADER.unpack_from(frame, 0)
    assert (version, t2, flags, length, seq2) == (c["version"], t, c["flags"], c["payload_length"], seq)
    assert codec.header_rejection(frame, 0) is None
    if "session" in c:
        w = workload_of(c["session"])
        k = c["counts"]
        want = tuple(int(k[f]) for f in ("requests", "responses", "bytes_sent", "bytes_received"))
        assert codec.expected_counts(w, t == codec.BYE_ACK) == want
