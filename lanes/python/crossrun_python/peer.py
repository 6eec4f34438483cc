"""Process and socket plumbing shared by the client and the server: the one
stderr line, the exit statuses, the ERROR frame and the close, TLS set-up
(the TLS contract: TLS 1.3 only, ALPN crossrun/1, the client trusting its
--ca alone and checking the server's IP SAN, no session tickets)."""

import errno
import os
import select
import socket
import ssl
import sys
import time

from . import codec
from .args import Unsupported, UsageError

ALPN = "crossrun/1"
LINGER_S = 0.5

# What a non-blocking read or write raises when it has to wait.
WOULD_BLOCK_READ = (BlockingIOError, InterruptedError, ssl.SSLWantReadError)
WOULD_BLOCK_WRITE = (BlockingIOError, InterruptedError, ssl.SSLWantWriteError)


def say(text):
    """One line on stderr: newlines in details would break it."""
    line = " ".join(str(text).split())
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def parse_or_exit(role, parse, argv):
    try:
        return parse(argv)
    except Unsupported as e:
        say("%s: unsupported: %s" % (role, e))
        sys.exit(127)
    except UsageError as e:
        say("%s: usage error: %s" % (role, e))
        sys.exit(2)


def family_of(address):
    return socket.AF_INET6 if address.family_v6 else socket.AF_INET


def no_delay(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _tls13(ctx):
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.set_alpn_protocols([ALPN])


def server_context(cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _tls13(ctx)
    ctx.load_cert_chain(cert, key)
    # Every sample is fresh: no session to resume.
    ctx.options |= ssl.OP_NO_TICKET
    ctx.num_tickets = 0
    return ctx


def client_context(ca):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _tls13(ctx)
    # The --ca file and only it: never the system store.
    ctx.load_verify_locations(cafile=ca)
    ctx.check_hostname = True
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


class HandshakeError(Exception):
    pass


def handshake(sock):
    """Completes a TLS handshake on a blocking socket and checks ALPN.
    Raises HandshakeError with the TLS library's reason."""
    try:
        sock.do_handshake()
    except ssl.SSLCertVerificationError as e:
        reason = e.verify_message or e.reason or str(e)
        raise HandshakeError("certificate verify failed: %s" % reason) from None
    except ssl.SSLError as e:
        raise HandshakeError(e.reason or str(e)) from None
    except OSError as e:
        raise HandshakeError(os.strerror(e.errno) if e.errno else str(e)) from None
    if sock.selected_alpn_protocol() != ALPN:
        raise HandshakeError("no application protocol: ALPN %s not agreed" % ALPN)


def tls_info(sock):
    return {"version": sock.version(), "cipher": sock.cipher()[0], "alpn": sock.selected_alpn_protocol()}


def fail_and_close(role, sock, err, queued=b"", send_error=True):
    """The rejection line on stderr, an ERROR frame while the connection is
    writable (none in answer to an ERROR, none where a write failed), the
    close, exit 1. The ERROR goes after the whole frames already queued
    (`queued`, the rest of a pending write), never inside one; its reason
    starts with the rejection name. Bytes still arriving are read and
    dropped for a moment, so the peer can take the ERROR before the
    connection goes away."""
    if isinstance(err, codec.ProtocolError):
        reason = str(err)
        rejection = err.rejection
    else:
        reason = "internal error: %s" % err
        rejection = "internal"
    line = "%s: %s" % (role, reason)
    say(line)
    if sock is not None:
        try:
            if send_error and rejection != "peer_error":
                sock.settimeout(LINGER_S)
                sock.sendall(bytes(queued) + codec.encode_error(codec.code_for(rejection), reason))
            _linger(sock)
        except (OSError, ValueError):
            pass
        try:
            sock.close()
        except OSError:
            pass
    sys.stdout.flush()
    os._exit(1)


def _linger(sock):
    raw = sock
    if isinstance(sock, ssl.SSLSocket):
        return
    try:
        raw.shutdown(socket.SHUT_WR)
    except OSError:
        return
    raw.setblocking(False)
    deadline = time.monotonic() + LINGER_S
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        r, _, _ = select.select([raw], [], [], left)
        if not r:
            return
        try:
            if not raw.recv(65536):
                return
        except BlockingIOError:
            continue
        except OSError:
            return


def write_failed(role, sock, session, e):
    """A write that failed because the peer went away is no rejection of its
    own: what already arrived says what happened (an ERROR frame in it is
    peer_error, else the end or reset of the stream). No ERROR goes out."""
    err = None
    try:
        sock.settimeout(LINGER_S)
        while err is None:
            data = sock.recv(262144)
            if not data:
                session.on_eof()
                break
            session.on_data(data)
    except codec.ProtocolError as pe:
        err = pe
    except (OSError, ValueError):
        pass
    if err is None:
        err = session.reset_rejection("write failed: %s" % describe_os_error(e))
    fail_and_close(role, sock, err, send_error=False)


def describe_os_error(e):
    if isinstance(e, ssl.SSLError):
        return "TLS: %s" % (e.reason or e)
    if e.errno:
        return errno.errorcode.get(e.errno, str(e.errno))
    return str(e)
