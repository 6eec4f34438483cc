/* Turns what the executor observed into the per-check outcomes and the
 * sample's one status, failure stage and reason (DESIGN.md's vocabulary).
 * Pure: no processes, no I/O, so every ranking rule is testable alone. */
#ifndef CROSSRUN_RUNNER_VERDICT_H
#define CROSSRUN_RUNNER_VERDICT_H

#include "protocol/codec.h"
#include "evidence/model/model.h"

struct verdict_input {
  int ready;
  int ready_failed;
  const char *ready_msg;
  /* The server wrote more than its READY line on stdout: what, as "N more
   * bytes on stdout after the READY line: '...'". */
  int stdout_extra;
  const char *stdout_msg;
  int spawn_failed;
  const char *spawn_msg;
  int interrupted;
  const struct proto_workload *workload;
};

/* Fills the server_ready, client_exit, server_exit and client_result
 * checks of res (the cleanup checks must already be filled), then sets
 * res->status, failure_stage, failure_reason and message. */
void verdict_decide(const struct verdict_input *in, struct model_sample *res);

#endif
