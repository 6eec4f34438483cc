package lane

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The client side of a session (SPEC.md section 3): HELLO, the warm-up,
// the measured round trips with at most M requests outstanding, BYE.
//
// Windows of up to 32 KiB (every outstanding request and response fit in
// any common system's socket buffers) run on one goroutine: write the
// requests the window allows with one write, read, validate every
// complete response of the read, write the refill. Larger windows move the
// writing to a second goroutine, so that neither peer can block writing
// while the other blocks writing too.
//
// Every measured round trip's latency goes into the histogram of SPEC.md
// section 7: the clock is read once per write for every request in it and
// once per read for every response it completes.

const (
	// SingleWindowBytes is the largest window run on one goroutine.
	SingleWindowBytes = 32 * 1024
	// WriteBatchBytes is the most request bytes built into one write.
	WriteBatchBytes = 256 * 1024
)

type ClientPhase int

const (
	AwaitHelloAck ClientPhase = iota
	Running
	AwaitByeAck
	Done
)

// AppendRequests appends REQUEST frames first .. first+count-1 with
// p-byte payloads.
func AppendRequests(out []byte, first, count uint64, p uint32) []byte {
	f := HeaderBytes + int(p)
	old := len(out)
	need := old + f*int(count)
	if cap(out) < need {
		grown := make([]byte, old, need)
		copy(grown, out)
		out = grown
	}
	out = out[:need]
	seq := first
	for off := old; off < need; off += f {
		fr := out[off : off+f]
		Header{Version: Version, Type: Request, Len: p, Seq: seq}.Encode(fr)
		FillPayload(fr[HeaderBytes:], seq)
		seq++
	}
	return out
}

// Client is the client's session state machine, apart from any socket.
type Client struct {
	w     Workload
	total uint64
	frame uint64
	phase ClientPhase
	// nextSend is the next request sequence to send; expect the sequence
	// of the oldest outstanding request.
	nextSend, expect uint64
	// expectSlot is expect % M, its send time's slot, kept without a
	// division.
	expectSlot int
	m          int
	// limit: requests are sent up to this sequence (W during warm-up).
	limit          uint64
	framesSent     uint64
	framesReceived uint64
	bytesSent      uint64
	bytesReceived  uint64
	// sendTimes holds the send time of each outstanding request, indexed
	// by sequence modulo M, in ns since base.
	sendTimes  []int64
	base       time.Time
	receivedAt int64
	latency    *Histogram
}

// NewClient makes a client for a workload that passed its check.
func NewClient(w Workload) *Client {
	m := int(w.MaxInFlight)
	if m < 1 {
		m = 1
	}
	c := &Client{
		w: w, total: w.Total(), frame: w.FrameSize(),
		nextSend: 1, expect: 1, expectSlot: 1 % m, m: m,
		sendTimes: make([]int64, m), base: time.Now(), latency: NewHistogram(),
	}
	c.limit = c.total
	if w.Warmup > 0 {
		c.limit = w.Warmup
	}
	return c
}

func (c *Client) now() int64 { return int64(time.Since(c.base)) }

func (c *Client) stamp(first, count uint64, t int64) {
	i := int(first % uint64(c.m))
	for k := uint64(0); k < count; k++ {
		c.sendTimes[i] = t
		i++
		if i == c.m {
			i = 0
		}
	}
}

// StampSent records the clock as the send time of the last count requests
// Fill appended; call it right before they are written.
func (c *Client) StampSent(count uint64) { c.stamp(c.nextSend-count, count, c.now()) }

// NoteReceived reads the clock as the time the bytes about to be processed
// were read.
func (c *Client) NoteReceived() { c.receivedAt = c.now() }

// SetReceivedAt sets that time (tests without a socket).
func (c *Client) SetReceivedAt(t int64) { c.receivedAt = t }

func (c *Client) Latency() *Histogram { return c.latency }
func (c *Client) Phase() ClientPhase  { return c.phase }
func (c *Client) Workload() Workload  { return c.w }

// Hello appends the HELLO.
func (c *Client) Hello(out []byte) []byte {
	p := c.w.Encode()
	c.framesSent++
	c.bytesSent += 40
	return AppendFrame(out, Hello, 0, p[:])
}

// WarmupDone says whether HELLO_ACK and every warm-up response are in.
func (c *Client) WarmupDone() bool { return c.phase != AwaitHelloAck && c.expect > c.w.Warmup }

// OpenMeasured lets the measured requests be sent.
func (c *Client) OpenMeasured() { c.limit = c.total }

// MeasuredDone says whether the response to W + N has been validated.
func (c *Client) MeasuredDone() bool { return c.expect > c.total }

// Fill appends the requests the window allows, at most maxBytes of them
// (but one at least when any is allowed), and returns how many.
func (c *Client) Fill(out []byte, maxBytes uint64) ([]byte, uint64) {
	if c.phase != Running {
		return out, 0
	}
	hi := c.expect - 1 + uint64(c.w.MaxInFlight)
	if c.limit < hi {
		hi = c.limit
	}
	if c.nextSend > hi {
		return out, 0
	}
	count := hi - c.nextSend + 1
	if most := maxBytes / c.frame; most < count {
		count = most
		if count < 1 {
			count = 1
		}
	}
	out = AppendRequests(out, c.nextSend, count, c.w.PayloadBytes)
	c.nextSend += count
	c.framesSent += count
	c.bytesSent += count * c.frame
	return out, count
}

// noteSent records that requests up to last were sent by someone else.
func (c *Client) noteSent(last uint64) {
	if last+1 > c.nextSend {
		count := last + 1 - c.nextSend
		c.nextSend = last + 1
		c.framesSent += count
		c.bytesSent += count * c.frame
	}
}

// Bye appends the BYE with the client's counts.
func (c *Client) Bye(out []byte) []byte {
	counts := Counts{Requests: c.nextSend - 1, Responses: c.expect - 1, BytesSent: c.bytesSent, BytesReceived: c.bytesReceived}
	p := counts.Encode()
	c.framesSent++
	c.bytesSent += 48
	c.phase = AwaitByeAck
	return AppendFrame(out, Bye, c.total+1, p[:])
}

// OnEOF is the rejection for the end of stream with pending unparsed
// bytes: the client never expects one.
func (c *Client) OnEOF(pending int) *Rejection {
	if r := EOFCheck(pending); r != nil {
		return r
	}
	switch c.phase {
	case AwaitHelloAck:
		return unexpectedEOF("before HELLO_ACK")
	case Running:
		return unexpectedEOF("with responses outstanding")
	case AwaitByeAck:
		return unexpectedEOF("before BYE_ACK")
	}
	return unexpectedEOF("after BYE_ACK")
}

func (c *Client) Totals() Totals {
	return Totals{FramesSent: c.framesSent, FramesReceived: c.framesReceived, BytesSent: c.bytesSent, BytesReceived: c.bytesReceived}
}

// Process validates every complete frame at the start of buf and returns
// how many bytes they took. Every check but the payload's is made as soon
// as a frame's 16 header bytes are there, so an incomplete frame can be
// rejected too.
func (c *Client) Process(buf []byte) (int, *Rejection) {
	pos := 0
	for len(buf)-pos >= HeaderBytes {
		h := DecodeHeader(buf[pos:])
		next := c.phase == Running && h.Version == Version && h.Type == Response &&
			h.Flags == 0 && h.Seq == c.expect && c.expect < c.nextSend &&
			h.Len == c.w.PayloadBytes
		if !next {
			if r := h.Check(); r != nil {
				return pos, r
			}
			if r := c.checkHeader(h, buf[pos:]); r != nil {
				return pos, r
			}
		}
		size := h.FrameBytes()
		if len(buf)-pos < size {
			break
		}
		frame := buf[pos : pos+size]
		if next {
			if !CheckResponse(frame[HeaderBytes:], h.Seq) {
				return pos, reject(WrongPayload, "RESPONSE %d payload differs from respond(gen(%d))", h.Seq, h.Seq)
			}
			if h.Seq > c.w.Warmup {
				d := c.receivedAt - c.sendTimes[c.expectSlot]
				if d < 0 {
					d = 0
				}
				c.latency.Record(uint64(d))
			}
			c.expect++
			c.expectSlot++
			if c.expectSlot == c.m {
				c.expectSlot = 0
			}
		} else if r := c.completeFrame(h, frame); r != nil {
			return pos, r
		}
		c.framesReceived++
		c.bytesReceived += uint64(size)
		pos += size
	}
	// The session ends with the read that validated BYE_ACK: a frame begun
	// after it there is cut short (a whole header was rejected above).
	if c.phase == Done && pos < len(buf) {
		return pos, reject(Truncated, "%d bytes of a frame after BYE_ACK", len(buf)-pos)
	}
	return pos, nil
}

// checkHeader makes the session's checks on a header in SPEC.md's order:
// ERROR, type, sequence, length. Passing means the frame is the next
// response, the HELLO_ACK or the BYE_ACK.
func (c *Client) checkHeader(h Header, avail []byte) *Rejection {
	if h.Type == Error {
		return peerErrorPartial(h, avail)
	}
	// The type comes before the sequence: a RESPONSE is allowed only while
	// a request is outstanding, whatever its sequence.
	if h.Type == Response && c.phase != Running && c.phase != Done {
		if c.phase == AwaitHelloAck {
			return reject(UnexpectedType, "RESPONSE %d before HELLO_ACK, no request is outstanding", h.Seq)
		}
		return reject(UnexpectedType, "RESPONSE %d after every response, expected BYE_ACK", h.Seq)
	}
	switch c.phase {
	case AwaitHelloAck:
		if h.Type != HelloAck {
			return unexpected(h.Type, "HELLO_ACK")
		}
		if h.Seq != 0 {
			return reject(WrongSequence, "HELLO_ACK with sequence %d, expected 0", h.Seq)
		}
		return nil
	case Running:
		if h.Type != Response {
			return unexpected(h.Type, "RESPONSE")
		}
		// The window is refilled between reads, so it may drain within one.
		if c.expect >= c.nextSend {
			if c.expect > c.total {
				return reject(UnexpectedType, "RESPONSE %d whose request does not exist, after the last response", h.Seq)
			}
			return reject(UnexpectedType, "RESPONSE %d whose request was not sent yet", h.Seq)
		}
		if h.Seq != c.expect {
			return reject(WrongSequence, "RESPONSE with sequence %d, expected %d", h.Seq, c.expect)
		}
		if h.Len != c.w.PayloadBytes {
			return reject(BadLength, "RESPONSE %d with payload_length %d, workload payload_bytes %d", h.Seq, h.Len, c.w.PayloadBytes)
		}
		return nil
	case AwaitByeAck:
		if h.Type != ByeAck {
			return unexpected(h.Type, "BYE_ACK")
		}
		if h.Seq != c.total+1 {
			return reject(WrongSequence, "BYE_ACK with sequence %d, expected %d", h.Seq, c.total+1)
		}
		return nil
	}
	return reject(UnexpectedType, "%s frame (type %d) after BYE_ACK", TypeName(h.Type), h.Type)
}

// completeFrame checks a whole HELLO_ACK or BYE_ACK whose header passed.
func (c *Client) completeFrame(h Header, frame []byte) *Rejection {
	body := frame[HeaderBytes:]
	if h.Type == HelloAck {
		if want := c.w.Encode(); string(body) != string(want[:]) {
			got := DecodeWorkload(body)
			return reject(BadWorkload, "HELLO_ACK echoes warmup=%d round_trips=%d payload_bytes=%d max_in_flight=%d, sent warmup=%d round_trips=%d payload_bytes=%d max_in_flight=%d",
				got.Warmup, got.RoundTrips, got.PayloadBytes, got.MaxInFlight,
				c.w.Warmup, c.w.RoundTrips, c.w.PayloadBytes, c.w.MaxInFlight)
		}
		c.phase = Running
		return nil
	}
	got := DecodeCounts(body)
	want := Counts{Requests: c.nextSend - 1, Responses: c.expect - 1, BytesSent: c.bytesReceived, BytesReceived: c.bytesSent}
	if got != want {
		return countMismatch("BYE_ACK", got, want)
	}
	c.phase = Done
	return nil
}

// Outcome is what a completed session reports.
type Outcome struct {
	Workload  Workload
	Totals    Totals
	ElapsedNS uint64
	cpu       cpuWindow
	Latency   *Histogram
	TLS       *TLSInfo
}

// JSON is the client's result line of the peer contract.
func (o *Outcome) JSON() []byte {
	b := make([]byte, 0, 1024)
	b = append(b, `{"round_trips":`...)
	b = strconv.AppendUint(b, o.Workload.RoundTrips, 10)
	b = append(b, `,"warmup_round_trips":`...)
	b = strconv.AppendUint(b, o.Workload.Warmup, 10)
	b = append(b, `,"payload_bytes":`...)
	b = strconv.AppendUint(b, uint64(o.Workload.PayloadBytes), 10)
	b = append(b, `,"max_in_flight":`...)
	b = strconv.AppendUint(b, uint64(o.Workload.MaxInFlight), 10)
	b = append(b, `,"frames_sent":`...)
	b = strconv.AppendUint(b, o.Totals.FramesSent, 10)
	b = append(b, `,"frames_received":`...)
	b = strconv.AppendUint(b, o.Totals.FramesReceived, 10)
	b = append(b, `,"bytes_sent":`...)
	b = strconv.AppendUint(b, o.Totals.BytesSent, 10)
	b = append(b, `,"bytes_received":`...)
	b = strconv.AppendUint(b, o.Totals.BytesReceived, 10)
	b = append(b, `,"elapsed_ns":`...)
	b = strconv.AppendUint(b, o.ElapsedNS, 10)
	b = append(b, ',')
	b = o.cpu.appendFields(b, o.Workload.RoundTrips == 0)
	b = append(b, `"latency":`...)
	b = o.Latency.AppendJSON(b)
	b = append(b, ',')
	b = o.TLS.appendJSON(b, true)
	return append(b, `"runtime":"go"}`...)
}

// window is the measured part of a session.
type window struct {
	elapsed time.Duration
	cpu     cpuWindow
}

// Run runs one session with workload w (which passed its check) on a
// connected c. On a rejection the ERROR frame has been sent (when
// possible) and the connection closed.
func Run(conn net.Conn, w Workload) (*Outcome, *Rejection) {
	c := NewClient(w)
	rb := NewRecvBuf(RecvCapacity)
	var win window
	var r *Rejection
	if uint64(w.MaxInFlight)*w.FrameSize() <= SingleWindowBytes {
		win, r = runSingle(conn, c, rb)
		if r != nil {
			rejectAndClose(conn, r)
		}
	} else {
		win, r = runThreaded(conn, c, rb)
	}
	if r != nil {
		return nil, r
	}
	return &Outcome{Workload: w, Totals: c.Totals(), ElapsedNS: uint64(win.elapsed), cpu: win.cpu, Latency: c.latency}, nil
}

// readAndProcess makes one read and validates every complete frame it
// completed; before runs between the two.
func readAndProcess(conn net.Conn, c *Client, rb *RecvBuf, before func()) *Rejection {
	n, err := rb.ReadOnce(conn)
	if n > 0 {
		c.NoteReceived()
		if before != nil {
			before()
		}
		used, r := c.Process(rb.Pending())
		rb.Consume(used)
		if r != nil {
			return r
		}
	}
	if err != nil {
		if isEOF(err) {
			return c.OnEOF(rb.PendingLen())
		}
		return readFailure(err, rb.PendingLen())
	}
	return nil
}

// writeChecked writes data; when that fails it reads what the peer sent
// before it went away, so that its ERROR frame, the likely cause, is what
// gets reported.
func writeChecked(conn net.Conn, data []byte, c *Client, rb *RecvBuf) *Rejection {
	if _, err := conn.Write(data); err != nil {
		conn.SetReadDeadline(time.Now().Add(Linger))
		for {
			r := readAndProcess(conn, c, rb, nil)
			if r != nil {
				if r.Kind == UnexpectedEOF || r.Kind == Truncated {
					return writeFailure(err)
				}
				return r
			}
		}
	}
	return nil
}

func handshake(conn net.Conn, c *Client, rb *RecvBuf) *Rejection {
	if r := writeChecked(conn, c.Hello(nil), c, rb); r != nil {
		return r
	}
	for c.phase == AwaitHelloAck {
		if r := readAndProcess(conn, c, rb, nil); r != nil {
			return r
		}
	}
	return nil
}

func goodbye(conn net.Conn, c *Client, rb *RecvBuf) *Rejection {
	if r := writeChecked(conn, c.Bye(nil), c, rb); r != nil {
		return r
	}
	for c.phase != Done {
		if r := readAndProcess(conn, c, rb, nil); r != nil {
			return r
		}
	}
	return nil
}

func runSingle(conn net.Conn, c *Client, rb *RecvBuf) (window, *Rejection) {
	var win window
	if r := handshake(conn, c, rb); r != nil {
		return win, r
	}
	out := make([]byte, 0, SingleWindowBytes+64)
	var start, end time.Time
	started := false
	for {
		if !started && c.WarmupDone() {
			c.OpenMeasured()
			win.cpu.open()
			start = time.Now()
			started = true
		}
		if c.MeasuredDone() {
			end = time.Now()
			break
		}
		var count uint64
		out, count = c.Fill(out[:0], ^uint64(0))
		if count > 0 {
			c.StampSent(count)
			if r := writeChecked(conn, out, c, rb); r != nil {
				return win, r
			}
		}
		if r := readAndProcess(conn, c, rb, nil); r != nil {
			return win, r
		}
	}
	win.cpu.close()
	win.elapsed = end.Sub(start)
	return win, goodbye(conn, c, rb)
}

// gate is how the reader tells the writer how far the responses got.
type gate struct {
	mu            sync.Mutex
	cv            *sync.Cond
	acked         uint64
	abort         bool
	writerWaiting bool
	// sent is the last request sequence handed to the socket, published
	// before the write so that no response comes for an unknown request.
	sent atomic.Uint64
}

func (g *gate) setAbort() {
	g.mu.Lock()
	g.abort = true
	g.mu.Unlock()
	g.cv.Broadcast()
}

func (g *gate) publish(acked uint64) {
	g.mu.Lock()
	g.acked = acked
	wake := g.writerWaiting
	g.writerWaiting = false
	g.mu.Unlock()
	if wake {
		g.cv.Signal()
	}
}

// waitFor waits until cond(acked) holds; ok is false on abort.
func (g *gate) waitFor(cond func(uint64) bool) (uint64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if g.abort {
			return 0, false
		}
		if cond(g.acked) {
			return g.acked, true
		}
		g.writerWaiting = true
		g.cv.Wait()
	}
}

type writerResult struct {
	start time.Time
	cpu   cpuWindow
	err   error
}

// writer sends every request with at most M outstanding; it starts the
// timer and the CPU window once the warm-up responses are all in, right
// before request W + 1.
func writer(conn net.Conn, g *gate, c *Client, res *writerResult) {
	w := c.w
	total, m, f := w.Total(), uint64(w.MaxInFlight), w.FrameSize()
	chunk := uint64(WriteBatchBytes) / f
	if chunk < 1 {
		chunk = 1
	}
	out := make([]byte, 0, chunk*f)
	next := uint64(1)
	type phase struct {
		limit    uint64
		measured bool
	}
	phases := []phase{{total, true}}
	if w.Warmup > 0 {
		phases = []phase{{w.Warmup, false}, {total, true}}
	}
	for _, ph := range phases {
		if ph.measured {
			if _, ok := g.waitFor(func(a uint64) bool { return a >= w.Warmup }); !ok {
				return
			}
			res.cpu.open()
			res.start = time.Now()
		}
		for next <= ph.limit {
			acked, ok := g.waitFor(func(a uint64) bool { return a+m >= next })
			if !ok {
				return
			}
			hi := min(ph.limit, acked+m, next+chunk-1)
			out = AppendRequests(out[:0], next, hi-next+1, w.PayloadBytes)
			c.stamp(next, hi-next+1, c.now())
			g.sent.Store(hi)
			if _, err := conn.Write(out); err != nil {
				res.err = err
				return
			}
			next = hi + 1
		}
	}
}

func runThreaded(conn net.Conn, c *Client, rb *RecvBuf) (window, *Rejection) {
	var win window
	if r := handshake(conn, c, rb); r != nil {
		rejectAndClose(conn, r)
		return win, r
	}
	g := &gate{}
	g.cv = sync.NewCond(&g.mu)
	var res writerResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		writer(conn, g, c, &res)
	}()
	var acked uint64
	var end time.Time
	var rej *Rejection
	for {
		if c.MeasuredDone() {
			end = time.Now()
			win.cpu.close()
			break
		}
		// Requests the writer published before this read returned are
		// outstanding.
		if rej = readAndProcess(conn, c, rb, func() { c.noteSent(g.sent.Load()) }); rej != nil {
			break
		}
		if now := c.expect - 1; now != acked {
			acked = now
			g.publish(acked)
		}
	}
	if rej != nil {
		// Stop the writer, also out of a write the peer no longer reads.
		// The ERROR frame goes out only where no request was cut short.
		g.setAbort()
		conn.SetWriteDeadline(time.Now())
		<-done
		if res.err == nil {
			conn.SetWriteDeadline(time.Time{})
			rejectAndClose(conn, rej)
		} else {
			conn.Close()
		}
		return win, rej
	}
	<-done
	if res.err != nil {
		r := writeFailure(res.err)
		conn.Close()
		return win, r
	}
	c.noteSent(g.sent.Load())
	win.elapsed = end.Sub(res.start)
	win.cpu.start, win.cpu.startOK = res.cpu.start, res.cpu.startOK
	if r := goodbye(conn, c, rb); r != nil {
		rejectAndClose(conn, r)
		return win, r
	}
	return win, nil
}
