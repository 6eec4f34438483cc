// Package lane is the go runtime of crossrun: the protocol of
// protocol/SPEC.md (frames, session state machines, payloads, the latency
// histogram) and the client and server programs of lanes/README.md.
package lane

import (
	"encoding/binary"
	"unicode/utf8"
)

const (
	Version         = 1
	HeaderBytes     = 16
	MaxPayload      = 1048576
	MaxFrameBytes   = HeaderBytes + MaxPayload
	MaxInFlight     = 65536
	WorkloadBytes   = 24
	CountsBytes     = 32
	MaxReasonBytes  = 512
	MinErrorPayload = 2
	MaxErrorPayload = 2 + MaxReasonBytes
	// W + N must be below this.
	MaxTotalRoundTrips = uint64(1) << 62
)

// Frame types (SPEC.md section 2).
const (
	Hello    = 1
	HelloAck = 2
	Request  = 3
	Response = 4
	Bye      = 5
	ByeAck   = 6
	Error    = 7
)

// TypeName is the spec's name of a frame type.
func TypeName(t uint8) string {
	switch t {
	case Hello:
		return "HELLO"
	case HelloAck:
		return "HELLO_ACK"
	case Request:
		return "REQUEST"
	case Response:
		return "RESPONSE"
	case Bye:
		return "BYE"
	case ByeAck:
		return "BYE_ACK"
	case Error:
		return "ERROR"
	}
	return "unknown"
}

// Header is a decoded frame header.
type Header struct {
	Version uint8
	Type    uint8
	Flags   uint16
	Len     uint32
	Seq     uint64
}

// DecodeHeader reads the first 16 bytes of b, which must hold them.
func DecodeHeader(b []byte) Header {
	_ = b[15]
	return Header{
		Version: b[0],
		Type:    b[1],
		Flags:   binary.BigEndian.Uint16(b[2:4]),
		Len:     binary.BigEndian.Uint32(b[4:8]),
		Seq:     binary.BigEndian.Uint64(b[8:16]),
	}
}

// Encode writes the 16 header bytes into the start of out.
func (h Header) Encode(out []byte) {
	_ = out[15]
	out[0] = h.Version
	out[1] = h.Type
	binary.BigEndian.PutUint16(out[2:4], h.Flags)
	binary.BigEndian.PutUint32(out[4:8], h.Len)
	binary.BigEndian.PutUint64(out[8:16], h.Seq)
}

// FrameBytes is the whole frame's size, header included.
func (h Header) FrameBytes() int { return HeaderBytes + int(h.Len) }

func fixedLength(t uint8) (uint32, bool) {
	switch t {
	case Hello, HelloAck:
		return WorkloadBytes, true
	case Bye, ByeAck:
		return CountsBytes, true
	}
	return 0, false
}

// Check makes the checks of SPEC.md section 1 that are due as soon as the
// header arrived, in the spec's order: version, type, flags, size, the
// fixed lengths and the ERROR frame's 2..514 bytes.
func (h Header) Check() *Rejection {
	if h.Version != Version {
		return reject(UnsupportedVersion, "frame version %d, expected %d", h.Version, Version)
	}
	if h.Type < Hello || h.Type > Error {
		return reject(UnknownType, "frame type %d", h.Type)
	}
	if h.Flags != 0 {
		return reject(BadFlags, "flags 0x%04x in a %s frame", h.Flags, TypeName(h.Type))
	}
	if h.Len > MaxPayload {
		return reject(FrameTooLarge, "payload_length %d in a %s frame, maximum %d",
			h.Len, TypeName(h.Type), MaxPayload)
	}
	if fixed, ok := fixedLength(h.Type); ok && h.Len != fixed {
		return reject(BadLength, "payload_length %d in a %s frame, must be %d",
			h.Len, TypeName(h.Type), fixed)
	}
	if h.Type == Error && (h.Len < MinErrorPayload || h.Len > MaxErrorPayload) {
		return reject(BadLength, "payload_length %d in an ERROR frame, must be %d..%d",
			h.Len, MinErrorPayload, MaxErrorPayload)
	}
	return nil
}

// PeekHeader looks at the start of buf: ok false when fewer than 16 bytes
// are there, a rejection as soon as the header breaks a rule, else the
// header (whether or not its payload has arrived).
func PeekHeader(buf []byte) (h Header, ok bool, r *Rejection) {
	if len(buf) < HeaderBytes {
		return Header{}, false, nil
	}
	h = DecodeHeader(buf)
	if r = h.Check(); r != nil {
		return h, false, r
	}
	return h, true, nil
}

// EOFCheck says what the end of stream means with pending unparsed bytes:
// nil between frames (whether that end is allowed is the session's call),
// else truncated.
func EOFCheck(pending int) *Rejection {
	if pending == 0 {
		return nil
	}
	return reject(Truncated, "end of stream %d bytes into a frame", pending)
}

// AppendFrame appends one whole frame.
func AppendFrame(out []byte, t uint8, seq uint64, payload []byte) []byte {
	var h [HeaderBytes]byte
	Header{Version: Version, Type: t, Len: uint32(len(payload)), Seq: seq}.Encode(h[:])
	out = append(out, h[:]...)
	return append(out, payload...)
}

// Workload is the HELLO and HELLO_ACK payload.
type Workload struct {
	Warmup       uint64
	RoundTrips   uint64
	PayloadBytes uint32
	MaxInFlight  uint32
}

func (w Workload) Encode() [WorkloadBytes]byte {
	var b [WorkloadBytes]byte
	binary.BigEndian.PutUint64(b[0:8], w.Warmup)
	binary.BigEndian.PutUint64(b[8:16], w.RoundTrips)
	binary.BigEndian.PutUint32(b[16:20], w.PayloadBytes)
	binary.BigEndian.PutUint32(b[20:24], w.MaxInFlight)
	return b
}

// DecodeWorkload reads the first 24 bytes of b.
func DecodeWorkload(b []byte) Workload {
	return Workload{
		Warmup:       binary.BigEndian.Uint64(b[0:8]),
		RoundTrips:   binary.BigEndian.Uint64(b[8:16]),
		PayloadBytes: binary.BigEndian.Uint32(b[16:20]),
		MaxInFlight:  binary.BigEndian.Uint32(b[20:24]),
	}
}

// Check applies the workload rules of SPEC.md section 2.
func (w Workload) Check() *Rejection {
	if w.RoundTrips < 1 {
		return reject(BadWorkload, "round_trips 0, must be 1 or more")
	}
	if w.PayloadBytes > MaxPayload {
		return reject(BadWorkload, "payload_bytes %d, maximum %d", w.PayloadBytes, MaxPayload)
	}
	if w.MaxInFlight < 1 || w.MaxInFlight > MaxInFlight {
		return reject(BadWorkload, "max_in_flight %d, must be 1..%d", w.MaxInFlight, MaxInFlight)
	}
	if t := w.Warmup + w.RoundTrips; t < w.Warmup || t >= MaxTotalRoundTrips {
		return reject(BadWorkload, "warmup %d + round_trips %d is not below 2^62", w.Warmup, w.RoundTrips)
	}
	return nil
}

// Total is W + N (valid workloads only).
func (w Workload) Total() uint64 { return w.Warmup + w.RoundTrips }

// FrameSize is F = 16 + P, one REQUEST or RESPONSE frame.
func (w Workload) FrameSize() uint64 { return HeaderBytes + uint64(w.PayloadBytes) }

// ExpectedCounts are the counts a BYE (ack false) or BYE_ACK (ack true)
// carries for this workload, modulo 2^64.
func (w Workload) ExpectedCounts(ack bool) Counts {
	t := w.Total()
	base := t*w.FrameSize() + 40
	c := Counts{Requests: t, Responses: t, BytesSent: base, BytesReceived: base}
	if ack {
		c.BytesReceived += 48
	}
	return c
}

// Counts is the BYE and BYE_ACK payload.
type Counts struct {
	Requests      uint64
	Responses     uint64
	BytesSent     uint64
	BytesReceived uint64
}

func (c Counts) Encode() [CountsBytes]byte {
	var b [CountsBytes]byte
	binary.BigEndian.PutUint64(b[0:8], c.Requests)
	binary.BigEndian.PutUint64(b[8:16], c.Responses)
	binary.BigEndian.PutUint64(b[16:24], c.BytesSent)
	binary.BigEndian.PutUint64(b[24:32], c.BytesReceived)
	return b
}

// DecodeCounts reads the first 32 bytes of b.
func DecodeCounts(b []byte) Counts {
	return Counts{
		Requests:      binary.BigEndian.Uint64(b[0:8]),
		Responses:     binary.BigEndian.Uint64(b[8:16]),
		BytesSent:     binary.BigEndian.Uint64(b[16:24]),
		BytesReceived: binary.BigEndian.Uint64(b[24:32]),
	}
}

// Totals are a client's whole-session figures, HELLO and BYE included.
type Totals struct {
	FramesSent     uint64
	FramesReceived uint64
	BytesSent      uint64
	BytesReceived  uint64
}

// AppendError appends an ERROR frame; the reason is cut to 512 bytes at a
// character boundary.
func AppendError(out []byte, code uint16, reason string) []byte {
	if len(reason) > MaxReasonBytes {
		end := MaxReasonBytes
		for end > 0 && !utf8.RuneStart(reason[end]) {
			end--
		}
		reason = reason[:end]
	}
	p := make([]byte, 2, 2+len(reason))
	binary.BigEndian.PutUint16(p, code)
	p = append(p, reason...)
	return AppendFrame(out, Error, 0, p)
}

// DecodeError splits an ERROR payload into its code and reason.
func DecodeError(p []byte) (uint16, string) {
	if len(p) < 2 {
		return 0, ""
	}
	return binary.BigEndian.Uint16(p), string(p[2:])
}

func peerError(p []byte) *Rejection {
	code, reason := DecodeError(p)
	return reject(PeerError, "received ERROR code %d (%s): %s", code, CodeName(code), OneLine(reason, 600))
}

// peerErrorPartial is peer_error for an ERROR frame h of which avail
// (header included) arrived so far: decided from the header, with the code
// and reason when they are there.
func peerErrorPartial(h Header, avail []byte) *Rejection {
	size := h.FrameBytes()
	if len(avail) >= size {
		return peerError(avail[HeaderBytes:size])
	}
	if len(avail) < HeaderBytes+2 {
		return reject(PeerError, "received an ERROR frame header (%d payload bytes announced), its code not yet", h.Len)
	}
	r := peerError(avail[HeaderBytes:])
	r.Detail += " (reason cut: " + itoa(uint64(len(avail))) + " of " + itoa(uint64(size)) + " frame bytes arrived)"
	return r
}
