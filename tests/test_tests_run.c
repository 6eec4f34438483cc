/* tests/run's own leftover checks: they see what this run's tests left (a
 * file in the tests' TMPDIR, a process that escaped), and nothing else the
 * machine holds (another run's crossrun-* folder, a process not started by
 * the tests). A nested tests/run runs fake test programs for it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/tap.h"

static char base[512];

static int write_script(const char *path, const char *body)
{
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fprintf(f, "#!/bin/sh\n%s", body);
  if (fclose(f) != 0)
    return -1;
  return chmod(path, 0755);
}

/* Runs tests/run on a BUILD holding only the fake test programs, with the
 * variable assignments vars ("" for none); its output into out. Returns
 * its exit status, or -1. */
static int nested_run(const char *build, const char *vars, char *out,
                      size_t outlen)
{
  char cmd[2048];
  size_t n;
  FILE *p;
  int status;

  snprintf(cmd, sizeof(cmd),
           "cd '%s' && TMPDIR='%s' BUILD='%s' CROSSRUN_TESTS_ONLY_C=1 %s sh "
           "tests/run 2>&1",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".", base, build,
           vars);
  p = popen(cmd, "r");
  if (p == NULL)
    return -1;
  n = fread(out, 1, outlen - 1, p);
  out[n] = '\0';
  status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Kills the processes tests/run listed as left ("#   PID args"). */
static void kill_listed(const char *out)
{
  const char *line = out;
  while ((line = strstr(line, "#   ")) != NULL) {
    long pid = strtol(line + 4, NULL, 10);
    if (pid > 1)
      kill((pid_t)pid, SIGKILL);
    line += 4;
  }
}

/* A fake BUILD, base/name, whose tests/ folder is to hold one test
 * program, test: its path into prog (800 bytes), the folder into build
 * (600 bytes). One check; returns 0, or -1 when it could not be made. */
static int fake_build(const char *name, const char *test, char *build,
                      char *prog)
{
  char dir[700];

  snprintf(build, 600, "%s/%s", base, name);
  snprintf(dir, sizeof(dir), "%s/tests", build);
  snprintf(prog, 800, "%s/%s", dir, test);
  return TAP_OK(mkdir(build, 0700) == 0 && mkdir(dir, 0700) == 0,
                "a fake BUILD, %s", name)
             ? 0
             : -1;
}

static void test_sees_its_own(void)
{
  char build[600], prog[800], out[8192];
  int rc;

  if (fake_build("dirty", "test_leaves", build, prog) != 0)
    return;
  TAP_OK(write_script(prog, "(setsid sleep 37 </dev/null >/dev/null 2>&1 &)\n"
                            "touch \"$TMPDIR/crossrun-left-here\"\n"
                            "echo 'ok 1 - leaves a file and a process'\n") == 0,
         "a test program that leaves a file and a process");
  rc = nested_run(build, "", out, sizeof(out));
  TAP_EQ_INT(rc, 1, "tests/run fails");
  TAP_HAS_STR(out, "not ok 2 - no temporary directory of the tests is left",
              "the file left in its TMPDIR fails it");
  TAP_HAS_STR(out, "crossrun-left-here", "and is named");
  TAP_HAS_STR(out, "not ok 3 - no process of the tests is left running",
              "the escaped process fails it");
  TAP_HAS_STR(out, "sleep 37", "and is named");
  TAP_HAS_STR(out, "1 passed, 2 failed", "its closing line counts both");
  kill_listed(strstr(out, "not ok 3") ? strstr(out, "not ok 3") : out);
}

static void test_ignores_the_rest(void)
{
  char build[600], prog[800], other[700], script[2048], out[8192];
  pid_t stranger;
  int rc;

  if (fake_build("clean", "test_clean", build, prog) != 0)
    return;
  TAP_OK(write_script(prog, "sleep 3\necho 'ok 1 - leaves nothing'\n") == 0,
         "a test program that leaves nothing");
  /* Another user's run, at the same time: its folder appears where
   * tests/run makes its own, and its process runs a path below the same
   * BUILD, but neither is the tests'. */
  snprintf(other, sizeof(other), "%s/crossrun-someone-else", base);
  snprintf(script, sizeof(script),
           "sleep 1; mkdir '%s'; sleep 41; : '%s/lanes/c/server'", other,
           build);
  stranger = fork();
  if (stranger == 0) {
    setpgid(0, 0);
    unsetenv("CROSSRUN_TESTS_RUN");
    execl("/bin/sh", "sh", "-c", script, (char *)NULL);
    _exit(127);
  }
  rc = nested_run(build, "", out, sizeof(out));
  TAP_EQ_INT(rc, 0, "tests/run passes: %s", rc == 0 ? "" : out);
  TAP_HAS_STR(out, "ok 2 - no temporary directory of the tests is left",
              "another run's folder is not its leftover");
  TAP_HAS_STR(out, "ok 3 - no process of the tests is left running",
              "a process it did not start is not its leftover");
  if (stranger > 0) {
    kill(-stranger, SIGKILL);
    waitpid(stranger, NULL, 0);
  }
  TAP_OK(rmdir(other) == 0, "the other run's folder was there meanwhile");
}

/* Whether pid has ended (a zombie waiting for init to reap it has), within
 * a second. */
static int ended(long pid)
{
  char path[64], stat[256];

  snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
  for (int i = 0; i < 100; i++) {
    FILE *f = fopen(path, "r");
    const char *state;
    size_t n;

    if (f == NULL)
      return 1;
    n = fread(stat, 1, sizeof(stat) - 1, f);
    fclose(f);
    stat[n] = '\0';
    /* "pid (comm) S ...": the state follows the last ')'. */
    state = strrchr(stat, ')');
    if (state != NULL && state[1] == ' ' && state[2] == 'Z')
      return 1;
    usleep(10000);
  }
  return 0;
}

/* A test program that outlives CROSSRUN_TEST_SUITE_TIMEOUT: timeout ends
 * it, and tests/run ends what it started in a session of its own, naming
 * it, before the leftover checks run. */
static void test_kills_on_timeout(void)
{
  char build[600], prog[800], out[8192];
  const char *line;
  long pid = 0;
  int rc;

  if (fake_build("hangs", "test_hangs", build, prog) != 0)
    return;
  TAP_OK(write_script(prog, "(setsid sleep 43 </dev/null >/dev/null 2>&1 &)\n"
                            "exec sleep 60\n") == 0,
         "a test program that hangs after starting a process of its own");
  rc = nested_run(build, "CROSSRUN_TEST_SUITE_TIMEOUT=2", out, sizeof(out));
  TAP_EQ_INT(rc, 1, "tests/run fails");
  TAP_HAS_STR(out, "not ok 1 - test_hangs exited with 124",
              "the program that timed out fails it");
  line = strstr(out, "#   test_hangs timed out: ended ");
  if (TAP_OK(line != NULL, "what it left is ended and named%s%s",
             line != NULL ? "" : ": ", line != NULL ? "" : out))
    pid = strtol(line + strlen("#   test_hangs timed out: ended "), NULL, 10);
  TAP_OK(line != NULL && strstr(line, "sleep 43") != NULL,
         "by its command line");
  TAP_HAS_STR(out, "ok 3 - no process of the tests is left running",
              "so none is left for the leftover check");
  TAP_OK(pid > 1 && ended(pid), "the process it named is gone");
  kill_listed(strstr(out, "not ok 3") ? strstr(out, "not ok 3") : out);
}

int main(void)
{
  if (!TAP_NONNULL(tap_mkdtemp(base, sizeof(base)), "a scratch folder"))
    return tap_done();
  test_sees_its_own();
  test_ignores_the_rest();
  test_kills_on_timeout();
  {
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    TAP_EQ_INT(system(cmd), 0, "the scratch folder is removed");
  }
  return tap_done();
}
