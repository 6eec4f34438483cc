/* A lane's cost figures read into the model: the merged latency histogram
 * of its summary, each peer's CPU per round trip over the measured window
 * (from the passed samples' cost, else the summary's median), why a figure
 * is null (its not_reported reason, never a zero), and each peer's memory
 * label and what it covers. */
#include "evidence/report/report_reader.h"

#include <stdio.h>
#include <string.h>

#include "protocol/histogram.h"

static const char *const peer_role[2] = {"client", "server"};
static const char *const cpu_key[2] = {"client_cpu_us_per_round_trip",
                                       "server_cpu_us_per_round_trip"};

/* Whether o has member key, null included. */
static int has_member(json_object *o, const char *key)
{
  return o != NULL && json_object_is_type(o, json_type_object) &&
         json_object_object_get_ex(o, key, NULL);
}

/* The reason not_reported of o (at where) gives for figure key, or for key
 * with "_median" after it (a summary names its figures so); NULL when it
 * gives none. */
static const char *reason_of(struct report_reader *rd, json_object *o,
                             const char *where, const char *key)
{
  json_object *nr =
      report_reader_get(rd, o, where, "not_reported", json_type_object, 0);
  char w[REPORT_WHERE_MAX], median[128];
  const char *why;

  if (nr == NULL)
    return NULL;
  report_reader_join(w, where, "not_reported");
  why = report_reader_str(rd, nr, w, key);
  snprintf(median, sizeof(median), "%s_median", key);
  return why ? why : report_reader_str(rd, nr, w, median);
}

/* A peer's memory label and what it covers, folded into what the lane's
 * passed samples gave so far. */
static void fold_memory(struct report_reader *rd, json_object *sample,
                        const char *where, int peer,
                        struct report_cost_values *cv)
{
  char pw[REPORT_WHERE_MAX], w[REPORT_WHERE_MAX];
  json_object *o = report_reader_get(rd, sample, where, peer_role[peer],
                                     json_type_object, 0);
  const char *label, *covers;

  report_reader_join(pw, where, peer_role[peer]);
  o = report_reader_get(rd, o, pw, "memory", json_type_object, 0);
  report_reader_join(w, pw, "memory");
  label = report_reader_str(rd, o, w, "label");
  covers = report_reader_str(rd, o, w, "covers");
  if (label != NULL) {
    if (cv->label[peer] == NULL)
      cv->label[peer] = label;
    else if (strcmp(cv->label[peer], label) != 0)
      cv->label_differ[peer] = 1;
    if (cv->sampled[peer] == NULL && strstr(label, "sampled") != NULL)
      cv->sampled[peer] = label;
  }
  if (covers != NULL) {
    /* Samples that disagree claim only the narrower of the two. */
    if (cv->covers[peer] == NULL || strcmp(covers, "process") == 0)
      cv->covers[peer] = covers;
  }
}

void report_cost_sample(struct report_reader *rd, json_object *sample,
                        const char *where, int passed,
                        struct report_cost_values *cv)
{
  json_object *cost =
      report_reader_get(rd, sample, where, "cost", json_type_object, 0);
  char w[REPORT_WHERE_MAX];

  cv->seen |= has_member(sample, "cost");
  if (!passed || rd->failed)
    return;
  for (int peer = 0; peer < 2; peer++)
    fold_memory(rd, sample, where, peer, cv);
  if (cost == NULL)
    return;
  report_reader_join(w, where, "cost");
  for (int peer = 0; peer < 2; peer++) {
    double v;
    if (report_reader_number(rd, cost, w, cpu_key[peer], &v))
      cv->cpu_per_rt[peer][cv->n[peer]++] = v;
    else if (cv->reason[peer] == NULL)
      cv->reason[peer] = reason_of(rd, cost, w, cpu_key[peer]);
  }
  if (cv->latency_reason == NULL &&
      !report_reader_get(rd, cost, w, "latency_ns", json_type_object, 0))
    cv->latency_reason = reason_of(rd, cost, w, "latency_ns");
}

/* A latency value that may be null: -1 then. */
static int64_t latency_value(struct report_reader *rd, json_object *o,
                             const char *where, const char *key)
{
  int64_t v;
  return report_reader_whole(rd, o, where, key, &v) ? v : -1;
}

static void read_buckets(struct report_reader *rd, json_object *o,
                         const char *where, struct report_latency *lat)
{
  json_object *all =
      report_reader_get(rd, o, where, "buckets", json_type_array, 0);
  size_t n = all ? json_object_array_length(all) : 0;
  struct report_bucket *b;

  if (all == NULL)
    return;
  if (n > HIST_BUCKETS) {
    report_reader_fail(rd, "'%s.buckets' has %zu buckets, more than %d", where,
                       n, HIST_BUCKETS);
    return;
  }
  b = report_reader_own_array(rd, n, sizeof(*b));
  if (b == NULL)
    return;
  for (size_t i = 0; i < n; i++) {
    json_object *pair = json_object_array_get_idx(all, i), *x, *c;
    int64_t index, count;
    if (!json_object_is_type(pair, json_type_array) ||
        json_object_array_length(pair) != 2 ||
        !json_object_is_type(x = json_object_array_get_idx(pair, 0),
                             json_type_int) ||
        !json_object_is_type(c = json_object_array_get_idx(pair, 1),
                             json_type_int)) {
      report_reader_fail(rd, "'%s.buckets[%zu]' is not [index, count]", where,
                         i);
      return;
    }
    index = json_object_get_int64(x);
    count = json_object_get_int64(c);
    if (index < 0 || index >= HIST_BUCKETS || count < 0 ||
        (i > 0 && index <= b[i - 1].index)) {
      report_reader_fail(rd,
                         "'%s.buckets[%zu]' is [%lld, %lld]: an index of 0 "
                         "to %d above the one before, a count of 0 or more",
                         where, i, (long long)index, (long long)count,
                         HIST_BUCKETS - 1);
      return;
    }
    b[i] = (struct report_bucket){(int)index, count};
  }
  lat->buckets = b;
  lat->nbuckets = (int)n;
}

static void read_latency(struct report_reader *rd, json_object *summary,
                         const char *where, struct report_latency *lat)
{
  json_object *o =
      report_reader_get(rd, summary, where, "latency_ns", json_type_object, 0);
  char w[REPORT_WHERE_MAX];
  int64_t count;

  if (o == NULL)
    return;
  report_reader_join(w, where, "latency_ns");
  lat->present = 1;
  lat->samples = report_reader_whole_int(rd, o, w, "samples", 0);
  lat->count = report_reader_whole(rd, o, w, "count", &count) ? count : 0;
  lat->min = latency_value(rd, o, w, "min");
  lat->max = latency_value(rd, o, w, "max");
  lat->p50 = latency_value(rd, o, w, "p50");
  lat->p90 = latency_value(rd, o, w, "p90");
  lat->p99 = latency_value(rd, o, w, "p99");
  lat->p99_9 = latency_value(rd, o, w, "p99_9");
  read_buckets(rd, o, w, lat);
}

/* Why a lane with passed samples has no such figure: the summary's
 * reason, a sample's, or (nothing in the lane knows of cost figures) the
 * evidence is older than them. */
static const char *missing(const char *summary_reason,
                           const char *sample_reason, int seen)
{
  if (summary_reason)
    return summary_reason;
  if (sample_reason)
    return sample_reason;
  return seen ? "not reported" : REPORT_OLDER_EVIDENCE;
}

void report_cost_lane(struct report_reader *rd, json_object *summary,
                      const char *where, struct report_cost_values *cv,
                      struct report_lane *l)
{
  static const char *const median_key[2] = {
      "client_cpu_us_per_round_trip_median",
      "server_cpu_us_per_round_trip_median"};
  struct report_figure *cpu[2] = {&l->client_cpu_per_rt, &l->server_cpu_per_rt};
  const char **cpu_missing[2] = {&l->client_cpu_per_rt_missing,
                                 &l->server_cpu_per_rt_missing};
  const char **label[2] = {&l->client_rss_label, &l->server_rss_label};
  const char **covers[2] = {&l->client_rss_covers, &l->server_rss_covers};
  int seen = cv->seen || has_member(summary, "latency_ns") ||
             has_member(summary, median_key[0]) ||
             has_member(summary, "not_reported");

  for (int peer = 0; peer < 2 && !rd->failed; peer++) {
    report_figure_of(cv->cpu_per_rt[peer], cv->n[peer], cpu[peer]);
    report_figure_from_summary(rd, summary, where, median_key[peer], NULL, NULL,
                               cpu[peer]);
    if (cpu[peer]->n == 0 && l->passed > 0)
      *cpu_missing[peer] = missing(reason_of(rd, summary, where, cpu_key[peer]),
                                   cv->reason[peer], seen);
    if (cv->label[peer] != NULL) {
      char buf[512];
      if (!cv->label_differ[peer])
        *label[peer] = cv->label[peer];
      else if (cv->sampled[peer] != NULL)
        *label[peer] = cv->sampled[peer];
      else {
        snprintf(buf, sizeof(buf), "%s; samples differ", cv->label[peer]);
        *label[peer] = report_reader_own_str(rd, buf);
      }
    }
    *covers[peer] = cv->covers[peer];
  }
  read_latency(rd, summary, where, &l->latency);
  if (!l->latency.present && l->passed > 0)
    l->latency_missing = missing(reason_of(rd, summary, where, "latency_ns"),
                                 cv->latency_reason, seen);
}
