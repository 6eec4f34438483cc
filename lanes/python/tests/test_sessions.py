"""sessions.json and invalid.json against the socket-free sessions, in many
chunkings of the bytes (protocol/vectors/README.md)."""

import pytest

from helpers import ClientSession, ServerSession, chunkings, codec, load_cases, receiver_in, session, workload_of

SESSIONS = load_cases("sessions.json")
INVALID = load_cases("invalid.json")


@pytest.fixture(params=["kept", "generated"])
def expectations(request, monkeypatch):
    """The client both ways: checking responses against the ones it kept
    from its requests, and against ones generated again as they arrive (a
    window over KEEP_BYTES, here in chunks of one or a few frames, so that
    runs cross chunks and chunks are made again)."""
    if request.param == "generated":
        monkeypatch.setattr(session, "KEEP_BYTES", 0)
        monkeypatch.setattr(session, "CHUNK_BYTES", 0)
    return request.param


@pytest.fixture(params=[None, 0, 200])
def chunk_bytes(request, monkeypatch):
    """Runs made in chunks as the programs make them, of one frame, and of
    a few."""
    if request.param is not None:
        monkeypatch.setattr(session, "CHUNK_BYTES", request.param)
    return request.param


def frame_ends(buf):
    ends, pos = [], 0
    while pos < len(buf):
        pos += 16 + codec.U32.unpack_from(buf, pos + 4)[0]
        ends.append(pos)
    return ends


def expected_result(c):
    return {k: int(v) for k, v in c["result"].items()}


@pytest.mark.parametrize("c", SESSIONS, ids=lambda c: c["name"])
def test_session_server(c, chunk_bytes):
    client_bytes = bytes.fromhex(c["client_bytes"])
    server_bytes = bytes.fromhex(c["server_bytes"])
    for label, chunks in chunkings(client_bytes):
        s = ServerSession()
        out = b"".join(s.on_data(ch) for ch in chunks)
        assert out == server_bytes, label
        s.on_eof()
        assert s.done
        r = s.result()
        want = expected_result(c)
        assert r["frames_received"] == want["frames_sent"]
        assert r["frames_sent"] == want["frames_received"]
        assert r["bytes_received"] == want["bytes_sent"]
        assert r["bytes_sent"] == want["bytes_received"]


@pytest.mark.parametrize("size", [1, 3, 16, 17, 100000])
@pytest.mark.parametrize("c", SESSIONS, ids=lambda c: c["name"])
def test_session_client(c, size, expectations):
    # Server bytes come as a server would send them: each frame only once
    # the client has sent what it answers.
    w = workload_of(c["workload"])
    server_bytes = bytes.fromhex(c["server_bytes"])
    ends = frame_ends(server_bytes)
    cl = ClientSession(w)
    assert cl.keep == (expectations == "kept")
    sent = [cl.hello()]
    pos = 0
    frame = 0  # server frames allowed so far
    while not cl.done:
        # HELLO_ACK answers HELLO; RESPONSE i answers REQUEST i; BYE_ACK
        # answers BYE.
        if frame == 0:
            allowed = 1
        elif cl.state == 2:  # BYE sent
            allowed = len(ends)
        else:
            allowed = 1 + cl.sent
        limit = ends[allowed - 1]
        assert pos < limit, "client stalled at byte %d" % pos
        chunk = server_bytes[pos : min(limit, pos + size)]
        pos += len(chunk)
        cl.on_data(chunk)
        while frame < len(ends) and ends[frame] <= pos:
            frame += 1
        while True:
            out = cl.produce(256 * 1024)
            if out is None:
                break
            sent.append(bytes(out))
    assert pos == len(server_bytes)
    cl.on_eof()
    assert b"".join(sent).hex() == c["client_bytes"]
    r = cl.result()
    for k, v in expected_result(c).items():
        assert r[k] == v, k
    assert r["latency"]["count"] == w.round_trips


def test_invalid_covers_every_rejection():
    assert {c["rejection"] for c in INVALID} == set(codec.REJECTIONS)


@pytest.mark.parametrize("c", INVALID, ids=lambda c: c["name"])
def test_invalid(c, expectations, chunk_bytes):
    data = bytes.fromhex(c["input"])
    # A one_read case holds frames that must arrive in one read (the client
    # refills its window between reads, never inside one).
    cuts = [("whole", [data])] if c.get("one_read") else chunkings(data)
    for label, chunks in cuts if data else [("empty", [])]:
        rx = receiver_in(c["state"], c)
        with pytest.raises(codec.ProtocolError) as e:
            for ch in chunks:
                rx.feed(ch)
            if c["eof"]:
                rx.end()
        assert e.value.rejection == c["rejection"], "%s: %s" % (label, e.value)
