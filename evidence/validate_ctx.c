/* What the schema's own check (evidence/validate_schema.c) and the
 * evaluation of a document (evidence/validate_document.c) share: the error
 * list every message goes to, the context they walk with (the JSON pointer
 * of where they are, the step and depth budget, compiled patterns), the
 * two ways they report, and the checks every document gets whatever its
 * schema says. */
#include "evidence/validate_ctx.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/validate_value.h"

/* ---- error lists ---- */

void validate_errors_init(struct validate_errors *e)
{
  e->messages = NULL;
  e->n = 0;
  e->total = 0;
}

void validate_errors_release(struct validate_errors *e)
{
  for (int i = 0; i < e->n; i++)
    free(e->messages[i]);
  free(e->messages);
  validate_errors_init(e);
}

void validate_errors_add(struct validate_errors *e, const char *msg)
{
  e->total++;
  if (e->n >= VALIDATE_MAX_ERRORS)
    return;
  if (e->messages == NULL) {
    e->messages = calloc(VALIDATE_MAX_ERRORS, sizeof(*e->messages));
    if (e->messages == NULL)
      return; /* counted, not kept */
  }
  e->messages[e->n] = strdup(msg);
  if (e->messages[e->n] != NULL)
    e->n++;
}

/* Moves every message of from to the end of to; from is left empty. */
void validate_errors_move(struct validate_errors *to,
                          struct validate_errors *from)
{
  for (int i = 0; i < from->n; i++)
    validate_errors_add(to, from->messages[i]);
  to->total += from->total - from->n;
  validate_errors_release(from);
}

/* snprintf that marks a cut message with "..." at its end. */
static void format_cut(char *out, size_t outlen, const char *fmt, va_list ap)
{
  int n = vsnprintf(out, outlen, fmt, ap);
  if (n >= 0 && (size_t)n >= outlen && outlen > 4)
    memcpy(out + outlen - 4, "...", 4);
}

void validate_errors_addf(struct validate_errors *e, const char *fmt, ...)
{
  char msg[VALIDATE_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  format_cut(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  validate_errors_add(e, msg);
}

/* ---- the evaluation context ---- */

void validate_ctx_release(struct validate_ctx *c)
{
  for (int i = 0; i < c->ncache; i++)
    pattern_release(&c->cache[i].p);
  c->ncache = 0;
}

/* Appends "/seg" (escaped per RFC 6901) to the pointer; returns the length
 * to restore with validate_ctx_pop. A pointer that no longer fits ends in
 * "...". */
size_t validate_ctx_push(struct validate_ctx *c, const char *seg)
{
  size_t old = c->ptrlen, n = old;

  if (n + 5 >= VALIDATE_POINTER_MAX)
    return old;
  c->ptr[n++] = '/';
  for (const char *s = seg; *s != '\0'; s++) {
    const char *esc = *s == '~' ? "~0" : *s == '/' ? "~1" : NULL;
    size_t need = esc ? 2 : 1;
    if (n + need + 4 >= VALIDATE_POINTER_MAX) {
      memcpy(c->ptr + n, "...", 3);
      n += 3;
      break;
    }
    if (esc != NULL) {
      memcpy(c->ptr + n, esc, 2);
    } else {
      c->ptr[n] = *s;
    }
    n += need;
  }
  c->ptr[n] = '\0';
  c->ptrlen = n;
  return old;
}

size_t validate_ctx_push_index(struct validate_ctx *c, size_t index)
{
  char seg[32];
  snprintf(seg, sizeof(seg), "%zu", index);
  return validate_ctx_push(c, seg);
}

void validate_ctx_pop(struct validate_ctx *c, size_t old)
{
  c->ptrlen = old;
  c->ptr[old] = '\0';
}

void validate_ctx_report(struct validate_ctx *c, const char *fmt, ...)
{
  char problem[VALIDATE_MESSAGE_MAX];
  va_list ap;

  va_start(ap, fmt);
  format_cut(problem, sizeof(problem), fmt, ap);
  va_end(ap);
  validate_errors_addf(c->out, "%sat %s: %s", c->in_schema ? "schema: " : "",
                       c->ptrlen ? c->ptr : "(root)", problem);
}

/* The evaluation cannot go on: one message, then every caller unwinds. */
void validate_ctx_abort(struct validate_ctx *c, const char *fmt, ...)
{
  char problem[VALIDATE_MESSAGE_MAX];
  va_list ap;

  va_start(ap, fmt);
  format_cut(problem, sizeof(problem), fmt, ap);
  va_end(ap);
  validate_errors_addf(c->out, "schema: %s (at %s)", problem,
                       c->ptrlen ? c->ptr : "(root)");
  c->aborted = 1;
}

/* What every document must be, whatever the schema: nested at most
 * VALIDATE_MAX_DEPTH levels, finite numbers, 64-bit integers json-c did
 * not clamp, UTF-8 strings and keys. Also counts the nodes. */
void validate_ctx_scan(struct validate_ctx *c, json_object *v, int level)
{
  char shown[64];
  long long bad;

  c->nodes++;
  switch (json_object_get_type(v)) {
  case json_type_double:
    if (!isfinite(json_object_get_double(v)))
      validate_ctx_report(c, "number out of range: %s is not a finite double",
                          validate_value_show(v, shown, sizeof(shown)));
    return;
  case json_type_int:
    /* json-c clamps what does not fit to these two values: a figure at
     * either may have been anything beyond it. */
    if (json_object_get_int64(v) == INT64_MIN ||
        json_object_get_uint64(v) == UINT64_MAX)
      validate_ctx_report(
          c,
          "integer out of range: %s is where json-c clamps integers "
          "that do not fit 64 bits",
          validate_value_show(v, shown, sizeof(shown)));
    return;
  case json_type_string:
    bad = validate_value_utf8_error(json_object_get_string(v),
                                    (size_t)json_object_get_string_len(v));
    if (bad >= 0)
      validate_ctx_report(c, "string is not valid UTF-8 (byte %lld)", bad);
    return;
  case json_type_array:
  case json_type_object:
    break;
  default:
    return;
  }
  if (level >= VALIDATE_MAX_DEPTH) {
    validate_ctx_report(c, "nested deeper than %d levels of arrays and objects",
                        VALIDATE_MAX_DEPTH);
    return;
  }
  if (json_object_is_type(v, json_type_array)) {
    size_t n = json_object_array_length(v);
    for (size_t i = 0; i < n; i++) {
      size_t old = validate_ctx_push_index(c, i);
      validate_ctx_scan(c, json_object_array_get_idx(v, i), level + 1);
      validate_ctx_pop(c, old);
    }
    return;
  }
  json_object_object_foreach(v, key, child)
  {
    size_t old = validate_ctx_push(c, key);
    bad = validate_value_utf8_error(key, strlen(key));
    if (bad >= 0)
      validate_ctx_report(c, "property name is not valid UTF-8 (byte %lld)",
                          bad);
    validate_ctx_scan(c, child, level + 1);
    validate_ctx_pop(c, old);
  }
}

/* The schema "#/$defs/NAME" names, or NULL. */
json_object *validate_ctx_resolve_ref(struct validate_ctx *c, const char *ref)
{
  static const char prefix[] = "#/$defs/";
  char name[512];
  size_t n = 0;
  json_object *defs, *target;

  if (strncmp(ref, prefix, sizeof(prefix) - 1) != 0)
    return NULL;
  for (const char *s = ref + sizeof(prefix) - 1; *s != '\0'; s++) {
    if (n + 1 >= sizeof(name) || *s == '/')
      return NULL;
    if (*s == '~') {
      if (s[1] != '0' && s[1] != '1')
        return NULL;
      name[n++] = s[1] == '0' ? '~' : '/';
      s++;
    } else {
      name[n++] = *s;
    }
  }
  name[n] = '\0';
  if (!json_object_object_get_ex(c->root, "$defs", &defs) ||
      !json_object_is_type(defs, json_type_object) ||
      !json_object_object_get_ex(defs, name, &target))
    return NULL;
  return target;
}
