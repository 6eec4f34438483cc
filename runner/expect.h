/* The expected-outcomes file of record (--expect FILE): failures known per
 * lane and OS, so that a known failure does not fail the run, while an
 * unexpected failure does, and so does an unexpected pass. */
#ifndef CROSSRUN_RUNNER_EXPECT_H
#define CROSSRUN_RUNNER_EXPECT_H

#include <stddef.h>

#include "runner/lanes.h"

#define EXPECT_MAX 64

struct expect_entry {
  char lane[80];
  char os[32];
  char reason[256];
  int line; /* 1-based, in the file */
};

struct expect {
  char path[1024];
  struct expect_entry entries[EXPECT_MAX];
  int n;
};

/* Reads FILE:
 *
 *   known_failures:
 *     - lane: node-rust
 *       os: windows
 *       reason: the Windows named-pipe fallback is not written yet
 *
 * Returns 0, or -1 with "FILE:LINE:COLUMN: problem" in err. */
int expect_load(struct expect *e, const char *path, char *err, size_t errlen);

/* The entry for lane on os, or NULL. */
const struct expect_entry *expect_find(const struct expect *e, const char *lane,
                                       const char *os);

/* Checks that every entry names one of lanes[0..n) (a run's lanes before
 * sharding: every shard reads the same file). An entry for a lane that
 * does not run is stale, and would hide nothing but a mistake. Returns 0,
 * or -1 with "FILE:LINE: lane 'x' ..." in err naming the first such
 * entry. */
int expect_check_lanes(const struct expect *e, const struct lane *lanes, int n,
                       char *err, size_t errlen);

#endif
