/* Turns what the executor observed into the per-check outcomes and the
 * sample's one status, failure stage and reason (DESIGN.md's vocabulary).
 * Pure: no processes, no I/O, so every ranking rule is testable alone. */
#ifndef CROSSRUN_RUNNER_VERDICT_H
#define CROSSRUN_RUNNER_VERDICT_H

#include <stdint.h>

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
  /* When the executor saw each fault, in monotonic nanoseconds (any
   * origin, one clock); 0 where it saw none. The earliest fault is the
   * sample's reason, and faults seen at the same moment are ranked
   * (verdict.c, enum fault). A peer's end is when it was seen reaped: its
   * exit, signal, rejection and result are seen then. */
  uint64_t client_end_ns, server_end_ns;
  /* When each peer's stderr first carried a byte, 0 for never: a peer's
   * rejection is seen then, or at its end if that came first. */
  uint64_t client_said_ns, server_said_ns;
  uint64_t client_timeout_ns, server_timeout_ns; /* its deadline passed */
  uint64_t stdout_extra_ns;
  /* When the runner first signalled each peer: a fault of the other peer
   * seen after it is a consequence, and its exit check says so. */
  uint64_t client_terminated_ns, server_terminated_ns;
  /* The port_free check failed because the server closed its connection
   * first (runner/closers.h): the reason is then server_closed_first. */
  int server_closed_first;
  int spawn_failed;
  const char *spawn_msg;
  int interrupted;
  const struct proto_workload *workload;
};

/* Fills the server_ready, client_exit, server_exit, client_result and
 * server_result checks of res (the cleanup checks must already be filled), then
 * sets res->status, failure_stage, failure_reason and message. */
void verdict_decide(const struct verdict_input *in, struct model_sample *res);

#endif
