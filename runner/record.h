/* Record mode: the checks that make evidence official (a clean checkout of
 * main, in CI), the provenance written into it, and where it goes. */
#ifndef CROSSRUN_RUNNER_RECORD_H
#define CROSSRUN_RUNNER_RECORD_H

#include <stddef.h>

#include <stdio.h>

#include "evidence/write/evidence.h"
#include "runner/cli.h"
#include "runner/expect.h"
#include "runner/lanes.h"

/* Whether the CI variable says this runs in CI (set, not "", "false" or
 * "0"; GitHub Actions sets CI=true). */
int record_in_ci(void);

/* Reads the commit, the branch, whether the work tree is clean (git, in
 * root), and the CI variables. Never fails: what cannot be read stays
 * empty or -1. */
void record_provenance(const char *root, struct evidence_provenance *p);

/* Adds a matrix file and its SHA-256. Returns 0 or -1 with a message. */
int record_add_matrix(struct evidence_provenance *p, const char *path,
                      const char *root, char *err, size_t errlen);

/* The refusals of an official record: 0 when p allows one, else -1 with
 * one line in err naming every reason ("the work tree has changes; HEAD
 * is on 'topic', not 'main'; CI is not set"). */
int record_refusal(const struct evidence_provenance *p, char *err,
                   size_t errlen);

/* "<dir>/<kind>-<os>-<arch>[-shard-K-of-N].json" into out. */
void record_path(char *out, size_t outlen, const char *dir, const char *kind,
                 const struct model_machine *m, int shard_index,
                 int shard_count);

/* Before a record: reads the provenance, refuses an official record that
 * the checkout or the command line does not allow (one line on errf),
 * loads --expect, creates the output folder. *prov and *expect are
 * allocated here and freed by the caller (free). Returns a RUN_EXIT_*
 * status; RUN_EXIT_OK to go on. */
int record_setup(const struct cli_options *o, struct lanes *l,
                 struct evidence_provenance **prov, struct expect **expect,
                 FILE *errf);

/* Prints one line on errf for each package of run that could not be
 * measured (its command failed, or its artifact is not an archive) and
 * returns how many: each fails the run, quick, full or record. */
int record_packages_failed(const struct evidence_run *run, FILE *errf);

/* After a record: checks the expectations and the cleanliness, marks the
 * run official or not (conform_problems, from record_conformance, counts
 * among the problems), writes evidence-* or rejected-* (path holds the
 * incomplete file, which is removed, and receives the final one), prints
 * the summary and every reason. Returns the exit status. */
int record_finish(const struct cli_options *o, struct evidence_run *run,
                  const struct expect *expect, int conform_problems, char *path,
                  size_t pathlen, FILE *out, FILE *errf);

#endif
