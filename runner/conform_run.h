/* A whole conformance run: the runtimes chosen and prepared, the cases
 * made, each case run against each runtime, progress and a table per
 * runtime on the terminal, and the evidence of mode conform. */
#ifndef CROSSRUN_RUNNER_CONFORM_RUN_H
#define CROSSRUN_RUNNER_CONFORM_RUN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "evidence/write/evidence.h"
#include "runner/lanes.h"
#include "runner/options.h"

#define CONFORM_MAX_MATRIX 8

/* The cases of `crossrun conform --quick` (what `make quick` runs beside
 * the lanes): per role a valid session and one case of each part of a
 * session (HELLO, a request or response, a frame cut short, BYE), so that
 * every runtime is smoke-tested in seconds: a runtime that starts slowly
 * (node, about half a second a case on a busy machine) sets the pace. */
#define CONFORM_QUICK_CASES                                                    \
  "server/session_in_flight_1,server/hello_round_trips_0,"                     \
  "server/request_skipped,server/reset_inside_request,"                        \
  "server/bye_wrong_requests,client/session_trickled,"                         \
  "client/hello_ack_other_warmup,client/response_flipped_first_bit,"           \
  "client/bye_ack_wrong_requests,client/error_code_2_instead_of_hello_ack"

struct conform_options {
  struct options_list runtimes; /* empty: every runtime not hidden */
  const char *matrix[CONFORM_MAX_MATRIX];
  int nmatrix;
  const char *cases; /* patterns, or NULL */
  const char *out;
  const char *host;
  uint64_t case_timeout_ms;
  int list;
  int quick;    /* the CONFORM_QUICK_CASES */
  int record;   /* fill the provenance as crossrun record does */
  int progress; /* -1: when stderr is a terminal */
  const volatile sig_atomic_t *stop;
  /* A record's provenance, or NULL. */
  const struct evidence_provenance *provenance;
};

/* The defaults: crossrun-conform.json, 127.0.0.1, 5 s per case. */
void conform_options_init(struct conform_options *o);

/* Runs o's runtimes of l (matrix files already loaded, the platform
 * initialised) and writes the evidence to o->out. The tables go to out,
 * progress and errors to errf. Returns a RUN_EXIT_* status. */
int conform_run(const struct conform_options *o, struct lanes *l, FILE *out,
                FILE *errf);

#endif
