/* Patterns: the subset of ECMA-262 regular expressions that the "pattern"
 * keyword of evidence/schema.json may use (evidence/validate.h lists it):
 * '^' and '$' only at the ends, literals, '.', bracket classes, \d \w \s
 * and their negations, escaped punctuation, and the quantifiers * + ?
 * {n} {n,} {n,m} (n and m at most 1000); no groups, alternation, lazy or
 * possessive quantifiers. A string is matched without backtracking, in at
 * most (its length) x (the pattern's atoms) steps, so no pattern can make
 * validation slow. */
#ifndef CROSSRUN_EVIDENCE_PATTERN_H
#define CROSSRUN_EVIDENCE_PATTERN_H

#include <stddef.h>

struct pattern_atom; /* a set of bytes, and how often it may match */

/* A compiled pattern: at most 1024 atoms, counted repetition expanded into
 * copies. */
struct pattern {
  int anchor_start;
  int anchor_end;
  int n;                      /* atoms */
  struct pattern_atom *atoms; /* owned; freed by pattern_release */
};

/* Compiles src (len bytes, need not end in NUL) into *p. Returns 0 (free
 * p with pattern_release), or -1 with a one-line reason in err ("unsupported
 * escape '\q'", "groups and alternation ('(') are not supported") and
 * nothing to release. */
int pattern_compile(const char *src, size_t len, struct pattern *p, char *err,
                    size_t errlen);

/* 1 when some part of s (len bytes) matches p (with '^' a part that starts
 * s, with '$' one that ends it), else 0. Allocates nothing. */
int pattern_match(const struct pattern *p, const char *s, size_t len);

/* Frees p's atoms; p is empty afterwards. */
void pattern_release(struct pattern *p);

#endif
