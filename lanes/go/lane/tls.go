package lane

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// ALPN is the one application protocol both sides offer and accept.
const ALPN = "crossrun/1"

// TLSInfo is what a result line says about the TLS session (SESSION's
// contract, lanes/README.md); nil over tcp.
type TLSInfo struct {
	Version     string
	Cipher      string
	ALPN        string
	HandshakeNS uint64
}

func tlsInfo(cs tls.ConnectionState, handshake time.Duration) *TLSInfo {
	v := "unknown"
	if cs.Version == tls.VersionTLS13 {
		v = "TLSv1.3"
	}
	return &TLSInfo{Version: v, Cipher: tls.CipherSuiteName(cs.CipherSuite), ALPN: cs.NegotiatedProtocol, HandshakeNS: uint64(handshake)}
}

// appendJSON appends `"transport":...,` and, over tls, the "tls" object
// followed by a comma; the client's carries handshake_ns.
func (t *TLSInfo) appendJSON(b []byte, client bool) []byte {
	if t == nil {
		return append(b, `"transport":"tcp",`...)
	}
	b = append(b, `"transport":"tls","tls":{"version":`...)
	b = strconv.AppendQuote(b, t.Version)
	b = append(b, `,"cipher":`...)
	b = strconv.AppendQuote(b, t.Cipher)
	b = append(b, `,"alpn":`...)
	b = strconv.AppendQuote(b, t.ALPN)
	if client {
		b = append(b, `,"handshake_ns":`...)
		b = strconv.AppendUint(b, t.HandshakeNS, 10)
	}
	return append(b, "},"...)
}

// ServerTLSConfig is TLS 1.3 only, ALPN crossrun/1 required (a client
// offering none or another fails the handshake), no session tickets.
func ServerTLSConfig(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		Certificates:           []tls.Certificate{cert},
		MinVersion:             tls.VersionTLS13,
		MaxVersion:             tls.VersionTLS13,
		NextProtos:             []string{ALPN},
		SessionTicketsDisabled: true,
		// Full-size records from the first byte: fewer records and
		// system calls per batch.
		DynamicRecordSizingDisabled: true,
	}
	// crypto/tls goes on without ALPN when the client offers none; the
	// contract wants the handshake to fail.
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		for _, p := range hello.SupportedProtos {
			if p == ALPN {
				return nil, nil
			}
		}
		if len(hello.SupportedProtos) == 0 {
			return nil, errors.New("the client offered no ALPN, " + ALPN + " is required")
		}
		return nil, fmt.Errorf("the client offered ALPN %q, %s is required", hello.SupportedProtos, ALPN)
	}
	return cfg, nil
}

// ClientTLSConfig trusts the CA of caFile and only it, and verifies the
// server's IP SAN against host (no SNI is sent for an IP address).
func ClientTLSConfig(caFile, host string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	return &tls.Config{
		RootCAs:                     pool,
		ServerName:                  host,
		MinVersion:                  tls.VersionTLS13,
		MaxVersion:                  tls.VersionTLS13,
		NextProtos:                  []string{ALPN},
		DynamicRecordSizingDisabled: true,
		ClientSessionCache:          nil,
		// A server that selected no ALPN fails the handshake.
		VerifyConnection: func(cs tls.ConnectionState) error {
			if cs.NegotiatedProtocol != ALPN {
				return fmt.Errorf("the server selected ALPN %q, expected %s", cs.NegotiatedProtocol, ALPN)
			}
			return nil
		},
	}, nil
}

// handshakeError is the contract's one line for a failed handshake.
func handshakeError(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "tls_handshake: timed out: " + err.Error()
	}
	return "tls_handshake: " + OneLine(err.Error(), 600)
}
