"""crossrun python client (lanes/README.md):
  client.py --connect HOST:PORT --warmup N --round-trips N
            --payload-bytes N --max-in-flight N [--transport tls --ca FILE]
Runs one session on a socket and a selector (over tls a non-blocking socket,
over tcp a blocking one whose reads and writes say whether they may wait)
and prints one JSON line with the result."""

import json
import os
import selectors
import socket
import ssl
import sys
import time

from . import peer
from .args import parse_client_args
from .session import ClientSession

ROLE = "client"
READ_BYTES = 256 * 1024
# Requests are produced while fewer bytes than this wait to be written, at
# most this many in one batch: a large window goes out as the socket takes
# it, not all at once.
BATCH_BYTES = 256 * 1024


def run(conn, session, tls=False):
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    buf = bytearray(READ_BYTES)
    view = memoryview(buf)
    out = bytearray(session.hello())
    # A TLS write that had to wait is retried with the same bytes.
    retry_len = 0
    produce = session.produce
    on_data = session.on_data
    dontwait = getattr(socket, "MSG_DONTWAIT", 0)
    if tls or not dontwait:
        conn.setblocking(False)
        recv_into = conn.recv_into
        send = conn.send
        wait_into = None
    else:
        # Over tcp the socket blocks and each call says whether it may
        # wait: with nothing to write the read waits itself (one system
        # call, no selector and no would-block round), while a write is
        # pending neither waits and the selector watches both ways.
        conn.setblocking(True)

        def recv_into(b):
            return conn.recv_into(b, 0, dontwait)

        def send(data):
            return conn.send(data, dontwait)

        wait_into = conn.recv_into
    want_write = False
    while True:
        if not retry_len:
            while len(out) < BATCH_BYTES:
                chunk = produce(BATCH_BYTES)
                if chunk is None:
                    break
                out += chunk
        if out:
            length = retry_len or len(out)
            try:
                n = send(out if length == len(out) else out[:length])
                del out[:n]
                retry_len = 0
            except peer.WOULD_BLOCK_WRITE:
                if tls:
                    retry_len = length
            except OSError as e:
                peer.write_failed(ROLE, conn, session, e)
        if bool(out) != want_write:
            want_write = bool(out)
            sel.modify(conn, selectors.EVENT_READ | (selectors.EVENT_WRITE if want_write else 0))
        try:
            n = wait_into(buf) if wait_into is not None and not out else recv_into(buf)
        except peer.WOULD_BLOCK_READ:
            sel.select()
            continue
        except ssl.SSLZeroReturnError:
            n = 0
        except OSError as e:
            # A reset is truncated inside a frame, else unexpected_eof,
            # even after BYE_ACK (SPEC.md section 3).
            peer.fail_and_close(ROLE, conn, session.reset_rejection(peer.describe_os_error(e)), send_error=False)
        if n == 0:
            try:
                session.on_eof()
            except Exception as e:  # noqa: BLE001 - every failure is one line and exit 1
                peer.fail_and_close(ROLE, conn, e, out)
            peer.fail_and_close(ROLE, conn, RuntimeError("end of stream after BYE_ACK"), out)
        try:
            on_data(view[:n].tobytes())
        except Exception as e:  # noqa: BLE001
            peer.fail_and_close(ROLE, conn, e, out)
        if session.done:
            break
    sel.close()


def main(argv=None):
    args = peer.parse_or_exit(ROLE, parse_client_args, sys.argv[1:] if argv is None else argv)
    connect = args.connect
    ctx = None
    if args.transport == "tls":
        try:
            ctx = peer.client_context(args.files["ca"])
        except (OSError, ssl.SSLError) as e:
            peer.say("%s: tls: cannot load --ca: %s" % (ROLE, e))
            sys.exit(1)
    session = ClientSession(args.workload)
    conn = socket.socket(peer.family_of(connect), socket.SOCK_STREAM)
    try:
        conn.connect((connect.host, connect.port))
    except OSError as e:
        peer.say("%s: connect to %s: %s" % (ROLE, connect.text, e.strerror or e))
        sys.exit(1)
    peer.no_delay(conn)
    tls = None
    if ctx is not None:
        # No SNI goes out for an IP address; the certificate's IP SAN is
        # checked against it.
        conn = ctx.wrap_socket(conn, server_hostname=connect.host, do_handshake_on_connect=False)
        t = time.monotonic_ns()
        try:
            peer.handshake(conn)
        except peer.HandshakeError as e:
            peer.say("%s: tls_handshake: %s" % (ROLE, e))
            conn.close()
            sys.exit(1)
        tls = peer.tls_info(conn)
        tls["handshake_ns"] = time.monotonic_ns() - t
    run(conn, session, tls is not None)
    # The client closes first (SPEC.md section 3, step 6); over TLS after
    # its close_notify.
    if tls is not None:
        try:
            conn.unwrap()
        except (OSError, ValueError):
            pass
    conn.close()
    result = session.result()
    if tls is not None:
        result["tls"] = tls
        result["transport"] = "tls"
    sys.stdout.write(json.dumps(result, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    sys.exit(0)


if __name__ == "__main__":
    main()
