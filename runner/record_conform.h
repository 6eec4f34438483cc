/* A record's conformance run (runner/conform_run.c) beside its lanes. */
#ifndef CROSSRUN_RUNNER_RECORD_CONFORM_H
#define CROSSRUN_RUNNER_RECORD_CONFORM_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "evidence/model/model.h"
#include "evidence/write/evidence.h"
#include "runner/cli.h"
#include "runner/lanes.h"

struct record_conformance_spec {
  const struct cli_options *options; /* the record's */
  struct lanes *l;                   /* its matrix files, loaded */
  const struct lane *lanes;          /* the lanes it selected */
  int nlanes;
  const struct model_machine *machine;
  const struct evidence_provenance *provenance;
  const volatile sig_atomic_t *stop;
  int progress;
  char *path; /* receives conform-<os>-<arch>[-shard-K-of-N].json */
  size_t pathlen;
};

/* Runs conformance for every runtime of spec's lanes and writes its
 * evidence to spec->path. Returns 0 when every runtime that could run
 * passed (or it was interrupted: the record says so itself), 1 when a case
 * failed (one line on errf names the file), -1 when it could not run. */
int record_conformance(const struct record_conformance_spec *spec, FILE *out,
                       FILE *errf);

#endif
