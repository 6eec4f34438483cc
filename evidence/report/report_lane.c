/* One lane of an evidence document read into the model: its samples, and
 * the figures over its passed samples (median, min and max of time per
 * round trip, peak memory and CPU of each peer), or a summary's medians
 * when the samples give none; the cost figures are read by
 * evidence/report/report_cost.c. */
#include "evidence/report/report_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/stats.h"

/* The figures come from stats_figure_of, as the evidence's own summaries
 * do, so a report computes a median exactly as the file it reads. */
void report_figure_of(double *v, int n, struct report_figure *f)
{
  struct stats_figure st;

  memset(f, 0, sizeof(*f));
  if (n <= 0)
    return;
  stats_figure_of(v, n, &st);
  f->n = st.n;
  f->have_range = 1;
  f->min = st.min;
  f->max = st.max;
  f->median = st.median;
}

void report_figure_from_summary(struct report_reader *rd, json_object *summary,
                                const char *where, const char *median_key,
                                const char *min_key, const char *max_key,
                                struct report_figure *f)
{
  double m, lo, hi;

  if (f->n > 0 || !report_reader_number(rd, summary, where, median_key, &m))
    return;
  f->n = 1;
  f->median = f->min = f->max = m;
  if (min_key && max_key &&
      report_reader_number(rd, summary, where, min_key, &lo) &&
      report_reader_number(rd, summary, where, max_key, &hi) && lo <= m &&
      m <= hi) {
    f->min = lo;
    f->max = hi;
    f->have_range = 1;
  }
}

/* What a peak's peak_rss_source makes of the lane's label so far. */
static const char *rss_label(const char *label, const char *source)
{
  static const char *const exact[] = {"exit_accounting_peak",
                                      "os_lifetime_peak"};

  if (source == NULL)
    return label;
  if (strcmp(source, "sampled_peak_since_exec") == 0)
    return "sampled";
  for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
    if (strcmp(source, exact[i]) == 0)
      return label ? label : "exact";
  return label;
}

static void read_peer(struct report_reader *rd, json_object *sample,
                      const char *where, const char *role, double *rss,
                      int *has_rss, const char **rss_source, double *cpu,
                      int *has_cpu, const char **stderr_text)
{
  char pw[REPORT_WHERE_MAX], w[REPORT_WHERE_MAX];
  json_object *peer =
      report_reader_get(rd, sample, where, role, json_type_object, 0);
  json_object *mem, *c, *e;
  double user, system;
  int64_t n;

  *has_rss = *has_cpu = 0;
  *rss_source = NULL;
  *stderr_text = NULL;
  if (peer == NULL)
    return;
  report_reader_join(pw, where, role);
  mem = report_reader_get(rd, peer, pw, "memory", json_type_object, 0);
  report_reader_join(w, pw, "memory");
  if (report_reader_whole(rd, mem, w, "peak_rss_bytes", &n)) {
    *rss = (double)n;
    *has_rss = 1;
    *rss_source = report_reader_str(rd, mem, w, "peak_rss_source");
  }
  c = report_reader_get(rd, peer, pw, "cpu", json_type_object, 0);
  report_reader_join(w, pw, "cpu");
  if (report_reader_number(rd, c, w, "user_ns", &user) &&
      report_reader_number(rd, c, w, "system_ns", &system)) {
    *cpu = user + system;
    *has_cpu = 1;
  }
  e = report_reader_get(rd, peer, pw, "stderr", json_type_object, 0);
  report_reader_join(w, pw, "stderr");
  *stderr_text = report_reader_str(rd, e, w, "text");
}

/* Per passed sample, the five figures of a lane, and the labels of its
 * peaks (client, server). */
struct lane_values {
  double *v[5];
  int n[5];
  const char *rss_label[2];
  double peers_cpu_ns; /* every sample's, passed or not */
};

static void read_sample(struct report_reader *rd, json_object *o,
                        const char *where, struct report_sample *s,
                        struct lane_values *lv, struct report_cost_values *cv)
{
  json_object *failure, *repro;
  char w[REPORT_WHERE_MAX];
  double value[4];
  int has[4];
  const char *source[2];
  int64_t n;

  s->round = report_reader_whole_int(rd, o, where, "round", 0);
  s->status = report_reader_str_or(rd, o, where, "status", "unknown");
  failure = report_reader_get(rd, o, where, "failure", json_type_object, 0);
  report_reader_join(w, where, "failure");
  s->stage = report_reader_str(rd, failure, w, "stage");
  s->reason = report_reader_str(rd, failure, w, "reason");
  s->message = report_reader_str(rd, failure, w, "message");
  s->have_time = report_reader_number(rd, o, where, "ns_per_round_trip",
                                      &s->ns_per_round_trip);
  s->wall_ns = report_reader_whole(rd, o, where, "wall_ns", &n) ? n : -1;
  s->retried = report_reader_boolean(rd, o, where, "retried", 0);
  failure =
      report_reader_get(rd, o, where, "first_attempt", json_type_object, 0);
  report_reader_join(w, where, "first_attempt");
  s->first_stage = report_reader_str(rd, failure, w, "stage");
  s->first_reason = report_reader_str(rd, failure, w, "reason");
  s->first_message = report_reader_str(rd, failure, w, "message");
  repro = report_reader_get(rd, o, where, "reproduce", json_type_object, 0);
  report_reader_join(w, where, "reproduce");
  s->reproduce = report_reader_str(rd, repro, w, "crossrun");
  s->reproduce_directory = report_reader_str(rd, repro, w, "directory");
  s->reproduce_server = report_reader_str(rd, repro, w, "server");
  s->reproduce_client = report_reader_str(rd, repro, w, "client");
  read_peer(rd, o, where, "client", &value[0], &has[0], &source[0], &value[1],
            &has[1], &s->client_stderr);
  read_peer(rd, o, where, "server", &value[2], &has[2], &source[1], &value[3],
            &has[3], &s->server_stderr);
  report_cost_sample(rd, o, where, strcmp(s->status, "passed") == 0, cv);
  lv->peers_cpu_ns += (has[1] ? value[1] : 0) + (has[3] ? value[3] : 0);
  if (rd->failed || strcmp(s->status, "passed") != 0)
    return;
  if (s->have_time)
    lv->v[0][lv->n[0]++] = s->ns_per_round_trip;
  if (has[0]) {
    lv->v[1][lv->n[1]++] = value[0];
    lv->rss_label[0] = rss_label(lv->rss_label[0], source[0]);
  }
  if (has[2]) {
    lv->v[2][lv->n[2]++] = value[2];
    lv->rss_label[1] = rss_label(lv->rss_label[1], source[1]);
  }
  if (has[1])
    lv->v[3][lv->n[3]++] = value[1];
  if (has[3])
    lv->v[4][lv->n[4]++] = value[3];
}

static const char *derived_status(const struct report_lane *l, int unsupported,
                                  int retried)
{
  if (l->error_reason)
    return "error";
  if (l->unavailable_reason)
    return "unavailable";
  if (l->unsupported_reason)
    return "unsupported";
  if (l->nsamples == 0)
    return "not_run";
  if (l->failed > 0)
    return "failed";
  if (retried)
    return "flaky";
  if (unsupported)
    return "unsupported";
  return "passed";
}

/* "c-node" -> "c" and "node" when the file does not name them. */
static const char *name_part(struct report_reader *rd, const char *name,
                             int server)
{
  const char *dash = strchr(name, '-');
  char buf[256];

  if (dash == NULL)
    return report_reader_own_str(rd, name);
  if (server)
    return report_reader_own_str(rd, dash + 1);
  snprintf(buf, sizeof(buf), "%.*s", (int)(dash - name), name);
  return report_reader_own_str(rd, buf);
}

void report_lane_read(struct report_reader *rd, const char *name,
                      json_object *o, const char *where, struct report_lane *l)
{
  json_object *samples, *summary;
  struct lane_values lv;
  struct report_cost_values cv;
  char w[REPORT_WHERE_MAX];
  int unsupported = 0, retried = 0;
  size_t n;

  memset(&lv, 0, sizeof(lv));
  memset(&cv, 0, sizeof(cv));
  if (!json_object_is_type(o, json_type_object)) {
    report_reader_fail(rd, "'%s' is %s, expected an object", where,
                       report_reader_type_name(o));
    return;
  }
  l->name = report_reader_own_str(rd, name);
  l->client = report_reader_str(rd, o, where, "client_runtime");
  l->server = report_reader_str(rd, o, where, "server_runtime");
  if (l->name && !l->client)
    l->client = name_part(rd, l->name, 0);
  if (l->name && !l->server)
    l->server = name_part(rd, l->name, 1);
  l->unavailable_reason = report_reader_str(rd, o, where, "unavailable_reason");
  l->error_reason = report_reader_str(rd, o, where, "error_reason");
  report_tls_lane(rd, o, where, l);
  samples = report_reader_get(rd, o, where, "samples", json_type_array, 0);
  n = samples ? json_object_array_length(samples) : 0;
  if (n > REPORT_MAX_SAMPLES) {
    report_reader_fail(rd, "'%s.samples' has %zu samples, more than %d", where,
                       n, REPORT_MAX_SAMPLES);
    return;
  }
  l->samples = report_reader_own_array(rd, n, sizeof(*l->samples));
  for (int i = 0; i < 5; i++)
    lv.v[i] = report_reader_own_array(rd, n, sizeof(double));
  for (int i = 0; i < 2; i++)
    cv.cpu_per_rt[i] = report_reader_own_array(rd, n, sizeof(double));
  if (rd->failed)
    return;
  l->nsamples = (int)n;
  for (size_t i = 0; i < n && !rd->failed; i++) {
    json_object *s = json_object_array_get_idx(samples, i);
    struct report_sample *rs = &l->samples[i];
    snprintf(w, sizeof(w), "%s.samples[%zu]", where, i);
    if (s == NULL || !json_object_is_type(s, json_type_object)) {
      report_reader_fail(rd, "'%s' is %s, expected an object", w,
                         report_reader_type_name(s));
      return;
    }
    read_sample(rd, s, w, rs, &lv, &cv);
    if (rd->failed)
      return;
    if (strcmp(rs->status, "passed") == 0)
      l->passed++;
    else if (strcmp(rs->status, "failed") == 0 ||
             strcmp(rs->status, "error") == 0)
      l->failed++;
    else if (strcmp(rs->status, "unsupported") == 0)
      unsupported++;
    retried |= rs->retried;
  }
  report_figure_of(lv.v[0], lv.n[0], &l->ns_per_rt);
  report_figure_of(lv.v[1], lv.n[1], &l->client_rss);
  report_figure_of(lv.v[2], lv.n[2], &l->server_rss);
  l->peers_cpu_ns = lv.peers_cpu_ns;
  l->client_rss_label = lv.rss_label[0];
  l->server_rss_label = lv.rss_label[1];
  report_figure_of(lv.v[3], lv.n[3], &l->client_cpu);
  report_figure_of(lv.v[4], lv.n[4], &l->server_cpu);

  summary = report_reader_get(rd, o, where, "summary", json_type_object, 0);
  report_reader_join(w, where, "summary");
  l->status = report_reader_str(rd, summary, w, "status");
  if (l->status == NULL)
    l->status = derived_status(l, unsupported, retried);
  report_figure_from_summary(rd, summary, w, "ns_per_round_trip_median",
                             "ns_per_round_trip_min", "ns_per_round_trip_max",
                             &l->ns_per_rt);
  report_figure_from_summary(rd, summary, w, "client_peak_rss_bytes_median",
                             NULL, NULL, &l->client_rss);
  report_figure_from_summary(rd, summary, w, "server_peak_rss_bytes_median",
                             NULL, NULL, &l->server_rss);
  report_figure_from_summary(rd, summary, w, "client_cpu_ns_median", NULL, NULL,
                             &l->client_cpu);
  report_figure_from_summary(rd, summary, w, "server_cpu_ns_median", NULL, NULL,
                             &l->server_cpu);
  report_cost_lane(rd, summary, w, &cv, l);
  {
    json_object *st =
        report_reader_get(rd, summary, w, "stable", json_type_boolean, 0);
    l->stable = st ? json_object_get_boolean(st) : -1;
  }
  l->unstable_reasons = report_reader_str(rd, summary, w, "unstable_reasons");
}
