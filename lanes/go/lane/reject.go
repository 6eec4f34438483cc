package lane

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Reject is one rejection name of SPEC.md section 6.
type Reject int

const (
	UnsupportedVersion Reject = iota
	UnknownType
	BadFlags
	FrameTooLarge
	BadLength
	Truncated
	UnexpectedEOF
	UnexpectedType
	WrongSequence
	WrongPayload
	BadWorkload
	CountMismatch
	PeerError
	numRejects
)

var rejectNames = [numRejects]string{
	"unsupported_version", "unknown_type", "bad_flags", "frame_too_large",
	"bad_length", "truncated", "unexpected_eof", "unexpected_type",
	"wrong_sequence", "wrong_payload", "bad_workload", "count_mismatch",
	"peer_error",
}

// AllRejects lists every name, for tests that check coverage.
func AllRejects() []Reject {
	out := make([]Reject, numRejects)
	for i := range out {
		out[i] = Reject(i)
	}
	return out
}

func (r Reject) String() string {
	if r < 0 || r >= numRejects {
		return "unknown"
	}
	return rejectNames[r]
}

// RejectNamed is the inverse of String; ok is false for an unknown name.
func RejectNamed(name string) (Reject, bool) {
	for i, n := range rejectNames {
		if n == name {
			return Reject(i), true
		}
	}
	return 0, false
}

// ERROR frame codes (SPEC.md section 2).
const (
	CodeUnsupportedVersion uint16 = 1
	CodeBadWorkload        uint16 = 2
	CodeProtocolViolation  uint16 = 3
	CodeCountMismatch      uint16 = 4
)

// Code is the ERROR code that reports r.
func (r Reject) Code() uint16 {
	switch r {
	case UnsupportedVersion:
		return CodeUnsupportedVersion
	case BadWorkload:
		return CodeBadWorkload
	case CountMismatch:
		return CodeCountMismatch
	}
	return CodeProtocolViolation
}

// CodeName names an ERROR code, for messages.
func CodeName(code uint16) string {
	switch code {
	case CodeUnsupportedVersion:
		return "unsupported_version"
	case CodeBadWorkload:
		return "bad_workload"
	case CodeProtocolViolation:
		return "protocol_violation"
	case CodeCountMismatch:
		return "count_mismatch"
	}
	return "unknown_code"
}

// Rejection is a rejection with what was seen; it is the error every
// session function returns.
type Rejection struct {
	Kind   Reject
	Detail string
}

func (r *Rejection) Error() string { return r.Kind.String() + ": " + r.Detail }

func reject(kind Reject, format string, args ...any) *Rejection {
	return &Rejection{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// OneLine makes text safe for one stderr line: control characters become
// escapes, invalid UTF-8 becomes U+FFFD, and it is cut at max runes.
func OneLine(text string, max int) string {
	var b strings.Builder
	n := 0
	for len(text) > 0 {
		c, size := utf8.DecodeRuneInString(text)
		text = text[size:]
		if n >= max {
			b.WriteString("...")
			break
		}
		n++
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
