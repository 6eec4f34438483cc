/* How the validator looks at JSON values: type names as the schema spells
 * them, numbers compared exactly, equality for enum and const, a short
 * rendering for messages. None of it needs the schema or
 * the walk, so both the schema's own check and the document's evaluation
 * use it from here. */
#include "evidence/schema/validate_value.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "evidence/schema/validate.h"

#define VALUE_SHOWN 48 /* bytes of a string quoted in a message */

const char *validate_value_type_name(json_object *v)
{
  switch (json_object_get_type(v)) {
  case json_type_null:
    return "null";
  case json_type_boolean:
    return "boolean";
  case json_type_int:
    return "integer";
  case json_type_double:
    return "number";
  case json_type_string:
    return "string";
  case json_type_array:
    return "array";
  default:
    return "object";
  }
}

int validate_value_is_number(json_object *v)
{
  return json_object_is_type(v, json_type_int) ||
         json_object_is_type(v, json_type_double);
}

/* An integer's sign and magnitude, exact over int64 and uint64. */
static void int_parts(json_object *v, int *negative, uint64_t *magnitude)
{
  int64_t s = json_object_get_int64(v);
  *negative = s < 0;
  *magnitude = s < 0 ? (uint64_t)0 - (uint64_t)s : json_object_get_uint64(v);
}

static double number_of(json_object *v)
{
  return json_object_get_double(v);
}

/* -1, 0 or 1 as a is below, equal to or above b (both numbers). */
int validate_value_cmp(json_object *a, json_object *b)
{
  if (json_object_is_type(a, json_type_int) &&
      json_object_is_type(b, json_type_int)) {
    int na, nb;
    uint64_t ma, mb;
    int_parts(a, &na, &ma);
    int_parts(b, &nb, &mb);
    if (na != nb)
      return na ? -1 : 1;
    if (ma == mb)
      return 0;
    return (ma < mb) != na ? -1 : 1;
  }
  {
    double x = number_of(a), y = number_of(b);
    return (x > y) - (x < y);
  }
}

/* JSON equality: numbers by value (1 equals 1.0), objects whatever their
 * key order. Bounded by depth like everything else. */
int validate_value_equal(json_object *a, json_object *b, int depth)
{
  enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);

  if (depth > VALIDATE_MAX_DEPTH)
    return 0;
  if (validate_value_is_number(a) && validate_value_is_number(b))
    return validate_value_cmp(a, b) == 0;
  if (ta != tb)
    return 0;
  switch (ta) {
  case json_type_null:
    return 1;
  case json_type_boolean:
    return json_object_get_boolean(a) == json_object_get_boolean(b);
  case json_type_string:
    return json_object_get_string_len(a) == json_object_get_string_len(b) &&
           memcmp(json_object_get_string(a), json_object_get_string(b),
                  (size_t)json_object_get_string_len(a)) == 0;
  case json_type_array: {
    size_t n = json_object_array_length(a);
    if (n != json_object_array_length(b))
      return 0;
    for (size_t i = 0; i < n; i++)
      if (!validate_value_equal(json_object_array_get_idx(a, i),
                                json_object_array_get_idx(b, i), depth + 1))
        return 0;
    return 1;
  }
  case json_type_object: {
    if (json_object_object_length(a) != json_object_object_length(b))
      return 0;
    json_object_object_foreach(a, key, va)
    {
      json_object *vb;
      if (!json_object_object_get_ex(b, key, &vb) ||
          !validate_value_equal(va, vb, depth + 1))
        return 0;
    }
    return 1;
  }
  default:
    return 0;
  }
}

/* A short rendering of a value for messages: scalars as JSON (strings cut
 * and stripped of control bytes), containers by their size. */
const char *validate_value_show(json_object *v, char *buf, size_t len)
{
  switch (json_object_get_type(v)) {
  case json_type_null:
    snprintf(buf, len, "null");
    break;
  case json_type_boolean:
    snprintf(buf, len, "%s", json_object_get_boolean(v) ? "true" : "false");
    break;
  case json_type_int: {
    int neg;
    uint64_t mag;
    int_parts(v, &neg, &mag);
    snprintf(buf, len, "%s%llu", neg ? "-" : "", (unsigned long long)mag);
    break;
  }
  case json_type_double: {
    /* json-c keeps a parsed double's own text ("1.0", "1e400"). */
    const char *t = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
    snprintf(buf, len, "%.40s", t ? t : "?");
    break;
  }
  case json_type_string: {
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v), w = 0;
    buf[w++] = '"';
    for (size_t i = 0; i < n && w + 6 < len; i++) {
      if (i == VALUE_SHOWN) {
        memcpy(buf + w, "...", 3);
        w += 3;
        break;
      }
      buf[w++] = (unsigned char)s[i] < ' ' || s[i] == 127 ? '?' : s[i];
    }
    buf[w++] = '"';
    buf[w] = '\0';
    break;
  }
  case json_type_array:
    snprintf(buf, len, "an array of %zu item%s", json_object_array_length(v),
             json_object_array_length(v) == 1 ? "" : "s");
    break;
  default:
    snprintf(buf, len, "an object");
    break;
  }
  return buf;
}
