package lane

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The TLS contract over real sockets, with material made as the runner
// makes it for each sample: a CA and a leaf signed by it, both ECDSA
// P-256, the leaf for IP:127.0.0.1 and IP:::1.

type material struct {
	dir           string
	ca, cert, key string
	caCert        *x509.Certificate
	caKey         *ecdsa.PrivateKey
	leaf          tls.Certificate
}

func writePEM(t *testing.T, path, kind string, der []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode); err != nil {
		t.Fatal(err)
	}
}

func makeMaterial(t *testing.T) *material {
	t.Helper()
	m := &material{dir: t.TempDir()}
	now := time.Now()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "crossrun test CA"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	m.caCert, _ = x509.ParseCertificate(caDER)
	m.caKey = caKey
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "crossrun test peer"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour),
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, m.caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	m.ca, m.cert, m.key = filepath.Join(m.dir, "ca.pem"), filepath.Join(m.dir, "cert.pem"), filepath.Join(m.dir, "key.pem")
	writePEM(t, m.ca, "CERTIFICATE", caDER, 0o644)
	writePEM(t, m.cert, "CERTIFICATE", leafDER, 0o644)
	writePEM(t, m.key, "PRIVATE KEY", keyDER, 0o600)
	m.leaf = tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}
	return m
}

func (m *material) serverFlags() []string {
	return []string{"--transport", "tls", "--cert", m.cert, "--key", m.key}
}

func (m *material) clientFlags() []string { return []string{"--transport", "tls", "--ca", m.ca} }

func checkTLSFields(t *testing.T, c, s obj) {
	t.Helper()
	ct, ok1 := c["tls"].(obj)
	st, ok2 := s["tls"].(obj)
	if !ok1 || !ok2 || c["transport"] != "tls" || s["transport"] != "tls" {
		t.Fatalf("no tls objects: %v %v", c, s)
	}
	for _, k := range []string{"version", "cipher", "alpn"} {
		if ct[k] != st[k] {
			t.Errorf("tls %s: client %v, server %v", k, ct[k], st[k])
		}
	}
	if ct["version"] != "TLSv1.3" || ct["alpn"] != ALPN || !strings.HasPrefix(ct["cipher"].(string), "TLS_") {
		t.Errorf("tls object %v", ct)
	}
	if u64(t, ct["handshake_ns"]) == 0 {
		t.Errorf("handshake_ns 0")
	}
	if _, ok := st["handshake_ns"]; ok {
		t.Errorf("the server's tls object has handshake_ns")
	}
}

func TestTLSSessions(t *testing.T) {
	m := makeMaterial(t)
	for _, w := range []Workload{{0, 1, 0, 1}, {100, 2000, 64, 64}, {10, 500, 1024, 256}, {1, 3, MaxPayload, 2}} {
		c, s := session(t, "127.0.0.1", w, m.serverFlags(), m.clientFlags())
		checkTLSFields(t, c, s)
	}
	if ln, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		ln.Close()
		c, s := session(t, "[::1]", Workload{5, 100, 64, 8}, m.serverFlags(), m.clientFlags())
		checkTLSFields(t, c, s)
	}
	// Over tcp neither line has a tls object.
	c, s := session(t, "127.0.0.1", Workload{0, 5, 8, 2}, nil, nil)
	if c["tls"] != nil || s["tls"] != nil || c["transport"] != "tcp" {
		t.Errorf("tcp lines: %v %v", c, s)
	}
}

// expectHandshakeFailure: exit 1, nothing on stdout, one stderr line
// with tls_handshake: and a reason.
func expectHandshakeFailure(t *testing.T, what string, p *proc, reason string) {
	t.Helper()
	rc := p.wait(t)
	e := p.stderr.String()
	t.Logf("%s: %s", what, strings.TrimSpace(e))
	if rc != ExitFailure || p.stdout.Len() != 0 || strings.Count(e, "\n") != 1 ||
		!strings.Contains(e, "tls_handshake: ") || !strings.Contains(e, reason) {
		t.Errorf("%s: exit %d, stdout %q, stderr %q (want %q)", what, rc, p.stdout.String(), e, reason)
	}
}

func TestTLSWrongCA(t *testing.T) {
	m, other := makeMaterial(t), makeMaterial(t)
	srv, port := startServer(t, append([]string{"--listen", "127.0.0.1:0"}, m.serverFlags()...)...)
	cl := start(t, "client", append(clientArgs("127.0.0.1:"+strconv.Itoa(port), Workload{0, 1, 0, 1}), other.clientFlags()...)...)
	expectHandshakeFailure(t, "client, another CA", cl, "certificate")
	expectHandshakeFailure(t, "server, the client refused its certificate", srv, "")
}

func TestTLSALPNRequired(t *testing.T) {
	m := makeMaterial(t)
	pool := x509.NewCertPool()
	pool.AddCert(m.caCert)
	for _, protos := range [][]string{nil, {"h2"}} {
		srv, port := startServer(t, append([]string{"--listen", "127.0.0.1:0"}, m.serverFlags()...)...)
		c, err := tls.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: protos, MinVersion: tls.VersionTLS13})
		if err == nil {
			c.Close()
			t.Errorf("ALPN %q: the handshake passed", protos)
		}
		expectHandshakeFailure(t, "server, ALPN "+strings.Join(protos, ","), srv, "ALPN")
	}
	// A server that selects no ALPN.
	ln, err := tls.Listen("tcp4", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{m.leaf}, MinVersion: tls.VersionTLS13})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cl := start(t, "client", append(clientArgs(ln.Addr().String(), Workload{0, 1, 0, 1}), m.clientFlags()...)...)
	if sc, err := ln.Accept(); err == nil {
		sc.(*tls.Conn).Handshake()
		io.Copy(io.Discard, sc)
		sc.Close()
	}
	expectHandshakeFailure(t, "client, no ALPN selected", cl, "ALPN")
}

func TestTLSBadMaterial(t *testing.T) {
	m := makeMaterial(t)
	missing := filepath.Join(m.dir, "none.pem")
	p := start(t, "server", "--listen", "127.0.0.1:0", "--transport", "tls", "--cert", missing, "--key", m.key)
	if rc := p.wait(t); rc != ExitFailure || p.stdout.Len() != 0 {
		t.Errorf("missing cert: exit %d, stdout %q", rc, p.stdout.String())
	}
	p = start(t, "client", append(clientArgs("127.0.0.1:9", Workload{0, 1, 0, 1}), "--transport", "tls", "--ca", missing)...)
	if rc := p.wait(t); rc != ExitFailure || p.stdout.Len() != 0 {
		t.Errorf("missing CA: exit %d", rc)
	}
}

// TestTLSVectorSessions plays sessions.json inside TLS against both
// programs, and a rejection: the session's bytes are unchanged inside it.
func TestTLSVectorSessions(t *testing.T) {
	m := makeMaterial(t)
	pool := x509.NewCertPool()
	pool.AddCert(m.caCert)
	clientCfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{ALPN}, MinVersion: tls.VersionTLS13}
	serverCfg := &tls.Config{Certificates: []tls.Certificate{m.leaf}, NextProtos: []string{ALPN}, MinVersion: tls.VersionTLS13}
	for i, c := range cases(t, "sessions.json") {
		name := c["name"].(string)
		w := workloadOf(t, c["workload"])
		cb, sb := unhex(t, c["client_bytes"]), unhex(t, c["server_bytes"])

		srv, port := startServer(t, append([]string{"--listen", "127.0.0.1:0"}, m.serverFlags()...)...)
		conn, err := tls.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port), clientCfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		conn.Write(cb)
		got := make([]byte, len(sb))
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(conn, got); err != nil || !bytes.Equal(got, sb) {
			t.Fatalf("%s: the server sent %x (%v)", name, got, err)
		}
		// close_notify, or (every other case) the end of stream alone.
		if i%2 == 0 {
			conn.Close()
		} else {
			conn.NetConn().Close()
		}
		if rc := srv.wait(t); rc != 0 {
			t.Fatalf("%s: server exit %d: %s", name, rc, srv.stderr.String())
		}

		ln, err := tls.Listen("tcp4", "127.0.0.1:0", serverCfg)
		if err != nil {
			t.Fatal(err)
		}
		cl := start(t, "client", append(clientArgs(ln.Addr().String(), w), m.clientFlags()...)...)
		sc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		answerClient(t, name, sc, cb, sb)
		sc.Close()
		ln.Close()
		if rc := cl.wait(t); rc != 0 {
			t.Fatalf("%s: client exit %d: %s", name, rc, cl.stderr.String())
		}
	}

	// A frame cut short inside TLS: truncated, with an ERROR frame back.
	srv, port := startServer(t, append([]string{"--listen", "127.0.0.1:0"}, m.serverFlags()...)...)
	conn, err := tls.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port), clientCfg)
	if err != nil {
		t.Fatal(err)
	}
	p := Workload{0, 1, 8, 1}.Encode()
	hello := AppendFrame(nil, Hello, 0, p[:])
	conn.Write(hello[:30])
	conn.CloseWrite()
	rest, _ := io.ReadAll(conn)
	conn.Close()
	expectRejected(t, "cut HELLO over tls", srv, "truncated")
	if f := splitFrames(rest); len(f) != 1 || f[0][1] != Error {
		t.Errorf("no ERROR frame over tls: %x", rest)
	}
	// The TCP connection reset after the handshake, inside a session.
	srv, port = startServer(t, append([]string{"--listen", "127.0.0.1:0"}, m.serverFlags()...)...)
	conn, err = tls.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port), clientCfg)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(hello)
	io.ReadFull(conn, make([]byte, len(hello)))
	conn.NetConn().(*net.TCPConn).SetLinger(0)
	conn.NetConn().Close()
	expectRejected(t, "reset over tls", srv, "unexpected_eof")
}

// TestTLSServerAwaitsFIN: after the BYE_ACK the client's close_notify
// alone must not make the server close its socket (it would close first
// in TCP: server_closed_first); the client's FIN ends the session.
func TestTLSServerAwaitsFIN(t *testing.T) {
	m := makeMaterial(t)
	pool := x509.NewCertPool()
	pool.AddCert(m.caCert)
	clientCfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{ALPN}, MinVersion: tls.VersionTLS13}
	c := cases(t, "sessions.json")[0]
	cb, sb := unhex(t, c["client_bytes"]), unhex(t, c["server_bytes"])
	srv, port := startServer(t, append([]string{"--listen", "127.0.0.1:0"}, m.serverFlags()...)...)
	conn, err := tls.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port), clientCfg)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write(cb)
	got := make([]byte, len(sb))
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadFull(conn, got); err != nil || !bytes.Equal(got, sb) {
		t.Fatalf("the server sent %x (%v)", got, err)
	}
	// close_notify without the FIN: the server's end of the TCP stream
	// must not come.
	if err := conn.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	raw := conn.NetConn()
	raw.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	n, err := raw.Read(make([]byte, 64))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("after close_notify alone the server sent %d bytes and ended with %v, expected to wait for the FIN", n, err)
	}
	raw.Close()
	if rc := srv.wait(t); rc != 0 || strings.Count(srv.stdout.String(), "\n") != 1 {
		t.Fatalf("server exit %d, stdout %q: %s", rc, srv.stdout.String(), srv.stderr.String())
	}
}
