"""The tls transport (SPEC.md section 9): sessions between the programs over
TLS 1.3 with material made as the runner makes it, handshake failures (another
CA, no ALPN on either side) and the tls objects of both result lines."""

import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile

import pytest

import proc
from helpers import codec, load_cases, workload_of

OPENSSL = shutil.which("openssl")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="no openssl program to make test certificates")


def openssl(*args, cwd):
    subprocess.run([OPENSSL] + list(args), cwd=cwd, check=True, capture_output=True)


def make_material(d, name="ca"):
    """A CA and a leaf as SPEC.md section 9 describes them, in d: ca.pem,
    cert.pem, key.pem (PKCS#8, 0600)."""
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", name + ".key", cwd=d)
    openssl("req", "-x509", "-new", "-key", name + ".key", "-subj", "/CN=crossrun test " + name, "-days", "1",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-out", name + ".pem", cwd=d)
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem", cwd=d)
    os.chmod(os.path.join(d, "key.pem"), 0o600)
    openssl("req", "-new", "-key", "key.pem", "-subj", "/CN=crossrun test leaf", "-out", "leaf.csr", cwd=d)
    with open(os.path.join(d, "leaf.ext"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
                "subjectAltName=IP:127.0.0.1,IP:::1\n")
    openssl("x509", "-req", "-in", "leaf.csr", "-CA", name + ".pem", "-CAkey", name + ".key", "-set_serial", "2",
            "-days", "1", "-extfile", "leaf.ext", "-out", "cert.pem", cwd=d)


@pytest.fixture(scope="module")
def material():
    d = tempfile.mkdtemp(prefix="crossrun-python-tls-")
    try:
        make_material(d)
        other = os.path.join(d, "other")
        os.mkdir(other)
        make_material(other)
        yield {"ca": os.path.join(d, "ca.pem"), "cert": os.path.join(d, "cert.pem"),
               "key": os.path.join(d, "key.pem"), "other_ca": os.path.join(other, "ca.pem")}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def server_tls(m):
    return ["--transport", "tls", "--cert", m["cert"], "--key", m["key"]]


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
@pytest.mark.parametrize("w", [(10, 300, 64, 64), (0, 5, 100000, 2)], ids=str)
def test_python_python_tls(material, host, w):
    if host == "::1":
        try:
            s = socket.socket(socket.AF_INET6)
            s.bind(("::1", 0))
            s.close()
        except OSError:
            pytest.skip("no IPv6 loopback here")
    srv, port = proc.server(host=host, extra=server_tls(material))
    try:
        code, out, err = proc.run(proc.CLIENT + ["--connect", proc.connect_arg(host, port)]
                                  + proc.workload_args(w) + ["--transport", "tls", "--ca", material["ca"]])
        assert code == 0, err
        assert srv.wait() == 0, srv.stderr
        assert err == "" and srv.stderr == b""
        c = json.loads(out)
        s = json.loads(srv.stdout.decode())
        W, N, P, M = w
        assert c["bytes_sent"] == 88 + (W + N) * (16 + P) == s["bytes_received"]
        assert c["latency"]["count"] == N
        assert c["tls"]["version"] == s["tls"]["version"] == "TLSv1.3"
        assert c["tls"]["alpn"] == s["tls"]["alpn"] == "crossrun/1"
        assert c["tls"]["cipher"] == s["tls"]["cipher"] and c["tls"]["cipher"].startswith("TLS_")
        assert c["tls"]["handshake_ns"] > 0
        assert "handshake_ns" not in s["tls"]
    finally:
        srv.kill()


def test_other_ca_fails_the_handshake(material):
    srv, port = proc.server(extra=server_tls(material))
    try:
        code, out, err = proc.run(proc.CLIENT + ["--connect", "127.0.0.1:%d" % port] + proc.workload_args((0, 1, 1, 1))
                                  + ["--transport", "tls", "--ca", material["other_ca"]])
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and "tls_handshake: certificate verify failed" in err, err
        assert srv.wait() == 1
        assert b"tls_handshake:" in srv.stderr and srv.stdout == b""
    finally:
        srv.kill()


def test_server_fails_a_client_without_alpn(material):
    srv, port = proc.server(extra=server_tls(material))
    try:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(material["ca"])
        with socket.create_connection(("127.0.0.1", port)) as raw:
            try:
                with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                    s.recv(1)
            except (OSError, ssl.SSLError):
                pass
        assert srv.wait() == 1
        assert srv.stderr.count(b"\n") == 1 and b"tls_handshake:" in srv.stderr, srv.stderr
    finally:
        srv.kill()


def test_client_fails_a_server_without_alpn(material):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(material["cert"], material["key"])

    def handler(conn):
        try:
            with ctx.wrap_socket(conn, server_side=True) as s:
                s.recv(1)
        except (OSError, ssl.SSLError):
            pass

    fake = proc.FakeServer(handler)
    code, out, err = proc.run(proc.CLIENT + ["--connect", "127.0.0.1:%d" % fake.port] + proc.workload_args((0, 1, 1, 1))
                              + ["--transport", "tls", "--ca", material["ca"]])
    fake.join()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "tls_handshake:" in err, err


@pytest.mark.parametrize("c", load_cases("sessions.json")[:3], ids=lambda c: c["name"])
def test_sessions_server_tls(material, c):
    """client_bytes inside TLS: the server answers server_bytes, then the
    client's close_notify is the clean end."""
    srv, port = proc.server(extra=server_tls(material))
    try:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(material["ca"])
        ctx.set_alpn_protocols(["crossrun/1"])
        with socket.create_connection(("127.0.0.1", port)) as raw:
            s = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
            s.sendall(bytes.fromhex(c["client_bytes"]))
            got = proc.recv_exact(s, len(c["server_bytes"]) // 2)
            assert got.hex() == c["server_bytes"]
            s.settimeout(1)
            try:
                s.unwrap()
            except (OSError, ssl.SSLError):
                pass
        assert srv.wait() == 0, srv.stderr
        r = json.loads(srv.stdout.decode())
        assert r["frames_received"] == int(c["result"]["frames_sent"])
        assert r["tls"]["alpn"] == "crossrun/1"
    finally:
        srv.kill()


def test_tls_flags_with_tcp_are_usage_errors(material):
    code, out, err = proc.run(proc.SERVER + ["--listen", "127.0.0.1:0", "--cert", material["cert"]])
    assert code == 2 and out == ""
