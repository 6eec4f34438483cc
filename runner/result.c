#include "runner/result.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/base/json_syntax.h"
#include "protocol/histogram.h"

/* A result line nests three deep (latency.buckets' pairs); json-c allows
 * 32. */
#define RESULT_MAX_DEPTH 16

struct field {
  const char *name;
  size_t offset;
};

/* clang-format 14 lays out a macro that is a braced list as a block. */
/* clang-format off */
#define FIELD(name) {#name, offsetof(struct model_client_result, name)}
/* clang-format on */
static const struct field fields[] = {
    FIELD(round_trips),   FIELD(warmup_round_trips), FIELD(payload_bytes),
    FIELD(max_in_flight), FIELD(frames_sent),        FIELD(frames_received),
    FIELD(bytes_sent),    FIELD(bytes_received),     FIELD(elapsed_ns),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

#define SERVER_FIELD(name)                                                     \
  {                                                                            \
#name, offsetof(struct model_server_result, name)                          \
  }
static const struct field server_fields[] = {
    SERVER_FIELD(round_trips),   SERVER_FIELD(warmup_round_trips),
    SERVER_FIELD(payload_bytes), SERVER_FIELD(max_in_flight),
    SERVER_FIELD(frames_sent),   SERVER_FIELD(frames_received),
    SERVER_FIELD(bytes_sent),    SERVER_FIELD(bytes_received),
    SERVER_FIELD(cpu_user_us),   SERVER_FIELD(cpu_system_us),
};
#define NSERVER_FIELDS (sizeof(server_fields) / sizeof(server_fields[0]))

/* A non-negative integer, or with nullable a null (-1). Returns 0, or -1
 * with what is wrong with field (named as written) in err. */
static int get_count(struct json_object *v, const char *whose,
                     const char *field, int nullable, int64_t *out, char *err,
                     size_t errlen)
{
  if (nullable && v == NULL) {
    *out = -1;
    return 0;
  }
  if (!json_object_is_type(v, json_type_int)) {
    snprintf(err, errlen, "'%s' in the %sresult is not an integer%s", field,
             whose, nullable ? " or null" : "");
    return -1;
  }
  errno = 0;
  *out = json_object_get_int64(v);
  if (*out < 0 || errno == ERANGE) {
    snprintf(err, errlen, "'%s' in the %sresult is out of range", field, whose);
    return -1;
  }
  return 0;
}

/* Reads the required integer fields of f[0..n) from obj into the struct
 * at base. */
static int get_fields(struct json_object *obj, const struct field *f, size_t n,
                      void *base, const char *whose, char *err, size_t errlen)
{
  struct json_object *v;

  for (size_t i = 0; i < n; i++) {
    if (!json_object_object_get_ex(obj, f[i].name, &v)) {
      snprintf(err, errlen, "the %sresult has no '%s'", whose, f[i].name);
      return -1;
    }
    if (get_count(v, whose, f[i].name, 0,
                  (int64_t *)((char *)base + f[i].offset), err, errlen) != 0)
      return -1;
  }
  return 0;
}

/* latency (lanes/README.md): {"count", "min", "max", "p50", "p90", "p99",
 * "p99_9", "buckets": [[index, count], ...]}; whether the figures agree
 * with the buckets is model_latency_check's. */
static int get_latency(struct json_object *o, struct model_latency *l,
                       char *err, size_t errlen)
{
  static const char *const names[] = {"min", "max", "p50",
                                      "p90", "p99", "p99_9"};
  int64_t *const figures[] = {&l->min, &l->max, &l->p50,
                              &l->p90, &l->p99, &l->p99_9};
  struct json_object *v, *buckets;
  char field[32];
  size_t n;

  if (!json_object_is_type(o, json_type_object)) {
    snprintf(err, errlen, "'latency' in the result is not an object");
    return -1;
  }
  if (!json_object_object_get_ex(o, "count", &v)) {
    snprintf(err, errlen, "the result has no 'latency.count'");
    return -1;
  }
  if (get_count(v, "", "latency.count", 0, &l->count, err, errlen) != 0)
    return -1;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(field, sizeof(field), "latency.%s", names[i]);
    if (!json_object_object_get_ex(o, names[i], &v)) {
      snprintf(err, errlen, "the result has no '%s'", field);
      return -1;
    }
    if (get_count(v, "", field, 1, figures[i], err, errlen) != 0)
      return -1;
  }
  if (!json_object_object_get_ex(o, "buckets", &buckets) ||
      !json_object_is_type(buckets, json_type_array)) {
    snprintf(err, errlen, "'latency.buckets' in the result is not an array");
    return -1;
  }
  n = json_object_array_length(buckets);
  if (n > HIST_BUCKETS) {
    snprintf(err, errlen,
             "'latency.buckets' in the result has %zu pairs, more than the "
             "%d buckets there are",
             n, HIST_BUCKETS);
    return -1;
  }
  l->buckets = n > 0 ? calloc(n, sizeof(*l->buckets)) : NULL;
  if (n > 0 && l->buckets == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    struct json_object *pair = json_object_array_get_idx(buckets, i);
    int64_t index, count;
    snprintf(field, sizeof(field), "latency.buckets[%zu]", i);
    if (!json_object_is_type(pair, json_type_array) ||
        json_object_array_length(pair) != 2) {
      snprintf(err, errlen, "'%s' in the result is not a pair [index, count]",
               field);
      return -1;
    }
    if (get_count(json_object_array_get_idx(pair, 0), "", field, 0, &index, err,
                  errlen) != 0 ||
        get_count(json_object_array_get_idx(pair, 1), "", field, 0, &count, err,
                  errlen) != 0)
      return -1;
    if (index >= HIST_BUCKETS) {
      snprintf(err, errlen,
               "'%s' in the result has index %" PRId64 ", outside 0..%d", field,
               index, HIST_BUCKETS - 1);
      return -1;
    }
    l->buckets[i].index = (int)index;
    l->buckets[i].count = count;
    l->nbuckets++;
  }
  return 0;
}

/* One string member of a tls object into out: required, a string, and
 * short enough to be what it names. */
static int get_tls_string(struct json_object *o, const char *whose,
                          const char *field, char *out, size_t outlen,
                          char *err, size_t errlen)
{
  struct json_object *v;

  if (!json_object_object_get_ex(o, field, &v) ||
      !json_object_is_type(v, json_type_string)) {
    snprintf(err, errlen, "'tls.%s' in the %sresult is %s", field, whose,
             v == NULL ? "missing" : "not a string");
    return -1;
  }
  if ((size_t)json_object_get_string_len(v) >= outlen) {
    snprintf(err, errlen, "'tls.%s' in the %sresult is over %zu bytes", field,
             whose, outlen - 1);
    return -1;
  }
  for (const char *c = json_object_get_string(v); *c; c++)
    if (*c < 0x20 || *c > 0x7e) {
      snprintf(err, errlen, "'tls.%s' in the %sresult is not printable ASCII",
               field, whose);
      return -1;
    }
  snprintf(out, outlen, "%s", json_object_get_string(v));
  return 0;
}

/* The optional "tls" object (lanes/README.md): version, cipher and alpn,
 * and for the client handshake_ns. What it says is checked later
 * (model_tls_check); here only its shape. */
static int get_tls(struct json_object *obj, const char *whose, int client,
                   struct model_tls *t, char *err, size_t errlen)
{
  struct json_object *o, *v = NULL;

  t->handshake_ns = MODEL_NOT_REPORTED;
  if (!json_object_object_get_ex(obj, "tls", &o))
    return 0;
  if (!json_object_is_type(o, json_type_object)) {
    snprintf(err, errlen, "'tls' in the %sresult is not an object", whose);
    return -1;
  }
  t->reported = 1;
  if (get_tls_string(o, whose, "version", t->version, sizeof(t->version), err,
                     errlen) != 0 ||
      get_tls_string(o, whose, "cipher", t->cipher, sizeof(t->cipher), err,
                     errlen) != 0 ||
      get_tls_string(o, whose, "alpn", t->alpn, sizeof(t->alpn), err, errlen) !=
          0)
    return -1;
  if (!client)
    return 0;
  json_object_object_get_ex(o, "handshake_ns", &v);
  return get_count(v, whose, "tls.handshake_ns", 0, &t->handshake_ns, err,
                   errlen);
}

/* The line as one JSON object: a new reference, or NULL with the problem
 * in err. */
static struct json_object *line_object(const char *line, size_t len,
                                       const char *whose, char *err,
                                       size_t errlen)
{
  struct json_tokener *tok;
  struct json_object *obj;
  struct json_syntax syn;

  /* JSON itself first: json-c reads more (json_syntax.h). */
  if (json_syntax_check(line, len, RESULT_MAX_DEPTH, &syn) != 0) {
    snprintf(err, errlen,
             "the %sresult line is not one JSON object: %s at byte %zu", whose,
             syn.what, syn.at);
    return NULL;
  }
  tok = json_tokener_new();
  if (tok == NULL) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  /* json-c reads all of any JSON text (tests/fuzz/fuzz_json_syntax), so
   * it fails here only for want of memory. */
  obj = json_tokener_parse_ex(tok, line, (int)len);
  json_tokener_free(tok);
  if (obj == NULL) {
    snprintf(err, errlen, "out of memory");
  } else if (!json_object_is_type(obj, json_type_object)) {
    snprintf(err, errlen, "the %sresult line is JSON but not an object", whose);
    json_object_put(obj);
    obj = NULL;
  } else if (json_syntax_members(obj) != syn.members) {
    /* json-c kept one value of a key given twice, the last. */
    snprintf(err, errlen,
             "the %sresult line is not one JSON object: an object has a key "
             "twice",
             whose);
    json_object_put(obj);
    obj = NULL;
  }
  return obj;
}

int result_parse(const char *line, size_t len, struct model_client_result *r,
                 char *err, size_t errlen)
{
  struct json_object *obj, *v;
  int rc = -1;

  memset(r, 0, sizeof(*r));
  r->cpu_user_us = r->cpu_system_us = MODEL_NOT_REPORTED;
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  if (len == 0) {
    snprintf(err, errlen, "the client printed no result line");
    return -1;
  }
  if (len > RESULT_LINE_MAX) {
    snprintf(err, errlen, "the result line is over %d bytes", RESULT_LINE_MAX);
    return -1;
  }
  if (memchr(line, '\n', len) != NULL) {
    snprintf(err, errlen, "the client printed more than one line");
    return -1;
  }
  obj = line_object(line, len, "", err, errlen);
  if (obj == NULL)
    return -1;
  if (get_fields(obj, fields, NFIELDS, r, "", err, errlen) != 0)
    goto out;
  if (json_object_object_get_ex(obj, "cpu_user_us", &v) &&
      get_count(v, "", "cpu_user_us", 0, &r->cpu_user_us, err, errlen) != 0)
    goto out;
  if (json_object_object_get_ex(obj, "cpu_system_us", &v) &&
      get_count(v, "", "cpu_system_us", 0, &r->cpu_system_us, err, errlen) != 0)
    goto out;
  if (json_object_object_get_ex(obj, "latency", &v)) {
    r->has_latency = 1;
    if (get_latency(v, &r->latency, err, errlen) != 0)
      goto out;
  }
  if (get_tls(obj, "", 1, &r->tls, err, errlen) != 0)
    goto out;
  if (json_object_object_get_ex(obj, "runtime", &v) &&
      json_object_is_type(v, json_type_string))
    snprintf(r->runtime, sizeof(r->runtime), "%s", json_object_get_string(v));
  rc = 0;
out:
  json_object_put(obj);
  return rc;
}

int result_server_parse(const char *line, size_t len,
                        struct model_server_result *r, char *err, size_t errlen)
{
  struct json_object *obj, *v;
  int rc;

  memset(r, 0, sizeof(*r));
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  if (len > RESULT_SERVER_LINE_MAX) {
    snprintf(err, errlen, "the server's result line is over %d bytes",
             RESULT_SERVER_LINE_MAX);
    return -1;
  }
  obj = line_object(line, len, "server's ", err, errlen);
  if (obj == NULL)
    return -1;
  rc = get_fields(obj, server_fields, NSERVER_FIELDS, r, "server's ", err,
                  errlen);
  if (rc == 0)
    rc = get_tls(obj, "server's ", 0, &r->tls, err, errlen);
  if (rc == 0 && json_object_object_get_ex(obj, "runtime", &v) &&
      json_object_is_type(v, json_type_string))
    snprintf(r->runtime, sizeof(r->runtime), "%s", json_object_get_string(v));
  json_object_put(obj);
  return rc;
}

/* got: round_trips, warmup_round_trips, payload_bytes, max_in_flight,
 * frames_sent, frames_received, bytes_sent, bytes_received, as a peer
 * reported them, against what workload w implies; mirrored for the
 * server, which receives what a client sends and sends what it receives.
 * Returns 0, or -1 naming the first that differs ("<whose> 'x' is ...")
 * in err. */
static int check_counts(const char *whose, const int64_t got[8],
                        const struct proto_workload *w, int mirrored, char *err,
                        size_t errlen)
{
  static const char *const names[8] = {
      "round_trips", "warmup_round_trips", "payload_bytes", "max_in_flight",
      "frames_sent", "frames_received",    "bytes_sent",    "bytes_received"};
  struct proto_totals t;
  uint64_t want[8];

  proto_totals_expected(w, &t);
  want[0] = w->round_trips;
  want[1] = w->warmup;
  want[2] = w->payload_bytes;
  want[3] = w->max_in_flight;
  want[4] = mirrored ? t.frames_received : t.frames_sent;
  want[5] = mirrored ? t.frames_sent : t.frames_received;
  want[6] = mirrored ? t.bytes_received : t.bytes_sent;
  want[7] = mirrored ? t.bytes_sent : t.bytes_received;
  for (int i = 0; i < 8; i++)
    if ((uint64_t)got[i] != want[i]) {
      snprintf(err, errlen, "%s '%s' is %" PRId64 ", expected %" PRIu64, whose,
               names[i], got[i], want[i]);
      return -1;
    }
  return 0;
}

int result_server_check(const struct model_server_result *r,
                        const struct proto_workload *w,
                        const struct model_client_result *client, char *err,
                        size_t errlen)
{
  const int64_t got[] = {r->round_trips,   r->warmup_round_trips,
                         r->payload_bytes, r->max_in_flight,
                         r->frames_sent,   r->frames_received,
                         r->bytes_sent,    r->bytes_received};

  if (check_counts("server result", got, w, 1, err, errlen) != 0)
    return -1;
  if (client == NULL)
    return 0;
  {
    const struct {
      const char *name, *client_name;
      int64_t got, client;
    } other[] = {
        {"frames_received", "frames_sent", r->frames_received,
         client->frames_sent},
        {"frames_sent", "frames_received", r->frames_sent,
         client->frames_received},
        {"bytes_received", "bytes_sent", r->bytes_received, client->bytes_sent},
        {"bytes_sent", "bytes_received", r->bytes_sent, client->bytes_received},
    };
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
      if (other[i].got != other[i].client) {
        snprintf(err, errlen,
                 "server result '%s' is %" PRId64
                 ", but the client's '%s' is %" PRId64,
                 other[i].name, other[i].got, other[i].client_name,
                 other[i].client);
        return -1;
      }
  }
  return 0;
}

int result_is_json_object(const char *line, size_t len)
{
  struct json_object *obj;
  char err[256];

  if (len > 0 && line[len - 1] == '\r')
    len--;
  if (len > RESULT_LINE_MAX)
    return 0;
  obj = line_object(line, len, "", err, sizeof(err));
  json_object_put(obj);
  return obj != NULL;
}

int result_check(const struct model_client_result *r,
                 const struct proto_workload *w, uint64_t lifetime_ns,
                 char *err, size_t errlen)
{
  const int64_t got[] = {r->round_trips,   r->warmup_round_trips,
                         r->payload_bytes, r->max_in_flight,
                         r->frames_sent,   r->frames_received,
                         r->bytes_sent,    r->bytes_received};

  if (check_counts("result", got, w, 0, err, errlen) != 0)
    return -1;
  if (r->elapsed_ns <= 0) {
    snprintf(err, errlen,
             "result 'elapsed_ns' is %" PRId64 ", expected a positive time",
             r->elapsed_ns);
    return -1;
  }
  /* Divided rather than multiplied: round_trips x the floor can overflow,
   * and for integers e / f >= n is exactly e >= n x f. */
  if ((uint64_t)r->elapsed_ns / RESULT_MIN_NS_PER_ROUND_TRIP <
      (uint64_t)r->round_trips) {
    snprintf(err, errlen,
             "result 'elapsed_ns' is %" PRId64
             ", below the plausibility floor of %" PRId64
             " round trips x %d ns",
             r->elapsed_ns, r->round_trips, RESULT_MIN_NS_PER_ROUND_TRIP);
    return -1;
  }
  if ((uint64_t)r->elapsed_ns > lifetime_ns) {
    snprintf(err, errlen,
             "result 'elapsed_ns' is %" PRId64
             ", more than the client's lifetime of %" PRIu64
             " ns as the runner measured it",
             r->elapsed_ns, lifetime_ns);
    return -1;
  }
  if (r->has_latency)
    return model_latency_check(&r->latency, r->round_trips, r->elapsed_ns, err,
                               errlen);
  return 0;
}
