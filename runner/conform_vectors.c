/* Conformance cases made from protocol/vectors/invalid.json: each case of
 * a receiver state becomes a row of the role that receives it, each header
 * case of state "any" a row of both roles (a header check comes before
 * anything the session expects). protocol/vectors/README.md defines the
 * states; runner/conform.h's states reach them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/json_read.h"
#include "runner/conform.h"

#define VECTORS_MAX_BYTES ((size_t)4 << 20)

/* The workload of the cases that need none to reach their state. */
static const struct proto_workload default_workload = {2, 3, 5, 2};

static const char *str(json_object *o, const char *key)
{
  json_object *v;
  return json_object_object_get_ex(o, key, &v) &&
                 json_object_is_type(v, json_type_string)
             ? json_object_get_string(v)
             : NULL;
}

/* A JSON integer or a decimal string (the vectors write 64-bit figures
 * as strings). */
static int u64_of(json_object *o, const char *key, uint64_t *out)
{
  json_object *v;
  const char *s;
  char *end;

  if (!json_object_object_get_ex(o, key, &v))
    return -1;
  if (json_object_is_type(v, json_type_int)) {
    if (json_object_get_int64(v) < 0)
      return -1;
    *out = (uint64_t)json_object_get_int64(v);
    return 0;
  }
  s = json_object_get_string(v);
  if (s == NULL || *s < '0' || *s > '9')
    return -1;
  errno = 0;
  *out = strtoull(s, &end, 10);
  return errno == 0 && *end == '\0' ? 0 : -1;
}

static int workload_of(json_object *o, struct proto_workload *w)
{
  json_object *wo;
  uint64_t p, m;

  if (!json_object_object_get_ex(o, "workload", &wo)) {
    *w = default_workload;
    return 0;
  }
  if (u64_of(wo, "warmup", &w->warmup) ||
      u64_of(wo, "round_trips", &w->round_trips) ||
      u64_of(wo, "payload_bytes", &p) || u64_of(wo, "max_in_flight", &m) ||
      p > UINT32_MAX || m > UINT32_MAX)
    return -1;
  w->payload_bytes = (uint32_t)p;
  w->max_in_flight = (uint32_t)m;
  return proto_workload_check(w);
}

static int hex_of(const char *hex, uint8_t **out, size_t *len)
{
  size_t n = hex ? strlen(hex) : 0;

  *out = NULL;
  *len = 0;
  if (hex == NULL || n % 2 != 0)
    return -1;
  if (n == 0)
    return 0;
  *out = malloc(n / 2);
  if (*out == NULL)
    return -1;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
      free(*out);
      *out = NULL;
      return -1;
    }
    (*out)[i] = (uint8_t)v;
  }
  *len = n / 2;
  return 0;
}

/* The static name of a rejection, or NULL when it is none. */
static const char *rejection_of(const char *name)
{
  for (int e = PROTO_E_UNSUPPORTED_VERSION; e >= PROTO_E_PEER_ERROR; e--)
    if (name != NULL && strcmp(proto_error_name(e), name) == 0)
      return proto_error_name(e);
  return NULL;
}

static int add_one(struct conform_cases *c, json_object *v, int role,
                   enum conform_state state, const char *name)
{
  struct conform_case *k = conform_cases_add(c);
  json_object *eof;
  uint64_t seq = 0;

  if (k == NULL)
    return -1;
  k->role = role;
  k->state = state;
  snprintf(k->name, sizeof(k->name), "%s", name);
  snprintf(k->description, sizeof(k->description), "%s",
           str(v, "description") ? str(v, "description") : "");
  k->source = "invalid.json";
  k->rejection = rejection_of(str(v, "rejection"));
  if (state == CONFORM_AT_SEQUENCE && u64_of(v, "sequence", &seq) != 0)
    return -2;
  k->sequence = seq;
  k->end =
      json_object_object_get_ex(v, "eof", &eof) && json_object_get_boolean(eof)
          ? CONFORM_END_EOF
          : CONFORM_END_NONE;
  if (k->rejection == NULL || workload_of(v, &k->w) != 0 ||
      hex_of(str(v, "input"), &k->input, &k->input_len) != 0)
    return -2;
  conform_case_error_rule(k);
  return 0;
}

static int add_case(struct conform_cases *c, json_object *v)
{
  static const struct {
    const char *state;
    int role;
    enum conform_state at;
  } states[] = {
      {"server_expecting_hello", CONFORM_SERVER, CONFORM_AT_START},
      {"server_expecting_request", CONFORM_SERVER, CONFORM_AT_SEQUENCE},
      {"server_after_bye", CONFORM_SERVER, CONFORM_AFTER_BYE},
      {"client_expecting_hello_ack", CONFORM_CLIENT, CONFORM_AT_START},
      {"client_expecting_response", CONFORM_CLIENT, CONFORM_AT_SEQUENCE},
      {"client_expecting_bye_ack", CONFORM_CLIENT, CONFORM_AFTER_BYE},
  };
  const char *state = str(v, "state"), *name = str(v, "name");
  const char *rejection = str(v, "rejection");

  if (state == NULL || name == NULL || rejection == NULL)
    return -2;
  if (strcmp(state, "any") == 0) {
    /* The bare parser's truncated cases hold for it alone. */
    if (strcmp(rejection, "truncated") == 0)
      return 0;
    if (add_one(c, v, CONFORM_SERVER, CONFORM_AT_START, name) != 0)
      return -2;
    return add_one(c, v, CONFORM_CLIENT, CONFORM_AT_START, name);
  }
  for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
    if (strcmp(states[i].state, state) == 0)
      return add_one(c, v, states[i].role, states[i].at, name);
  return -2;
}

int conform_vectors_add(struct conform_cases *c, const char *path, char *err,
                        size_t errlen)
{
  json_object *doc = NULL, *cases;
  char why[512];
  int rc = 0;

  if (json_read_file(path, VECTORS_MAX_BYTES, &doc, why, sizeof(why)) != 0) {
    snprintf(err, errlen, "%s: %s", path, why);
    return -1;
  }
  if (!json_object_object_get_ex(doc, "cases", &cases) ||
      !json_object_is_type(cases, json_type_array)) {
    snprintf(err, errlen, "%s: no \"cases\" array", path);
    json_object_put(doc);
    return -1;
  }
  for (size_t i = 0; i < json_object_array_length(cases) && rc == 0; i++) {
    json_object *v = json_object_array_get_idx(cases, i);
    rc = add_case(c, v);
    if (rc == -2)
      snprintf(err, errlen,
               "%s: case %zu ('%s'): a field is missing or out "
               "of range",
               path, i, str(v, "name") ? str(v, "name") : "?");
    else if (rc == -1)
      snprintf(err, errlen, "out of memory");
  }
  json_object_put(doc);
  return rc == 0 ? 0 : -1;
}
