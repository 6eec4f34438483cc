/* The latency histogram of protocol/SPEC.md section 7: log-linear, 128
 * sub-buckets per power of two, values in nanoseconds. Shared by the C
 * lane (which records into it) and the runner (which checks what a client
 * reported and merges samples). No allocation beyond the struct itself. */
#ifndef CROSSRUN_PROTOCOL_HISTOGRAM_H
#define CROSSRUN_PROTOCOL_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BUCKETS 128
#define HIST_BUCKETS 7296 /* index(INT64_MAX) + 1 */

/* The percentiles every report names, in thousandths of a percent. */
#define HIST_P50 50000
#define HIST_P90 90000
#define HIST_P99 99000
#define HIST_P99_9 99900

struct hist {
  uint64_t count;
  int64_t min; /* exact; -1 when count is 0 */
  int64_t max;
  uint64_t buckets[HIST_BUCKETS];
};

/* Empties *h. */
void hist_init(struct hist *h);

/* The bucket of a value (0 <= v), its lower bound and its width. */
int hist_index(int64_t v);
int64_t hist_lower(int i);
int64_t hist_width(int i);

/* Counts one value; a negative value counts as 0. */
void hist_record(struct hist *h, int64_t v);

/* Adds src's counts to dst's, bucket by bucket. */
void hist_merge(struct hist *dst, const struct hist *src);

/* The percentile q_milli (0 < q_milli <= 100000) as SPEC.md defines it:
 * the lower bound of the bucket holding rank max(1, ceil(q*count/100000));
 * -1 when the histogram is empty. */
int64_t hist_percentile(const struct hist *h, uint32_t q_milli);

#endif
