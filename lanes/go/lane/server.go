package lane

import (
	"net"
	"strconv"
)

// The server side of a session (SPEC.md section 3). Every frame it sends
// is the frame it answers changed in place: HELLO becomes HELLO_ACK (type
// byte), REQUEST becomes RESPONSE (type byte, payload XOR 0x5A after its
// check), BYE becomes BYE_ACK (type byte and the server's counts). So the
// answer to a batch of frames is the batch itself, written with one write
// straight from the receive buffer.

type ServerState int

const (
	AwaitHello ServerState = iota
	Requests
	AfterByeAck
)

// Server is the server's session state machine, apart from any socket.
type Server struct {
	state         ServerState
	workload      Workload
	total         uint64
	frame         uint64
	nextSeq       uint64
	requests      uint64
	responses     uint64
	bytesSent     uint64
	bytesReceived uint64
}

func NewServer() *Server { return &Server{frame: HeaderBytes, nextSeq: 1} }

func (s *Server) State() ServerState { return s.state }
func (s *Server) Workload() Workload { return s.workload }
func (s *Server) Counts() Counts {
	return Counts{Requests: s.requests, Responses: s.responses, BytesSent: s.bytesSent, BytesReceived: s.bytesReceived}
}

// Process handles every complete frame at the start of buf, turning each
// into its answer in place. It returns how many bytes were handled (their
// answers are buf[:consumed], to be sent in order) and the rejection met
// right after them, if any. Every check but the payload's is made as soon
// as a frame's 16 header bytes are there, so an incomplete frame can be
// rejected too; its bytes stay unhandled.
func (s *Server) Process(buf []byte) (int, *Rejection) {
	pos := 0
	for len(buf)-pos >= HeaderBytes {
		h := DecodeHeader(buf[pos:])
		// The common case, the session's next request, passes the header
		// checks at once.
		next := s.state == Requests && h.Version == Version && h.Type == Request &&
			h.Flags == 0 && h.Seq == s.nextSeq && h.Seq <= s.total &&
			h.Len == s.workload.PayloadBytes
		if !next {
			if r := h.Check(); r != nil {
				return pos, r
			}
			if r := s.checkHeader(h, buf[pos:]); r != nil {
				return pos, r
			}
		}
		size := h.FrameBytes()
		if len(buf)-pos < size {
			break
		}
		frame := buf[pos : pos+size]
		if next {
			if !CheckAndRespond(frame[HeaderBytes:], h.Seq) {
				return pos, reject(WrongPayload, "REQUEST %d payload differs from gen(%d)", h.Seq, h.Seq)
			}
			frame[1] = Response
			s.nextSeq++
			s.requests++
			s.responses++
			s.bytesReceived += s.frame
			s.bytesSent += s.frame
		} else if r := s.completeFrame(h, frame); r != nil {
			return pos, r
		}
		pos += size
	}
	return pos, nil
}

// checkHeader makes the session's checks on a header in SPEC.md's order:
// ERROR, type, sequence, length. Passing means the frame is the next
// request, the HELLO or the BYE.
func (s *Server) checkHeader(h Header, avail []byte) *Rejection {
	if h.Type == Error {
		return peerErrorPartial(h, avail)
	}
	switch s.state {
	case AwaitHello:
		if h.Type != Hello {
			return unexpected(h.Type, "HELLO")
		}
		if h.Seq != 0 {
			return reject(WrongSequence, "HELLO with sequence %d, expected 0", h.Seq)
		}
		return nil
	case Requests:
		switch h.Type {
		case Request:
			// After W + N requests only BYE: the type before the sequence.
			if s.nextSeq > s.total {
				return reject(UnexpectedType, "REQUEST with sequence %d after all %d requests, only BYE may come", h.Seq, s.total)
			}
			if h.Seq != s.nextSeq {
				return reject(WrongSequence, "REQUEST with sequence %d, expected %d", h.Seq, s.nextSeq)
			}
			if h.Len != s.workload.PayloadBytes {
				return reject(BadLength, "REQUEST %d with payload_length %d, workload payload_bytes %d", h.Seq, h.Len, s.workload.PayloadBytes)
			}
			return nil
		case Bye:
			if s.nextSeq <= s.total {
				return reject(UnexpectedType, "BYE after %d of %d requests, expected REQUEST %d", s.nextSeq-1, s.total, s.nextSeq)
			}
			if h.Seq != s.total+1 {
				return reject(WrongSequence, "BYE with sequence %d, expected %d", h.Seq, s.total+1)
			}
			return nil
		}
		if s.nextSeq <= s.total {
			return unexpected(h.Type, "REQUEST")
		}
		return unexpected(h.Type, "BYE")
	}
	return reject(UnexpectedType, "%s frame (type %d) after BYE, only the end of stream may follow it", TypeName(h.Type), h.Type)
}

// completeFrame checks a whole HELLO or BYE whose header passed, then
// turns it into its answer.
func (s *Server) completeFrame(h Header, frame []byte) *Rejection {
	body := frame[HeaderBytes:]
	if h.Type == Hello {
		w := DecodeWorkload(body)
		if r := w.Check(); r != nil {
			return r
		}
		s.workload = w
		s.total = w.Total()
		s.frame = w.FrameSize()
		s.nextSeq = 1
		frame[1] = HelloAck
		s.bytesReceived += 40
		s.bytesSent += 40
		s.state = Requests
		return nil
	}
	s.bytesReceived += 48
	got := DecodeCounts(body)
	// The client's view, as the server sees it.
	want := Counts{Requests: s.requests, Responses: s.responses, BytesSent: s.bytesReceived - 48, BytesReceived: s.bytesSent}
	if got != want {
		return countMismatch("BYE", got, want)
	}
	own := s.Counts().Encode()
	copy(body, own[:])
	frame[1] = ByeAck
	s.bytesSent += 48
	s.state = AfterByeAck
	return nil
}

// OnEOF judges the end of stream with pending unhandled bytes.
func (s *Server) OnEOF(pending int) *Rejection {
	if r := EOFCheck(pending); r != nil {
		return r
	}
	switch s.state {
	case AfterByeAck:
		return nil
	case AwaitHello:
		return unexpectedEOF("before HELLO")
	}
	if s.nextSeq <= s.total {
		return unexpectedEOF("after " + itoa(s.nextSeq-1) + " of " + itoa(s.total) + " requests")
	}
	return unexpectedEOF("before BYE")
}

func unexpected(t uint8, expected string) *Rejection {
	return reject(UnexpectedType, "%s frame (type %d), expected %s", TypeName(t), t, expected)
}

func countMismatch(what string, got, want Counts) *Rejection {
	return reject(CountMismatch, "%s counts requests=%d responses=%d bytes_sent=%d bytes_received=%d, expected requests=%d responses=%d bytes_sent=%d bytes_received=%d",
		what, got.Requests, got.Responses, got.BytesSent, got.BytesReceived,
		want.Requests, want.Responses, want.BytesSent, want.BytesReceived)
}

// ServerOutcome is what a completed session reports: the server's result
// line of lanes/README.md.
type ServerOutcome struct {
	Workload Workload
	Counts   Counts
	cpu      cpuWindow
	TLS      *TLSInfo
}

func (o *ServerOutcome) JSON() []byte {
	w, c := o.Workload, o.Counts
	warm := c.Responses
	if warm > w.Warmup {
		warm = w.Warmup
	}
	b := make([]byte, 0, 512)
	b = append(b, `{"round_trips":`...)
	b = strconv.AppendUint(b, c.Responses-warm, 10)
	b = append(b, `,"warmup_round_trips":`...)
	b = strconv.AppendUint(b, warm, 10)
	b = append(b, `,"payload_bytes":`...)
	b = strconv.AppendUint(b, uint64(w.PayloadBytes), 10)
	b = append(b, `,"max_in_flight":`...)
	b = strconv.AppendUint(b, uint64(w.MaxInFlight), 10)
	// HELLO and BYE came in, HELLO_ACK and BYE_ACK went out.
	b = append(b, `,"frames_sent":`...)
	b = strconv.AppendUint(b, c.Responses+2, 10)
	b = append(b, `,"frames_received":`...)
	b = strconv.AppendUint(b, c.Requests+2, 10)
	b = append(b, `,"bytes_sent":`...)
	b = strconv.AppendUint(b, c.BytesSent, 10)
	b = append(b, `,"bytes_received":`...)
	b = strconv.AppendUint(b, c.BytesReceived, 10)
	b = append(b, ',')
	b = o.cpu.appendFields(b, w.RoundTrips == 0)
	b = o.TLS.appendJSON(b, false)
	return append(b, `"runtime":"go"}`...)
}

// Serve runs one session on c. On a rejection the ERROR frame has been
// sent (when possible) and the connection closed.
func Serve(c net.Conn) (*ServerOutcome, *Rejection) {
	s := NewServer()
	rb := NewRecvBuf(RecvCapacity)
	out, r := serveLoop(c, s, rb)
	if r != nil {
		rejectAndClose(c, r)
	}
	return out, r
}

func serveLoop(c net.Conn, s *Server, rb *RecvBuf) (*ServerOutcome, *Rejection) {
	o := &ServerOutcome{}
	opened, closed := false, false
	for {
		n, err := rb.ReadOnce(c)
		if n == 0 && err != nil {
			if isEOF(err) {
				if r := s.OnEOF(rb.PendingLen()); r != nil {
					return nil, r
				}
				o.Workload, o.Counts = s.workload, s.Counts()
				return o, nil
			}
			return nil, readFailure(err, rb.PendingLen())
		}
		// The CPU window opens before the read that holds request W + 1:
		// the client sends it only once every warm-up answer is in.
		if !opened && s.state == Requests && s.responses >= s.workload.Warmup {
			opened = true
			o.cpu.open()
		}
		consumed, rej := s.Process(rb.Pending())
		if opened && !closed && s.state == AfterByeAck {
			closed = true
			o.cpu.close()
		}
		if consumed > 0 {
			if _, werr := c.Write(rb.Pending()[:consumed]); werr != nil {
				if rej == nil {
					rej = writeFailure(werr)
				}
				return nil, rej
			}
			rb.Consume(consumed)
		}
		if rej != nil {
			return nil, rej
		}
		if err != nil && !isEOF(err) {
			return nil, readFailure(err, rb.PendingLen())
		}
		if err != nil {
			if r := s.OnEOF(rb.PendingLen()); r != nil {
				return nil, r
			}
			o.Workload, o.Counts = s.workload, s.Counts()
			return o, nil
		}
	}
}
