#include "evidence/model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/histogram.h"

uint64_t model_timer_ms(const struct model_limits *l)
{
  return l->tick_ms > MODEL_SLOW_TICK_MS ? l->tick_ms : MODEL_SLOW_TICK_MS;
}

const char *model_status_name(enum model_status s)
{
  switch (s) {
  case MODEL_PASSED:
    return "passed";
  case MODEL_FAILED:
    return "failed";
  case MODEL_UNSUPPORTED:
    return "unsupported";
  case MODEL_UNAVAILABLE:
    return "unavailable";
  default:
    return "error";
  }
}

const char *model_check_name(enum model_check id)
{
  static const char *const names[MODEL_CHECK_COUNT] = {
      "server_ready",  "client_exit", "server_exit", "client_result",
      "server_result", "no_orphans",  "port_free",   "temp_clean",
  };
  return (unsigned)id < MODEL_CHECK_COUNT ? names[id] : "unknown";
}

void model_sample_release(struct model_sample *s)
{
  capture_release(&s->server.err);
  capture_release(&s->client.err);
  model_client_result_release(&s->result);
}

void model_latency_release(struct model_latency *l)
{
  free(l->buckets);
  memset(l, 0, sizeof(*l));
}

void model_client_result_release(struct model_client_result *r)
{
  model_latency_release(&r->latency);
  r->has_latency = 0;
}

int model_latency_to_hist(const struct model_latency *l, struct hist *h)
{
  hist_init(h);
  for (int i = 0; i < l->nbuckets; i++) {
    const struct model_bucket *b = &l->buckets[i];
    if (b->index < 0 || b->index >= HIST_BUCKETS || b->count < 0)
      return -1;
    h->buckets[b->index] += (uint64_t)b->count;
    h->count += (uint64_t)b->count;
  }
  h->min = h->count > 0 ? l->min : -1;
  h->max = h->count > 0 ? l->max : -1;
  return 0;
}

static int latency_field(char *err, size_t errlen, const char *field,
                         int64_t got, const char *fmt, int64_t want)
{
  char v[24];
  if (got < 0)
    snprintf(v, sizeof(v), "null");
  else
    snprintf(v, sizeof(v), "%" PRId64, got);
  snprintf(err, errlen, "result 'latency.%s' is %s, %s%" PRId64, field, v, fmt,
           want);
  return -1;
}

int model_latency_check(const struct model_latency *l, int64_t round_trips,
                        int64_t elapsed_ns, char *err, size_t errlen)
{
  static const struct {
    const char *name;
    uint32_t q_milli;
  } pct[] = {{"p50", HIST_P50},
             {"p90", HIST_P90},
             {"p99", HIST_P99},
             {"p99_9", HIST_P99_9}};
  const int64_t got[] = {l->p50, l->p90, l->p99, l->p99_9};
  const struct model_bucket *first, *last;
  struct hist *h;
  uint64_t sum = 0;
  int rc = -1;

  if (l->count != round_trips)
    return latency_field(err, errlen, "count", l->count,
                         "expected round_trips ", round_trips);
  for (int i = 0; i < l->nbuckets; i++) {
    const struct model_bucket *b = &l->buckets[i];
    if (b->index < 0 || b->index >= HIST_BUCKETS) {
      snprintf(err, errlen,
               "result 'latency.buckets' has index %d, outside 0..%d", b->index,
               HIST_BUCKETS - 1);
      return -1;
    }
    if (i > 0 && b->index <= l->buckets[i - 1].index) {
      snprintf(err, errlen,
               "result 'latency.buckets' has index %d after %d, not in "
               "ascending order",
               b->index, l->buckets[i - 1].index);
      return -1;
    }
    if (b->count <= 0) {
      snprintf(err, errlen,
               "result 'latency.buckets' has count %" PRId64
               " for index %d, expected above 0",
               b->count, b->index);
      return -1;
    }
    /* Two counts of at most INT64_MAX each cannot wrap a uint64_t: the
     * sum stops growing once it is past every possible round_trips. */
    if (sum <= (uint64_t)INT64_MAX)
      sum += (uint64_t)b->count;
  }
  if (sum != (uint64_t)round_trips) {
    snprintf(err, errlen,
             "result 'latency.buckets' counts add up to %s%" PRIu64
             ", expected round_trips %" PRId64,
             sum > (uint64_t)INT64_MAX ? "more than " : "",
             sum > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : sum,
             round_trips);
    return -1;
  }
  if (round_trips == 0) {
    const int64_t rest[] = {l->min, l->max, l->p50, l->p90, l->p99, l->p99_9};
    const char *names[] = {"min", "max", "p50", "p90", "p99", "p99_9"};
    for (int i = 0; i < 6; i++)
      if (rest[i] != -1) {
        snprintf(err, errlen,
                 "result 'latency.%s' is %" PRId64
                 ", expected null with no round trips",
                 names[i], rest[i]);
        return -1;
      }
    return 0;
  }
  first = &l->buckets[0];
  last = &l->buckets[l->nbuckets - 1];
  if (l->min < hist_lower(first->index) ||
      l->min > hist_lower(first->index) + (hist_width(first->index) - 1))
    return latency_field(err, errlen, "min", l->min,
                         "outside the first non-empty bucket, from ",
                         hist_lower(first->index));
  if (l->max < hist_lower(last->index) ||
      l->max > hist_lower(last->index) + (hist_width(last->index) - 1))
    return latency_field(err, errlen, "max", l->max,
                         "outside the last non-empty bucket, from ",
                         hist_lower(last->index));
  if (l->max > elapsed_ns)
    return latency_field(err, errlen, "max", l->max, "more than elapsed_ns ",
                         elapsed_ns);
  h = malloc(sizeof(*h));
  if (h == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  model_latency_to_hist(l, h);
  for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
    int64_t want = hist_percentile(h, pct[i].q_milli);
    if (got[i] != want) {
      latency_field(err, errlen, pct[i].name, got[i], "the buckets give ",
                    want);
      goto out;
    }
  }
  rc = 0;
out:
  free(h);
  return rc;
}

void model_package_info_release(struct model_package_info *p)
{
  for (int i = 0; i < p->nentries; i++)
    free(p->entries[i].path);
  free(p->entries);
  p->entries = NULL;
  p->nentries = 0;
  p->file_count = 0;
  p->unpacked_bytes = 0;
}

void model_package_release(struct model_package *p)
{
  model_package_info_release(&p->package);
}

int model_tls_check(const struct model_tls *t, const char *whose, int over_tls,
                    uint64_t lifetime_ns, char *err, size_t errlen)
{
  if (!t->reported)
    return 0;
  if (!over_tls) {
    snprintf(err, errlen, "%sresult has a 'tls' object over tcp", whose);
    return -1;
  }
  if (strcmp(t->version, MODEL_TLS_VERSION) != 0) {
    snprintf(err, errlen, "%sresult 'tls.version' is '%s', expected '%s'",
             whose, t->version, MODEL_TLS_VERSION);
    return -1;
  }
  if (strcmp(t->alpn, MODEL_TLS_ALPN) != 0) {
    snprintf(err, errlen, "%sresult 'tls.alpn' is '%s', expected '%s'", whose,
             t->alpn, MODEL_TLS_ALPN);
    return -1;
  }
  if (t->cipher[0] == '\0') {
    snprintf(err, errlen, "%sresult 'tls.cipher' is empty", whose);
    return -1;
  }
  if (lifetime_ns == 0)
    return 0;
  if (t->handshake_ns <= 0) {
    snprintf(err, errlen,
             "%sresult 'tls.handshake_ns' is %" PRId64
             ", expected a positive time",
             whose, t->handshake_ns);
    return -1;
  }
  if ((uint64_t)t->handshake_ns > lifetime_ns) {
    snprintf(err, errlen,
             "%sresult 'tls.handshake_ns' is %" PRId64
             ", more than the client's lifetime of %" PRIu64
             " ns as the runner measured it",
             whose, t->handshake_ns, lifetime_ns);
    return -1;
  }
  return 0;
}

int model_tls_check_pair(const struct model_tls *client,
                         const struct model_tls *server, char *err,
                         size_t errlen)
{
  if (!client->reported || !server->reported ||
      strcmp(client->cipher, server->cipher) == 0)
    return 0;
  snprintf(err, errlen,
           "server's result 'tls.cipher' is '%s', the client's is '%s'",
           server->cipher, client->cipher);
  return -1;
}
