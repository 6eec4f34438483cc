#!/usr/bin/env python3
"""Writes the crossrun protocol vectors (payloads.json, frames.json,
sessions.json, invalid.json, histogram.json) from protocol/SPEC.md alone.

This is an implementation of the spec independent of the C codec, in
Python 3 with the standard library only. Output is deterministic: running
it twice gives the same bytes. README.md in this folder documents the
fields of every case.

    python3 protocol/vectors/generate.py           # rewrite the files
    python3 protocol/vectors/generate.py --check   # exit 1 if they differ
"""

import json
import os
import struct
import sys

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15

VERSION = 1
HEADER = 16
MAX_PAYLOAD = 1048576
MAX_IN_FLIGHT = 65536
MAX_REASON = 512

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

CODE_UNSUPPORTED_VERSION = 1
CODE_BAD_WORKLOAD = 2
CODE_PROTOCOL_VIOLATION = 3
CODE_COUNT_MISMATCH = 4


# ---------------------------------------------------------------- spec


def gen(seq, length):
    """gen(s, P) of SPEC.md section 4."""
    out = bytearray()
    state = seq & MASK64
    while len(out) < length:
        state = (state + GAMMA) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z = z ^ (z >> 31)
        out += z.to_bytes(8, "little")
    return bytes(out[:length])


def respond(data):
    return bytes(b ^ 0x5A for b in data)


def header(ftype, seq, length, version=VERSION, flags=0):
    return struct.pack(">BBHIQ", version, ftype, flags, length, seq)


def frame(ftype, seq, payload=b""):
    return header(ftype, seq, len(payload)) + payload


class Workload:
    def __init__(self, warmup, round_trips, payload_bytes, max_in_flight):
        self.warmup = warmup
        self.round_trips = round_trips
        self.payload_bytes = payload_bytes
        self.max_in_flight = max_in_flight

    def encode(self):
        return struct.pack(
            ">QQII",
            self.warmup,
            self.round_trips,
            self.payload_bytes,
            self.max_in_flight,
        )

    def json(self):
        return {
            "warmup": str(self.warmup),
            "round_trips": str(self.round_trips),
            "payload_bytes": self.payload_bytes,
            "max_in_flight": self.max_in_flight,
        }

    @property
    def total(self):
        return self.warmup + self.round_trips

    @property
    def frame_bytes(self):
        return HEADER + self.payload_bytes


def encode_counts(requests, responses, bytes_sent, bytes_received):
    return struct.pack(">QQQQ", requests, responses, bytes_sent, bytes_received)


def counts_json(requests, responses, bytes_sent, bytes_received):
    return {
        "requests": str(requests),
        "responses": str(responses),
        "bytes_sent": str(bytes_sent),
        "bytes_received": str(bytes_received),
    }


def bye_counts(w):
    """Counts the client puts in BYE (SPEC.md section 2), modulo 2^64."""
    hello_and_traffic = (40 + w.total * w.frame_bytes) & MASK64
    return (w.total, w.total, hello_and_traffic, hello_and_traffic)


def bye_ack_counts(w):
    """Counts the server puts in BYE_ACK, modulo 2^64."""
    hello_and_traffic = (40 + w.total * w.frame_bytes) & MASK64
    return (w.total, w.total, hello_and_traffic,
            (hello_and_traffic + 48) & MASK64)


def error_payload(code, reason):
    raw = reason.encode("utf-8")
    assert len(raw) <= MAX_REASON
    return struct.pack(">H", code) + raw


def client_stream(w):
    """Every byte a client sends in the session of workload w."""
    out = [frame(HELLO, 0, w.encode())]
    for seq in range(1, w.total + 1):
        out.append(frame(REQUEST, seq, gen(seq, w.payload_bytes)))
    out.append(frame(BYE, w.total + 1, encode_counts(*bye_counts(w))))
    return out


def server_stream(w):
    """Every byte a server sends in the session of workload w."""
    out = [frame(HELLO_ACK, 0, w.encode())]
    for seq in range(1, w.total + 1):
        out.append(frame(RESPONSE, seq, respond(gen(seq, w.payload_bytes))))
    out.append(frame(BYE_ACK, w.total + 1, encode_counts(*bye_ack_counts(w))))
    return out


# ---------------------------------------------------------------- files


def payload_cases():
    sequences = [
        0,
        1,
        2,
        3,
        42,
        255,
        256,
        65535,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        (1 << 53) + 1,
        (1 << 62) - 1,
        1 << 63,
        MASK64 - 1,
        MASK64,
    ]
    lengths = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100]
    pairs = [(s, p) for s in sequences for p in lengths]
    pairs += [(0, 1000), (1, 1000), (1 << 32, 1000), (MASK64, 1000)]
    pairs += [(1, 4096), (123456789, 1500)]
    cases = []
    for seq, length in pairs:
        data = gen(seq, length)
        cases.append(
            {
                "sequence": str(seq),
                "length": length,
                "payload": data.hex(),
                "response": respond(data).hex(),
            }
        )
    return cases


def frame_case(name, ftype, seq, payload, extra):
    case = {
        "name": name,
        "type": ftype,
        "type_name": TYPE_NAMES[ftype],
        "version": VERSION,
        "flags": 0,
        "payload_length": len(payload),
        "sequence": str(seq),
    }
    case.update(extra)
    case["payload"] = payload.hex()
    case["frame"] = frame(ftype, seq, payload).hex()
    return case


def frame_cases():
    small = Workload(2, 3, 5, 2)
    large = Workload((1 << 40) + 7, (1 << 61) + 3, MAX_PAYLOAD, MAX_IN_FLIGHT)
    edge = Workload((1 << 62) - 2, 1, 0, 1)
    cases = []
    for name, w in (("hello", small), ("hello_large", large), ("hello_edge", edge)):
        cases.append(frame_case(name, HELLO, 0, w.encode(), {"workload": w.json()}))
    cases.append(
        frame_case(
            "hello_ack", HELLO_ACK, 0, small.encode(), {"workload": small.json()}
        )
    )
    for name, seq, p in (
        ("request", 1, 5),
        ("request_empty", 7, 0),
        ("request_64", 3, 64),
        ("request_sequence_2_32", 1 << 32, 9),
    ):
        cases.append(frame_case(name, REQUEST, seq, gen(seq, p), {}))
    for name, seq, p in (
        ("response", 1, 5),
        ("response_empty", 7, 0),
        ("response_64", 3, 64),
        ("response_sequence_2_32", 1 << 32, 9),
    ):
        cases.append(frame_case(name, RESPONSE, seq, respond(gen(seq, p)), {}))
    bye = bye_counts(small)
    cases.append(
        frame_case(
            "bye",
            BYE,
            small.total + 1,
            encode_counts(*bye),
            {"counts": counts_json(*bye)},
        )
    )
    ack = bye_ack_counts(small)
    cases.append(
        frame_case(
            "bye_ack",
            BYE_ACK,
            small.total + 1,
            encode_counts(*ack),
            {"counts": counts_json(*ack)},
        )
    )
    # Field encoding over the whole 64-bit range, not a session's figures.
    big = ((1 << 61) + 1, (1 << 61) + 1, (1 << 63) + 5, MASK64)
    cases.append(
        frame_case(
            "bye_large",
            BYE,
            (1 << 61) + 2,
            encode_counts(*big),
            {"counts": counts_json(*big)},
        )
    )
    # The counts of a session far beyond any real run: the wire byte counts
    # wrap modulo 2^64 (SPEC.md section 2). `session` names the workload.
    huge = Workload(1 << 61, (1 << 61) - 1, MAX_PAYLOAD, MAX_IN_FLIGHT)
    assert 40 + huge.total * huge.frame_bytes > MASK64
    for name, ftype, counts in (
        ("bye_wrapping", BYE, bye_counts(huge)),
        ("bye_ack_wrapping", BYE_ACK, bye_ack_counts(huge)),
    ):
        cases.append(
            frame_case(
                name,
                ftype,
                huge.total + 1,
                encode_counts(*counts),
                {"counts": counts_json(*counts), "session": huge.json()},
            )
        )
    for name, code, reason in (
        ("error", CODE_PROTOCOL_VIOLATION, "wrong_sequence: expected 3, got 4"),
        ("error_empty_reason", CODE_UNSUPPORTED_VERSION, ""),
        ("error_bad_workload", CODE_BAD_WORKLOAD, "bad_workload: round_trips 0"),
        ("error_count_mismatch", CODE_COUNT_MISMATCH, "count_mismatch: requests"),
        ("error_utf8", CODE_PROTOCOL_VIOLATION, "d\u00e9j\u00e0 vu \u2192 \u00e9chec"),
        ("error_max_reason", CODE_PROTOCOL_VIOLATION, "x" * MAX_REASON),
    ):
        cases.append(
            frame_case(
                name,
                ERROR,
                0,
                error_payload(code, reason),
                {"code": code, "reason": reason},
            )
        )
    return cases


def totals(w):
    sent = b"".join(client_stream(w))
    received = b"".join(server_stream(w))
    return {
        "frames_sent": str(w.total + 2),
        "frames_received": str(w.total + 2),
        "bytes_sent": str(len(sent)),
        "bytes_received": str(len(received)),
    }


def session_cases():
    workloads = [
        ("w0_n1_p0_m1", Workload(0, 1, 0, 1)),
        ("w2_n3_p5_m2", Workload(2, 3, 5, 2)),
        ("w1_n2_p64_m64", Workload(1, 2, 64, 64)),
        ("w0_n4_p8_m1", Workload(0, 4, 8, 1)),
        ("w3_n5_p9_m3", Workload(3, 5, 9, 3)),
        ("w1_n1_p1000_m2", Workload(1, 1, 1000, 2)),
    ]
    cases = []
    for name, w in workloads:
        cases.append(
            {
                "name": name,
                "workload": w.json(),
                "client_bytes": b"".join(client_stream(w)).hex(),
                "server_bytes": b"".join(server_stream(w)).hex(),
                "result": totals(w),
            }
        )
    return cases


def flip_bit(data, index, bit=0):
    out = bytearray(data)
    out[index] ^= 1 << bit
    return bytes(out)


def invalid_cases():
    cases = []

    def add(name, state, rejection, data, eof=False, workload=None, seq=None,
            description="", one_read=False):
        case = {"name": name, "state": state}
        if workload is not None:
            case["workload"] = workload.json()
        if seq is not None:
            case["sequence"] = str(seq)
        case["input"] = data.hex()
        case["eof"] = eof
        if one_read:
            # The verdict holds only when the whole input arrives in one
            # read: the client refills its window, and ends the session
            # after BYE_ACK, between reads (SPEC.md section 3).
            case["one_read"] = True
        case["rejection"] = rejection
        case["description"] = description
        cases.append(case)

    w = Workload(2, 3, 5, 2)  # W + N = 5, BYE and BYE_ACK carry sequence 6
    p = w.payload_bytes
    hello = frame(HELLO, 0, w.encode())
    bye_seq = w.total + 1

    # --- header checks, any receiver ---
    any_ = "any"
    add("version_0", any_, "unsupported_version",
        header(REQUEST, 1, 5, version=0), description="header version 0")
    add("version_2", any_, "unsupported_version",
        header(HELLO, 0, 24, version=2), description="HELLO header of version 2")
    add("version_255", any_, "unsupported_version",
        header(REQUEST, 1, 5, version=255), description="header version 255")
    add("type_0", any_, "unknown_type", header(0, 0, 0), description="type 0")
    add("type_8", any_, "unknown_type", header(8, 0, 0), description="type 8")
    add("type_255", any_, "unknown_type", header(255, 1, 5),
        description="type 255")
    add("flags_1", any_, "bad_flags", header(REQUEST, 1, 5, flags=1),
        description="REQUEST header with flags 0x0001")
    add("flags_8000", any_, "bad_flags", header(HELLO, 0, 24, flags=0x8000),
        description="HELLO header with flags 0x8000")
    add("request_1048577", any_, "frame_too_large",
        header(REQUEST, 1, MAX_PAYLOAD + 1),
        description="REQUEST header with payload_length 1048577")
    add("response_ffffffff", any_, "frame_too_large",
        header(RESPONSE, 1, 0xFFFFFFFF),
        description="RESPONSE header with payload_length 2^32-1")
    add("hello_length_23", any_, "bad_length", header(HELLO, 0, 23),
        description="HELLO header with payload_length 23")
    add("hello_length_25", any_, "bad_length", header(HELLO, 0, 25),
        description="HELLO header with payload_length 25")
    add("hello_ack_length_0", any_, "bad_length", header(HELLO_ACK, 0, 0),
        description="HELLO_ACK header with payload_length 0")
    add("bye_length_31", any_, "bad_length", header(BYE, 6, 31),
        description="BYE header with payload_length 31")
    add("bye_ack_length_33", any_, "bad_length", header(BYE_ACK, 6, 33),
        description="BYE_ACK header with payload_length 33")
    add("error_length_1", any_, "bad_length", frame(ERROR, 0, b"\x00"),
        description="ERROR frame with a 1-byte payload (below 2)")
    add("error_length_515", any_, "bad_length",
        frame(ERROR, 0, struct.pack(">H", 3) + b"x" * (MAX_REASON + 1)),
        description="ERROR frame with a 515-byte payload (above 2 + 512)")
    add("error_length_0", any_, "bad_length", header(ERROR, 0, 0),
        description="ERROR header with payload_length 0, nothing after it")
    add("error_length_515_header", any_, "bad_length",
        header(ERROR, 0, MAX_REASON + 3),
        description="ERROR header with payload_length 515, nothing after it")
    add("error_length_515_truncated", any_, "bad_length",
        header(ERROR, 0, MAX_REASON + 3) + struct.pack(">H", 3) + b"cut",
        eof=True,
        description="ERROR header with payload_length 515 and 5 payload "
        "bytes, then end of stream: bad_length from the header")
    # Several faults in one header: the checks apply in SPEC.md's order.
    add("version_before_type", any_, "unsupported_version",
        header(9, 0, 0, version=2, flags=1),
        description="version 2, type 9, flags 1: version is checked first")
    add("type_before_flags", any_, "unknown_type",
        header(0, 0, MAX_PAYLOAD + 1, flags=1),
        description="type 0, flags 1, length 1048577: type is checked second")
    add("flags_before_length", any_, "bad_flags",
        header(HELLO, 0, MAX_PAYLOAD + 1, flags=1),
        description="HELLO, flags 1, length 1048577: flags before length")
    add("too_large_before_bad_length", any_, "frame_too_large",
        header(BYE, 6, MAX_PAYLOAD + 1),
        description="BYE with length 1048577: frame_too_large, not bad_length")
    # End of stream inside a frame.
    add("truncated_one_byte", any_, "truncated", hello[:1], eof=True,
        description="1 byte of a header, then end of stream")
    add("truncated_mid_header", any_, "truncated", hello[:10], eof=True,
        description="10 bytes of a HELLO header, then end of stream")
    add("truncated_after_header", any_, "truncated", hello[:16], eof=True,
        description="a whole HELLO header and no payload, then end of stream")
    add("truncated_mid_payload", any_, "truncated",
        frame(REQUEST, 1, gen(1, 8))[:19], eof=True,
        description="REQUEST header (length 8) and 3 payload bytes, then "
        "end of stream")
    add("truncated_last_byte", any_, "truncated", hello[:-1], eof=True,
        description="a HELLO missing its last byte, then end of stream")

    # --- server, before HELLO ---
    s_hello = "server_expecting_hello"
    add("eof_before_hello", s_hello, "unexpected_eof", b"", eof=True,
        description="the client closes without sending anything")
    add("hello_version_2", s_hello, "unsupported_version",
        header(HELLO, 0, 24, version=2) + w.encode(),
        description="a HELLO of version 2 (the server answers ERROR code 1)")
    add("request_before_hello", s_hello, "unexpected_type",
        frame(REQUEST, 1, gen(1, p)), description="REQUEST 1 before any HELLO")
    add("hello_ack_to_server", s_hello, "unexpected_type",
        frame(HELLO_ACK, 0, w.encode()), description="HELLO_ACK sent to a server")
    add("bye_before_hello", s_hello, "unexpected_type",
        frame(BYE, 1, encode_counts(0, 0, 0, 0)),
        description="BYE before any HELLO")
    add("error_before_hello", s_hello, "peer_error",
        frame(ERROR, 0, error_payload(CODE_PROTOCOL_VIOLATION, "gave up")),
        description="the client sends ERROR code 3")
    add("hello_sequence_1", s_hello, "wrong_sequence",
        frame(HELLO, 1, w.encode()), description="HELLO with sequence 1")
    add("hello_length_23_frame", s_hello, "bad_length",
        frame(HELLO, 0, w.encode()[:23]),
        description="a whole HELLO frame with 23 payload bytes")
    bad_workloads = [
        ("hello_round_trips_0", Workload(2, 0, 5, 2), "round_trips 0"),
        ("hello_max_in_flight_0", Workload(2, 3, 5, 0), "max_in_flight 0"),
        ("hello_max_in_flight_65537", Workload(2, 3, 5, MAX_IN_FLIGHT + 1),
         "max_in_flight 65537"),
        ("hello_payload_1048577", Workload(2, 3, MAX_PAYLOAD + 1, 2),
         "payload_bytes 1048577"),
        ("hello_sum_2_62", Workload((1 << 62) - 1, 1, 5, 2),
         "warmup + round_trips = 2^62"),
        ("hello_sum_wraps", Workload(MASK64, 1, 5, 2),
         "warmup 2^64-1 + round_trips 1 wraps to 0"),
        ("hello_round_trips_2_62", Workload(0, 1 << 62, 5, 2),
         "round_trips 2^62"),
    ]
    for name, bad, what in bad_workloads:
        add(name, s_hello, "bad_workload", frame(HELLO, 0, bad.encode()),
            description="HELLO with " + what)
    add("hello_truncated", s_hello, "truncated", hello[:26], eof=True,
        description="HELLO header and 10 payload bytes, then end of stream")
    # The session's checks are made from the header (SPEC.md section 3):
    # a header that breaks one is reported by it, not as truncated.
    add("request_before_hello_truncated", s_hello, "unexpected_type",
        frame(REQUEST, 1, gen(1, p))[:18], eof=True,
        description="REQUEST 1 header and 2 payload bytes before any HELLO, "
        "then end of stream")
    add("hello_sequence_1_header", s_hello, "wrong_sequence",
        header(HELLO, 1, 24),
        description="the header of a HELLO with sequence 1, nothing after it")
    add("hello_sequence_1_truncated", s_hello, "wrong_sequence",
        frame(HELLO, 1, w.encode())[:20], eof=True,
        description="HELLO header with sequence 1 and 4 payload bytes, then "
        "end of stream")

    # --- server, after HELLO ---
    s_req = "server_expecting_request"

    def req(seq, data=None):
        return frame(REQUEST, seq, gen(seq, p) if data is None else data)

    def resp(seq, data=None):
        return frame(RESPONSE, seq,
                     respond(gen(seq, p)) if data is None else data)

    add("request_skipped", s_req, "wrong_sequence", req(2), workload=w, seq=1,
        description="REQUEST 2 where 1 is next")
    add("request_repeated", s_req, "wrong_sequence", req(2), workload=w, seq=3,
        description="REQUEST 2 again where 3 is next")
    add("request_sequence_0", s_req, "wrong_sequence", req(0), workload=w,
        seq=1, description="REQUEST 0")
    # After W + N requests only BYE is allowed: the type is checked before
    # the sequence, so any REQUEST is unexpected_type (SPEC.md section 3).
    add("request_beyond_total", s_req, "unexpected_type", req(6), workload=w,
        seq=6, description="REQUEST W+N+1 where only BYE may come")
    add("request_repeated_after_all", s_req, "unexpected_type", req(5),
        workload=w, seq=6,
        description="REQUEST W+N again after every request, where only BYE "
        "may come: the type is checked before the sequence")
    add("request_beyond_total_early", s_req, "wrong_sequence", req(6),
        workload=w, seq=3,
        description="REQUEST W+N+1 where REQUEST 3 is next: a REQUEST is "
        "allowed there, its sequence is wrong")
    add("request_skipped_after_valid", s_req, "wrong_sequence",
        req(1) + req(2) + req(4), workload=w, seq=1,
        description="REQUEST 1 and 2 are valid, then REQUEST 4")
    add("request_longer", s_req, "bad_length", req(1, gen(1, p + 1)),
        workload=w, seq=1, description="REQUEST 1 with P+1 payload bytes")
    add("request_shorter", s_req, "bad_length", req(1, gen(1, p - 1)),
        workload=w, seq=1, description="REQUEST 1 with P-1 payload bytes")
    w_empty = Workload(0, 1, 0, 1)
    add("request_nonempty_for_p0", s_req, "bad_length", req(1, gen(1, 1)),
        workload=w_empty, seq=1, description="REQUEST 1 with 1 byte where P=0")
    add("request_flipped_first_bit", s_req, "wrong_payload",
        req(1, flip_bit(gen(1, p), 0)), workload=w, seq=1,
        description="REQUEST 1 with bit 0 of byte 0 flipped")
    add("request_flipped_last_bit", s_req, "wrong_payload",
        req(3, flip_bit(gen(3, p), p - 1, 7)), workload=w, seq=3,
        description="REQUEST 3 with bit 7 of its last byte flipped")
    w64 = Workload(1, 2, 64, 64)
    add("request_flipped_bit_64", s_req, "wrong_payload",
        req(2, flip_bit(gen(2, 64), 37, 4)), workload=w64, seq=2,
        description="REQUEST 2 (P=64) with bit 4 of byte 37 flipped")
    add("request_wrong_generator_seed", s_req, "wrong_payload",
        req(2, gen(1, p)), workload=w, seq=2,
        description="REQUEST 2 carrying gen(1, P)")
    add("request_masked", s_req, "wrong_payload", req(2, respond(gen(2, p))),
        workload=w, seq=2, description="REQUEST 2 carrying respond(gen(2, P))")
    add("response_to_server", s_req, "unexpected_type", resp(1), workload=w,
        seq=1, description="RESPONSE 1 sent to a server")
    add("hello_again", s_req, "unexpected_type", hello, workload=w, seq=2,
        description="a second HELLO")
    add("bye_ack_to_server", s_req, "unexpected_type",
        frame(BYE_ACK, bye_seq, encode_counts(*bye_ack_counts(w))), workload=w,
        seq=bye_seq, description="BYE_ACK sent to a server")
    add("error_from_client", s_req, "peer_error",
        frame(ERROR, 0, error_payload(CODE_PROTOCOL_VIOLATION,
                                      "wrong_payload: response 1")),
        workload=w, seq=2, description="the client sends ERROR code 3")
    add("eof_between_requests", s_req, "unexpected_eof", b"", eof=True,
        workload=w, seq=3,
        description="end of stream after REQUEST 2, before REQUEST 3")
    add("eof_before_bye", s_req, "unexpected_eof", b"", eof=True, workload=w,
        seq=bye_seq, description="end of stream after the last REQUEST")
    add("eof_after_valid_request", s_req, "unexpected_eof", req(1), eof=True,
        workload=w, seq=1, description="REQUEST 1, then end of stream")
    add("request_truncated", s_req, "truncated", req(2)[:18], eof=True,
        workload=w, seq=2,
        description="REQUEST 2 header and 2 payload bytes, then end of stream")
    # Header-decided rejections, then the stream ends inside the frame.
    add("request_skipped_header", s_req, "wrong_sequence", req(2)[:16],
        workload=w, seq=1,
        description="the header of REQUEST 2 where 1 is next, nothing after it")
    add("request_skipped_truncated", s_req, "wrong_sequence", req(2)[:18],
        eof=True, workload=w, seq=1,
        description="REQUEST 2 header (1 is next) and 2 payload bytes, then "
        "end of stream")
    add("request_beyond_total_truncated", s_req, "unexpected_type",
        req(6)[:20], eof=True, workload=w, seq=6,
        description="REQUEST W+N+1 header and 4 payload bytes where only BYE "
        "may come, then end of stream")
    add("request_longer_header", s_req, "bad_length",
        req(1, gen(1, p + 1))[:16], workload=w, seq=1,
        description="the header of REQUEST 1 with payload_length P+1, "
        "nothing after it")
    add("request_longer_truncated", s_req, "bad_length",
        req(1, gen(1, p + 1))[:18], eof=True, workload=w, seq=1,
        description="REQUEST 1 header with payload_length P+1 and 2 payload "
        "bytes, then end of stream")
    add("request_shorter_truncated", s_req, "bad_length",
        req(1, gen(1, p - 1))[:17], eof=True, workload=w, seq=1,
        description="REQUEST 1 header with payload_length P-1 and 1 payload "
        "byte, then end of stream")
    add("response_to_server_truncated", s_req, "unexpected_type",
        resp(1)[:18], eof=True, workload=w, seq=1,
        description="RESPONSE 1 header and 2 payload bytes sent to a server, "
        "then end of stream")
    add("hello_again_truncated", s_req, "unexpected_type", hello[:30],
        eof=True, workload=w, seq=2,
        description="a second HELLO's header and 14 payload bytes, then end "
        "of stream")
    add("error_from_client_header", s_req, "peer_error",
        header(ERROR, 0, 30), workload=w, seq=2,
        description="the header of an ERROR frame (30 payload bytes "
        "announced), nothing after it")
    add("error_from_client_truncated", s_req, "peer_error",
        frame(ERROR, 0, error_payload(CODE_PROTOCOL_VIOLATION,
                                      "wrong_payload: response 1"))[:21],
        eof=True, workload=w, seq=2,
        description="an ERROR frame's header, code and 3 reason bytes, then "
        "end of stream: peer_error from the header on")
    add("error_length_1_from_client", s_req, "bad_length",
        frame(ERROR, 0, b"\x03"), workload=w, seq=2,
        description="an ERROR frame with a 1-byte payload: the header check "
        "comes before peer_error")
    good_bye = bye_counts(w)
    # BYE before all W + N requests: unexpected_type (SPEC.md section 3).
    add("bye_early", s_req, "unexpected_type",
        frame(BYE, bye_seq, encode_counts(*good_bye)), workload=w, seq=3,
        description="BYE (sequence W+N+1, the session's full counts) after "
        "REQUEST 1 and 2 of 5")
    add("bye_early_next_sequence", s_req, "unexpected_type",
        frame(BYE, 3, encode_counts(2, 2, 40 + 2 * w.frame_bytes,
                                    40 + 2 * w.frame_bytes)),
        workload=w, seq=3,
        description="BYE carrying sequence 3 and the counts so far, where "
        "REQUEST 3 is next")
    add("bye_before_requests", s_req, "unexpected_type",
        frame(BYE, bye_seq, encode_counts(0, 0, 40, 40)), workload=w, seq=1,
        description="BYE right after HELLO, before any REQUEST")
    add("bye_early_truncated", s_req, "unexpected_type",
        frame(BYE, bye_seq, encode_counts(*good_bye))[:20], eof=True,
        workload=w, seq=5,
        description="BYE header and 4 payload bytes while REQUEST W+N is "
        "next, then end of stream")
    add("bye_wrong_sequence_truncated", s_req, "wrong_sequence",
        frame(BYE, bye_seq + 1, encode_counts(*good_bye))[:30], eof=True,
        workload=w, seq=bye_seq,
        description="BYE header with sequence W+N+2 and 14 payload bytes, "
        "then end of stream")
    add("bye_wrong_sequence", s_req, "wrong_sequence",
        frame(BYE, bye_seq + 1, encode_counts(*good_bye)), workload=w,
        seq=bye_seq, description="BYE with sequence W+N+2")
    add("bye_sequence_0", s_req, "wrong_sequence",
        frame(BYE, 0, encode_counts(*good_bye)), workload=w, seq=bye_seq,
        description="BYE with sequence 0")
    add("bye_length_31_frame", s_req, "bad_length",
        frame(BYE, bye_seq, encode_counts(*good_bye)[:31]), workload=w,
        seq=bye_seq, description="a whole BYE frame with 31 payload bytes")
    for index, field in enumerate(
        ("requests", "responses", "bytes_sent", "bytes_received")
    ):
        wrong = list(good_bye)
        wrong[index] += 1
        add("bye_wrong_" + field, s_req, "count_mismatch",
            frame(BYE, bye_seq, encode_counts(*wrong)), workload=w,
            seq=bye_seq, description="BYE with " + field + " one too many")
    add("bye_with_ack_counts", s_req, "count_mismatch",
        frame(BYE, bye_seq, encode_counts(*bye_ack_counts(w))), workload=w,
        seq=bye_seq,
        description="BYE carrying the counts a BYE_ACK would (bytes_received "
        "+ 48)")

    # --- server, after BYE_ACK: only the end of stream may come ---
    s_done = "server_after_bye"
    add("request_after_bye", s_done, "unexpected_type", req(6), workload=w,
        description="REQUEST W+N+1 after the BYE")
    add("bye_after_bye", s_done, "unexpected_type",
        frame(BYE, bye_seq, encode_counts(*good_bye)), workload=w,
        description="a second BYE")
    add("hello_after_bye", s_done, "unexpected_type", hello, workload=w,
        description="a HELLO after the BYE")
    add("header_after_bye", s_done, "unexpected_type", req(1)[:16],
        workload=w,
        description="the header of REQUEST 1 after the BYE, nothing after it")
    add("partial_frame_after_bye", s_done, "unexpected_type", req(6)[:18],
        eof=True, workload=w,
        description="a REQUEST header and 2 payload bytes after the BYE, then "
        "end of stream")
    add("partial_header_after_bye", s_done, "truncated", req(6)[:5],
        eof=True, workload=w,
        description="5 bytes of a header after the BYE, then end of stream")
    add("one_byte_after_bye", s_done, "truncated", b"\x01", eof=True,
        workload=w, description="1 byte after the BYE, then end of stream")
    add("bad_version_after_bye", s_done, "unsupported_version",
        header(REQUEST, 6, p, version=2), workload=w,
        description="a header of version 2 after the BYE: the header checks "
        "come first")
    add("error_after_bye", s_done, "peer_error",
        frame(ERROR, 0, error_payload(CODE_PROTOCOL_VIOLATION,
                                      "count_mismatch: bytes_sent")),
        workload=w, description="an ERROR frame after the BYE: peer_error "
        "comes before the type")

    # --- client, after sending HELLO ---
    c_ack = "client_expecting_hello_ack"
    add("eof_before_hello_ack", c_ack, "unexpected_eof", b"", eof=True,
        workload=w, description="the server closes without answering")
    for name, other, what in (
        ("hello_ack_other_warmup", Workload(3, 3, 5, 2), "warmup"),
        ("hello_ack_other_round_trips", Workload(2, 4, 5, 2), "round_trips"),
        ("hello_ack_other_payload", Workload(2, 3, 6, 2), "payload_bytes"),
        ("hello_ack_other_max_in_flight", Workload(2, 3, 5, 1),
         "max_in_flight"),
    ):
        add(name, c_ack, "bad_workload", frame(HELLO_ACK, 0, other.encode()),
            workload=w, description="HELLO_ACK echoing a different " + what)
    add("hello_ack_sequence_1", c_ack, "wrong_sequence",
        frame(HELLO_ACK, 1, w.encode()), workload=w,
        description="HELLO_ACK with sequence 1")
    add("hello_ack_length_23_frame", c_ack, "bad_length",
        frame(HELLO_ACK, 0, w.encode()[:23]), workload=w,
        description="a whole HELLO_ACK frame with 23 payload bytes")
    add("response_before_hello_ack", c_ack, "unexpected_type", resp(1),
        workload=w, description="RESPONSE 1 before HELLO_ACK")
    add("hello_to_client", c_ack, "unexpected_type", hello, workload=w,
        description="HELLO sent to a client")
    add("error_instead_of_hello_ack", c_ack, "peer_error",
        frame(ERROR, 0, error_payload(CODE_BAD_WORKLOAD,
                                      "bad_workload: max_in_flight 0")),
        workload=w, description="the server answers ERROR code 2")
    add("hello_ack_truncated", c_ack, "truncated",
        frame(HELLO_ACK, 0, w.encode())[:30], eof=True, workload=w,
        description="HELLO_ACK header and 14 payload bytes, then end of "
        "stream")
    add("response_2_before_hello_ack", c_ack, "unexpected_type", resp(2),
        workload=w, description="RESPONSE 2 before HELLO_ACK: no request is "
        "outstanding, so no RESPONSE is allowed, whatever its sequence")
    add("response_before_hello_ack_truncated", c_ack, "unexpected_type",
        resp(1)[:18], eof=True, workload=w,
        description="RESPONSE 1 header and 2 payload bytes before HELLO_ACK, "
        "then end of stream")
    add("hello_ack_sequence_1_truncated", c_ack, "wrong_sequence",
        frame(HELLO_ACK, 1, w.encode())[:20], eof=True, workload=w,
        description="HELLO_ACK header with sequence 1 and 4 payload bytes, "
        "then end of stream")
    add("error_instead_of_hello_ack_truncated", c_ack, "peer_error",
        frame(ERROR, 0, error_payload(CODE_BAD_WORKLOAD,
                                      "bad_workload: max_in_flight 0"))[:19],
        eof=True, workload=w,
        description="an ERROR frame's header and 3 payload bytes, then end of "
        "stream")

    # --- client, waiting for responses ---
    c_resp = "client_expecting_response"
    add("response_skipped", c_resp, "wrong_sequence", resp(2), workload=w,
        seq=1, description="RESPONSE 2 where 1 is expected")
    add("response_repeated", c_resp, "wrong_sequence", resp(2), workload=w,
        seq=3, description="RESPONSE 2 again where 3 is expected")
    add("response_sequence_0", c_resp, "wrong_sequence", resp(0), workload=w,
        seq=1, description="RESPONSE 0")
    add("response_beyond_total", c_resp, "wrong_sequence", resp(6),
        workload=w, seq=5, description="RESPONSE W+N+1 where W+N is expected")
    add("response_skipped_after_valid", c_resp, "wrong_sequence",
        resp(1) + resp(2) + resp(4), workload=Workload(0, 5, 5, 4), seq=1,
        description="RESPONSE 1 and 2 are valid, then RESPONSE 4 while 3 "
        "and 4 are outstanding (M=4)")
    add("response_flipped_first_bit", c_resp, "wrong_payload",
        resp(1, flip_bit(respond(gen(1, p)), 0)), workload=w, seq=1,
        description="RESPONSE 1 with bit 0 of byte 0 flipped")
    add("response_flipped_last_bit", c_resp, "wrong_payload",
        resp(4, flip_bit(respond(gen(4, p)), p - 1, 7)), workload=w, seq=4,
        description="RESPONSE 4 with bit 7 of its last byte flipped")
    add("response_flipped_bit_64", c_resp, "wrong_payload",
        resp(3, flip_bit(respond(gen(3, 64)), 60, 1)), workload=w64, seq=3,
        description="RESPONSE 3 (P=64) with bit 1 of byte 60 flipped")
    add("response_plain_echo", c_resp, "wrong_payload", resp(2, gen(2, p)),
        workload=w, seq=2,
        description="RESPONSE 2 carrying the request payload unmasked")
    add("response_longer", c_resp, "bad_length",
        resp(1, respond(gen(1, p + 1))), workload=w, seq=1,
        description="RESPONSE 1 with P+1 payload bytes")
    add("response_shorter", c_resp, "bad_length",
        resp(1, respond(gen(1, p - 1))), workload=w, seq=1,
        description="RESPONSE 1 with P-1 payload bytes")
    add("request_to_client", c_resp, "unexpected_type", req(1), workload=w,
        seq=1, description="REQUEST 1 sent to a client")
    add("hello_ack_again", c_resp, "unexpected_type",
        frame(HELLO_ACK, 0, w.encode()), workload=w, seq=2,
        description="a second HELLO_ACK")
    add("bye_ack_early", c_resp, "unexpected_type",
        frame(BYE_ACK, bye_seq, encode_counts(*bye_ack_counts(w))),
        workload=w, seq=5, description="BYE_ACK while RESPONSE 5 is awaited")
    add("error_from_server", c_resp, "peer_error",
        frame(ERROR, 0, error_payload(CODE_PROTOCOL_VIOLATION,
                                      "wrong_sequence: expected 2, got 3")),
        workload=w, seq=2, description="the server sends ERROR code 3")
    add("eof_between_responses", c_resp, "unexpected_eof", b"", eof=True,
        workload=w, seq=3, description="end of stream before RESPONSE 3")
    add("response_truncated", c_resp, "truncated", resp(3)[:17], eof=True,
        workload=w, seq=3,
        description="RESPONSE 3 header and 1 payload byte, then end of stream")
    w_m1 = Workload(0, 3, 5, 1)
    add("response_skipped_not_sent", c_resp, "wrong_sequence", resp(2),
        workload=w_m1, seq=1,
        description="RESPONSE 2 where 1 is expected and request 2 is not sent "
        "yet (M=1): the sequence is checked first")
    add("response_skipped_header", c_resp, "wrong_sequence", resp(2)[:16],
        workload=w, seq=1,
        description="the header of RESPONSE 2 where 1 is expected, nothing "
        "after it")
    add("response_skipped_truncated", c_resp, "wrong_sequence", resp(2)[:18],
        eof=True, workload=w, seq=1,
        description="RESPONSE 2 header (1 is expected) and 2 payload bytes, "
        "then end of stream")
    add("response_longer_truncated", c_resp, "bad_length",
        resp(1, respond(gen(1, p + 1)))[:18], eof=True, workload=w, seq=1,
        description="RESPONSE 1 header with payload_length P+1 and 2 payload "
        "bytes, then end of stream")
    add("request_to_client_truncated", c_resp, "unexpected_type",
        req(1)[:18], eof=True, workload=w, seq=1,
        description="REQUEST 1 header and 2 payload bytes sent to a client, "
        "then end of stream")
    add("bye_ack_early_truncated", c_resp, "unexpected_type",
        frame(BYE_ACK, bye_seq, encode_counts(*bye_ack_counts(w)))[:20],
        eof=True, workload=w, seq=5,
        description="BYE_ACK header and 4 payload bytes while RESPONSE 5 is "
        "awaited, then end of stream")

    # --- client, after sending BYE ---
    c_bye = "client_expecting_bye_ack"
    good_ack = bye_ack_counts(w)
    add("response_none_outstanding", c_bye, "unexpected_type", resp(6),
        workload=w, description="RESPONSE W+N+1 when no request is outstanding")
    add("response_none_outstanding_truncated", c_bye, "unexpected_type",
        resp(6)[:18], eof=True, workload=w,
        description="RESPONSE W+N+1 header and 2 payload bytes when no "
        "request is outstanding, then end of stream")
    add("response_repeated_after_all", c_bye, "unexpected_type", resp(5),
        workload=w, description="RESPONSE W+N again after every response: "
        "none is outstanding, so the type is wrong whatever the sequence")
    add("response_beyond_after_all", c_bye, "unexpected_type", resp(7),
        workload=w, description="RESPONSE W+N+2 after every response")
    add("bye_to_client", c_bye, "unexpected_type",
        frame(BYE, bye_seq, encode_counts(*good_bye)), workload=w,
        description="BYE sent to a client")
    add("bye_ack_wrong_sequence", c_bye, "wrong_sequence",
        frame(BYE_ACK, bye_seq - 1, encode_counts(*good_ack)), workload=w,
        description="BYE_ACK with sequence W+N")
    for index, field in enumerate(
        ("requests", "responses", "bytes_sent", "bytes_received")
    ):
        wrong = list(good_ack)
        wrong[index] -= 1
        add("bye_ack_wrong_" + field, c_bye, "count_mismatch",
            frame(BYE_ACK, bye_seq, encode_counts(*wrong)), workload=w,
            description="BYE_ACK with " + field + " one too few")
    add("bye_ack_with_bye_counts", c_bye, "count_mismatch",
        frame(BYE_ACK, bye_seq, encode_counts(*good_bye)), workload=w,
        description="BYE_ACK echoing the BYE counts (bytes_received without "
        "the BYE)")
    add("error_instead_of_bye_ack", c_bye, "peer_error",
        frame(ERROR, 0, error_payload(CODE_COUNT_MISMATCH,
                                      "count_mismatch: bytes_sent")),
        workload=w, description="the server answers BYE with ERROR code 4")
    add("eof_before_bye_ack", c_bye, "unexpected_eof", b"", eof=True,
        workload=w, description="the server closes without BYE_ACK")
    add("bye_ack_truncated", c_bye, "truncated",
        frame(BYE_ACK, bye_seq, encode_counts(*good_ack))[:40], eof=True,
        workload=w, description="BYE_ACK missing its last 8 bytes, then end "
        "of stream")
    add("bye_ack_wrong_sequence_truncated", c_bye, "wrong_sequence",
        frame(BYE_ACK, bye_seq - 1, encode_counts(*good_ack))[:20], eof=True,
        workload=w, description="BYE_ACK header with sequence W+N and 4 "
        "payload bytes, then end of stream")
    good_ack_frame = frame(BYE_ACK, bye_seq, encode_counts(*good_ack))
    add("frame_after_bye_ack", c_bye, "unexpected_type",
        good_ack_frame + good_ack_frame, workload=w, one_read=True,
        description="a valid BYE_ACK, then a second one in the same read")
    add("response_after_bye_ack", c_bye, "unexpected_type",
        good_ack_frame + resp(6)[:16], workload=w, one_read=True,
        description="a valid BYE_ACK, then the header of RESPONSE W+N+1 in "
        "the same read")
    # The client checks the rest of the read that delivered BYE_ACK and
    # ends there: a frame begun in it is cut short (SPEC.md section 3).
    add("partial_header_after_bye_ack", c_bye, "truncated",
        good_ack_frame + resp(6)[:5], workload=w, one_read=True,
        description="a valid BYE_ACK, then 5 bytes of a header in the same "
        "read: the client ends the session inside that frame")
    add("one_byte_after_bye_ack", c_bye, "truncated",
        good_ack_frame + b"\x01", workload=w, one_read=True,
        description="a valid BYE_ACK, then 1 byte in the same read")
    add("error_after_bye_ack", c_bye, "peer_error",
        good_ack_frame + frame(ERROR, 0, error_payload(
            CODE_PROTOCOL_VIOLATION, "late")), workload=w, one_read=True,
        description="a valid BYE_ACK, then an ERROR frame in the same read")
    # Crosswise, not field by field (SPEC.md section 2): the server's bytes
    # sent are the client's bytes received. A client that compared its own
    # bytes_sent with the BYE_ACK's bytes_sent would accept this one (and
    # reject every honest BYE_ACK).
    swapped = (good_ack[0], good_ack[1], good_ack[3], good_ack[2])
    assert swapped[2] != swapped[3]
    add("bye_ack_swapped_bytes", c_bye, "count_mismatch",
        frame(BYE_ACK, bye_seq, encode_counts(*swapped)), workload=w,
        description="BYE_ACK with bytes_sent and bytes_received swapped: "
        "what the client sent, BYE included, in bytes_sent")

    # The window is refilled between reads (SPEC.md section 3): a RESPONSE
    # in the read that drained it answers nothing outstanding.
    add("response_beyond_window", c_resp, "unexpected_type",
        resp(1) + resp(2) + resp(3), workload=w, seq=1, one_read=True,
        description="RESPONSE 1 and 2 (the whole window, M=2), then "
        "RESPONSE 3 in the same read, before request 3 could be sent")
    add("response_beyond_window_wrong_sequence", c_resp, "unexpected_type",
        resp(1) + resp(2) + resp(4), workload=w, seq=1, one_read=True,
        description="RESPONSE 1 and 2 (the whole window), then RESPONSE 4 "
        "in the same read: none is outstanding, so the type comes first")
    w_wide = Workload(2, 3, 5, 4)
    add("response_beyond_warmup", c_resp, "unexpected_type",
        resp(1) + resp(2) + resp(3), workload=w_wide, seq=1, one_read=True,
        description="RESPONSE 1 and 2 (every warm-up request, M=4), then "
        "RESPONSE 3 in the same read: the first measured request is sent "
        "only after the warm-up responses")

    # An ERROR frame is peer_error whatever its code and reason bytes; the
    # receiver's one stderr line must stay one line of valid UTF-8.
    for name, code, reason in (
        ("newline", CODE_PROTOCOL_VIOLATION,
         b"wrong_sequence: a\nb\r\nc\n"),
        ("invalid_utf8", CODE_PROTOCOL_VIOLATION, b"bad \xff\xfe\xc3\x28 end"),
        ("nul", CODE_PROTOCOL_VIOLATION, b"before\x00after"),
        ("controls", CODE_PROTOCOL_VIOLATION, bytes(range(0, 32)) + b"\x7f"),
        ("max_newlines", CODE_PROTOCOL_VIOLATION, b"\n" * MAX_REASON),
        ("code_0", 0, b"code 0"),
        ("code_65535", 0xFFFF, b"code 65535"),
    ):
        payload = struct.pack(">H", code) + reason
        assert len(reason) <= MAX_REASON
        add("error_reason_" + name + "_to_server", s_req, "peer_error",
            frame(ERROR, 0, payload), workload=w, seq=2,
            description="an ERROR frame (code %d) whose reason is %r" %
            (code, reason[:40]))
        add("error_reason_" + name + "_to_client", c_resp, "peer_error",
            frame(ERROR, 0, payload), workload=w, seq=2,
            description="an ERROR frame (code %d) whose reason is %r" %
            (code, reason[:40]))
    return cases


# ---------------------------------------------------------------- output

# ----------------------------------------------------------- histogram

SUB_BUCKETS = 128
PERCENTILES = (("p50", 50000), ("p90", 90000), ("p99", 99000), ("p99_9", 99900))


def hist_index(v):
    if v < 256:
        return v
    e = v.bit_length() - 1
    return SUB_BUCKETS * (e - 6) + (v >> (e - 7)) - SUB_BUCKETS


def hist_lower(i):
    if i < 256:
        return i
    return (SUB_BUCKETS + i % SUB_BUCKETS) << (i // SUB_BUCKETS - 1)


def hist_width(i):
    return 1 if i < 256 else 1 << (i // SUB_BUCKETS - 1)


def hist_of(values):
    buckets = {}
    for v in values:
        buckets[hist_index(v)] = buckets.get(hist_index(v), 0) + 1
    return buckets


def hist_json(buckets, values):
    count = sum(buckets.values())
    out = {
        "count": str(count),
        "min": str(min(values)),
        "max": str(max(values)),
        "buckets": [[i, str(buckets[i])] for i in sorted(buckets)],
    }
    for name, q in PERCENTILES:
        rank = max(1, -(-q * count // 100000))
        seen = 0
        for i in sorted(buckets):
            seen += buckets[i]
            if seen >= rank:
                out[name] = str(hist_lower(i))
                break
    return out


def splitmix(state):
    state = (state + GAMMA) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def latencies(seed, n, low, high):
    """n values spread log-uniformly-ish between low and high."""
    out, state = [], seed
    for _ in range(n):
        state, z = splitmix(state)
        span = high - low
        # Square the fraction so that small values dominate, as latencies do.
        frac = (z >> 11) / float(1 << 53)
        out.append(low + int(span * frac * frac))
    return out


def histogram_cases():
    cases = []
    edges = [0, 1, 127, 128, 129, 255, 256, 257, 258, 511, 512, 513, 1000,
             1023, 1024, 25000, 65535, 65536, 1000000, 123456789,
             (1 << 32) - 1, 1 << 32, (1 << 62) - 1, 1 << 62, (1 << 63) - 1]
    for v in edges:
        i = hist_index(v)
        cases.append({"kind": "bucket", "value": str(v), "index": i,
                      "lower": str(hist_lower(i)),
                      "width": str(hist_width(i))})
    for i in list(range(250, 262)) + [383, 384, 7167, 7168, 7295]:
        lo = hist_lower(i)
        assert hist_index(lo) == i and hist_index(lo + hist_width(i) - 1) == i
        assert i == 0 or hist_index(lo - 1) == i - 1
    sets = [
        ("one value", [5000], [1]),
        ("two equal values", [300, 300], [300]),
        ("exact below 256", list(range(0, 256, 3)), [255, 1]),
        ("a tail", latencies(1, 300, 20000, 80000) + [5000000],
         latencies(2, 200, 20000, 90000)),
        ("wide", latencies(3, 400, 1, 1 << 40), latencies(4, 100, 1000, 5000)),
        ("a rank on a boundary", [1000] * 999 + [2000], [1000] * 1 + [3000]),
    ]
    for name, a, b in sets:
        ha, hb = hist_of(a), hist_of(b)
        merged = dict(ha)
        for i, c in hb.items():
            merged[i] = merged.get(i, 0) + c
        cases.append({
            "kind": "histogram",
            "name": name,
            "a_values": [str(v) for v in a],
            "b_values": [str(v) for v in b],
            "a": hist_json(ha, a),
            "b": hist_json(hb, b),
            "merged": hist_json(merged, a + b),
        })
    return cases


def render(cases):
    return json.dumps({"cases": cases}, indent=2, ensure_ascii=True) + "\n"


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        sys.stderr.write("usage: generate.py [--check]\n")
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    files = {
        "payloads.json": payload_cases(),
        "frames.json": frame_cases(),
        "sessions.json": session_cases(),
        "invalid.json": invalid_cases(),
        "histogram.json": histogram_cases(),
    }
    stale = []
    for name, cases in files.items():
        path = os.path.join(here, name)
        text = render(cases)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
    if stale:
        sys.stderr.write("generate.py: out of date: %s\n" % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
