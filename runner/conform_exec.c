/* One conformance case: the peer started as a sample starts it (a fresh
 * temporary directory as TMPDIR, its own process group, the platform's
 * spawn), the scripted peer on one libuv loop with the peer's pipes and a
 * timer for its end and the deadlines, then the checks of a sample (no
 * process left, the temporary directory empty, the server's port free)
 * and the verdict (runner/conform_judge.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/conform_internal.h"
#include "runner/pipe_watch.h"

#define OUT_LIMIT (2 * 262144 + 2)
#define PIPE_DRAIN_GRACE_NS (200 * 1000000ull)
#define PORT_ATTEMPTS 20

void conform_judge(struct conform_run *r);

static uint64_t ms_ns(uint64_t ms)
{
  return ms * 1000000ull;
}

static void on_closed(uv_handle_t *h)
{
  (void)h;
}

static void close_pipe(uv_pipe_t *p, int *open)
{
  if (*open) {
    *open = 0;
    uv_close((uv_handle_t *)p, on_closed);
  }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  struct conform_run *r = h->data;
  buf->base = r->chunk;
  buf->len = sizeof(r->chunk);
}

/* READY <port> on the server's first line (lanes/README.md). */
static void parse_ready(struct conform_run *r)
{
  char line[128];
  size_t len;
  long port = 0;

  if (r->ready || memchr(r->out_cap.buf, '\n', r->out_cap.head_len) == NULL)
    return;
  len = capture_first_line(&r->out_cap, line, sizeof(line));
  if (len > 0 && line[len - 1] == '\r')
    line[--len] = '\0';
  if (len > 6 && len < 12 && strncmp(line, "READY ", 6) == 0 &&
      strspn(line + 6, "0123456789") == len - 6)
    port = strtol(line + 6, NULL, 10);
  if (port <= 0 || port > 65535) {
    conform_wire_fault(r, "printed '%.60s' instead of 'READY <port>'", line);
    return;
  }
  r->ready = 1;
  r->port = (int)port;
  r->out->port_checked = 1;
  if (conform_wire_connect(r) != 0)
    conform_wire_close(r);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  struct conform_run *r = s->data;
  int is_out = s == (uv_stream_t *)&r->out_pipe;

  if (n > 0) {
    capture_append(is_out ? &r->out_cap : &r->err_cap, buf->base, (size_t)n);
    if (is_out && r->c->role == CONFORM_SERVER && r->fault[0] == '\0')
      parse_ready(r);
    return;
  }
  if (n < 0)
    close_pipe((uv_pipe_t *)s, is_out ? &r->out_open : &r->err_open);
}

static void endpoint(char *out, size_t len, const char *host, int port)
{
  int v6 = strchr(host, ':') != NULL;
  snprintf(out, len, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

/* arg with "{addr}" replaced by addr, in buf. */
static const char *with_addr(char *buf, size_t len, const char *arg,
                             const char *addr)
{
  const char *at = strstr(arg, "{addr}");

  if (at == NULL)
    return arg;
  snprintf(buf, len, "%.*s%s%s", (int)(at - arg), arg, addr, at + 6);
  return buf;
}

static int spawn_peer(struct conform_run *r)
{
  const struct conform_target *t = r->t;
  const struct proto_workload *w = &r->c->w;
  const char *const *base =
      r->c->role == CONFORM_SERVER ? t->server_argv : t->client_argv;
  const char *argv[MODEL_ARGV_MAX];
  char addr[96], num[4][24];
  struct platform_spawn_opts opts = {argv, r->env, t->cwd, 1};
  int n = 0, rc;

  for (; base[n] != NULL && n < MODEL_ARGV_MAX - 12; n++)
    argv[n] = base[n];
  if (r->c->args != NULL) {
    endpoint(addr, sizeof(addr), t->host,
             r->c->role == CONFORM_SERVER ? 0 : r->port);
    for (int i = 0; r->c->args[i] != NULL && n < MODEL_ARGV_MAX - 1 &&
                    i < CONFORM_ARGS_MAX;
         i++)
      argv[n++] = with_addr(r->args_buf[i], sizeof(r->args_buf[i]),
                            r->c->args[i], addr);
  } else if (r->c->role == CONFORM_SERVER) {
    endpoint(addr, sizeof(addr), t->host, 0);
    argv[n++] = "--listen";
    argv[n++] = addr;
  } else {
    endpoint(addr, sizeof(addr), t->host, r->port);
    snprintf(num[0], sizeof(num[0]), "%" PRIu64, w->warmup);
    snprintf(num[1], sizeof(num[1]), "%" PRIu64, w->round_trips);
    snprintf(num[2], sizeof(num[2]), "%" PRIu32, w->payload_bytes);
    snprintf(num[3], sizeof(num[3]), "%" PRIu32, w->max_in_flight);
    argv[n++] = "--connect";
    argv[n++] = addr;
    argv[n++] = "--warmup";
    argv[n++] = num[0];
    argv[n++] = "--round-trips";
    argv[n++] = num[1];
    argv[n++] = "--payload-bytes";
    argv[n++] = num[2];
    argv[n++] = "--max-in-flight";
    argv[n++] = num[3];
  }
  argv[n] = NULL;
  r->started_ns = uv_hrtime();
  rc =
      platform_spawn(&opts, &r->proc, r->runner_error, sizeof(r->runner_error));
  if (rc != 0)
    return rc;
  r->spawned = r->running = 1;
  rc = pipe_watch(&r->loop, &r->out_pipe, r->proc.stdout_fd, r, on_alloc,
                  on_read, &r->out_open);
  if (pipe_watch(&r->loop, &r->err_pipe, r->proc.stderr_fd, r, on_alloc,
                 on_read, &r->err_open) != 0 ||
      rc != 0) {
    snprintf(r->runner_error, sizeof(r->runner_error),
             "cannot watch the peer's output");
    platform_terminate(&r->proc, 1);
    return -1;
  }
  r->deadline_ns = r->started_ns + ms_ns(t->limits.ready_timeout_ms);
  return 0;
}

static void terminate(struct conform_run *r, uint64_t now)
{
  if (!r->running || r->term_stage != 0)
    return;
  platform_terminate(&r->proc, 0);
  r->term_stage = 1;
  r->term_next_ns = now + ms_ns(r->t->limits.kill_grace_ms);
}

static void reap(struct conform_run *r, uint64_t now)
{
  char err[128];

  if (!r->running || platform_try_reap(&r->proc, &r->ex, err, sizeof(err)) != 1)
    return;
  r->running = 0;
  r->reaped = 1;
  r->reaped_ns = now;
  r->out->wall_ns = now - r->started_ns;
  r->out->exited = r->ex.exited;
  r->out->exit_code = r->ex.exit_code;
  r->out->signal = r->ex.signal;
  if (r->listener_open) {
    r->listener_open = 0;
    uv_close((uv_handle_t *)&r->listener, on_closed);
  }
  if (r->phase == CONFORM_PHASE_PREFIX && r->c->role == CONFORM_CLIENT &&
      !r->connected && r->c->state != CONFORM_COMMAND_LINE)
    conform_wire_fault(r, "exited before it connected");
}

static void close_all(struct conform_run *r);

static void on_tick(uv_timer_t *t)
{
  struct conform_run *r = t->data;
  uint64_t now = uv_hrtime();

  if (r->finished)
    return;
  reap(r, now);
  if (r->t->stop != NULL && *r->t->stop && r->running) {
    snprintf(r->runner_error, sizeof(r->runner_error), "interrupted");
    r->term_next_ns = now;
    terminate(r, now);
  }
  if (r->running && now >= r->deadline_ns && r->term_stage == 0) {
    r->out->timed_out = 1;
    terminate(r, now);
  }
  if (r->term_stage == 1 && now >= r->term_next_ns && r->running) {
    platform_terminate(&r->proc, 1);
    r->term_stage = 2;
  }
  if (r->running)
    return;
  /* Its socket closed with it: the end of the connection is read at once,
   * and a second at most is given to what was still on its way. */
  if (r->conn_open && !r->peer_closed && now - r->reaped_ns < ms_ns(1000))
    return;
  if ((r->out_open || r->err_open) && now - r->reaped_ns < PIPE_DRAIN_GRACE_NS)
    return;
  close_all(r);
}

/* No process left, the temporary directory empty, the server's port
 * bound again: a sample's hygiene checks. */
static void check_cleanup(struct conform_run *r)
{
  struct model_orphans orphans;
  struct model_tree tree;
  struct model_leftovers left;
  long group = r->proc.group;
  char err[200];

  if (platform_collect_orphans(&group, 1, &orphans, err, sizeof(err)) == 0)
    r->out->orphans = orphans.count;
  platform_proc_settle(&r->proc, &r->ex, &tree,
                       r->t->limits.kill_grace_ms + 1000);
  memset(&left, 0, sizeof(left));
  if (tempdir_scan(&r->tmp, &left, err, sizeof(err)) == 0)
    r->out->temp_entries_left = left.count;
  else
    r->out->temp_entries_left = 1;
  if (r->c->role == CONFORM_SERVER && r->ready) {
    struct platform_closers cl;
    for (int i = 0; i < PORT_ATTEMPTS; i++) {
      int rc = platform_port_free(r->t->host, r->port, err, sizeof(err));
      r->out->port_free = rc == 1;
      if (rc != 0)
        break;
      uv_sleep(5);
    }
    /* A server that rejects closes first, and its end of the connection
     * may wait in TIME_WAIT (both ends closing at once leave it on both):
     * the TCP state holds the port then, no process does. */
    if (!r->out->port_free &&
        platform_port_closers(r->t->host, r->port, &cl, err, sizeof(err)) ==
            0 &&
        cl.count > 0 && r->c->rejection != NULL)
      r->out->port_free = 1;
  }
}

static void describe(const struct conform_case *c, struct conform_outcome *o)
{
  static const char *const states[] = {"start", "at_sequence", "after_bye",
                                       "whole_session", "command_line"};
  static const char *const ends[] = {"none", "eof", "reset"};

  snprintf(o->role, sizeof(o->role), "%s",
           c->role == CONFORM_SERVER ? "server" : "client");
  snprintf(o->name, sizeof(o->name), "%s", c->name);
  if (c->state == CONFORM_AT_SEQUENCE)
    snprintf(o->state, sizeof(o->state), "at_sequence %" PRIu64, c->sequence);
  else
    snprintf(o->state, sizeof(o->state), "%s", states[c->state]);
  snprintf(o->source, sizeof(o->source), "%s", c->source ? c->source : "table");
  snprintf(o->description, sizeof(o->description), "%s", c->description);
  o->expect_pass = c->rejection == NULL && c->state != CONFORM_COMMAND_LINE;
  o->expect_usage = c->state == CONFORM_COMMAND_LINE;
  snprintf(o->rejection, sizeof(o->rejection), "%s",
           c->rejection ? c->rejection : "");
  o->error_rule = c->error_rule;
  o->error_code = c->error_code;
  snprintf(o->end, sizeof(o->end), "%s", ends[c->end]);
}

static int setup(struct conform_run *r, char *err, size_t errlen)
{
  int rc = tempdir_create(&r->tmp, err, errlen);

  if (rc != 0)
    return rc;
  for (int i = 0; i < 3; i++) {
    static const char *const names[] = {"TMPDIR", "TEMP", "TMP"};
    snprintf(r->env_buf[i], sizeof(r->env_buf[i]), "%s=%s", names[i],
             r->tmp.path);
    r->env[i] = r->env_buf[i];
  }
  r->env[3] = NULL;
  if (capture_alloc(&r->out_cap, OUT_LIMIT) ||
      capture_alloc(&r->err_cap, r->t->limits.stderr_limit)) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  rc = uv_loop_init(&r->loop);
  if (rc != 0) {
    snprintf(err, errlen, "cannot start an event loop: %s", uv_strerror(rc));
    return rc;
  }
  uv_timer_init(&r->loop, &r->tick);
  r->tick.data = r;
  if (conform_wire_init(r) != 0) {
    snprintf(err, errlen, "%s", r->runner_error);
    return -1;
  }
  return 0;
}

static void close_all(struct conform_run *r)
{
  r->finished = 1;
  conform_wire_close(r);
  close_pipe(&r->out_pipe, &r->out_open);
  close_pipe(&r->err_pipe, &r->err_open);
  if (r->tick.loop != NULL)
    uv_close((uv_handle_t *)&r->tick, on_closed);
  if (r->trickle.loop != NULL)
    uv_close((uv_handle_t *)&r->trickle, on_closed);
}

int conform_exec(const struct conform_target *target,
                 const struct conform_case *c, struct conform_outcome *out,
                 char *err, size_t errlen)
{
  struct conform_run *r = calloc(1, sizeof(*r));
  int rc = -1;

  memset(out, 0, sizeof(*out));
  describe(c, out);
  if (r == NULL) {
    out->verdict = CONFORM_ERROR;
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  r->t = target;
  r->c = c;
  r->out = out;
  if (setup(r, err, errlen) != 0)
    ;
  else if (c->role == CONFORM_CLIENT && conform_wire_listen(r) != 0)
    snprintf(err, errlen, "%s", r->runner_error);
  else if (spawn_peer(r) != 0)
    snprintf(err, errlen, "%s", r->runner_error);
  else
    rc = 0;
  if (r->tick.loop != NULL) {
    if (rc == 0)
      uv_timer_start(&r->tick, on_tick, 0, target->limits.tick_ms);
    else
      close_all(r);
    uv_run(&r->loop, UV_RUN_DEFAULT);
    uv_loop_close(&r->loop);
  }
  if (r->spawned)
    check_cleanup(r);
  if (r->runner_error[0] != '\0' && rc == 0) {
    snprintf(err, errlen, "%s", r->runner_error);
    rc = -1;
  }
  if (rc == 0) {
    conform_judge(r);
  } else {
    out->verdict = CONFORM_ERROR;
    snprintf(out->reason, sizeof(out->reason), "%s", err);
  }
  if (r->tmp.path[0] != '\0') {
    char rm[256];
    if (tempdir_remove(&r->tmp, rm, sizeof(rm)) != 0 && rc == 0) {
      out->verdict = CONFORM_FAILED;
      snprintf(out->reason, sizeof(out->reason), "%s", rm);
    }
  }
  platform_proc_release(&r->proc);
  capture_release(&r->out_cap);
  capture_release(&r->err_cap);
  free(r->rx);
  free(r->tx);
  free(r);
  return rc;
}
