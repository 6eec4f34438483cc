package crossrun.lane;

/**
 * The latency histogram of SPEC.md section 7: log-linear, 128 sub-buckets per power of two, in
 * nanoseconds. Percentiles come from the buckets in integers, as every lane computes them.
 */
public final class Histogram {
  public static final int BUCKETS = 7296;
  public static final long MAX_VALUE = Long.MAX_VALUE;

  final long[] buckets = new long[BUCKETS];
  long count;
  long min = Long.MAX_VALUE;
  long max;

  /** Empties the histogram. */
  void reset() {
    java.util.Arrays.fill(buckets, 0);
    count = 0;
    min = Long.MAX_VALUE;
    max = 0;
  }

  /** index(v) for 0 <= v <= 2^63 - 1. */
  public static int index(long v) {
    if (v < 256) return (int) v;
    int e = 63 - Long.numberOfLeadingZeros(v);
    return (int) (128L * (e - 6) + (v >>> (e - 7)) - 128);
  }

  public static long lower(int i) {
    if (i < 256) return i;
    return (128L + i % 128) << (i / 128 - 1);
  }

  public static long width(int i) {
    if (i < 256) return 1;
    return 1L << (i / 128 - 1);
  }

  public void record(long v) {
    if (v < 0) v = 0;
    buckets[index(v)]++;
    if (v < min) min = v;
    if (v > max) max = v;
    count++;
  }

  /** Adds n values of one bucket (tests and merges). */
  public void addBucket(int i, long n) {
    buckets[i] += n;
    count += n;
  }

  public void merge(Histogram o) {
    for (int i = 0; i < BUCKETS; i++) buckets[i] += o.buckets[i];
    count += o.count;
    if (o.count > 0) {
      min = Math.min(min, o.min);
      max = Math.max(max, o.max);
    }
  }

  public long count() {
    return count;
  }

  /**
   * The lower bound of the first bucket at which the running count reaches max(1, ceil(qMilli *
   * count / 100000)); -1 when empty.
   */
  public long percentile(long qMilli) {
    if (count == 0) return -1;
    // In 128 bits: qMilli * count overflows 64 near 2^47 values.
    long rank = java.math.BigInteger.valueOf(qMilli).multiply(java.math.BigInteger.valueOf(count))
        .add(java.math.BigInteger.valueOf(99999)).divide(java.math.BigInteger.valueOf(100000))
        .longValue();
    if (rank < 1) rank = 1;
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += buckets[i];
      if (buckets[i] > 0 && seen >= rank) return lower(i);
    }
    return lower(BUCKETS - 1);
  }

  static void opt(StringBuilder b, long v) {
    if (v < 0) b.append("null");
    else b.append(v);
  }

  /** The latency object of the client's result line. */
  public void appendJson(StringBuilder b) {
    b.append("{\"count\":").append(count);
    b.append(",\"min\":");
    opt(b, count > 0 ? min : -1);
    b.append(",\"max\":");
    opt(b, count > 0 ? max : -1);
    b.append(",\"p50\":");
    opt(b, percentile(50000));
    b.append(",\"p90\":");
    opt(b, percentile(90000));
    b.append(",\"p99\":");
    opt(b, percentile(99000));
    b.append(",\"p99_9\":");
    opt(b, percentile(99900));
    b.append(",\"buckets\":[");
    boolean first = true;
    for (int i = 0; i < BUCKETS; i++) {
      if (buckets[i] == 0) continue;
      if (!first) b.append(',');
      first = false;
      b.append('[').append(i).append(',').append(buckets[i]).append(']');
    }
    b.append("]}");
  }
}
