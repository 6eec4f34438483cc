/* protocol/histogram against protocol/vectors/histogram.json: every
 * bucket case's index, lower bound and width, and every histogram case
 * recorded from its values, merged, and its percentiles. */
#include "protocol/histogram.h"
#include "tests/lib_vectors.h"
#include "tests/tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  uint32_t q_milli;
} percentiles[] = {{"p50", HIST_P50},
                   {"p90", HIST_P90},
                   {"p99", HIST_P99},
                   {"p99_9", HIST_P99_9}};

static void test_buckets(json_object *c)
{
  uint64_t v, lower, width;
  uint32_t index;
  int i;

  if (!TAP_OK(vectors_u64(c, "value", &v) == 0 &&
                  vectors_u32(c, "index", &index) == 0 &&
                  vectors_u64(c, "lower", &lower) == 0 &&
                  vectors_u64(c, "width", &width) == 0,
              "a bucket case reads"))
    return;
  i = hist_index((int64_t)v);
  TAP_OK(i == (int)index && hist_lower(i) == (int64_t)lower &&
             hist_width(i) == (int64_t)width,
         "%" PRIu64 " is in bucket %u [%" PRIu64 ", +%" PRIu64 ") (got %d)", v,
         index, lower, width, i);
}

/* Records the values of c's member key into *h. Returns 0 or -1. */
static int record_values(json_object *c, const char *key, struct hist *h)
{
  json_object *values = vectors_field(c, key);

  hist_init(h);
  if (!json_object_is_type(values, json_type_array))
    return -1;
  for (size_t i = 0; i < json_object_array_length(values); i++) {
    const char *s =
        json_object_get_string(json_object_array_get_idx(values, i));
    char *end;
    unsigned long long v = strtoull(s ? s : "", &end, 10);
    if (s == NULL || *s == '\0' || *end != '\0')
      return -1;
    hist_record(h, (int64_t)v);
  }
  return 0;
}

/* Whether h is the histogram object key of c, percentiles included. */
static int same_as(const struct hist *h, json_object *c, const char *key,
                   char *why, size_t whylen)
{
  json_object *want = vectors_field(c, key), *buckets;
  uint64_t count, min, max, n = 0;
  size_t at = 0;

  if (vectors_u64(want, "count", &count) || vectors_u64(want, "min", &min) ||
      vectors_u64(want, "max", &max) ||
      !json_object_is_type(buckets = vectors_field(want, "buckets"),
                           json_type_array)) {
    snprintf(why, whylen, "%s does not read", key);
    return 0;
  }
  if (h->count != count || h->min != (int64_t)min || h->max != (int64_t)max) {
    snprintf(why, whylen, "count/min/max %" PRIu64 "/%" PRId64 "/%" PRId64,
             h->count, h->min, h->max);
    return 0;
  }
  for (int i = 0; i < HIST_BUCKETS; i++) {
    json_object *pair;
    if (h->buckets[i] == 0)
      continue;
    pair = json_object_array_get_idx(buckets, at++);
    if (pair == NULL ||
        json_object_get_int(json_object_array_get_idx(pair, 0)) != i ||
        strtoull(json_object_get_string(json_object_array_get_idx(pair, 1)),
                 NULL, 10) != h->buckets[i]) {
      snprintf(why, whylen, "bucket %d holds %" PRIu64, i, h->buckets[i]);
      return 0;
    }
    n += h->buckets[i];
  }
  if (at != json_object_array_length(buckets) || n != count) {
    snprintf(why, whylen, "%zu non-empty buckets", at);
    return 0;
  }
  for (size_t p = 0; p < sizeof(percentiles) / sizeof(percentiles[0]); p++) {
    uint64_t v;
    if (vectors_u64(want, percentiles[p].name, &v) ||
        hist_percentile(h, percentiles[p].q_milli) != (int64_t)v) {
      snprintf(why, whylen, "%s is %" PRId64, percentiles[p].name,
               hist_percentile(h, percentiles[p].q_milli));
      return 0;
    }
  }
  return 1;
}

static void test_histogram(json_object *c)
{
  struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
  struct hist *both = malloc(sizeof(*both));
  const char *name = vectors_case_name(c);
  char why[256] = "";

  if (!TAP_OK(a && b && both && record_values(c, "a_values", a) == 0 &&
                  record_values(c, "b_values", b) == 0,
              "%s: the values read", name))
    goto out;
  TAP_OK(same_as(a, c, "a", why, sizeof(why)), "%s: a as recorded (%s)", name,
         why);
  TAP_OK(same_as(b, c, "b", why, sizeof(why)), "%s: b as recorded (%s)", name,
         why);
  hist_init(both);
  hist_merge(both, a);
  hist_merge(both, b);
  TAP_OK(same_as(both, c, "merged", why, sizeof(why)),
         "%s: a and b merged (%s)", name, why);
out:
  free(a);
  free(b);
  free(both);
}

/* Edges the vectors cannot hold: every bucket's bounds meet the next
 * one's, and an empty histogram has no percentile. */
static void test_edges(void)
{
  struct hist *h = malloc(sizeof(*h));
  int bad = -1;

  for (int i = 1; i < HIST_BUCKETS && bad < 0; i++)
    if (hist_lower(i - 1) + hist_width(i - 1) != hist_lower(i) ||
        hist_index(hist_lower(i)) != i ||
        hist_index(hist_lower(i) - 1) != i - 1)
      bad = i;
  TAP_OK(bad < 0, "every bucket starts where the one before ends (%d)", bad);
  TAP_OK(hist_index(INT64_MAX) == HIST_BUCKETS - 1,
         "the largest value is in the last bucket");
  if (!TAP_NONNULL(h, "a histogram"))
    return;
  hist_init(h);
  TAP_OK(hist_percentile(h, HIST_P50) == -1 && h->min == -1,
         "an empty histogram has no percentile");
  hist_record(h, -5);
  TAP_OK(h->buckets[0] == 1 && h->min == 0, "a negative value counts as 0");
  free(h);
}

int main(void)
{
  json_object *doc = vectors_load("histogram.json");
  size_t nbucket = 0, nhist = 0;

  if (TAP_NONNULL(doc, "histogram.json loads")) {
    json_object *cases = vectors_cases(doc);
    for (size_t i = 0; i < json_object_array_length(cases); i++) {
      json_object *c = json_object_array_get_idx(cases, i);
      const char *kind = vectors_str(c, "kind");
      if (kind && strcmp(kind, "bucket") == 0) {
        test_buckets(c);
        nbucket++;
      } else if (kind && strcmp(kind, "histogram") == 0) {
        test_histogram(c);
        nhist++;
      } else {
        TAP_OK(0, "case %zu has a known kind", i);
      }
    }
    TAP_OK(nbucket >= 20 && nhist >= 5, "%zu bucket and %zu histogram cases",
           nbucket, nhist);
  }
  json_object_put(doc);
  test_edges();
  return tap_done();
}
