/* The matcher behind the "pattern" keyword of evidence/validate.c, in a
 * file of its own: compiling and matching a regular expression is a job
 * apart from walking a schema, and the validator only compiles a schema's
 * patterns and asks whether a string matches. */
#include "evidence/pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATTERN_MAX_ATOMS 1024
#define PATTERN_MAX_REPEAT 1000

/* An anchored subset of ECMA-262 regular expressions, matched byte by byte
 * by simulating all positions at once (no backtracking, so no pattern can
 * take more than length x atoms steps). Each atom is a set of bytes that
 * must match once, may match once, or may match any number of times;
 * counted repetition is expanded into copies. */

enum atom_kind { ATOM_ONE, ATOM_OPT, ATOM_STAR };

struct pattern_atom {
  unsigned char set[32];
  unsigned char kind;
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

void pattern_release(struct pattern *p)
{
  free(p->atoms);
  p->atoms = NULL;
  p->n = 0;
}

/* Compiles src (len bytes). Returns 0, or -1 with a message (nothing to
 * release then). */
int pattern_compile(const char *src, size_t len, struct pattern *p, char *err,
                    size_t errlen)
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

int pattern_match(const struct pattern *p, const char *s, size_t len)
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
