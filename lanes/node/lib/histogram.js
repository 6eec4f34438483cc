'use strict';
// The latency histogram of SPEC.md section 7: 128 sub-buckets per power of
// two, exact below 256, percentiles from the buckets in integers, merge by
// bucket sums.
//
// Values are Numbers on the recording path (a latency in nanoseconds is far
// below 2^53); index() also takes a BigInt, for the whole 0..2^63-1 range.
// Every lower bound and width is a power of two times at most 8 significant
// bits, so lower() and width() are exact as Numbers for every bucket.

const SUB_BUCKETS = 128;
const BUCKETS = 7296; // index(2^63 - 1) + 1

const TWO_32 = 4294967296;
const POW2 = new Float64Array(64);
for (let k = 0; k < 64; k++) POW2[k] = 2 ** k;

// The bucket of a non-negative integer Number below 2^63.
function indexOfNumber(v) {
  if (v < 256) return v;
  let e;
  let top;
  if (v < TWO_32) {
    e = 31 - Math.clz32(v);
    top = v >>> (e - 7);
  } else {
    // Dividing by a power of two is exact, so floor() is the shift.
    e = 63 - Math.clz32(Math.floor(v / TWO_32));
    top = Math.floor(v / POW2[e - 7]);
  }
  return SUB_BUCKETS * (e - 6) + top - SUB_BUCKETS;
}

// index(v): v a non-negative integer Number or BigInt below 2^63.
function index(v) {
  if (typeof v !== 'bigint') return indexOfNumber(v);
  if (v < 256n) return Number(v);
  const e = v.toString(2).length - 1;
  return SUB_BUCKETS * (e - 6) + Number(v >> BigInt(e - 7)) - SUB_BUCKETS;
}

function lower(i) {
  if (i < 256) return i;
  return (SUB_BUCKETS + (i % SUB_BUCKETS)) * POW2[Math.floor(i / SUB_BUCKETS) - 1];
}

function width(i) {
  return i < 256 ? 1 : POW2[Math.floor(i / SUB_BUCKETS) - 1];
}

// The rank of percentile q_milli (thousandths of a percent) among count
// values: max(1, ceil(q_milli * count / 100000)). Split so that every
// product stays an exact integer for any count below 2^53.
function rank(count, qMilli) {
  const r = Math.floor(count / 100000) * qMilli + Math.floor(((count % 100000) * qMilli + 99999) / 100000);
  return r < 1 ? 1 : r;
}

// The percentiles the result line carries, in its key names.
const PERCENTILES = [
  ['p50', 50000],
  ['p90', 90000],
  ['p99', 99000],
  ['p99_9', 99900],
];

class Histogram {
  constructor() {
    // Counts as doubles: exact up to 2^53 values, and no wrap.
    this.counts = new Float64Array(BUCKETS);
    this.count = 0;
    this.min = Infinity;
    this.max = -Infinity;
  }

  // v: a latency in nanoseconds, an integer Number; a negative one (a clock
  // that stepped back) counts as 0, as protocol/histogram.c does.
  record(v) {
    if (v < 0) v = 0;
    this.counts[indexOfNumber(v)]++;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.count++;
  }

  merge(other) {
    if (other.count === 0) return;
    const a = this.counts;
    const b = other.counts;
    for (let i = 0; i < BUCKETS; i++) a[i] += b[i];
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
    this.count += other.count;
  }

  // The lower bound of the bucket where the running count reaches the
  // rank of q_milli, or null for an empty histogram.
  percentile(qMilli) {
    if (this.count === 0) return null;
    const r = rank(this.count, qMilli);
    const c = this.counts;
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += c[i];
      if (seen >= r) return lower(i);
    }
    return null;
  }

  // The non-empty buckets as [index, count] pairs, ascending.
  buckets() {
    const out = [];
    const c = this.counts;
    for (let i = 0; i < BUCKETS; i++) if (c[i] !== 0) out.push([i, c[i]]);
    return out;
  }

  // The result line's `latency` object (lanes/README.md).
  toResult() {
    const empty = this.count === 0;
    const out = {
      count: this.count,
      min: empty ? null : this.min,
      max: empty ? null : this.max,
    };
    for (const [name, q] of PERCENTILES) out[name] = this.percentile(q);
    out.buckets = this.buckets();
    return out;
  }
}

module.exports = { Histogram, index, lower, width, rank, PERCENTILES, SUB_BUCKETS, BUCKETS };
