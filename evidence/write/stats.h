/* Summaries derived from raw samples: medians with min and max. */
#ifndef CROSSRUN_EVIDENCE_STATS_H
#define CROSSRUN_EVIDENCE_STATS_H

#include "evidence/write/evidence.h"

struct stats_figure {
  int n;
  double median;
  double min;
  double max;
};

struct stats_lane {
  int passed;
  int failed; /* failed or error */
  int unsupported;
  int timed; /* passed samples with a time */
  struct stats_figure ns_per_rt;
  struct stats_figure client_rss;
  struct stats_figure server_rss;
  struct stats_figure client_cpu; /* user + system */
  struct stats_figure server_cpu;
};

/* Median (mean of the middle two for even n), min and max of v[0..n);
 * sorts v in place. n may be 0 (all fields 0). */
void stats_figure_of(double *v, int n, struct stats_figure *f);

void stats_lane_compute(const struct evidence_sample *samples, int n,
                        struct stats_lane *st);

/* "passed" when every sample passed; "error" (a runtime is broken),
 * "unavailable", "not_run" (no samples), "failed", "expected_failure"
 * (failed as --expect said), "unsupported", or "flaky" (passed only on a
 * retry). */
const char *stats_lane_status(const struct evidence_lane *lane,
                              const struct stats_lane *st);

#endif
