#include "evidence/validate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* json-c's parser keeps its own stack, but freeing and printing a tree
 * recurse once per level: past a few tens of thousands of levels they
 * overflow the C stack. Files are refused well before that; the documents
 * accepted by VALIDATE_MAX_DEPTH are far shallower still. */
#define PARSE_DEPTH (16 * VALIDATE_MAX_DEPTH)
#define POINTER_MAX 2048
/* Evaluations nested in one another: one per level of the document, plus
 * $ref hops and oneOf alternatives. Only a $ref cycle that never reaches
 * the document goes this deep. */
#define EVAL_DEPTH_MAX (8 * VALIDATE_MAX_DEPTH)
#define REF_HOPS_MAX 32
#define PATTERN_MAX_ATOMS 1024
#define PATTERN_MAX_REPEAT 1000
#define PATTERN_CACHE 32
#define VALUE_SHOWN 48 /* bytes of a string quoted in a message */

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

static void errors_add(struct validate_errors *e, const char *msg)
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
static void errors_move(struct validate_errors *to,
                        struct validate_errors *from)
{
  for (int i = 0; i < from->n; i++)
    errors_add(to, from->messages[i]);
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

static void errors_addf(struct validate_errors *e, const char *fmt, ...)
{
  char msg[VALIDATE_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  format_cut(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  errors_add(e, msg);
}

/* ---- patterns ----
 * An anchored subset of ECMA-262 regular expressions, matched byte by byte
 * by simulating all positions at once (no backtracking, so no pattern can
 * take more than length x atoms steps). Each atom is a set of bytes that
 * must match once, may match once, or may match any number of times;
 * counted repetition is expanded into copies. */

enum atom_kind { ATOM_ONE, ATOM_OPT, ATOM_STAR };

struct pattern_atom {
  unsigned char set[32];
  unsigned char kind;
};

struct pattern {
  int anchor_start;
  int anchor_end;
  int n;
  struct pattern_atom *atoms;
};

static void set_add(unsigned char *set, unsigned c)
{
  set[(c & 255) >> 3] |= (unsigned char)(1u << (c & 7));
}

static int set_has(const unsigned char *set, unsigned c)
{
  return (set[(c & 255) >> 3] >> (c & 7)) & 1;
}

static void set_range(unsigned char *set, unsigned lo, unsigned hi)
{
  for (unsigned c = lo; c <= hi; c++)
    set_add(set, c);
}

static void set_invert(unsigned char *set)
{
  for (int i = 0; i < 32; i++)
    set[i] = (unsigned char)~set[i];
}

/* \d \w \s and their negations, into set. */
static void set_class(unsigned char *set, char k)
{
  unsigned char tmp[32];
  memset(tmp, 0, sizeof(tmp));
  switch (k | 0x20) {
  case 'd':
    set_range(tmp, '0', '9');
    break;
  case 'w':
    set_range(tmp, '0', '9');
    set_range(tmp, 'a', 'z');
    set_range(tmp, 'A', 'Z');
    set_add(tmp, '_');
    break;
  default: /* 's' */
    set_add(tmp, ' ');
    set_range(tmp, '\t', '\r');
    break;
  }
  if (k >= 'A' && k <= 'Z')
    set_invert(tmp);
  for (int i = 0; i < 32; i++)
    set[i] |= tmp[i];
}

/* One escape at src[*i] == '\\'. Returns 1 with a single byte in *c, 2
 * when a class (\d ...) was added to set, or -1 with a message. */
static int pattern_escape(const char *src, size_t len, size_t *i, unsigned *c,
                          unsigned char *set, char *err, size_t errlen)
{
  unsigned char k;

  if (*i + 1 >= len) {
    snprintf(err, errlen, "the pattern ends with '\\'");
    return -1;
  }
  k = (unsigned char)src[*i + 1];
  *i += 2;
  if (strchr("dDwWsS", k) != NULL && k != '\0') {
    set_class(set, (char)k);
    return 2;
  }
  switch (k) {
  case 'n':
    *c = '\n';
    return 1;
  case 't':
    *c = '\t';
    return 1;
  case 'r':
    *c = '\r';
    return 1;
  case 'f':
    *c = '\f';
    return 1;
  case 'v':
    *c = '\v';
    return 1;
  }
  if (k < 128 && k > ' ' && !(k >= '0' && k <= '9') &&
      !((k | 0x20) >= 'a' && (k | 0x20) <= 'z')) {
    *c = k; /* escaped punctuation stands for itself */
    return 1;
  }
  snprintf(err, errlen, "unsupported escape '\\%c'", k > ' ' ? k : '?');
  return -1;
}

/* A bracket expression at src[*i] == '['. */
static int pattern_class(const char *src, size_t len, size_t *i,
                         unsigned char *set, char *err, size_t errlen)
{
  int negate = 0, items = 0;

  (*i)++;
  if (*i < len && src[*i] == '^') {
    negate = 1;
    (*i)++;
  }
  while (*i < len && src[*i] != ']') {
    unsigned lo, hi;
    int r;

    if (src[*i] == '\\') {
      r = pattern_escape(src, len, i, &lo, set, err, errlen);
      if (r < 0)
        return -1;
      if (r == 2) {
        items++;
        continue;
      }
    } else {
      lo = (unsigned char)src[(*i)++];
    }
    hi = lo;
    if (*i + 1 < len && src[*i] == '-' && src[*i + 1] != ']') {
      (*i)++;
      if (src[*i] == '\\') {
        unsigned char unused[32] = {0};
        r = pattern_escape(src, len, i, &hi, unused, err, errlen);
        if (r < 0)
          return -1;
        if (r == 2) {
          snprintf(err, errlen, "a class escape cannot end a range");
          return -1;
        }
      } else {
        hi = (unsigned char)src[(*i)++];
      }
      if (hi < lo) {
        snprintf(err, errlen, "range out of order in '[...]'");
        return -1;
      }
    }
    set_range(set, lo, hi);
    items++;
  }
  if (*i >= len) {
    snprintf(err, errlen, "unterminated '['");
    return -1;
  }
  (*i)++;
  if (items == 0) {
    snprintf(err, errlen, "empty '[]'");
    return -1;
  }
  if (negate)
    set_invert(set);
  return 0;
}

static int parse_count(const char *src, size_t len, size_t *i, int *out)
{
  long v = 0;
  size_t start = *i;
  while (*i < len && src[*i] >= '0' && src[*i] <= '9') {
    v = v * 10 + (src[*i] - '0');
    if (v > PATTERN_MAX_REPEAT)
      return -1;
    (*i)++;
  }
  *out = (int)v;
  return *i > start ? 0 : -1;
}

/* A quantifier after an atom: lo copies, then hi - lo optional ones (hi
 * -1: any number more). */
static int pattern_quantifier(const char *src, size_t len, size_t *i, int *lo,
                              int *hi, char *err, size_t errlen)
{
  *lo = *hi = 1;
  if (*i >= len)
    return 0;
  switch (src[*i]) {
  case '*':
    *lo = 0, *hi = -1, (*i)++;
    break;
  case '+':
    *lo = 1, *hi = -1, (*i)++;
    break;
  case '?':
    *lo = 0, *hi = 1, (*i)++;
    break;
  case '{':
    (*i)++;
    if (parse_count(src, len, i, lo) != 0)
      goto bad;
    *hi = *lo;
    if (*i < len && src[*i] == ',') {
      (*i)++;
      *hi = -1;
      if (*i < len && src[*i] != '}' && parse_count(src, len, i, hi) != 0)
        goto bad;
    }
    if (*i >= len || src[*i] != '}')
      goto bad;
    (*i)++;
    if (*hi >= 0 && *hi < *lo) {
      snprintf(err, errlen, "'{n,m}' with m below n");
      return -1;
    }
    break;
  default:
    return 0;
  }
  if (*i < len && strchr("*+?{", src[*i]) != NULL) {
    snprintf(err, errlen,
             "a quantifier cannot follow a quantifier (lazy "
             "and possessive ones are not supported)");
    return -1;
  }
  return 0;
bad:
  snprintf(err, errlen,
           "malformed '{n}', '{n,}' or '{n,m}' (n and m at "
           "most %d)",
           PATTERN_MAX_REPEAT);
  return -1;
}

static void pattern_release(struct pattern *p)
{
  free(p->atoms);
  p->atoms = NULL;
  p->n = 0;
}

/* Compiles src (len bytes). Returns 0, or -1 with a message (nothing to
 * release then). */
static int pattern_compile(const char *src, size_t len, struct pattern *p,
                           char *err, size_t errlen)
{
  size_t i = 0;

  memset(p, 0, sizeof(*p));
  p->atoms = calloc(PATTERN_MAX_ATOMS, sizeof(*p->atoms));
  if (p->atoms == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (len > 0 && src[0] == '^') {
    p->anchor_start = 1;
    i = 1;
  }
  while (i < len) {
    unsigned char set[32], ch = (unsigned char)src[i];
    unsigned single;
    int lo, hi, copies;

    memset(set, 0, sizeof(set));
    if (ch == '$' && i + 1 == len) {
      p->anchor_end = 1;
      break;
    } else if (ch == '$' || ch == '^') {
      snprintf(err, errlen, "'%c' is supported only at the %s", ch,
               ch == '^' ? "start" : "end");
      goto fail;
    } else if (ch == '(' || ch == ')' || ch == '|') {
      snprintf(err, errlen,
               "groups and alternation ('%c') are not "
               "supported",
               ch);
      goto fail;
    } else if (strchr("*+?{", ch) != NULL) {
      snprintf(err, errlen, "'%c' has nothing to repeat", ch);
      goto fail;
    } else if (ch == ']' || ch == '}') {
      snprintf(err, errlen, "unescaped '%c'", ch);
      goto fail;
    } else if (ch == '.') {
      set_range(set, 0, 255);
      set[(unsigned)'\n' >> 3] &= (unsigned char)~(1u << ('\n' & 7));
      i++;
    } else if (ch == '[') {
      if (pattern_class(src, len, &i, set, err, errlen) != 0)
        goto fail;
    } else if (ch == '\\') {
      int r = pattern_escape(src, len, &i, &single, set, err, errlen);
      if (r < 0)
        goto fail;
      if (r == 1)
        set_add(set, single);
    } else {
      set_add(set, ch);
      i++;
    }
    if (pattern_quantifier(src, len, &i, &lo, &hi, err, errlen) != 0)
      goto fail;
    copies = lo + (hi < 0 ? 1 : hi - lo);
    if (copies > PATTERN_MAX_ATOMS - p->n) {
      snprintf(err, errlen, "the pattern expands to more than %d atoms",
               PATTERN_MAX_ATOMS);
      goto fail;
    }
    for (int k = 0; k < copies; k++) {
      memcpy(p->atoms[p->n].set, set, sizeof(set));
      p->atoms[p->n].kind = k < lo ? ATOM_ONE : hi < 0 ? ATOM_STAR : ATOM_OPT;
      p->n++;
    }
  }
  return 0;
fail:
  pattern_release(p);
  return -1;
}

/* Atoms that may match nothing let the next one start at once. */
static void pattern_closure(const struct pattern *p, unsigned char *states)
{
  for (int i = 0; i < p->n; i++)
    if (states[i] && p->atoms[i].kind != ATOM_ONE)
      states[i + 1] = 1;
}

static int pattern_match(const struct pattern *p, const char *s, size_t len)
{
  unsigned char cur[PATTERN_MAX_ATOMS + 1], next[PATTERN_MAX_ATOMS + 1];
  int n = p->n;

  memset(cur, 0, (size_t)n + 1);
  cur[0] = 1;
  pattern_closure(p, cur);
  if (!p->anchor_end && cur[n])
    return 1;
  for (size_t k = 0; k < len; k++) {
    unsigned c = (unsigned char)s[k];
    int alive = 0;

    memset(next, 0, (size_t)n + 1);
    for (int i = 0; i < n; i++)
      if (cur[i] && set_has(p->atoms[i].set, c))
        next[p->atoms[i].kind == ATOM_STAR ? i : i + 1] = 1;
    if (!p->anchor_start)
      next[0] = 1; /* a match may start at any byte */
    pattern_closure(p, next);
    if (!p->anchor_end && next[n])
      return 1;
    for (int i = 0; i <= n; i++)
      alive |= next[i];
    if (!alive)
      return 0;
    memcpy(cur, next, (size_t)n + 1);
  }
  return cur[n];
}

/* ---- the evaluation context ---- */

struct cached_pattern {
  json_object *source; /* the schema's pattern string */
  struct pattern p;
};

struct ctx {
  json_object *root; /* the schema */
  struct validate_errors *out;
  int in_schema; /* messages are about the schema: "schema: " first */
  char ptr[POINTER_MAX];
  size_t ptrlen;
  int eval_depth;
  long long steps;
  long long max_steps;
  int aborted; /* the schema cannot be evaluated any further */
  long long nodes;
  struct cached_pattern cache[PATTERN_CACHE];
  int ncache;
};

static void ctx_release(struct ctx *c)
{
  for (int i = 0; i < c->ncache; i++)
    pattern_release(&c->cache[i].p);
  c->ncache = 0;
}

/* Appends "/seg" (escaped per RFC 6901) to the pointer; returns the length
 * to restore with ptr_pop. A pointer that no longer fits ends in "...". */
static size_t ptr_push(struct ctx *c, const char *seg)
{
  size_t old = c->ptrlen, n = old;

  if (n + 5 >= POINTER_MAX)
    return old;
  c->ptr[n++] = '/';
  for (const char *s = seg; *s != '\0'; s++) {
    const char *esc = *s == '~' ? "~0" : *s == '/' ? "~1" : NULL;
    size_t need = esc ? 2 : 1;
    if (n + need + 4 >= POINTER_MAX) {
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

static size_t ptr_push_index(struct ctx *c, size_t index)
{
  char seg[32];
  snprintf(seg, sizeof(seg), "%zu", index);
  return ptr_push(c, seg);
}

static void ptr_pop(struct ctx *c, size_t old)
{
  c->ptrlen = old;
  c->ptr[old] = '\0';
}

static void report(struct ctx *c, const char *fmt, ...)
{
  char problem[VALIDATE_MESSAGE_MAX];
  va_list ap;

  va_start(ap, fmt);
  format_cut(problem, sizeof(problem), fmt, ap);
  va_end(ap);
  errors_addf(c->out, "%sat %s: %s", c->in_schema ? "schema: " : "",
              c->ptrlen ? c->ptr : "(root)", problem);
}

/* The evaluation cannot go on: one message, then every caller unwinds. */
static void abort_eval(struct ctx *c, const char *fmt, ...)
{
  char problem[VALIDATE_MESSAGE_MAX];
  va_list ap;

  va_start(ap, fmt);
  format_cut(problem, sizeof(problem), fmt, ap);
  va_end(ap);
  errors_addf(c->out, "schema: %s (at %s)", problem,
              c->ptrlen ? c->ptr : "(root)");
  c->aborted = 1;
}

/* ---- values ---- */

static const char *type_name(json_object *v)
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

static int is_number(json_object *v)
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
static int number_cmp(json_object *a, json_object *b)
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
static int json_equal(json_object *a, json_object *b, int depth)
{
  enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);

  if (depth > VALIDATE_MAX_DEPTH)
    return 0;
  if (is_number(a) && is_number(b))
    return number_cmp(a, b) == 0;
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
      if (!json_equal(json_object_array_get_idx(a, i),
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
          !json_equal(va, vb, depth + 1))
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
static const char *show(json_object *v, char *buf, size_t len)
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

/* Where UTF-8 in s goes wrong (a byte offset), or -1 when it does not. */
static long long utf8_error(const char *str, size_t len)
{
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0;

  while (i < len) {
    unsigned c = s[i];
    size_t need;
    uint32_t cp, min;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF)
      need = 1, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
      need = 2, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
      need = 3, cp = c & 0x07, min = 0x10000;
    else
      return (long long)i;
    if (len - i <= need)
      return (long long)i;
    for (size_t k = 1; k <= need; k++) {
      if ((s[i + k] & 0xC0) != 0x80)
        return (long long)i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return (long long)i;
    i += need + 1;
  }
  return -1;
}

/* Characters (code points) of a valid UTF-8 string. */
static size_t utf8_length(const char *s, size_t len)
{
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xC0) != 0x80;
  return n;
}

/* What every document must be, whatever the schema: nested at most
 * VALIDATE_MAX_DEPTH levels, finite numbers, 64-bit integers json-c did
 * not clamp, UTF-8 strings and keys. Also counts the nodes. */
static void scan(struct ctx *c, json_object *v, int level)
{
  char shown[64];
  long long bad;

  c->nodes++;
  switch (json_object_get_type(v)) {
  case json_type_double:
    if (!isfinite(json_object_get_double(v)))
      report(c, "number out of range: %s is not a finite double",
             show(v, shown, sizeof(shown)));
    return;
  case json_type_int:
    /* json-c clamps what does not fit to these two values: a figure at
     * either may have been anything beyond it. */
    if (json_object_get_int64(v) == INT64_MIN ||
        json_object_get_uint64(v) == UINT64_MAX)
      report(c,
             "integer out of range: %s is where json-c clamps integers "
             "that do not fit 64 bits",
             show(v, shown, sizeof(shown)));
    return;
  case json_type_string:
    bad = utf8_error(json_object_get_string(v),
                     (size_t)json_object_get_string_len(v));
    if (bad >= 0)
      report(c, "string is not valid UTF-8 (byte %lld)", bad);
    return;
  case json_type_array:
  case json_type_object:
    break;
  default:
    return;
  }
  if (level >= VALIDATE_MAX_DEPTH) {
    report(c, "nested deeper than %d levels of arrays and objects",
           VALIDATE_MAX_DEPTH);
    return;
  }
  if (json_object_is_type(v, json_type_array)) {
    size_t n = json_object_array_length(v);
    for (size_t i = 0; i < n; i++) {
      size_t old = ptr_push_index(c, i);
      scan(c, json_object_array_get_idx(v, i), level + 1);
      ptr_pop(c, old);
    }
    return;
  }
  json_object_object_foreach(v, key, child)
  {
    size_t old = ptr_push(c, key);
    bad = utf8_error(key, strlen(key));
    if (bad >= 0)
      report(c, "property name is not valid UTF-8 (byte %lld)", bad);
    scan(c, child, level + 1);
    ptr_pop(c, old);
  }
}

/* ---- the schema's own check ---- */

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

/* The schema "#/$defs/NAME" names, or NULL. */
static json_object *resolve_ref(json_object *root, const char *ref)
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
  if (!json_object_object_get_ex(root, "$defs", &defs) ||
      !json_object_is_type(defs, json_type_object) ||
      !json_object_object_get_ex(defs, name, &target))
    return NULL;
  return target;
}

static int is_count(json_object *v)
{
  return json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0;
}

static void schema_check(struct ctx *c, json_object *s, int level, int root);

static void schema_check_member(struct ctx *c, const char *key, json_object *s,
                                int level)
{
  size_t old = ptr_push(c, key);
  schema_check(c, s, level, 0);
  ptr_pop(c, old);
}

static void schema_check_type(struct ctx *c, json_object *v)
{
  if (json_object_is_type(v, json_type_string)) {
    if (!known_type(json_object_get_string(v)))
      report(c, "unknown type '%s'", json_object_get_string(v));
    return;
  }
  if (!json_object_is_type(v, json_type_array) ||
      json_object_array_length(v) == 0) {
    report(c, "'type' must be a type name or a non-empty array of them");
    return;
  }
  for (size_t i = 0; i < json_object_array_length(v); i++) {
    json_object *t = json_object_array_get_idx(v, i);
    size_t old = ptr_push_index(c, i);
    if (!json_object_is_type(t, json_type_string))
      report(c, "a type name must be a string");
    else if (!known_type(json_object_get_string(t)))
      report(c, "unknown type '%s'", json_object_get_string(t));
    else
      for (size_t k = 0; k < i; k++)
        if (json_equal(t, json_object_array_get_idx(v, k), 0))
          report(c, "type '%s' listed twice", json_object_get_string(t));
    ptr_pop(c, old);
  }
}

static void schema_check_keyword(struct ctx *c, const char *key, json_object *v,
                                 int level, int root)
{
  char err[256];

  if (strcmp(key, "type") == 0) {
    schema_check_type(c, v);
  } else if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
    if (!json_object_is_type(v, json_type_object)) {
      report(c, "'%s' must be an object of schemas", key);
      return;
    }
    if (strcmp(key, "$defs") == 0 && !root) {
      report(c, "'$defs' is supported only at the root of the schema");
      return;
    }
    json_object_object_foreach(v, name, sub)
        schema_check_member(c, name, sub, level + 1);
  } else if (strcmp(key, "required") == 0) {
    if (!json_object_is_type(v, json_type_array)) {
      report(c, "'required' must be an array of property names");
      return;
    }
    for (size_t i = 0; i < json_object_array_length(v); i++) {
      json_object *name = json_object_array_get_idx(v, i);
      size_t old = ptr_push_index(c, i);
      if (!json_object_is_type(name, json_type_string))
        report(c, "a required property name must be a string");
      else
        for (size_t k = 0; k < i; k++)
          if (json_equal(name, json_object_array_get_idx(v, k), 0))
            report(c, "'%s' is listed twice", json_object_get_string(name));
      ptr_pop(c, old);
    }
  } else if (strcmp(key, "additionalProperties") == 0) {
    schema_check(c, v, level, 0);
  } else if (strcmp(key, "items") == 0) {
    if (json_object_is_type(v, json_type_array))
      report(c, "'items' must be one schema (an array of schemas, "
                "prefixItems, is not supported)");
    else
      schema_check(c, v, level, 0);
  } else if (strcmp(key, "oneOf") == 0) {
    if (!json_object_is_type(v, json_type_array) ||
        json_object_array_length(v) == 0) {
      report(c, "'oneOf' must be a non-empty array of schemas");
      return;
    }
    for (size_t i = 0; i < json_object_array_length(v); i++) {
      size_t old = ptr_push_index(c, i);
      schema_check(c, json_object_array_get_idx(v, i), level + 1, 0);
      ptr_pop(c, old);
    }
  } else if (strcmp(key, "enum") == 0 || strcmp(key, "const") == 0) {
    if (strcmp(key, "enum") == 0 && (!json_object_is_type(v, json_type_array) ||
                                     json_object_array_length(v) == 0)) {
      report(c, "'enum' must be a non-empty array of values");
      return;
    }
    scan(c, v, level);
  } else if (strcmp(key, "minimum") == 0 || strcmp(key, "maximum") == 0) {
    if (!is_number(v))
      report(c, "'%s' must be a number", key);
    else
      scan(c, v, level);
  } else if (strcmp(key, "minLength") == 0 || strcmp(key, "maxLength") == 0) {
    if (!is_count(v))
      report(c, "'%s' must be an integer, 0 or more", key);
  } else if (strcmp(key, "pattern") == 0) {
    struct pattern p;
    if (!json_object_is_type(v, json_type_string)) {
      report(c, "'pattern' must be a string");
    } else if (pattern_compile(json_object_get_string(v),
                               (size_t)json_object_get_string_len(v), &p, err,
                               sizeof(err)) != 0) {
      report(c, "unsupported pattern: %s", err);
    } else {
      pattern_release(&p);
    }
  } else if (strcmp(key, "$ref") == 0) {
    if (!json_object_is_type(v, json_type_string))
      report(c, "'$ref' must be a string");
    else if (resolve_ref(c->root, json_object_get_string(v)) == NULL)
      report(c, "'$ref' '%s' does not name a schema under #/$defs/",
             json_object_get_string(v));
  } else if (strcmp(key, "description") == 0 || strcmp(key, "title") == 0 ||
             strcmp(key, "$comment") == 0 || strcmp(key, "$schema") == 0 ||
             strcmp(key, "$id") == 0) {
    if (!json_object_is_type(v, json_type_string))
      report(c, "'%s' must be a string", key);
  } else {
    report(c, "unsupported keyword (crossrun's validator knows only the "
              "subset evidence/SCHEMA.md lists)");
  }
}

static void schema_check(struct ctx *c, json_object *s, int level, int root)
{
  if (json_object_is_type(s, json_type_boolean))
    return;
  if (!json_object_is_type(s, json_type_object)) {
    report(c, "a schema must be an object or a boolean, not %s", type_name(s));
    return;
  }
  if (level >= VALIDATE_MAX_DEPTH) {
    report(c, "nested deeper than %d levels", VALIDATE_MAX_DEPTH);
    return;
  }
  json_object_object_foreach(s, key, v)
  {
    size_t old = ptr_push(c, key);
    schema_check_keyword(c, key, v, level + 1, root);
    ptr_pop(c, old);
  }
}

int validate_schema(json_object *schema, struct validate_errors *out)
{
  struct ctx *c = calloc(1, sizeof(*c));
  int before = out->total, rc;

  if (c == NULL) {
    errors_add(out, "schema: out of memory");
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

/* ---- evaluation ---- */

static void check(struct ctx *c, json_object *s, json_object *v, int level);

static int type_matches(const char *t, json_object *v)
{
  enum json_type jt = json_object_get_type(v);
  if (strcmp(t, "integer") == 0)
    return jt == json_type_int;
  if (strcmp(t, "number") == 0)
    return jt == json_type_int || jt == json_type_double;
  return strcmp(t, type_name(v)) == 0;
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
static int type_admits(struct ctx *c, json_object *s, json_object *v)
{
  json_object *t;
  for (int hops = 0; hops < REF_HOPS_MAX; hops++) {
    if (json_object_is_type(s, json_type_boolean))
      return json_object_get_boolean(s);
    if (json_object_object_get_ex(s, "type", &t))
      return type_ok(t, v);
    if (!json_object_object_get_ex(s, "$ref", &t) ||
        (s = resolve_ref(c->root, json_object_get_string(t))) == NULL)
      return 1;
  }
  return 1;
}

static void check_type(struct ctx *c, json_object *type, json_object *v,
                       int *failed)
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
    report(c, "expected %s, got %s", want, show(v, shown, sizeof(shown)));
  else
    report(c, "expected %s, got %s %s", want, type_name(v),
           show(v, shown, sizeof(shown)));
  *failed = 1;
}

static void check_enum(struct ctx *c, json_object *values, json_object *v)
{
  char list[400] = "", shown[96];
  size_t used = 0, n = json_object_array_length(values);

  for (size_t i = 0; i < n; i++)
    if (json_equal(v, json_object_array_get_idx(values, i), 0))
      return;
  for (size_t i = 0; i < n && used + 1 < sizeof(list); i++)
    used += (size_t)snprintf(
        list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
        show(json_object_array_get_idx(values, i), shown, sizeof(shown)));
  report(c, "%s is not one of: %s", show(v, shown, sizeof(shown)), list);
}

static void check_string(struct ctx *c, json_object *s, json_object *v)
{
  const char *str = json_object_get_string(v);
  size_t len = (size_t)json_object_get_string_len(v);
  json_object *k;
  char shown[96];

  if (utf8_error(str, len) < 0) {
    size_t chars = utf8_length(str, len);
    if (json_object_object_get_ex(s, "minLength", &k) &&
        (int64_t)chars < json_object_get_int64(k))
      report(c, "%zu characters, fewer than the minimum length %lld", chars,
             (long long)json_object_get_int64(k));
    if (json_object_object_get_ex(s, "maxLength", &k) &&
        (int64_t)chars > json_object_get_int64(k))
      report(c, "%zu characters, more than the maximum length %lld", chars,
             (long long)json_object_get_int64(k));
  }
  if (json_object_object_get_ex(s, "pattern", &k)) {
    struct pattern *p = NULL, local;
    char err[256];
    for (int i = 0; i < c->ncache; i++)
      if (c->cache[i].source == k)
        p = &c->cache[i].p;
    if (p == NULL) {
      if (pattern_compile(json_object_get_string(k),
                          (size_t)json_object_get_string_len(k), &local, err,
                          sizeof(err)) != 0) {
        abort_eval(c, "unsupported pattern: %s", err);
        return;
      }
      if (c->ncache < PATTERN_CACHE) {
        c->cache[c->ncache].source = k;
        c->cache[c->ncache].p = local;
        p = &c->cache[c->ncache++].p;
      } else {
        p = &local;
      }
    }
    if (!pattern_match(p, str, len))
      report(c, "%s does not match the pattern %s",
             show(v, shown, sizeof(shown)), json_object_get_string(k));
    if (p == &local)
      pattern_release(&local);
  }
}

static void check_number(struct ctx *c, json_object *s, json_object *v)
{
  json_object *k;
  char a[64], b[64];

  if (json_object_object_get_ex(s, "minimum", &k) && number_cmp(v, k) < 0)
    report(c, "%s is less than the minimum %s", show(v, a, sizeof(a)),
           show(k, b, sizeof(b)));
  if (json_object_object_get_ex(s, "maximum", &k) && number_cmp(v, k) > 0)
    report(c, "%s is greater than the maximum %s", show(v, a, sizeof(a)),
           show(k, b, sizeof(b)));
}

static void check_object(struct ctx *c, json_object *s, json_object *v,
                         int level)
{
  json_object *props = NULL, *required, *additional = NULL, *sub;

  if (level >= VALIDATE_MAX_DEPTH)
    return; /* scan said so; its members are not looked at */
  json_object_object_get_ex(s, "properties", &props);
  json_object_object_get_ex(s, "additionalProperties", &additional);
  if (json_object_object_get_ex(s, "required", &required)) {
    for (size_t i = 0; i < json_object_array_length(required); i++) {
      const char *name =
          json_object_get_string(json_object_array_get_idx(required, i));
      if (!json_object_object_get_ex(v, name, NULL)) {
        size_t old = ptr_push(c, name);
        report(c, "required property is missing");
        ptr_pop(c, old);
      }
    }
  }
  if (props == NULL && additional == NULL)
    return;
  json_object_object_foreach(v, key, child)
  {
    size_t old = ptr_push(c, key);
    if (props != NULL && json_object_object_get_ex(props, key, &sub))
      check(c, sub, child, level + 1);
    else if (additional != NULL &&
             json_object_is_type(additional, json_type_boolean) &&
             !json_object_get_boolean(additional))
      report(c, "property is not allowed here (the schema does not list "
                "it)");
    else if (additional != NULL)
      check(c, additional, child, level + 1);
    ptr_pop(c, old);
    if (c->aborted)
      return;
  }
}

static void check_items(struct ctx *c, json_object *items, json_object *v,
                        int level)
{
  size_t n = json_object_array_length(v);

  if (level >= VALIDATE_MAX_DEPTH)
    return;
  for (size_t i = 0; i < n && !c->aborted; i++) {
    size_t old = ptr_push_index(c, i);
    check(c, items, json_object_array_get_idx(v, i), level + 1);
    ptr_pop(c, old);
  }
}

/* Exactly one alternative must match. When none does, the errors of the
 * closest one are given: one whose type admits the value, with the fewest
 * errors. */
static void check_one_of(struct ctx *c, json_object *alts, json_object *v,
                         int level)
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
      errors_move(saved, &tmp); /* the reason it stopped */
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
    report(c,
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
    report(c,
           "matches none of the %zu alternatives of oneOf; the closest, "
           "alternative %zu%s, fails with:",
           n, best_i + 1, name);
    errors_move(saved, &best);
  }
  validate_errors_release(&best);
}

static void check(struct ctx *c, json_object *s, json_object *v, int level)
{
  json_object *k;
  int type_failed = 0;

  if (c->aborted)
    return;
  if (++c->steps > c->max_steps) {
    abort_eval(c,
               "evaluation stopped after %lld steps: the schema's oneOf "
               "alternatives multiply too much",
               c->max_steps);
    return;
  }
  if (c->eval_depth >= EVAL_DEPTH_MAX) {
    abort_eval(c,
               "evaluation nested deeper than %d levels (a $ref cycle "
               "that never reaches the document?)",
               EVAL_DEPTH_MAX);
    return;
  }
  if (json_object_is_type(s, json_type_boolean)) {
    if (!json_object_get_boolean(s))
      report(c, "not allowed here (the schema is false)");
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
    check(c, resolve_ref(c->root, json_object_get_string(k)), v, level);
  if (json_object_object_get_ex(s, "enum", &k))
    check_enum(c, k, v);
  if (json_object_object_get_ex(s, "const", &k) && !json_equal(v, k, 0)) {
    char a[96], b[96];
    report(c, "expected %s, got %s", show(k, a, sizeof(a)),
           show(v, b, sizeof(b)));
  }
  if (is_number(v))
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
  struct ctx *c;
  int before = out->total, rc;

  if (validate_schema(schema, out) != 0)
    return -1;
  c = calloc(1, sizeof(*c));
  if (c == NULL) {
    errors_add(out, "schema: out of memory");
    return -1;
  }
  c->root = schema;
  c->out = out;
  scan(c, doc, 0);
  /* Generous for any schema whose oneOf alternatives do not nest in one
   * another without end; a few seconds at most for one that does. */
  c->max_steps = 64 * c->nodes + 100000;
  check(c, schema, doc, 0);
  rc = c->aborted ? -1 : out->total > before ? 1 : 0;
  ctx_release(c);
  free(c);
  return rc;
}

/* ---- files ---- */

int validate_read_json(const char *path, json_object **doc,
                       struct validate_errors *out, char *err, size_t errlen)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t len = 0, cap = 0, end;
  struct json_tokener *tok;
  enum json_tokener_error e;
  json_object *o;
  int too_big = 0;

  *doc = NULL;
  if (f == NULL) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    return -1;
  }
  for (;;) {
    size_t got;
    if (len == cap) {
      size_t grown = cap ? cap * 2 : 65536;
      char *bigger;
      if (cap > VALIDATE_MAX_FILE_BYTES) {
        too_big = 1;
        break;
      }
      /* One byte past the limit is enough to know it is too large. */
      if (grown > VALIDATE_MAX_FILE_BYTES)
        grown = (size_t)VALIDATE_MAX_FILE_BYTES + 1;
      bigger = realloc(buf, grown + 1);
      if (bigger == NULL) {
        snprintf(err, errlen, "cannot read: out of memory");
        goto fail;
      }
      buf = bigger;
      cap = grown;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    goto fail;
  }
  fclose(f);
  f = NULL;
  if (too_big || len > VALIDATE_MAX_FILE_BYTES) {
    errors_addf(out, "too large: more than %u bytes, the most read",
                VALIDATE_MAX_FILE_BYTES);
    free(buf);
    return 1;
  }
  buf[len] = '\0';
  tok = json_tokener_new_ex(PARSE_DEPTH);
  if (tok == NULL) {
    snprintf(err, errlen, "cannot read: out of memory");
    goto fail;
  }
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
  o = json_tokener_parse_ex(tok, buf, (int)len);
  e = json_tokener_get_error(tok);
  end = json_tokener_get_parse_end(tok);
  if (e == json_tokener_continue) {
    /* The end of the file ends a number or shows it was cut short. */
    o = json_tokener_parse_ex(tok, "", 1);
    e = json_tokener_get_error(tok);
    end = len;
  }
  json_tokener_free(tok);
  free(buf);
  if (e != json_tokener_success) {
    errors_addf(out, "not JSON: %s at byte %zu", json_tokener_error_desc(e),
                end);
    return 1;
  }
  if (end < len) {
    /* json-c stops at a NUL byte. */
    errors_addf(out,
                "not JSON: unexpected data after the document at "
                "byte %zu",
                end);
    json_object_put(o);
    return 1;
  }
  *doc = o; /* NULL for a document that is just null */
  return 0;
fail:
  if (f != NULL)
    fclose(f);
  free(buf);
  return -1;
}

int validate_file(const char *schema_path, const char *doc_path,
                  struct validate_errors *out, char *err, size_t errlen)
{
  struct validate_errors schema_errors = VALIDATE_ERRORS_INIT;
  json_object *schema = NULL, *doc = NULL;
  char why[512];
  int rc;

  rc = validate_read_json(schema_path, &schema, &schema_errors, why,
                          sizeof(why));
  if (rc == 0 && validate_schema(schema, &schema_errors) != 0)
    rc = 1;
  if (rc != 0) {
    snprintf(err, errlen, "schema '%s': %s%s", schema_path,
             rc < 0                ? why
             : schema_errors.n > 0 ? schema_errors.messages[0]
                                   : "unusable",
             schema_errors.total > 1 ? " (and more)" : "");
    errors_move(out, &schema_errors);
    json_object_put(schema);
    return -1;
  }
  rc = validate_read_json(doc_path, &doc, out, why, sizeof(why));
  if (rc < 0)
    snprintf(err, errlen, "'%s': %s", doc_path, why);
  if (rc == 0) {
    rc = validate_document(schema, doc, out);
    if (rc < 0)
      snprintf(err, errlen, "schema '%s': cannot be evaluated on '%s'",
               schema_path, doc_path);
  }
  json_object_put(doc);
  json_object_put(schema);
  return rc;
}
