/* The matrix file (matrix.yaml): runtimes and workloads, read with libyaml.
 * Loading only parses and checks; nothing is run. */
#ifndef CROSSRUN_RUNNER_MATRIX_H
#define CROSSRUN_RUNNER_MATRIX_H

#include <stddef.h>

#include "runner/lanes.h"

#define MATRIX_MAX_BYTES (1024 * 1024)

/* Reads path and merges it into l: a runtime or workload of the same name
 * replaces the one l had, others are added. Relative paths of its runtimes
 * resolve from the file's own folder. On failure l is unchanged and err
 * holds one line "FILE:LINE:COLUMN: what was expected" (LINE and COLUMN
 * 1-based). Returns 0 or -1. */
int matrix_load(struct lanes *l, const char *path, char *err, size_t errlen);

#endif
