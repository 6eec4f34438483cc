/* The exact two-sided Mann-Whitney U test with ties, for `crossrun
 * compare`. evidence/write/compare.h's test takes its p-value from the
 * distribution of U without ties, which is what the evidence's
 * "comparisons" record and validate recomputes; compare's figures tie
 * often (peak memory in pages, READY times in clock ticks), so here the
 * p-value is the permutation distribution of U given the tie pattern of
 * the pooled samples, which is exact with ties or without. */
#ifndef CROSSRUN_EVIDENCE_DIFF_U_H
#define CROSSRUN_EVIDENCE_DIFF_U_H

/* Cells of the exact distribution at most: (smaller side + 1) x
 * (2 x na x nb + 1) doubles (32 MiB). 5 against 1000 or 100 against 100
 * fits; beyond, the normal approximation with the tie correction. */
#define DIFF_U_EXACT_MAX_CELLS 4000000

struct diff_u {
  double u1; /* U of a: pairs (a, b) with a > b, ties counted one half */
  double u;  /* the smaller of U1 and na x nb - U1 */
  double p;  /* two-sided: P(|U1 - na nb / 2| >= observed) */
  int exact; /* 1 exact, 0 normal approximation */
  int ties;  /* 1 when the pooled samples hold a tie */
};

/* The test of a[0..na) against b[0..nb) (neither modified). Under the null
 * hypothesis every split of the pooled values into na and nb is equally
 * likely; p counts the splits at least as far from na x nb / 2 as the
 * observed U1. Returns 0, or -1 when a side is empty or out of memory
 * (r untouched). */
int diff_u_test(const double *a, int na, const double *b, int nb,
                struct diff_u *r);

#endif
