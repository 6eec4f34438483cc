/* A lane client's result line (lanes/README.md) checked against the totals
 * SPEC.md gives for its workload. */
#ifndef CROSSRUN_TESTS_LIB_LANE_RESULT_H
#define CROSSRUN_TESTS_LIB_LANE_RESULT_H

#include <stdint.h>

#include "protocol/codec.h"

struct json_object;

/* Reads the integer field key of o into *v. Returns 1, or 0 when it is
 * missing or not an integer. */
int lane_result_u64(struct json_object *o, const char *key, uint64_t *v);

/* 1 when out (a client's whole stdout) is one JSON object on one line
 * whose figures are those of SPEC.md for w and whose elapsed_ns is not 0;
 * else 0, each difference printed as a diagnostic starting with label. */
int lane_result_ok(const char *out, const struct proto_workload *w,
                   const char *label);

#endif
