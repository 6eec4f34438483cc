/* Helpers shared by the POSIX platform files (linux.c, macos.c); not part
 * of platform.h's contract. */
#ifndef CROSSRUN_PLATFORMS_POSIX_H
#define CROSSRUN_PLATFORMS_POSIX_H

#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "platforms/platform.h"

/* Writes the message fmt formats, then ": " and strerror(e), into err
 * (nothing when err is NULL or errlen is 0). */
void posix_set_err(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

int64_t posix_timeval_ns(struct timeval tv);

/* Builds a child's environment into out (cap pointers): environ_now minus
 * the names extra overrides, plus extra. Pointers only; nothing copied.
 * Returns 0 or -E2BIG. */
int posix_build_env(const char *const *extra, char **environ_now,
                    const char **out, size_t cap);

/* The start of platform_spawn: resets proc (no pid, no descriptors) and
 * builds the peer's environment into envp (cap pointers) with
 * posix_build_env. Returns 0, or -E2BIG with a message in err. */
int posix_spawn_prepare(struct platform_proc *proc, const char *const *extra,
                        char **environ_now, const char **envp, size_t cap,
                        char *err, size_t errlen);

/* Gives attr its own process group (pgid = pid), default signal
 * dispositions and an empty mask, plus the POSIX_SPAWN_* flags of
 * extra_flags. Returns 0 or the first posix_spawnattr_* error (positive,
 * as they return it). */
int posix_spawn_set_attrs(posix_spawnattr_t *attr, short extra_flags);

/* wait4 without blocking: 0 while pid runs; 1 once reaped, with ex's exit
 * and CPU figures filled (memory left to the caller, from *ru); negative
 * with a message on error. */
int posix_reap(long pid, struct platform_exit *ex, struct rusage *ru, char *err,
               size_t errlen);

/* Closes the descriptors of two pipes that are not -1. */
void posix_close_pipes(int out_pipe[2], int err_pipe[2]);

#endif
