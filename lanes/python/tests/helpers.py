"""Shared by the tests: the repository root, the vectors, chunkings, and
receivers built in the states of protocol/vectors/README.md."""

import json
import os
import random
import sys

LANE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if LANE not in sys.path:
    sys.path.insert(0, LANE)

from crossrun_python import codec, session  # noqa: E402
from crossrun_python.session import ClientSession, FrameParser, ServerSession  # noqa: E402

ROOT = os.path.abspath(os.environ.get("CROSSRUN_ROOT") or os.path.join(LANE, "..", ".."))
VECTORS = os.path.join(ROOT, "protocol", "vectors")


def load_cases(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return json.load(f)["cases"]


def workload_of(j):
    return codec.Workload(int(j["warmup"]), int(j["round_trips"]), j["payload_bytes"], j["max_in_flight"])


def chunkings(buf, byte_by_byte=True):
    """Ways to cut buf into reads: whole, every byte apart, fixed sizes and
    seeded random sizes."""
    out = [("whole", [bytes(buf)])]
    sizes = [2, 3, 7, 15, 16, 17, 41]
    if byte_by_byte:
        sizes.insert(0, 1)
    for n in sizes:
        out.append(("%d-byte" % n, [bytes(buf[i : i + n]) for i in range(0, len(buf), n)]))
    for seed in (1, 2, 3):
        r = random.Random(seed)
        chunks = []
        pos = 0
        while pos < len(buf):
            n = r.randint(1, 100)
            chunks.append(bytes(buf[pos : pos + n]))
            pos += n
        out.append(("random-%d" % seed, chunks))
    return out


def pump_client(client, sent):
    """Sends what the session allows now, as the program does after a read."""
    while True:
        out = client.produce(256 * 1024)
        if out is None:
            return
        sent.append(bytes(out))


class Rx:
    def __init__(self, feed, end, session=None, sent=None):
        self.feed = feed
        self.end = end
        self.session = session
        self.sent = sent


def receiver_in(state, c):
    """A receiver in one of the states of protocol/vectors/README.md."""
    if state == "any":
        p = FrameParser()
        return Rx(p.feed, p.eof, p)
    w = workload_of(c["workload"]) if c.get("workload") else None
    if state.startswith("server_"):
        s = ServerSession()
        if state in ("server_expecting_request", "server_after_bye"):
            total = w.warmup + w.round_trips
            s.on_data(codec.encode_frame(codec.HELLO, 0, w.encode()))
            upto = total + 1 if state == "server_after_bye" else int(c["sequence"])
            for i in range(1, upto):
                s.on_data(codec.encode_frame(codec.REQUEST, i, codec.gen(i, w.payload_bytes)))
            if state == "server_after_bye":
                bye = codec.encode_counts(*codec.expected_counts(w, False))
                s.on_data(codec.encode_frame(codec.BYE, total + 1, bye))
                assert s.done
        elif state != "server_expecting_hello":
            raise AssertionError("unknown state " + state)
        return Rx(s.on_data, s.on_eof, s)
    cl = ClientSession(w, now=lambda: 0)
    sent = [cl.hello()]
    if state in ("client_expecting_response", "client_expecting_bye_ack"):
        total = w.warmup + w.round_trips
        cl.on_data(codec.encode_frame(codec.HELLO_ACK, 0, w.encode()))
        pump_client(cl, sent)
        upto = total + 1 if state == "client_expecting_bye_ack" else int(c["sequence"])
        for i in range(1, upto):
            cl.on_data(codec.encode_frame(codec.RESPONSE, i, codec.gen(i, w.payload_bytes, True)))
            pump_client(cl, sent)
    elif state != "client_expecting_hello_ack":
        raise AssertionError("unknown state " + state)

    def feed(b):
        cl.on_data(b)
        pump_client(cl, sent)

    return Rx(feed, cl.on_eof, cl, sent)
