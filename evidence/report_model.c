#include "evidence/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#define WHERE_MAX 512
/* Larger than any count or time the runner writes; keeps every figure
 * printable and every chart scale finite. */
#define FIGURE_LIMIT 1e18

/* The reading state: the first problem found is the only one reported. */
struct rd {
  struct report *r;
  char *err;
  size_t errlen;
  int failed;
};

static int fail(struct rd *rd, const char *fmt, ...)
{
  va_list ap;
  if (rd->failed++)
    return -1;
  va_start(ap, fmt);
  vsnprintf(rd->err, rd->errlen, fmt, ap);
  va_end(ap);
  return -1;
}

void report_init(struct report *r)
{
  memset(r, 0, sizeof(*r));
}

void report_release(struct report *r)
{
  for (size_t i = 0; i < r->nowned; i++)
    free(r->owned[i]);
  free(r->owned);
  memset(r, 0, sizeof(*r));
}

/* Takes ownership of p (freed now when it cannot be recorded). */
static void *own(struct rd *rd, void *p)
{
  struct report *r = rd->r;

  if (p == NULL) {
    fail(rd, "out of memory");
    return NULL;
  }
  if (r->nowned == r->capowned) {
    size_t cap = r->capowned ? r->capowned * 2 : 64;
    void **grown = realloc(r->owned, cap * sizeof(*grown));
    if (grown == NULL) {
      free(p);
      fail(rd, "out of memory");
      return NULL;
    }
    r->owned = grown;
    r->capowned = cap;
  }
  r->owned[r->nowned++] = p;
  return p;
}

static void *own_array(struct rd *rd, size_t n, size_t size)
{
  return own(rd, calloc(n ? n : 1, size));
}

static const char *own_str(struct rd *rd, const char *s)
{
  return own(rd, strdup(s));
}

static const char *type_name(json_object *o)
{
  switch (json_object_get_type(o)) {
  case json_type_null:
    return "null";
  case json_type_boolean:
    return "a boolean";
  case json_type_double:
  case json_type_int:
    return "a number";
  case json_type_object:
    return "an object";
  case json_type_array:
    return "an array";
  case json_type_string:
    return "a string";
  }
  return "something else";
}

static const char *want_name(json_type t)
{
  switch (t) {
  case json_type_boolean:
    return "a boolean";
  case json_type_int:
    return "a whole number";
  case json_type_double:
    return "a number";
  case json_type_object:
    return "an object";
  case json_type_array:
    return "an array";
  case json_type_string:
    return "a string";
  default:
    return "a value";
  }
}

static void join(char *out, const char *where, const char *key)
{
  snprintf(out, WHERE_MAX, "%s%s%s", where, where[0] ? "." : "", key);
}

/* Member key of o as type want (json_type_double: any number). Absent or
 * null: NULL, and an error when required. A wrong type is an error. */
static json_object *get(struct rd *rd, json_object *o, const char *where,
                        const char *key, json_type want, int required)
{
  json_object *v = NULL;
  char path[WHERE_MAX];
  json_type t;

  if (rd->failed || o == NULL)
    return NULL;
  join(path, where, key);
  if (!json_object_object_get_ex(o, key, &v) || v == NULL) {
    if (required)
      fail(rd, "'%s' is missing", path);
    return NULL;
  }
  t = json_object_get_type(v);
  if (t == want || (want == json_type_double && t == json_type_int))
    return v;
  fail(rd, "'%s' is %s, expected %s", path, type_name(v), want_name(want));
  return NULL;
}

static const char *str(struct rd *rd, json_object *o, const char *where,
                       const char *key)
{
  json_object *v = get(rd, o, where, key, json_type_string, 0);
  return v ? own_str(rd, json_object_get_string(v)) : NULL;
}

static const char *str_or(struct rd *rd, json_object *o, const char *where,
                          const char *key, const char *fallback)
{
  const char *s = str(rd, o, where, key);
  return s ? s : fallback;
}

static int boolean(struct rd *rd, json_object *o, const char *where,
                   const char *key, int fallback)
{
  json_object *v = get(rd, o, where, key, json_type_boolean, 0);
  return v ? json_object_get_boolean(v) : fallback;
}

/* A finite, non-negative number below FIGURE_LIMIT into *out; 1 when
 * present. */
static int number(struct rd *rd, json_object *o, const char *where,
                  const char *key, double *out)
{
  json_object *v = get(rd, o, where, key, json_type_double, 0);
  char path[WHERE_MAX];
  double d;

  if (v == NULL)
    return 0;
  d = json_object_get_double(v);
  if (!isfinite(d) || d < 0 || d > FIGURE_LIMIT) {
    join(path, where, key);
    fail(rd, "'%s' is %g, out of range", path, d);
    return 0;
  }
  *out = d;
  return 1;
}

/* A whole number in [0, FIGURE_LIMIT] into *out; 1 when present. */
static int whole(struct rd *rd, json_object *o, const char *where,
                 const char *key, int64_t *out)
{
  json_object *v = get(rd, o, where, key, json_type_int, 0);
  char path[WHERE_MAX];
  int64_t n;

  if (v == NULL)
    return 0;
  errno = 0;
  n = json_object_get_int64(v);
  if (n < 0 || (double)n > FIGURE_LIMIT || errno == ERANGE) {
    join(path, where, key);
    fail(rd, "'%s' is out of range", path);
    return 0;
  }
  *out = n;
  return 1;
}

static int whole_int(struct rd *rd, json_object *o, const char *where,
                     const char *key, int fallback)
{
  int64_t n;
  if (!whole(rd, o, where, key, &n))
    return fallback;
  return n > 1000000000 ? 1000000000 : (int)n;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void figure_of(double *v, int n, struct report_figure *f)
{
  memset(f, 0, sizeof(*f));
  if (n <= 0)
    return;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  f->n = n;
  f->have_range = 1;
  f->min = v[0];
  f->max = v[n - 1];
  f->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* A summary's median when the samples gave no figure. */
static void figure_from_summary(struct rd *rd, json_object *summary,
                                const char *where, const char *median_key,
                                const char *min_key, const char *max_key,
                                struct report_figure *f)
{
  double m, lo, hi;

  if (f->n > 0 || !number(rd, summary, where, median_key, &m))
    return;
  f->n = 1;
  f->median = f->min = f->max = m;
  if (min_key && max_key && number(rd, summary, where, min_key, &lo) &&
      number(rd, summary, where, max_key, &hi) && lo <= m && m <= hi) {
    f->min = lo;
    f->max = hi;
    f->have_range = 1;
  }
}

static void read_peer(struct rd *rd, json_object *sample, const char *where,
                      const char *role, double *rss, int *has_rss, double *cpu,
                      int *has_cpu, const char **stderr_text)
{
  char pw[WHERE_MAX], w[WHERE_MAX];
  json_object *peer = get(rd, sample, where, role, json_type_object, 0);
  json_object *mem, *c, *e;
  double user, system;
  int64_t n;

  *has_rss = *has_cpu = 0;
  *stderr_text = NULL;
  if (peer == NULL)
    return;
  join(pw, where, role);
  mem = get(rd, peer, pw, "memory", json_type_object, 0);
  join(w, pw, "memory");
  if (whole(rd, mem, w, "peak_rss_bytes", &n)) {
    *rss = (double)n;
    *has_rss = 1;
  }
  c = get(rd, peer, pw, "cpu", json_type_object, 0);
  join(w, pw, "cpu");
  if (number(rd, c, w, "user_ns", &user) &&
      number(rd, c, w, "system_ns", &system)) {
    *cpu = user + system;
    *has_cpu = 1;
  }
  e = get(rd, peer, pw, "stderr", json_type_object, 0);
  join(w, pw, "stderr");
  *stderr_text = str(rd, e, w, "text");
}

/* Per passed sample, the five figures of a lane. */
struct lane_values {
  double *v[5];
  int n[5];
};

static void read_sample(struct rd *rd, json_object *o, const char *where,
                        struct report_sample *s, struct lane_values *lv)
{
  json_object *failure, *repro;
  char w[WHERE_MAX];
  double value[4];
  int has[4];
  int64_t n;

  s->round = whole_int(rd, o, where, "round", 0);
  s->status = str_or(rd, o, where, "status", "unknown");
  failure = get(rd, o, where, "failure", json_type_object, 0);
  join(w, where, "failure");
  s->stage = str(rd, failure, w, "stage");
  s->reason = str(rd, failure, w, "reason");
  s->message = str(rd, failure, w, "message");
  s->have_time =
      number(rd, o, where, "ns_per_round_trip", &s->ns_per_round_trip);
  s->wall_ns = whole(rd, o, where, "wall_ns", &n) ? n : -1;
  s->retried = boolean(rd, o, where, "retried", 0);
  failure = get(rd, o, where, "first_attempt", json_type_object, 0);
  join(w, where, "first_attempt");
  s->first_stage = str(rd, failure, w, "stage");
  s->first_reason = str(rd, failure, w, "reason");
  s->first_message = str(rd, failure, w, "message");
  repro = get(rd, o, where, "reproduce", json_type_object, 0);
  join(w, where, "reproduce");
  s->reproduce = str(rd, repro, w, "crossrun");
  s->reproduce_server = str(rd, repro, w, "server");
  s->reproduce_client = str(rd, repro, w, "client");
  read_peer(rd, o, where, "client", &value[0], &has[0], &value[1], &has[1],
            &s->client_stderr);
  read_peer(rd, o, where, "server", &value[2], &has[2], &value[3], &has[3],
            &s->server_stderr);
  if (rd->failed || strcmp(s->status, "passed") != 0)
    return;
  if (s->have_time)
    lv->v[0][lv->n[0]++] = s->ns_per_round_trip;
  if (has[0])
    lv->v[1][lv->n[1]++] = value[0];
  if (has[2])
    lv->v[2][lv->n[2]++] = value[2];
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
static const char *name_part(struct rd *rd, const char *name, int server)
{
  const char *dash = strchr(name, '-');
  char buf[256];

  if (dash == NULL)
    return own_str(rd, name);
  if (server)
    return own_str(rd, dash + 1);
  snprintf(buf, sizeof(buf), "%.*s", (int)(dash - name), name);
  return own_str(rd, buf);
}

static void read_lane(struct rd *rd, const char *name, json_object *o,
                      const char *where, struct report_lane *l)
{
  json_object *samples, *summary;
  struct lane_values lv;
  char w[WHERE_MAX];
  int unsupported = 0, retried = 0;
  size_t n;

  memset(&lv, 0, sizeof(lv));
  if (!json_object_is_type(o, json_type_object)) {
    fail(rd, "'%s' is %s, expected an object", where, type_name(o));
    return;
  }
  l->name = own_str(rd, name);
  l->client = str(rd, o, where, "client_runtime");
  l->server = str(rd, o, where, "server_runtime");
  if (l->name && !l->client)
    l->client = name_part(rd, l->name, 0);
  if (l->name && !l->server)
    l->server = name_part(rd, l->name, 1);
  l->unavailable_reason = str(rd, o, where, "unavailable_reason");
  l->error_reason = str(rd, o, where, "error_reason");
  samples = get(rd, o, where, "samples", json_type_array, 0);
  n = samples ? json_object_array_length(samples) : 0;
  if (n > REPORT_MAX_SAMPLES) {
    fail(rd, "'%s.samples' has %zu samples, more than %d", where, n,
         REPORT_MAX_SAMPLES);
    return;
  }
  l->samples = own_array(rd, n, sizeof(*l->samples));
  for (int i = 0; i < 5; i++)
    lv.v[i] = own_array(rd, n, sizeof(double));
  if (rd->failed)
    return;
  l->nsamples = (int)n;
  for (size_t i = 0; i < n && !rd->failed; i++) {
    json_object *s = json_object_array_get_idx(samples, i);
    struct report_sample *rs = &l->samples[i];
    snprintf(w, sizeof(w), "%s.samples[%zu]", where, i);
    if (s == NULL || !json_object_is_type(s, json_type_object)) {
      fail(rd, "'%s' is %s, expected an object", w, type_name(s));
      return;
    }
    read_sample(rd, s, w, rs, &lv);
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
  figure_of(lv.v[0], lv.n[0], &l->ns_per_rt);
  figure_of(lv.v[1], lv.n[1], &l->client_rss);
  figure_of(lv.v[2], lv.n[2], &l->server_rss);
  figure_of(lv.v[3], lv.n[3], &l->client_cpu);
  figure_of(lv.v[4], lv.n[4], &l->server_cpu);

  summary = get(rd, o, where, "summary", json_type_object, 0);
  join(w, where, "summary");
  l->status = str(rd, summary, w, "status");
  if (l->status == NULL)
    l->status = derived_status(l, unsupported, retried);
  figure_from_summary(rd, summary, w, "ns_per_round_trip_median",
                      "ns_per_round_trip_min", "ns_per_round_trip_max",
                      &l->ns_per_rt);
  figure_from_summary(rd, summary, w, "client_peak_rss_bytes_median", NULL,
                      NULL, &l->client_rss);
  figure_from_summary(rd, summary, w, "server_peak_rss_bytes_median", NULL,
                      NULL, &l->server_rss);
  figure_from_summary(rd, summary, w, "client_cpu_ns_median", NULL, NULL,
                      &l->client_cpu);
  figure_from_summary(rd, summary, w, "server_cpu_ns_median", NULL, NULL,
                      &l->server_cpu);
  {
    json_object *st = get(rd, summary, w, "stable", json_type_boolean, 0);
    l->stable = st ? json_object_get_boolean(st) : -1;
  }
  l->unstable_reasons = str(rd, summary, w, "unstable_reasons");
}

static void read_package(struct rd *rd, json_object *o, const char *where,
                         struct report_package *p)
{
  json_object *rep;
  int64_t n;

  p->present = 1;
  p->error = str(rd, o, where, "error");
  p->file_name = str(rd, o, where, "file_name");
  p->measured = p->file_name != NULL && p->error == NULL;
  p->format = str(rd, o, where, "format");
  p->packed_bytes = whole(rd, o, where, "packed_bytes", &n) ? n : -1;
  p->unpacked_bytes = whole(rd, o, where, "unpacked_bytes", &n) ? n : -1;
  p->file_count = whole_int(rd, o, where, "file_count", -1);
  p->sha256 = str(rd, o, where, "sha256");
  rep = get(rd, o, where, "reproducible", json_type_boolean, 0);
  p->reproducible = rep ? json_object_get_boolean(rep) : -1;
}

static void read_runtimes(struct rd *rd, json_object *doc, const char *where,
                          struct report_platform *p)
{
  json_object *all = get(rd, doc, where, "runtimes", json_type_object, 0);
  char w[WHERE_MAX], rw[WHERE_MAX];
  int n, i = 0, skipped = 0;

  if (all == NULL)
    return;
  n = json_object_object_length(all);
  if (n > REPORT_MAX_RUNTIMES) {
    fail(rd, "'%s' has %d runtimes, more than %d", where, n,
         REPORT_MAX_RUNTIMES);
    return;
  }
  p->runtimes = own_array(rd, (size_t)n, sizeof(*p->runtimes));
  if (rd->failed)
    return;
  join(w, where, "runtimes");
  json_object_object_foreach(all, key, val)
  {
    struct report_runtime *rt = &p->runtimes[i];
    json_object *pkg;
    if (rd->failed || i >= n)
      return;
    join(rw, w, key);
    if (!json_object_is_type(val, json_type_object)) {
      fail(rd, "'%s' is %s, expected an object", rw, type_name(val));
      return;
    }
    rt->name = own_str(rd, key);
    rt->toolchain_version = str(rd, val, rw, "toolchain_version");
    rt->status = str(rd, val, rw, "status");
    rt->reason = str(rd, val, rw, "reason");
    pkg = get(rd, val, rw, "package", json_type_object, 0);
    if (pkg != NULL) {
      char pw[WHERE_MAX];
      join(pw, rw, "package");
      read_package(rd, pkg, pw, &rt->package);
      if (rt->package.error && strstr(rt->package.error, "--no-packages"))
        skipped++;
    }
    p->nruntimes = ++i;
  }
  p->packages_skipped = skipped > 0;
}

static void read_comparisons(struct rd *rd, json_object *doc, const char *where,
                             struct report_platform *p)
{
  json_object *all = get(rd, doc, where, "comparisons", json_type_object, 0);
  char w[WHERE_MAX], cw[WHERE_MAX];
  int n, i = 0;

  if (all == NULL)
    return;
  n = json_object_object_length(all);
  if (n > REPORT_MAX_COMPARISONS) {
    fail(rd, "'%s' has %d comparisons, more than %d", where, n,
         REPORT_MAX_COMPARISONS);
    return;
  }
  p->comparisons = own_array(rd, (size_t)n, sizeof(*p->comparisons));
  if (rd->failed)
    return;
  join(w, where, "comparisons");
  json_object_object_foreach(all, key, val)
  {
    struct report_comparison *c = &p->comparisons[i];
    if (rd->failed || i >= n)
      return;
    join(cw, w, key);
    if (!json_object_is_type(val, json_type_object)) {
      fail(rd, "'%s' is %s, expected an object", cw, type_name(val));
      return;
    }
    c->lane = str_or(rd, val, cw, "lane", "?");
    c->reference = str_or(rd, val, cw, "reference", "?");
    c->verdict = str_or(rd, val, cw, "verdict", "?");
    if (!number(rd, val, cw, "ratio_of_medians", &c->ratio))
      continue; /* a comparison without a ratio says nothing */
    if (!number(rd, val, cw, "mann_whitney_u", &c->u))
      c->u = -1;
    if (!number(rd, val, cw, "p_value_exact", &c->p))
      c->p = -1;
    p->ncomparisons = ++i;
  }
}

static void read_cleanliness(struct rd *rd, json_object *doc, const char *where,
                             struct report_platform *p)
{
  json_object *o = get(rd, doc, where, "cleanliness", json_type_object, 0);
  struct report_cleanliness *c = &p->cleanliness;
  char w[WHERE_MAX];

  if (o == NULL)
    return;
  join(w, where, "cleanliness");
  c->present = 1;
  c->pairs_started = whole_int(rd, o, w, "pairs_started", 0);
  c->natural_exits = whole_int(rd, o, w, "natural_exits", 0);
  c->processes_left = whole_int(rd, o, w, "processes_left", 0);
  c->sockets_left = whole_int(rd, o, w, "sockets_left", 0);
  c->forced_terminations = whole_int(rd, o, w, "forced_terminations", 0);
  c->temp_entries_left = whole_int(rd, o, w, "temp_entries_left", 0);
}

/* One single-OS document at where ("" at the top of a file). */
static void read_platform(struct rd *rd, json_object *doc, const char *where,
                          const char *os, struct report_platform *p)
{
  json_object *o, *lanes;
  char w[WHERE_MAX], lw[WHERE_MAX];
  int64_t n64;
  int n, i = 0;

  if (!json_object_is_type(doc, json_type_object)) {
    fail(rd, "'%s' is %s, expected an object", where, type_name(doc));
    return;
  }
  p->mode = str_or(rd, doc, where, "mode", "unknown");
  p->performance_claims = boolean(rd, doc, where, "performance_claims", 0);
  p->official = boolean(rd, doc, where, "official", 0);
  p->complete = boolean(rd, doc, where, "complete", 1);
  p->incomplete_reason = str(rd, doc, where, "incomplete_reason");
  p->started_at = str(rd, doc, where, "started_at");
  o = get(rd, doc, where, "tool", json_type_object, 0);
  join(w, where, "tool");
  p->tool_version = str(rd, o, w, "version");

  o = get(rd, doc, where, "machine", json_type_object, os == NULL);
  join(w, where, "machine");
  p->os = os ? own_str(rd, os) : str(rd, o, w, "os");
  if (p->os == NULL && !rd->failed)
    fail(rd, "'%s.os' is missing", w);
  p->machine.arch = str(rd, o, w, "arch");
  p->machine.kernel = str(rd, o, w, "kernel");
  p->machine.cpu_model = str(rd, o, w, "cpu_model");
  p->machine.logical_cpus = whole_int(rd, o, w, "logical_cpus", 0);
  p->machine.memory_bytes = whole(rd, o, w, "memory_bytes", &n64) ? n64 : -1;

  o = get(rd, doc, where, "workload", json_type_object, 0);
  join(w, where, "workload");
  p->workload.name = str(rd, o, w, "name");
  p->workload.warmup_round_trips =
      whole(rd, o, w, "warmup_round_trips", &n64) ? n64 : -1;
  p->workload.round_trips = whole(rd, o, w, "round_trips", &n64) ? n64 : -1;
  p->workload.payload_bytes = whole(rd, o, w, "payload_bytes", &n64) ? n64 : -1;
  p->workload.max_in_flight = whole(rd, o, w, "max_in_flight", &n64) ? n64 : -1;
  p->workload.samples_per_lane = whole_int(rd, o, w, "samples_per_lane", 0);

  o = get(rd, doc, where, "provenance", json_type_object, 0);
  join(w, where, "provenance");
  p->provenance.commit = str(rd, o, w, "commit");
  p->provenance.branch = str(rd, o, w, "branch");
  {
    json_object *ci = get(rd, o, w, "ci", json_type_object, 0);
    char cw[WHERE_MAX];
    join(cw, w, "ci");
    p->provenance.ci_provider = str(rd, ci, cw, "provider");
    p->provenance.ci_workflow = str(rd, ci, cw, "workflow");
    p->provenance.ci_run_id = str(rd, ci, cw, "run_id");
  }
  o = get(rd, doc, where, "shard", json_type_object, 0);
  join(w, where, "shard");
  p->shard_index = whole_int(rd, o, w, "index", 0);
  p->shard_count = whole_int(rd, o, w, "count", 0);

  read_runtimes(rd, doc, where, p);

  lanes = get(rd, doc, where, "lanes", json_type_object, 1);
  if (rd->failed)
    return;
  n = json_object_object_length(lanes);
  if (n > REPORT_MAX_LANES) {
    fail(rd, "'%s' has %d lanes, more than %d", where, n, REPORT_MAX_LANES);
    return;
  }
  p->lanes = own_array(rd, (size_t)n, sizeof(*p->lanes));
  if (rd->failed)
    return;
  join(w, where, "lanes");
  json_object_object_foreach(lanes, key, val)
  {
    if (rd->failed || i >= n)
      return;
    join(lw, w, key);
    read_lane(rd, key, val, lw, &p->lanes[i]);
    p->nlanes = ++i;
  }
  read_comparisons(rd, doc, where, p);
  read_cleanliness(rd, doc, where, p);
}

static void read_document(struct rd *rd, json_object *doc)
{
  struct report *r = rd->r;
  json_object *v, *platforms;
  int64_t version;
  int n, i = 0;

  if (!json_object_is_type(doc, json_type_object)) {
    fail(rd, "the document is %s, expected an object", type_name(doc));
    return;
  }
  if (!whole(rd, doc, "", "schema_version", &version)) {
    if (!rd->failed)
      fail(rd, "'schema_version' is missing: not crossrun evidence");
    return;
  }
  if (version != 1) {
    fail(rd, "schema_version %lld is not supported (this crossrun reads 1)",
         (long long)version);
    return;
  }
  r->mode = str(rd, doc, "", "mode");
  if (r->mode == NULL) {
    if (!rd->failed)
      fail(rd, "'mode' is missing");
    return;
  }
  v = get(rd, doc, "", "tool", json_type_object, 0);
  r->tool_version = str(rd, v, "tool", "version");
  r->official = boolean(rd, doc, "", "official", 0);
  if (strcmp(r->mode, "merged") != 0) {
    r->platforms = own_array(rd, 1, sizeof(*r->platforms));
    if (rd->failed)
      return;
    read_platform(rd, doc, "", NULL, &r->platforms[0]);
    r->nplatforms = 1;
    r->performance_claims = r->platforms[0].performance_claims;
    r->commit = r->platforms[0].provenance.commit;
    return;
  }
  r->merged = 1;
  r->commit = str(rd, doc, "", "commit");
  platforms = get(rd, doc, "", "platforms", json_type_object, 1);
  if (rd->failed)
    return;
  n = json_object_object_length(platforms);
  if (n < 1 || n > REPORT_MAX_PLATFORMS) {
    fail(rd, "'platforms' has %d entries, expected 1 to %d", n,
         REPORT_MAX_PLATFORMS);
    return;
  }
  r->platforms = own_array(rd, (size_t)n, sizeof(*r->platforms));
  if (rd->failed)
    return;
  r->performance_claims = boolean(rd, doc, "", "performance_claims", 1);
  json_object_object_foreach(platforms, key, val)
  {
    char w[WHERE_MAX];
    if (rd->failed || i >= n)
      return;
    join(w, "platforms", key);
    read_platform(rd, val, w, key, &r->platforms[i]);
    r->nplatforms = ++i;
    if (!r->platforms[i - 1].performance_claims)
      r->performance_claims = 0;
    if (r->tool_version == NULL)
      r->tool_version = r->platforms[i - 1].tool_version;
  }
}

/* Appends name to list (n entries) unless it is there. */
static int add_name(const char **list, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0)
      return n;
  list[n] = name;
  return n + 1;
}

static void pair_runtimes(struct rd *rd, struct report_platform *p)
{
  const char **list = own_array(rd, (size_t)p->nlanes * 2, sizeof(*list));
  int n = 0;

  if (list == NULL)
    return;
  for (int i = 0; i < p->nruntimes; i++) {
    for (int l = 0; l < p->nlanes; l++) {
      if (strcmp(p->lanes[l].client, p->runtimes[i].name) == 0 ||
          strcmp(p->lanes[l].server, p->runtimes[i].name) == 0) {
        n = add_name(list, n, p->runtimes[i].name);
        break;
      }
    }
  }
  for (int l = 0; l < p->nlanes; l++) {
    n = add_name(list, n, p->lanes[l].client);
    n = add_name(list, n, p->lanes[l].server);
  }
  p->pair_runtimes = list;
  p->npair_runtimes = n;
}

static void lane_names(struct rd *rd, struct report *r)
{
  size_t total = 0;
  const char **list;
  int n = 0;

  for (int p = 0; p < r->nplatforms; p++)
    total += (size_t)r->platforms[p].nlanes;
  list = own_array(rd, total, sizeof(*list));
  if (list == NULL)
    return;
  for (int p = 0; p < r->nplatforms; p++)
    for (int l = 0; l < r->platforms[p].nlanes; l++)
      n = add_name(list, n, r->platforms[p].lanes[l].name);
  r->lane_names = list;
  r->nlane_names = n;
}

/* Error messages quote names from the file: no control character may
 * reach the one line. */
static void one_line(char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      *s = '?';
}

int report_parse(struct report *r, const char *name, const char *text,
                 size_t len, char *err, size_t errlen)
{
  struct rd rd = {r, err, errlen, 0};
  struct json_tokener *tok;
  json_object *doc;
  enum json_tokener_error jerr;
  size_t end;

  report_init(r);
  if (len == 0) {
    snprintf(err, errlen, "empty file");
    return -1;
  }
  if (len > REPORT_MAX_FILE_BYTES || len > (size_t)INT32_MAX) {
    snprintf(err, errlen, "larger than %d MiB",
             REPORT_MAX_FILE_BYTES / (1024 * 1024));
    return -1;
  }
  if (memchr(text, '\0', len) != NULL) {
    snprintf(err, errlen, "not JSON: a NUL byte at byte %zu",
             (size_t)((const char *)memchr(text, '\0', len) - text));
    return -1;
  }
  tok = json_tokener_new_ex(REPORT_MAX_DEPTH);
  if (tok == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
  doc = json_tokener_parse_ex(tok, text, (int)len);
  jerr = json_tokener_get_error(tok);
  end = json_tokener_get_parse_end(tok);
  json_tokener_free(tok);
  if (jerr == json_tokener_continue) {
    snprintf(err, errlen, "not JSON: the document ends early");
    json_object_put(doc);
    return -1;
  }
  if (jerr != json_tokener_success || doc == NULL) {
    snprintf(err, errlen, "not JSON: %s at byte %zu",
             json_tokener_error_desc(jerr), end);
    json_object_put(doc);
    return -1;
  }
  for (; end < len; end++) {
    if (!strchr(" \t\r\n", text[end])) {
      snprintf(err, errlen, "not JSON: more after the document at byte %zu",
               end);
      json_object_put(doc);
      return -1;
    }
  }
  {
    /* Folders of the path could name a person or a machine. */
    const char *base = name ? name : "evidence";
    for (const char *c = base; *c; c++)
      if ((*c == '/' || *c == '\\') && c[1] != '\0')
        base = c + 1;
    r->source = own_str(&rd, base);
  }
  read_document(&rd, doc);
  json_object_put(doc);
  for (int p = 0; p < r->nplatforms && !rd.failed; p++)
    pair_runtimes(&rd, &r->platforms[p]);
  if (!rd.failed)
    lane_names(&rd, r);
  if (rd.failed) {
    one_line(err);
    report_release(r);
    return -1;
  }
  return 0;
}

int report_load(struct report *r, const char *path, char *err, size_t errlen)
{
  FILE *f;
  char *text;
  size_t len = 0, cap = 65536;
  int rc;

  report_init(r);
  f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    return -1;
  }
  /* A regular file too large is refused without reading it; a stream is
   * read up to one byte past the limit. A folder opens but cannot be
   * read, and its size means nothing. */
  if (fgetc(f) == EOF && ferror(f)) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    fclose(f);
    return -1;
  }
  rewind(f);
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    if (size > (long)REPORT_MAX_FILE_BYTES) {
      fclose(f);
      snprintf(err, errlen, "larger than %d MiB",
               REPORT_MAX_FILE_BYTES / (1024 * 1024));
      return -1;
    }
    rewind(f);
  }
  text = malloc(cap);
  while (text != NULL) {
    size_t got;
    if (len == cap) {
      char *grown;
      if (cap > REPORT_MAX_FILE_BYTES) {
        free(text);
        fclose(f);
        snprintf(err, errlen, "larger than %d MiB",
                 REPORT_MAX_FILE_BYTES / (1024 * 1024));
        return -1;
      }
      /* One byte past the limit is enough to know the file is too
       * large. */
      cap = cap * 2 > (size_t)REPORT_MAX_FILE_BYTES + 1
                ? (size_t)REPORT_MAX_FILE_BYTES + 1
                : cap * 2;
      grown = realloc(text, cap);
      if (grown == NULL) {
        free(text);
        text = NULL;
        break;
      }
      text = grown;
    }
    got = fread(text + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  if (text == NULL) {
    fclose(f);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    free(text);
    fclose(f);
    return -1;
  }
  fclose(f);
  rc = report_parse(r, path, text, len, err, errlen);
  free(text);
  return rc;
}

const struct report_lane *report_find_lane(const struct report_platform *p,
                                           const char *name)
{
  for (int l = 0; l < p->nlanes; l++)
    if (strcmp(p->lanes[l].name, name) == 0)
      return &p->lanes[l];
  return NULL;
}

const struct report_lane *report_lane_of(const struct report_platform *p,
                                         const char *c, const char *s)
{
  for (int l = 0; l < p->nlanes; l++)
    if (strcmp(p->lanes[l].client, c) == 0 &&
        strcmp(p->lanes[l].server, s) == 0)
      return &p->lanes[l];
  return NULL;
}

const struct report_package *report_package_of(const struct report_platform *p,
                                               const char *name)
{
  for (int i = 0; i < p->nruntimes; i++)
    if (strcmp(p->runtimes[i].name, name) == 0 &&
        p->runtimes[i].package.present)
      return &p->runtimes[i].package;
  return NULL;
}
