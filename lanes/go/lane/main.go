package lane

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"time"
)

// ServerMain is the server program: `READY <port>`, one session, then its
// result line after the end of stream that follows its BYE_ACK. It returns
// the exit status.
func ServerMain(args []string, stdout, stderr io.Writer) int {
	a, uerr := ParseServer(args)
	if uerr != nil {
		fmt.Fprintf(stderr, "server: %s\n", uerr)
		return ExitUsage
	}
	var cfg *tls.Config
	if a.Transport.TLS {
		var err error
		if cfg, err = ServerTLSConfig(a.Transport.Cert, a.Transport.Key); err != nil {
			fmt.Fprintf(stderr, "server: cannot load the certificate and key: %s\n", OneLine(err.Error(), 600))
			return ExitFailure
		}
	}
	ln, err := net.ListenTCP(a.Listen.Network(), &net.TCPAddr{IP: a.Listen.IP, Port: a.Listen.Port})
	if err != nil {
		fmt.Fprintf(stderr, "server: cannot listen on %s: %s\n", a.Listen.Text, err)
		return ExitFailure
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if _, err := fmt.Fprintf(stdout, "READY %d\n", port); err != nil {
		fmt.Fprintf(stderr, "server: cannot write the READY line: %s\n", err)
		return ExitFailure
	}
	tc, err := ln.AcceptTCP()
	ln.Close()
	if err != nil {
		fmt.Fprintf(stderr, "server: accept failed: %s\n", err)
		return ExitFailure
	}
	tc.SetNoDelay(true)
	var conn net.Conn = tc
	var info *TLSInfo
	if cfg != nil {
		t := tls.Server(tc, cfg)
		if err := t.Handshake(); err != nil {
			fmt.Fprintf(stderr, "server: %s\n", handshakeError(err))
			tc.Close()
			return ExitFailure
		}
		info = tlsInfo(t.ConnectionState(), 0)
		conn = t
	}
	out, r := Serve(conn)
	if r != nil {
		fmt.Fprintf(stderr, "server: %s\n", r)
		return ExitFailure
	}
	if info != nil {
		// Over tls the clean end may be the client's close_notify, whose
		// FIN follows right after: closing now could send this side's FIN
		// first (its port left in TIME_WAIT, server_closed_first).
		awaitFIN(tc)
	}
	tc.Close()
	out.TLS = info
	return printResult("server", out.JSON(), stdout, stderr)
}

// ClientMain is the client program: one session, then its result line.
func ClientMain(args []string, stdout, stderr io.Writer) int {
	a, uerr := ParseClient(args)
	if uerr != nil {
		fmt.Fprintf(stderr, "client: %s\n", uerr)
		return ExitUsage
	}
	var cfg *tls.Config
	if a.Transport.TLS {
		var err error
		if cfg, err = ClientTLSConfig(a.Transport.CA, a.Connect.IP.String()); err != nil {
			fmt.Fprintf(stderr, "client: cannot load the CA certificate: %s\n", OneLine(err.Error(), 600))
			return ExitFailure
		}
	}
	tc, err := net.DialTCP(a.Connect.Network(), nil, &net.TCPAddr{IP: a.Connect.IP, Port: a.Connect.Port})
	if err != nil {
		fmt.Fprintf(stderr, "client: cannot connect to %s: %s\n", a.Connect.Text, err)
		return ExitFailure
	}
	tc.SetNoDelay(true)
	var conn net.Conn = tc
	var info *TLSInfo
	if cfg != nil {
		t := tls.Client(tc, cfg)
		start := time.Now()
		err := t.Handshake()
		took := time.Since(start)
		if err != nil {
			fmt.Fprintf(stderr, "client: %s\n", handshakeError(err))
			tc.Close()
			return ExitFailure
		}
		if took <= 0 {
			took = 1
		}
		info = tlsInfo(t.ConnectionState(), took)
		conn = t
	}
	out, r := Run(conn, a.Workload)
	if r != nil {
		fmt.Fprintf(stderr, "client: %s\n", r)
		return ExitFailure
	}
	// The client closes first (SPEC.md section 3, step 6); over tls with
	// close_notify.
	conn.Close()
	out.TLS = info
	return printResult("client", out.JSON(), stdout, stderr)
}

// printResult prints a result line and returns the exit status.
func printResult(role string, line []byte, stdout, stderr io.Writer) int {
	if _, err := stdout.Write(append(line, '\n')); err != nil {
		fmt.Fprintf(stderr, "%s: cannot write the result line: %s\n", role, err)
		return ExitFailure
	}
	return 0
}
