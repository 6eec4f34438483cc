/* The rows of `crossrun compare`: platforms and lanes matched by name,
 * each sampled figure tested on its raw samples, the family corrected by
 * Holm-Bonferroni, then the geometric means; the packages in
 * diff_package.c. */
#include "evidence/diff/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/utf8.h"
#include "evidence/diff/diff_internal.h"
#include "evidence/diff/diff_u.h"
#include "evidence/write/stats.h"

/* The sampled figures, in the order of the rows. A change of a time
 * (is_time) is slower or faster, of bytes bigger or smaller. The paths are read
 * from each passed sample; figures an older evidence file lacks (cost, added
 * with the latency histograms) have no values there. */
static const struct diff_figure figures[] = {
    {"ns_per_round_trip", "ns", "ns_per_round_trip", 1},
    {"latency_p50_ns", "ns", "cost.latency_ns.p50", 1},
    {"latency_p90_ns", "ns", "cost.latency_ns.p90", 1},
    {"latency_p99_ns", "ns", "cost.latency_ns.p99", 1},
    {"latency_p99_9_ns", "ns", "cost.latency_ns.p99_9", 1},
    {"client_cpu_us_per_round_trip", "us", "cost.client_cpu_us_per_round_trip",
     1},
    {"server_cpu_us_per_round_trip", "us", "cost.server_cpu_us_per_round_trip",
     1},
    {"client_peak_rss_bytes", "bytes", "client.memory.peak_rss_bytes", 0},
    {"server_peak_rss_bytes", "bytes", "server.memory.peak_rss_bytes", 0},
    {"server_ready_ns", "ns", "server_ready_ns", 1},
};
#define NFIGURES ((int)(sizeof(figures) / sizeof(figures[0])))

json_object *diff_get(json_object *o, const char *dotted)
{
  char key[64];

  while (o != NULL && *dotted) {
    const char *dot = strchr(dotted, '.');
    size_t len = dot ? (size_t)(dot - dotted) : strlen(dotted);
    if (len >= sizeof(key) || !json_object_is_type(o, json_type_object))
      return NULL;
    memcpy(key, dotted, len);
    key[len] = '\0';
    if (!json_object_object_get_ex(o, key, &o))
      return NULL;
    dotted += len + (dot != NULL);
  }
  return o;
}

const char *diff_string(json_object *o, const char *dotted)
{
  json_object *v = diff_get(o, dotted);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : NULL;
}

int diff_number(json_object *o, const char *dotted, double *out)
{
  json_object *v = diff_get(o, dotted);
  double d;

  if (!json_object_is_type(v, json_type_int) &&
      !json_object_is_type(v, json_type_double))
    return 0;
  /* A number beyond a double's range (1e4006) reads as infinite: not a
   * figure, as if absent, so no row holds what JSON cannot write. */
  d = json_object_get_double(v);
  if (!isfinite(d))
    return 0;
  *out = d;
  return 1;
}

void diff_text(char *out, size_t outlen, const char *text)
{
  size_t at = 0, len = text ? strlen(text) : 0;

  if (outlen == 0)
    return;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    int n = utf8_decode(text + i, len - i, &cp);
    int keep = n > 0 && cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0);
    size_t put = keep ? (size_t)n : 1;
    if (at + put >= outlen)
      break;
    if (keep)
      memcpy(out + at, text + i, put);
    else
      out[at] = '?';
    at += put;
    i += n > 0 ? (size_t)n : 1;
  }
  out[at] = '\0';
}

long long diff_bytes(double v)
{
  if (!(v >= 0))
    return -1;
  return v < 0x1p62 ? (long long)v : (long long)1 << 62;
}

void *diff_grow(void *array, int n, int *cap, size_t size)
{
  void *bigger;
  int want = *cap ? 2 * *cap : 16;

  if (n < *cap)
    return array;
  bigger = realloc(array, (size_t)want * size);
  if (bigger != NULL)
    *cap = want;
  return bigger;
}

struct diff_row *diff_add_row(struct diff *d, enum diff_row_kind kind,
                              const char *platform, const char *subject,
                              const char *figure, const char *unit)
{
  struct diff_row *rows =
      diff_grow(d->rows, d->nrows, &d->rows_cap, sizeof(*rows));
  struct diff_row *r;

  if (rows == NULL)
    return NULL;
  d->rows = rows;
  r = &rows[d->nrows++];
  memset(r, 0, sizeof(*r));
  r->kind = kind;
  diff_text(r->platform, sizeof(r->platform), platform);
  diff_text(r->subject, sizeof(r->subject), subject);
  r->figure = figure;
  r->unit = unit;
  r->verdict = "";
  return r;
}

int diff_add_note(struct diff *d, const char *platform, const char *text)
{
  struct diff_note *notes =
      diff_grow(d->notes, d->nnotes, &d->notes_cap, sizeof(*notes));
  if (notes == NULL)
    return -1;
  d->notes = notes;
  diff_text(notes[d->nnotes].platform, sizeof(notes[0].platform), platform);
  diff_text(notes[d->nnotes].text, sizeof(notes[0].text), text);
  d->nnotes++;
  return 0;
}

/* The platforms of a document: a single-OS file is one, its machine.os;
 * a merged one each of platforms. Returns the count (at most 3), or -1
 * with the problem in err. */
static int platforms_of(json_object *doc, const char *label,
                        struct diff_platform *out, char *err, size_t errlen)
{
  const char *mode = diff_string(doc, "mode");
  json_object *all;
  int n = 0;

  if (mode == NULL) {
    snprintf(err, errlen, "%s: not an evidence document: no mode", label);
    return -1;
  }
  if (strcmp(mode, "merged") != 0) {
    const char *os = diff_string(doc, "machine.os");
    if (os == NULL ||
        !json_object_is_type(diff_get(doc, "lanes"), json_type_object)) {
      snprintf(err, errlen,
               "%s: not an evidence document: no machine.os or lanes", label);
      return -1;
    }
    diff_text(out[0].os, sizeof(out[0].os), os);
    out[0].body = doc;
    return 1;
  }
  all = diff_get(doc, "platforms");
  if (!json_object_is_type(all, json_type_object)) {
    snprintf(err, errlen, "%s: a merged document without platforms", label);
    return -1;
  }
  json_object_object_foreach(all, os, body)
  {
    char name[DIFF_NAME_MAX];
    diff_text(name, sizeof(name), os);
    if (n == DIFF_MAX_PLATFORMS) {
      snprintf(err, errlen, "%s: more than %d platforms (at '%s')", label,
               DIFF_MAX_PLATFORMS, name);
      return -1;
    }
    if (!json_object_is_type(diff_get(body, "lanes"), json_type_object)) {
      snprintf(err, errlen, "%s: platform '%s' has no lanes", label, name);
      return -1;
    }
    diff_text(out[n].os, sizeof(out[n].os), os);
    out[n++].body = body;
  }
  return n;
}

/* The values of a figure over a lane's passed samples, into a new array
 * (NULL with *n 0 when there are none); -1 when out of memory. */
static int lane_values(json_object *lane, const struct diff_figure *fig,
                       double **out, int *n)
{
  json_object *samples = diff_get(lane, "samples");
  size_t len = json_object_is_type(samples, json_type_array)
                   ? json_object_array_length(samples)
                   : 0;

  *out = NULL;
  *n = 0;
  if (len == 0)
    return 0;
  *out = malloc(len * sizeof(double));
  if (*out == NULL)
    return -1;
  for (size_t i = 0; i < len; i++) {
    json_object *s = json_object_array_get_idx(samples, i);
    const char *status = diff_string(s, "status");
    double v;
    if (status != NULL && strcmp(status, "passed") == 0 &&
        diff_number(s, fig->path, &v))
      (*out)[(*n)++] = v;
  }
  if (*n == 0) {
    free(*out);
    *out = NULL;
  }
  return 0;
}

static void side_of(const double *v, int n, struct diff_side *s)
{
  struct stats_figure f;
  double *copy;

  memset(s, 0, sizeof(*s));
  if (n == 0 || (copy = malloc((size_t)n * sizeof(double))) == NULL)
    return;
  memcpy(copy, v, (size_t)n * sizeof(double));
  stats_figure_of(copy, n, &f); /* sorts its input */
  free(copy);
  s->n = n;
  s->median = f.median;
  s->min = f.min;
  s->max = f.max;
}

static void set_change(struct diff_row *r)
{
  if (r->old_side.n > 0 && r->new_side.n > 0 && r->old_side.median > 0) {
    r->have_change = 1;
    r->change_pct = (r->new_side.median / r->old_side.median - 1) * 100;
  } else if (r->old_side.n > 0 && r->new_side.n > 0 &&
             r->new_side.median == r->old_side.median) {
    r->have_change = 1; /* both 0 */
    r->change_pct = 0;
  }
}

/* One sampled row: values, and the test unless refused says why not. */
static int sampled_row(struct diff *d, const char *os, const char *lane_name,
                       json_object *old_lane, json_object *new_lane,
                       const struct diff_figure *fig, const char *refused)
{
  double *a = NULL, *b = NULL;
  int na = 0, nb = 0, rc = -1;
  struct diff_row *r;

  if (lane_values(old_lane, fig, &a, &na) != 0 ||
      lane_values(new_lane, fig, &b, &nb) != 0)
    goto out;
  rc = 0;
  if (na == 0 && nb == 0)
    goto out; /* neither file has this figure for the lane */
  r = diff_add_row(d, DIFF_ROW_SAMPLED, os, lane_name, fig->name, fig->unit);
  if (r == NULL) {
    rc = -1;
    goto out;
  }
  r->p_holm = 1;
  side_of(a, na, &r->old_side);
  side_of(b, nb, &r->new_side);
  set_change(r);
  r->verdict = "not compared";
  if (refused != NULL) {
    snprintf(r->reason, sizeof(r->reason), "%s", refused);
  } else if (na == 0 || nb == 0) {
    snprintf(r->reason, sizeof(r->reason), "not reported in %s",
             na == 0 ? "OLD" : "NEW");
  } else {
    struct diff_u u;
    if (diff_u_test(a, na, b, nb, &u) != 0) {
      rc = -1;
      goto out;
    }
    r->tested = 1;
    r->u = u.u;
    r->p = u.p;
    r->p_exact = u.exact;
    d->tested++;
  }
out:
  free(a);
  free(b);
  return rc;
}

/* Why a platform's sampled figures cannot be compared, or NULL: the
 * short reason each row carries, the whole one (naming the difference)
 * in why. */
static const char *refusal(const struct diff *d, json_object *old_body,
                           json_object *new_body, char *why, size_t len)
{
  static const char *const machine[] = {"cpu_model", "logical_cpus"};
  static const char *const workload[] = {"warmup_round_trips", "round_trips",
                                         "payload_bytes", "max_in_flight"};
  json_object *claims_old = diff_get(old_body, "performance_claims");
  json_object *claims_new = diff_get(new_body, "performance_claims");

  if (!json_object_get_boolean(claims_old) ||
      !json_object_get_boolean(claims_new)) {
    snprintf(why, len,
             "%s makes no performance claims (quick evidence: "
             "exact figures only)",
             !json_object_get_boolean(claims_old) ? "OLD" : "NEW");
    return "no performance claims";
  }
  for (int i = 0; i < 4; i++) {
    char key[64];
    const char *o, *n;
    snprintf(key, sizeof(key), "workload.%s", workload[i]);
    o = json_object_to_json_string(diff_get(old_body, key));
    n = json_object_to_json_string(diff_get(new_body, key));
    if (strcmp(o, n) != 0) {
      snprintf(why, len, "different workloads: %s %s in OLD, %s in NEW",
               workload[i], o, n);
      return "different workloads";
    }
  }
  for (int i = 0; i < 2 && !d->opts.allow_different_machines; i++) {
    char key[64];
    const char *o, *n;
    snprintf(key, sizeof(key), "machine.%s", machine[i]);
    o = json_object_to_json_string(diff_get(old_body, key));
    n = json_object_to_json_string(diff_get(new_body, key));
    if (strcmp(o, n) != 0) {
      snprintf(why, len,
               "different machines: %s %s in OLD, %s in NEW "
               "(--allow-different-machines compares them)",
               machine[i], o, n);
      return "different machines";
    }
  }
  return NULL;
}

static int status_row(struct diff *d, const char *os, const char *lane_name,
                      json_object *old_lane, json_object *new_lane)
{
  const char *o = diff_string(old_lane, "summary.status");
  const char *n = diff_string(new_lane, "summary.status");
  struct diff_row *r;

  o = o ? o : "unknown";
  n = n ? n : "unknown";
  if (strcmp(o, n) == 0)
    return 0;
  r = diff_add_row(d, DIFF_ROW_STATUS, os, lane_name, "status", "");
  if (r == NULL)
    return -1;
  diff_text(r->old_text, sizeof(r->old_text), o);
  diff_text(r->new_text, sizeof(r->new_text), n);
  r->verdict = "status changed";
  r->regression = strcmp(o, "passed") == 0;
  return 0;
}

static int lanes_of_platform(struct diff *d, const char *os,
                             json_object *old_body, json_object *new_body)
{
  json_object *old_lanes = diff_get(old_body, "lanes");
  json_object *new_lanes = diff_get(new_body, "lanes");
  char why[DIFF_TEXT_MAX];
  const char *refused = NULL;

  if (old_body != NULL && new_body != NULL) {
    refused = refusal(d, old_body, new_body, why, sizeof(why));
    if (refused != NULL && diff_add_note(d, os, why) != 0)
      return -1;
  }
  /* NEW's lanes in its order, then those gone from it in OLD's. */
  if (new_lanes != NULL) {
    json_object_object_foreach(new_lanes, name, new_lane)
    {
      json_object *old_lane = NULL;
      if (old_lanes == NULL ||
          !json_object_object_get_ex(old_lanes, name, &old_lane)) {
        struct diff_row *r =
            diff_add_row(d, DIFF_ROW_LANE, os, name, "lane", "");
        if (r == NULL)
          return -1;
        r->verdict = "new lane";
        diff_text(r->new_text, sizeof(r->new_text),
                  diff_string(new_lane, "summary.status")
                      ? diff_string(new_lane, "summary.status")
                      : "unknown");
        continue;
      }
      if (status_row(d, os, name, old_lane, new_lane) != 0)
        return -1;
      for (int f = 0; f < NFIGURES; f++)
        if (sampled_row(d, os, name, old_lane, new_lane, &figures[f],
                        refused) != 0)
          return -1;
    }
  }
  if (old_lanes != NULL) {
    json_object_object_foreach(old_lanes, name, old_lane)
    {
      struct diff_row *r;
      if (new_lanes != NULL && json_object_object_get_ex(new_lanes, name, NULL))
        continue;
      r = diff_add_row(d, DIFF_ROW_LANE, os, name, "lane", "");
      if (r == NULL)
        return -1;
      r->verdict = "gone";
      diff_text(r->old_text, sizeof(r->old_text),
                diff_string(old_lane, "summary.status")
                    ? diff_string(old_lane, "summary.status")
                    : "unknown");
    }
  }
  return 0;
}

static int by_p(const void *x, const void *y)
{
  const struct diff_row *a = *(struct diff_row *const *)x;
  const struct diff_row *b = *(struct diff_row *const *)y;
  return (a->p > b->p) - (a->p < b->p);
}

/* Holm-Bonferroni over every tested row: the i-th smallest of m p-values
 * is multiplied by m - i (0-based), and the adjusted values are made
 * non-decreasing, so a row is significant exactly when Holm's step-down
 * procedure at alpha rejects it. */
static int holm(struct diff *d)
{
  struct diff_row **t =
      malloc((size_t)(d->tested ? d->tested : 1) * sizeof(*t));
  int m = 0;
  double running = 0;

  if (t == NULL)
    return -1;
  for (int i = 0; i < d->nrows; i++)
    if (d->rows[i].tested)
      t[m++] = &d->rows[i];
  qsort(t, (size_t)m, sizeof(*t), by_p);
  for (int i = 0; i < m; i++) {
    double adj = fmin(1.0, t[i]->p * (double)(m - i));
    running = fmax(running, adj);
    t[i]->p_holm = running;
  }
  free(t);
  return 0;
}

static void verdict_of(struct diff *d, struct diff_row *r, int is_time)
{
  double change = r->change_pct;

  if (!r->tested)
    return;
  if (!(r->p_holm < d->opts.alpha)) {
    r->verdict = "~";
    return;
  }
  if (!r->have_change) {
    /* Significant from a zero median: the direction without a percent. */
    change = r->new_side.median > r->old_side.median ? INFINITY : -INFINITY;
  }
  if (fabs(change) <= d->opts.threshold_pct)
    r->verdict = "tie";
  else if (change > 0)
    r->verdict = is_time ? "slower" : "bigger";
  else
    r->verdict = is_time ? "faster" : "smaller";
  r->regression = change > d->opts.threshold_pct;
}

static const struct diff_figure *figure_named(const char *name)
{
  for (int f = 0; f < NFIGURES; f++)
    if (strcmp(figures[f].name, name) == 0)
      return &figures[f];
  return NULL;
}

/* benchstat's geomean row: per platform and figure, the geometric mean of
 * the medians of the lanes compared on both sides (every median above 0),
 * so one lane's large figure does not outweigh the others' changes. */
static int geomeans(struct diff *d, const char *os)
{
  for (int f = 0; f < NFIGURES; f++) {
    double lo = 0, ln = 0;
    int n = 0, end = d->nrows;
    struct diff_row *r;
    for (int i = 0; i < end; i++) {
      const struct diff_row *x = &d->rows[i];
      if (x->kind == DIFF_ROW_SAMPLED && x->tested &&
          strcmp(x->platform, os) == 0 &&
          strcmp(x->figure, figures[f].name) == 0 && x->old_side.median > 0 &&
          x->new_side.median > 0) {
        lo += log(x->old_side.median);
        ln += log(x->new_side.median);
        n++;
      }
    }
    if (n < 2)
      continue; /* one lane's geomean is its own row */
    r = diff_add_row(d, DIFF_ROW_GEOMEAN, os, "geomean", figures[f].name,
                     figures[f].unit);
    if (r == NULL)
      return -1;
    r->old_side.n = r->new_side.n = n;
    r->old_side.median = r->old_side.min = r->old_side.max = exp(lo / n);
    r->new_side.median = r->new_side.min = r->new_side.max = exp(ln / n);
    set_change(r);
  }
  return 0;
}

static void file_of(json_object *doc, struct diff_file *f)
{
  const char *mode = diff_string(doc, "mode");
  diff_text(f->mode, sizeof(f->mode), mode ? mode : "unknown");
  f->performance_claims =
      json_object_get_boolean(diff_get(doc, "performance_claims"));
}

int diff_compare(struct diff *d, json_object *old_doc, json_object *new_doc,
                 const struct diff_options *opts, char *err, size_t errlen)
{
  struct diff_platform op[DIFF_MAX_PLATFORMS], np[DIFF_MAX_PLATFORMS];
  int no, nn;

  memset(d, 0, sizeof(*d));
  d->opts = *opts;
  if ((no = platforms_of(old_doc, "OLD", op, err, errlen)) < 0 ||
      (nn = platforms_of(new_doc, "NEW", np, err, errlen)) < 0)
    return -1;
  file_of(old_doc, &d->old_file);
  file_of(new_doc, &d->new_file);
  /* NEW's platforms, then those only OLD has. */
  for (int i = 0; i < nn; i++) {
    json_object *old_body = NULL;
    for (int j = 0; j < no; j++)
      if (strcmp(op[j].os, np[i].os) == 0)
        old_body = op[j].body;
    if (lanes_of_platform(d, np[i].os, old_body, np[i].body) != 0 ||
        diff_packages(d, np[i].os, old_body, np[i].body) != 0)
      goto oom;
  }
  for (int j = 0; j < no; j++) {
    int in_new = 0;
    for (int i = 0; i < nn; i++)
      in_new |= strcmp(op[j].os, np[i].os) == 0;
    if (!in_new && (lanes_of_platform(d, op[j].os, op[j].body, NULL) != 0 ||
                    diff_packages(d, op[j].os, op[j].body, NULL) != 0))
      goto oom;
  }
  if (holm(d) != 0)
    goto oom;
  for (int i = 0; i < d->nrows; i++) {
    const struct diff_figure *fig = figure_named(d->rows[i].figure);
    if (d->rows[i].kind == DIFF_ROW_SAMPLED && fig != NULL)
      verdict_of(d, &d->rows[i], fig->is_time);
  }
  for (int i = 0; i < nn; i++)
    if (geomeans(d, np[i].os) != 0)
      goto oom;
  for (int i = 0; i < d->nrows; i++)
    d->regressions += d->rows[i].regression;
  return 0;
oom:
  snprintf(err, errlen, "out of memory");
  return -1;
}

void diff_release(struct diff *d)
{
  free(d->rows);
  free(d->entries);
  free(d->notes);
  memset(d, 0, sizeof(*d));
}
