/* The evaluation of a document against a schema that passed its own check
 * (evidence/schema/validate_schema.c): every keyword of the subset, every
 * problem reported with the JSON pointer of the value, none skipped because
 * another was found first, and a budget of steps and depth so that no schema
 * can make it run without end. */
#include "evidence/schema/validate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/utf8.h"
#include "evidence/schema/validate_ctx.h"
#include "evidence/schema/validate_value.h"

/* Evaluations nested in one another: one per level of the document, plus
 * $ref hops and oneOf alternatives. Only a $ref cycle that never reaches
 * the document goes this deep. */
#define EVAL_DEPTH_MAX (8 * VALIDATE_MAX_DEPTH)
#define REF_HOPS_MAX 32

static void check(struct validate_ctx *c, json_object *s, json_object *v,
                  int level);

static int type_matches(const char *t, json_object *v)
{
  enum json_type jt = json_object_get_type(v);
  if (strcmp(t, "integer") == 0)
    return jt == json_type_int;
  if (strcmp(t, "number") == 0)
    return jt == json_type_int || jt == json_type_double;
  return strcmp(t, validate_value_type_name(v)) == 0;
}

static int type_ok(json_object *type, json_object *v)
{
  if (json_object_is_type(type, json_type_string))
    return type_matches(json_object_get_string(type), v);
  for (size_t i = 0; i < json_object_array_length(type); i++)
    if (type_matches(json_object_get_string(json_object_array_get_idx(type, i)),
                     v))
      return 1;
  return 0;
}

/* Whether the schema's own type (through its $refs) admits v: oneOf uses
 * it to name the alternative meant for a value. */
static int type_admits(struct validate_ctx *c, json_object *s, json_object *v)
{
  json_object *t;
  for (int hops = 0; hops < REF_HOPS_MAX; hops++) {
    if (json_object_is_type(s, json_type_boolean))
      return json_object_get_boolean(s);
    if (json_object_object_get_ex(s, "type", &t))
      return type_ok(t, v);
    if (!json_object_object_get_ex(s, "$ref", &t) ||
        (s = validate_ctx_resolve_ref(c, json_object_get_string(t))) == NULL)
      return 1;
  }
  return 1;
}

static void check_type(struct validate_ctx *c, json_object *type,
                       json_object *v, int *failed)
{
  char want[160] = "", shown[64];
  size_t used = 0;

  if (type_ok(type, v))
    return;
  if (json_object_is_type(type, json_type_string)) {
    snprintf(want, sizeof(want), "%s", json_object_get_string(type));
  } else {
    size_t n = json_object_array_length(type);
    for (size_t i = 0; i < n && used < sizeof(want); i++)
      used += (size_t)snprintf(
          want + used, sizeof(want) - used, "%s%s",
          i == 0       ? ""
          : i + 1 == n ? " or "
                       : ", ",
          json_object_get_string(json_object_array_get_idx(type, i)));
  }
  if (json_object_is_type(v, json_type_null) ||
      json_object_is_type(v, json_type_array) ||
      json_object_is_type(v, json_type_object))
    validate_ctx_report(c, "expected %s, got %s", want,
                        validate_value_show(v, shown, sizeof(shown)));
  else
    validate_ctx_report(c, "expected %s, got %s %s", want,
                        validate_value_type_name(v),
                        validate_value_show(v, shown, sizeof(shown)));
  *failed = 1;
}

static void check_enum(struct validate_ctx *c, json_object *values,
                       json_object *v)
{
  char list[400] = "", shown[96];
  size_t used = 0, n = json_object_array_length(values);

  for (size_t i = 0; i < n; i++)
    if (validate_value_equal(v, json_object_array_get_idx(values, i), 0))
      return;
  if (n == 0) {
    validate_ctx_report(c, "%s is not allowed (the enum is empty)",
                        validate_value_show(v, shown, sizeof(shown)));
    return;
  }
  for (size_t i = 0; i < n && used + 1 < sizeof(list); i++)
    used += (size_t)snprintf(
        list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
        validate_value_show(json_object_array_get_idx(values, i), shown,
                            sizeof(shown)));
  validate_ctx_report(c, "%s is not one of: %s",
                      validate_value_show(v, shown, sizeof(shown)), list);
}

static void check_string(struct validate_ctx *c, json_object *s, json_object *v)
{
  const char *str = json_object_get_string(v);
  size_t len = (size_t)json_object_get_string_len(v);
  /* validate_ctx_scan reported a string that is not UTF-8; its length and
   * pattern are not looked at. */
  int text = utf8_error_at(str, len) < 0;
  json_object *k;
  char shown[96];

  if (text) {
    size_t chars = utf8_length(str, len);
    if (json_object_object_get_ex(s, "minLength", &k) &&
        (int64_t)chars < json_object_get_int64(k))
      validate_ctx_report(c,
                          "%zu characters, fewer than the minimum length %lld",
                          chars, (long long)json_object_get_int64(k));
    if (json_object_object_get_ex(s, "maxLength", &k) &&
        (int64_t)chars > json_object_get_int64(k))
      validate_ctx_report(c,
                          "%zu characters, more than the maximum length %lld",
                          chars, (long long)json_object_get_int64(k));
  }
  if (text && json_object_object_get_ex(s, "pattern", &k)) {
    char why[VALIDATE_MESSAGE_MAX];
    int rc = validate_ctx_pattern_match(c, k, str, len, why, sizeof(why));
    if (rc == 0)
      validate_ctx_report(c, "%s does not match the pattern %s",
                          validate_value_show(v, shown, sizeof(shown)),
                          json_object_get_string(k));
    else if (rc < 0)
      validate_ctx_report(c,
                          "%s does not match the pattern %s: matching it "
                          "stopped (%s)",
                          validate_value_show(v, shown, sizeof(shown)),
                          json_object_get_string(k), why);
  }
}

static void check_number(struct validate_ctx *c, json_object *s, json_object *v)
{
  json_object *k;
  char a[64], b[64];

  if (json_object_object_get_ex(s, "minimum", &k) &&
      validate_value_cmp(v, k) < 0)
    validate_ctx_report(c, "%s is less than the minimum %s",
                        validate_value_show(v, a, sizeof(a)),
                        validate_value_show(k, b, sizeof(b)));
  if (json_object_object_get_ex(s, "maximum", &k) &&
      validate_value_cmp(v, k) > 0)
    validate_ctx_report(c, "%s is greater than the maximum %s",
                        validate_value_show(v, a, sizeof(a)),
                        validate_value_show(k, b, sizeof(b)));
}

static void check_object(struct validate_ctx *c, json_object *s, json_object *v,
                         int level)
{
  json_object *props = NULL, *required, *additional = NULL, *sub;

  if (level >= VALIDATE_MAX_DEPTH)
    return; /* validate_ctx_scan said so; its members are not looked at */
  json_object_object_get_ex(s, "properties", &props);
  json_object_object_get_ex(s, "additionalProperties", &additional);
  if (json_object_object_get_ex(s, "required", &required)) {
    for (size_t i = 0; i < json_object_array_length(required); i++) {
      const char *name =
          json_object_get_string(json_object_array_get_idx(required, i));
      if (!json_object_object_get_ex(v, name, NULL)) {
        size_t old = validate_ctx_push(c, name);
        validate_ctx_report(c, "required property is missing");
        validate_ctx_pop(c, old);
      }
    }
  }
  if (props == NULL && additional == NULL)
    return;
  json_object_object_foreach(v, key, child)
  {
    size_t old = validate_ctx_push(c, key);
    if (props != NULL && json_object_object_get_ex(props, key, &sub))
      check(c, sub, child, level + 1);
    else if (additional != NULL &&
             json_object_is_type(additional, json_type_boolean) &&
             !json_object_get_boolean(additional))
      validate_ctx_report(
          c, "property is not allowed here (the schema does not list "
             "it)");
    else if (additional != NULL)
      check(c, additional, child, level + 1);
    validate_ctx_pop(c, old);
    if (c->aborted)
      return;
  }
}

static void check_items(struct validate_ctx *c, json_object *items,
                        json_object *v, int level)
{
  size_t n = json_object_array_length(v);

  if (level >= VALIDATE_MAX_DEPTH)
    return;
  for (size_t i = 0; i < n && !c->aborted; i++) {
    size_t old = validate_ctx_push_index(c, i);
    check(c, items, json_object_array_get_idx(v, i), level + 1);
    validate_ctx_pop(c, old);
  }
}

/* Exactly one alternative must match. When none does, the errors of the
 * closest one are given: one whose type admits the value, with the fewest
 * errors. */
static void check_one_of(struct validate_ctx *c, json_object *alts,
                         json_object *v, int level)
{
  struct validate_errors *saved = c->out, best, tmp;
  size_t n = json_object_array_length(alts), best_i = 0;
  int matched = 0, first = -1, second = -1, best_rank = 0;
  long long best_total = 0;

  validate_errors_init(&best);
  for (size_t i = 0; i < n; i++) {
    json_object *alt = json_object_array_get_idx(alts, i);
    int rank = type_admits(c, alt, v) ? 0 : 1;

    validate_errors_init(&tmp);
    c->out = &tmp;
    check(c, alt, v, level);
    c->out = saved;
    if (c->aborted) {
      validate_errors_move(saved, &tmp); /* the reason it stopped */
      validate_errors_release(&best);
      return;
    }
    if (tmp.total == 0) {
      matched++;
      if (first < 0)
        first = (int)i;
      else if (second < 0)
        second = (int)i;
    } else if (best.total == 0 || rank < best_rank ||
               (rank == best_rank && tmp.total < best_total)) {
      validate_errors_release(&best);
      best = tmp;
      best_i = i;
      best_rank = rank;
      best_total = tmp.total;
      continue;
    }
    validate_errors_release(&tmp);
  }
  if (matched == 1) {
    validate_errors_release(&best);
    return;
  }
  if (matched > 1) {
    validate_ctx_report(
        c,
        "matches %d of the %zu alternatives of oneOf (%d and %d), "
        "exactly one must match",
        matched, n, first + 1, second + 1);
  } else {
    json_object *alt = json_object_array_get_idx(alts, best_i), *about;
    char name[160] = "";
    /* Named by its $ref, else by its description. */
    if (json_object_object_get_ex(alt, "$ref", &about) ||
        json_object_object_get_ex(alt, "description", &about))
      snprintf(name, sizeof(name), " (%.100s%s)", json_object_get_string(about),
               strlen(json_object_get_string(about)) > 100 ? "..." : "");
    validate_ctx_report(
        c,
        "matches none of the %zu alternatives of oneOf; the closest, "
        "alternative %zu%s, fails with:",
        n, best_i + 1, name);
    validate_errors_move(saved, &best);
  }
  validate_errors_release(&best);
}

static void check(struct validate_ctx *c, json_object *s, json_object *v,
                  int level)
{
  json_object *k;
  int type_failed = 0;

  if (c->aborted)
    return;
  if (++c->steps > c->max_steps) {
    validate_ctx_abort(
        c,
        "evaluation stopped after %lld steps: the schema's oneOf "
        "alternatives multiply too much",
        c->max_steps);
    return;
  }
  if (c->eval_depth >= EVAL_DEPTH_MAX) {
    validate_ctx_abort(c,
                       "evaluation nested deeper than %d levels (a $ref cycle "
                       "that never reaches the document?)",
                       EVAL_DEPTH_MAX);
    return;
  }
  if (json_object_is_type(s, json_type_boolean)) {
    if (!json_object_get_boolean(s))
      validate_ctx_report(c, "not allowed here (the schema is false)");
    return;
  }
  if (!json_object_is_type(s, json_type_object))
    return; /* validate_schema refused it already */
  c->eval_depth++;
  /* One type error says enough about a value: the other keywords would
   * only repeat it. */
  if (json_object_object_get_ex(s, "type", &k))
    check_type(c, k, v, &type_failed);
  if (type_failed)
    goto out;
  if (json_object_object_get_ex(s, "$ref", &k))
    check(c, validate_ctx_resolve_ref(c, json_object_get_string(k)), v, level);
  if (json_object_object_get_ex(s, "enum", &k))
    check_enum(c, k, v);
  if (json_object_object_get_ex(s, "const", &k) &&
      !validate_value_equal(v, k, 0)) {
    char a[96], b[96];
    validate_ctx_report(c, "expected %s, got %s",
                        validate_value_show(k, a, sizeof(a)),
                        validate_value_show(v, b, sizeof(b)));
  }
  if (validate_value_is_number(v))
    check_number(c, s, v);
  else if (json_object_is_type(v, json_type_string))
    check_string(c, s, v);
  else if (json_object_is_type(v, json_type_object))
    check_object(c, s, v, level);
  else if (json_object_is_type(v, json_type_array) &&
           json_object_object_get_ex(s, "items", &k))
    check_items(c, k, v, level);
  if (!c->aborted && json_object_object_get_ex(s, "oneOf", &k))
    check_one_of(c, k, v, level);
out:
  c->eval_depth--;
}

int validate_document(json_object *schema, json_object *doc,
                      struct validate_errors *out)
{
  if (validate_schema(schema, out) != 0)
    return -1;
  return validate_document_checked(schema, doc, out);
}

int validate_document_checked(json_object *schema, json_object *doc,
                              struct validate_errors *out)
{
  struct validate_ctx *c;
  int before = out->total, rc;

  c = calloc(1, sizeof(*c));
  if (c == NULL) {
    validate_errors_add(out, "schema: out of memory");
    return -1;
  }
  c->root = schema;
  c->out = out;
  validate_ctx_scan(c, doc, 0);
  /* Generous for any schema whose oneOf alternatives do not nest in one
   * another without end; a few seconds at most for one that does. */
  c->max_steps = 64 * c->nodes + 100000;
  check(c, schema, doc, 0);
  rc = c->aborted ? -1 : out->total > before ? 1 : 0;
  validate_ctx_release(c);
  free(c);
  return rc;
}
