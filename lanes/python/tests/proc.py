"""Running the programs as the runner does: a fresh TMPDIR that must be empty
again at exit, stdin empty, the READY line read from the server."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

from helpers import LANE, ROOT

PY = [sys.executable, "-B", "-S"]
CLIENT = PY + [os.path.join(LANE, "client.py")]
SERVER = PY + [os.path.join(LANE, "server.py")]
C_CLIENT = [os.path.join(ROOT, "build", "lanes", "c", "client")]
C_SERVER = [os.path.join(ROOT, "build", "lanes", "c", "server")]
HAVE_C = os.access(C_CLIENT[0], os.X_OK) and os.access(C_SERVER[0], os.X_OK)
TIMEOUT = 120


class Proc:
    def __init__(self, argv):
        self.tmp = tempfile.mkdtemp(prefix="crossrun-python-test-")
        env = dict(os.environ, TMPDIR=self.tmp, TEMP=self.tmp, TMP=self.tmp, PYTHONDONTWRITEBYTECODE="1")
        self.p = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.stdout = b""
        self.stderr = b""

    def ready_port(self):
        line = self.p.stdout.readline()
        assert line.startswith(b"READY "), (line, self.p.stderr.read() if self.p.poll() is not None else b"")
        return int(line.split()[1])

    def wait(self, timeout=TIMEOUT):
        if self.p.returncode is not None and self.tmp is None:
            return self.p.returncode
        out, err = self.p.communicate(timeout=timeout)
        self.stdout += out
        self.stderr += err
        left = os.listdir(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = None
        assert left == [], "left in its TMPDIR: %r" % left
        return self.p.returncode

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        try:
            self.wait(10)
        except AssertionError:
            pass
        for f in (self.p.stdout, self.p.stderr):
            if f:
                f.close()


def run(argv, timeout=TIMEOUT):
    p = Proc(argv)
    code = p.wait(timeout)
    return code, p.stdout.decode(), p.stderr.decode()


def server(argv=SERVER, host="127.0.0.1", extra=()):
    listen = "[%s]:0" % host if ":" in host else "%s:0" % host
    p = Proc(list(argv) + ["--listen", listen] + list(extra))
    return p, p.ready_port()


def connect_arg(host, port):
    return "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)


def workload_args(w):
    return [
        "--warmup", str(w[0]), "--round-trips", str(w[1]),
        "--payload-bytes", str(w[2]), "--max-in-flight", str(w[3]),
    ]


def recv_exact(sock, n):
    out = b""
    while len(out) < n:
        b = sock.recv(n - len(out))
        if not b:
            break
        out += b
    return out


def recv_all(sock):
    out = b""
    while True:
        try:
            b = sock.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        out += b
    return out


def recv_error(sock):
    """What the peer sends after a rejection: an ERROR frame (read whole,
    then the test closes) or the end of stream."""
    out = b""
    while True:
        pos = 0
        while len(out) - pos >= 16 and len(out) - pos >= 16 + int.from_bytes(out[pos + 4 : pos + 8], "big"):
            if out[pos + 1] == 7:
                return out[pos:]
            pos += 16 + int.from_bytes(out[pos + 4 : pos + 8], "big")
        try:
            b = sock.recv(65536)
        except ConnectionResetError:
            return out
        if not b:
            return out
        out += b


class FakeServer:
    """A listening socket on loopback whose one connection is handled by
    handler(conn) in a thread."""

    def __init__(self, handler, host="127.0.0.1"):
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.ls = socket.socket(fam, socket.SOCK_STREAM)
        self.ls.bind((host, 0))
        self.ls.listen(1)
        self.port = self.ls.getsockname()[1]
        self.error = None
        self.handler = handler
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        try:
            self.ls.settimeout(TIMEOUT)
            conn, _ = self.ls.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with conn:
                self.handler(conn)
        except Exception as e:  # noqa: BLE001 - reported by join()
            self.error = e
        finally:
            self.ls.close()

    def join(self):
        self.t.join(TIMEOUT)
        if self.error:
            raise self.error
