#include "runner/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "runner/pipe_watch.h"

#define OUTPUT_LIMIT 65536
#define TICK_MS 10
#define KILL_GRACE_NS (1000 * 1000000ull)

static const volatile sig_atomic_t *stop_flag;

void command_set_stop(const volatile sig_atomic_t *stop)
{
  stop_flag = stop;
}

struct command_exec {
  uv_timer_t tick;
  uv_pipe_t out, err;
  int out_open, err_open;
  struct platform_proc proc;
  int spawned;
  struct command_result *r;
  uint64_t start_ns, deadline_ns, reaped_ns;
  int reaped, term_stage;
  char chunk[16384];
};

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  struct command_exec *x = h->data;
  buf->base = x->chunk;
  buf->len = sizeof(x->chunk);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  struct command_exec *x = s->data;
  int is_out = s == (uv_stream_t *)&x->out;

  if (n > 0) {
    capture_append(is_out ? &x->r->out : &x->r->err, buf->base, (size_t)n);
    return;
  }
  if (n < 0) {
    int *open = is_out ? &x->out_open : &x->err_open;
    if (*open) {
      *open = 0;
      uv_close((uv_handle_t *)s, NULL);
    }
  }
}

static void close_pipes(struct command_exec *x)
{
  if (x->out_open) {
    x->out_open = 0;
    uv_close((uv_handle_t *)&x->out, NULL);
  }
  if (x->err_open) {
    x->err_open = 0;
    uv_close((uv_handle_t *)&x->err, NULL);
  }
}

static void on_tick(uv_timer_t *t)
{
  struct command_exec *x = t->data;
  struct platform_exit ex;
  uint64_t now = uv_hrtime();
  char err[128];

  if (!x->reaped && platform_try_reap(&x->proc, &ex, err, sizeof(err)) == 1) {
    x->reaped = 1;
    x->reaped_ns = now;
    x->r->exited = ex.exited;
    x->r->exit_code = ex.exit_code;
    x->r->signal = ex.signal;
  }
  if (!x->reaped && x->term_stage == 0 && stop_flag != NULL && *stop_flag) {
    x->r->stopped = 1;
    x->deadline_ns = now; /* the grace below counts from now */
  }
  if (!x->reaped && now >= x->deadline_ns && x->term_stage == 0) {
    x->r->timed_out = !x->r->stopped;
    platform_terminate(&x->proc, 0);
    x->term_stage = 1;
  } else if (!x->reaped && x->term_stage == 1 &&
             now >= x->deadline_ns + KILL_GRACE_NS) {
    platform_terminate(&x->proc, 1);
    x->term_stage = 2;
  }
  if (x->reaped) {
    /* A child it left behind may hold the pipes: wait a moment only. */
    if ((x->out_open || x->err_open) && now - x->reaped_ns < KILL_GRACE_NS)
      return;
    close_pipes(x);
    x->r->wall_ns = now - x->start_ns;
    uv_timer_stop(&x->tick);
    uv_close((uv_handle_t *)&x->tick, NULL);
  }
}

/* Starts spec's command on the loop. Returns 0, or negative with why in
 * spec->error. */
static int command_start(uv_loop_t *loop, struct command_spec *spec,
                         struct command_exec *x)
{
  static const char *const no_env[] = {NULL};
  struct platform_spawn_opts opts = {spec->argv, spec->env ? spec->env : no_env,
                                     spec->cwd, 0};
  int rc;

  rc = platform_spawn(&opts, &x->proc, spec->error, sizeof(spec->error));
  if (rc != 0)
    return rc;
  x->spawned = 1;
  x->start_ns = uv_hrtime();
  x->deadline_ns = x->start_ns + spec->timeout_ms * 1000000ull;
  rc = pipe_watch(loop, &x->out, x->proc.stdout_fd, x, on_alloc, on_read,
                  &x->out_open);
  if (pipe_watch(loop, &x->err, x->proc.stderr_fd, x, on_alloc, on_read,
                 &x->err_open) != 0 ||
      rc != 0) {
    /* Without its output it is of no use: stop it, then reap it below. */
    platform_terminate(&x->proc, 1);
    close_pipes(x);
  }
  uv_timer_init(loop, &x->tick);
  x->tick.data = x;
  uv_timer_start(&x->tick, on_tick, TICK_MS, TICK_MS);
  return 0;
}

static int alloc_results(struct command_result *results, int n)
{
  for (int i = 0; i < n; i++)
    if (capture_alloc(&results[i].out, OUTPUT_LIMIT) != 0 ||
        capture_alloc(&results[i].err, OUTPUT_LIMIT) != 0)
      return -1;
  return 0;
}

void command_run_all(struct command_spec *specs, int n,
                     struct command_result *results)
{
  struct command_exec *x = calloc((size_t)(n > 0 ? n : 1), sizeof(*x));
  uv_loop_t loop;
  int rc;

  for (int i = 0; i < n; i++) {
    memset(&results[i], 0, sizeof(results[i]));
    specs[i].start_rc = -1;
    specs[i].error[0] = '\0';
  }
  if (x == NULL || alloc_results(results, n) != 0) {
    for (int i = 0; i < n; i++)
      snprintf(specs[i].error, sizeof(specs[i].error), "out of memory");
    free(x);
    return;
  }
  rc = uv_loop_init(&loop);
  if (rc != 0) {
    for (int i = 0; i < n; i++)
      snprintf(specs[i].error, sizeof(specs[i].error),
               "cannot start an event loop: %s", uv_strerror(rc));
    free(x);
    return;
  }
  for (int i = 0; i < n; i++) {
    x[i].r = &results[i];
    specs[i].start_rc = command_start(&loop, &specs[i], &x[i]);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  for (int i = 0; i < n; i++) {
    if (!x[i].spawned)
      continue;
    /* Whatever it started in its group goes with it. */
    platform_terminate(&x[i].proc, 1);
    platform_proc_release(&x[i].proc);
  }
  free(x);
}

int command_run(const char *const *argv, const char *cwd,
                const char *const *env, uint64_t timeout_ms,
                struct command_result *r, char *err, size_t errlen)
{
  struct command_spec spec = {argv, cwd, env, timeout_ms, 0, ""};

  command_run_all(&spec, 1, r);
  if (spec.start_rc != 0)
    snprintf(err, errlen, "%s", spec.error);
  return spec.start_rc;
}

void command_result_release(struct command_result *r)
{
  capture_release(&r->out);
  capture_release(&r->err);
}

int command_succeeded(const struct command_result *r)
{
  return r->exited && r->exit_code == 0 && !r->timed_out && !r->stopped;
}

static void last_line(const struct capture *c, char *out, size_t outlen)
{
  char text[4096];
  size_t n = capture_text(c, text, sizeof(text));
  char *start;

  while (n > 0 &&
         (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
    text[--n] = '\0';
  start = strrchr(text, '\n');
  snprintf(out, outlen, "%s", start ? start + 1 : text);
}

void command_describe_failure(const struct command_result *r, char *out,
                              size_t outlen)
{
  char line[300];

  last_line(r->err.total ? &r->err : &r->out, line, sizeof(line));
  if (r->stopped)
    snprintf(out, outlen, "was stopped: the run was interrupted");
  else if (r->timed_out)
    snprintf(out, outlen, "did not finish in time%s%s", line[0] ? ": " : "",
             line);
  else if (!r->exited)
    snprintf(out, outlen, "died by %s%s%s", platform_signal_name(r->signal),
             line[0] ? ": " : "", line);
  else
    snprintf(out, outlen, "exited with %d%s%s", r->exit_code,
             line[0] ? ": " : "", line);
}
