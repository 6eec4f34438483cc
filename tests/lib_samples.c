/* See tests/lib_samples.h. */
#include "tests/lib_samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#endif

#include "platforms/platform.h"
#include "tests/tap.h"

/* Whether a process group (POSIX) or a process (Windows: the group id is
 * the peer's pid) is alive. */
static int alive(long id)
{
#ifdef _WIN32
  HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)id);
  int running;

  if (h == NULL)
    return 0;
  running = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  CloseHandle(h);
  return running;
#else
  return kill(-(pid_t)id, 0) == 0;
#endif
}

void samples_nothing_left(const char *name, const struct model_sample *r)
{
  struct stat st;
  int left = 0;

  left += r->server.pid > 0 && alive(r->server.pid);
  left += r->client.pid > 0 && alive(r->client.pid);
#ifdef _WIN32
  /* A Windows job has no id to ask after its end: the processes the
   * runner found in it are looked up one by one. */
  for (int i = 0; i < r->orphans.count && i < MODEL_MAX_ORPHANS; i++)
    left += alive(r->orphans.list[i].pid);
#endif
  TAP_OK(left == 0, "%s: no process of the sample is left", name);
  TAP_OK(r->temp_dir[0] != '\0' && stat(r->temp_dir, &st) != 0 &&
             errno == ENOENT,
         "%s: the temporary directory is removed", name);
}

int samples_port_states(char *why, size_t len)
{
  struct platform_closers probe;

  why[0] = '\0';
  return platform_port_closers("127.0.0.1", 1, &probe, why, len) !=
         PLATFORM_CANNOT_TELL;
}

void samples_with_drive(char *out, size_t cap, const char *path)
{
#ifdef _WIN32
  if (_fullpath(out, path, cap) != NULL)
    return;
#endif
  snprintf(out, cap, "%s", path);
}

int samples_under_wine(void)
{
  static int known = -1;

  if (known < 0) {
    struct model_machine m;
    memset(&m, 0, sizeof m);
    platform_machine_describe(&m);
    known = strncmp(m.emulator, "wine", 4) == 0;
  }
  return known;
}
