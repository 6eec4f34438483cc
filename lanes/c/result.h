/* The cost figures of the C peers' result lines (lanes/README.md,
 * protocol/SPEC.md section 7): the process's own CPU over a window and
 * the latency histogram as JSON. */
#ifndef CROSSRUN_LANES_C_RESULT_H
#define CROSSRUN_LANES_C_RESULT_H

#include <stdint.h>
#include <stdio.h>

#include "protocol/histogram.h"

/* The process's own CPU time so far, in microseconds. */
struct lane_cpu {
  uint64_t user_us, system_us;
};

/* Reads this process's CPU (getrusage(RUSAGE_SELF) through libuv) into
 * *cpu. Returns 0, or a negative libuv error with *cpu zeroed. */
int lane_cpu_read(struct lane_cpu *cpu);

/* Prints ",\"cpu_user_us\":U,\"cpu_system_us\":S" for the window from
 * start to end (a figure that went backwards counts as 0). Returns 0, or
 * -1 when out failed. */
int lane_cpu_print(FILE *out, const struct lane_cpu *start,
                   const struct lane_cpu *end);

/* Prints ",\"latency\":{...}" for h: count, min, max, p50, p90, p99,
 * p99_9 and every non-empty bucket as [index,count] in ascending index;
 * with an empty h, min, max and the percentiles are null and buckets is
 * []. Returns 0, or -1 when out failed. */
int lane_latency_print(FILE *out, const struct hist *h);

#endif
