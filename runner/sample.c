/* The sample executor: starts the peers, watches them on one libuv loop
 * (their pipes, and a timer that samples memory, reaps and enforces
 * deadlines), then runs the after-the-fact checks. Each sample has its own
 * loop so that nothing of one sample can leak into the next. */
#include "runner/sample.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/model/capture.h"
#include "platforms/platform.h"
#include "runner/closers.h"
#include "runner/pipe_watch.h"
#include "runner/result.h"
#include "runner/tempdir.h"
#include "runner/tls_material.h"
#include "runner/verdict.h"

/* Its head holds the READY line and a whole result line after it. */
#define STDOUT_SERVER_LIMIT (2 * (RESULT_SERVER_LINE_MAX + 1024))
#define STDOUT_CLIENT_LIMIT (2 * RESULT_LINE_MAX + 2)
#define READ_CHUNK 65536
#define PIPE_DRAIN_GRACE_NS (200 * 1000000ull)
#define PORT_ATTEMPTS 20

struct sample_exec;

struct peer {
  struct sample_exec *x;
  struct model_peer *rep;
  struct capture out; /* stdout */
  struct platform_proc proc;
  struct platform_exit ex; /* as reaped, then as settled */
  int running;
  uv_poll_t event; /* proc.event_fd: its end, told at once */
  int event_open;
  uv_pipe_t out_pipe, err_pipe;
  int out_open, err_open;
  uint64_t started_ns;
  uint64_t deadline_ns; /* READY (server) or exit (client) */
  /* When the executor saw its faults and its end (verdict.h), 0 for not
   * yet: the verdict takes the earliest fault as the reason. */
  uint64_t end_ns, timeout_ns, terminated_ns;
  /* When its stderr first carried a byte: a peer prints its rejection
   * before it exits, and its exit can come much later (an exit handler, a
   * sanitizer's leak check) than the other peer's reaction to it. */
  uint64_t said_ns;
  uint64_t exit_deadline_ns; /* server: exit after the client ended */
  int term_stage;            /* 0 none, 1 SIGTERM sent, 2 SIGKILL sent */
  uint64_t term_next_ns;
};

struct sample_exec {
  uv_loop_t loop;
  uv_timer_t tick;
  const struct sample_spec *spec;
  struct model_sample *res;
  struct peer server, client;
  struct tempdir tmp;
  /* Over tls: the material's own folder, beside tmp rather than in it, so
   * that tmp is still the peers' own and must be left empty. */
  struct tempdir tls_dir;
  struct tls_material tls;
  const char *env[4];
  char env_buf[3][TEMPDIR_PATH_MAX + 8];
  char num[5][32];
  char endpoint[96];
  int ready;        /* READY parsed */
  int ready_failed; /* no READY: the reason is in ready_msg */
  char ready_msg[256];
  size_t ready_line_bytes;  /* the READY line with its newline */
  size_t result_line_bytes; /* the server's result line, with its newline */
  int stdout_extra;         /* the server wrote more: what, in stdout_msg */
  uint64_t stdout_extra_ns;
  struct closers_watch closers;
  int server_closed_first;
  char stdout_msg[160];
  int interrupted;
  int spawn_failed;
  char spawn_msg[256];
  uint64_t start_ns;
  uint64_t all_reaped_ns;
  int finished; /* the loop's handles are closed or closing */
  uint64_t tick_ms;
  char chunk[READ_CHUNK];
};

static uint64_t ms_ns(uint64_t ms)
{
  return ms * 1000000ull;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  struct peer *p = h->data;
  buf->base = p->x->chunk;
  buf->len = sizeof(p->x->chunk);
}

static void close_pipe(uv_pipe_t *pipe, int *open)
{
  if (*open) {
    *open = 0;
    uv_close((uv_handle_t *)pipe, NULL);
  }
}

static void parse_ready(struct sample_exec *x)
{
  struct peer *s = &x->server;
  char line[128];
  char *end;
  size_t len;
  long port;

  if (x->ready || x->ready_failed)
    return;
  if (memchr(s->out.buf, '\n', s->out.head_len) == NULL) {
    if (s->out.head_len >= s->out.limit / 2) {
      x->ready_failed = 1;
      snprintf(x->ready_msg, sizeof(x->ready_msg),
               "server printed %zu bytes without a READY line",
               s->out.head_len);
    }
    return;
  }
  len = capture_first_line(&s->out, line, sizeof(line));
  /* Digits only: strtol alone would take " +80", and a NUL byte would end
   * the line early ("READY 80\0anything"). */
  if (len > 6 && strncmp(line, "READY ", 6) == 0 &&
      strspn(line + 6, "0123456789") == len - 6) {
    errno = 0;
    port = strtol(line + 6, &end, 10);
    if (errno == 0 && port > 0 && port < 65536) {
      x->ready = 1;
      x->res->port = (int)port;
      x->res->ready_ns = uv_hrtime() - s->started_ns;
      closers_baseline(&x->closers, x->spec->ports, x->spec->host, x->res->port,
                       uv_hrtime());
      x->ready_line_bytes =
          (size_t)((char *)memchr(s->out.buf, '\n', s->out.head_len) -
                   s->out.buf) +
          1;
      return;
    }
  }
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)line[i] < 0x20)
      line[i] = '?'; /* shown, not cutting the message short */
  x->ready_failed = 1;
  snprintf(x->ready_msg, sizeof(x->ready_msg),
           "server printed '%.60s' instead of 'READY <port>'", line);
}

static void stdout_fault(struct sample_exec *x, size_t from, const char *after,
                         const char *why)
{
  const struct capture *out = &x->server.out;
  uint64_t extra = x->server.rep->stdout_bytes - from;
  char shown[48];
  size_t n = 0;

  for (size_t i = from; i < out->head_len && n + 1 < sizeof(shown) && n < 40;
       i++) {
    unsigned char ch = (unsigned char)out->buf[i];
    shown[n++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
  }
  shown[n] = '\0';
  x->stdout_extra = 1;
  x->stdout_extra_ns = uv_hrtime();
  snprintf(x->stdout_msg, sizeof(x->stdout_msg),
           "%" PRIu64 " more byte%s on stdout after the %s line: '%s'%s", extra,
           extra == 1 ? "" : "s", after, shown, why);
}

/* lanes/README.md: a server's whole stdout is its READY line and, after
 * the session, one line holding one JSON object. Anything else fails the
 * sample when it is seen: a second line that is not an object or is too
 * long when its bytes arrive, a third line at its first byte, text without
 * a newline at the end of the stream (at_end). Both lines lie in the
 * capture's head, so the bytes after them are there too. */
static void check_server_stdout(struct sample_exec *x, int at_end)
{
  const struct capture *out = &x->server.out;
  uint64_t total = x->server.rep->stdout_bytes;
  size_t from = x->ready_line_bytes;

  if (!x->ready || x->stdout_extra || total <= from)
    return;
  if (x->result_line_bytes == 0) {
    const char *line = out->buf + from;
    const char *nl = memchr(line, '\n', out->head_len - from);
    if (nl == NULL) {
      char why[48];
      snprintf(why, sizeof(why), " (a second line over %d bytes)",
               RESULT_SERVER_LINE_MAX);
      if (total - from > RESULT_SERVER_LINE_MAX)
        stdout_fault(x, from, "READY", why);
      else if (at_end)
        stdout_fault(x, from, "READY", " (no newline at the end)");
      return;
    }
    if (!result_is_json_object(line, (size_t)(nl - line))) {
      stdout_fault(x, from, "READY", " (not one JSON object)");
      return;
    }
    x->result_line_bytes = (size_t)(nl - line) + 1;
  }
  if (total > from + x->result_line_bytes)
    stdout_fault(x, from + x->result_line_bytes, "server's result", "");
}

static void sample_memory(struct peer *p);
static void step(struct sample_exec *x);

static void on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
  struct peer *p = stream->data;
  int is_out = stream == (uv_stream_t *)&p->out_pipe;
  int was_ready = p->x->ready;

  /* Output comes at the moments that matter (READY, the result line just
   * before the client exits, a last message before a failure): a reading
   * of both peers then catches peaks that a short-lived peer would reach
   * between two ticks. */
  sample_memory(&p->x->server);
  sample_memory(&p->x->client);

  if (n > 0) {
    if (is_out) {
      capture_append(&p->out, buf->base, (size_t)n);
      p->rep->stdout_bytes += (uint64_t)n;
      if (p == &p->x->server) {
        parse_ready(p->x);
        check_server_stdout(p->x, 0);
        if (p->x->ready && !was_ready)
          step(p->x); /* the client starts now, not at the next tick */
      }
    } else {
      if (p->said_ns == 0)
        p->said_ns = uv_hrtime();
      capture_append(&p->rep->err, buf->base, (size_t)n);
    }
    return;
  }
  if (n < 0) {
    if (is_out && p == &p->x->server)
      check_server_stdout(p->x, 1);
    close_pipe((uv_pipe_t *)stream, is_out ? &p->out_open : &p->err_open);
    step(p->x);
  }
}

static void on_event(uv_poll_t *h, int status, int events)
{
  struct peer *p = h->data;
  step(p->x);
}

static void close_event(struct peer *p)
{
  if (p->event_open) {
    p->event_open = 0;
    uv_close((uv_handle_t *)&p->event, NULL);
  }
}

static void record_argv(struct model_peer *rep, const char *const *argv)
{
  rep->argc = 0;
  for (int i = 0; argv[i] != NULL && i < MODEL_ARGV_MAX; i++) {
    snprintf(rep->argv[i], sizeof(rep->argv[i]), "%s", argv[i]);
    rep->argc++;
  }
}

static int start_peer(struct sample_exec *x, struct peer *p,
                      const char *const *argv)
{
  struct platform_spawn_opts opts = {
      argv, x->env, p == &x->server ? x->spec->server_cwd : x->spec->client_cwd,
      1};
  char err[256];
  int rc;

  record_argv(p->rep, argv);
  /* Taken before the spawn, so that wall_ns bounds everything the peer
   * can have timed: the client's elapsed_ns is checked against it. */
  p->started_ns = uv_hrtime();
  rc = platform_spawn(&opts, &p->proc, err, sizeof(err));
  if (rc != 0) {
    x->spawn_failed = 1;
    snprintf(x->spawn_msg, sizeof(x->spawn_msg), "%s", err);
    return rc;
  }
  p->running = 1;
  p->rep->started = 1;
  p->rep->pid = p->proc.pid;
  p->rep->spawner_peak_rss_bytes = p->proc.spawner_peak_rss_bytes;
  /* Both descriptors are handed over, whatever becomes of the first. */
  rc = pipe_watch(&x->loop, &p->out_pipe, p->proc.stdout_fd, p, on_alloc,
                  on_read, &p->out_open);
  if (pipe_watch(&x->loop, &p->err_pipe, p->proc.stderr_fd, p, on_alloc,
                 on_read, &p->err_open) != 0 ||
      rc != 0) {
    /* Without its pipes the peer cannot be judged: stop it. */
    x->spawn_failed = 1;
    snprintf(x->spawn_msg, sizeof(x->spawn_msg),
             "cannot watch the output of '%s'", argv[0]);
    platform_terminate(&p->proc, 1);
    p->rep->forced = 1;
    return -1;
  }
  if (p->proc.event_fd >= 0 &&
      uv_poll_init(&x->loop, &p->event, p->proc.event_fd) == 0) {
    p->event.data = p;
    p->event_open = 1;
    if (uv_poll_start(&p->event, UV_READABLE | UV_DISCONNECT, on_event) != 0)
      close_event(p);
  }
  if (!p->event_open && x->tick_ms != x->spec->limits.tick_ms) {
    /* Its end is seen only by polling: at the fast period. */
    x->tick_ms = x->spec->limits.tick_ms;
    uv_timer_set_repeat(&x->tick, x->tick_ms);
    uv_timer_again(&x->tick);
  }
  return 0;
}

static int build_argv(const char *const *base, const char **out, int cap,
                      const char *const *extra)
{
  int n = 0;
  for (; base[n] != NULL; n++) {
    if (n >= cap - 1)
      return -1;
    out[n] = base[n];
  }
  for (int i = 0; extra[i] != NULL; i++) {
    if (n >= cap - 1)
      return -1;
    out[n++] = extra[i];
  }
  out[n] = NULL;
  return 0;
}

/* host:port as a peer gets it (lanes/README.md): an IPv6 host in
 * brackets, "[::1]:0", so that the port stays apart from the address. */
static void endpoint_text(char *out, size_t len, const char *host, int port)
{
  int v6 = strchr(host, ':') != NULL;
  snprintf(out, len, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

static void start_client(struct sample_exec *x)
{
  const struct proto_workload *w = &x->spec->workload;
  const char *argv[MODEL_ARGV_MAX];

  endpoint_text(x->endpoint, sizeof(x->endpoint), x->spec->host, x->res->port);
  snprintf(x->num[0], sizeof(x->num[0]), "%" PRIu64, w->warmup);
  snprintf(x->num[1], sizeof(x->num[1]), "%" PRIu64, w->round_trips);
  snprintf(x->num[2], sizeof(x->num[2]), "%" PRIu32, w->payload_bytes);
  snprintf(x->num[3], sizeof(x->num[3]), "%" PRIu32, w->max_in_flight);
  const char *extra[] = {"--connect",
                         x->endpoint,
                         "--warmup",
                         x->num[0],
                         "--round-trips",
                         x->num[1],
                         "--payload-bytes",
                         x->num[2],
                         "--max-in-flight",
                         x->num[3],
                         x->spec->tls ? "--transport" : NULL,
                         "tls",
                         "--ca",
                         x->tls.ca,
                         NULL};
  if (build_argv(x->spec->client_argv, argv, MODEL_ARGV_MAX, extra) != 0) {
    x->spawn_failed = 1;
    snprintf(x->spawn_msg, sizeof(x->spawn_msg), "client argv too long");
    return;
  }
  if (start_peer(x, &x->client, argv) == 0)
    x->client.deadline_ns =
        x->client.started_ns + ms_ns(x->spec->limits.client_timeout_ms);
}

/* A server whose tracked process exited while its tree still runs, before
 * READY: a daemonizing server whose child is still starting. It is waited
 * for as if it ran, under the same READY deadline. */
static int server_tree_starting(struct sample_exec *x)
{
  struct peer *s = &x->server;
  return !x->ready && !x->ready_failed && !s->running && s->rep->reaped &&
         platform_tree_running(&s->proc);
}

/* Whether p, or (before READY) the server's tree, can still be signalled. */
static int signallable(struct peer *p)
{
  struct sample_exec *x = p->x;
  return p->running || (p == &x->server && !x->ready && p->rep->reaped &&
                        platform_tree_running(&p->proc));
}

static void terminate(struct sample_exec *x, struct peer *p, uint64_t now)
{
  if (!signallable(p) || p->term_stage != 0)
    return;
  platform_terminate(&p->proc, 0);
  p->rep->forced = 1;
  p->term_stage = 1;
  p->terminated_ns = now;
  p->term_next_ns = now + ms_ns(x->spec->limits.kill_grace_ms);
}

static void escalate(struct peer *p, uint64_t now)
{
  if (p->term_stage == 1 && now >= p->term_next_ns && signallable(p)) {
    platform_terminate(&p->proc, 1);
    p->term_stage = 2;
  }
}

static void sample_memory(struct peer *p)
{
  struct platform_memory mem;
  struct model_peer *r = p->rep;

  if (!p->running || platform_sample_memory(&p->proc, &mem) != 0)
    return;
  r->memory_samples++;
  if (mem.peak_rss_bytes > r->sampled_peak_rss_bytes)
    r->sampled_peak_rss_bytes = mem.peak_rss_bytes;
  if (mem.rss_bytes > r->sampled_rss_max_bytes)
    r->sampled_rss_max_bytes = mem.rss_bytes;
}

/* The CPU and memory figures of a reaped peer from p->ex: at its reap, and
 * again once its tree has settled (platform_proc_settle). */
static void record_figures(struct peer *p)
{
  const struct platform_exit *ex = &p->ex;
  struct model_peer *r = p->rep;

  r->user_cpu_ns = ex->user_cpu_ns;
  r->system_cpu_ns = ex->system_cpu_ns;
  r->cpu_covers_tree = ex->cpu_covers_tree;
  r->exited_before_its_tree = ex->exited_before_its_tree;
  r->os_peak_rss_bytes = ex->os_peak_rss_bytes;
  r->exit_peak_rss_bytes = p->proc.exit_peak_rss_bytes;
  snprintf(r->memory_label, sizeof(r->memory_label), "%s", ex->label);
  if (ex->exact_peak_rss_bytes >= 0) {
    /* The OS's own figure, as it gave it. Readings taken while the peer
     * ran can differ from it by a few pages (the kernel sums its RSS
     * counters lazily); they stay beside it in the evidence. */
    r->peak_rss_bytes = ex->exact_peak_rss_bytes;
    r->peak_rss_source = ex->peak_source ? ex->peak_source
                         : p->proc.exit_peak_rss_bytes > 0
                             ? "exit_accounting_peak"
                             : "os_lifetime_peak";
    r->memory_covers = ex->memory_covers_tree ? "tree" : "process";
  } else if (r->sampled_peak_rss_bytes >= 0) {
    r->peak_rss_bytes = r->sampled_peak_rss_bytes;
    r->peak_rss_source = "sampled_peak_since_exec";
    r->memory_covers = "process";
  }
  if (r->memory_label[0] == '\0' && r->peak_rss_source != NULL)
    snprintf(r->memory_label, sizeof(r->memory_label), "%s",
             ex->exact_peak_rss_bytes >= 0 ? "exact, the peer alone"
                                           : "sampled lower bound");
}

/* After the orphans are collected: the rest of each peer's tree has ended
 * (or been killed), and its figures cover it. */
static void settle_peer(struct peer *p)
{
  if (!p->rep->reaped)
    return;
  platform_proc_settle(&p->proc, &p->ex, &p->rep->tree,
                       p->x->spec->limits.kill_grace_ms + 1000);
  record_figures(p);
}

static void watch_peer(struct peer *p, uint64_t now)
{
  struct platform_exit ex;
  struct model_peer *r = p->rep;
  char err[128];

  if (!p->running)
    return;
  sample_memory(p);
  if (platform_try_reap(&p->proc, &ex, err, sizeof(err)) != 1)
    return;
  p->running = 0;
  close_event(p);
  r->reaped = 1;
  p->end_ns = now;
  if (p == &p->x->server && p->x->ready)
    closers_note(&p->x->closers, p->x->spec->host, p->x->res->port, now);
  r->wall_ns = now - p->started_ns;
  r->exited = ex.exited;
  r->exit_code = ex.exit_code;
  r->signal = ex.signal;
  snprintf(r->signal_name, sizeof(r->signal_name), "%s",
           ex.signal ? platform_signal_name(ex.signal) : "");
  p->ex = ex;
  record_figures(p);
}

static void server_ended_before_ready(struct sample_exec *x)
{
  const struct model_peer *r = x->server.rep;
  char line[160];

  capture_first_line(&r->err, line, sizeof(line));
  x->ready_failed = 1;
  if (r->exited)
    snprintf(x->ready_msg, sizeof(x->ready_msg),
             "server exited with %d before READY%s%s", r->exit_code,
             line[0] ? ": " : "", line);
  else
    snprintf(x->ready_msg, sizeof(x->ready_msg),
             "server died by %s before READY%s%s",
             platform_signal_name(r->signal), line[0] ? ": " : "", line);
}

static void finish_if_done(struct sample_exec *x, uint64_t now)
{
  if (x->server.running || x->client.running || server_tree_starting(x))
    return;
  if (x->all_reaped_ns == 0)
    x->all_reaped_ns = now;
  /* A descendant that escaped may still hold the pipes open; they are
   * drained for a moment, then closed regardless. */
  if ((x->server.out_open || x->server.err_open || x->client.out_open ||
       x->client.err_open) &&
      now - x->all_reaped_ns < PIPE_DRAIN_GRACE_NS)
    return;
  check_server_stdout(x, 1);
  close_pipe(&x->server.out_pipe, &x->server.out_open);
  close_pipe(&x->server.err_pipe, &x->server.err_open);
  close_pipe(&x->client.out_pipe, &x->client.out_open);
  close_pipe(&x->client.err_pipe, &x->client.err_open);
  if (!x->ready && !x->ready_failed && x->server.rep->started)
    server_ended_before_ready(x);
  close_event(&x->server);
  close_event(&x->client);
  x->finished = 1;
  uv_timer_stop(&x->tick);
  uv_close((uv_handle_t *)&x->tick, NULL);
}

/* Everything the executor decides, on the timer and at once on the events
 * that matter (a peer's end, READY, a pipe's end). */
static void step(struct sample_exec *x)
{
  struct peer *s = &x->server, *c = &x->client;
  uint64_t now = uv_hrtime();

  if (x->finished)
    return;
  watch_peer(s, now);
  watch_peer(c, now);
  if (x->spec->stop != NULL && *x->spec->stop && !x->interrupted) {
    x->interrupted = 1;
    terminate(x, s, now);
    terminate(x, c, now);
    s->term_next_ns = c->term_next_ns = now; /* no grace: kill now */
  }
  /* A server that ended without READY is judged once its stdout is at its
   * end: a READY it printed just before exiting is still read first; and
   * its stderr too, whose last message (why it ended) can come in the same
   * turn of the loop as the end that is now told at once. A descendant
   * holding either open is waited for by finish_if_done's grace. */
  if (!x->ready && !x->ready_failed) {
    if (!s->running && s->rep->started && !s->out_open && !s->err_open)
      server_ended_before_ready(x);
    else if ((s->running || server_tree_starting(x)) && now >= s->deadline_ns) {
      x->ready_failed = 1;
      s->rep->timed_out = 1;
      s->timeout_ns = now;
      snprintf(x->ready_msg, sizeof(x->ready_msg),
               "no READY line within %" PRIu64 " ms",
               x->spec->limits.ready_timeout_ms);
    }
  }
  if (x->ready_failed || x->spawn_failed)
    terminate(x, s, now);
  if (x->ready && !c->rep->started && !x->spawn_failed && !x->interrupted)
    start_client(x);
  if (c->running && now >= c->deadline_ns) {
    c->rep->timed_out = 1;
    if (c->timeout_ns == 0)
      c->timeout_ns = now;
    terminate(x, c, now);
  }
  /* The server has until exit_timeout after the client ended. */
  if (c->rep->started && !c->running && s->running) {
    if (s->exit_deadline_ns == 0)
      s->exit_deadline_ns = now + ms_ns(x->spec->limits.exit_timeout_ms);
    if (now >= s->exit_deadline_ns && s->term_stage == 0) {
      s->rep->timed_out = 1;
      s->timeout_ns = now;
      terminate(x, s, now);
    }
  }
  escalate(s, now);
  escalate(c, now);
  finish_if_done(x, now);
}

static void on_tick(uv_timer_t *t)
{
  step(t->data);
}

static void init_report(struct model_peer *r)
{
  memset(r, 0, sizeof(*r));
  r->user_cpu_ns = r->system_cpu_ns = -1;
  r->peak_rss_bytes = r->os_peak_rss_bytes = r->exit_peak_rss_bytes = -1;
  r->spawner_peak_rss_bytes = r->sampled_peak_rss_bytes = -1;
  r->sampled_rss_max_bytes = -1;
}

static int check_port(struct sample_exec *x)
{
  struct model_check_outcome *c = &x->res->checks[MODEL_CHECK_PORT_FREE];
  char err[200] = "";
  int rc = 0;

  if (x->res->port <= 0)
    return 0;
  c->ran = 1;
  closers_note(&x->closers, x->spec->host, x->res->port, uv_hrtime());
  if (closers_describe(&x->closers, x->spec->host, x->res->port, c->reason,
                       sizeof(c->reason))) {
    /* Its TIME_WAIT would fail the bind too, or a reset from the client
     * may have cleared it: the states say why, whatever the timing. */
    x->server_closed_first = 1;
    c->passed = 0;
    return 0;
  }
  /* The server's side of the connection may need a moment to leave
   * LAST_ACK after the client's FIN; a socket left in TIME_WAIT or held
   * by a process does not go away within these 100 ms. */
  for (int i = 0; i < PORT_ATTEMPTS; i++) {
    x->res->port_attempts = i + 1;
    rc = platform_port_free(x->spec->host, x->res->port, err, sizeof(err));
    if (rc != 0)
      break;
    uv_sleep(5);
  }
  c->passed = rc == 1;
  if (rc == 1)
    snprintf(c->reason, sizeof(c->reason), "port %d bound again", x->res->port);
  else
    snprintf(c->reason, sizeof(c->reason), "%s", err);
  return 0;
}

static void check_cleanup(struct sample_exec *x)
{
  struct model_sample *res = x->res;
  long groups[2] = {x->server.proc.group, x->client.proc.group};
  struct model_check_outcome *o = &res->checks[MODEL_CHECK_NO_ORPHANS];
  struct model_check_outcome *t = &res->checks[MODEL_CHECK_TEMP_CLEAN];
  char err[256];

  o->ran = 1;
  if (platform_collect_orphans(groups, 2, &res->orphans, err, sizeof(err)) !=
      0) {
    o->passed = 0;
    snprintf(o->reason, sizeof(o->reason), "%s", err);
  } else if (res->orphans.count > 0) {
    o->passed = 0;
    snprintf(o->reason, sizeof(o->reason),
             "%d process(es) left alive, killed: pid %ld '%s'%s",
             res->orphans.count, res->orphans.list[0].pid,
             res->orphans.list[0].name, res->orphans.count > 1 ? ", ..." : "");
  } else {
    o->passed = 1;
    snprintf(o->reason, sizeof(o->reason), "no process left");
  }
  settle_peer(&x->server);
  settle_peer(&x->client);
  check_port(x);
  t->ran = 1;
  if (tempdir_scan(&x->tmp, &res->leftovers, err, sizeof(err)) != 0) {
    t->passed = 0;
    snprintf(t->reason, sizeof(t->reason), "%s", err);
  } else if (res->leftovers.count > 0) {
    t->passed = 0;
    snprintf(t->reason, sizeof(t->reason),
             "%d entr%s left in the temporary directory: '%s'%s",
             res->leftovers.count, res->leftovers.count == 1 ? "y" : "ies",
             res->leftovers.names[0], res->leftovers.count > 1 ? ", ..." : "");
  } else {
    t->passed = 1;
    snprintf(t->reason, sizeof(t->reason), "temporary directory empty");
  }
}

static void parse_client_result(struct sample_exec *x)
{
  struct model_sample *res = x->res;
  struct capture *out = &x->client.out;
  size_t len = out->head_len;

  if (!x->client.rep->reaped || capture_truncated(out)) {
    res->have_result = 0;
    if (capture_truncated(out))
      snprintf(res->checks[MODEL_CHECK_CLIENT_RESULT].reason,
               sizeof(res->checks[0].reason),
               "the client printed over %d bytes", RESULT_LINE_MAX);
    return;
  }
  res->have_result = result_parse(out->buf, len, &res->result,
                                  res->checks[MODEL_CHECK_CLIENT_RESULT].reason,
                                  sizeof(res->checks[0].reason)) == 0;
}

/* The server's result line, when its stdout held one and nothing more
 * (check_server_stdout took it): its parse fills the server_result check's
 * reason when it fails. */
static void parse_server_result(struct sample_exec *x)
{
  struct model_sample *res = x->res;

  if (x->result_line_bytes == 0 || x->stdout_extra)
    return;
  res->server_printed_result = 1;
  res->have_server_result =
      result_server_parse(x->server.out.buf + x->ready_line_bytes,
                          x->result_line_bytes, &res->server_result,
                          res->checks[MODEL_CHECK_SERVER_RESULT].reason,
                          sizeof(res->checks[0].reason)) == 0;
}

int sample_run(const struct sample_spec *spec, struct model_sample *res,
               char *err, size_t errlen)
{
  struct sample_exec *x;
  const char *argv[MODEL_ARGV_MAX];
  char listen[96];
  uv_rusage_t ru_start, ru_end;
  int have_ru = uv_getrusage(&ru_start) == 0;
  int rc;

  memset(res, 0, sizeof(*res));
  init_report(&res->server);
  init_report(&res->client);
  res->status = MODEL_ERROR;
  x = calloc(1, sizeof(*x));
  if (x == NULL || capture_alloc(&res->server.err, spec->limits.stderr_limit) ||
      capture_alloc(&res->client.err, spec->limits.stderr_limit)) {
    free(x);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  x->spec = spec;
  x->res = res;
  x->start_ns = uv_hrtime();
  x->server.x = x->client.x = x;
  x->server.rep = &res->server;
  x->client.rep = &res->client;
  if (capture_alloc(&x->server.out, STDOUT_SERVER_LIMIT) ||
      capture_alloc(&x->client.out, STDOUT_CLIENT_LIMIT)) {
    snprintf(err, errlen, "out of memory");
    rc = -1;
    goto out_free;
  }
  rc = tempdir_create(&x->tmp, err, errlen);
  if (rc != 0)
    goto out_free;
  snprintf(res->temp_dir, sizeof(res->temp_dir), "%s", x->tmp.path);
  res->over_tls = spec->tls;
  if (spec->tls &&
      (tempdir_create(&x->tls_dir, err, errlen) != 0 ||
       tls_material_make(x->tls_dir.path, &x->tls, err, errlen) != 0)) {
    rc = -1;
    goto out_temp;
  }
  snprintf(x->env_buf[0], sizeof(x->env_buf[0]), "TMPDIR=%s", x->tmp.path);
  snprintf(x->env_buf[1], sizeof(x->env_buf[1]), "TEMP=%s", x->tmp.path);
  snprintf(x->env_buf[2], sizeof(x->env_buf[2]), "TMP=%s", x->tmp.path);
  x->env[0] = x->env_buf[0];
  x->env[1] = x->env_buf[1];
  x->env[2] = x->env_buf[2];
  x->env[3] = NULL;

  rc = uv_loop_init(&x->loop);
  if (rc != 0) {
    snprintf(err, errlen, "cannot start an event loop: %s", uv_strerror(rc));
    goto out_temp;
  }
  uv_timer_init(&x->loop, &x->tick);
  x->tick.data = x;
  x->tick_ms = model_timer_ms(&spec->limits);

  endpoint_text(listen, sizeof(listen), spec->host, 0);
  const char *extra[] = {
      "--listen", listen,     spec->tls ? "--transport" : NULL,
      "tls",      "--cert",   x->tls.cert,
      "--key",    x->tls.key, NULL};
  if (build_argv(spec->server_argv, argv, MODEL_ARGV_MAX, extra) != 0) {
    snprintf(x->spawn_msg, sizeof(x->spawn_msg), "server argv too long");
    x->spawn_failed = 1;
  } else if (start_peer(x, &x->server, argv) == 0) {
    x->server.deadline_ns =
        x->server.started_ns + ms_ns(spec->limits.ready_timeout_ms);
  }
  if (!x->server.event_open)
    x->tick_ms = spec->limits.tick_ms;
  uv_timer_start(&x->tick, on_tick, 0, x->tick_ms);
  uv_run(&x->loop, UV_RUN_DEFAULT);
  uv_loop_close(&x->loop);

  if (res->server.started || res->client.started)
    check_cleanup(x);
  parse_client_result(x);
  parse_server_result(x);
  {
    struct verdict_input in = {
        .ready = x->ready,
        .ready_failed = x->ready_failed,
        .ready_msg = x->ready_msg,
        .stdout_extra = x->stdout_extra,
        .stdout_msg = x->stdout_msg,
        .client_end_ns = x->client.end_ns,
        .server_end_ns = x->server.end_ns,
        .client_said_ns = x->client.said_ns,
        .server_said_ns = x->server.said_ns,
        .client_timeout_ns = x->client.timeout_ns,
        .server_timeout_ns = x->server.timeout_ns,
        .stdout_extra_ns = x->stdout_extra_ns,
        .client_terminated_ns = x->client.terminated_ns,
        .server_terminated_ns = x->server.terminated_ns,
        .server_closed_first = x->server_closed_first,
        .spawn_failed = x->spawn_failed,
        .spawn_msg = x->spawn_msg,
        .interrupted = x->interrupted,
        .workload = &spec->workload,
    };
    verdict_decide(&in, res);
  }
  rc = 0;
out_temp : {
  char rm_err[256];
  if (tempdir_remove(&x->tmp, rm_err, sizeof(rm_err)) != 0 && rc == 0 &&
      res->status == MODEL_PASSED) {
    /* Not leaving the directory behind is part of the contract. */
    res->status = MODEL_ERROR;
    snprintf(res->message, sizeof(res->message), "%s", rm_err);
  }
  /* The key and certificates go with the sample, whatever its end. */
  if (tempdir_remove(&x->tls_dir, rm_err, sizeof(rm_err)) != 0 && rc == 0 &&
      res->status == MODEL_PASSED) {
    res->status = MODEL_ERROR;
    snprintf(res->message, sizeof(res->message), "%s", rm_err);
  }
}
out_free:
  res->wall_ns = uv_hrtime() - x->start_ns;
  /* The coordinator's own cost during the sample: its CPU (libuv's threads
   * included; the peers and the helpers are children, not counted). */
  if (have_ru && uv_getrusage(&ru_end) == 0)
    res->coordinator_cpu_ns =
        (ru_end.ru_utime.tv_sec - ru_start.ru_utime.tv_sec +
         ru_end.ru_stime.tv_sec - ru_start.ru_stime.tv_sec) *
            1000000000ll +
        (ru_end.ru_utime.tv_usec - ru_start.ru_utime.tv_usec +
         ru_end.ru_stime.tv_usec - ru_start.ru_stime.tv_usec) *
            1000ll;
  else
    res->coordinator_cpu_ns = -1;
  res->coordinator_peak_rss_bytes = platform_self_peak_rss_bytes();
  res->coordinator_tick_ms = x->tick_ms;
  platform_proc_release(&x->server.proc);
  platform_proc_release(&x->client.proc);
  capture_release(&x->server.out);
  capture_release(&x->client.out);
  free(x);
  return rc;
}
