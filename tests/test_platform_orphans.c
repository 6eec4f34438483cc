/* platforms: the orphan check finds a grandchild that escaped its parent
 * (started detached: setsid() on POSIX, outside the console group on
 * Windows) and outlived it, names it, and ends it. The program plays all
 * three parts: with no argument the test, with "child" the peer that starts
 * the grandchild and exits at once, with "grandchild" a process that only
 * waits. Portable through libuv, so it runs on Linux and under wine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "tests/tap.h"

#define GRANDCHILD_LIFE_MS 60000

static int child(const char *self)
{
  uv_process_options_t o;
  uv_process_t proc;
  char *args[3];
  uv_stdio_container_t stdio[3];
  int rc;

  args[0] = (char *)self;
  args[1] = "grandchild";
  args[2] = NULL;
  memset(&o, 0, sizeof(o));
  for (int i = 0; i < 3; i++)
    stdio[i].flags = UV_IGNORE;
  o.file = self;
  o.args = args;
  o.stdio = stdio;
  o.stdio_count = 3;
  o.flags = UV_PROCESS_DETACHED | UV_PROCESS_WINDOWS_HIDE;
  rc = uv_spawn(uv_default_loop(), &proc, &o);
  if (rc != 0) {
    fprintf(stderr, "cannot start the grandchild: %s\n", uv_strerror(rc));
    return 1;
  }
  uv_unref((uv_handle_t *)&proc);
  /* Exits without waiting: the grandchild is left behind. */
  return 0;
}

/* Reaps p within timeout_s; returns 1 once reaped. */
static int reap(struct platform_proc *p, double timeout_s)
{
  struct platform_exit ex;
  char err[256];
  uint64_t deadline = uv_hrtime() + (uint64_t)(timeout_s * 1e9);

  while (uv_hrtime() < deadline) {
    int rc = platform_try_reap(p, &ex, err, sizeof(err));
    if (rc == 1)
      return ex.exited && ex.exit_code == 0;
    if (rc < 0) {
      tap_diag("reap: %s", err);
      return 0;
    }
    uv_sleep(20);
  }
  return 0;
}

static void test_escaped_grandchild(const char *self)
{
  const char *argv[] = {self, "child", NULL};
  struct platform_spawn_opts opts = {.argv = argv};
  struct platform_proc p;
  struct model_orphans orphans;
  char err[256], base[64];
  const char *slash;
  int found = 0;

  TAP_EQ_INT(platform_init(err, sizeof(err)), 0, "platform_init");
  if (!TAP_EQ_INT(platform_spawn(&opts, &p, err, sizeof(err)), 0,
                  "the child starts")) {
    tap_diag("%s", err);
    return;
  }
  /* The pipes are not read: the child and grandchild write nothing. */
  TAP_OK(reap(&p, tap_timeout_s(20)), "the child exits 0, leaving its "
                                      "grandchild");
  /* A moment for the grandchild to be running (it is started before the
   * child exits, but a slow machine may still be creating it). */
  uv_sleep(500);
  memset(&orphans, 0, sizeof(orphans));
  TAP_EQ_INT(platform_collect_orphans(&p.group, 1, &orphans, err, sizeof(err)),
             0, "platform_collect_orphans");
  TAP_EQ_INT(orphans.count, 1, "the escaped grandchild is reported");
  slash = strrchr(self, '/');
  if (slash == NULL || strrchr(self, '\\') > slash)
    slash = strrchr(self, '\\');
  snprintf(base, sizeof(base), "%s", slash != NULL ? slash + 1 : self);
  /* Linux names a process by its first 15 bytes (comm). */
  base[15] = '\0';
  for (int i = 0; i < orphans.count && i < MODEL_MAX_ORPHANS; i++)
    found |= strncmp(orphans.list[i].name, base, strlen(base)) == 0;
  TAP_OK(found, "it is named: %s",
         orphans.count > 0 ? orphans.list[0].name : "(none)");
  memset(&orphans, 0, sizeof(orphans));
  platform_collect_orphans(&p.group, 1, &orphans, err, sizeof(err));
  TAP_EQ_INT(orphans.count, 0, "it was ended: a second look finds nothing");
  if (p.stdout_fd >= 0)
    uv_fs_close(NULL, &(uv_fs_t){0}, p.stdout_fd, NULL);
  if (p.stderr_fd >= 0)
    uv_fs_close(NULL, &(uv_fs_t){0}, p.stderr_fd, NULL);
  platform_proc_release(&p);
}

int main(int argc, char **argv)
{
  char self[1024];
  size_t len = sizeof(self);

  if (uv_exepath(self, &len) != 0) {
    fprintf(stderr, "cannot tell this program's path\n");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "child") == 0)
    return child(self);
  if (argc > 1 && strcmp(argv[1], "grandchild") == 0) {
    uv_sleep(GRANDCHILD_LIFE_MS);
    return 0;
  }
  test_escaped_grandchild(self);
  return tap_done();
}
