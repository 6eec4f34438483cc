/* Reading the members of an evidence document for the report model: each
 * as the type the model wants, copied into memory the report owns; a
 * member of another type or out of range makes the one error line, which
 * names its dotted path. The document's reading
 * (evidence/report/report_model.c) and a lane's (evidence/report/report_lane.c)
 * are both written with these. */
#include "evidence/report/report_reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Larger than any count or time the runner writes; keeps every figure
 * printable and every chart scale finite. */
#define FIGURE_LIMIT 1e18

int report_reader_fail(struct report_reader *rd, const char *fmt, ...)
{
  va_list ap;
  if (rd->failed++)
    return -1;
  va_start(ap, fmt);
  vsnprintf(rd->err, rd->errlen, fmt, ap);
  va_end(ap);
  return -1;
}

/* Takes ownership of p (freed now when it cannot be recorded). */
void *report_reader_own(struct report_reader *rd, void *p)
{
  struct report *r = rd->r;

  if (p == NULL) {
    report_reader_fail(rd, "out of memory");
    return NULL;
  }
  if (r->nowned == r->capowned) {
    size_t cap = r->capowned ? r->capowned * 2 : 64;
    void **grown = realloc(r->owned, cap * sizeof(*grown));
    if (grown == NULL) {
      free(p);
      report_reader_fail(rd, "out of memory");
      return NULL;
    }
    r->owned = grown;
    r->capowned = cap;
  }
  r->owned[r->nowned++] = p;
  return p;
}

void *report_reader_own_array(struct report_reader *rd, size_t n, size_t size)
{
  return report_reader_own(rd, calloc(n ? n : 1, size));
}

const char *report_reader_own_str(struct report_reader *rd, const char *s)
{
  return report_reader_own(rd, strdup(s));
}

const char *report_reader_type_name(json_object *o)
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

void report_reader_join(char *out, const char *where, const char *key)
{
  snprintf(out, REPORT_WHERE_MAX, "%s%s%s", where, where[0] ? "." : "", key);
}

/* Member key of o as type want (json_type_double: any number). Absent or
 * null: NULL, and an error when required. A wrong type is an error. */
json_object *report_reader_get(struct report_reader *rd, json_object *o,
                               const char *where, const char *key,
                               json_type want, int required)
{
  json_object *v = NULL;
  char path[REPORT_WHERE_MAX];
  json_type t;

  if (rd->failed || o == NULL)
    return NULL;
  report_reader_join(path, where, key);
  if (!json_object_object_get_ex(o, key, &v) || v == NULL) {
    if (required)
      report_reader_fail(rd, "'%s' is missing", path);
    return NULL;
  }
  t = json_object_get_type(v);
  if (t == want || (want == json_type_double && t == json_type_int))
    return v;
  report_reader_fail(rd, "'%s' is %s, expected %s", path,
                     report_reader_type_name(v), want_name(want));
  return NULL;
}

const char *report_reader_str(struct report_reader *rd, json_object *o,
                              const char *where, const char *key)
{
  json_object *v = report_reader_get(rd, o, where, key, json_type_string, 0);
  return v ? report_reader_own_str(rd, json_object_get_string(v)) : NULL;
}

const char *report_reader_str_or(struct report_reader *rd, json_object *o,
                                 const char *where, const char *key,
                                 const char *fallback)
{
  const char *s = report_reader_str(rd, o, where, key);
  return s ? s : fallback;
}

int report_reader_boolean(struct report_reader *rd, json_object *o,
                          const char *where, const char *key, int fallback)
{
  json_object *v = report_reader_get(rd, o, where, key, json_type_boolean, 0);
  return v ? json_object_get_boolean(v) : fallback;
}

/* A finite, non-negative number below FIGURE_LIMIT into *out; 1 when
 * present. */
int report_reader_number(struct report_reader *rd, json_object *o,
                         const char *where, const char *key, double *out)
{
  json_object *v = report_reader_get(rd, o, where, key, json_type_double, 0);
  char path[REPORT_WHERE_MAX];
  double d;

  if (v == NULL)
    return 0;
  d = json_object_get_double(v);
  if (!isfinite(d) || d < 0 || d > FIGURE_LIMIT) {
    report_reader_join(path, where, key);
    report_reader_fail(rd, "'%s' is %g, out of range", path, d);
    return 0;
  }
  *out = d;
  return 1;
}

/* A whole number in [0, FIGURE_LIMIT] into *out; 1 when present. */
int report_reader_whole(struct report_reader *rd, json_object *o,
                        const char *where, const char *key, int64_t *out)
{
  json_object *v = report_reader_get(rd, o, where, key, json_type_int, 0);
  char path[REPORT_WHERE_MAX];
  int64_t n;

  if (v == NULL)
    return 0;
  errno = 0;
  n = json_object_get_int64(v);
  if (n < 0 || (double)n > FIGURE_LIMIT || errno == ERANGE) {
    report_reader_join(path, where, key);
    report_reader_fail(rd, "'%s' is out of range", path);
    return 0;
  }
  *out = n;
  return 1;
}

int report_reader_whole_int(struct report_reader *rd, json_object *o,
                            const char *where, const char *key, int fallback)
{
  int64_t n;
  if (!report_reader_whole(rd, o, where, key, &n))
    return fallback;
  return n > 1000000000 ? 1000000000 : (int)n;
}
