"""crossrun python server: `server.py --listen HOST:PORT [--transport tls
--cert FILE --key FILE]` (lanes/README.md). Prints `READY <port>`, serves
exactly one connection and one session on a blocking socket, prints its
result line and exits 0 on the end of stream that follows its BYE_ACK."""

import json
import os
import select
import socket
import ssl
import sys

from . import peer
from .args import parse_server_args
from .session import ServerSession

ROLE = "server"
READ_BYTES = 256 * 1024


def serve(conn, tls):
    session = ServerSession()
    # Blocking: a server may stop reading while one of its writes is
    # pending (its client always reads), so each read's answer goes out
    # whole before the next read, and a read that has to wait is one system
    # call, with no selector and no would-block round.
    conn.setblocking(True)
    buf = bytearray(READ_BYTES)
    view = memoryview(buf)
    recv_into = conn.recv_into
    sendall = conn.sendall
    on_data = session.on_data
    while True:
        try:
            n = recv_into(buf)
        except ssl.SSLZeroReturnError:
            n = 0
        except OSError as e:
            # A reset is truncated inside a frame, else unexpected_eof,
            # even after BYE_ACK (SPEC.md section 3).
            peer.fail_and_close(ROLE, conn, session.reset_rejection(peer.describe_os_error(e)), send_error=False)
        if n == 0:
            break
        try:
            out = on_data(view[:n].tobytes())
        except Exception as e:  # noqa: BLE001 - every failure is one line and exit 1
            peer.fail_and_close(ROLE, conn, e)
        if out:
            # Every complete frame of this read is answered by this write.
            try:
                sendall(out)
            except OSError as e:
                peer.write_failed(ROLE, conn, session, e)
    try:
        session.on_eof()
    except Exception as e:  # noqa: BLE001
        peer.fail_and_close(ROLE, conn, e)
    if tls:
        # The client sent close_notify (or ended the stream) after the BYE
        # this side acknowledged: the clean end. Its FIN follows at once;
        # closing after it keeps the TCP close order of the contract.
        try:
            select.select([conn], [], [], 0.2)
        except (OSError, ValueError):
            pass
    conn.close()
    result = session.result()
    if tls:
        result["tls"] = tls
        result["transport"] = "tls"
    sys.stdout.write(json.dumps(result, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main(argv=None):
    args = peer.parse_or_exit(ROLE, parse_server_args, sys.argv[1:] if argv is None else argv)
    listen = args.listen
    ctx = None
    if args.transport == "tls":
        try:
            ctx = peer.server_context(args.files["cert"], args.files["key"])
        except (OSError, ssl.SSLError) as e:
            peer.say("%s: tls: cannot load --cert/--key: %s" % (ROLE, e))
            sys.exit(1)
    ls = socket.socket(peer.family_of(listen), socket.SOCK_STREAM)
    try:
        if listen.family_v6:
            ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        ls.bind((listen.host, listen.port))
        ls.listen(1)
    except OSError as e:
        peer.say("%s: listen on %s: %s" % (ROLE, listen.text, e.strerror or e))
        sys.exit(1)
    sys.stdout.write("READY %d\n" % ls.getsockname()[1])
    sys.stdout.flush()
    try:
        conn, _ = ls.accept()
    except OSError as e:
        peer.say("%s: accept: %s" % (ROLE, e.strerror or e))
        sys.exit(1)
    # Exactly one connection: no other is accepted.
    ls.close()
    peer.no_delay(conn)
    tls = None
    if ctx is not None:
        try:
            conn = ctx.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
            peer.handshake(conn)
        except peer.HandshakeError as e:
            peer.say("%s: tls_handshake: %s" % (ROLE, e))
            conn.close()
            sys.exit(1)
        tls = peer.tls_info(conn)
    serve(conn, tls)
    sys.exit(0)


if __name__ == "__main__":
    main()
    os._exit(0)
