package lane

import "encoding/binary"

// The payload generator of SPEC.md section 4: gen(s, P) is the first P
// bytes of the splitmix64 stream seeded with s, each block little-endian;
// respond XORs every byte with 0x5A. Everything works on whole 8-byte
// blocks, the last one cut to fit.
const (
	gamma  = 0x9E3779B97F4A7C15
	mask   = 0x5A
	mask64 = 0x5A5A5A5A5A5A5A5A
)

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func fillWith(out []byte, seq, m uint64) {
	state := seq
	for len(out) >= 8 {
		state += gamma
		binary.LittleEndian.PutUint64(out, mix(state)^m)
		out = out[8:]
	}
	if len(out) > 0 {
		state += gamma
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], mix(state)^m)
		copy(out, b[:])
	}
}

func checkWith(p []byte, seq, m uint64) bool {
	state := seq
	var diff uint64
	for len(p) >= 8 {
		state += gamma
		diff |= binary.LittleEndian.Uint64(p) ^ mix(state) ^ m
		p = p[8:]
	}
	if len(p) > 0 {
		state += gamma
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], mix(state)^m)
		for i := range p {
			diff |= uint64(p[i] ^ b[i])
		}
	}
	return diff == 0
}

// FillPayload writes gen(seq, len(out)) into out.
func FillPayload(out []byte, seq uint64) { fillWith(out, seq, 0) }

// FillResponse writes respond(gen(seq, len(out))) into out.
func FillResponse(out []byte, seq uint64) { fillWith(out, seq, mask64) }

// CheckPayload says whether p is exactly gen(seq, len(p)).
func CheckPayload(p []byte, seq uint64) bool { return checkWith(p, seq, 0) }

// CheckResponse says whether p is exactly respond(gen(seq, len(p))).
func CheckResponse(p []byte, seq uint64) bool { return checkWith(p, seq, mask64) }

// Respond writes respond(in) into out (of the same length).
func Respond(out, in []byte) {
	for i, b := range in {
		out[i] = b ^ mask
	}
}

// CheckAndRespond checks a request payload in place and turns it into its
// response: it returns whether p was gen(seq, len(p)); afterwards p holds
// respond(gen(seq, len(p))) either way.
func CheckAndRespond(p []byte, seq uint64) bool {
	state := seq
	var diff uint64
	for len(p) >= 8 {
		state += gamma
		z := mix(state)
		diff |= binary.LittleEndian.Uint64(p) ^ z
		binary.LittleEndian.PutUint64(p, z^mask64)
		p = p[8:]
	}
	if len(p) > 0 {
		state += gamma
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], mix(state))
		for i := range p {
			diff |= uint64(p[i] ^ b[i])
			p[i] = b[i] ^ mask
		}
	}
	return diff == 0
}
