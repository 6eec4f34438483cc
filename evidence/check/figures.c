/* The recompute of evidence/check/figures.h. A document's lanes are read
 * back into the writer's model (evidence/write/evidence.h), only the
 * fields the derived figures are made of, and handed to the functions that
 * wrote them; their output is set against the document member by member.
 * There is no second copy of any policy here: what is checked is what the
 * writer would have written from these samples. */
#include "evidence/check/figures.h"
#include "evidence/check/conform_figures.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/compare.h"
#include "evidence/write/cost.h"
#include "evidence/write/evidence.h"
#include "protocol/histogram.h"

struct walk {
  figures_sink *sink;
  void *ctx;
  int found;
  char ptr[FIGURES_POINTER_MAX];
  size_t len;
};

/* ---- reading the document ---- */

static json_object *get(json_object *o, const char *key)
{
  json_object *v = NULL;
  if (!json_object_is_type(o, json_type_object) ||
      !json_object_object_get_ex(o, key, &v))
    return NULL;
  return v;
}

static const char *str(json_object *o, const char *key)
{
  json_object *v = get(o, key);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : NULL;
}

static int is_int(json_object *v)
{
  return json_object_is_type(v, json_type_int);
}

/* o.key when an integer, else dflt (null: "not measured"). */
static int64_t int_or(json_object *o, const char *key, int64_t dflt)
{
  json_object *v = get(o, key);
  return is_int(v) ? json_object_get_int64(v) : dflt;
}

static int truth(json_object *o, const char *key)
{
  json_object *v = get(o, key);
  return json_object_is_type(v, json_type_boolean) &&
         json_object_get_boolean(v);
}

static int is(const char *a, const char *b)
{
  return a != NULL && strcmp(a, b) == 0;
}

/* ---- reporting ---- */

static size_t push(struct walk *w, const char *key)
{
  size_t at = w->len;
  if (w->len + 1 < sizeof(w->ptr))
    w->ptr[w->len++] = '/';
  for (const char *c = key; *c && w->len + 2 < sizeof(w->ptr); c++) {
    /* RFC 6901: '~' is written ~0 and '/' ~1. */
    if (*c == '~' || *c == '/') {
      w->ptr[w->len++] = '~';
      w->ptr[w->len++] = *c == '~' ? '0' : '1';
    } else {
      w->ptr[w->len++] = *c;
    }
  }
  w->ptr[w->len] = '\0';
  return at;
}

static size_t push_index(struct walk *w, size_t i)
{
  char key[32];
  snprintf(key, sizeof(key), "%zu", i);
  return push(w, key);
}

static void pop(struct walk *w, size_t at)
{
  w->len = at;
  w->ptr[at] = '\0';
}

/* v as JSON, cut to FIGURES_VALUE_SHOWN bytes. */
static void shown(json_object *v, char *out, size_t outlen)
{
  char num[40];
  const char *t;

  if (json_object_is_type(v, json_type_double)) {
    /* The shortest form that reads back as the same double. */
    double d = json_object_get_double(v);
    for (int digits = 1; digits <= 17; digits++) {
      snprintf(num, sizeof(num), "%.*g", digits, d);
      if (strtod(num, NULL) == d)
        break;
    }
    snprintf(out, outlen, "%s", num);
    return;
  }
  t = v == NULL
          ? "null"
          : json_object_to_json_string_ext(
                v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
  size_t n = strlen(t);

  if (n > FIGURES_VALUE_SHOWN)
    snprintf(out, outlen, "%.*s...", FIGURES_VALUE_SHOWN, t);
  else
    snprintf(out, outlen, "%s", t);
}

/* A finding at w's pointer, with child appended when not NULL. */
static void finding(struct walk *w, const char *child, json_object *recorded,
                    int has_recomputed, json_object *recomputed,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void finding(struct walk *w, const char *child, json_object *recorded,
                    int has_recomputed, json_object *recomputed,
                    const char *fmt, ...)
{
  char message[FIGURES_MESSAGE_MAX], rec[FIGURES_VALUE_SHOWN + 8];
  char rule[FIGURES_MESSAGE_MAX];
  struct figures_finding f;
  size_t at = child ? push(w, child) : w->len;
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(rule, sizeof(rule), fmt, ap);
  va_end(ap);
  shown(recorded, rec, sizeof(rec));
  snprintf(message, sizeof(message), "at %s: recorded %s, %s",
           w->len ? w->ptr : "(root)", rec, rule);
  f.pointer = w->ptr;
  f.recorded = recorded;
  f.has_recomputed = has_recomputed;
  f.recomputed = recomputed;
  f.message = message;
  w->found++;
  if (w->sink != NULL)
    w->sink(w->ctx, &f);
  pop(w, at);
}

/* Numbers by value (a median the writer printed and json-c read back may
 * differ in its last bit), everything else by JSON equality. */
static int same(json_object *a, json_object *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (is_int(a) && is_int(b))
    return json_object_get_int64(a) == json_object_get_int64(b);
  if ((is_int(a) || json_object_is_type(a, json_type_double)) &&
      (is_int(b) || json_object_is_type(b, json_type_double))) {
    double x = json_object_get_double(a), y = json_object_get_double(b);
    return x == y || fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y));
  }
  return json_object_equal(a, b);
}

/* A recomputed value against the document's. */
static void expect(struct walk *w, const char *key, json_object *recorded,
                   json_object *recomputed)
{
  char want[FIGURES_VALUE_SHOWN + 8];

  if (same(recorded, recomputed))
    return;
  shown(recomputed, want, sizeof(want));
  finding(w, key, recorded, 1, recomputed, "recomputed from the raw samples %s",
          want);
}

/* Every member of the recomputed object against the recorded one's. */
static void expect_members(struct walk *w, json_object *recorded,
                           json_object *recomputed)
{
  json_object_object_foreach(recomputed, key, want)
  {
    expect(w, key, get(recorded, key), want);
  }
}

/* ---- the writer's model, from the document ---- */

static int status_of(const char *s)
{
  static const enum model_status all[] = {MODEL_PASSED, MODEL_FAILED,
                                          MODEL_UNSUPPORTED, MODEL_UNAVAILABLE,
                                          MODEL_ERROR};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    if (is(s, model_status_name(all[i])))
      return (int)all[i];
  return (int)MODEL_ERROR;
}

static void peer_of(json_object *p, struct model_peer *out)
{
  json_object *exit = get(p, "exit"), *cpu = get(p, "cpu");

  out->started = truth(p, "started");
  out->reaped = truth(exit, "reaped");
  out->forced = truth(exit, "forced_termination");
  out->wall_ns = (uint64_t)int_or(exit, "wall_ns", 0);
  out->user_cpu_ns = int_or(cpu, "user_ns", -1);
  out->system_cpu_ns = int_or(cpu, "system_ns", -1);
  out->peak_rss_bytes = int_or(get(p, "memory"), "peak_rss_bytes", -1);
}

/* A sample's count, within what can be summed; a count beyond it is
 * reported and read as FIGURES_MAX_COUNT. */
static int count_of(struct walk *w, json_object *s, const char *key)
{
  json_object *v = get(s, key);
  int64_t n = is_int(v) ? json_object_get_int64(v) : 0;

  if (n < 0 || n > FIGURES_MAX_COUNT) {
    finding(w, key, v, 0, NULL, "beyond what a sample can hold (0 to %d)",
            FIGURES_MAX_COUNT);
    return n < 0 ? 0 : FIGURES_MAX_COUNT;
  }
  return (int)n;
}

/* The latency histogram of a result as the document holds it; a pair
 * that is no pair of integers is read as index -1, which no histogram
 * takes (model_latency_to_hist), so its figures are never recomputed from
 * part of it. Returns 0, or -1 out of memory. */
static int latency_of(json_object *o, struct model_latency *l)
{
  json_object *buckets = get(o, "buckets");
  size_t n = json_object_is_type(buckets, json_type_array)
                 ? json_object_array_length(buckets)
                 : 0;

  l->count = int_or(o, "count", 0);
  l->min = int_or(o, "min", -1);
  l->max = int_or(o, "max", -1);
  l->p50 = int_or(o, "p50", -1);
  l->p90 = int_or(o, "p90", -1);
  l->p99 = int_or(o, "p99", -1);
  l->p99_9 = int_or(o, "p99_9", -1);
  if (n == 0)
    return 0;
  l->buckets = calloc(n, sizeof(*l->buckets));
  if (l->buckets == NULL)
    return -1;
  for (size_t i = 0; i < n; i++) {
    json_object *pair = json_object_array_get_idx(buckets, i);
    json_object *index = json_object_array_get_idx(pair, 0);
    json_object *count = json_object_array_get_idx(pair, 1);
    int ok = json_object_is_type(pair, json_type_array) &&
             json_object_array_length(pair) == 2 && is_int(index) &&
             is_int(count) && json_object_get_int64(index) >= 0 &&
             json_object_get_int64(index) < HIST_BUCKETS;
    l->buckets[i].index = ok ? (int)json_object_get_int64(index) : -1;
    l->buckets[i].count = ok ? json_object_get_int64(count) : 0;
  }
  l->nbuckets = (int)n;
  return 0;
}

/* What the summary, the cost and cleanliness read of one attempt: its
 * status, the peers' result lines, its peers, its checks and its
 * leftovers. Returns 0, or -1 out of memory. */
/* A result line's tls object as recorded; reported 0 when there is none.
 * A string too long for the model is cut, and then differs from what a
 * check expects, as it should. */
static void tls_of(json_object *o, struct model_tls *t, int client)
{
  memset(t, 0, sizeof(*t));
  t->handshake_ns = MODEL_NOT_REPORTED;
  if (!json_object_is_type(o, json_type_object))
    return;
  t->reported = 1;
  snprintf(t->version, sizeof(t->version), "%s",
           str(o, "version") ? str(o, "version") : "");
  snprintf(t->cipher, sizeof(t->cipher), "%s",
           str(o, "cipher") ? str(o, "cipher") : "");
  snprintf(t->alpn, sizeof(t->alpn), "%s",
           str(o, "alpn") ? str(o, "alpn") : "");
  if (client)
    t->handshake_ns = int_or(o, "handshake_ns", 0);
}

static int attempt_of(struct walk *w, json_object *s, struct model_sample *r)
{
  json_object *res = get(s, "result"), *checks = get(s, "checks");
  json_object *server = get(s, "server_result");
  int rc = 0;

  r->status = (enum model_status)status_of(str(s, "status"));
  r->have_result = json_object_is_type(res, json_type_object);
  r->result.round_trips = int_or(res, "round_trips", 0);
  r->result.elapsed_ns = int_or(res, "elapsed_ns", 0);
  r->result.cpu_user_us = int_or(res, "cpu_user_us", MODEL_NOT_REPORTED);
  r->result.cpu_system_us = int_or(res, "cpu_system_us", MODEL_NOT_REPORTED);
  r->result.has_latency =
      json_object_is_type(get(res, "latency"), json_type_object);
  if (r->result.has_latency)
    rc = latency_of(get(res, "latency"), &r->result.latency);
  tls_of(get(res, "tls"), &r->result.tls, 1);
  tls_of(get(server, "tls"), &r->server_result.tls, 0);
  r->have_server_result = r->server_printed_result =
      json_object_is_type(server, json_type_object);
  r->server_result.round_trips = int_or(server, "round_trips", 0);
  r->server_result.cpu_user_us = int_or(server, "cpu_user_us", -1);
  r->server_result.cpu_system_us = int_or(server, "cpu_system_us", -1);
  peer_of(get(s, "server"), &r->server);
  peer_of(get(s, "client"), &r->client);
  for (int i = 0; i < MODEL_CHECK_COUNT; i++) {
    const char *o =
        str(get(checks, model_check_name((enum model_check)i)), "outcome");
    /* Evidence older than the server's result line has no such check:
     * there, as now without a line, it passed. */
    if (o == NULL && i == MODEL_CHECK_SERVER_RESULT)
      o = "passed";
    r->checks[i].ran = o != NULL && !is(o, "not_run");
    r->checks[i].passed = is(o, "passed");
  }
  r->orphans.count = count_of(w, s, "processes_left");
  r->leftovers.count = count_of(w, s, "temp_entries_left");
  return rc;
}

static int sample_of(struct walk *w, json_object *s, struct evidence_sample *es)
{
  json_object *first = get(s, "first_attempt");
  int rc;

  es->round = (int)int_or(s, "round", 0);
  es->retried = truth(s, "retried");
  rc = attempt_of(w, s, &es->result);
  if (json_object_is_type(first, json_type_object)) {
    size_t at = push(w, "first_attempt");
    rc |= attempt_of(w, first, &es->first_attempt);
    pop(w, at);
  }
  return rc;
}

/* One lane of the document as the writer's model; samples are allocated
 * (the caller frees lane->samples). Returns 0, or -1 out of memory. */
static int lane_of(struct walk *w, const char *name, json_object *lane,
                   struct evidence_lane *out)
{
  json_object *samples = get(lane, "samples");
  size_t n = json_object_is_type(samples, json_type_array)
                 ? json_object_array_length(samples)
                 : 0;
  int rc = 0;

  memset(out, 0, sizeof(*out));
  out->name = name;
  out->client_runtime = str(lane, "client_runtime");
  out->server_runtime = str(lane, "server_runtime");
  if (out->client_runtime == NULL)
    out->client_runtime = "";
  if (out->server_runtime == NULL)
    out->server_runtime = "";
  out->unavailable_reason = str(lane, "unavailable_reason");
  out->error_reason = str(lane, "error_reason");
  out->unsupported_reason = str(lane, "unsupported_reason");
  out->transport = str(lane, "transport");
  out->expected_failure = str(lane, "expected_failure_reason");
  out->samples = calloc(n > 0 ? n : 1, sizeof(*out->samples));
  if (out->samples == NULL)
    return -1;
  out->nsamples = (int)n;
  for (size_t i = 0; i < n; i++) {
    size_t at = push(w, "samples"), at2 = push_index(w, i);
    if (sample_of(w, json_object_array_get_idx(samples, i), &out->samples[i]) !=
        0)
      rc = -1;
    out->samples[i].result.over_tls = out->samples[i].first_attempt.over_tls =
        out->transport != NULL && is(out->transport, "tls");
    pop(w, at2);
    pop(w, at);
  }
  return rc;
}

/* ---- a sample's own figures ---- */

/* A failure reason that names one check: that check must have failed. */
static const struct {
  const char *reason;
  enum model_check check;
} reason_checks[] = {
    {"server_not_ready", MODEL_CHECK_SERVER_READY},
    {"client_exit", MODEL_CHECK_CLIENT_EXIT},
    {"server_exit", MODEL_CHECK_SERVER_EXIT},
    {"result_mismatch", MODEL_CHECK_CLIENT_RESULT},
    {"result_mismatch", MODEL_CHECK_SERVER_RESULT},
    {"orphan_process", MODEL_CHECK_NO_ORPHANS},
    {"port_not_free", MODEL_CHECK_PORT_FREE},
    {"temp_not_clean", MODEL_CHECK_TEMP_CLEAN},
};

static void check_status(struct walk *w, json_object *s)
{
  json_object *checks = get(s, "checks"), *failure = get(s, "failure");
  const char *status = str(s, "status"), *reason = str(failure, "reason");
  const char *first = NULL, *first_outcome = NULL;

  for (int i = 0; i < MODEL_CHECK_COUNT && first == NULL; i++) {
    const char *name = model_check_name((enum model_check)i);
    const char *o = str(get(checks, name), "outcome");
    if (o == NULL && i == MODEL_CHECK_SERVER_RESULT)
      continue; /* older evidence: no such check */
    if (!is(o, "passed")) {
      first = name;
      first_outcome = o ? o : "missing";
    }
  }
  if (is(status, "passed") && first != NULL) {
    json_object *want = json_object_new_string("failed");
    finding(w, "status", get(s, "status"), 1, want,
            "recomputed from its checks \"failed\" (checks.%s is %s)", first,
            first_outcome);
    json_object_put(want);
  } else if (is(status, "failed") && first == NULL) {
    json_object *want = json_object_new_string("passed");
    finding(w, "status", get(s, "status"), 1, want,
            "recomputed from its checks \"passed\" (every check passed)");
    json_object_put(want);
  }
  /* A reason that names checks: one of them must have failed
   * (result_mismatch names the client's result and the server's). */
  for (size_t i = 0;
       reason && i < sizeof(reason_checks) / sizeof(*reason_checks); i++) {
    const char *name = model_check_name(reason_checks[i].check), *o;
    int any_failed = 0;
    size_t at;
    if (!is(reason, reason_checks[i].reason))
      continue;
    for (size_t j = 0; j < sizeof(reason_checks) / sizeof(*reason_checks); j++)
      any_failed |=
          is(reason, reason_checks[j].reason) &&
          is(str(get(checks, model_check_name(reason_checks[j].check)),
                 "outcome"),
             "failed");
    if (any_failed)
      break;
    o = str(get(checks, name), "outcome");
    at = push(w, "failure");
    finding(w, "reason", get(failure, "reason"), 0, NULL, "but checks.%s is %s",
            name, o ? o : "missing");
    pop(w, at);
    break;
  }
}

/* A passed sample's cost from its result lines, and its latency histogram
 * as lanes/README.md bounds it. Evidence older than the cost figures has
 * no "cost": nothing to set against. */
static void check_cost(struct walk *w, json_object *s,
                       const struct evidence_sample *es)
{
  const struct model_sample *r = &es->result;
  json_object *recorded, *want;
  char why[256];

  if (r->status == MODEL_PASSED && r->have_result && r->result.has_latency &&
      model_latency_check(&r->result.latency, r->result.round_trips,
                          r->result.elapsed_ns, why, sizeof(why)) != 0) {
    size_t at = push(w, "result");
    finding(w, "latency", get(get(s, "result"), "latency"), 0, NULL, "but %s",
            why);
    pop(w, at);
  }
  /* A passed sample's tls objects hold what the runner checked
   * (lanes/README.md): over tls the version, ALPN, one cipher and a
   * handshake within the client's lifetime; over tcp none at all. */
  if (r->status == MODEL_PASSED && r->have_result &&
      (model_tls_check(&r->result.tls, "", r->over_tls, r->client.wall_ns, why,
                       sizeof(why)) != 0 ||
       model_tls_check(&r->server_result.tls, "server's ", r->over_tls, 0, why,
                       sizeof(why)) != 0 ||
       model_tls_check_pair(&r->result.tls, &r->server_result.tls, why,
                            sizeof(why)) != 0)) {
    size_t at = push(w, "result");
    finding(w, "tls", get(get(s, "result"), "tls"), 0, NULL, "but %s", why);
    pop(w, at);
  }
  if (!json_object_object_get_ex(s, "cost", &recorded))
    return;
  want = cost_sample_json(r);
  if (want == NULL || !json_object_is_type(recorded, json_type_object)) {
    expect(w, "cost", recorded, want);
  } else {
    size_t at = push(w, "cost");
    expect_members(w, recorded, want);
    pop(w, at);
  }
  json_object_put(want);
}

/* elapsed_ns and ns_per_round_trip from the client's result line, which
 * must lie within the client's own lifetime as the runner measured it. */
static void check_time(struct walk *w, json_object *s,
                       const struct evidence_sample *es)
{
  const struct model_sample *r = &es->result;
  int timed = r->status == MODEL_PASSED && r->have_result;
  json_object *elapsed = get(s, "elapsed_ns");
  json_object *want;

  want = timed ? json_object_new_int64(r->result.elapsed_ns) : NULL;
  expect(w, "elapsed_ns", elapsed, want);
  json_object_put(want);
  want = timed && r->result.round_trips
             ? json_object_new_double((double)r->result.elapsed_ns /
                                      (double)r->result.round_trips)
             : NULL;
  expect(w, "ns_per_round_trip", get(s, "ns_per_round_trip"), want);
  json_object_put(want);
  if (!timed || !is_int(elapsed))
    return;
  if (json_object_get_int64(elapsed) <= 0)
    finding(w, "elapsed_ns", elapsed, 0, NULL, "must be above 0");
  else if ((uint64_t)json_object_get_int64(elapsed) /
               MODEL_MIN_NS_PER_ROUND_TRIP <
           (uint64_t)(r->result.round_trips > 0 ? r->result.round_trips : 0))
    finding(w, "elapsed_ns", elapsed, 0, NULL,
            "below the floor of %d ns per round trip (%" PRId64 " round trips)",
            MODEL_MIN_NS_PER_ROUND_TRIP, r->result.round_trips);
  else if (r->client.reaped &&
           (uint64_t)json_object_get_int64(elapsed) > r->client.wall_ns)
    finding(w, "elapsed_ns", elapsed, 0, NULL,
            "more than the client's own lifetime (client.exit.wall_ns "
            "%" PRIu64 ")",
            r->client.wall_ns);
}

/* ---- one single-OS body: a document or a merged platform ---- */

/* The lane names of a body, in order, and their models. */
struct body {
  json_object *doc, *lanes;
  struct evidence_lane *model;
  int n;
};

static int body_load(struct walk *w, json_object *doc, struct body *b)
{
  size_t at = push(w, "lanes");
  int rc = 0;

  memset(b, 0, sizeof(*b));
  b->doc = doc;
  b->lanes = get(doc, "lanes");
  if (!json_object_is_type(b->lanes, json_type_object)) {
    pop(w, at);
    return -1;
  }
  b->model = calloc((size_t)json_object_object_length(b->lanes) + 1,
                    sizeof(*b->model));
  if (b->model == NULL) {
    pop(w, at);
    return -1;
  }
  json_object_object_foreach(b->lanes, name, lane)
  {
    size_t at2 = push(w, name);
    if (lane_of(w, name, lane, &b->model[b->n]) != 0)
      rc = -1;
    b->n++;
    pop(w, at2);
  }
  pop(w, at);
  return rc;
}

static void body_release(struct body *b)
{
  for (int i = 0; i < b->n; i++) {
    for (int k = 0; k < b->model[i].nsamples; k++) {
      model_client_result_release(&b->model[i].samples[k].result.result);
      model_client_result_release(&b->model[i].samples[k].first_attempt.result);
    }
    free(b->model[i].samples);
  }
  free(b->model);
}

static json_object *body_comparisons(const struct body *b,
                                     const struct figures_origin *origins);

/* The summary members that evidence older than the cost figures lacks:
 * absent there, they are not set against the recomputed ones. */
static void expect_summary(struct walk *w, json_object *recorded,
                           json_object *recomputed)
{
  static const char *const newer[] = {
      "latency_ns", "client_cpu_us_per_round_trip_median",
      "server_cpu_us_per_round_trip_median", "not_reported"};

  json_object_object_foreach(recomputed, key, want)
  {
    int skip = 0;
    for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
      skip |= strcmp(key, newer[i]) == 0 &&
              !json_object_object_get_ex(recorded, key, NULL);
    if (!skip)
      expect(w, key, get(recorded, key), want);
  }
}

static void check_lanes(struct walk *w, struct body *b)
{
  size_t at = push(w, "lanes");
  int i = 0;

  json_object_object_foreach(b->lanes, name, lane)
  {
    struct evidence_lane *m = &b->model[i++];
    json_object *samples = get(lane, "samples"), *summary;
    size_t at2 = push(w, name), at3;

    for (int k = 0; k < m->nsamples; k++) {
      json_object *s = json_object_array_get_idx(samples, (size_t)k);
      at3 = push(w, "samples");
      size_t at4 = push_index(w, (size_t)k);
      check_status(w, s);
      check_time(w, s, &m->samples[k]);
      check_cost(w, s, &m->samples[k]);
      pop(w, at4);
      pop(w, at3);
    }
    summary = evidence_lane_summary_json(m);
    at3 = push(w, "summary");
    expect_summary(w, get(lane, "summary"), summary);
    pop(w, at3);
    json_object_put(summary);
    pop(w, at2);
  }
  pop(w, at);
}

static int cleanliness_zero(json_object *c)
{
  return int_or(c, "processes_left", 0) == 0 &&
         int_or(c, "sockets_left", 0) == 0 &&
         int_or(c, "forced_terminations", 0) == 0 &&
         int_or(c, "temp_entries_left", 0) == 0;
}

/* What "official": true needs that the document can show: a complete
 * record of the full workload, from a clean checkout of main in CI, every
 * lane passed or failed as expected, nothing left behind. */
static const char *official_broken(struct body *b, json_object *cleanliness,
                                   char *why, size_t whylen)
{
  json_object *prov = get(b->doc, "provenance"), *ci = get(prov, "ci");

  if (!is(str(b->doc, "mode"), "record"))
    return "but only a record can be official";
  if (!json_object_is_type(get(b->doc, "rehearsal"), json_type_boolean) ||
      truth(b->doc, "rehearsal"))
    return "but only a record that says it is not a rehearsal (rehearsal: "
           "false) can be official";
  if (!truth(b->doc, "complete"))
    return "but the run is not complete";
  if (!is(str(get(b->doc, "workload"), "name"), "full"))
    return "but an official record runs the full workload";
  if (str(prov, "commit") == NULL || !truth(prov, "clean") ||
      !is(str(prov, "branch"), "main") || !truth(ci, "detected"))
    return "but its provenance is not a clean checkout of main in CI";
  if (!cleanliness_zero(cleanliness))
    return "but the recomputed cleanliness is not clean";
  for (int i = 0; i < b->n; i++) {
    json_object *summary = evidence_lane_summary_json(&b->model[i]);
    const char *st = str(summary, "status");
    int ok =
        is(st, "passed") || is(st, "expected_failure") || is(st, "unsupported");
    if (!ok)
      snprintf(why, whylen, "but lane %s is %s", b->model[i].name,
               st ? st : "?");
    json_object_put(summary);
    if (!ok)
      return why;
  }
  return NULL;
}

static void check_body(struct walk *w, json_object *doc,
                       const struct figures_origin *origins, struct body *b)
{
  struct evidence_run run;
  json_object *want, *recorded;
  const char *mode = str(doc, "mode"), *broken;
  char why[512];

  check_lanes(w, b);

  memset(&run, 0, sizeof(run));
  run.lanes = b->model;
  run.nlanes = b->n;
  want = evidence_cleanliness_json(&run);
  {
    size_t at = push(w, "cleanliness");
    expect_members(w, get(doc, "cleanliness"), want);
    pop(w, at);
  }

  if (mode != NULL &&
      json_object_is_type(get(doc, "performance_claims"), json_type_boolean)) {
    /* A run under an emulator (machine.emulator) claims nothing either. */
    json_object *claims = json_object_new_boolean(
        !is(mode, "quick") && get(get(doc, "machine"), "emulator") == NULL);
    expect(w, "performance_claims", get(doc, "performance_claims"), claims);
    json_object_put(claims);
  }
  if (truth(doc, "official") &&
      (broken = official_broken(b, want, why, sizeof(why))) != NULL)
    finding(w, "official", get(doc, "official"), 0, NULL, "%s", broken);
  json_object_put(want);

  recorded = get(doc, "comparisons");
  if (json_object_is_type(recorded, json_type_object)) {
    size_t at = push(w, "comparisons");
    want = body_comparisons(b, origins);
    json_object_object_foreach(want, pair, c)
    {
      json_object *rc = get(recorded, pair);
      size_t at2;
      if (!json_object_is_type(rc, json_type_object)) {
        expect(w, pair, rc, c);
        continue;
      }
      at2 = push(w, pair);
      expect_members(w, rc, c);
      pop(w, at2);
    }
    json_object_object_foreach(recorded, key, val)
    {
      if (!json_object_object_get_ex(want, key, NULL))
        finding(w, key, val, 0, NULL,
                "but the raw samples give no such comparison");
    }
    pop(w, at);
    json_object_put(want);
  }
}

static void check_single(struct walk *w, json_object *doc,
                         const struct figures_origin *origins)
{
  struct body b;

  if (body_load(w, doc, &b) == 0)
    check_body(w, doc, origins, &b);
  else if (json_object_is_type(b.lanes, json_type_object))
    /* Never "agrees" by default: what cannot be recomputed is refused. */
    finding(w, "lanes", b.lanes, 0, NULL,
            "but its figures cannot be recomputed (out of memory)");
  body_release(&b);
}

/* ---- comparisons ---- */

static int same_machine(const struct figures_origin *origins, int i, int j)
{
  return origins == NULL || origins[i].machine == NULL ||
         origins[j].machine == NULL ||
         json_object_equal(origins[i].machine, origins[j].machine);
}

static int lane_index(json_object *lanes, const char *name)
{
  int i = 0;
  json_object_object_foreach(lanes, key, val)
  {
    (void)val;
    if (strcmp(key, name) == 0)
      return i;
    i++;
  }
  return -1;
}

/* The comparisons of a loaded body, pairs across machines replaced. */
static json_object *body_comparisons(const struct body *b,
                                     const struct figures_origin *origins)
{
  struct compare_lane *cl = calloc((size_t)b->n + 1, sizeof(*cl));
  json_object *all;

  if (cl == NULL)
    return json_object_new_object();
  for (int i = 0; i < b->n; i++)
    compare_lane_of(&b->model[i], &cl[i]);
  all = compare_run_json(cl, b->n);
  for (int i = 0; i < b->n; i++)
    compare_lane_release(&cl[i]);
  free(cl);
  if (origins == NULL)
    return all;
  json_object_object_foreach(all, key, c)
  {
    int i = lane_index(b->lanes, str(c, "lane") ? str(c, "lane") : "");
    int j =
        lane_index(b->lanes, str(c, "reference") ? str(c, "reference") : "");
    char reason[1024];
    json_object *o;

    if (i < 0 || j < 0 || same_machine(origins, i, j))
      continue;
    snprintf(reason, sizeof(reason),
             "measured on different machines: %s in %s, %s in %s (their "
             "machine blocks differ)",
             str(c, "lane"), origins[i].input ? origins[i].input : "?",
             str(c, "reference"), origins[j].input ? origins[j].input : "?");
    o = json_object_new_object();
    json_object_object_add(o, "lane", json_object_get(get(c, "lane")));
    json_object_object_add(o, "reference",
                           json_object_get(get(c, "reference")));
    json_object_object_add(o, "ratio_of_medians", NULL);
    json_object_object_add(o, "mann_whitney_u", NULL);
    json_object_object_add(o, "p_value_exact", NULL);
    json_object_object_add(o, "verdict",
                           json_object_new_string("not_compared"));
    json_object_object_add(o, "reason", json_object_new_string(reason));
    /* Replacing a member's value keeps the key's place in the object. */
    json_object_object_add(all, key, o);
  }
  return all;
}

json_object *figures_comparisons(json_object *lanes,
                                 const struct figures_origin *origins)
{
  /* No sink: a count out of range is the checker's to report, and
   * comparisons do not read counts. */
  struct walk quiet;
  json_object *holder = json_object_new_object(), *all;
  struct body b;

  memset(&quiet, 0, sizeof(quiet));
  json_object_object_add(holder, "lanes", json_object_get(lanes));
  all = body_load(&quiet, holder, &b) == 0 ? body_comparisons(&b, origins)
                                           : json_object_new_object();
  body_release(&b);
  json_object_put(holder);
  return all;
}

/* ---- a merged document ---- */

/* Where each lane of platform os was measured, from the merged "inputs":
 * shard K of N held lanes K-1, K-1+N, ... of the joined order. NULL when
 * the inputs do not say (every lane is then taken as one machine's). */
static struct figures_origin *origins_of(json_object *doc, const char *os,
                                         json_object *lanes)
{
  json_object *inputs = get(doc, "inputs");
  int nlanes, count = 0;
  struct figures_origin by_index[64 + 1], *out;

  memset(by_index, 0, sizeof(by_index));
  /* Both checked before either is measured: json-c asserts on the length
   * of what is not an object (a platform without lanes). */
  if (!json_object_is_type(inputs, json_type_object) ||
      !json_object_is_type(lanes, json_type_object))
    return NULL;
  nlanes = json_object_object_length(lanes);
  json_object_object_foreach(inputs, name, in)
  {
    json_object *shard = get(in, "shard");
    int64_t k = int_or(shard, "index", 1), n = int_or(shard, "count", 1);
    if (!is(str(in, "os"), os))
      continue;
    if (n < 1 || n > 64 || k < 1 || k > n || (count && n != count))
      return NULL;
    count = (int)n;
    by_index[k].machine = get(in, "machine");
    by_index[k].input = name;
  }
  if (count == 0 || nlanes == 0)
    return NULL;
  for (int k = 1; k <= count; k++)
    if (by_index[k].input == NULL)
      return NULL;
  out = calloc((size_t)nlanes, sizeof(*out));
  if (out == NULL)
    return NULL;
  for (int i = 0; i < nlanes; i++)
    out[i] = by_index[i % count + 1];
  return out;
}

static void check_merged(struct walk *w, json_object *doc)
{
  json_object *platforms = get(doc, "platforms");
  int official = 1, claims = 1, any = 0;
  size_t at;

  /* The schema's own finding names a platforms that is not an object;
   * there is nothing to walk (json-c's foreach reads a NULL table). */
  if (!json_object_is_type(platforms, json_type_object))
    return;
  at = push(w, "platforms");
  json_object_object_foreach(platforms, os, p)
  {
    size_t at2 = push(w, os);
    struct figures_origin *origins = origins_of(doc, os, get(p, "lanes"));
    check_single(w, p, origins);
    free(origins);
    official &= truth(p, "official");
    claims &= truth(p, "performance_claims");
    any = 1;
    pop(w, at2);
  }
  pop(w, at);
  if (!any)
    return;
  if (truth(doc, "official") && !official)
    finding(w, "official", get(doc, "official"), 0, NULL,
            "but a platform's record is not official");
  if (json_object_is_type(get(doc, "performance_claims"), json_type_boolean)) {
    json_object *want = json_object_new_boolean(claims);
    expect(w, "performance_claims", get(doc, "performance_claims"), want);
    json_object_put(want);
  }
}

int figures_check(json_object *doc, figures_sink *sink, void *ctx)
{
  struct walk w;

  memset(&w, 0, sizeof(w));
  w.sink = sink;
  w.ctx = ctx;
  if (!json_object_is_type(doc, json_type_object))
    return 0;
  if (is(str(doc, "mode"), "conform"))
    return conform_figures_check(doc, sink, ctx);
  if (is(str(doc, "mode"), "merged"))
    check_merged(&w, doc);
  else
    check_single(&w, doc, NULL);
  return w.found;
}
