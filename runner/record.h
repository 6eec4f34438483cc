/* Record mode: the checks that make evidence official (a clean checkout of
 * main, in CI), the provenance written into it, and where it goes. */
#ifndef CROSSRUN_RUNNER_RECORD_H
#define CROSSRUN_RUNNER_RECORD_H

#include <stddef.h>

#include "evidence/evidence.h"

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
                 const struct platform_machine *m, int shard_index,
                 int shard_count);

#endif
