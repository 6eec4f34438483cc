/* `crossrun report FILE` when FILE is conformance evidence. */
#ifndef CROSSRUN_RUNNER_CONFORM_REPORT_H
#define CROSSRUN_RUNNER_CONFORM_REPORT_H

#include <stdio.h>

/* The order of report's outputs (runner/cmd_report.c). */
enum {
  CONFORM_REPORT_MARKDOWN,
  CONFORM_REPORT_HTML,
  CONFORM_REPORT_JUNIT,
  CONFORM_REPORT_KINDS
};

/* When file is conformance evidence, writes the outputs asked for
 * (outputs[CONFORM_REPORT_*], NULL for none, "-" for out) and returns a
 * RUN_EXIT_* status; else (or when it cannot be read) returns -1 and
 * writes nothing, for the general reader to say why. */
int conform_report(const char *file, const char *baseline,
                   const char *const *outputs, FILE *out, FILE *errf);

#endif
