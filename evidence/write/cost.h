/* The cost figures of a sample and of a lane (ISSUE: cost per round
 * trip): CPU microseconds per round trip of each peer over its measured
 * window, and the client's latency histogram, merged over a lane's passed
 * samples exactly (protocol/histogram.h). Each figure that cannot be
 * given is null with the reason in "not_reported", never 0. Internal to
 * evidence/: the writer writes these and evidence/check/figures.c
 * recomputes them with the same functions. */
#ifndef CROSSRUN_EVIDENCE_COST_H
#define CROSSRUN_EVIDENCE_COST_H

#include <json-c/json.h>

#include "evidence/write/evidence.h"

/* A sample's figures: has_* 0 with *_why saying why not. */
struct cost_sample {
  int has_client_cpu, has_server_cpu, has_latency;
  double client_cpu_us_per_round_trip;
  double server_cpu_us_per_round_trip;
  int64_t p50, p90, p99, p99_9, min, max;
  const char *client_cpu_why, *server_cpu_why, *latency_why;
};

/* The figures of a passed sample r. Returns 0, or -1 when r did not pass
 * (it has none) or they cannot be computed (out of memory). */
int cost_sample_of(const struct model_sample *r, struct cost_sample *c);

/* The client's latency as the result line gave it: {"count", "min", "max",
 * "p50", "p90", "p99", "p99_9", "buckets": [[index, count], ...]}. */
json_object *cost_latency_json(const struct model_latency *l);

/* A sample's "cost" object; NULL (a JSON null) when it did not pass. */
json_object *cost_sample_json(const struct model_sample *r);

struct hist;

/* A lane's figures over its passed samples. */
struct cost_lane {
  int passed;
  int oom; /* out of memory: nothing could be computed */
  /* The merge of the histograms with round trips (latency_samples of
   * them); NULL when none. Owned. */
  struct hist *latency;
  int latency_samples;
  int n_client_cpu, n_server_cpu;
  double client_cpu_us_per_round_trip_median;
  double server_cpu_us_per_round_trip_median;
};

/* Computes *c from lane's samples (cost_lane_release frees it). */
void cost_lane_compute(const struct evidence_lane *lane, struct cost_lane *c);
void cost_lane_release(struct cost_lane *c);

/* Adds a lane summary's cost members to o: latency_ns (the merge of the
 * passed samples' histograms), client_ and
 * server_cpu_us_per_round_trip_median, and not_reported. */
void cost_summary_add(json_object *o, const struct evidence_lane *lane);

#endif
