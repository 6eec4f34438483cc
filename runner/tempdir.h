/* The per-sample temporary directory: created fresh and private (mode
 * 0700) under the system's temporary folder, checked for leftovers after
 * the sample, then removed with everything in it. */
#ifndef CROSSRUN_RUNNER_TEMPDIR_H
#define CROSSRUN_RUNNER_TEMPDIR_H

#include <stddef.h>

#define TEMPDIR_PATH_MAX 4096
#define TEMPDIR_MAX_LISTED 8

struct tempdir {
  char path[TEMPDIR_PATH_MAX];
};

/* What was found in a directory that should be empty. */
struct tempdir_leftovers {
  int count;                            /* direct entries found */
  char names[TEMPDIR_MAX_LISTED][128];  /* the first few, by name */
};

/* Creates "<tmp>/crossrun-XXXXXX" with mode 0700. Returns 0 or a negative
 * libuv error with a message in err. */
int tempdir_create(struct tempdir *t, char *err, size_t errlen);

/* Lists what the directory holds. Returns 0 or a negative libuv error. */
int tempdir_scan(const struct tempdir *t, struct tempdir_leftovers *out,
                 char *err, size_t errlen);

/* Removes the directory and everything below it. Returns 0 or a negative
 * libuv error naming the entry that could not be removed. */
int tempdir_remove(struct tempdir *t, char *err, size_t errlen);

#endif
