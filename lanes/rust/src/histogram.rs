//! The latency histogram of SPEC.md section 7: log-linear, 128 sub-buckets
//! per power of two, values in nanoseconds. Recording is an index
//! computation and an increment into buckets allocated once, so it can run
//! on every round trip; percentiles are computed from the buckets in
//! integers, the same way in every lane, so a reader can recompute them.

use std::fmt::Write;

pub const SUB_BUCKETS: u64 = 128;
/// `index(2^63 - 1) + 1`.
pub const BUCKETS: usize = 7296;
/// The largest value the scheme covers; larger ones count as this.
pub const MAX_VALUE: u64 = (1 << 63) - 1;

/// The percentiles the result line names, in thousandths of a percent.
pub const P50: u32 = 50_000;
pub const P90: u32 = 90_000;
pub const P99: u32 = 99_000;
pub const P99_9: u32 = 99_900;

/// The bucket of `v` (at most `MAX_VALUE`).
#[inline(always)]
pub fn index(v: u64) -> usize {
    if v < 256 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() as u64;
    (SUB_BUCKETS * (e - 6) + (v >> (e - 7)) - SUB_BUCKETS) as usize
}

/// The smallest value of bucket `i`.
pub fn lower(i: usize) -> u64 {
    let i = i as u64;
    if i < 256 {
        return i;
    }
    (SUB_BUCKETS + i % SUB_BUCKETS) << (i / SUB_BUCKETS - 1)
}

/// How many values bucket `i` holds.
pub fn width(i: usize) -> u64 {
    let i = i as u64;
    if i < 256 {
        1
    } else {
        1 << (i / SUB_BUCKETS - 1)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    buckets: Box<[u64]>,
    count: u64,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    pub fn new() -> Histogram {
        Histogram {
            buckets: vec![0u64; BUCKETS].into_boxed_slice(),
            count: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Counts one value.
    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        let v = v.min(MAX_VALUE);
        self.buckets[index(v)] += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.count += 1;
    }

    /// Adds `other`'s counts, bucket by bucket.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a += *b;
        }
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The exact smallest value recorded.
    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    /// The exact largest value recorded.
    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The non-empty buckets as `(index, count)`, in ascending index.
    pub fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.buckets
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| (i, c))
    }

    /// The percentile `q_milli` (1 to 100000): the lower bound of the
    /// first bucket at which the running count reaches the rank
    /// `max(1, ceil(q_milli * count / 100000))`; None when empty.
    pub fn percentile(&self, q_milli: u32) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        // In 128 bits: q_milli * count overflows 64 bits near 2^47 values.
        let rank = (q_milli as u128 * self.count as u128).div_ceil(100_000) as u64;
        let rank = rank.max(1);
        let mut seen = 0u64;
        for (i, c) in self.buckets() {
            seen += c;
            if seen >= rank {
                return Some(lower(i));
            }
        }
        unreachable!("the bucket counts add up to count")
    }

    /// The `latency` object of the client's result line (lanes/README.md).
    pub fn json(&self) -> String {
        let num = |v: Option<u64>| v.map_or_else(|| "null".to_string(), |v| v.to_string());
        let mut s = String::with_capacity(160);
        let _ = write!(
            s,
            "{{\"count\":{},\"min\":{},\"max\":{},\"p50\":{},\"p90\":{},\"p99\":{},\"p99_9\":{},\"buckets\":[",
            self.count,
            num(self.min()),
            num(self.max()),
            num(self.percentile(P50)),
            num(self.percentile(P90)),
            num(self.percentile(P99)),
            num(self.percentile(P99_9))
        );
        for (n, (i, c)) in self.buckets().enumerate() {
            let _ = write!(s, "{}[{},{}]", if n > 0 { "," } else { "" }, i, c);
        }
        s.push_str("]}");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_holds_its_bounds_and_no_more() {
        for i in 0..BUCKETS {
            let lo = lower(i);
            let last = lo + (width(i) - 1);
            assert_eq!(index(lo), i, "lower({})", i);
            assert_eq!(index(last), i, "last of {}", i);
            if i > 0 {
                assert_eq!(index(lo - 1), i - 1, "before {}", i);
            }
        }
        assert_eq!(index(MAX_VALUE), BUCKETS - 1);
    }

    #[test]
    fn empty_and_saturated() {
        let mut h = Histogram::new();
        assert_eq!(h.percentile(P50), None);
        assert_eq!(h.min(), None);
        assert_eq!(
            h.json(),
            "{\"count\":0,\"min\":null,\"max\":null,\"p50\":null,\"p90\":null,\"p99\":null,\"p99_9\":null,\"buckets\":[]}"
        );
        h.record(u64::MAX);
        assert_eq!(h.max(), Some(MAX_VALUE));
        assert_eq!(h.percentile(P99_9), Some(lower(BUCKETS - 1)));
    }

    #[test]
    fn json_lists_the_buckets() {
        let mut h = Histogram::new();
        for v in [300, 300, 5000] {
            h.record(v);
        }
        assert_eq!(
            h.json(),
            "{\"count\":3,\"min\":300,\"max\":5000,\"p50\":300,\"p90\":4992,\"p99\":4992,\"p99_9\":4992,\"buckets\":[[278,2],[796,1]]}"
        );
    }
}
