/* Peers as child processes, for the tests that run servers and clients
 * (a lane's, or tests/fixture's). Every child is started with
 * tests/lib_child (libuv) in its own process group (POSIX) with stdin on
 * the null device, its stdout and stderr captured (bounded) to be shown
 * only when its test fails; every wait has a deadline scaled by
 * tap_timeout_s(), after which the group is killed; every child is
 * reaped on every path, including SIGINT, SIGTERM and SIGHUP of the test
 * program (peers_setup installs the handlers; on Windows libuv's job
 * object ends the children with the program). The children get a fresh
 * TMPDIR of their own, which they must leave empty (lanes/README.md).
 *
 * One test program at a time uses one set of children on one loop (the
 * state is global, as the signal handlers need it). */
#ifndef CROSSRUN_TESTS_LIB_PEERS_H
#define CROSSRUN_TESTS_LIB_PEERS_H

#include <stddef.h>

#include "protocol/codec.h"
#include "tests/lib_child.h"

#define PEERS_CAPTURE_BYTES (64 * 1024)
#define PEERS_READY_TIMEOUT_S 10.0 /* before tap_timeout_s() */
#define PEERS_MAX_ARGS 24

struct peers_proc {
  const char *name;
  int pid;          /* 0 when never started */
  int reaped;       /* exited, its output read to the end */
  int killed;       /* killed at a deadline */
  double exited_at; /* peers_now_s() when its exit was seen, or 0 */
  /* out.buf and out.len (err's too): what it wrote, NUL-terminated;
   * out.cut when more came than PEERS_CAPTURE_BYTES. */
  struct child_capture out, err;
  struct child_proc child;
  char out_buf[PEERS_CAPTURE_BYTES + 1], err_buf[PEERS_CAPTURE_BYTES + 1];
};

struct peers_pair {
  struct peers_proc server, client;
  int port; /* from READY, 0 when none came */
};

/* ---- setting up ---- */

/* Writes "$BUILD/rel" into out ($BUILD defaults to "build"), with ".exe"
 * on Windows. Returns 1 when that is an executable file, else 0. */
int peers_bin(char *out, size_t outlen, const char *rel);

/* Ignores SIGPIPE; on SIGINT, SIGTERM and SIGHUP (POSIX) kills and reaps the
 * children still running and removes their TMPDIR before dying of the
 * signal. Creates that TMPDIR ("crossrun-<name>-XXXXXX" under $TMPDIR or
 * /tmp) and sets TMPDIR, TEMP and TMP to it for the children. Returns 0,
 * or -1 with a message in err. */
int peers_setup(const char *name, char *err, size_t errlen);

/* Whether the children's TMPDIR is empty; lists and removes what is in it
 * (tap_diag), so that the next test starts with it empty. */
int peers_tmp_empty(void);

/* At the end: 1 when the children's TMPDIR was empty and is removed. */
int peers_tmp_remove(void);

/* A monotonic clock in seconds. */
double peers_now_s(void);

/* ---- children ---- */

/* Starts argv[0] with argv in its own process group; name labels its
 * output. Returns 0 or -1 (a diagnostic printed). */
int peers_start(struct peers_proc *p, const char *name, char *const argv[]);

/* Kills the group of a child still running, and reaps it. */
void peers_kill(struct peers_proc *p);

/* Reads the children's output and reaps those that exit, for at most
 * 50 ms. */
void peers_poll(struct peers_proc **ps, int n);

/* Waits until every child of ps has exited, at most timeout_s; kills the
 * rest then. Returns 0, or -1 when something had to be killed. */
int peers_wait(struct peers_proc **ps, int n, double timeout_s);

/* The exit status, 128 + N for signal N, or -1 when it was killed at a
 * deadline or is not reaped. (On Windows a crash is its exit status, the
 * exception's code.) */
int peers_exit_code(const struct peers_proc *p);

/* Prints how the child ended and its output as diagnostics. */
void peers_show(const struct peers_proc *p);

/* ---- one server and one client ---- */

/* The address the servers below listen on and the clients connect to:
 * "127.0.0.1" unless a test sets another ("::1", given to the peers as
 * [::1]:PORT). */
extern const char *peers_host;

/* Starts prefix + --listen peers_host:0 and waits for its first stdout
 * line. Returns the port of "READY <port>", or 0 (the server then killed
 * and reaped). */
int peers_server_start(struct peers_proc *p, char *const prefix[]);

/* Starts prefix + --connect peers_host:port and the workload's flags.
 * Returns 0 or -1. */
int peers_client_start(struct peers_proc *p, char *const prefix[], int port,
                       const struct proto_workload *w);

/* Server: server_argv + --listen. Client: client_argv + --connect and the
 * workload. Everything is reaped when it returns. */
void peers_pair_run(struct peers_pair *r, char *const server_argv[],
                    char *const client_argv[], const struct proto_workload *w,
                    double timeout_s);

/* peers_show for both. */
void peers_pair_show(const struct peers_pair *r);

#endif
