/* Writing a command's output file whole or not at all: through a
 * temporary file beside it and a rename, so that a reader never sees half
 * of it and a failed write leaves no file behind. */
#ifndef CROSSRUN_RUNNER_OUTFILE_H
#define CROSSRUN_RUNNER_OUTFILE_H

#include <stdio.h>

#define OUTFILE_PATH_MAX 4096

/* Writes what render(ctx, f) writes to path. Returns 0, or -1 after one
 * line "crossrun CMD: PATH: ..." on errf. */
int outfile_write(const char *cmd, const char *path,
                  int (*render)(void *ctx, FILE *f), void *ctx, FILE *errf);

#endif
