/* Running a helper command to completion (a runtime's build, version or
 * package command): bounded output, a deadline, its whole process group
 * stopped when it overruns, and nothing of it left running afterwards. */
#ifndef CROSSRUN_RUNNER_COMMAND_H
#define CROSSRUN_RUNNER_COMMAND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "evidence/model/capture.h"

struct command_result {
  int exited; /* exited by itself: exit_code is valid */
  int exit_code;
  int signal;
  int timed_out; /* killed at its deadline */
  int stopped;   /* killed because the run was interrupted */
  struct capture out;
  struct capture err;
  uint64_t wall_ns;
};

/* Runs argv (argv[0] searched on PATH when it has no '/') in cwd (NULL:
 * the runner's) with env added to the environment, for at most timeout_ms.
 * Returns 0 when it ran (whatever its exit), or negative when it could
 * not be started (err says why). Release r with command_result_release. */
int command_run(const char *const *argv, const char *cwd,
                const char *const *env, uint64_t timeout_ms,
                struct command_result *r, char *err, size_t errlen);

void command_result_release(struct command_result *r);

/* One command of command_run_all. */
struct command_spec {
  const char *const *argv;
  const char *cwd;
  const char *const *env;
  uint64_t timeout_ms;
  /* Filled: 0 when it ran (its result is valid), negative when it could
   * not be started (why in error). */
  int start_rc;
  char error[256];
};

/* Runs the n commands side by side, each as command_run runs one, into
 * results[i] (every one to be released). The commands must not need each
 * other's output or write the same files. */
void command_run_all(struct command_spec *specs, int n,
                     struct command_result *results);

/* A flag (set from a signal handler) that stops any command running now
 * or later, as at its deadline: Ctrl-C during a long build does not wait
 * for it. NULL: none. */
void command_set_stop(const volatile sig_atomic_t *stop);

/* 1 when it exited by itself with 0. */
int command_succeeded(const struct command_result *r);

/* One line describing how it failed, with the last line of its stderr (or
 * stdout) for context. */
void command_describe_failure(const struct command_result *r, char *out,
                              size_t outlen);

#endif
