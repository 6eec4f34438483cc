/* The schema's own check: before a document is evaluated, the schema must
 * use only the subset evidence/schema/validate.h lists, correctly. Apart from
 * the evaluation because it walks the schema, not a document, and reports every
 * problem of the schema at once. */
#include "evidence/schema/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/schema/validate_ctx.h"
#include "evidence/schema/validate_value.h"

static const char *const type_names[] = {
    "null", "boolean", "integer", "number", "string", "array", "object",
};

static int known_type(const char *t)
{
  for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
    if (strcmp(t, type_names[i]) == 0)
      return 1;
  return 0;
}

/* A non-negative integer as the standard counts them: 2.0 is one. */
static int is_count(json_object *v)
{
  double d;

  if (json_object_is_type(v, json_type_int))
    return json_object_get_int64(v) >= 0;
  if (!json_object_is_type(v, json_type_double))
    return 0;
  d = json_object_get_double(v);
  return isfinite(d) && d >= 0 && d == floor(d);
}

static void schema_check(struct validate_ctx *c, json_object *s, int level,
                         int root);

static void schema_check_member(struct validate_ctx *c, const char *key,
                                json_object *s, int level)
{
  size_t old = validate_ctx_push(c, key);
  schema_check(c, s, level, 0);
  validate_ctx_pop(c, old);
}

static void schema_check_type(struct validate_ctx *c, json_object *v)
{
  if (json_object_is_type(v, json_type_string)) {
    if (!known_type(json_object_get_string(v)))
      validate_ctx_report(c, "unknown type '%s'", json_object_get_string(v));
    return;
  }
  if (!json_object_is_type(v, json_type_array) ||
      json_object_array_length(v) == 0) {
    validate_ctx_report(
        c, "'type' must be a type name or a non-empty array of them");
    return;
  }
  for (size_t i = 0; i < json_object_array_length(v); i++) {
    json_object *t = json_object_array_get_idx(v, i);
    size_t old = validate_ctx_push_index(c, i);
    if (!json_object_is_type(t, json_type_string))
      validate_ctx_report(c, "a type name must be a string");
    else if (!known_type(json_object_get_string(t)))
      validate_ctx_report(c, "unknown type '%s'", json_object_get_string(t));
    else
      for (size_t k = 0; k < i; k++)
        if (validate_value_equal(t, json_object_array_get_idx(v, k), 0))
          validate_ctx_report(c, "type '%s' listed twice",
                              json_object_get_string(t));
    validate_ctx_pop(c, old);
  }
}

static void schema_check_keyword(struct validate_ctx *c, const char *key,
                                 json_object *v, int level, int root)
{
  char err[VALIDATE_MESSAGE_MAX];

  if (strcmp(key, "type") == 0) {
    schema_check_type(c, v);
  } else if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
    if (!json_object_is_type(v, json_type_object)) {
      validate_ctx_report(c, "'%s' must be an object of schemas", key);
      return;
    }
    if (strcmp(key, "$defs") == 0 && !root) {
      validate_ctx_report(
          c, "'$defs' is supported only at the root of the schema");
      return;
    }
    json_object_object_foreach(v, name, sub)
        schema_check_member(c, name, sub, level + 1);
  } else if (strcmp(key, "required") == 0) {
    if (!json_object_is_type(v, json_type_array)) {
      validate_ctx_report(c, "'required' must be an array of property names");
      return;
    }
    for (size_t i = 0; i < json_object_array_length(v); i++) {
      json_object *name = json_object_array_get_idx(v, i);
      size_t old = validate_ctx_push_index(c, i);
      if (!json_object_is_type(name, json_type_string))
        validate_ctx_report(c, "a required property name must be a string");
      else
        for (size_t k = 0; k < i; k++)
          if (validate_value_equal(name, json_object_array_get_idx(v, k), 0))
            validate_ctx_report(c, "'%s' is listed twice",
                                json_object_get_string(name));
      validate_ctx_pop(c, old);
    }
  } else if (strcmp(key, "additionalProperties") == 0) {
    schema_check(c, v, level, 0);
  } else if (strcmp(key, "items") == 0) {
    if (json_object_is_type(v, json_type_array))
      validate_ctx_report(c, "'items' must be one schema (an array of schemas, "
                             "prefixItems, is not supported)");
    else
      schema_check(c, v, level, 0);
  } else if (strcmp(key, "oneOf") == 0) {
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) == 0) {
      validate_ctx_report(c, "'oneOf' must be a non-empty array of schemas");
      return;
    }
    for (size_t i = 0; i < json_object_array_length(v); i++) {
      size_t old = validate_ctx_push_index(c, i);
      schema_check(c, json_object_array_get_idx(v, i), level + 1, 0);
      validate_ctx_pop(c, old);
    }
  } else if (strcmp(key, "enum") == 0 || strcmp(key, "const") == 0) {
    /* An empty enum is allowed (the standard only advises against it):
     * no value matches it. */
    if (strcmp(key, "enum") == 0 && !json_object_is_type(v, json_type_array)) {
      validate_ctx_report(c, "'enum' must be an array of values");
      return;
    }
    validate_ctx_scan(c, v, level);
  } else if (strcmp(key, "minimum") == 0 || strcmp(key, "maximum") == 0) {
    if (!validate_value_is_number(v))
      validate_ctx_report(c, "'%s' must be a number", key);
    else
      validate_ctx_scan(c, v, level);
  } else if (strcmp(key, "minLength") == 0 || strcmp(key, "maxLength") == 0) {
    if (!is_count(v))
      validate_ctx_report(c, "'%s' must be an integer, 0 or more", key);
  } else if (strcmp(key, "pattern") == 0) {
    if (!json_object_is_type(v, json_type_string))
      validate_ctx_report(c, "'pattern' must be a string");
    else if (validate_ctx_pattern_compile(v, err, sizeof(err)) != 0)
      validate_ctx_report(c, "%s", err);
  } else if (strcmp(key, "$ref") == 0) {
    if (!json_object_is_type(v, json_type_string))
      validate_ctx_report(c, "'$ref' must be a string");
    else if (validate_ctx_resolve_ref(c, json_object_get_string(v)) == NULL)
      validate_ctx_report(c,
                          "'$ref' '%s' does not name a schema under #/$defs/",
                          json_object_get_string(v));
  } else if (strcmp(key, "description") == 0 || strcmp(key, "title") == 0 ||
             strcmp(key, "$comment") == 0 || strcmp(key, "$schema") == 0 ||
             strcmp(key, "$id") == 0) {
    if (!json_object_is_type(v, json_type_string))
      validate_ctx_report(c, "'%s' must be a string", key);
  } else {
    validate_ctx_report(
        c, "unsupported keyword (crossrun's validator knows only the "
           "subset evidence/SCHEMA.md lists)");
  }
}

static void schema_check(struct validate_ctx *c, json_object *s, int level,
                         int root)
{
  if (json_object_is_type(s, json_type_boolean))
    return;
  if (!json_object_is_type(s, json_type_object)) {
    validate_ctx_report(c, "a schema must be an object or a boolean, not %s",
                        validate_value_type_name(s));
    return;
  }
  if (level >= VALIDATE_MAX_DEPTH) {
    validate_ctx_report(c, "nested deeper than %d levels", VALIDATE_MAX_DEPTH);
    return;
  }
  json_object_object_foreach(s, key, v)
  {
    size_t old = validate_ctx_push(c, key);
    schema_check_keyword(c, key, v, level + 1, root);
    validate_ctx_pop(c, old);
  }
}

int validate_schema(json_object *schema, struct validate_errors *out)
{
  struct validate_ctx *c = calloc(1, sizeof(*c));
  int before = out->total, rc;

  if (c == NULL) {
    validate_errors_add(out, "schema: out of memory");
    return -1;
  }
  c->root = schema;
  c->out = out;
  c->in_schema = 1;
  schema_check(c, schema, 0, 1);
  rc = out->total > before ? -1 : 0;
  free(c);
  return rc;
}
