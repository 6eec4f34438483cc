/* What the schema's own check (evidence/schema/validate_schema.c) and the
 * evaluation of a document (evidence/schema/validate_document.c) share: the
 * error list every message goes to, the context they walk with (the JSON
 * pointer of where they are, the step and depth budget, PCRE2's match limits),
 * the two ways they report, the schema's patterns, and the checks every
 * document gets whatever its schema says. */
#include "evidence/schema/validate_ctx.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/utf8.h"
#include "evidence/schema/validate_value.h"

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
  if (e->messages[e->n] == NULL)
    return;
  /* A name or value from the document may hold a newline: shown as '?',
   * it cannot start a line of its own in what validate prints. */
  for (char *p = e->messages[e->n]; *p != '\0'; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
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
    __attribute__((format(printf, 3, 0)));
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
  pcre2_match_data_free(c->match_data);
  pcre2_match_context_free(c->match_context);
  c->match_data = NULL;
  c->match_context = NULL;
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
    bad = utf8_error_at(json_object_get_string(v),
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
    bad = utf8_error_at(key, strlen(key));
    if (bad >= 0)
      validate_ctx_report(c, "property name is not valid UTF-8 (byte %lld)",
                          bad);
    validate_ctx_scan(c, child, level + 1);
    validate_ctx_pop(c, old);
  }
}

/* ---- patterns ---- */

static void pattern_code_free(json_object *k, void *code)
{
  pcre2_code_free(code);
}

int validate_ctx_pattern_compile(json_object *k, char *err, size_t errlen)
{
  /* ECMA-262 as far as PCRE2 goes: '$' is the end of the string only (not
   * before a final newline), '.' stops at \r as at \n, \uHHHH and
   * \u{H...} are code points, and \C (one byte of a character) is refused.
   * No PCRE2_UCP: \d and \w are ASCII, as in ECMA-262. */
  uint32_t options = PCRE2_UTF | PCRE2_DOLLAR_ENDONLY |
                     PCRE2_NEVER_BACKSLASH_C | PCRE2_ALT_BSUX;
  pcre2_compile_context *cc;
  pcre2_code *code;
  PCRE2_UCHAR message[256];
  PCRE2_SIZE offset = 0;
  int code_err = 0;

  if (json_object_get_userdata(k) != NULL)
    return 0;
  cc = pcre2_compile_context_create(NULL);
  if (cc == NULL) {
    snprintf(err, errlen, "out of memory compiling pattern '%s'",
             json_object_get_string(k));
    return -1;
  }
  pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF);
#ifdef PCRE2_EXTRA_ALT_BSUX
  pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
#endif
  code = pcre2_compile((PCRE2_SPTR)json_object_get_string(k),
                       (PCRE2_SIZE)json_object_get_string_len(k), options,
                       &code_err, &offset, cc);
  pcre2_compile_context_free(cc);
  if (code == NULL) {
    pcre2_get_error_message(code_err, message, sizeof(message));
    snprintf(err, errlen, "pattern '%s' does not compile: %s at offset %zu",
             json_object_get_string(k), (const char *)message, (size_t)offset);
    return -1;
  }
  json_object_set_userdata(k, code, pattern_code_free);
  return 0;
}

int validate_ctx_pattern_match(struct validate_ctx *c, json_object *k,
                               const char *s, size_t len, char *err,
                               size_t errlen)
{
  PCRE2_UCHAR message[256];
  int rc;

  if (validate_ctx_pattern_compile(k, err, errlen) != 0)
    return -1;
  if (c->match_context == NULL) {
    c->match_context = pcre2_match_context_create(NULL);
    if (c->match_context != NULL) {
      pcre2_set_match_limit(c->match_context, VALIDATE_PATTERN_MATCH_LIMIT);
      pcre2_set_depth_limit(c->match_context, VALIDATE_PATTERN_DEPTH_LIMIT);
      pcre2_set_heap_limit(c->match_context, VALIDATE_PATTERN_HEAP_KIB);
    }
  }
  /* Where the match is does not matter: one pair of offsets is enough. */
  if (c->match_data == NULL)
    c->match_data = pcre2_match_data_create(1, NULL);
  if (c->match_context == NULL || c->match_data == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  rc = pcre2_match(json_object_get_userdata(k), (PCRE2_SPTR)s, (PCRE2_SIZE)len,
                   0, 0, c->match_data, c->match_context);
  if (rc >= 0) /* 0: matched, with more groups than offsets kept */
    return 1;
  if (rc == PCRE2_ERROR_NOMATCH)
    return 0;
  pcre2_get_error_message(rc, message, sizeof(message));
  snprintf(err, errlen, "%s", (const char *)message);
  return -1;
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
