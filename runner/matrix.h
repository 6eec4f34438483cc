/* The matrix file (matrix.yaml): runtimes and workloads, read with libyaml.
 * Loading only parses and checks; nothing is run. */
#ifndef CROSSRUN_RUNNER_MATRIX_H
#define CROSSRUN_RUNNER_MATRIX_H

#include <stddef.h>

#include "evidence/base/json_read.h"
#include "runner/lanes.h"

/* Reads path and merges it into l: a runtime or workload of the same name
 * replaces the one l had, others are added. Relative paths of its runtimes
 * resolve from the file's own folder. The file is read as every input is
 * (evidence/base/json_read.h): at most JSON_READ_MATRIX_MAX_BYTES, valid UTF-8,
 * no NUL byte. On failure l is unchanged and err holds one line
 * "FILE:LINE:COLUMN: what was expected" (LINE and COLUMN 1-based), or
 * "FILE: <problem>" when the file cannot be read or is too large. Returns
 * 0 or -1. */
int matrix_load(struct lanes *l, const char *path, char *err, size_t errlen);

#endif
