"""The two programs over real sockets: sessions between them and with the C
lane, sessions.json and invalid.json played byte for byte against each,
flags and exit statuses (lanes/README.md)."""

import json
import socket

import pytest

import proc
from helpers import codec, load_cases, workload_of

SESSIONS = load_cases("sessions.json")
INVALID = load_cases("invalid.json")


def check_results(client_out, server_out, w):
    """The counts as the runner checks them (lanes/README.md)."""
    c = json.loads(client_out)
    W, N, P, M = w
    F = 16 + P
    assert c["round_trips"] == N and c["warmup_round_trips"] == W
    assert c["payload_bytes"] == P and c["max_in_flight"] == M
    assert c["frames_sent"] == W + N + 2 and c["frames_received"] == W + N + 2
    assert c["bytes_sent"] == 88 + (W + N) * F and c["bytes_received"] == 88 + (W + N) * F
    assert 0 < c["elapsed_ns"]
    assert c["cpu_user_us"] >= 0 and c["cpu_system_us"] >= 0
    lat = c["latency"]
    assert lat["count"] == N == sum(n for _, n in lat["buckets"])
    assert lat["max"] <= c["elapsed_ns"]
    idx = [i for i, _ in lat["buckets"]]
    assert idx == sorted(set(idx))
    if server_out is not None:
        lines = server_out.splitlines()
        assert len(lines) == 1
        s = json.loads(lines[-1])
        assert s["round_trips"] == N and s["warmup_round_trips"] == W
        assert s["frames_received"] == c["frames_sent"] and s["frames_sent"] == c["frames_received"]
        assert s["bytes_received"] == c["bytes_sent"] and s["bytes_sent"] == c["bytes_received"]
        for f in ("cpu_user_us", "cpu_system_us", "payload_bytes", "max_in_flight"):
            assert isinstance(s[f], int) and s[f] >= 0
    return c


def session(client_argv, server_argv, w, host="127.0.0.1"):
    srv, port = proc.server(server_argv, host)
    try:
        code, out, err = proc.run(client_argv + ["--connect", proc.connect_arg(host, port)] + proc.workload_args(w))
        assert code == 0, err
        assert err == ""
        scode = srv.wait()
        assert scode == 0, srv.stderr
        assert srv.stderr == b""
        return check_results(out, srv.stdout.decode() if server_argv is proc.SERVER else None, w)
    finally:
        srv.kill()


WORKLOADS = [(0, 1, 0, 1), (3, 10, 7, 2), (10, 200, 64, 64), (0, 50, 1500, 8), (5, 3, 1048576, 3), (100, 2000, 64, 200)]


@pytest.mark.parametrize("w", WORKLOADS, ids=str)
def test_python_python(w):
    session(proc.CLIENT, proc.SERVER, w)


@pytest.mark.parametrize("w", [(2, 20, 64, 4)], ids=str)
def test_python_python_ipv6(w):
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        s.close()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    session(proc.CLIENT, proc.SERVER, w, "::1")


@pytest.mark.skipif(not proc.HAVE_C, reason="build/lanes/c is not built")
@pytest.mark.parametrize("w", [(10, 200, 64, 64), (0, 20, 1001, 3)], ids=str)
def test_with_c(w):
    session(proc.CLIENT, proc.C_SERVER, w)
    session(proc.C_CLIENT, proc.SERVER, w)


# ---------------------------------------------------------------- sessions.json


@pytest.mark.parametrize("chunk", [1 << 20, 7])
@pytest.mark.parametrize("c", SESSIONS, ids=lambda c: c["name"])
def test_sessions_server(c, chunk):
    """client_bytes to the server over a socket: it answers server_bytes and
    exits 0 with its result line once the client closes."""
    client_bytes = bytes.fromhex(c["client_bytes"])
    srv, port = proc.server()
    try:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for i in range(0, len(client_bytes), chunk):
                s.sendall(client_bytes[i : i + chunk])
            got = proc.recv_exact(s, len(c["server_bytes"]) // 2)
        assert got.hex() == c["server_bytes"]
        assert srv.wait() == 0, srv.stderr
        result = json.loads(srv.stdout.decode().splitlines()[-1])
        want = {k: int(v) for k, v in c["result"].items()}
        assert result["frames_received"] == want["frames_sent"]
        assert result["bytes_sent"] == want["bytes_received"]
    finally:
        srv.kill()


def frames_of(buf):
    out, pos = [], 0
    while pos < len(buf):
        n = 16 + codec.U32.unpack_from(buf, pos + 4)[0]
        out.append(buf[pos : pos + n])
        pos += n
    return out


@pytest.mark.parametrize("c", SESSIONS, ids=lambda c: c["name"])
def test_sessions_client(c):
    """The client against a scripted server that reads each frame and sends
    server_bytes frame by frame, each in answer to what it answers."""
    client_frames = frames_of(bytes.fromhex(c["client_bytes"]))
    server_frames = frames_of(bytes.fromhex(c["server_bytes"]))

    def handler(conn):
        for want, answer in zip(client_frames, server_frames):
            got = proc.recv_exact(conn, len(want))
            assert got == want
            conn.sendall(answer)
        assert proc.recv_all(conn) == b""

    fake = proc.FakeServer(handler)
    w = workload_of(c["workload"])
    code, out, err = proc.run(
        proc.CLIENT + ["--connect", "127.0.0.1:%d" % fake.port]
        + proc.workload_args((w.warmup, w.round_trips, w.payload_bytes, w.max_in_flight))
    )
    fake.join()
    assert code == 0, err
    r = json.loads(out)
    for k, v in c["result"].items():
        assert r[k] == int(v), k


# ---------------------------------------------------------------- invalid.json


def server_prefix(c):
    """The bytes that bring a server into the case's state."""
    state = c["state"]
    if state in ("any", "server_expecting_hello"):
        return b""
    w = workload_of(c["workload"])
    out = codec.encode_frame(codec.HELLO, 0, w.encode())
    total = w.warmup + w.round_trips
    upto = total + 1 if state == "server_after_bye" else int(c["sequence"])
    for i in range(1, upto):
        out += codec.encode_frame(codec.REQUEST, i, codec.gen(i, w.payload_bytes))
    if state == "server_after_bye":
        out += codec.encode_frame(codec.BYE, total + 1, codec.encode_counts(*codec.expected_counts(w, False)))
    return out


def server_answers(c):
    state = c["state"]
    if state in ("any", "server_expecting_hello"):
        return b""
    w = workload_of(c["workload"])
    out = codec.encode_frame(codec.HELLO_ACK, 0, w.encode())
    total = w.warmup + w.round_trips
    upto = total + 1 if state == "server_after_bye" else int(c["sequence"])
    for i in range(1, upto):
        out += codec.encode_frame(codec.RESPONSE, i, codec.gen(i, w.payload_bytes, True))
    if state == "server_after_bye":
        out += codec.encode_frame(codec.BYE_ACK, total + 1, codec.encode_counts(*codec.expected_counts(w, True)))
    return out


SERVER_CASES = [c for c in INVALID if c["state"] in ("any", "server_expecting_hello", "server_expecting_request", "server_after_bye")
                and not (c["state"] == "any" and c["rejection"] == "truncated")]


@pytest.mark.parametrize("c", SERVER_CASES, ids=lambda c: "%s-%s" % (c["state"], c["name"]))
def test_invalid_server(c):
    """The server over a socket: the state's frames, answered; then the input
    (and end of stream): one stderr line naming the rejection, exit 1, an
    ERROR frame with the matching code unless it got one."""
    srv, port = proc.server()
    try:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            prefix = server_prefix(c)
            s.sendall(prefix)
            answers = server_answers(c)
            assert proc.recv_exact(s, len(answers)) == answers
            s.sendall(bytes.fromhex(c["input"]))
            if c["eof"]:
                s.shutdown(socket.SHUT_WR)
            rest = proc.recv_error(s)
        assert srv.wait() == 1
        err = srv.stderr.decode()
        assert err.count("\n") == 1 and c["rejection"] in err, err
        assert srv.stdout == b""
        if c["rejection"] != "peer_error":
            assert rest[:2] == b"\x01\x07", rest
            assert codec.U16.unpack_from(rest, 16)[0] == codec.code_for(c["rejection"])
            assert rest[18:].decode().startswith(c["rejection"] + ": "), rest
    finally:
        srv.kill()


CLIENT_CASES = [c for c in INVALID if c["state"] == "client_expecting_hello_ack"]


@pytest.mark.parametrize("c", CLIENT_CASES, ids=lambda c: c["name"])
def test_invalid_client(c):
    def handler(conn):
        w = workload_of(c["workload"])
        assert proc.recv_exact(conn, 40) == codec.encode_frame(codec.HELLO, 0, w.encode())
        conn.sendall(bytes.fromhex(c["input"]))
        if c["eof"]:
            conn.shutdown(socket.SHUT_WR)
        rest = proc.recv_error(conn)
        if c["rejection"] != "peer_error":
            assert rest[:2] == b"\x01\x07", rest

    fake = proc.FakeServer(handler)
    w = workload_of(c["workload"])
    code, out, err = proc.run(
        proc.CLIENT + ["--connect", "127.0.0.1:%d" % fake.port]
        + proc.workload_args((w.warmup, w.round_trips, w.payload_bytes, w.max_in_flight))
    )
    fake.join()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and c["rejection"] in err, err


# ---------------------------------------------------------------- flags

GOOD = ["--warmup", "1", "--round-trips", "1", "--payload-bytes", "1", "--max-in-flight", "1"]


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--connect", "::1:5000"] + GOOD,
        ["--connect", "127.0.0.1:0"] + GOOD,
        ["--connect", "127.0.0.1:70000"] + GOOD,
        ["--connect", "localhost:5000"] + GOOD,
        ["--connect", "[127.0.0.1]:5000"] + GOOD,
        ["--connect", "127.0.0.1:5000"] + GOOD[:-1],
        ["--connect", "127.0.0.1:5000", "--bogus", "1"] + GOOD,
        ["--connect", "127.0.0.1:5000", "--round-trips", "0"] + GOOD[:2] + GOOD[4:],
        ["--connect", "127.0.0.1:5000", "--max-in-flight", "65537"] + GOOD[:6],
        ["--connect", "127.0.0.1:5000", "--payload-bytes", "1048577"] + GOOD[:4] + GOOD[6:],
        ["--connect", "127.0.0.1:5000", "--warmup", "-1"] + GOOD[2:],
        ["--connect", "127.0.0.1:5000", "--warmup", "4611686018427387903"] + GOOD[2:],
        ["--connect", "127.0.0.1:5000", "--warmup", "1.5"] + GOOD[2:],
        ["--connect", "127.0.0.1:5000", "--transport", "udp"] + GOOD,
        ["--connect", "127.0.0.1:5000", "--transport", "tls"] + GOOD,
        ["--connect", "127.0.0.1:5000", "--ca", "ca.pem"] + GOOD,
        ["--connect", "127.0.0.1:5000", "--connect", "127.0.0.1:5000"] + GOOD,
    ],
    ids=lambda a: " ".join(a) or "none",
)
def test_client_usage(args):
    code, out, err = proc.run(proc.CLIENT + args)
    assert code == 2 and out == "" and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--listen", "::1:0"],
        ["--listen", "127.0.0.1"],
        ["--listen", "127.0.0.1:0", "--extra", "1"],
        ["--listen", "127.0.0.1:0", "--transport", "tls"],
        ["--listen", "127.0.0.1:0", "--transport", "tls", "--cert", "c.pem"],
        ["--listen", "127.0.0.1:0", "--cert", "c.pem", "--key", "k.pem"],
        ["--listen", "127.0.0.1:0", "--transport", "quic"],
    ],
    ids=lambda a: " ".join(a) or "none",
)
def test_server_usage(args):
    code, out, err = proc.run(proc.SERVER + args)
    assert code == 2 and out == "" and err.count("\n") == 1, err


def test_flags_any_order_and_equals_form():
    srv, port = proc.server()
    try:
        args = ["--max-in-flight=2", "--payload-bytes", "3", "--connect=127.0.0.1:%d" % port,
                "--round-trips", "4", "--warmup=1"]
        code, out, err = proc.run(proc.CLIENT + args)
        assert code == 0, err
        assert srv.wait() == 0
        check_results(out, srv.stdout.decode(), (1, 4, 3, 2))
    finally:
        srv.kill()


def test_connection_refused():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    code, out, err = proc.run(proc.CLIENT + ["--connect", "127.0.0.1:%d" % port] + GOOD)
    assert code == 1 and out == "" and err.count("\n") == 1


def test_probe_that_closes_fails_the_server():
    srv, port = proc.server()
    try:
        socket.create_connection(("127.0.0.1", port)).close()
        assert srv.wait() == 1
        assert b"unexpected_eof" in srv.stderr
    finally:
        srv.kill()
