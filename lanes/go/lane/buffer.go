package lane

import (
	"errors"
	"io"
)

// RecvBuf is a receive buffer of fixed size: reads land at its end, whole
// frames are consumed from its start, and the unparsed tail moves to the
// front only when it is short or the free room runs low. Its size bounds
// memory whatever the peer sends.
type RecvBuf struct {
	buf        []byte
	start, end int
}

// RecvCapacity is large enough that one read delivers many frames, and at
// least twice the largest frame so a partial frame always fits after a
// move.
const RecvCapacity = 2 * MaxFrameBytes

const shortTail = 4096

var errBufferFull = errors.New("receive buffer full")

func NewRecvBuf(capacity int) *RecvBuf { return &RecvBuf{buf: make([]byte, capacity)} }

func (r *RecvBuf) Pending() []byte { return r.buf[r.start:r.end] }
func (r *RecvBuf) PendingLen() int { return r.end - r.start }

func (r *RecvBuf) Consume(n int) {
	r.start += n
	if r.start == r.end {
		r.start, r.end = 0, 0
	}
}

func (r *RecvBuf) makeRoom() {
	free := len(r.buf) - r.end
	tail := r.end - r.start
	if r.start > 0 && (tail <= shortTail || free < len(r.buf)/4) {
		copy(r.buf, r.buf[r.start:r.end])
		r.end = tail
		r.start = 0
	}
}

// ReadFrom makes one read into the free room; 0 with io.EOF at the end of
// stream.
func (r *RecvBuf) ReadOnce(src io.Reader) (int, error) {
	r.makeRoom()
	if r.end == len(r.buf) {
		return 0, errBufferFull
	}
	n, err := src.Read(r.buf[r.end:])
	r.end += n
	return n, err
}

// Push appends bytes directly (in-memory drivers and tests).
func (r *RecvBuf) Push(data []byte) int {
	r.makeRoom()
	n := copy(r.buf[r.end:], data)
	r.end += n
	return n
}
