package lane

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The lane against every case of protocol/vectors/*.json, in memory: the
// state machines fed the vectors' bytes in several chunkings.

type obj = map[string]any

// repoRoot is CROSSRUN_ROOT, else two folders above this module.
func repoRoot() string {
	if r := os.Getenv("CROSSRUN_ROOT"); r != "" {
		return r
	}
	return filepath.Join("..", "..", "..")
}

func cases(t *testing.T, name string) []obj {
	t.Helper()
	path := filepath.Join(repoRoot(), "protocol", "vectors", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc struct{ Cases []obj }
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(doc.Cases) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	return doc.Cases
}

// u64 reads a number or a decimal string (the vectors' 64-bit form).
func u64(t *testing.T, v any) uint64 {
	t.Helper()
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		t.Fatalf("not a number: %#v", v)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("not an unsigned integer: %q", s)
	}
	return n
}

func unhex(t *testing.T, v any) []byte {
	t.Helper()
	b, err := hex.DecodeString(v.(string))
	if err != nil {
		t.Fatalf("bad hex: %v", err)
	}
	return b
}

func workloadOf(t *testing.T, v any) Workload {
	m := v.(obj)
	return Workload{Warmup: u64(t, m["warmup"]), RoundTrips: u64(t, m["round_trips"]),
		PayloadBytes: uint32(u64(t, m["payload_bytes"])), MaxInFlight: uint32(u64(t, m["max_in_flight"]))}
}

func countsOf(t *testing.T, v any) Counts {
	m := v.(obj)
	return Counts{Requests: u64(t, m["requests"]), Responses: u64(t, m["responses"]),
		BytesSent: u64(t, m["bytes_sent"]), BytesReceived: u64(t, m["bytes_received"])}
}

func TestPayloads(t *testing.T) {
	for _, c := range cases(t, "payloads.json") {
		seq, n := u64(t, c["sequence"]), int(u64(t, c["length"]))
		want, resp := unhex(t, c["payload"]), unhex(t, c["response"])
		got := make([]byte, n)
		FillPayload(got, seq)
		if !bytes.Equal(got, want) {
			t.Fatalf("gen(%d, %d) = %x, want %x", seq, n, got, want)
		}
		r := make([]byte, n)
		FillResponse(r, seq)
		if !bytes.Equal(r, resp) {
			t.Fatalf("respond(gen(%d, %d)) = %x, want %x", seq, n, r, resp)
		}
		Respond(r, want)
		if !bytes.Equal(r, resp) || !CheckPayload(want, seq) || !CheckResponse(resp, seq) {
			t.Fatalf("checkers refuse (%d, %d)", seq, n)
		}
		in := append([]byte(nil), want...)
		if !CheckAndRespond(in, seq) || !bytes.Equal(in, resp) {
			t.Fatalf("in place (%d, %d)", seq, n)
		}
		if n > 0 {
			for _, pos := range []int{0, n / 2, n - 1} {
				bad := append([]byte(nil), want...)
				bad[pos] ^= 0x10
				if CheckPayload(bad, seq) || CheckAndRespond(bad, seq) {
					t.Fatalf("a flipped bit at %d passes (%d, %d)", pos, seq, n)
				}
			}
			if CheckResponse(want, seq) {
				t.Fatalf("a plain echo passes as a response (%d, %d)", seq, n)
			}
		}
	}
}

func TestFrames(t *testing.T) {
	for _, c := range cases(t, "frames.json") {
		name := c["name"].(string)
		typ, seq := uint8(u64(t, c["type"])), u64(t, c["sequence"])
		payload, frame := unhex(t, c["payload"]), unhex(t, c["frame"])
		if TypeName(typ) != c["type_name"].(string) {
			t.Errorf("%s: type name %s", name, TypeName(typ))
		}
		var enc []byte
		switch typ {
		case Hello, HelloAck:
			w := workloadOf(t, c["workload"])
			p := w.Encode()
			if !bytes.Equal(p[:], payload) || DecodeWorkload(payload) != w {
				t.Errorf("%s: workload encoding", name)
			}
			enc = AppendFrame(nil, typ, seq, p[:])
		case Bye, ByeAck:
			k := countsOf(t, c["counts"])
			p := k.Encode()
			if !bytes.Equal(p[:], payload) || DecodeCounts(payload) != k {
				t.Errorf("%s: counts encoding", name)
			}
			if s, ok := c["session"]; ok {
				if got := workloadOf(t, s).ExpectedCounts(typ == ByeAck); got != k {
					t.Errorf("%s: the session's counts are %+v, want %+v", name, got, k)
				}
			}
			enc = AppendFrame(nil, typ, seq, p[:])
		case Request:
			p := make([]byte, len(payload))
			FillPayload(p, seq)
			enc = AppendRequests(nil, seq, 1, uint32(len(payload)))
			if !bytes.Equal(p, payload) {
				t.Errorf("%s: request payload", name)
			}
		case Response:
			p := make([]byte, len(payload))
			FillResponse(p, seq)
			enc = AppendFrame(nil, typ, seq, p)
		case Error:
			reason := c["reason"].(string)
			enc = AppendError(nil, uint16(u64(t, c["code"])), reason)
			code, got := DecodeError(payload)
			if code != uint16(u64(t, c["code"])) || got != reason {
				t.Errorf("%s: error decode %d %q", name, code, got)
			}
		}
		if !bytes.Equal(enc, frame) {
			t.Errorf("%s: encoded\n%x\nwant\n%x", name, enc, frame)
		}
		h := DecodeHeader(frame)
		want := Header{Version: uint8(u64(t, c["version"])), Type: typ, Flags: uint16(u64(t, c["flags"])),
			Len: uint32(u64(t, c["payload_length"])), Seq: seq}
		if h != want || h.Check() != nil || h.FrameBytes() != len(frame) {
			t.Errorf("%s: decoded %+v, want %+v", name, h, want)
		}
	}
}

// advance is what a live client does between frames: open the measured
// phase once the warm-up is in, send BYE once every response is in, else
// refill the window.
func advance(c *Client, out []byte) []byte {
	if c.WarmupDone() {
		c.OpenMeasured()
	}
	if c.Phase() == Running && c.MeasuredDone() {
		return c.Bye(out)
	}
	out, _ = c.Fill(out, ^uint64(0))
	return out
}

// feedClient hands the client the complete frames of rb one at a time, so
// that the window is refilled between them as when each arrives alone.
func feedClient(c *Client, rb *RecvBuf, out []byte) ([]byte, *Rejection) {
	for {
		p := rb.Pending()
		lim := len(p)
		if lim >= HeaderBytes {
			if f := DecodeHeader(p).FrameBytes(); f < lim {
				lim = f
			}
		}
		n, r := c.Process(p[:lim])
		rb.Consume(n)
		if r != nil {
			return out, r
		}
		if n == 0 {
			return out, nil
		}
		out = advance(c, out)
	}
}

func feedServer(s *Server, rb *RecvBuf, out []byte) ([]byte, *Rejection) {
	n, r := s.Process(rb.Pending())
	out = append(out, rb.Pending()[:n]...)
	rb.Consume(n)
	return out, r
}

func newBuf() *RecvBuf { return NewRecvBuf(RecvCapacity) }

// simulate runs a whole session between the two state machines in memory
// and returns both byte streams, the client's totals and the server.
func simulate(t *testing.T, w Workload) ([]byte, []byte, Totals, *Server) {
	t.Helper()
	c, s := NewClient(w), NewServer()
	crb, srb := newBuf(), newBuf()
	var call, sall []byte
	cout := c.Hello(nil)
	for {
		if len(cout) > 0 {
			call = append(call, cout...)
			srb.Push(cout)
			cout = cout[:0]
			sout, r := feedServer(s, srb, nil)
			if r != nil {
				t.Fatalf("%+v: server: %v", w, r)
			}
			sall = append(sall, sout...)
			crb.Push(sout)
		}
		var r *Rejection
		if cout, r = feedClient(c, crb, cout); r != nil {
			t.Fatalf("%+v: client: %v", w, r)
		}
		if c.Phase() == Done {
			break
		}
		if len(cout) == 0 {
			t.Fatalf("%+v: session stalled", w)
		}
	}
	if s.State() != AfterByeAck || s.OnEOF(0) != nil {
		t.Fatalf("%+v: server not at a clean end", w)
	}
	if c.Latency().Count() != w.RoundTrips {
		t.Fatalf("%+v: %d latencies", w, c.Latency().Count())
	}
	return call, sall, c.Totals(), s
}

// chunks are the delivery patterns: all at once, then pieces of these
// sizes.
var chunks = []int{1 << 30, 1, 3, 7, 64}

func pieces(data []byte, chunk int) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		n := min(chunk, len(data))
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

func TestSessionsInMemory(t *testing.T) {
	for _, c := range cases(t, "sessions.json") {
		name := c["name"].(string)
		w := workloadOf(t, c["workload"])
		cb, sb := unhex(t, c["client_bytes"]), unhex(t, c["server_bytes"])
		call, sall, totals, s := simulate(t, w)
		if !bytes.Equal(call, cb) || !bytes.Equal(sall, sb) {
			t.Fatalf("%s: the simulated streams differ from the vector", name)
		}
		res := c["result"].(obj)
		want := Totals{FramesSent: u64(t, res["frames_sent"]), FramesReceived: u64(t, res["frames_received"]),
			BytesSent: u64(t, res["bytes_sent"]), BytesReceived: u64(t, res["bytes_received"])}
		if totals != want {
			t.Fatalf("%s: totals %+v, want %+v", name, totals, want)
		}
		if want := w.ExpectedCounts(true); s.Counts() != (Counts{want.Requests, want.Responses, want.BytesSent + 48, want.BytesReceived}) {
			t.Fatalf("%s: server counts %+v, BYE_ACK carried %+v", name, s.Counts(), want)
		}
		// The server fed the client's bytes in any chunking answers with
		// exactly the server's bytes.
		for _, chunk := range chunks {
			srv, rb := NewServer(), newBuf()
			var out []byte
			for _, p := range pieces(cb, chunk) {
				rb.Push(p)
				var r *Rejection
				if out, r = feedServer(srv, rb, out); r != nil {
					t.Fatalf("%s chunk %d: server: %v", name, chunk, r)
				}
			}
			if !bytes.Equal(out, sb) || srv.OnEOF(rb.PendingLen()) != nil {
				t.Fatalf("%s chunk %d: server answers differ or no clean end", name, chunk)
			}
		}
	}
}

// bareParse is a frame parser without a session: header checks and the
// end of stream inside a frame.
func bareParse(input []byte, chunk int, eof bool) *Rejection {
	rb := newBuf()
	for _, p := range pieces(input, chunk) {
		rb.Push(p)
		for {
			h, ok, r := PeekHeader(rb.Pending())
			if r != nil {
				return r
			}
			if !ok || rb.PendingLen() < h.FrameBytes() {
				break
			}
			rb.Consume(h.FrameBytes())
		}
	}
	if eof {
		return EOFCheck(rb.PendingLen())
	}
	return nil
}

func serverExpectingRequest(t *testing.T, w Workload, seq uint64) *Server {
	s, rb := NewServer(), newBuf()
	p := w.Encode()
	in := AppendFrame(nil, Hello, 0, p[:])
	in = AppendRequests(in, 1, seq-1, w.PayloadBytes)
	rb.Push(in)
	out, r := feedServer(s, rb, nil)
	if r != nil || len(out) != len(in) {
		t.Fatalf("server_expecting_request %d: %v", seq, r)
	}
	return s
}

func serverAfterBye(t *testing.T, w Workload) *Server {
	s := serverExpectingRequest(t, w, w.Total()+1)
	k := w.ExpectedCounts(false).Encode()
	rb := newBuf()
	rb.Push(AppendFrame(nil, Bye, w.Total()+1, k[:]))
	if _, r := feedServer(s, rb, nil); r != nil || s.State() != AfterByeAck {
		t.Fatalf("server_after_bye: %v", r)
	}
	return s
}

func responseFrame(seq uint64, p uint32) []byte {
	f := make([]byte, HeaderBytes+int(p))
	Header{Version: Version, Type: Response, Len: p, Seq: seq}.Encode(f)
	FillResponse(f[HeaderBytes:], seq)
	return f
}

func clientExpectingResponse(t *testing.T, w Workload, seq uint64) *Client {
	c := NewClient(w)
	out := c.Hello(nil)
	p := w.Encode()
	ack := AppendFrame(nil, HelloAck, 0, p[:])
	if n, r := c.Process(ack); r != nil || n != len(ack) {
		t.Fatalf("HELLO_ACK: %v", r)
	}
	out = advance(c, out)
	for s := uint64(1); s < seq; s++ {
		f := responseFrame(s, w.PayloadBytes)
		if n, r := c.Process(f); r != nil || n != len(f) {
			t.Fatalf("RESPONSE %d: %v", s, r)
		}
		out = advance(c, out)
	}
	return c
}

func replayIn(t *testing.T, state string, w Workload, seq uint64, input []byte, chunk int, eof bool) *Rejection {
	var s *Server
	var c *Client
	switch state {
	case "server_expecting_hello":
		s = NewServer()
	case "server_expecting_request":
		s = serverExpectingRequest(t, w, seq)
	case "server_after_bye":
		s = serverAfterBye(t, w)
	case "client_expecting_hello_ack":
		c = NewClient(w)
		c.Hello(nil)
	case "client_expecting_response":
		c = clientExpectingResponse(t, w, seq)
	case "client_expecting_bye_ack":
		c = clientExpectingResponse(t, w, w.Total()+1)
		if c.Phase() != AwaitByeAck {
			t.Fatalf("client_expecting_bye_ack: phase %d", c.Phase())
		}
	default:
		t.Fatalf("unknown state %q", state)
	}
	rb := newBuf()
	var out []byte
	for _, p := range pieces(input, chunk) {
		rb.Push(p)
		var r *Rejection
		if s != nil {
			out, r = feedServer(s, rb, out)
		} else {
			out, r = feedClient(c, rb, out)
		}
		if r != nil {
			return r
		}
	}
	if eof {
		if s != nil {
			return s.OnEOF(rb.PendingLen())
		}
		return c.OnEOF(rb.PendingLen())
	}
	return nil
}

// replayOneRead processes input whole, as a live client processes one
// read: no refill between its frames.
func replayOneRead(t *testing.T, state string, w Workload, seq uint64, input []byte, eof bool) *Rejection {
	var c *Client
	switch state {
	case "client_expecting_response":
		c = clientExpectingResponse(t, w, seq)
	case "client_expecting_bye_ack":
		c = clientExpectingResponse(t, w, w.Total()+1)
	default:
		t.Fatalf("one_read case in state %q", state)
	}
	n, r := c.Process(input)
	if r != nil || !eof {
		return r
	}
	return c.OnEOF(len(input) - n)
}

var sessionStates = []string{"server_expecting_hello", "server_expecting_request", "server_after_bye",
	"client_expecting_hello_ack", "client_expecting_response", "client_expecting_bye_ack"}

func TestInvalid(t *testing.T) {
	seen := map[Reject]bool{}
	for _, c := range cases(t, "invalid.json") {
		name, state := c["name"].(string), c["state"].(string)
		want, ok := RejectNamed(c["rejection"].(string))
		if !ok {
			t.Fatalf("%s: unknown rejection %v", name, c["rejection"])
		}
		seen[want] = true
		input, eof := unhex(t, c["input"]), c["eof"].(bool)
		var w Workload
		var seq uint64
		if v, ok := c["workload"]; ok {
			w = workloadOf(t, v)
		}
		if v, ok := c["sequence"]; ok {
			seq = u64(t, v)
		}
		// A header check comes first: an `any` case other than a cut is
		// rejected the same way in every session state.
		if state == "any" && want != Truncated {
			sw := Workload{Warmup: 2, RoundTrips: 3, PayloadBytes: 5, MaxInFlight: 2}
			for _, st := range sessionStates {
				r := replayIn(t, st, sw, 2, input, 1<<30, eof)
				if r == nil || r.Kind != want {
					t.Errorf("%s in %s: got %v, want %s", name, st, r, want)
				}
			}
		}
		// A one_read case holds only when its input is one read: the window
		// is refilled, and the session ends after BYE_ACK, between reads.
		if oneRead, _ := c["one_read"].(bool); oneRead {
			r := replayOneRead(t, state, w, seq, input, eof)
			if r == nil || r.Kind != want {
				t.Errorf("%s (%s), one read: got %v, want %s", name, c["description"], r, want)
			}
			continue
		}
		for _, chunk := range chunks {
			var r *Rejection
			if state == "any" {
				r = bareParse(input, chunk, eof)
			} else {
				r = replayIn(t, state, w, seq, input, chunk, eof)
			}
			if r == nil {
				t.Errorf("%s (%s), chunk %d: accepted, want %s", name, c["description"], chunk, want)
			} else if r.Kind != want {
				t.Errorf("%s (%s), chunk %d: got %v, want %s", name, c["description"], chunk, r, want)
			} else if line := r.Error(); strings.ContainsFunc(line, func(ch rune) bool { return ch < ' ' || ch == 0x7f }) {
				// The one stderr line: a peer's reason with newlines,
				// controls or invalid UTF-8 must not break it.
				t.Errorf("%s: the line holds a control character: %q", name, line)
			}
		}
	}
	if len(seen) != len(AllRejects()) {
		t.Errorf("the vectors cover %d of %d rejection names", len(seen), len(AllRejects()))
	}
}

func histogramOf(t *testing.T, values any) *Histogram {
	h := NewHistogram()
	for _, v := range values.([]any) {
		h.Record(u64(t, v))
	}
	return h
}

func optNumber(t *testing.T, v any) (uint64, bool) {
	if v == nil {
		return 0, false
	}
	return u64(t, v), true
}

func checkHistogram(t *testing.T, what string, h *Histogram, want obj) {
	t.Helper()
	if h.Count() != u64(t, want["count"]) {
		t.Errorf("%s: count %d", what, h.Count())
	}
	wmin, okmin := optNumber(t, want["min"])
	if gmin, ok := h.Min(); ok != okmin || (ok && gmin != wmin) {
		t.Errorf("%s: min %d", what, gmin)
	}
	wmax, okmax := optNumber(t, want["max"])
	if gmax, ok := h.Max(); ok != okmax || (ok && gmax != wmax) {
		t.Errorf("%s: max %d", what, gmax)
	}
	var wb [][2]uint64
	for _, b := range want["buckets"].([]any) {
		pair := b.([]any)
		wb = append(wb, [2]uint64{u64(t, pair[0]), u64(t, pair[1])})
	}
	gb := h.NonEmpty()
	if len(gb) != len(wb) {
		t.Fatalf("%s: %d buckets, want %d", what, len(gb), len(wb))
	}
	for i := range gb {
		if gb[i] != wb[i] {
			t.Errorf("%s: bucket %v, want %v", what, gb[i], wb[i])
		}
	}
	for key, q := range map[string]uint64{"p50": P50, "p90": P90, "p99": P99, "p99_9": P999} {
		wv, wok := optNumber(t, want[key])
		if gv, ok := h.Percentile(q); ok != wok || (ok && gv != wv) {
			t.Errorf("%s: %s %d, want %d", what, key, gv, wv)
		}
	}
	// The result line's object says the same.
	var doc obj
	dec := json.NewDecoder(bytes.NewReader(h.AppendJSON(nil)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: its JSON: %v", what, err)
	}
	for _, key := range []string{"count", "min", "max", "p50", "p90", "p99", "p99_9"} {
		g, gok := optNumber(t, doc[key])
		w, wok := optNumber(t, want[key])
		if g != w || gok != wok {
			t.Errorf("%s: JSON %s %v, want %v", what, key, doc[key], want[key])
		}
	}
}

func TestHistogramVectors(t *testing.T) {
	for _, c := range cases(t, "histogram.json") {
		switch c["kind"] {
		case "bucket":
			v := u64(t, c["value"])
			i := int(u64(t, c["index"]))
			if BucketIndex(v) != i || BucketLower(i) != u64(t, c["lower"]) || BucketWidth(i) != u64(t, c["width"]) {
				t.Errorf("value %d: index %d lower %d width %d", v, BucketIndex(v), BucketLower(i), BucketWidth(i))
			}
		case "histogram":
			name := c["name"].(string)
			a, b := histogramOf(t, c["a_values"]), histogramOf(t, c["b_values"])
			checkHistogram(t, name+" a", a, c["a"].(obj))
			checkHistogram(t, name+" b", b, c["b"].(obj))
			a.Merge(b)
			checkHistogram(t, name+" merged", a, c["merged"].(obj))
		default:
			t.Fatalf("unknown kind %v", c["kind"])
		}
	}
}

func TestEveryBucketHoldsItsBounds(t *testing.T) {
	for i := 0; i < Buckets; i++ {
		lo := BucketLower(i)
		if BucketIndex(lo) != i || BucketIndex(lo+BucketWidth(i)-1) != i || (i > 0 && BucketIndex(lo-1) != i-1) {
			t.Fatalf("bucket %d", i)
		}
	}
	if BucketIndex(MaxValue) != Buckets-1 {
		t.Fatal("index(2^63-1)")
	}
	h := NewHistogram()
	if got := string(h.AppendJSON(nil)); got != `{"count":0,"min":null,"max":null,"p50":null,"p90":null,"p99":null,"p99_9":null,"buckets":[]}` {
		t.Fatalf("empty: %s", got)
	}
	for _, v := range []uint64{300, 300, 5000} {
		h.Record(v)
	}
	if got := string(h.AppendJSON(nil)); got != `{"count":3,"min":300,"max":5000,"p50":300,"p90":4992,"p99":4992,"p99_9":4992,"buckets":[[278,2],[796,1]]}` {
		t.Fatalf("three values: %s", got)
	}
	h.Record(^uint64(0))
	if m, _ := h.Max(); m != MaxValue {
		t.Fatal("saturation")
	}
}

func TestHeaderChecksInOrder(t *testing.T) {
	hdr := func(v, ty uint8, fl uint16, l uint32) []byte {
		b := make([]byte, 16)
		Header{Version: v, Type: ty, Flags: fl, Len: l}.Encode(b)
		return b
	}
	kind := func(b []byte) string {
		_, _, r := PeekHeader(b)
		if r == nil {
			return "ok"
		}
		return r.Kind.String()
	}
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{hdr(2, 9, 1, ^uint32(0)), "unsupported_version"},
		{hdr(1, 0, 1, ^uint32(0)), "unknown_type"},
		{hdr(1, 3, 1, ^uint32(0)), "bad_flags"},
		{hdr(1, 1, 0, MaxPayload+1), "frame_too_large"},
		{hdr(1, 3, 0, MaxPayload), "ok"},
		{hdr(1, 1, 0, 23), "bad_length"},
		{hdr(1, 7, 0, 1), "bad_length"},
		{hdr(1, 7, 0, 515), "bad_length"},
		{hdr(1, 7, 0, 514), "ok"},
	} {
		if got := kind(c.b); got != c.want {
			t.Errorf("%x: %s, want %s", c.b, got, c.want)
		}
	}
}

// A large-payload, large-window session between the state machines.
func TestLargeSessionsInMemory(t *testing.T) {
	for _, w := range []Workload{
		{Warmup: 3, RoundTrips: 5, PayloadBytes: MaxPayload, MaxInFlight: 2},
		{Warmup: 0, RoundTrips: 300, PayloadBytes: 1, MaxInFlight: 65536},
		{Warmup: 10, RoundTrips: 50, PayloadBytes: 17, MaxInFlight: 7},
	} {
		_, _, totals, s := simulate(t, w)
		f := w.FrameSize()
		if totals.FramesSent != w.Total()+2 || totals.BytesSent != w.Total()*f+88 || s.Counts().BytesReceived != w.ExpectedCounts(true).BytesReceived {
			t.Fatalf("%+v: totals %+v", w, totals)
		}
	}
}
