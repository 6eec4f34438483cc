"""The latency histogram of SPEC.md section 7: 128 sub-buckets per power of
two, exact below 256, percentiles from the buckets in integers, merge by
bucket sums."""

SUB_BUCKETS = 128
BUCKETS = 7296  # index(2^63 - 1) + 1
MAX_VALUE = (1 << 63) - 1

# The percentiles the result line carries, in its key names, and their
# q in thousandths of a percent.
PERCENTILES = (("p50", 50000), ("p90", 90000), ("p99", 99000), ("p99_9", 99900))


def index(v):
    if v < 256:
        return v
    e = v.bit_length() - 1
    return SUB_BUCKETS * (e - 6) + (v >> (e - 7)) - SUB_BUCKETS


def lower(i):
    if i < 256:
        return i
    return (SUB_BUCKETS + i % SUB_BUCKETS) << (i // SUB_BUCKETS - 1)


def width(i):
    return 1 if i < 256 else 1 << (i // SUB_BUCKETS - 1)


def rank(count, q_milli):
    """max(1, ceil(q_milli * count / 100000)), in integers."""
    r = -(-q_milli * count // 100000)
    return r if r > 1 else 1


class Histogram:
    __slots__ = ("counts", "count", "min", "max")

    def __init__(self):
        self.counts = [0] * BUCKETS
        self.count = 0
        self.min = None
        self.max = None

    def record(self, v, times=1):
        """Counts latency v (ns) `times` times; a negative one (a clock
        that stepped back) counts as 0."""
        if v < 0:
            v = 0
        elif v > MAX_VALUE:
            v = MAX_VALUE
        if v < 256:
            i = v
        else:
            e = v.bit_length() - 1
            i = SUB_BUCKETS * (e - 6) + (v >> (e - 7)) - SUB_BUCKETS
        self.counts[i] += times
        self.count += times
        if self.min is None or v < self.min:
            self.min = v
        if self.max is None or v > self.max:
            self.max = v

    def merge(self, other):
        if other.count == 0:
            return
        a = self.counts
        for i, c in enumerate(other.counts):
            if c:
                a[i] += c
        self.count += other.count
        if self.min is None or other.min < self.min:
            self.min = other.min
        if self.max is None or other.max > self.max:
            self.max = other.max

    def percentile(self, q_milli):
        if self.count == 0:
            return None
        r = rank(self.count, q_milli)
        seen = 0
        for i, c in enumerate(self.counts):
            seen += c
            if seen >= r:
                return lower(i)
        return None

    def buckets(self):
        return [[i, c] for i, c in enumerate(self.counts) if c]

    def to_result(self):
        """The result line's `latency` object (lanes/README.md)."""
        out = {"count": self.count, "min": self.min, "max": self.max}
        for name, q in PERCENTILES:
            out[name] = self.percentile(q)
        out["buckets"] = self.buckets()
        return out
