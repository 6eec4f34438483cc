/* Comparing lanes honestly: the exact Mann-Whitney U test on their raw
 * per-round-trip times, the ratio of their medians, and whether a lane's
 * own samples are stable enough to compare at all. */
#ifndef CROSSRUN_EVIDENCE_COMPARE_H
#define CROSSRUN_EVIDENCE_COMPARE_H

#include <json-c/json.h>

#include "evidence/write/evidence.h"

#define COMPARE_TIE_RATIO 0.05 /* medians within 5%: a tie */
#define COMPARE_ALPHA 0.05
#define COMPARE_MAX_SPREAD 1.2 /* max / min above this: not stable */
/* The p-value is exact (to about 1e-13 of itself) while the smaller side
 * has at most this many samples, whatever the larger; beyond, the normal
 * approximation. */
#define COMPARE_EXACT_MAX_SIDE 150

/* U (the smaller of U1 and U2, ties counted one half) and the two-sided
 * p-value from the distribution of U without ties, for samples a[0..na)
 * and b[0..nb), of any length: exact where compare_p_is_exact, else from
 * the normal approximation with continuity correction. Returns 0, or -1
 * when a side is empty or out of memory. */
int compare_mann_whitney(const double *a, int na, const double *b, int nb,
                         double *u, double *p);

/* 1 when the p-value of na against nb samples is exact (see
 * COMPARE_EXACT_MAX_SIDE), 0 when it is the normal approximation. */
int compare_p_is_exact(int na, int nb);

struct compare_result {
  double ratio; /* median of lane / median of the reference */
  double u;
  double p;
  const char *verdict; /* "tie", "faster", "slower", "~" */
};

/* Compares two sets of times (ns per round trip; not modified): the ratio
 * of their medians (a over b), the exact Mann-Whitney U and p, and the
 * verdict. Returns 0, or -1 when a side is empty, b's median is 0 or out
 * of memory. */
int compare_times(const double *a, int na, const double *b, int nb,
                  struct compare_result *r);

/* Compares the passed samples' ns per round trip of lane against ref.
 * Returns 0, or -1 when either has no timed sample, ref's median is 0 or
 * out of memory. */
int compare_lanes(const struct evidence_lane *lane,
                  const struct evidence_lane *ref, struct compare_result *r);

/* One lane as the comparison policy sees it, from a run being written
 * (compare_lane_of) or from an evidence document (evidence/merge/merge.c). */
struct compare_lane {
  const char *name;
  int same_runtime; /* its client and server are one runtime */
  double *times;    /* passed samples' ns per round trip, every one */
  int ntimes;
};

/* The times of a lane's passed samples, in round order, into a new array
 * that compare_lane_release frees; out->name borrows lane->name. Returns
 * 0, or -1 when out of memory (out->times NULL, ntimes 0). */
int compare_lane_of(const struct evidence_lane *lane, struct compare_lane *out);

/* Frees lane->times (and sets it to NULL); NULL times is allowed. */
void compare_lane_release(struct compare_lane *lane);

/* The comparisons of a run, as the evidence's "comparisons" object: each
 * lane against EVIDENCE_REFERENCE_LANE, and each pair of same-runtime
 * lanes other than the reference (the later against the earlier), keyed
 * "<lane> vs <reference>". A pair without times on both sides is left
 * out. Returns a new object the caller owns. */
json_object *compare_run_json(const struct compare_lane *lanes, int n);

/* Whether a lane's samples agree with each other: 1 stable, 0 not, with
 * the reasons ("max/min 1.31 > 1.2", "the first sample is the slowest by
 * 18% over the median") in why; -1 with fewer than 2 timed samples. */
int compare_stable(const struct evidence_lane *lane, char *why, size_t whylen);

/* The confidence of [min, max] as an interval for the median of n
 * samples: 1 - 2 * 0.5^n (93.75% for 5). */
double compare_minmax_coverage(int n);

#endif
