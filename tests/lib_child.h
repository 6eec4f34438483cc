/* Children of a test program through libuv, on Linux and Windows alike.
 *
 * child_run runs a helper program (sha256sum, npm, crossrun) to its end on
 * a loop of its own, keeping its output or writing it to files, with a
 * deadline; while it runs its pid is scratch_child_pid, so that an
 * interrupted test kills it. child_spawn starts one on a loop its caller
 * runs, with stdin on the null device and stdout and stderr kept in the
 * caller's buffers (bounded), so that several run at once
 * (tests/lib_peers). */
#ifndef CROSSRUN_TESTS_LIB_CHILD_H
#define CROSSRUN_TESTS_LIB_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define CHILD_OUTPUT_LIMIT (1 << 20) /* bytes of a child's stdout kept */
#define CHILD_STDERR_LIMIT 4096

/* One output stream of a child: at most cap bytes of it in buf (the
 * caller's, cap + 1 bytes, kept NUL-terminated), more counted as cut. */
struct child_capture {
  uv_pipe_t pipe;
  char *buf;
  size_t cap, len;
  int cut;
  int open; /* the pipe is not closed yet */
};

/* A child started by child_spawn. */
struct child_proc {
  uv_process_t proc;
  struct child_capture *out, *err;
  int running; /* the process handle is not closed yet */
  int exited;
  int64_t exit_status;
  int term_signal; /* the signal libuv reports (0: none) */
  /* Windows' error code of a spawn that failed (GetLastError; libuv's
   * error says UV_UNKNOWN for many), 0 elsewhere. */
  unsigned long os_error;
};

/* child_spawn's flags. */
enum {
  /* POSIX: in a session, so a process group, of its own, which
   * child_kill_group ends whole. Windows has no groups to give: every
   * child is in libuv's job object, which ends it with this program. */
  CHILD_OWN_GROUP = 1,
};

/* Starts argv[0] (looked up in PATH) on loop in cwd (NULL: this
 * program's) with env (NULL: this program's), stdin on the null device,
 * stdout into out and stderr into err (buf and cap set by the caller).
 * Returns 0, or the libuv error of the spawn with nothing left open (the
 * loop need not run). c, out and err stay in place until child_done. */
int child_spawn(uv_loop_t *loop, struct child_proc *c, const char *const *argv,
                const char *cwd, char **env, int flags,
                struct child_capture *out, struct child_capture *err);

/* 1 once it has exited and its handles are closed (its output then whole,
 * unless child_close_pipes cut it). */
int child_done(const struct child_proc *c);

/* Closes its pipes not at their end yet (a grandchild that holds them);
 * the loop must run once more for them to close. */
void child_close_pipes(struct child_proc *c);

/* SIGKILL for a child still running: to its process group when it was
 * started with CHILD_OWN_GROUP (POSIX), else to it. */
void child_kill(struct child_proc *c, int flags);

struct child_run {
  uv_loop_t loop;
  uv_process_t proc;
  uv_pipe_t out, err;
  uv_timer_t timer;
  char *stdout_buf; /* CHILD_OUTPUT_LIMIT + 1 bytes, NUL-terminated */
  size_t stdout_len;
  char stderr_buf[CHILD_STDERR_LIMIT + 1];
  size_t stderr_len;
  int truncated;
  int exited;
  int64_t exit_status;
  int term_signal;
  int timed_out;
};

/* Runs argv (looked up in PATH) in cwd with env (NULL: this program's),
 * keeping its output, for at most timeout_s. Returns 0 when it ran (see
 * r->exited, exit_status, timed_out), or the libuv error of the spawn
 * (UV_ENOENT when the program is not installed). r->stdout_buf is freed
 * by child_release(), to be called whatever this returned. */
int child_run(struct child_run *r, const char *const *argv, const char *cwd,
              char **env, double timeout_s);

/* What child_run_with() adds to child_run(). */
struct child_opts {
  /* Files (made or emptied, mode 0600) for its stdout and stderr; NULL:
   * kept in stdout_buf and stderr_buf. The same path for both: one file,
   * as "2>&1". */
  const char *stdout_path;
  const char *stderr_path;
  /* A process group of its own, killed whole once it has ended or timed
   * out (a browser leaves helpers behind). POSIX only: on Windows what it
   * starts stays in libuv's job object, ended with this program. */
  int own_group;
};

/* child_run() with opts (NULL: none). Returns as child_run() does; a file
 * that cannot be made is its libuv error, and nothing is started. */
int child_run_with(struct child_run *r, const char *const *argv,
                   const char *cwd, char **env, const struct child_opts *opts,
                   double timeout_s);

void child_release(struct child_run *r);

/* Whether it exited 0 in time. */
int child_succeeded(const struct child_run *r);

/* A diagnostic of how it ended and its stderr, under the label what. */
void child_explain(const struct child_run *r, const char *what);

#endif
