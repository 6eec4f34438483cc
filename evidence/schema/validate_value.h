/* JSON values as the validator (evidence/schema/validate.h) sees them: its type
 * names, exact comparison of numbers, JSON equality and a short rendering
 * for messages (UTF-8 is checked with evidence/base/utf8.h). For the
 * validator's files, not for other callers. None of these allocates or
 * keeps anything. */
#ifndef CROSSRUN_EVIDENCE_VALIDATE_VALUE_H
#define CROSSRUN_EVIDENCE_VALIDATE_VALUE_H

#include <stddef.h>
#include <json-c/json.h>

/* The schema's name for v's type: "null", "boolean", "integer" (json-c's
 * integers), "number" (its doubles), "string", "array" or "object". */
const char *validate_value_type_name(json_object *v);

/* 1 when v is an integer or a double. */
int validate_value_is_number(json_object *v);

/* -1, 0 or 1 as a is below, equal to or above b (both numbers); exact
 * between two integers over the whole of int64 and uint64. */
int validate_value_cmp(json_object *a, json_object *b);

/* 1 when a and b are equal as JSON: numbers by value (1 equals 1.0),
 * objects whatever their key order. Values nested deeper than
 * VALIDATE_MAX_DEPTH below depth are not equal. */
int validate_value_equal(json_object *a, json_object *b, int depth);

/* Renders v into buf (len bytes, at least 8) for a message: scalars as
 * JSON, strings quoted, cut after 48 bytes with "..." and with control
 * bytes as '?', arrays and objects by their size. Returns buf. */
const char *validate_value_show(json_object *v, char *buf, size_t len);

#endif
