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

struct conform_options {
  struct options_list runtimes; /* empty: every runtime not hidden */
  const char *matrix[CONFORM_MAX_MATRIX];
  int nmatrix;
  const char *cases; /* patterns, or NULL */
  const char *out;
  const char *host;
  uint64_t case_timeout_ms;
  int list;
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
