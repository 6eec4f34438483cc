package lane

import (
	"math/bits"
	"strconv"
)

// The latency histogram of SPEC.md section 7: log-linear, 128 sub-buckets
// per power of two, in nanoseconds. Recording is an index computation and
// an increment into buckets allocated once; percentiles are computed from
// the buckets in integers, as every lane does, so a reader can recompute
// them.
const (
	SubBuckets = 128
	// Buckets is index(2^63 - 1) + 1.
	Buckets = 7296
	// MaxValue is the largest value covered; larger ones count as it.
	MaxValue = uint64(1)<<63 - 1
)

// The result line's percentiles, in thousandths of a percent.
const (
	P50  = 50000
	P90  = 90000
	P99  = 99000
	P999 = 99900
)

// BucketIndex is index(v) for v at most MaxValue.
func BucketIndex(v uint64) int {
	if v < 256 {
		return int(v)
	}
	e := uint64(63 - bits.LeadingZeros64(v))
	return int(SubBuckets*(e-6) + (v >> (e - 7)) - SubBuckets)
}

// BucketLower is the smallest value of bucket i.
func BucketLower(i int) uint64 {
	if i < 256 {
		return uint64(i)
	}
	return (SubBuckets + uint64(i)%SubBuckets) << (uint64(i)/SubBuckets - 1)
}

// BucketWidth is how many values bucket i holds.
func BucketWidth(i int) uint64 {
	if i < 256 {
		return 1
	}
	return 1 << (uint64(i)/SubBuckets - 1)
}

// Histogram counts latencies.
type Histogram struct {
	buckets []uint64
	count   uint64
	min     uint64
	max     uint64
}

func NewHistogram() *Histogram {
	return &Histogram{buckets: make([]uint64, Buckets), min: ^uint64(0)}
}

// Record counts one value.
func (h *Histogram) Record(v uint64) {
	if v > MaxValue {
		v = MaxValue
	}
	h.buckets[BucketIndex(v)]++
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.count++
}

// Merge adds o's counts bucket by bucket.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.buckets {
		h.buckets[i] += c
	}
	h.count += o.count
	if o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
}

func (h *Histogram) Count() uint64 { return h.count }

// Min and Max are the exact extremes; ok is false when empty.
func (h *Histogram) Min() (uint64, bool) { return h.min, h.count > 0 }
func (h *Histogram) Max() (uint64, bool) { return h.max, h.count > 0 }

// NonEmpty lists the non-empty buckets as (index, count), ascending.
func (h *Histogram) NonEmpty() [][2]uint64 {
	var out [][2]uint64
	for i, c := range h.buckets {
		if c > 0 {
			out = append(out, [2]uint64{uint64(i), c})
		}
	}
	return out
}

// Percentile is the lower bound of the first bucket at which the running
// count reaches max(1, ceil(qMilli * count / 100000)); ok is false when
// empty.
func (h *Histogram) Percentile(qMilli uint64) (uint64, bool) {
	if h.count == 0 {
		return 0, false
	}
	// In 128 bits: qMilli * count overflows 64 near 2^47 values.
	hi, lo := bits.Mul64(qMilli, h.count)
	var carry uint64
	lo, carry = bits.Add64(lo, 99999, 0)
	hi += carry
	rank, _ := bits.Div64(hi, lo, 100000)
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.buckets {
		seen += c
		if c > 0 && seen >= rank {
			return BucketLower(i), true
		}
	}
	return BucketLower(Buckets - 1), true
}

func appendOpt(b []byte, v uint64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return strconv.AppendUint(b, v, 10)
}

// AppendJSON appends the latency object of the client's result line.
func (h *Histogram) AppendJSON(b []byte) []byte {
	b = append(b, `{"count":`...)
	b = strconv.AppendUint(b, h.count, 10)
	b = append(b, `,"min":`...)
	b = appendOpt(b, h.min, h.count > 0)
	b = append(b, `,"max":`...)
	b = appendOpt(b, h.max, h.count > 0)
	for _, p := range []struct {
		name string
		q    uint64
	}{{"p50", P50}, {"p90", P90}, {"p99", P99}, {"p99_9", P999}} {
		b = append(b, `,"`...)
		b = append(b, p.name...)
		b = append(b, `":`...)
		v, ok := h.Percentile(p.q)
		b = appendOpt(b, v, ok)
	}
	b = append(b, `,"buckets":[`...)
	first := true
	for i, c := range h.buckets {
		if c == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, c, 10)
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
