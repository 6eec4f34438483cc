/* protocol/histogram: SPEC.md section 7's bucket scheme. */
#include "protocol/histogram.h"

#include <string.h>

void hist_init(struct hist *h)
{
  memset(h, 0, sizeof(*h));
  h->min = h->max = -1;
}

/* v > 0. The C client records every round trip (lanes/README.md), and a
 * shift per bit of a latency was most of what a recording cost it: GCC and
 * Clang (every compiler the Makefile and ci/ use) count the leading zeros
 * in one instruction, as the other lanes' runtimes do. */
static int floor_log2(uint64_t v)
{
#if defined(__GNUC__)
  return 63 - __builtin_clzll(v);
#else
  int e = 0;

  while (v >>= 1)
    e++;
  return e;
#endif
}

int hist_index(int64_t v)
{
  int e;

  if (v < 256)
    return v < 0 ? 0 : (int)v;
  e = floor_log2((uint64_t)v);
  return HIST_SUB_BUCKETS * (e - 6) + (int)((uint64_t)v >> (e - 7)) -
         HIST_SUB_BUCKETS;
}

int64_t hist_lower(int i)
{
  if (i < 256)
    return i;
  return (int64_t)(HIST_SUB_BUCKETS + i % HIST_SUB_BUCKETS)
         << (i / HIST_SUB_BUCKETS - 1);
}

int64_t hist_width(int i)
{
  return i < 256 ? 1 : (int64_t)1 << (i / HIST_SUB_BUCKETS - 1);
}

void hist_record(struct hist *h, int64_t v)
{
  if (v < 0)
    v = 0;
  h->buckets[hist_index(v)]++;
  if (h->count == 0 || v < h->min)
    h->min = v;
  if (h->count == 0 || v > h->max)
    h->max = v;
  h->count++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
  if (src->count == 0)
    return;
  for (int i = 0; i < HIST_BUCKETS; i++)
    dst->buckets[i] += src->buckets[i];
  if (dst->count == 0 || src->min < dst->min)
    dst->min = src->min;
  if (dst->count == 0 || src->max > dst->max)
    dst->max = src->max;
  dst->count += src->count;
}

int64_t hist_percentile(const struct hist *h, uint32_t q_milli)
{
  uint64_t rank, seen = 0;

  if (h->count == 0)
    return -1;
  /* ceil(q * count / 100000) without overflow: whole hundred-thousands of
   * count first, then the rest (below 100000 * 100000). */
  rank = h->count / 100000 * q_milli +
         (h->count % 100000 * q_milli + 99999) / 100000;
  if (rank < 1)
    rank = 1;
  for (int i = 0; i < HIST_BUCKETS; i++) {
    seen += h->buckets[i];
    if (seen >= rank)
      return hist_lower(i);
  }
  return -1;
}
