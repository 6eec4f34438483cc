package lane

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Live tests: the client and server programs over real sockets. The test
// binary plays either program when roleEnv names one, so no build is
// needed beyond the test's own.

const roleEnv = "CROSSRUN_GO_LANE_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "server":
		os.Exit(ServerMain(os.Args[1:], os.Stdout, os.Stderr))
	case "client":
		os.Exit(ClientMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// proc is a started program with its output collected.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	ready          *bufio.Reader
}

func start(t *testing.T, role string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(os.Args[0], args...)}
	p.cmd.Env = append(os.Environ(), roleEnv+"="+role)
	p.cmd.Stderr = &p.stderr
	if role == "server" {
		out, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.ready = bufio.NewReader(out)
	} else {
		p.cmd.Stdout = &p.stdout
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// startServer starts the server and reads its READY line.
func startServer(t *testing.T, args ...string) (*proc, int) {
	t.Helper()
	p := start(t, "server", args...)
	line, err := p.ready.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY ") {
		p.cmd.Wait()
		t.Fatalf("no READY line: %q %v; stderr %s", line, err, p.stderr.String())
	}
	port, err := strconv.Atoi(strings.TrimSpace(line[6:]))
	if err != nil || port < 1 || port > 65535 {
		t.Fatalf("bad READY line %q", line)
	}
	return p, port
}

// wait ends p (within a bound) and returns its exit status; a server's
// remaining stdout goes to p.stdout.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	if p.ready != nil {
		io.Copy(&p.stdout, p.ready)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not exit; stderr %s", p.cmd.Args, p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

func clientArgs(addr string, w Workload) []string {
	return []string{"--connect", addr, "--warmup", itoa(w.Warmup), "--round-trips", itoa(w.RoundTrips),
		"--payload-bytes", itoa(uint64(w.PayloadBytes)), "--max-in-flight", itoa(uint64(w.MaxInFlight))}
}

func parseLine(t *testing.T, line string) obj {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var o obj
	if err := dec.Decode(&o); err != nil || dec.More() {
		t.Fatalf("not one JSON object: %q: %v", line, err)
	}
	return o
}

func oneLine(t *testing.T, what, out string) string {
	t.Helper()
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("%s: stdout is not one line: %q", what, out)
	}
	return strings.TrimSuffix(out, "\n")
}

// checkResults checks both result lines against the workload and each
// other, and the client's cost figures.
func checkResults(t *testing.T, w Workload, client, server obj) {
	t.Helper()
	total, f := w.Total(), w.FrameSize()
	bytes := total*f + 88
	for side, o := range map[string]obj{"client": client, "server": server} {
		for k, want := range map[string]uint64{
			"round_trips": w.RoundTrips, "warmup_round_trips": w.Warmup,
			"payload_bytes": uint64(w.PayloadBytes), "max_in_flight": uint64(w.MaxInFlight),
			"frames_sent": total + 2, "frames_received": total + 2,
			"bytes_sent": bytes, "bytes_received": bytes,
		} {
			if got := u64(t, o[k]); got != want {
				t.Errorf("%s %s = %d, want %d", side, k, got, want)
			}
		}
		// Where the CPU time can be read, both figures are there.
		if _, ok := CPUNow(); ok {
			u64(t, o["cpu_user_us"])
			u64(t, o["cpu_system_us"])
		} else if o["cpu_user_us"] != nil {
			t.Errorf("%s reports a CPU time it cannot read", side)
		}
	}
	elapsed := u64(t, client["elapsed_ns"])
	if elapsed < w.RoundTrips*10 {
		t.Errorf("elapsed_ns %d below the floor", elapsed)
	}
	lat := client["latency"].(obj)
	if u64(t, lat["count"]) != w.RoundTrips || u64(t, lat["max"]) > elapsed || u64(t, lat["min"]) > u64(t, lat["max"]) {
		t.Errorf("latency %v", lat)
	}
	var sum uint64
	last := -1
	for _, b := range lat["buckets"].([]any) {
		pair := b.([]any)
		i := int(u64(t, pair[0]))
		if i <= last {
			t.Errorf("buckets out of order")
		}
		last = i
		sum += u64(t, pair[1])
	}
	if sum != w.RoundTrips {
		t.Errorf("buckets add up to %d", sum)
	}
}

// session runs the client against the server and checks both lines.
func session(t *testing.T, host string, w Workload, extraServer, extraClient []string) (obj, obj) {
	t.Helper()
	listen := host + ":0"
	srv, port := startServer(t, append([]string{"--listen", listen}, extraServer...)...)
	addr := net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port))
	cl := start(t, "client", append(clientArgs(addr, w), extraClient...)...)
	if rc := cl.wait(t); rc != 0 {
		t.Fatalf("%+v: client exit %d: %s", w, rc, cl.stderr.String())
	}
	if rc := srv.wait(t); rc != 0 {
		t.Fatalf("%+v: server exit %d: %s", w, rc, srv.stderr.String())
	}
	if cl.stderr.Len()+srv.stderr.Len() > 0 {
		t.Errorf("stderr on success: %q %q", cl.stderr.String(), srv.stderr.String())
	}
	c := parseLine(t, oneLine(t, "client", cl.stdout.String()))
	s := parseLine(t, oneLine(t, "server", srv.stdout.String()))
	checkResults(t, w, c, s)
	return c, s
}

func TestLiveSessions(t *testing.T) {
	for _, w := range []Workload{
		{0, 1, 0, 1},
		{10, 100, 64, 4},
		{1000, 20000, 64, 64},
		{3, 50, 1000, 1},
		// Over 32 KiB of window: the writer goroutine.
		{100, 2000, 1024, 256},
		{0, 70000, 0, 65536},
		{2, 4, MaxPayload, 2},
	} {
		session(t, "127.0.0.1", w, nil, nil)
	}
}

func TestLiveIPv6(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback here")
	}
	ln.Close()
	session(t, "[::1]", Workload{5, 100, 64, 8}, nil, nil)
	session(t, "[::1]", Workload{5, 500, 4096, 64}, nil, nil)
}

// TestFlags: usage errors exit 2 with one stderr line and nothing on
// stdout; flags come in any order and in --flag=value form.
func TestFlags(t *testing.T) {
	good := []string{"--connect", "127.0.0.1:9", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"}
	with := func(extra ...string) []string { return append(append([]string(nil), good...), extra...) }
	bad := map[string][]string{
		"unknown flag":        with("--bogus", "1"),
		"missing value":       append([]string(nil), good[:9]...),
		"repeated":            with("--warmup", "1"),
		"not a number":        {"--connect", "127.0.0.1:9", "--warmup", "x", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"negative":            {"--connect", "127.0.0.1:9", "--warmup", "-1", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"zero round trips":    {"--connect", "127.0.0.1:9", "--warmup", "0", "--round-trips", "0", "--payload-bytes", "0", "--max-in-flight", "1"},
		"payload too large":   {"--connect", "127.0.0.1:9", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "1048577", "--max-in-flight", "1"},
		"window too large":    {"--connect", "127.0.0.1:9", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "65537"},
		"window zero":         {"--connect", "127.0.0.1:9", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "0"},
		"W+N at 2^62":         {"--connect", "127.0.0.1:9", "--warmup", "4611686018427387903", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"huge number":         {"--connect", "127.0.0.1:9", "--warmup", "99999999999999999999999", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"bare IPv6":           {"--connect", "::1:9", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"a name":              {"--connect", "localhost:9", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"no port":             {"--connect", "127.0.0.1", "--warmup", "0", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1"},
		"bad transport":       with("--transport", "quic"),
		"tls without --ca":    with("--transport", "tls"),
		"--ca over tcp":       with("--ca", "ca.pem"),
		"--ca, tcp named":     with("--transport", "tcp", "--ca", "ca.pem"),
		"a server flag":       with("--cert", "c.pem"),
		"positional":          with("extra"),
		"server: none":        nil,
		"server: bare IPv6":   {"--listen", "::1:0"},
		"server: bracketed4":  {"--listen", "[127.0.0.1]:0"},
		"server: port":        {"--listen", "127.0.0.1:65536"},
		"server: tls alone":   {"--listen", "127.0.0.1:0", "--transport", "tls", "--cert", "c.pem"},
		"server: key on tcp":  {"--listen", "127.0.0.1:0", "--key", "k.pem"},
		"server: client flag": {"--listen", "127.0.0.1:0", "--warmup", "1"},
	}
	for name, args := range bad {
		role := "client"
		if strings.HasPrefix(name, "server") {
			role = "server"
		}
		p := start(t, role, args...)
		rc := p.wait(t)
		if rc != ExitUsage || p.stdout.Len() != 0 || strings.Count(p.stderr.String(), "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, rc, p.stdout.String(), p.stderr.String())
		}
	}
	for _, args := range [][]string{
		{"--max-in-flight=4", "--payload-bytes", "8", "--connect", "127.0.0.1:1", "--round-trips=2", "--warmup", "0"},
		{"--warmup", "0", "--transport", "tcp", "--round-trips", "1", "--payload-bytes", "0", "--max-in-flight", "1", "--connect", "127.0.0.1:1"},
	} {
		// Port 1 refuses: a good command line fails to connect (exit 1).
		p := start(t, "client", args...)
		if rc := p.wait(t); rc != ExitFailure || !strings.Contains(p.stderr.String(), "cannot connect") {
			t.Errorf("%v: exit %d, stderr %q", args, rc, p.stderr.String())
		}
	}
}

// rawServer is the test playing a server to the client program.
func rawServer(t *testing.T) (net.Listener, string) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, ln.Addr().String()
}

// frameReader reads whole frames off a connection.
type frameReader struct {
	c   net.Conn
	buf []byte
}

func (r *frameReader) next(t *testing.T) ([]byte, error) {
	t.Helper()
	for {
		if len(r.buf) >= HeaderBytes {
			size := DecodeHeader(r.buf).FrameBytes()
			if len(r.buf) >= size {
				f := append([]byte(nil), r.buf[:size]...)
				r.buf = r.buf[size:]
				return f, nil
			}
		}
		chunk := make([]byte, 1<<16)
		r.c.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := r.c.Read(chunk)
		r.buf = append(r.buf, chunk[:n]...)
		if err != nil {
			return nil, err
		}
	}
}

func splitFrames(b []byte) [][]byte {
	var out [][]byte
	for len(b) >= HeaderBytes {
		size := DecodeHeader(b).FrameBytes()
		out = append(out, b[:size])
		b = b[size:]
	}
	return out
}

// TestVectorSessionsLive plays each session of sessions.json against both
// programs: client_bytes to the server, server_bytes to the client (each
// answer once the frame it answers has arrived).
func TestVectorSessionsLive(t *testing.T) {
	for _, c := range cases(t, "sessions.json") {
		name := c["name"].(string)
		w := workloadOf(t, c["workload"])
		cb, sb := unhex(t, c["client_bytes"]), unhex(t, c["server_bytes"])

		srv, port := startServer(t, "--listen", "127.0.0.1:0")
		conn, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pieces(cb, 7) {
			if _, err := conn.Write(p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		got := make([]byte, len(sb))
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(conn, got); err != nil || !bytes.Equal(got, sb) {
			t.Fatalf("%s: the server sent %x (%v), want %x", name, got, err, sb)
		}
		conn.Close()
		if rc := srv.wait(t); rc != 0 {
			t.Fatalf("%s: server exit %d: %s", name, rc, srv.stderr.String())
		}
		s := parseLine(t, oneLine(t, name, srv.stdout.String()))
		if u64(t, s["bytes_received"]) != uint64(len(cb)) || u64(t, s["bytes_sent"]) != uint64(len(sb)) {
			t.Fatalf("%s: server line %v", name, s)
		}

		ln, addr := rawServer(t)
		cl := start(t, "client", clientArgs(addr, w)...)
		sc, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		answerClient(t, name, sc, cb, sb)
		sc.Close()
		if rc := cl.wait(t); rc != 0 {
			t.Fatalf("%s: client exit %d: %s", name, rc, cl.stderr.String())
		}
		line := parseLine(t, oneLine(t, name, cl.stdout.String()))
		res := c["result"].(obj)
		for _, k := range []string{"frames_sent", "frames_received", "bytes_sent", "bytes_received"} {
			if u64(t, line[k]) != u64(t, res[k]) {
				t.Fatalf("%s: client %s %v, want %v", name, k, line[k], res[k])
			}
		}
	}
}

// answerClient plays a session's server side to the client program: each
// frame of sb once the client frame it answers (of cb) has arrived, then
// the client's clean end.
func answerClient(t *testing.T, name string, sc net.Conn, cb, sb []byte) {
	t.Helper()
	answers, expect := splitFrames(sb), splitFrames(cb)
	fr := &frameReader{c: sc}
	for i, want := range expect {
		f, err := fr.next(t)
		if err != nil || !bytes.Equal(f, want) {
			t.Fatalf("%s: client frame %d %x (%v), want %x", name, i, f, err, want)
		}
		if _, err := sc.Write(answers[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fr.next(t); err != io.EOF {
		t.Fatalf("%s: after BYE_ACK the client sent more or no clean end: %v", name, err)
	}
}

// expectRejected checks a program's end after a rejection: exit 1,
// nothing on stdout, one stderr line naming the rejection.
func expectRejected(t *testing.T, what string, p *proc, name string) {
	t.Helper()
	rc := p.wait(t)
	errText := p.stderr.String()
	if rc != ExitFailure || p.stdout.Len() != 0 || strings.Count(errText, "\n") != 1 ||
		!strings.Contains(errText, ": "+name+": ") {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want %s", what, rc, p.stdout.String(), errText, name)
	}
}

// serverPrefix is what brings a server to a state of invalid.json, and
// how many answer bytes it sends for it.
func serverPrefix(t *testing.T, state string, w Workload, seq uint64) ([]byte, int) {
	switch state {
	case "any", "server_expecting_hello":
		return nil, 0
	}
	p := w.Encode()
	in := AppendFrame(nil, Hello, 0, p[:])
	if state == "server_expecting_request" {
		in = AppendRequests(in, 1, seq-1, w.PayloadBytes)
		return in, len(in)
	}
	in = AppendRequests(in, 1, w.Total(), w.PayloadBytes)
	k := w.ExpectedCounts(false).Encode()
	in = AppendFrame(in, Bye, w.Total()+1, k[:])
	return in, len(in)
}

func replayServerLive(t *testing.T, c obj) {
	name, state := c["name"].(string), c["state"].(string)
	want := c["rejection"].(string)
	var w Workload
	var seq uint64
	if v, ok := c["workload"]; ok {
		w = workloadOf(t, v)
	}
	if v, ok := c["sequence"]; ok {
		seq = u64(t, v)
	}
	prefix, answers := serverPrefix(t, state, w, seq)
	srv, port := startServer(t, "--listen", "127.0.0.1:0")
	conn, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if len(prefix) > 0 {
		conn.Write(prefix)
		if _, err := io.ReadFull(conn, make([]byte, answers)); err != nil {
			t.Fatalf("%s: the answers to the prefix: %v", name, err)
		}
	}
	conn.Write(unhex(t, c["input"]))
	if c["eof"].(bool) {
		conn.(*net.TCPConn).CloseWrite()
	}
	rest, _ := io.ReadAll(conn)
	conn.Close()
	expectRejected(t, name, srv, want)
	if want != "peer_error" {
		frames := splitFrames(rest)
		kind, _ := RejectNamed(want)
		if len(frames) == 0 || frames[len(frames)-1][1] != Error {
			t.Errorf("%s: no ERROR frame in %x", name, rest)
		} else if code, _ := DecodeError(frames[len(frames)-1][HeaderBytes:]); code != kind.Code() {
			t.Errorf("%s: ERROR code %d, want %d", name, code, kind.Code())
		}
	}
}

func replayClientLive(t *testing.T, c obj) {
	name, state := c["name"].(string), c["state"].(string)
	want := c["rejection"].(string)
	w := workloadOf(t, c["workload"])
	var seq uint64
	if v, ok := c["sequence"]; ok {
		seq = u64(t, v)
	}
	ln, addr := rawServer(t)
	cl := start(t, "client", clientArgs(addr, w)...)
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	fr := &frameReader{c: sc}
	if _, err := fr.next(t); err != nil {
		t.Fatalf("%s: no HELLO: %v", name, err)
	}
	if state != "client_expecting_hello_ack" {
		p := w.Encode()
		sc.Write(AppendFrame(nil, HelloAck, 0, p[:]))
		if state == "client_expecting_bye_ack" {
			seq = w.Total() + 1
		}
		// The requests the state says were sent: min(seq-1+M, L).
		limit := w.Total()
		if seq <= w.Warmup {
			limit = w.Warmup
		}
		sentTo := min(seq-1+uint64(w.MaxInFlight), limit)
		var got uint64
		for s := uint64(1); s < seq || got < sentTo; {
			for got < sentTo && (got < s || s >= seq) {
				f, err := fr.next(t)
				if err != nil || f[1] != Request {
					t.Fatalf("%s: request %d: %v", name, got+1, err)
				}
				got++
			}
			if s < seq {
				sc.Write(responseFrame(s, w.PayloadBytes))
				s++
			}
			if s >= seq && got >= sentTo {
				break
			}
		}
		if state == "client_expecting_bye_ack" {
			if f, err := fr.next(t); err != nil || f[1] != Bye {
				t.Fatalf("%s: no BYE: %v", name, err)
			}
		}
	}
	sc.Write(unhex(t, c["input"]))
	if c["eof"].(bool) {
		sc.(*net.TCPConn).CloseWrite()
	}
	io.ReadAll(sc)
	sc.Close()
	expectRejected(t, name, cl, want)
}

// TestInvalidLive replays invalid.json over sockets against the programs:
// the session states, and the header checks of the `any` cases at a
// server expecting HELLO.
func TestInvalidLive(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	n := 0
	for _, c := range cases(t, "invalid.json") {
		state := c["state"].(string)
		switch {
		case state == "any" && c["rejection"] == "truncated":
			continue
		case state == "any" || strings.HasPrefix(state, "server_"):
			replayServerLive(t, c)
		default:
			replayClientLive(t, c)
		}
		n++
	}
	if n < 100 {
		t.Errorf("only %d cases replayed", n)
	}
	fmt.Fprintf(io.Discard, "%d", n)
}
