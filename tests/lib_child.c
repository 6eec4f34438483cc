/* Running a helper program: see tests/lib_child.h. */
#include "tests/lib_child.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  static char scratch[65536];
  buf->base = scratch;
  buf->len = sizeof(scratch);
}

static void keep(char *dst, size_t cap, size_t *len, const char *src, size_t n,
                 int *truncated)
{
  size_t room = cap - *len;
  if (n > room) {
    n = room;
    *truncated = 1;
  }
  memcpy(dst + *len, src, n);
  *len += n;
  dst[*len] = '\0';
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  struct child_run *r = s->data;
  if (n < 0) {
    uv_close((uv_handle_t *)s, NULL);
    return;
  }
  if ((uv_pipe_t *)s == &r->out)
    keep(r->stdout_buf, CHILD_OUTPUT_LIMIT, &r->stdout_len, buf->base,
         (size_t)n, &r->truncated);
  else
    keep(r->stderr_buf, CHILD_STDERR_LIMIT, &r->stderr_len, buf->base,
         (size_t)n, &r->truncated);
}

static void on_child_exit(uv_process_t *p, int64_t status, int sig)
{
  struct child_run *r = p->data;
  r->exited = 1;
  r->exit_status = status;
  r->term_signal = sig;
  scratch_child_pid = 0;
  uv_close((uv_handle_t *)p, NULL);
  uv_close((uv_handle_t *)&r->timer, NULL);
}

static void on_timeout(uv_timer_t *t)
{
  struct child_run *r = t->data;
  r->timed_out = 1;
  uv_process_kill(&r->proc, SIGKILL);
}

/* Opens path for a child's output into *fd (-1 when path is NULL).
 * Returns 0 or a libuv error. */
static int open_output(const char *path, int *fd)
{
  uv_fs_t req;
  int rc;

  *fd = -1;
  if (path == NULL)
    return 0;
  rc = uv_fs_open(NULL, &req, path,
                  UV_FS_O_WRONLY | UV_FS_O_CREAT | UV_FS_O_TRUNC, 0600, NULL);
  uv_fs_req_cleanup(&req);
  if (rc >= 0)
    *fd = rc;
  return rc < 0 ? rc : 0;
}

static void close_output(int fd)
{
  uv_fs_t req;
  if (fd < 0)
    return;
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
}

/* Its stdio slot: the file fd, else a pipe into pipe. */
static void output_to(uv_stdio_container_t *slot, int fd, uv_pipe_t *pipe)
{
  if (fd >= 0) {
    slot->flags = UV_INHERIT_FD;
    slot->data.fd = fd;
  } else {
    slot->flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    slot->data.stream = (uv_stream_t *)pipe;
  }
}

/* What both ways of starting a child give uv_spawn: argv[0] looked up in
 * PATH, cwd and env (NULL: this program's), stdin on the null device,
 * stdio[1] and [2] as the caller set them, and with own_group a session
 * of its own on POSIX. (On Windows that flag would take the child out of
 * libuv's job object, which ends it with this program: not wanted.) */
static void spawn_options(uv_process_options_t *opts,
                          uv_stdio_container_t stdio[3],
                          const char *const *argv, const char *cwd, char **env,
                          int own_group, uv_exit_cb on_exit)
{
  memset(opts, 0, sizeof(*opts));
  stdio[0].flags = UV_IGNORE;
  opts->file = argv[0];
  opts->args = (char **)argv;
  opts->cwd = cwd;
  opts->env = env;
  opts->stdio = stdio;
  opts->stdio_count = 3;
  opts->exit_cb = on_exit;
#ifndef _WIN32
  if (own_group)
    opts->flags |= UV_PROCESS_DETACHED;
#else
  (void)own_group;
#endif
}

int child_run(struct child_run *r, const char *const *argv, const char *cwd,
              char **env, double timeout_s)
{
  return child_run_with(r, argv, cwd, env, NULL, timeout_s);
}

int child_run_with(struct child_run *r, const char *const *argv,
                   const char *cwd, char **env, const struct child_opts *o,
                   double timeout_s)
{
  static const struct child_opts none = {NULL, NULL, 0};
  uv_process_options_t opts;
  uv_stdio_container_t stdio[3];
  int rc, out_fd = -1, err_fd = -1;

  if (o == NULL)
    o = &none;
  memset(r, 0, sizeof(*r));
  r->stdout_buf = malloc(CHILD_OUTPUT_LIMIT + 1);
  if (r->stdout_buf == NULL)
    return UV_ENOMEM;
  r->stdout_buf[0] = '\0';
  rc = open_output(o->stdout_path, &out_fd);
  if (rc == 0 && o->stderr_path != NULL && o->stdout_path != NULL &&
      strcmp(o->stderr_path, o->stdout_path) == 0)
    err_fd = out_fd;
  else if (rc == 0)
    rc = open_output(o->stderr_path, &err_fd);
  if (rc != 0) {
    close_output(out_fd);
    return rc;
  }
  uv_loop_init(&r->loop);
  uv_pipe_init(&r->loop, &r->out, 0);
  uv_pipe_init(&r->loop, &r->err, 0);
  uv_timer_init(&r->loop, &r->timer);
  r->out.data = r->err.data = r->timer.data = r->proc.data = r;

  /* Detached is setsid(): a group of its own, whose id is its pid. */
  spawn_options(&opts, stdio, argv, cwd, env, o->own_group, on_child_exit);
  output_to(&stdio[1], out_fd, &r->out);
  output_to(&stdio[2], err_fd, &r->err);

  rc = uv_spawn(&r->loop, &r->proc, &opts);
  /* The child holds its own copies. */
  if (err_fd != out_fd)
    close_output(err_fd);
  close_output(out_fd);
  /* A pipe given to no child is closed unread. */
  if (rc < 0 || out_fd >= 0)
    uv_close((uv_handle_t *)&r->out, NULL);
  if (rc < 0 || err_fd >= 0)
    uv_close((uv_handle_t *)&r->err, NULL);
  if (rc < 0) {
    uv_close((uv_handle_t *)&r->proc, NULL);
    uv_close((uv_handle_t *)&r->timer, NULL);
  } else {
    scratch_child_pid = r->proc.pid;
    if (out_fd < 0)
      uv_read_start((uv_stream_t *)&r->out, on_alloc, on_read);
    if (err_fd < 0)
      uv_read_start((uv_stream_t *)&r->err, on_alloc, on_read);
    uv_timer_start(&r->timer, on_timeout, (uint64_t)(timeout_s * 1000), 0);
  }
  uv_run(&r->loop, UV_RUN_DEFAULT);
  uv_loop_close(&r->loop);
#ifndef _WIN32
  /* What it started in its group, on every path once it has ended. */
  if (rc == 0 && o->own_group)
    kill(-r->proc.pid, SIGKILL);
#endif
  return rc;
}

void child_release(struct child_run *r)
{
  free(r->stdout_buf);
  r->stdout_buf = NULL;
}

int child_succeeded(const struct child_run *r)
{
  return r->exited && !r->timed_out && r->exit_status == 0 &&
         r->term_signal == 0;
}

void child_explain(const struct child_run *r, const char *what)
{
  tap_diag("%s: %s, exit status %lld, signal %d%s; stderr: %s", what,
           r->timed_out ? "timed out" : "ended", (long long)r->exit_status,
           r->term_signal, r->truncated ? ", output cut" : "", r->stderr_buf);
}

/* ---- children on the caller's loop ---- */

/* Reads go straight into the capture's buffer; once it is full, into a
 * scratch buffer that is dropped (and counted as cut). */
static void capture_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  static char scratch[65536];
  struct child_capture *c = h->data;

  if (c->len < c->cap) {
    buf->base = c->buf + c->len;
    buf->len = c->cap - c->len;
  } else {
    buf->base = scratch;
    buf->len = sizeof(scratch);
  }
}

static void on_capture_closed(uv_handle_t *h)
{
  ((struct child_capture *)h->data)->open = 0;
}

static void capture_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  struct child_capture *c = s->data;

  if (n < 0) {
    uv_close((uv_handle_t *)s, on_capture_closed);
    return;
  }
  if (buf->base == c->buf + c->len)
    c->len += (size_t)n;
  else if (n > 0)
    c->cut = 1;
  c->buf[c->len] = '\0';
}

static void spawned_closed(uv_handle_t *h)
{
  ((struct child_proc *)h->data)->running = 0;
}

static void spawned_exit(uv_process_t *p, int64_t status, int sig)
{
  struct child_proc *c = p->data;

  c->exited = 1;
  c->exit_status = status;
  c->term_signal = sig;
  uv_close((uv_handle_t *)p, spawned_closed);
}

int child_spawn(uv_loop_t *loop, struct child_proc *c, const char *const *argv,
                const char *cwd, char **env, int flags,
                struct child_capture *out, struct child_capture *err)
{
  uv_process_options_t opts;
  uv_stdio_container_t stdio[3];
  int rc;

  memset(&c->proc, 0, sizeof(c->proc));
  c->out = out;
  c->err = err;
  c->running = c->exited = 0;
  c->exit_status = 0;
  c->term_signal = 0;
  for (int i = 0; i < 2; i++) {
    struct child_capture *k = i ? err : out;
    k->len = 0;
    k->cut = 0;
    k->buf[0] = '\0';
    uv_pipe_init(loop, &k->pipe, 0);
    k->pipe.data = k;
  }
  c->proc.data = c;

  spawn_options(&opts, stdio, argv, cwd, env, flags & CHILD_OWN_GROUP,
                spawned_exit);
  output_to(&stdio[1], -1, &out->pipe);
  output_to(&stdio[2], -1, &err->pipe);

  rc = uv_spawn(loop, &c->proc, &opts);
#ifdef _WIN32
  c->os_error = rc < 0 ? (unsigned long)GetLastError() : 0;
#else
  c->os_error = 0;
#endif
  out->open = err->open = 1;
  if (rc < 0) {
    /* The handles were initialized: they close on the loop, now. */
    uv_close((uv_handle_t *)&out->pipe, on_capture_closed);
    uv_close((uv_handle_t *)&err->pipe, on_capture_closed);
    c->running = 1;
    uv_close((uv_handle_t *)&c->proc, spawned_closed);
    while (out->open || err->open || c->running)
      uv_run(loop, UV_RUN_NOWAIT);
    return rc;
  }
  c->running = 1;
  uv_read_start((uv_stream_t *)&out->pipe, capture_alloc, capture_read);
  uv_read_start((uv_stream_t *)&err->pipe, capture_alloc, capture_read);
  return 0;
}

int child_done(const struct child_proc *c)
{
  return c->exited && !c->running && !c->out->open && !c->err->open;
}

void child_close_pipes(struct child_proc *c)
{
  for (int i = 0; i < 2; i++) {
    struct child_capture *k = i ? c->err : c->out;
    if (k->open && !uv_is_closing((uv_handle_t *)&k->pipe))
      uv_close((uv_handle_t *)&k->pipe, on_capture_closed);
  }
}

void child_kill(struct child_proc *c, int flags)
{
  if (!c->running || c->exited)
    return;
#ifndef _WIN32
  if (flags & CHILD_OWN_GROUP) {
    uv_kill(-c->proc.pid, SIGKILL);
    return;
  }
#endif
  uv_process_kill(&c->proc, SIGKILL);
}
