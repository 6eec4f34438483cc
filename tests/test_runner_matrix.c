/* crossrun as a user runs it: every lane of matrix.yaml in quick mode, a
 * runtime whose toolchain is missing, one whose build fails, bad matrix
 * files and workloads on the command line, and Ctrl-C in the middle of a
 * sample. Each run's evidence is read back. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_json.h"
#include "tests/lib_report.h"
#include "tests/tap.h"

extern char **environ;

static char dir[512];
static char crossrun[1024], fixture[1024], root[1024];

static void sleep_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Starts crossrun with args, stdout and stderr to files in dir. */
static pid_t start(const char *name, const char *const *args)
{
  const char *argv[32];
  char out[600], err[600];
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int n = 0;

  argv[n++] = crossrun;
  for (; args[n - 1] != NULL && n < 31; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  snprintf(out, sizeof(out), "%s/%s.out", dir, name);
  snprintf(err, sizeof(err), "%s/%s.err", dir, name);
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  if (posix_spawn(&pid, crossrun, &fa, NULL, (char *const *)argv, environ))
    pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

/* Waits for pid at most seconds; kills it past that. Exit code, or -1. */
static int finish(pid_t pid, double seconds)
{
  int status;
  for (long waited = 0; waited < (long)(seconds * 1000); waited += 20) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    sleep_ms(20);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

static int run(const char *name, const char *const *args, double seconds)
{
  pid_t pid = start(name, args);
  return pid < 0 ? -1 : finish(pid, seconds);
}

static char *slurp(const char *name)
{
  char path[600];
  FILE *f;
  long size;
  char *text = NULL;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "rb");
  if (f == NULL)
    return calloc(1, 1);
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0) {
    rewind(f);
    text = calloc(1, (size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size)
      text[0] = '\0';
  }
  fclose(f);
  return text ? text : calloc(1, 1);
}

static const char *write_matrix(const char *name, const char *text)
{
  static char path[600];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static void test_every_lane(void)
{
  char out[600];
  const char *args[] = {"quick", "--out", out, "--no-progress", NULL};
  static const char *const lanes[] = {
      "c-c",       "c-node",  "c-rust",  "c-go",      "node-c",    "node-node",
      "node-rust", "node-go", "rust-c",  "rust-node", "rust-rust", "rust-go",
      "go-c",      "go-node", "go-rust", "go-go"};
  json_object *doc;
  char *text;
  int rc;

  snprintf(out, sizeof(out), "%s/quick.json", dir);
  rc = run("quick", args, tap_timeout_s(600));
  text = rtest_md_unpadded(slurp("quick.out")); /* cells padded to line up */
  TAP_OK(rc == 0,
         "crossrun quick runs every lane of matrix.yaml green "
         "(exit %d)",
         rc);
  if (rc != 0)
    tap_diag("%s", text);
  TAP_OK(strstr(text, "| client \\ server | c | node | rust | go |") &&
             strstr(text, "packages:") && strstr(text, "smoke check"),
         "the summary has the client x server table, the packages and the "
         "smoke-check banner");
  free(text);
  doc = json_object_from_file(out);
  if (!TAP_OK(doc != NULL, "its evidence is JSON"))
    return;
  for (size_t i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++) {
    char p[128];
    snprintf(p, sizeof(p), "lanes.%s.samples.0.status", lanes[i]);
    TAP_OK(strcmp(json_str_at(doc, p), "passed") == 0, "lane %s passed",
           lanes[i]);
  }
  {
    json_object *cmp = NULL;
    TAP_OK(json_object_object_get_ex(doc, "comparisons", &cmp) && cmp == NULL,
           "a smoke run makes no comparisons");
  }
  {
    static const char *const rts[] = {"c", "node", "rust", "go"};
    for (int i = 0; i < 4; i++) {
      char p[128], q[128], v[128];
      snprintf(p, sizeof(p), "runtimes.%s.package.sha256", rts[i]);
      snprintf(q, sizeof(q), "runtimes.%s.package.file_count", rts[i]);
      snprintf(v, sizeof(v), "runtimes.%s.toolchain_version", rts[i]);
      TAP_OK(strlen(json_str_at(doc, p)) == 64 &&
                 json_object_get_int(json_at(doc, q)) > 0 &&
                 *json_str_at(doc, v),
             "runtime %s: toolchain '%s', package measured", rts[i],
             json_str_at(doc, v));
    }
    TAP_OK(json_at(doc, "runtimes.c.package.sha256") != NULL &&
               json_at(doc, "runtimes.c.package.reproducible") == NULL &&
               json_at(doc, "runtimes.c.package.repack_sha256") == NULL,
           "quick packs once: whether the bytes are reproducible is not "
           "known (null), and no second hash");
  }
  json_object_put(doc);
}

/* Packages that differ on every packing, and a packing that fails. */
static void test_packages(void)
{
  char out[600], m[2048];
  /* run, not quick: a smoke check packs once. */
  const char *args[] = {"run",
                        "--matrix",
                        NULL,
                        "--lanes",
                        "drift-drift,nopack-nopack",
                        "--samples",
                        "1",
                        "--warmup",
                        "0",
                        "--round-trips",
                        "20",
                        "--no-progress",
                        "--out",
                        out,
                        NULL};
  json_object *doc;
  char *text;
  int rc;

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  drift:\n"
           "    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n"
           "    package:\n"
           "      command: [sh, -c, 'head -c 64 /dev/urandom >\"$0/r\" && "
           "tar -czf \"$0/drift.tgz\" -C \"$0\" r', '{out}']\n"
           "      artifact: '*.tgz'\n"
           "  nopack:\n"
           "    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n"
           "    package:\n"
           "      command: [sh, -c, 'echo no disk left >&2; exit 4']\n"
           "      artifact: '*.tgz'\n",
           fixture, fixture, fixture, fixture);
  args[2] = write_matrix("pack.yaml", m);
  snprintf(out, sizeof(out), "%s/pack.json", dir);
  rc = run("pack", args, tap_timeout_s(120));
  text = rtest_md_unpadded(slurp("pack.out"));
  TAP_OK(rc == 1 && strstr(text, "no: a second pack differs") &&
             strstr(text, "| nopack | failed: package command"),
         "the package table says which packing is not reproducible and "
         "which failed, and the failed one fails the run (exit %d)",
         rc);
  free(text);
  text = slurp("pack.err");
  TAP_OK(strstr(text, "the package of runtime 'nopack' was not measured: "
                      "package command") != NULL,
         "with a line naming the runtime and why: %s", text);
  free(text);
  doc = json_object_from_file(out);
  if (doc == NULL)
    return;
  TAP_OK(!json_object_get_boolean(
             json_at(doc, "runtimes.drift.package.reproducible")) &&
             json_at(doc, "runtimes.drift.package.reproducible") &&
             strcmp(json_str_at(doc, "runtimes.drift.package.sha256"),
                    json_str_at(doc, "runtimes.drift.package.repack_sha256")),
         "two packings with different bytes: reproducible false, both "
         "hashes kept");
  TAP_OK(strstr(json_str_at(doc, "runtimes.nopack.package.error"),
                "exited with 4: no disk left") != NULL,
         "a failed packing is recorded with its reason: %s",
         json_str_at(doc, "runtimes.nopack.package.error"));
  json_object_put(doc);
}

static void test_unavailable_and_broken(void)
{
  char out[600], m[4096];
  const char *path;
  const char *args[] = {"quick",
                        "--matrix",
                        NULL,
                        "--lanes",
                        "c-c,ghost-*,broken-broken",
                        "--out",
                        out,
                        "--no-packages",
                        NULL};
  json_object *doc;
  char *text;
  int rc;

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  ghost:\n"
           "    client: [crossrun-no-such-program, client]\n"
           "    server: [crossrun-no-such-program, server]\n"
           "  broken:\n"
           "    build: [sh, -c, 'echo compiler exploded >&2; exit 3']\n"
           "    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n",
           fixture, fixture);
  path = write_matrix("more.yaml", m);
  args[2] = path;
  snprintf(out, sizeof(out), "%s/more.json", dir);
  rc = run("more", args, tap_timeout_s(120));
  text = slurp("more.out");
  TAP_OK(rc == 1, "a runtime whose build fails fails the run (exit %d)", rc);
  TAP_OK(strstr(text, "ghost-c: unavailable: 'crossrun-no-such-program'") &&
             strstr(text, "broken-broken: error: build 'sh -c"),
         "the summary says which lanes were unavailable or broken and why");
  TAP_OK(strstr(text, "compiler exploded") != NULL,
         "a failed build shows its last line");
  free(text);
  doc = json_object_from_file(out);
  if (doc == NULL)
    return;
  TAP_OK(strcmp(json_str_at(doc, "lanes.c-c.samples.0.status"), "passed") == 0,
         "the other lanes still run");
  TAP_OK(strcmp(json_str_at(doc, "lanes.ghost-c.summary.status"),
                "unavailable") == 0 &&
             strstr(json_str_at(doc, "lanes.ghost-c.unavailable_reason"),
                    "not installed or not on PATH"),
         "lanes of a missing toolchain are unavailable, with the reason");
  TAP_OK(strcmp(json_str_at(doc, "runtimes.broken.status"), "broken") == 0 &&
             strcmp(json_str_at(doc, "lanes.broken-broken.summary.status"),
                    "error") == 0,
         "lanes of a broken runtime are errors");
  json_object_put(doc);
}

static void test_usage_errors(void)
{
  const char *bad =
      write_matrix("bad.yaml", "runtimes:\n  c:\n    sever: [x]\n");
  const char *a1[] = {"quick", "--matrix", bad, NULL};
  const char *a2[] = {"run", "--workload", "nope", NULL};
  char *text;

  TAP_OK(run("bad", a1, tap_timeout_s(30)) == 2,
         "a broken --matrix file exits 2");
  text = slurp("bad.err");
  TAP_OK(strstr(text, "bad.yaml:3:5: unknown key 'sever'") &&
             strchr(text, '\n') == text + strlen(text) - 1,
         "with one line naming the place: %s", text);
  free(text);
  TAP_OK(run("workload", a2, tap_timeout_s(30)) == 2,
         "an unknown --workload exits 2");
  text = slurp("workload.err");
  TAP_OK(strstr(text, "no workload 'nope' in the matrix (it has: quick full)"),
         "and lists the workloads there are: %s", text);
  free(text);
}

static int count_fixtures(void)
{
  char cmd[1200];
  FILE *p;
  int n = 0;
  snprintf(cmd, sizeof(cmd), "pgrep -f -c '^%s ' 2>/dev/null", fixture);
  p = popen(cmd, "r");
  if (p != NULL) {
    if (fscanf(p, "%d", &n) != 1)
      n = 0;
    pclose(p);
  }
  return n;
}

static void test_interrupt(void)
{
  char out[600], m[2048];
  const char *args[] = {"quick",       "--matrix", NULL, "--lanes",
                        "stuck-stuck", "--out",    out,  "--no-packages",
                        "--timeout",   "60",       NULL};
  json_object *doc;
  pid_t pid;
  int rc, started = 0;

  snprintf(m, sizeof(m),
           "runtimes:\n  stuck:\n    client: [%s, client, hang]\n"
           "    server: [%s, server, ok]\n",
           fixture, fixture);
  args[2] = write_matrix("stuck.yaml", m);
  snprintf(out, sizeof(out), "%s/stuck.json", dir);
  pid = start("stuck", args);
  if (pid < 0)
    return;
  for (int i = 0; i < 250 && !started; i++) {
    sleep_ms(20);
    started = count_fixtures() >= 1;
  }
  sleep_ms(300); /* the client is past its session, hanging */
  kill(pid, SIGINT);
  rc = finish(pid, tap_timeout_s(15));
  TAP_OK(started && rc == 130, "Ctrl-C stops the run: exit %d", rc);
  doc = json_object_from_file(out);
  TAP_OK(doc && !json_object_get_boolean(json_at(doc, "complete")) &&
             strcmp(json_str_at(doc, "incomplete_reason"), "interrupted") == 0,
         "the evidence is written, marked incomplete");
  TAP_OK(doc && strcmp(json_str_at(
                           doc, "lanes.stuck-stuck.samples.0.failure.reason"),
                       "interrupted") == 0,
         "the current sample is recorded as interrupted");
  TAP_OK(count_fixtures() == 0, "its peers are killed");
  if (doc)
    json_object_put(doc);
}

static void test_interrupt_build(void)
{
  const char *args[] = {"quick",   "--matrix",      NULL,
                        "--lanes", "slow-slow",     "--out",
                        NULL,      "--no-packages", NULL};
  char out[600], cmd[200];
  pid_t pid;
  int rc, left = 1;
  FILE *p;

  args[2] = write_matrix("slow.yaml", "runtimes:\n  slow:\n"
                                      "    build: [sh, -c, 'sleep 37.5']\n"
                                      "    client: [sh]\n    server: [sh]\n");
  snprintf(out, sizeof(out), "%s/slow.json", dir);
  args[6] = out;
  pid = start("slow", args);
  if (pid < 0)
    return;
  sleep_ms(700);
  kill(pid, SIGINT);
  rc = finish(pid, tap_timeout_s(10));
  TAP_OK(rc == 130,
         "Ctrl-C during a runtime's build stops at once "
         "(exit %d)",
         rc);
  snprintf(cmd, sizeof(cmd), "pgrep -c -f '[s]leep 37[.]5'");
  p = popen(cmd, "r");
  if (p != NULL) {
    if (fscanf(p, "%d", &left) != 1)
      left = 0;
    pclose(p);
  }
  TAP_OK(left == 0, "and the build's processes are gone (%d left)", left);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char cwd[900], cmd[700];

  if (getcwd(cwd, sizeof(cwd)) == NULL || tap_mkdtemp(dir, sizeof dir) == NULL)
    return 1;
  snprintf(root, sizeof(root), "%s",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : cwd);
  snprintf(crossrun, sizeof(crossrun), "%s/%s/crossrun", root, build);
  snprintf(fixture, sizeof(fixture), "%s/%s/tests/fixture", root, build);
  test_usage_errors();
  test_every_lane();
  test_unavailable_and_broken();
  test_packages();
  test_interrupt();
  test_interrupt_build();
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
