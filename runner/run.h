/* A whole run: the plan (lanes x samples, interleaved, each round in an
 * order shuffled from a recorded seed), progress lines, the evidence file
 * rewritten after every sample, and the summary at the end. */
#ifndef CROSSRUN_RUNNER_RUN_H
#define CROSSRUN_RUNNER_RUN_H

#include <stdio.h>

#include "runner/cli.h"
#include "runner/lanes.h"

#define RUN_EXIT_OK 0
#define RUN_EXIT_FAILED 1
#define RUN_EXIT_USAGE 2
#define RUN_EXIT_RUNNER 3
#define RUN_EXIT_INTERRUPTED 130

/* Runs the lanes that o selects from l and returns the process exit status
 * (RUN_EXIT_*). crossrun_path is how the runner is named in reproduce
 * lines. The summary goes to out, progress and errors to errf. */
int run_lanes(const struct cli_options *o, struct lanes *l,
              const char *crossrun_path, FILE *out, FILE *errf);

/* The time now, UTC, ISO 8601 to the second ("2026-01-02T03:04:05Z"). */
void run_utc_now(char *out, size_t len);

#endif
