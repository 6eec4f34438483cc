#include "runner/result.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

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

static int64_t *field_ptr(struct model_client_result *r, const struct field *f)
{
  return (int64_t *)((char *)r + f->offset);
}

int result_parse(const char *line, size_t len, struct model_client_result *r,
                 char *err, size_t errlen)
{
  struct json_tokener *tok;
  struct json_object *obj, *v;
  int rc = -1;

  memset(r, 0, sizeof(*r));
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
  tok = json_tokener_new();
  if (tok == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  obj = json_tokener_parse_ex(tok, line, (int)len);
  if (obj == NULL || json_tokener_get_parse_end(tok) != len) {
    snprintf(err, errlen, "the result line is not one JSON object: '%.*s'",
             (int)(len < 60 ? len : 60), line);
    goto out;
  }
  if (!json_object_is_type(obj, json_type_object)) {
    snprintf(err, errlen, "the result line is JSON but not an object");
    goto out;
  }
  for (size_t i = 0; i < NFIELDS; i++) {
    if (!json_object_object_get_ex(obj, fields[i].name, &v)) {
      snprintf(err, errlen, "the result has no '%s'", fields[i].name);
      goto out;
    }
    if (!json_object_is_type(v, json_type_int)) {
      snprintf(err, errlen, "'%s' in the result is not an integer",
               fields[i].name);
      goto out;
    }
    errno = 0;
    *field_ptr(r, &fields[i]) = json_object_get_int64(v);
    if (*field_ptr(r, &fields[i]) < 0 || errno == ERANGE) {
      snprintf(err, errlen, "'%s' in the result is out of range",
               fields[i].name);
      goto out;
    }
  }
  if (json_object_object_get_ex(obj, "runtime", &v) &&
      json_object_is_type(v, json_type_string))
    snprintf(r->runtime, sizeof(r->runtime), "%s", json_object_get_string(v));
  rc = 0;
out:
  json_object_put(obj);
  json_tokener_free(tok);
  return rc;
}

int result_is_json_object(const char *line, size_t len)
{
  struct json_tokener *tok;
  struct json_object *obj;
  int is;

  if (len > 0 && line[len - 1] == '\r')
    len--;
  if (len == 0 || len > RESULT_LINE_MAX || memchr(line, '\0', len) != NULL)
    return 0;
  tok = json_tokener_new();
  if (tok == NULL)
    return 0;
  obj = json_tokener_parse_ex(tok, line, (int)len);
  is = obj != NULL && json_tokener_get_parse_end(tok) == len &&
       json_object_is_type(obj, json_type_object);
  json_object_put(obj);
  json_tokener_free(tok);
  return is;
}

int result_check(const struct model_client_result *r,
                 const struct proto_workload *w, uint64_t lifetime_ns,
                 char *err, size_t errlen)
{
  struct proto_totals t;
  proto_totals_expected(w, &t);
  const struct {
    const char *name;
    int64_t got;
    uint64_t want;
  } expect[] = {
      {"round_trips", r->round_trips, w->round_trips},
      {"warmup_round_trips", r->warmup_round_trips, w->warmup},
      {"payload_bytes", r->payload_bytes, w->payload_bytes},
      {"max_in_flight", r->max_in_flight, w->max_in_flight},
      {"frames_sent", r->frames_sent, t.frames_sent},
      {"frames_received", r->frames_received, t.frames_received},
      {"bytes_sent", r->bytes_sent, t.bytes_sent},
      {"bytes_received", r->bytes_received, t.bytes_received},
  };
  int n = (int)(sizeof(expect) / sizeof(expect[0]));

  for (int i = 0; i < n; i++) {
    if ((uint64_t)expect[i].got != expect[i].want) {
      snprintf(err, errlen, "result '%s' is %" PRId64 ", expected %" PRIu64,
               expect[i].name, expect[i].got, expect[i].want);
      return -1;
    }
  }
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
  return 0;
}
