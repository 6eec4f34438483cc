package lane

import (
	"errors"
	"io"
	"net"
	"time"
)

// Linger is how long a rejecting peer drains input after its ERROR frame,
// so that the frame reaches the peer instead of a connection reset.
const (
	Linger      = time.Second
	lingerBytes = 64 << 20
)

// readFailure turns a failed read with pending unparsed bytes into the
// rejection of SPEC.md section 3: a reset (or a TLS failure after the
// handshake) counts as the end of stream.
func readFailure(err error, pending int) *Rejection {
	if pending > 0 {
		return reject(Truncated, "read failed %d bytes into a frame: %v", pending, err)
	}
	return reject(UnexpectedEOF, "read failed between frames: %v", err)
}

func writeFailure(err error) *Rejection {
	return reject(UnexpectedEOF, "write failed, peer closed the connection: %v", err)
}

func unexpectedEOF(what string) *Rejection {
	return reject(UnexpectedEOF, "end of stream %s", what)
}

// isEOF says whether a read error is the clean end of stream: a FIN, or a
// TLS close_notify.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

type closeWriter interface{ CloseWrite() error }

// rejectAndClose sends the ERROR frame for r (none for peer_error: the
// peer has given up already), half-closes, and drains what the peer still
// sends for a bounded time.
func rejectAndClose(c net.Conn, r *Rejection) {
	if r.Kind != PeerError {
		out := AppendError(nil, r.Kind.Code(), r.Error())
		c.SetWriteDeadline(time.Now().Add(Linger))
		if _, err := c.Write(out); err != nil {
			c.Close()
			return
		}
	}
	if cw, ok := c.(closeWriter); ok {
		cw.CloseWrite()
	}
	drain(c)
	c.Close()
}

func drain(c net.Conn) {
	deadline := time.Now().Add(Linger)
	if c.SetReadDeadline(deadline) != nil {
		return
	}
	scratch := make([]byte, 64*1024)
	total := 0
	for total < lingerBytes {
		n, err := c.Read(scratch)
		total += n
		if err != nil {
			return
		}
	}
}

// awaitFIN reads the raw TCP stream to its end after the peer's
// close_notify, so that the client closes first in TCP as over tcp. Only
// the FIN can still come (any byte is the peer's problem, not a session's),
// and it comes within a Linger at most; a reset ends the wait as well.
func awaitFIN(c *net.TCPConn) {
	if c.SetReadDeadline(time.Now().Add(Linger)) != nil {
		return
	}
	scratch := make([]byte, 512)
	for {
		if _, err := c.Read(scratch); err != nil {
			return
		}
	}
}
