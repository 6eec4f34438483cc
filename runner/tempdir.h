/* The per-sample temporary directory: created fresh and private (mode
 * 0700) under the system's temporary folder, checked for leftovers after
 * the sample, then removed with everything in it. */
#ifndef CROSSRUN_RUNNER_TEMPDIR_H
#define CROSSRUN_RUNNER_TEMPDIR_H

#include <stddef.h>

#include "evidence/model/model.h"

#define TEMPDIR_PATH_MAX 4096

struct tempdir {
  char path[TEMPDIR_PATH_MAX];
};

/* Creates "<tmp>/crossrun-XXXXXX" with mode 0700. Returns 0 or a negative
 * libuv error with a message in err. */
int tempdir_create(struct tempdir *t, char *err, size_t errlen);

/* Creates one directory as tempdir_create does and removes it: whether the
 * temporary folder can hold the samples', learnt before any runtime is
 * built, since a TMPDIR that names no folder, or one crossrun cannot write
 * in, would fail every sample alike. Returns 0 or a negative libuv error
 * with a message in err. */
int tempdir_probe(char *err, size_t errlen);

/* Lists what the directory holds. Returns 0 or a negative libuv error. */
int tempdir_scan(const struct tempdir *t, struct model_leftovers *out,
                 char *err, size_t errlen);

/* Removes the directory and everything below it. Returns 0 or a negative
 * libuv error naming the entry that could not be removed. */
int tempdir_remove(struct tempdir *t, char *err, size_t errlen);

#endif
