/* Peers as child processes: starting, capturing, polling, waiting with a
 * deadline, killing and reaping, the children's TMPDIR and the signal
 * handlers that clean up (see tests/lib_peers.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib_peers.h"
#include "tests/tap.h"

extern char **environ;

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

double peers_now_s(void)
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

int peers_bin(char *out, size_t outlen, const char *rel)
{
  snprintf(out, outlen, "%s/%s", build_dir(), rel);
  return access(out, X_OK) == 0;
}

int peers_setup(const char *name, char *err, size_t errlen)
{
  const char *base = getenv("TMPDIR");
  char tmpl[512];

  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, on_fatal_signal);
  signal(SIGTERM, on_fatal_signal);
  signal(SIGHUP, on_fatal_signal);

  snprintf(tmpl, sizeof tmpl, "%s/crossrun-%s-XXXXXX",
           base && *base ? base : "/tmp", name);
  if (mkdtemp(tmpl) == NULL) {
    snprintf(err, errlen, "mkdtemp %s: %s", tmpl, strerror(errno));
    return -1;
  }
  snprintf(child_tmp, sizeof child_tmp, "%s", tmpl);
  setenv("TMPDIR", child_tmp, 1);
  setenv("TEMP", child_tmp, 1);
  setenv("TMP", child_tmp, 1);
  return 0;
}

/* Whether the children's TMPDIR is empty; empties it for the next test. */
int peers_tmp_empty(void)
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

int peers_tmp_remove(void)
{
  return peers_tmp_empty() && rmdir(child_tmp) == 0;
}

/* Starts argv[0] with argv in its own process group. Returns 0 or -1. */
int peers_start(struct peers_proc *p, const char *name, char *const argv[])
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
static void capture_read(struct peers_capture *c)
{
  char scratch[4096];

  while (c->fd >= 0) {
    char *dst = c->len < PEERS_CAPTURE_BYTES ? c->buf + c->len : scratch;
    size_t room = c->len < PEERS_CAPTURE_BYTES ? PEERS_CAPTURE_BYTES - c->len
                                               : sizeof scratch;
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

static void proc_reaped(struct peers_proc *p, int status)
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
void peers_kill(struct peers_proc *p)
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
void peers_poll(struct peers_proc **ps, int n)
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
int peers_wait(struct peers_proc **ps, int n, double timeout_s)
{
  double deadline = peers_now_s() + timeout_s;
  int running, killed = 0;

  do {
    running = 0;
    for (int i = 0; i < n; i++)
      running += ps[i]->pid > 0 && !ps[i]->reaped;
    if (running == 0)
      break;
    peers_poll(ps, n);
  } while (peers_now_s() < deadline);
  for (int i = 0; i < n; i++)
    if (ps[i]->pid > 0 && !ps[i]->reaped) {
      peers_kill(ps[i]);
      killed = 1;
    }
  return killed ? -1 : 0;
}

int peers_exit_code(const struct peers_proc *p)
{
  if (!p->reaped || p->killed)
    return -1;
  if (WIFEXITED(p->status))
    return WEXITSTATUS(p->status);
  return 128 + WTERMSIG(p->status);
}

void peers_show(const struct peers_proc *p)
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
