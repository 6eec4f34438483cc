/* Tests of the C lane (lanes/c): the client against the server over
 * several workloads, interop with the fixture's correct peers, each side
 * against the fixture's misbehaving peers, and bad command lines.
 *
 * Binaries come from $BUILD (default "build"): lanes/c/server,
 * lanes/c/client and tests/fixture. Every child runs in its own process
 * group with stdin on /dev/null, its stdout and stderr captured (bounded)
 * and shown only when its test fails; every wait has a deadline scaled by
 * tap_timeout_s(), after which the group is killed; every child is reaped
 * on every path, including SIGINT and SIGTERM of this program. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "protocol/codec.h"
#include "tests/tap.h"

extern char **environ;

#define CAPTURE_BYTES (64 * 1024)
#define READY_TIMEOUT_S 10.0
#define SESSION_TIMEOUT_S 60.0
#define MAX_ARGS 24

/* ---- children ---- */

struct capture {
  int fd; /* read end of the pipe, -1 once closed */
  size_t len;
  int cut; /* more arrived than CAPTURE_BYTES */
  char buf[CAPTURE_BYTES + 1];
};

struct proc {
  const char *name;
  pid_t pid; /* 0 when never started */
  int reaped;
  int status; /* wait status, valid when reaped */
  int killed; /* killed at a deadline */
  struct capture out, err;
};

/* A fresh, empty TMPDIR for the children (lanes/README.md: they must
 * leave it empty). */
static char child_tmp[512];

/* Process groups to kill when this program is interrupted. */
static volatile pid_t live_groups[8];

static void live_add(pid_t pid)
{
  for (size_t i = 0; i < sizeof live_groups / sizeof live_groups[0]; i++)
    if (live_groups[i] == 0) {
      live_groups[i] = pid;
      return;
    }
}

static void live_remove(pid_t pid)
{
  for (size_t i = 0; i < sizeof live_groups / sizeof live_groups[0]; i++)
    if (live_groups[i] == pid)
      live_groups[i] = 0;
}

static void on_fatal_signal(int sig)
{
  for (size_t i = 0; i < sizeof live_groups / sizeof live_groups[0]; i++)
    if (live_groups[i] > 0) {
      kill(-live_groups[i], SIGKILL);
      waitpid(live_groups[i], NULL, 0);
    }
  if (child_tmp[0] != '\0')
    rmdir(child_tmp); /* the children create nothing in it */
  signal(sig, SIG_DFL);
  raise(sig);
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *build_dir(void)
{
  const char *b = getenv("BUILD");
  return b && *b ? b : "build";
}

static char server_bin[512], client_bin[512], fixture_bin[512];

/* Starts argv[0] with argv in its own process group. Returns 0 or -1. */
static int proc_start(struct proc *p, const char *name, char *const argv[])
{
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  sigset_t none, defaults;
  int rc;

  memset(p, 0, sizeof *p);
  p->name = name;
  p->out.fd = p->err.fd = -1;
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    tap_diag("pipe: %s", strerror(errno));
    goto fail;
  }
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_init(&attr);
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  rc = posix_spawn(&p->pid, argv[0], &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    tap_diag("spawn %s: %s", argv[0], strerror(rc));
    p->pid = 0;
    close(out[0]);
    close(err[0]);
    return -1;
  }
  live_add(p->pid);
  p->out.fd = out[0];
  p->err.fd = err[0];
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  return 0;

fail:
  for (int i = 0; i < 2; i++) {
    if (out[i] >= 0)
      close(out[i]);
    if (err[i] >= 0)
      close(err[i]);
  }
  return -1;
}

/* Reads what is there; closes the pipe at end of file. */
static void capture_read(struct capture *c)
{
  char scratch[4096];

  while (c->fd >= 0) {
    char *dst = c->len < CAPTURE_BYTES ? c->buf + c->len : scratch;
    size_t room =
        c->len < CAPTURE_BYTES ? CAPTURE_BYTES - c->len : sizeof scratch;
    ssize_t n = read(c->fd, dst, room);
    if (n > 0) {
      if (dst == scratch)
        c->cut = 1;
      else
        c->len += (size_t)n;
      c->buf[c->len] = '\0';
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN)
      return;
    close(c->fd);
    c->fd = -1;
  }
}

static void proc_reaped(struct proc *p, int status)
{
  p->reaped = 1;
  p->status = status;
  live_remove(p->pid);
  /* It has exited: whatever it wrote is in the pipes now. */
  capture_read(&p->out);
  capture_read(&p->err);
  if (p->out.fd >= 0)
    close(p->out.fd);
  if (p->err.fd >= 0)
    close(p->err.fd);
  p->out.fd = p->err.fd = -1;
}

/* Kills the group of a child still running, and reaps it. */
static void proc_kill(struct proc *p)
{
  int status;
  if (p->pid <= 0 || p->reaped)
    return;
  p->killed = 1;
  kill(-p->pid, SIGKILL);
  while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
    ;
  proc_reaped(p, status);
}

/* Reads the children's output and reaps those that exit, for at most
 * 50 ms. */
static void procs_poll(struct proc **ps, int n)
{
  struct pollfd pfd[8];
  int k = 0;

  for (int i = 0; i < n; i++) {
    if (ps[i]->pid <= 0 || ps[i]->reaped)
      continue;
    if (ps[i]->out.fd >= 0)
      pfd[k++] = (struct pollfd){ps[i]->out.fd, POLLIN, 0};
    if (ps[i]->err.fd >= 0)
      pfd[k++] = (struct pollfd){ps[i]->err.fd, POLLIN, 0};
  }
  if (k > 0)
    poll(pfd, (nfds_t)k, 50);
  else
    usleep(10000);
  for (int i = 0; i < n; i++) {
    int status;
    if (ps[i]->pid <= 0 || ps[i]->reaped)
      continue;
    capture_read(&ps[i]->out);
    capture_read(&ps[i]->err);
    if (waitpid(ps[i]->pid, &status, WNOHANG) == ps[i]->pid)
      proc_reaped(ps[i], status);
  }
}

/* Waits until every child of ps has exited, at most timeout_s; kills the
 * rest then. Returns 0, or -1 when something had to be killed. */
static int procs_wait(struct proc **ps, int n, double timeout_s)
{
  double deadline = now_s() + timeout_s;
  int running, killed = 0;

  do {
    running = 0;
    for (int i = 0; i < n; i++)
      running += ps[i]->pid > 0 && !ps[i]->reaped;
    if (running == 0)
      break;
    procs_poll(ps, n);
  } while (now_s() < deadline);
  for (int i = 0; i < n; i++)
    if (ps[i]->pid > 0 && !ps[i]->reaped) {
      proc_kill(ps[i]);
      killed = 1;
    }
  return killed ? -1 : 0;
}

static int proc_exit_code(const struct proc *p)
{
  if (!p->reaped || p->killed)
    return -1;
  if (WIFEXITED(p->status))
    return WEXITSTATUS(p->status);
  return 128 + WTERMSIG(p->status);
}

static void proc_show(const struct proc *p)
{
  if (p->pid <= 0)
    return;
  if (p->killed)
    tap_diag("%s: killed at the deadline", p->name);
  else if (p->reaped && WIFSIGNALED(p->status))
    tap_diag("%s: killed by signal %d", p->name, WTERMSIG(p->status));
  else if (p->reaped)
    tap_diag("%s: exit %d", p->name, WEXITSTATUS(p->status));
  if (p->out.len)
    tap_diag("%s stdout: %.2000s", p->name, p->out.buf);
  if (p->err.len)
    tap_diag("%s stderr: %.2000s", p->name, p->err.buf);
}

/* ---- one server and one client ---- */

struct pair {
  struct proc server, client;
  int port; /* from READY, 0 when none came */
};

static void argv_push(char **argv, int *argc, const char *s)
{
  if (*argc < MAX_ARGS - 1) {
    argv[(*argc)++] = (char *)s;
    argv[*argc] = NULL;
  }
}

/* Starts prefix + --listen 127.0.0.1:0 and waits for its first stdout
 * line. Returns the port of "READY <port>", or 0 (the server then killed
 * and reaped). */
static int server_start(struct proc *p, char *const prefix[])
{
  char *argv[MAX_ARGS];
  struct proc *one[1] = {p};
  double deadline;
  int argc = 0, port = 0;

  for (int i = 0; prefix[i]; i++)
    argv_push(argv, &argc, prefix[i]);
  argv_push(argv, &argc, "--listen");
  argv_push(argv, &argc, "127.0.0.1:0");
  if (proc_start(p, "server", argv) != 0)
    return 0;
  deadline = now_s() + tap_timeout_s(READY_TIMEOUT_S);
  while (!strchr(p->out.buf, '\n') && !p->reaped && now_s() < deadline)
    procs_poll(one, 1);
  if (sscanf(p->out.buf, "READY %d", &port) != 1 || port <= 0 || port > 65535) {
    proc_kill(p);
    return 0;
  }
  return port;
}

/* Starts prefix + --connect 127.0.0.1:port and the workload's flags.
 * Returns 0 or -1. */
static int client_start(struct proc *p, char *const prefix[], int port,
                        const struct proto_workload *w)
{
  char *argv[MAX_ARGS];
  char connect[32], warmup[24], trips[24], bytes[16], inflight[16];
  int argc = 0;

  snprintf(connect, sizeof connect, "127.0.0.1:%d", port);
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
  return proc_start(p, "client", argv);
}

/* Server: server_argv + --listen. Client: client_argv + --connect and the
 * workload. Everything is reaped when it returns. */
static void pair_run(struct pair *r, char *const server_argv[],
                     char *const client_argv[], const struct proto_workload *w,
                     double timeout_s)
{
  struct proc *both[2] = {&r->server, &r->client};

  memset(r, 0, sizeof *r);
  r->port = server_start(&r->server, server_argv);
  if (r->port == 0)
    return;
  if (client_start(&r->client, client_argv, r->port, w) != 0) {
    proc_kill(&r->server);
    return;
  }
  procs_wait(both, 2, timeout_s);
}

static void pair_show(const struct pair *r)
{
  proc_show(&r->server);
  proc_show(&r->client);
}

/* ---- checks ---- */

static int ready_line_ok(const struct pair *r)
{
  char expect[32];
  snprintf(expect, sizeof expect, "READY %d\n", r->port);
  return r->port > 0 && strcmp(r->server.out.buf, expect) == 0;
}

static int json_u64(struct json_object *o, const char *key, uint64_t *v)
{
  struct json_object *f;
  if (!json_object_object_get_ex(o, key, &f) ||
      !json_object_is_type(f, json_type_int))
    return 0;
  *v = json_object_get_uint64(f);
  return 1;
}

/* The client's stdout is one JSON object on one line whose figures are
 * those of SPEC.md for w. */
static int result_ok(const char *out, const struct proto_workload *w,
                     const char *label)
{
  struct proto_totals t;
  struct json_object *o;
  const char *nl = strchr(out, '\n');
  int ok = 1;
  uint64_t v;
  struct field {
    const char *key;
    uint64_t want;
  } fields[8];
  size_t n = 0;

  if (nl == NULL || nl[1] != '\0') {
    tap_diag("%s: the result is not exactly one line", label);
    return 0;
  }
  o = json_tokener_parse(out);
  if (o == NULL || !json_object_is_type(o, json_type_object)) {
    tap_diag("%s: the result is not a JSON object", label);
    if (o)
      json_object_put(o);
    return 0;
  }
  proto_totals_expected(w, &t);
  fields[n++] = (struct field){"round_trips", w->round_trips};
  fields[n++] = (struct field){"warmup_round_trips", w->warmup};
  fields[n++] = (struct field){"payload_bytes", w->payload_bytes};
  fields[n++] = (struct field){"max_in_flight", w->max_in_flight};
  fields[n++] = (struct field){"frames_sent", t.frames_sent};
  fields[n++] = (struct field){"frames_received", t.frames_received};
  fields[n++] = (struct field){"bytes_sent", t.bytes_sent};
  fields[n++] = (struct field){"bytes_received", t.bytes_received};
  for (size_t i = 0; i < n; i++) {
    if (!json_u64(o, fields[i].key, &v) || v != fields[i].want) {
      tap_diag("%s: %s is not %" PRIu64, label, fields[i].key, fields[i].want);
      ok = 0;
    }
  }
  if (!json_u64(o, "elapsed_ns", &v) || v == 0) {
    tap_diag("%s: elapsed_ns is missing or 0", label);
    ok = 0;
  }
  json_object_put(o);
  return ok;
}

/* The port can be bound again at once: the client closed first. */
static int port_free(int port)
{
  struct sockaddr_in a = {0};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int ok;

  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
  if (fd >= 0)
    close(fd);
  return ok;
}

/* Whether the children's TMPDIR is empty; empties it for the next test. */
static int tmp_empty(void)
{
  DIR *d = opendir(child_tmp);
  struct dirent *e;
  int empty = 1;

  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL) {
    char path[1024];
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    empty = 0;
    tap_diag("left in TMPDIR: %s", e->d_name);
    snprintf(path, sizeof path, "%s/%s", child_tmp, e->d_name);
    unlink(path);
  }
  closedir(d);
  return empty;
}

/* The stderr line names the rejection (one of the names in want, which
 * ends with NULL). */
static int names_rejection(const char *err, const char *const want[])
{
  for (int i = 0; want[i]; i++)
    if (strstr(err, want[i]))
      return 1;
  return 0;
}

/* ---- the tests ---- */

static void test_self(const struct proto_workload *w)
{
  char *server[] = {server_bin, NULL};
  char *client[] = {client_bin, NULL};
  char label[96];
  struct pair r;
  int before = tap_failed;

  snprintf(label, sizeof label,
           "c-c W=%" PRIu64 " N=%" PRIu64 " P=%" PRIu32 " M=%" PRIu32,
           w->warmup, w->round_trips, w->payload_bytes, w->max_in_flight);
  pair_run(&r, server, client, w, tap_timeout_s(SESSION_TIMEOUT_S));
  TAP_OK(ready_line_ok(&r), "%s: server stdout is exactly READY <port>", label);
  TAP_OK(proc_exit_code(&r.server) == 0, "%s: server exits 0", label);
  TAP_OK(proc_exit_code(&r.client) == 0, "%s: client exits 0", label);
  TAP_OK(result_ok(r.client.out.buf, w, label),
         "%s: result JSON has the expected totals", label);
  TAP_OK(r.server.err.len == 0 && r.client.err.len == 0,
         "%s: nothing on stderr", label);
  TAP_OK(r.port > 0 && port_free(r.port), "%s: the port is free at once",
         label);
  TAP_OK(tmp_empty(), "%s: TMPDIR left empty", label);
  if (tap_failed != before)
    pair_show(&r);
}

static void test_interop(int fixture_is_server)
{
  char *fixture_server[] = {fixture_bin, "server", "ok", NULL};
  char *fixture_client[] = {fixture_bin, "client", "ok", NULL};
  char *c_server[] = {server_bin, NULL};
  char *c_client[] = {client_bin, NULL};
  static const struct proto_workload loads[] = {{10, 1000, 64, 64},
                                                {1, 4, 1048576, 2}};
  const char *label = fixture_is_server ? "c client, fixture ok server"
                                        : "fixture ok client, c server";

  for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
    const struct proto_workload *w = &loads[i];
    struct pair r;
    int before = tap_failed;
    pair_run(&r, fixture_is_server ? fixture_server : c_server,
             fixture_is_server ? c_client : fixture_client, w,
             tap_timeout_s(SESSION_TIMEOUT_S));
    TAP_OK(proc_exit_code(&r.server) == 0 && proc_exit_code(&r.client) == 0,
           "%s (P=%" PRIu32 "): both exit 0", label, w->payload_bytes);
    TAP_OK(result_ok(r.client.out.buf, w, label),
           "%s (P=%" PRIu32 "): result JSON has the expected totals", label,
           w->payload_bytes);
    if (tap_failed != before)
      pair_show(&r);
  }
}

struct fault_case {
  const char *mode;
  const char *names[3];
  struct proto_workload w;
};

/* The workload is small but more than 3 round trips (the faults hit the
 * 3rd frame); the second wrong-payload case has a window over the
 * client's 8 MiB of kept payloads, so the client checks by generating. */
static const struct fault_case faults[] = {
    {"wrong-sequence", {"wrong_sequence", NULL}, {2, 20, 64, 4}},
    {"wrong-payload", {"wrong_payload", NULL}, {2, 20, 64, 4}},
    {"wrong-payload", {"wrong_payload", NULL}, {0, 6, 1048576, 16}},
    {"oversized", {"frame_too_large", NULL}, {2, 20, 64, 4}},
    {"early-eof", {"unexpected_eof", "truncated", NULL}, {2, 20, 64, 4}},
    {"bad-version", {"unsupported_version", NULL}, {2, 20, 64, 4}},
    {"wrong-counts", {"count_mismatch", NULL}, {2, 20, 64, 4}},
};

/* The C peer of the other role meets a misbehaving fixture. */
static void test_fault(const struct fault_case *f, int fixture_is_server)
{
  char *fixture[] = {fixture_bin, fixture_is_server ? "server" : "client",
                     (char *)f->mode, NULL};
  char *c_server[] = {server_bin, NULL};
  char *c_client[] = {client_bin, NULL};
  const char *c_role = fixture_is_server ? "client" : "server";
  const char *f_role = fixture_is_server ? "server" : "client";
  char label[160];
  struct pair r;
  const struct proc *c_peer;
  int before = tap_failed;

  snprintf(label, sizeof label,
           "c %s against fixture %s %s (P=%" PRIu32 " M=%" PRIu32 ")", c_role,
           f_role, f->mode, f->w.payload_bytes, f->w.max_in_flight);
  pair_run(&r, fixture_is_server ? fixture : c_server,
           fixture_is_server ? c_client : fixture, &f->w,
           tap_timeout_s(SESSION_TIMEOUT_S));
  c_peer = fixture_is_server ? &r.client : &r.server;
  TAP_OK(r.port > 0, "%s: READY", label);
  TAP_OK(c_peer->reaped && !c_peer->killed && proc_exit_code(c_peer) > 0 &&
             proc_exit_code(c_peer) < 128,
         "%s: exits non-zero", label);
  TAP_OK(names_rejection(c_peer->err.buf, f->names), "%s: stderr names %s",
         label, f->names[0]);
  TAP_OK(fixture_is_server ? r.client.out.len == 0 : ready_line_ok(&r),
         "%s: %s on stdout", label,
         fixture_is_server ? "nothing" : "only READY");
  TAP_OK(proc_exit_code(fixture_is_server ? &r.server : &r.client) == 0,
         "%s: the fixture exits 0 once the c peer has closed", label);
  if (tap_failed != before)
    pair_show(&r);
}

static void test_usage(const char *label, char *const argv[])
{
  struct proc p;
  struct proc *one[1] = {&p};
  int before = tap_failed;

  if (proc_start(&p, label, argv) != 0) {
    TAP_OK(0, "%s: starts", label);
    return;
  }
  procs_wait(one, 1, tap_timeout_s(READY_TIMEOUT_S));
  TAP_OK(proc_exit_code(&p) == 2, "%s: exits 2", label);
  TAP_OK(p.out.len == 0 && p.err.len > 0 &&
             strchr(p.err.buf, '\n') == p.err.buf + p.err.len - 1,
         "%s: one line on stderr, nothing on stdout", label);
  if (tap_failed != before)
    proc_show(&p);
}

static void tests_usage(void)
{
  char *s = server_bin, *c = client_bin;
  char *s_none[] = {s, NULL};
  char *s_bad_addr[] = {s, "--listen", "localhost", NULL};
  char *s_unknown[] = {s, "--listen", "127.0.0.1:0", "--verbose", NULL};
  char *s_twice[] = {s, "--listen", "127.0.0.1:0", "--listen=127.0.0.1:0",
                     NULL};
  char *s_client_flag[] = {s, "--listen", "127.0.0.1:0", "--warmup", "1", NULL};
  char *c_missing[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup", "1", "--round-trips",
      "1", "--payload-bytes", "1",           NULL};
  char *c_bad_number[] = {
      c,    "--connect",       "127.0.0.1:9", "--warmup",
      "-1", "--round-trips",   "1",           "--payload-bytes",
      "1",  "--max-in-flight", "1",           NULL};
  char *c_not_number[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "ten",         "--payload-bytes",
      "1", "--max-in-flight", "1",           NULL};
  char *c_zero_trips[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "0",           "--payload-bytes",
      "1", "--max-in-flight", "1",           NULL};
  char *c_big_payload[] = {
      c,         "--connect",       "127.0.0.1:9", "--warmup",
      "1",       "--round-trips",   "1",           "--payload-bytes",
      "1048577", "--max-in-flight", "1",           NULL};
  char *c_zero_window[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "1",           "--payload-bytes",
      "1", "--max-in-flight", "0",           NULL};
  char *c_big_window[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "1",           "--payload-bytes",
      "1", "--max-in-flight", "65537",       NULL};
  char *c_bad_addr[] = {c,   "--connect",       "127.0.0.1", "--warmup",
                        "1", "--round-trips",   "1",         "--payload-bytes",
                        "1", "--max-in-flight", "1",         NULL};
  char *c_no_value[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "1",           "--payload-bytes",
      "1", "--max-in-flight", NULL};

  test_usage("server without arguments", s_none);
  test_usage("server --listen localhost", s_bad_addr);
  test_usage("server with an unknown flag", s_unknown);
  test_usage("server with --listen twice", s_twice);
  test_usage("server with a client flag", s_client_flag);
  test_usage("client without --max-in-flight", c_missing);
  test_usage("client --warmup -1", c_bad_number);
  test_usage("client --round-trips ten", c_not_number);
  test_usage("client --round-trips 0", c_zero_trips);
  test_usage("client --payload-bytes 1048577", c_big_payload);
  test_usage("client --max-in-flight 0", c_zero_window);
  test_usage("client --max-in-flight 65537", c_big_window);
  test_usage("client --connect without a port", c_bad_addr);
  test_usage("client with a flag missing its value", c_no_value);
}

/* ---- protocol/vectors replays ---- */

static char vectors_dir[600];

static const char *jstr(struct json_object *o, const char *key)
{
  struct json_object *f;
  if (!json_object_object_get_ex(o, key, &f))
    return NULL;
  return json_object_get_string(f);
}

/* A 64-bit field: a decimal string (vectors/README.md) or a number. */
static uint64_t ju64(struct json_object *o, const char *key)
{
  const char *v = jstr(o, key);
  return v ? strtoull(v, NULL, 10) : 0;
}

static int jbool(struct json_object *o, const char *key)
{
  struct json_object *f;
  return json_object_object_get_ex(o, key, &f) && json_object_get_boolean(f);
}

static void workload_of(struct json_object *c, struct proto_workload *w)
{
  struct json_object *o;
  memset(w, 0, sizeof *w);
  if (!json_object_object_get_ex(c, "workload", &o))
    return;
  w->warmup = ju64(o, "warmup");
  w->round_trips = ju64(o, "round_trips");
  w->payload_bytes = (uint32_t)ju64(o, "payload_bytes");
  w->max_in_flight = (uint32_t)ju64(o, "max_in_flight");
}

/* Lowercase hex to bytes; the caller frees. NULL when malformed. */
static uint8_t *hex_decode(const char *hex, size_t *len)
{
  size_t n = hex ? strlen(hex) : 1;
  uint8_t *out;

  if (n % 2)
    return NULL;
  out = malloc(n / 2 + 1);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
      free(out);
      return NULL;
    }
    out[i] = (uint8_t)v;
  }
  *len = n / 2;
  return out;
}

static void sock_deadlines(int fd)
{
  double t = tap_timeout_s(READY_TIMEOUT_S);
  struct timeval tv = {(time_t)t, (suseconds_t)((t - (double)(time_t)t) * 1e6)};
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int connect_to(int port)
{
  struct sockaddr_in a = {0};
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  sock_deadlines(fd);
  return fd;
}

/* A listening socket on 127.0.0.1 with an OS-chosen port. */
static int listen_any(int *port)
{
  struct sockaddr_in a = {0};
  socklen_t len = sizeof a;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(fd, 1) != 0 || getsockname(fd, (struct sockaddr *)&a, &len)) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

/* Accepts the client's connection unless it exits or the deadline passes
 * first. */
static int accept_from(int lfd, struct proc *client)
{
  struct proc *one[1] = {client};
  double deadline = now_s() + tap_timeout_s(READY_TIMEOUT_S);

  while (now_s() < deadline && !client->reaped) {
    struct pollfd pfd = {lfd, POLLIN, 0};
    if (poll(&pfd, 1, 20) == 1) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0)
        sock_deadlines(fd);
      return fd;
    }
    procs_poll(one, 1);
  }
  return -1;
}

static int read_exact(int fd, uint8_t *buf, size_t n)
{
  while (n > 0) {
    ssize_t r = recv(fd, buf, n, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

/* Sends all of p, one byte per send() when bytewise. */
static int send_bytes(int fd, const uint8_t *p, size_t n, int bytewise)
{
  while (n > 0) {
    ssize_t r = send(fd, p, bytewise ? 1 : n, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

/* Reads until the peer closes, fails or goes quiet past the deadline. */
static void drain(int fd)
{
  uint8_t scratch[4096];
  while (recv(fd, scratch, sizeof scratch, 0) > 0)
    ;
}

/* REQUEST (is_response 0) or RESPONSE s of P bytes into out (16 + P). */
static size_t data_frame(uint8_t *out, int is_response, uint64_t s, uint32_t p)
{
  struct proto_header h = {
      PROTO_VERSION, is_response ? PROTO_RESPONSE : PROTO_REQUEST, 0, p, s};
  proto_header_encode(out, &h);
  proto_payload_fill(out + PROTO_HEADER_BYTES, p, s);
  if (is_response)
    proto_response_fill(out + PROTO_HEADER_BYTES, out + PROTO_HEADER_BYTES, p);
  return PROTO_HEADER_BYTES + (size_t)p;
}

/* The peer's stderr names the rejection as "<prog>: <name>: ...". */
static int stderr_names(const struct proc *p, const char *name)
{
  char pattern[64];
  snprintf(pattern, sizeof pattern, ": %s:", name);
  return strstr(p->err.buf, pattern) != NULL;
}

/* An invalid.json case against the C server, which this test drives as
 * its client into the case's state. */
static void vector_server_rejects(struct json_object *c)
{
  char *c_server[] = {server_bin, NULL};
  const char *name = jstr(c, "name"), *state = jstr(c, "state");
  const char *want = jstr(c, "rejection");
  struct proto_workload w;
  struct proc srv;
  struct proc *one[1] = {&srv};
  uint8_t *input, *frame = NULL;
  size_t input_len;
  int port, fd = -1, ok, before = tap_failed;

  workload_of(c, &w);
  input = hex_decode(jstr(c, "input"), &input_len);
  port = server_start(&srv, c_server);
  ok = input && port && (fd = connect_to(port)) >= 0;
  if (ok && (strcmp(state, "server_expecting_request") == 0 ||
             strcmp(state, "server_after_bye") == 0)) {
    uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
    uint8_t payload[PROTO_WORKLOAD_BYTES];
    int after_bye = strcmp(state, "server_after_bye") == 0;
    uint64_t total = w.warmup + w.round_trips;
    uint64_t next = after_bye ? total + 1 : ju64(c, "sequence");
    size_t size = PROTO_HEADER_BYTES + (size_t)w.payload_bytes;

    proto_workload_encode(payload, &w);
    proto_frame_encode(hello, PROTO_HELLO, 0, payload, sizeof payload);
    frame = malloc(size);
    ok = frame && send_bytes(fd, hello, sizeof hello, 0) == 0 &&
         read_exact(fd, hello, sizeof hello) == 0;
    for (uint64_t s = 1; ok && s < next; s++) {
      data_frame(frame, 0, s, w.payload_bytes);
      ok = send_bytes(fd, frame, size, 0) == 0 &&
           read_exact(fd, frame, size) == 0;
    }
    if (ok && after_bye) {
      /* A correct BYE, and its BYE_ACK back. */
      uint8_t bye[PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES];
      uint8_t body[PROTO_COUNTS_BYTES];
      struct proto_counts cnt;
      proto_counts_expected(&w, 0, &cnt);
      proto_counts_encode(body, &cnt);
      proto_frame_encode(bye, PROTO_BYE, total + 1, body, sizeof body);
      ok = send_bytes(fd, bye, sizeof bye, 0) == 0 &&
           read_exact(fd, bye, sizeof bye) == 0 && bye[1] == PROTO_BYE_ACK;
    }
  }
  if (ok) {
    ok = send_bytes(fd, input, input_len, 0) == 0;
    if (jbool(c, "eof"))
      shutdown(fd, SHUT_WR);
    drain(fd);
  }
  if (fd >= 0)
    close(fd);
  if (port)
    procs_wait(one, 1, tap_timeout_s(READY_TIMEOUT_S));
  TAP_OK(ok && proc_exit_code(&srv) > 0 && proc_exit_code(&srv) < 128 &&
             stderr_names(&srv, want),
         "vector %s (%s): c server rejects with %s", name, state, want);
  if (tap_failed != before)
    proc_show(&srv);
  free(input);
  free(frame);
}

/* An invalid.json case against the C client, which this test serves into
 * the case's state. */
static void vector_client_rejects(struct json_object *c)
{
  char *c_client[] = {client_bin, NULL};
  const char *name = jstr(c, "name"), *state = jstr(c, "state");
  const char *want = jstr(c, "rejection");
  struct proto_workload w;
  struct proc cl;
  struct proc *one[1] = {&cl};
  uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
  uint8_t *input, *frame;
  size_t input_len, size;
  uint64_t total, received = 0, answered = 0, next;
  int port = 0, lfd, fd = -1, ok, before = tap_failed;

  workload_of(c, &w);
  total = w.warmup + w.round_trips;
  size = PROTO_HEADER_BYTES + (size_t)w.payload_bytes;
  next = strcmp(state, "client_expecting_bye_ack") == 0    ? total + 1
         : strcmp(state, "client_expecting_response") == 0 ? ju64(c, "sequence")
                                                           : 0;
  input = hex_decode(jstr(c, "input"), &input_len);
  frame = malloc(size > PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES
                     ? size
                     : PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES);
  memset(&cl, 0, sizeof cl);
  lfd = listen_any(&port);
  ok = input && frame && lfd >= 0 && client_start(&cl, c_client, port, &w) == 0;
  ok = ok && (fd = accept_from(lfd, &cl)) >= 0 &&
       read_exact(fd, hello, sizeof hello) == 0;
  if (lfd >= 0)
    close(lfd);
  if (ok && next > 0) {
    /* HELLO_ACK, then RESPONSE 1 .. next-1 each after its request. */
    uint64_t limit, sent_by_then;
    hello[1] = PROTO_HELLO_ACK;
    ok = send_bytes(fd, hello, sizeof hello, 0) == 0;
    while (ok && answered + 1 < next) {
      if (received == answered) {
        ok = read_exact(fd, frame, size) == 0;
        received++;
        continue;
      }
      answered++;
      data_frame(frame, 1, answered, w.payload_bytes);
      ok = send_bytes(fd, frame, size, 0) == 0;
    }
    /* The requests the client has sent in that state, so that the case's
     * input meets exactly it: the window, and the warm-up's end. */
    limit = answered < w.warmup ? w.warmup : total;
    sent_by_then = answered + w.max_in_flight;
    if (sent_by_then > limit)
      sent_by_then = limit;
    while (ok && received < sent_by_then) {
      ok = read_exact(fd, frame, size) == 0;
      received++;
    }
    if (ok && next > total)
      ok = read_exact(fd, frame, PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES) == 0;
  }
  if (ok) {
    ok = send_bytes(fd, input, input_len, 0) == 0;
    if (jbool(c, "eof"))
      shutdown(fd, SHUT_WR);
    drain(fd);
  }
  if (fd >= 0)
    close(fd);
  if (cl.pid > 0)
    procs_wait(one, 1, tap_timeout_s(READY_TIMEOUT_S));
  TAP_OK(ok && proc_exit_code(&cl) > 0 && proc_exit_code(&cl) < 128 &&
             stderr_names(&cl, want) && cl.out.len == 0,
         "vector %s (%s): c client rejects with %s", name, state, want);
  if (tap_failed != before)
    proc_show(&cl);
  free(input);
  free(frame);
}

/* A sessions.json case: the client's bytes to the C server, which must
 * answer exactly the server's bytes and exit 0 at the end of stream. */
static void vector_session_server(struct json_object *c, int bytewise)
{
  char *c_server[] = {server_bin, NULL};
  const char *name = jstr(c, "name");
  struct proc srv;
  struct proc *one[1] = {&srv};
  size_t client_len, server_len;
  uint8_t *client_bytes = hex_decode(jstr(c, "client_bytes"), &client_len);
  uint8_t *server_bytes = hex_decode(jstr(c, "server_bytes"), &server_len);
  uint8_t *got = malloc(server_len + 1);
  int port, fd = -1, ok, before = tap_failed;

  port = server_start(&srv, c_server);
  ok = client_bytes && server_bytes && got && port &&
       (fd = connect_to(port)) >= 0 &&
       send_bytes(fd, client_bytes, client_len, bytewise) == 0 &&
       read_exact(fd, got, server_len) == 0 &&
       memcmp(got, server_bytes, server_len) == 0;
  if (fd >= 0)
    close(fd);
  if (port)
    procs_wait(one, 1, tap_timeout_s(READY_TIMEOUT_S));
  TAP_OK(ok && proc_exit_code(&srv) == 0 && srv.err.len == 0,
         "vector session %s%s: c server answers every byte and exits 0", name,
         bytewise ? " (one byte per write)" : "");
  if (tap_failed != before)
    proc_show(&srv);
  free(client_bytes);
  free(server_bytes);
  free(got);
}

/* A sessions.json case: the server's bytes to the C client, each frame
 * after the request it answers; the client must send exactly the
 * client's bytes, close first and report the case's result. */
static void vector_session_client(struct json_object *c, int bytewise)
{
  char *c_client[] = {client_bin, NULL};
  const char *name = jstr(c, "name");
  struct proto_workload w;
  struct proc cl;
  struct proc *one[1] = {&cl};
  struct json_object *result = NULL;
  size_t client_len, server_len, at = 0, size;
  uint8_t *client_bytes = hex_decode(jstr(c, "client_bytes"), &client_len);
  uint8_t *server_bytes = hex_decode(jstr(c, "server_bytes"), &server_len);
  uint8_t *got = malloc(client_len + 1);
  int port = 0, lfd, fd = -1, ok, before = tap_failed;

  workload_of(c, &w);
  memset(&cl, 0, sizeof cl);
  lfd = listen_any(&port);
  ok = client_bytes && server_bytes && got && client_len == server_len &&
       lfd >= 0 && client_start(&cl, c_client, port, &w) == 0 &&
       (fd = accept_from(lfd, &cl)) >= 0;
  if (lfd >= 0)
    close(lfd);
  /* Both streams are HELLO, W + N data frames, BYE: frame i of the
   * server's answers frame i of the client's, and has its size. */
  for (uint64_t i = 0; ok && at < client_len; i++) {
    size = i == 0 ? PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES
           : at + PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES == client_len
               ? PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES
               : PROTO_HEADER_BYTES + (size_t)w.payload_bytes;
    ok = at + size <= client_len && read_exact(fd, got + at, size) == 0 &&
         memcmp(got + at, client_bytes + at, size) == 0 &&
         send_bytes(fd, server_bytes + at, size, bytewise) == 0;
    at += size;
  }
  if (ok) /* the client closes first */
    ok = recv(fd, got, 1, 0) == 0;
  if (fd >= 0)
    close(fd);
  if (cl.pid > 0)
    procs_wait(one, 1, tap_timeout_s(READY_TIMEOUT_S));
  ok = ok && proc_exit_code(&cl) == 0 && cl.err.len == 0 &&
       result_ok(cl.out.buf, &w, name) &&
       json_object_object_get_ex(c, "result", &result);
  if (ok) {
    struct json_object *o = json_tokener_parse(cl.out.buf);
    static const char *const keys[] = {"frames_sent", "frames_received",
                                       "bytes_sent", "bytes_received"};
    for (size_t k = 0; o && k < sizeof keys / sizeof keys[0]; k++) {
      uint64_t v;
      ok = ok && json_u64(o, keys[k], &v) && v == ju64(result, keys[k]);
    }
    ok = ok && o != NULL;
    if (o)
      json_object_put(o);
  }
  TAP_OK(ok,
         "vector session %s%s: c client sends every byte and reports "
         "the result",
         name, bytewise ? " (one byte per write)" : "");
  if (tap_failed != before)
    proc_show(&cl);
  free(client_bytes);
  free(server_bytes);
  free(got);
}

static struct json_object *vectors_cases(const char *file,
                                         struct json_object **root)
{
  char path[700];
  struct json_object *cases = NULL;

  snprintf(path, sizeof path, "%s/%s", vectors_dir, file);
  *root = json_object_from_file(path);
  if (*root == NULL || !json_object_object_get_ex(*root, "cases", &cases) ||
      !json_object_is_type(cases, json_type_array)) {
    TAP_OK(0, "%s has a cases array", path);
    return NULL;
  }
  return cases;
}

static void tests_vectors(void)
{
  struct json_object *root, *cases;
  const char *root_dir = getenv("CROSSRUN_ROOT");

  snprintf(vectors_dir, sizeof vectors_dir, "%s/protocol/vectors",
           root_dir && *root_dir ? root_dir : ".");

  cases = vectors_cases("invalid.json", &root);
  for (size_t i = 0; cases && i < json_object_array_length(cases); i++) {
    struct json_object *c = json_object_array_get_idx(cases, i);
    const char *state = jstr(c, "state");
    /* "any" is a bare frame parser without a session: the codec's test. */
    if (state && strncmp(state, "server_", 7) == 0)
      vector_server_rejects(c);
    else if (state && strncmp(state, "client_", 7) == 0)
      vector_client_rejects(c);
  }
  json_object_put(root);

  cases = vectors_cases("sessions.json", &root);
  for (size_t i = 0; cases && i < json_object_array_length(cases); i++) {
    struct json_object *c = json_object_array_get_idx(cases, i);
    vector_session_server(c, 0);
    vector_session_server(c, 1);
    vector_session_client(c, 0);
    vector_session_client(c, 1);
  }
  json_object_put(root);
}

int main(void)
{
  static const struct proto_workload self_loads[] = {
      {0, 1, 0, 1},         {10, 1000, 64, 64}, {0, 5, 1048576, 2},
      {0, 10000, 16, 1000}, {0, 3, 1, 1},       {3, 200, 65536, 65536},
  };
  const char *base = getenv("TMPDIR");
  char tmpl[512];

  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, on_fatal_signal);
  signal(SIGTERM, on_fatal_signal);
  signal(SIGHUP, on_fatal_signal);

  snprintf(server_bin, sizeof server_bin, "%s/lanes/c/server", build_dir());
  snprintf(client_bin, sizeof client_bin, "%s/lanes/c/client", build_dir());
  snprintf(fixture_bin, sizeof fixture_bin, "%s/tests/fixture", build_dir());
  if (access(server_bin, X_OK) || access(client_bin, X_OK) ||
      access(fixture_bin, X_OK)) {
    TAP_OK(0, "binaries %s, %s and %s exist (make them first)", server_bin,
           client_bin, fixture_bin);
    return tap_done();
  }
  snprintf(tmpl, sizeof tmpl, "%s/crossrun-lane-c-XXXXXX",
           base && *base ? base : "/tmp");
  if (mkdtemp(tmpl) == NULL) {
    TAP_OK(0, "mkdtemp %s: %s", tmpl, strerror(errno));
    return tap_done();
  }
  snprintf(child_tmp, sizeof child_tmp, "%s", tmpl);
  setenv("TMPDIR", child_tmp, 1);
  setenv("TEMP", child_tmp, 1);
  setenv("TMP", child_tmp, 1);

  for (size_t i = 0; i < sizeof self_loads / sizeof self_loads[0]; i++)
    test_self(&self_loads[i]);
  test_interop(1);
  test_interop(0);
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    test_fault(&faults[i], 1);
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    test_fault(&faults[i], 0);
  tests_usage();
  tests_vectors();

  TAP_OK(tmp_empty() && rmdir(child_tmp) == 0,
         "the children's TMPDIR was left empty");
  return tap_done();
}
