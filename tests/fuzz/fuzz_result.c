/* The client's result line (runner/result.c), as the sample executor
 * reads it: the bytes of the client's stdout, not NUL-terminated; and the
 * same bytes as the server's result line.
 *
 * Properties: a result that parses has every count non-negative and its
 * latency buckets within 0..HIST_BUCKETS-1, at most HIST_BUCKETS of them;
 * checked against the workload it itself reports (when that is one the
 * protocol allows), it passes exactly when its totals are those the
 * workload implies, its time is positive, at least the floor per round
 * trip and at most the lifetime, and its latency histogram (when given)
 * holds: indices strictly ascending, counts above 0 adding up to
 * round_trips, the percentiles those of the buckets, min and max in the
 * first and last bucket, max within elapsed_ns, nulls with no round trips.
 * A server line that parses has every field non-negative and checks
 * exactly when its counts mirror the workload's. Every message ends within
 * its buffer; nothing leaks. */
#include <stdlib.h>
#include <string.h>

#include "protocol/histogram.h"
#include "runner/result.h"
#include "tests/fuzz/fuzz.h"

static struct hist fuzz_hist;

/* The latency rules of lanes/README.md, written out again here rather
 * than through model_latency_check, so that the two can disagree. */
static int latency_holds(const struct model_client_result *r)
{
  const struct model_latency *l = &r->latency;
  uint64_t sum = 0;

  if (l->count != r->round_trips)
    return 0;
  hist_init(&fuzz_hist);
  for (int i = 0; i < l->nbuckets; i++) {
    const struct model_bucket *b = &l->buckets[i];
    if (b->count <= 0 || (i > 0 && b->index <= l->buckets[i - 1].index))
      return 0;
    if ((uint64_t)b->count > (uint64_t)r->round_trips - sum)
      return 0;
    sum += (uint64_t)b->count;
    fuzz_hist.buckets[b->index] = (uint64_t)b->count;
    fuzz_hist.count = sum;
  }
  if (sum != (uint64_t)r->round_trips)
    return 0;
  if (sum == 0)
    return l->min == -1 && l->max == -1 && l->p50 == -1 && l->p90 == -1 &&
           l->p99 == -1 && l->p99_9 == -1;
  return hist_index(l->min) == l->buckets[0].index &&
         hist_index(l->max) == l->buckets[l->nbuckets - 1].index &&
         l->min >= 0 && l->max >= 0 && l->max <= r->elapsed_ns &&
         l->p50 == hist_percentile(&fuzz_hist, HIST_P50) &&
         l->p90 == hist_percentile(&fuzz_hist, HIST_P90) &&
         l->p99 == hist_percentile(&fuzz_hist, HIST_P99) &&
         l->p99_9 == hist_percentile(&fuzz_hist, HIST_P99_9);
}

static void server_line(const char *line, size_t size)
{
  struct model_server_result s;
  char err[256];

  memset(err, 'x', sizeof(err));
  if (result_server_parse(line, size, &s, err, sizeof(err)) != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the server parse error is not ended");
    return;
  }
  FUZZ_CHECK(s.round_trips >= 0 && s.warmup_round_trips >= 0 &&
                 s.payload_bytes >= 0 && s.max_in_flight >= 0 &&
                 s.frames_sent >= 0 && s.frames_received >= 0 &&
                 s.bytes_sent >= 0 && s.bytes_received >= 0 &&
                 s.cpu_user_us >= 0 && s.cpu_system_us >= 0,
             "a negative server figure was accepted");
  {
    struct proto_workload w = {
        (uint64_t)s.warmup_round_trips, (uint64_t)s.round_trips,
        (uint32_t)s.payload_bytes, (uint32_t)s.max_in_flight};
    struct proto_totals t;
    int ok;

    if (s.payload_bytes > PROTO_MAX_PAYLOAD_BYTES ||
        s.max_in_flight > (int64_t)PROTO_MAX_IN_FLIGHT ||
        proto_workload_check(&w) != 0)
      return;
    proto_totals_expected(&w, &t);
    ok = (uint64_t)s.frames_sent == t.frames_received &&
         (uint64_t)s.frames_received == t.frames_sent &&
         (uint64_t)s.bytes_sent == t.bytes_received &&
         (uint64_t)s.bytes_received == t.bytes_sent;
    memset(err, 'x', sizeof(err));
    FUZZ_CHECK((result_server_check(&s, &w, NULL, err, sizeof(err)) == 0) == ok,
               "result_server_check disagrees with the workload's totals");
    FUZZ_CHECK(ok || memchr(err, '\0', sizeof(err)) != NULL,
               "the server check's message is not ended");
  }
}

/* A client lifetime that any elapsed_ns of a few digits stays within and
 * a longer one passes. */
#define FUZZ_RESULT_LIFETIME_NS 1000000000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct model_client_result r;
  char err[256];
  char *copy;

  /* An exact-size copy: ASan sees a read past the line's end. */
  copy = malloc(size ? size : 1);
  if (copy == NULL)
    return 0;
  memcpy(copy, data, size);
  server_line(copy, size);
  memset(err, 'x', sizeof(err));
  if (result_parse(copy, size, &r, err, sizeof(err)) != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the parse error is not ended");
    model_client_result_release(&r);
    free(copy);
    return 0;
  }
  free(copy);
  FUZZ_CHECK(r.latency.nbuckets <= HIST_BUCKETS,
             "more latency buckets than the scheme has");
  for (int i = 0; i < r.latency.nbuckets; i++)
    FUZZ_CHECK(r.latency.buckets[i].index >= 0 &&
                   r.latency.buckets[i].index < HIST_BUCKETS &&
                   r.latency.buckets[i].count >= 0,
               "a latency bucket out of range was accepted");
  FUZZ_CHECK(r.round_trips >= 0 && r.warmup_round_trips >= 0 &&
                 r.payload_bytes >= 0 && r.max_in_flight >= 0 &&
                 r.frames_sent >= 0 && r.frames_received >= 0 &&
                 r.bytes_sent >= 0 && r.bytes_received >= 0 &&
                 r.elapsed_ns >= 0,
             "a negative count was accepted");
  FUZZ_CHECK(memchr(r.runtime, '\0', sizeof(r.runtime)) != NULL,
             "the runtime name is not ended");

  {
    struct proto_workload w = {
        (uint64_t)r.warmup_round_trips, (uint64_t)r.round_trips,
        (uint32_t)r.payload_bytes, (uint32_t)r.max_in_flight};
    struct proto_totals t;
    int ok;

    if (r.payload_bytes > PROTO_MAX_PAYLOAD_BYTES ||
        r.max_in_flight > (int64_t)PROTO_MAX_IN_FLIGHT ||
        proto_workload_check(&w) != 0) {
      model_client_result_release(&r);
      return 0;
    }
    proto_totals_expected(&w, &t);
    ok = (uint64_t)r.frames_sent == t.frames_sent &&
         (uint64_t)r.frames_received == t.frames_received &&
         (uint64_t)r.bytes_sent == t.bytes_sent &&
         (uint64_t)r.bytes_received == t.bytes_received && r.elapsed_ns > 0 &&
         (uint64_t)r.elapsed_ns / RESULT_MIN_NS_PER_ROUND_TRIP >=
             (uint64_t)r.round_trips &&
         (uint64_t)r.elapsed_ns <= FUZZ_RESULT_LIFETIME_NS &&
         (!r.has_latency || latency_holds(&r));
    memset(err, 'x', sizeof(err));
    FUZZ_CHECK((result_check(&r, &w, FUZZ_RESULT_LIFETIME_NS, err,
                             sizeof(err)) == 0) == ok,
               "result_check disagrees with the workload's totals");
    FUZZ_CHECK(ok || memchr(err, '\0', sizeof(err)) != NULL,
               "the check's message is not ended");
  }
  model_client_result_release(&r);
  return 0;
}
