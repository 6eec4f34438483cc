/* Reading the protocol vectors: see tests/lib_vectors.h. */
#include "tests/lib_vectors.h"
#include "tests/tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The vectors are a few hundred kilobytes; anything bigger is a mistake. */
#define VECTOR_FILE_MAX_BYTES (16u * 1024 * 1024)

static const char *vectors_root(void)
{
  const char *root = getenv("CROSSRUN_ROOT");
  return root && *root ? root : ".";
}

json_object *vectors_load(const char *name)
{
  char path[4096];
  json_object *doc, *cases;
  FILE *f;
  long size;

  snprintf(path, sizeof(path), "%s/protocol/vectors/%s", vectors_root(), name);
  f = fopen(path, "rb");
  if (!f) {
    tap_diag("cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fclose(f);
  if (size < 0 || (unsigned long)size > VECTOR_FILE_MAX_BYTES) {
    tap_diag("'%s' is larger than %u bytes", path, VECTOR_FILE_MAX_BYTES);
    return NULL;
  }
  doc = json_object_from_file(path);
  if (!doc) {
    tap_diag("cannot parse '%s': %s", path, json_util_get_last_err());
    return NULL;
  }
  if (!json_object_object_get_ex(doc, "cases", &cases) ||
      !json_object_is_type(cases, json_type_array)) {
    tap_diag("'%s' has no \"cases\" array", path);
    json_object_put(doc);
    return NULL;
  }
  return doc;
}

json_object *vectors_cases(json_object *doc)
{
  json_object *cases = NULL;
  json_object_object_get_ex(doc, "cases", &cases);
  return cases;
}

json_object *vectors_field(json_object *obj, const char *key)
{
  json_object *v = NULL;
  if (!json_object_object_get_ex(obj, key, &v))
    return NULL;
  return v;
}

const char *vectors_str(json_object *obj, const char *key)
{
  json_object *v = vectors_field(obj, key);
  return v && json_object_is_type(v, json_type_string)
             ? json_object_get_string(v)
             : NULL;
}

int vectors_u64(json_object *obj, const char *key, uint64_t *out)
{
  const char *s = vectors_str(obj, key);
  char *end;
  unsigned long long v;

  if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
    return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno || *end)
    return -1;
  *out = v;
  return 0;
}

int vectors_u32(json_object *obj, const char *key, uint32_t *out)
{
  json_object *v = vectors_field(obj, key);
  int64_t n;

  if (!v || !json_object_is_type(v, json_type_int))
    return -1;
  n = json_object_get_int64(v);
  if (n < 0 || n > UINT32_MAX)
    return -1;
  *out = (uint32_t)n;
  return 0;
}

int vectors_hex(json_object *obj, const char *key, uint8_t **out, size_t *len)
{
  const char *s = vectors_str(obj, key);
  size_t n, i;
  uint8_t *buf;

  if (!s)
    return -1;
  n = strlen(s);
  if (n % 2)
    return -1;
  buf = malloc(n / 2 + 1);
  if (!buf)
    return -1;
  for (i = 0; i < n / 2; i++) {
    int hi, lo;
    char c = s[2 * i], d = s[2 * i + 1];
    hi = c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : -1;
    lo = d >= '0' && d <= '9'   ? d - '0'
         : d >= 'a' && d <= 'f' ? d - 'a' + 10
                                : -1;
    if (hi < 0 || lo < 0) {
      free(buf);
      return -1;
    }
    buf[i] = (uint8_t)(hi << 4 | lo);
  }
  *out = buf;
  *len = n / 2;
  return 0;
}

int vectors_workload(json_object *obj, const char *key,
                     struct proto_workload *w)
{
  json_object *v = vectors_field(obj, key);
  if (!v || vectors_u64(v, "warmup", &w->warmup) ||
      vectors_u64(v, "round_trips", &w->round_trips) ||
      vectors_u32(v, "payload_bytes", &w->payload_bytes) ||
      vectors_u32(v, "max_in_flight", &w->max_in_flight))
    return -1;
  return 0;
}

int vectors_counts(json_object *obj, const char *key, struct proto_counts *c)
{
  json_object *v = vectors_field(obj, key);
  if (!v || vectors_u64(v, "requests", &c->requests) ||
      vectors_u64(v, "responses", &c->responses) ||
      vectors_u64(v, "bytes_sent", &c->bytes_sent) ||
      vectors_u64(v, "bytes_received", &c->bytes_received))
    return -1;
  return 0;
}

int vectors_counts_equal(const struct proto_counts *a,
                         const struct proto_counts *b)
{
  return a->requests == b->requests && a->responses == b->responses &&
         a->bytes_sent == b->bytes_sent &&
         a->bytes_received == b->bytes_received;
}

const char *vectors_case_name(json_object *c)
{
  const char *name = vectors_str(c, "name");
  return name ? name : "?";
}
