/* Peers as child processes: starting (tests/lib_child), capturing,
 * polling, waiting with a deadline, killing and reaping, the children's
 * TMPDIR and the signal handlers that clean up (see tests/lib_peers.h). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <uv.h>

#ifndef _WIN32
#include <sys/wait.h>
#endif

#include "tests/lib_env.h"
#include "tests/lib_peers.h"
#include "tests/tap.h"

/* The loop every child's process and pipes are on, and the timer that
 * bounds one peers_poll. */
static uv_loop_t loop;
static uv_timer_t poll_timer;
static int loop_ready;

static uv_loop_t *peers_loop(void)
{
  if (!loop_ready) {
    uv_loop_init(&loop);
    uv_timer_init(&loop, &poll_timer);
    loop_ready = 1;
  }
  return &loop;
}

/* A fresh, empty TMPDIR for the children (lanes/README.md: they must
 * leave it empty). */
static char child_tmp[512];

/* Process groups to kill when this program is interrupted. */
static volatile int live_groups[8];

static void live_add(int pid)
{
  for (size_t i = 0; i < sizeof live_groups / sizeof live_groups[0]; i++)
    if (live_groups[i] == 0) {
      live_groups[i] = pid;
      return;
    }
}

static void live_remove(int pid)
{
  for (size_t i = 0; i < sizeof live_groups / sizeof live_groups[0]; i++)
    if (live_groups[i] == pid)
      live_groups[i] = 0;
}

static void on_fatal_signal(int sig)
{
#ifndef _WIN32
  for (size_t i = 0; i < sizeof live_groups / sizeof live_groups[0]; i++)
    if (live_groups[i] > 0) {
      kill(-live_groups[i], SIGKILL);
      waitpid(live_groups[i], NULL, 0);
    }
#endif
  /* Windows: libuv's job object ends the children with this program. */
  if (child_tmp[0] != '\0')
    rmdir(child_tmp); /* the children create nothing in it */
  signal(sig, SIG_DFL);
  raise(sig);
}

double peers_now_s(void)
{
  return (double)uv_hrtime() / 1e9;
}

static const char *build_dir(void)
{
  const char *b = getenv("BUILD");
  return b && *b ? b : "build";
}

int peers_bin(char *out, size_t outlen, const char *rel)
{
  uv_fs_t req;
  int rc;

#ifdef _WIN32
  snprintf(out, outlen, "%s/%s.exe", build_dir(), rel);
#else
  snprintf(out, outlen, "%s/%s", build_dir(), rel);
#endif
  rc = uv_fs_access(NULL, &req, out, X_OK, NULL);
  uv_fs_req_cleanup(&req);
  return rc == 0;
}

int peers_setup(const char *name, char *err, size_t errlen)
{
  const char *base = getenv("TMPDIR");
  char tmpl[512];
  uv_fs_t req;
  int rc;

#ifndef _WIN32
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, on_fatal_signal);
#endif
  signal(SIGINT, on_fatal_signal);
  signal(SIGTERM, on_fatal_signal);

  snprintf(tmpl, sizeof tmpl, "%s/crossrun-%s-XXXXXX",
           base && *base ? base : "/tmp", name);
  rc = uv_fs_mkdtemp(NULL, &req, tmpl, NULL);
  if (rc == 0)
    snprintf(child_tmp, sizeof child_tmp, "%s", req.path);
  uv_fs_req_cleanup(&req);
  if (rc != 0) {
    snprintf(err, errlen, "mkdtemp %s: %s", tmpl, uv_strerror(rc));
    return -1;
  }
  if (env_set("TMPDIR", child_tmp) != 0 || env_set("TEMP", child_tmp) != 0 ||
      env_set("TMP", child_tmp) != 0) {
    snprintf(err, errlen, "cannot set TMPDIR, TEMP and TMP to %s", child_tmp);
    return -1;
  }
  return 0;
}

/* Whether the children's TMPDIR is empty; empties it for the next test. */
int peers_tmp_empty(void)
{
  uv_fs_t req;
  uv_dirent_t ent;
  int empty = 1;

  if (uv_fs_scandir(NULL, &req, child_tmp, 0, NULL) < 0) {
    uv_fs_req_cleanup(&req);
    return 0;
  }
  while (uv_fs_scandir_next(&req, &ent) == 0) {
    char path[1024];
    uv_fs_t rm;
    empty = 0;
    tap_diag("left in TMPDIR: %s", ent.name);
    snprintf(path, sizeof path, "%s/%s", child_tmp, ent.name);
    uv_fs_unlink(NULL, &rm, path, NULL);
    uv_fs_req_cleanup(&rm);
  }
  uv_fs_req_cleanup(&req);
  return empty;
}

int peers_tmp_remove(void)
{
  uv_fs_t req;
  int rc;

  if (!peers_tmp_empty())
    return 0;
  rc = uv_fs_rmdir(NULL, &req, child_tmp, NULL);
  uv_fs_req_cleanup(&req);
  return rc == 0;
}

/* Starts argv[0] with argv in its own process group. Returns 0 or -1. */
int peers_start(struct peers_proc *p, const char *name, char *const argv[])
{
  int rc;

  memset(p, 0, sizeof *p);
  p->name = name;
  p->out.buf = p->out_buf;
  p->out.cap = PEERS_CAPTURE_BYTES;
  p->err.buf = p->err_buf;
  p->err.cap = PEERS_CAPTURE_BYTES;
  rc = child_spawn(peers_loop(), &p->child, (const char *const *)argv, NULL,
                   NULL, CHILD_OWN_GROUP, &p->out, &p->err);
  if (rc != 0) {
    /* Windows' own code too: ci/windows-check runs a program again that
     * failed because wine's CreateProcess said ERROR_INTERNAL_ERROR. */
    if (p->child.os_error != 0)
      tap_diag("spawn %s: %s (error %lu)", argv[0], uv_strerror(rc),
               p->child.os_error);
    else
      tap_diag("spawn %s: %s", argv[0], uv_strerror(rc));
    return -1;
  }
  p->pid = p->child.proc.pid;
  live_add(p->pid);
  return 0;
}

static int is_running(const struct peers_proc *p)
{
  return p->pid > 0 && !p->reaped;
}

/* It is reaped once it has exited and its pipes have ended: what it wrote
 * before exiting is whole then. A pipe held open by a grandchild past
 * PEERS_READY_TIMEOUT_S after the exit is closed, cutting what comes. */
static void check_reaped(struct peers_proc *p)
{
  if (!p->child.exited)
    return;
  if (child_done(&p->child)) {
    p->reaped = 1;
    live_remove(p->pid);
    return;
  }
  if (p->exited_at == 0)
    p->exited_at = peers_now_s();
  else if (peers_now_s() - p->exited_at > tap_timeout_s(PEERS_READY_TIMEOUT_S))
    child_close_pipes(&p->child);
}

static void on_poll_timer(uv_timer_t *t)
{
}

/* One turn of the loop: until something happens, or timeout_ms. */
static void loop_turn(unsigned timeout_ms)
{
  /* The timer counts from the loop's time, which is stale since the last
   * turn: from it, the timer would be due at once and the turn would
   * wait for the children alone. */
  uv_update_time(peers_loop());
  uv_timer_start(&poll_timer, on_poll_timer, timeout_ms, 0);
  uv_run(peers_loop(), UV_RUN_ONCE);
  uv_timer_stop(&poll_timer);
}

/* Kills the group of a child still running, and reaps it. */
void peers_kill(struct peers_proc *p)
{
  if (!is_running(p))
    return;
  if (!p->child.exited)
    p->killed = 1;
  child_kill(&p->child, CHILD_OWN_GROUP);
  while (!p->reaped) {
    loop_turn(50);
    check_reaped(p);
  }
}

/* Reads the children's output and reaps those that exit, for at most
 * 50 ms. */
void peers_poll(struct peers_proc **ps, int n)
{
  loop_turn(50);
  for (int i = 0; i < n; i++)
    if (is_running(ps[i]))
      check_reaped(ps[i]);
}

/* Waits until every child of ps has exited, at most timeout_s; kills the
 * rest then. Returns 0, or -1 when something had to be killed. */
int peers_wait(struct peers_proc **ps, int n, double timeout_s)
{
  double deadline = peers_now_s() + timeout_s;
  int running, killed = 0;

  do {
    running = 0;
    for (int i = 0; i < n; i++)
      running += is_running(ps[i]);
    if (running == 0)
      break;
    peers_poll(ps, n);
  } while (peers_now_s() < deadline);
  for (int i = 0; i < n; i++)
    if (is_running(ps[i])) {
      killed |= !ps[i]->child.exited;
      peers_kill(ps[i]);
    }
  return killed ? -1 : 0;
}

int peers_exit_code(const struct peers_proc *p)
{
  if (!p->reaped || p->killed)
    return -1;
  if (p->child.term_signal != 0)
    return 128 + p->child.term_signal;
  return (int)p->child.exit_status;
}

void peers_show(const struct peers_proc *p)
{
  if (p->pid <= 0)
    return;
  if (p->killed)
    tap_diag("%s: killed at the deadline", p->name);
  else if (p->reaped && p->child.term_signal != 0)
    tap_diag("%s: killed by signal %d", p->name, p->child.term_signal);
  else if (p->reaped)
    tap_diag("%s: exit %" PRId64, p->name, p->child.exit_status);
  if (p->out.len)
    tap_diag("%s stdout: %.2000s", p->name, p->out.buf);
  if (p->err.len)
    tap_diag("%s stderr: %.2000s", p->name, p->err.buf);
}
static void argv_push(char **argv, int *argc, const char *s)
{
  if (*argc < PEERS_MAX_ARGS - 1) {
    argv[(*argc)++] = (char *)s;
    argv[*argc] = NULL;
  }
}

const char *peers_host = "127.0.0.1";

/* peers_host:port, an IPv6 host in brackets. */
static void endpoint(char *out, size_t len, int port)
{
  int v6 = strchr(peers_host, ':') != NULL;
  snprintf(out, len, "%s%s%s:%d", v6 ? "[" : "", peers_host, v6 ? "]" : "",
           port);
}

/* Starts prefix + --listen peers_host:0 and waits for its first stdout
 * line. Returns the port of "READY <port>", or 0 (the server then killed
 * and reaped). */
int peers_server_start(struct peers_proc *p, char *const prefix[])
{
  char *argv[PEERS_MAX_ARGS];
  struct peers_proc *one[1] = {p};
  char listen[64];
  double deadline;
  int argc = 0, port = 0;

  endpoint(listen, sizeof listen, 0);
  for (int i = 0; prefix[i]; i++)
    argv_push(argv, &argc, prefix[i]);
  argv_push(argv, &argc, "--listen");
  argv_push(argv, &argc, listen);
  if (peers_start(p, "server", argv) != 0)
    return 0;
  deadline = peers_now_s() + tap_timeout_s(PEERS_READY_TIMEOUT_S);
  while (!strchr(p->out.buf, '\n') && !p->reaped && peers_now_s() < deadline)
    peers_poll(one, 1);
  if (sscanf(p->out.buf, "READY %d", &port) != 1 || port <= 0 || port > 65535) {
    peers_kill(p);
    return 0;
  }
  return port;
}

/* Starts prefix + --connect peers_host:port and the workload's flags.
 * Returns 0 or -1. */
int peers_client_start(struct peers_proc *p, char *const prefix[], int port,
                       const struct proto_workload *w)
{
  char *argv[PEERS_MAX_ARGS];
  char connect[64], warmup[24], trips[24], bytes[16], inflight[16];
  int argc = 0;

  endpoint(connect, sizeof connect, port);
  snprintf(warmup, sizeof warmup, "%" PRIu64, w->warmup);
  snprintf(trips, sizeof trips, "%" PRIu64, w->round_trips);
  snprintf(bytes, sizeof bytes, "%" PRIu32, w->payload_bytes);
  snprintf(inflight, sizeof inflight, "%" PRIu32, w->max_in_flight);
  for (int i = 0; prefix[i]; i++)
    argv_push(argv, &argc, prefix[i]);
  argv_push(argv, &argc, "--connect");
  argv_push(argv, &argc, connect);
  argv_push(argv, &argc, "--warmup");
  argv_push(argv, &argc, warmup);
  argv_push(argv, &argc, "--round-trips");
  argv_push(argv, &argc, trips);
  argv_push(argv, &argc, "--payload-bytes");
  argv_push(argv, &argc, bytes);
  argv_push(argv, &argc, "--max-in-flight");
  argv_push(argv, &argc, inflight);
  return peers_start(p, "client", argv);
}

/* Server: server_argv + --listen. Client: client_argv + --connect and the
 * workload. Everything is reaped when it returns. */
void peers_pair_run(struct peers_pair *r, char *const server_argv[],
                    char *const client_argv[], const struct proto_workload *w,
                    double timeout_s)
{
  struct peers_proc *both[2] = {&r->server, &r->client};

  memset(r, 0, sizeof *r);
  r->port = peers_server_start(&r->server, server_argv);
  if (r->port == 0)
    return;
  if (peers_client_start(&r->client, client_argv, r->port, w) != 0) {
    peers_kill(&r->server);
    return;
  }
  peers_wait(both, 2, timeout_s);
}

void peers_pair_show(const struct peers_pair *r)
{
  peers_show(&r->server);
  peers_show(&r->client);
}
