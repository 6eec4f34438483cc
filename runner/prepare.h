/* Getting runtimes ready for a run, and measuring their packages: finding
 * their programs, reading their toolchain versions, running their build
 * commands, then packing each one (twice, to see whether the packing is
 * reproducible) and measuring the artifact. */
#ifndef CROSSRUN_RUNNER_PREPARE_H
#define CROSSRUN_RUNNER_PREPARE_H

#include <stdio.h>

#include "evidence/model/model.h"
#include "runner/lanes.h"
#include "runner/package.h"

/* The distinct runtimes of the selected lanes, in lane order, into out
 * (room for 2 * n). Returns how many. */
int prepare_used_runtimes(const struct lane *sel, int n, struct runtime **out);

/* The distinct runtimes of the selected lanes as the evidence describes
 * them, in lane order, into out (room for 2 * n), after
 * prepare_runtimes. root is the repository's: declared_at is relative to
 * it. Returns how many. */
int prepare_describe_runtimes(const struct lane *sel, int n, const char *root,
                              struct model_runtime *out);

/* Prepares every runtime that a selected lane uses, once each. A runtime
 * whose toolchain is missing (a program not found, its version command
 * failing) gets available = 0 and why_unavailable; one whose build fails,
 * or whose programs are missing after it, gets broken = 1 and
 * why_unavailable. Progress goes to log when not NULL. Never fails as a
 * whole: every problem is recorded on its runtime. */
void prepare_runtimes(const struct lane *sel, int n, FILE *log);

/* Packs and measures every available runtime of the selected lanes that
 * declares a package, twice when twice (to see whether the bytes are
 * reproducible; once leaves that unknown). out has room for 2 * n
 * entries; returns how many were filled. Release each with
 * model_package_release(). */
int prepare_packages(const struct lane *sel, int n, int twice,
                     struct model_package *out, FILE *log);

#endif
