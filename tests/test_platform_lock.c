/* platform_lock: an exclusive lock of a file that another process taking
 * it waits for, until its holder lets go. The test holds the lock of a
 * file, starts itself as a second process that takes the same lock and
 * then leaves a mark, sees no mark while it holds the lock, and the mark
 * once it has let go. */
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "tests/lib_child.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

/* The second process: takes the lock, then leaves the mark. */
static int lock_and_mark(const char *path, const char *mark)
{
  char err[256];
  long lock = platform_lock(path, err, sizeof(err));

  if (lock < 0) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  if (scratch_write(mark, "x", 1) != 0)
    return 3;
  platform_unlock(lock);
  return 0;
}

static void on_wait(uv_timer_t *t)
{
  uv_stop(t->loop);
}

/* Runs the loop for ms, or until the child ends when ms is 0 (within the
 * tests' deadline, after which it is killed). */
static void run_for(uv_loop_t *loop, struct child_proc *c, uint64_t ms)
{
  uv_timer_t t;
  uint64_t deadline = uv_now(loop) + (uint64_t)(tap_timeout_s(10) * 1000);

  uv_timer_init(loop, &t);
  if (ms > 0) {
    uv_timer_start(&t, on_wait, ms, 0);
    uv_run(loop, UV_RUN_DEFAULT);
  } else {
    uv_timer_start(&t, on_wait, 50, 50);
    while (!child_done(c)) {
      if (uv_now(loop) > deadline)
        child_kill(c, 0);
      uv_run(loop, UV_RUN_DEFAULT);
    }
  }
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(loop, UV_RUN_NOWAIT);
}

int main(int argc, char **argv)
{
  char path[SCRATCH_PATH_CAP], mark[SCRATCH_PATH_CAP], err[256];
  char obuf[256], ebuf[1024];
  struct child_capture out = {.buf = obuf, .cap = sizeof(obuf)};
  struct child_capture errs = {.buf = ebuf, .cap = sizeof(ebuf)};
  struct child_proc child;
  uv_loop_t loop;
  long lock;

  if (argc == 4 && strcmp(argv[1], "lock-and-mark") == 0)
    return lock_and_mark(argv[2], argv[3]);
  if (scratch_create() != 0)
    return tap_done();
  scratch_path(path, "matrix.yaml");
  scratch_path(mark, "mark");
  lock = platform_lock(path, err, sizeof(err));
  TAP_OK(lock < 0 && strstr(err, "matrix.yaml") != NULL,
         "a file that does not exist cannot be locked: %s", err);
  if (!TAP_OK(scratch_write(path, "runtimes: {}\n", 13) == 0, "the file"))
    goto out;
  lock = platform_lock(path, err, sizeof(err));
  if (!TAP_OK(lock >= 0, "the lock is taken: %s", lock >= 0 ? "" : err))
    goto out;
  {
    const char *args[] = {argv[0], "lock-and-mark", path, mark, NULL};
    uv_loop_init(&loop);
    if (!TAP_OK(child_spawn(&loop, &child, args, NULL, NULL, 0, &out, &errs) ==
                    0,
                "the second process starts")) {
      platform_unlock(lock);
      uv_loop_close(&loop);
      goto out;
    }
    /* Time enough for it to take an unheld lock and write: its mark
     * appears then only if the lock does not hold it back. */
    run_for(&loop, &child, 500);
    TAP_OK(scratch_size(mark) < 0 && !child_done(&child),
           "the second process waits while the first holds the lock");
    platform_unlock(lock);
    run_for(&loop, &child, 0);
    TAP_OK(child.exited && child.exit_status == 0 && scratch_size(mark) == 1,
           "it takes the lock once the first lets go (exit %lld: %.*s)",
           (long long)child.exit_status, (int)errs.len, errs.buf);
    uv_loop_close(&loop);
  }
  lock = platform_lock(path, err, sizeof(err));
  TAP_OK(lock >= 0, "the lock can be taken again: %s", lock >= 0 ? "" : err);
  platform_unlock(lock);
out:
  scratch_remove();
  return tap_done();
}
