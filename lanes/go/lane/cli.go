package lane

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Command lines of the peer contract (lanes/README.md): `--flag value` or
// `--flag=value` in any order, each once; an unknown, missing or repeated
// flag, a flag without its value, or a bad number is a usage error (exit
// status 2).

const (
	ExitUsage   = 2
	ExitFailure = 1
	// ExitUnsupported: a requested option this runtime does not support.
	ExitUnsupported = 127
)

// UsageError is a bad command line.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usage(format string, args ...any) *UsageError {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// flags splits args into flag values; required must all be there, optional
// may be.
func flags(args []string, required, optional []string) (map[string]string, *UsageError) {
	known := func(f string) bool {
		for _, k := range required {
			if k == f {
				return true
			}
		}
		for _, k := range optional {
			if k == f {
				return true
			}
		}
		return false
	}
	out := map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		flag, value, hasValue := arg, "", false
		if strings.HasPrefix(arg, "--") {
			if eq := strings.IndexByte(arg, '='); eq >= 0 {
				flag, value, hasValue = arg[:eq], arg[eq+1:], true
			}
		}
		if !strings.HasPrefix(flag, "--") || !known(flag) {
			return nil, usage("unknown flag %q", arg)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, usage("flag %s needs a value", flag)
			}
			i++
			value = args[i]
		}
		if _, dup := out[flag]; dup {
			return nil, usage("flag %s given twice", flag)
		}
		out[flag] = value
	}
	for _, f := range required {
		if _, ok := out[f]; !ok {
			return nil, usage("missing flag %s", f)
		}
	}
	return out, nil
}

// parseNumber takes a plain decimal: digits only, within max.
func parseNumber(flag, text string, lo, hi uint64) (uint64, *UsageError) {
	if text == "" || strings.TrimLeft(text, "0123456789") != "" {
		return 0, usage("bad number %q for %s", text, flag)
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, usage("bad number %q for %s: must be %d..%d", text, flag, lo, hi)
	}
	return v, nil
}

// Addr is a numeric loopback-style address as given.
type Addr struct {
	IP   net.IP
	Port int
	Text string
}

// Network is "tcp4" or "tcp6": the server binds that family only.
func (a Addr) Network() string {
	if a.IP.To4() != nil {
		return "tcp4"
	}
	return "tcp6"
}

func (a Addr) HostPort() string { return net.JoinHostPort(a.IP.String(), strconv.Itoa(a.Port)) }

// parseAddr takes IPV4:PORT or [IPV6]:PORT; an IPv6 address without its
// brackets (::1:0) is refused, since its port cannot be told from it.
// Names are never given (lanes/README.md), so none is resolved.
func parseAddr(flag, text string, minPort int) (Addr, *UsageError) {
	colon := strings.LastIndexByte(text, ':')
	if colon < 0 {
		return Addr{}, usage("bad address %q for %s: expected HOST:PORT or [IPv6]:PORT", text, flag)
	}
	host, port := text[:colon], text[colon+1:]
	bracketed := strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]")
	if bracketed {
		host = host[1 : len(host)-1]
	} else if strings.ContainsAny(host, ":[]") {
		return Addr{}, usage("bad address %q for %s: an IPv6 address goes in brackets, [::1]:PORT", text, flag)
	}
	ip := net.ParseIP(host)
	if ip == nil || strings.Contains(host, "%") {
		return Addr{}, usage("bad address %q for %s: not a numeric IP address", text, flag)
	}
	if bracketed == (ip.To4() != nil) || (!bracketed && strings.Contains(host, ":")) {
		return Addr{}, usage("bad address %q for %s: IPv6 addresses, and only they, go in brackets", text, flag)
	}
	p, err := parseNumber(flag+" port", port, uint64(minPort), 65535)
	if err != nil {
		return Addr{}, err
	}
	return Addr{IP: ip, Port: int(p), Text: text}, nil
}

// TLSFiles are the transport flags: nil files over tcp.
type TLSFiles struct {
	TLS       bool
	Cert, Key string
	CA        string
}

func parseTransport(v map[string]string, files []string) (TLSFiles, *UsageError) {
	var t TLSFiles
	switch tr, given := v["--transport"]; {
	case !given || tr == "tcp":
		for _, f := range files {
			if _, ok := v[f]; ok {
				return t, usage("%s is for --transport tls only", f)
			}
		}
		return t, nil
	case tr == "tls":
		for _, f := range files {
			if v[f] == "" {
				return t, usage("--transport tls needs %s FILE", f)
			}
		}
		t.TLS = true
		t.Cert, t.Key, t.CA = v["--cert"], v["--key"], v["--ca"]
		return t, nil
	default:
		return t, usage("bad --transport %q: tcp or tls", tr)
	}
}

// ServerArgs is `--listen ADDR [--transport tcp|tls --cert F --key F]`.
type ServerArgs struct {
	Listen    Addr
	Transport TLSFiles
}

func ParseServer(args []string) (ServerArgs, *UsageError) {
	v, err := flags(args, []string{"--listen"}, []string{"--transport", "--cert", "--key"})
	if err != nil {
		return ServerArgs{}, err
	}
	a, err := parseAddr("--listen", v["--listen"], 0)
	if err != nil {
		return ServerArgs{}, err
	}
	t, err := parseTransport(v, []string{"--cert", "--key"})
	if err != nil {
		return ServerArgs{}, err
	}
	return ServerArgs{Listen: a, Transport: t}, nil
}

// ClientArgs is `--connect ADDR --warmup N --round-trips N --payload-bytes
// N --max-in-flight N [--transport tcp|tls --ca F]`.
type ClientArgs struct {
	Connect   Addr
	Workload  Workload
	Transport TLSFiles
}

func ParseClient(args []string) (ClientArgs, *UsageError) {
	v, err := flags(args,
		[]string{"--connect", "--warmup", "--round-trips", "--payload-bytes", "--max-in-flight"},
		[]string{"--transport", "--ca"})
	if err != nil {
		return ClientArgs{}, err
	}
	var a ClientArgs
	if a.Connect, err = parseAddr("--connect", v["--connect"], 1); err != nil {
		return a, err
	}
	w, err := parseNumber("--warmup", v["--warmup"], 0, MaxTotalRoundTrips-2)
	if err != nil {
		return a, err
	}
	n, err := parseNumber("--round-trips", v["--round-trips"], 1, MaxTotalRoundTrips-1)
	if err != nil {
		return a, err
	}
	p, err := parseNumber("--payload-bytes", v["--payload-bytes"], 0, MaxPayload)
	if err != nil {
		return a, err
	}
	m, err := parseNumber("--max-in-flight", v["--max-in-flight"], 1, MaxInFlight)
	if err != nil {
		return a, err
	}
	a.Workload = Workload{Warmup: w, RoundTrips: n, PayloadBytes: uint32(p), MaxInFlight: uint32(m)}
	if r := a.Workload.Check(); r != nil {
		return a, usage("bad workload: %s", r.Detail)
	}
	if a.Transport, err = parseTransport(v, []string{"--ca"}); err != nil {
		return a, err
	}
	return a, nil
}
