/* crossrun record on a throwaway git repository: its refusals (dirty tree,
 * not on main, not in CI, all at once), an official record with its
 * provenance, a rejected one, expectations (an unexpected failure, a known
 * failure, an unexpected pass), shards, and values planted in the
 * environment and the peers' output that must not reach the files. */
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evidence/base/sha256.h"
#include "tests/lib_json.h"
#include "tests/tap.h"

#define SECRET "planted-secret-7f3a9c"

static char tmp[512];
static char repo[600], fixture[1024], home[700], crossrun_path[1024];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
  char cmd[4096];
  va_list ap;
  int status;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *text;
  long size;

  if (f == NULL)
    return calloc(1, 1);
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  rewind(f);
  text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
  if (text && size > 0 && fread(text, 1, (size_t)size, f) != (size_t)size)
    text[0] = '\0';
  fclose(f);
  return text ? text : calloc(1, 1);
}

/* Runs the repository's crossrun with args; its output in out.txt. */
static int record(const char *env, const char *args)
{
  return sh("cd %s && env -u CI -u GITHUB_ACTIONS %s HOME=%s "
            "CROSSRUN_PLANTED=" SECRET " timeout 120 build/crossrun record "
            "%s >%s/out.txt 2>&1",
            repo, env, home, args, tmp);
}

static int output_has(const char *needle)
{
  char path[700], *text;
  int found;
  snprintf(path, sizeof(path), "%s/out.txt", tmp);
  text = slurp(path);
  found = strstr(text, needle) != NULL;
  if (!found)
    tap_diag("output: %s", text);
  free(text);
  return found;
}

static int make_repo(const char *crossrun)
{
  char path[800];
  FILE *f;

  snprintf(repo, sizeof(repo), "%s/repo", tmp);
  snprintf(home, sizeof(home), "%s/home-marker-4411", tmp);
  /* Conformance reads its cases from the checkout's vectors. */
  if (sh("mkdir -p %s/build %s %s/protocol && cp %s %s/build/crossrun && "
         "cp -R protocol/vectors %s/protocol/",
         repo, home, repo, crossrun, repo, repo) != 0)
    return -1;
  snprintf(path, sizeof(path), "%s/matrix.yaml", repo);
  f = fopen(path, "w");
  if (f == NULL)
    return -1;
  /* loud's peers print the planted value and their environment's paths
   * on stderr before they run as the fixture's correct peers: a second
   * line on stderr, which conformance refuses. */
  fprintf(f,
          "runtimes:\n"
          "  fx:\n"
          "    client: [%s, client, ok]\n"
          "    server: [%s, server, ok]\n"
          "    version: [sh, -c, 'echo fixture 1.0']\n"
          "  loud:\n"
          "    client: [sh, -c, 'echo \"$CROSSRUN_PLANTED $HOME $PWD\" >&2; "
          "exec \"$0\" \"$@\"', %s, client, ok]\n"
          "    server: [sh, -c, 'echo \"$CROSSRUN_PLANTED $HOME $PWD\" >&2; "
          "exec \"$0\" \"$@\"', %s, server, ok]\n"
          "    hidden: true\n"
          "  bad:\n"
          "    client: [%s, client, wrong-count]\n"
          "    server: [%s, server, ok]\n"
          "    hidden: true\n"
          /* Peers that fail their first run only: a marker file tells
           * the later runs. */
          "  once:\n"
          "    client: [sh, -c, 'test -e %s/m-client && exec \"$0\" client "
          "ok \"$@\"; touch %s/m-client; exec \"$0\" client wrong-count "
          "\"$@\"', %s]\n"
          "    server: [sh, -c, 'test -e %s/m-server && exec \"$0\" server "
          "ok \"$@\"; touch %s/m-server; exec \"$0\" server orphan "
          "\"$@\"', %s]\n"
          "    hidden: true\n"
          "  leave:\n"
          "    client: [%s, client, ok]\n"
          "    server: [sh, -c, 'test -e %s/m-leave && exec \"$0\" server "
          "ok \"$@\"; touch %s/m-leave; exec \"$0\" server leave-file "
          "\"$@\"', %s]\n"
          "    hidden: true\n"
          "  hang:\n"
          "    client: [sh, -c, 'test -e %s/m-hang && exec \"$0\" client "
          "ok \"$@\"; touch %s/m-hang; exec \"$0\" client hang \"$@\"', "
          "%s]\n"
          "    server: [%s, server, ok]\n"
          "    hidden: true\n"
          "workloads:\n"
          "  full: {warmup: 10, round_trips: 300, payload_bytes: 16, "
          "max_in_flight: 4, samples: 2}\n",
          fixture, fixture, fixture, fixture, fixture, fixture, tmp, tmp,
          fixture, tmp, tmp, fixture, fixture, tmp, tmp, fixture, tmp, tmp,
          fixture, fixture);
  fclose(f);
  return sh("cd %s && printf 'build/\\nout/\\n' >.gitignore && "
            "git init -q -b main . && git add -A && git -c user.name=t "
            "-c user.email=t@example.invalid commit -q -m init",
            repo);
}

static void test_refusals(void)
{
  TAP_OK(record("", "--output-directory out") == 2 &&
             output_has("record refused: CI is not set"),
         "outside CI an official record is refused");
  sh("touch %s/stray.txt", repo);
  TAP_OK(record("CI=true", "--output-directory out") == 2 &&
             output_has("record refused: the work tree has changes"),
         "a dirty work tree is refused");
  sh("rm %s/stray.txt && cd %s && git checkout -q -b topic", repo, repo);
  TAP_OK(record("CI=true", "--output-directory out") == 2 &&
             output_has("HEAD is on 'topic', not 'main'"),
         "a branch other than main is refused");
  sh("touch %s/stray.txt", repo);
  TAP_OK(record("", "--output-directory out") == 2 &&
             output_has("the work tree has changes; HEAD is on 'topic', not "
                        "'main'; CI is not set"),
         "every reason at once, on one line");
  sh("rm %s/stray.txt && cd %s && git checkout -q main", repo, repo);
  TAP_OK(record("CI=true", "--output-directory out --lanes fx-fx") == 2 &&
             output_has("an official record runs the full workload of every "
                        "lane"),
         "an official record cannot narrow its lanes");
  TAP_OK(record("", "--output-directory out --rehearse") == 0,
         "--rehearse runs anyway");
  TAP_OK(record("", "--output-directory out --no-conform") == 2 &&
             output_has("--no-conform: only with --rehearse"),
         "an official record cannot skip conformance");
}

/* A record runs the conformance of its runtimes beside its lanes; a case
 * that fails rejects it. */
static void test_conformance(void)
{
  char path[800];
  json_object *doc;
  struct stat st;

  sh("rm -rf %s/out", repo);
  TAP_OK(record("", "--output-directory out --rehearse --no-packages "
                    "--lanes loud-fx") == 1 &&
             output_has("conformance failed") &&
             output_has("lines on stderr, not one"),
         "a runtime that fails a conformance case rejects the record");
  snprintf(path, sizeof(path), "%s/out/rejected-linux-x86_64.json", repo);
  TAP_OK(stat(path, &st) == 0, "the lanes' data is in rejected-*.json");
  snprintf(path, sizeof(path), "%s/out/conform-linux-x86_64.json", repo);
  doc = json_object_from_file(path);
  TAP_OK(doc != NULL && strcmp(json_str_at(doc, "mode"), "conform") == 0 &&
             strcmp(json_str_at(doc, "conformance.loud.status"), "failed") ==
                 0 &&
             strcmp(json_str_at(doc, "conformance.fx.status"), "passed") == 0,
         "conform-<os>-<arch>.json holds both runtimes: loud failed, fx "
         "passed");
  if (doc)
    json_object_put(doc);
}

static void test_official(void)
{
  char path[800], head[64] = "", hex[65];
  json_object *doc;
  FILE *p;
  char *text;

  sh("rm -rf %s/out", repo);
  TAP_OK(record("CI=true GITHUB_ACTIONS=true GITHUB_WORKFLOW=record-flow "
                "GITHUB_RUN_ID=4242 GITHUB_RUN_ATTEMPT=2",
                "--output-directory out") == 0,
         "a clean main checkout in CI records");
  snprintf(path, sizeof(path), "%s/out/evidence-linux-x86_64.json", repo);
  doc = json_object_from_file(path);
  if (!TAP_OK(doc != NULL, "evidence-<os>-<arch>.json is written"))
    return;
  snprintf(path, sizeof(path), "cd %s && git rev-parse HEAD", repo);
  p = popen(path, "r");
  if (p != NULL) {
    if (fgets(head, sizeof(head), p) == NULL)
      head[0] = '\0';
    head[strcspn(head, "\n")] = '\0';
    pclose(p);
  }
  TAP_OK(json_object_get_boolean(json_at(doc, "official")) &&
             strcmp(json_str_at(doc, "mode"), "record") == 0,
         "it is official record evidence");
  TAP_OK(strcmp(json_str_at(doc, "provenance.commit"), head) == 0 &&
             strcmp(json_str_at(doc, "provenance.branch"), "main") == 0 &&
             json_object_get_boolean(json_at(doc, "provenance.clean")),
         "provenance: commit %s, branch, clean", head);
  TAP_OK(strcmp(json_str_at(doc, "provenance.ci.provider"), "github_actions") ==
                 0 &&
             strcmp(json_str_at(doc, "provenance.ci.workflow"),
                    "record-flow") == 0 &&
             strcmp(json_str_at(doc, "provenance.ci.run_id"), "4242") == 0 &&
             strcmp(json_str_at(doc, "provenance.ci.run_attempt"), "2") == 0,
         "provenance: the CI provider, workflow, run id and attempt");
  snprintf(path, sizeof(path), "%s/matrix.yaml", repo);
  json_object *m = json_at(doc, "provenance.matrix_sha256"), *v = NULL;
  TAP_OK(sha256_file(path, hex, path, sizeof(path)) == 0 && m &&
             json_object_object_get_ex(m, "matrix.yaml", &v) &&
             strcmp(json_object_get_string(v), hex) == 0,
         "provenance: the matrix file's SHA-256");
  TAP_OK(strcmp(json_str_at(doc, "runtimes.fx.toolchain_version"),
                "fixture 1.0") == 0 &&
             *json_str_at(doc, "machine.kernel") &&
             *json_str_at(doc, "machine.cpu_model"),
         "toolchain version and machine");
  json_object_put(doc);
  snprintf(path, sizeof(path), "%s/out/conform-linux-x86_64.json", repo);
  doc = json_object_from_file(path);
  TAP_OK(doc != NULL &&
             strcmp(json_str_at(doc, "conformance.fx.status"), "passed") == 0 &&
             strcmp(json_str_at(doc, "provenance.commit"), head) == 0 &&
             json_object_get_boolean(json_at(doc, "provenance.clean")),
         "the runtimes' conformance is beside it, passed, of the same commit");
  if (doc)
    json_object_put(doc);

  /* Nothing planted reaches the file. */
  snprintf(path, sizeof(path), "%s/out/evidence-linux-x86_64.json", repo);
  text = slurp(path);
  {
    struct passwd *pw = getpwuid(getuid());
    char host[256] = "";
    gethostname(host, sizeof(host));
    TAP_OK(strstr(text, SECRET) == NULL, "the planted secret is absent");
    TAP_OK(strstr(text, home) == NULL && strstr(text, "home-marker") == NULL,
           "the home folder is absent");
    TAP_OK(strstr(text, repo) == NULL && strstr(text, tmp) == NULL,
           "no absolute path of the repository or the temporary folder");
    {
      /* The methods name /proc/PID/status, a place, not a path of here. */
      int absolute = 0;
      for (char *p = text; (p = strchr(p, '/')) != NULL; p++)
        if ((p[-1] == '"' || p[-1] == ' ') && strncmp(p, "/proc/PID", 9))
          absolute++;
      TAP_OK(absolute == 0, "no absolute path at all (%d found)", absolute);
    }
    TAP_OK(strlen(host) < 3 || strstr(text, host) == NULL,
           "the host name is absent");
    TAP_OK(pw == NULL || strlen(pw->pw_name) < 3 ||
               strstr(text, pw->pw_name) == NULL,
           "the user name is absent");
  }
  free(text);
}

static void test_rejected_and_expectations(void)
{
  char path[800], expect[800];
  struct stat st;
  FILE *f;

  sh("rm -rf %s/out", repo);
  TAP_OK(record("", "--output-directory out --rehearse --no-conform --lanes "
                    "bad-loud") == 1 &&
             output_has("lane bad-loud failed on linux"),
         "a failed sample (after its retry) rejects the record");
  snprintf(path, sizeof(path), "%s/out/evidence-linux-x86_64.json", repo);
  TAP_OK(stat(path, &st) != 0, "no evidence file then");
  snprintf(path, sizeof(path), "%s/out/rejected-linux-x86_64.json", repo);
  {
    json_object *doc = json_object_from_file(path);
    TAP_OK(doc &&
               json_object_get_boolean(
                   json_at(doc, "lanes.bad-loud.samples.0.retried")) &&
               strcmp(json_str_at(
                          doc, "lanes.bad-loud.samples.0.first_attempt.reason"),
                      "result_mismatch") == 0,
           "the data is in rejected-<os>-<arch>.json, the retry recorded");
    if (doc)
      json_object_put(doc);
  }
  {
    /* A failed sample keeps its peers' stderr, which printed the planted
     * value and the home folder: the folder is scrubbed by place, the
     * value is the peer's own words (scrubbing is never by value). */
    char *text = slurp(path);
    TAP_OK(strstr(text, "$ENV") == NULL && strstr(text, SECRET) != NULL &&
               strstr(text, "home-marker") == NULL,
           "the rejected file keeps the failed sample's stderr, its home "
           "folder scrubbed");
    free(text);
  }
  snprintf(expect, sizeof(expect), "%s/expect.yaml", tmp);
  f = fopen(expect, "w");
  if (f == NULL)
    return;
  fprintf(f, "known_failures:\n  - lane: bad-fx\n    os: linux\n"
             "    reason: the bad client miscounts\n");
  fclose(f);
  sh("rm -rf %s/out", repo);
  {
    char args[1200];
    snprintf(
        args, sizeof(args),
        "--output-directory out --rehearse --no-conform --lanes bad-fx,fx-fx "
        "--expect %s",
        expect);
    TAP_OK(record("", args) == 0, "a known failure does not fail the run");
    snprintf(
        args, sizeof(args),
        "--output-directory out --rehearse --no-conform --lanes fx-fx,fx-bad "
        "--expect %s",
        expect);
  }
  f = fopen(expect, "w");
  if (f == NULL)
    return;
  fprintf(f, "known_failures:\n  - lane: fx-fx\n    os: linux\n"
             "    reason: thought broken\n");
  fclose(f);
  {
    char args[1200];
    snprintf(args, sizeof(args),
             "--output-directory out --rehearse --no-conform --lanes fx-fx "
             "--expect %s",
             expect);
    TAP_OK(record("", args) == 1 &&
               output_has("lane fx-fx passed on linux, but") &&
               output_has("expect.yaml:2 expects it to fail: the known "
                          "failure is fixed; delete that entry (lane: fx-fx, "
                          "os: linux)"),
           "an unexpected pass fails the run and says what to change");
  }
  f = fopen(expect, "w");
  if (f == NULL)
    return;
  fprintf(f, "known_failures:\n  - lane: fx-fx\n    os: plan9\n"
             "    reason: x\n");
  fclose(f);
  {
    char args[1200];
    snprintf(args, sizeof(args),
             "--output-directory out --rehearse --no-conform --expect %s",
             expect);
    TAP_OK(record("", args) == 2 &&
               output_has("expect.yaml:2:5: os 'plan9' is not linux, macos "
                          "or windows"),
           "a bad expectations file is refused with its place");
  }
  f = fopen(expect, "w");
  if (f == NULL)
    return;
  fprintf(f, "known_failures:\n  - lane: fx-fx\n    os: linux\n"
             "    reason: x\n  - lane: ghost-fx\n    os: windows\n"
             "    reason: a runtime since removed\n");
  fclose(f);
  {
    char args[1200];
    snprintf(args, sizeof(args),
             "--output-directory out --rehearse --no-conform --lanes fx-fx "
             "--expect %s",
             expect);
    sh("rm -rf %s/out", repo);
    TAP_OK(record("", args) == 2 &&
               output_has("expect.yaml:5: lane 'ghost-fx' (os: windows) is "
                          "not a lane of this run: a stale entry; delete it") &&
               !output_has("fx-fx passed"),
           "an entry for a lane not in the run is refused before any sample");
  }
}

static void test_shards(void)
{
  char path[800];
  json_object *a, *b;

  sh("rm -rf %s/out", repo);
  TAP_OK(record("", "--output-directory out --rehearse --no-conform --lanes "
                    "fx-fx,bad-fx,fx-bad "
                    "--shard 1/2 --no-packages") == 0,
         "shard 1/2 runs");
  TAP_OK(record("", "--output-directory out --rehearse --no-conform --lanes "
                    "fx-fx,bad-fx,fx-bad "
                    "--shard 2/2 --no-packages") == 1,
         "shard 2/2 runs (its bad lane fails it)");
  snprintf(path, sizeof(path), "%s/out/evidence-linux-x86_64-shard-1-of-2.json",
           repo);
  a = json_object_from_file(path);
  snprintf(path, sizeof(path), "%s/out/rejected-linux-x86_64-shard-2-of-2.json",
           repo);
  b = json_object_from_file(path);
  TAP_OK(a && b && json_object_get_int(json_at(a, "shard.count")) == 2 &&
             json_object_get_int(json_at(b, "shard.index")) == 2 &&
             json_object_get_int(json_at(b, "shard.lanes_total")) == 3 &&
             json_object_object_length(json_at(a, "lanes")) +
                     json_object_object_length(json_at(b, "lanes")) ==
                 3,
         "the two shards split the three lanes between them");
  if (a)
    json_object_put(a);
  if (b)
    json_object_put(b);
  TAP_OK(record("",
                "--output-directory out --rehearse --no-conform --shard 3/2") ==
                 2 &&
             output_has("--shard: expected K/N"),
         "a shard out of range is refused");
}

/* The rejected file's lane, its sample and the cleanliness after a
 * rehearsed record of lanes, from a fresh start of the fail-once peers. */
static json_object *record_once(const char *lanes, int *rc)
{
  char args[800], path[800];

  sh("rm -rf %s/out %s/m-*", repo, tmp);
  snprintf(args, sizeof(args),
           "--output-directory out --rehearse --no-conform --no-packages "
           "--timeout 1 "
           "--lanes %s",
           lanes);
  *rc = record("", args);
  snprintf(path, sizeof(path), "%s/out/rejected-linux-x86_64.json", repo);
  return json_object_from_file(path);
}

static void test_retries(void)
{
  char path[800];
  json_object *doc;
  int rc;

  /* A client that fails once: the lane is flaky, and both attempts are
   * evidence. */
  sh("rm -rf %s/out %s/m-client", repo, tmp);
  rc =
      record("", "--output-directory out --rehearse --no-conform --no-packages "
                 "--lanes once-fx");
  snprintf(path, sizeof(path), "%s/out/evidence-linux-x86_64.json", repo);
  doc = json_object_from_file(path);
  TAP_OK(rc == 1 && output_has("lane once-fx is flaky"),
         "a sample that fails once, then passes, makes a flaky lane");
  TAP_OK(doc &&
             strcmp(json_str_at(doc, "lanes.once-fx.summary.status"),
                    "flaky") == 0 &&
             json_object_get_boolean(
                 json_at(doc, "lanes.once-fx.samples.0.retried")) &&
             strcmp(json_str_at(doc,
                                "lanes.once-fx.samples.0.first_attempt.reason"),
                    "result_mismatch") == 0 &&
             strcmp(json_str_at(doc, "lanes.once-fx.samples.0.first_attempt."
                                     "checks.client_result.outcome"),
                    "failed") == 0 &&
             json_object_get_boolean(json_at(
                 doc, "lanes.once-fx.samples.0.first_attempt.client.started")),
         "the first attempt's checks and peers are in the evidence");
  TAP_OK(
      doc &&
          json_object_get_int(json_at(doc, "cleanliness.pairs_started")) == 3 &&
          json_object_get_int(json_at(doc, "cleanliness.natural_exits")) == 3,
      "pairs_started counts both attempts of the retried sample (%d)",
      doc ? json_object_get_int(json_at(doc, "cleanliness.pairs_started"))
          : -1);
  TAP_OK(sh("%s validate %s >%s/out.txt 2>&1", crossrun_path, path, tmp) == 0,
         "validate accepts a retried sample's evidence");
  if (doc)
    json_object_put(doc);

  /* A server that leaves an orphan once: never retried into green. */
  doc = record_once("fx-once", &rc);
  TAP_OK(rc == 1 && output_has("lane fx-once failed on linux") &&
             !output_has("retrying"),
         "a sample that left a process fails its lane at once");
  TAP_OK(doc &&
             strcmp(json_str_at(doc, "lanes.fx-once.summary.status"),
                    "failed") == 0 &&
             !json_object_get_boolean(
                 json_at(doc, "lanes.fx-once.samples.0.retried")) &&
             json_at(doc, "lanes.fx-once.samples.0.first_attempt") == NULL &&
             strcmp(json_str_at(doc, "lanes.fx-once.samples.0.failure.reason"),
                    "orphan_process") == 0,
         "it is not retried: the orphan is the sample's failure");
  TAP_OK(doc &&
             json_object_get_int(json_at(doc, "cleanliness.processes_left")) >=
                 1 &&
             json_object_get_int(json_at(doc, "cleanliness.pairs_started")) ==
                 2,
         "the orphan counts in processes_left, one pair per sample");
  if (doc)
    json_object_put(doc);

  /* A server that leaves a file once. */
  doc = record_once("fx-leave", &rc);
  TAP_OK(rc == 1 && doc &&
             strcmp(json_str_at(doc, "lanes.fx-leave.summary.status"),
                    "failed") == 0 &&
             !json_object_get_boolean(
                 json_at(doc, "lanes.fx-leave.samples.0.retried")) &&
             json_object_get_int(
                 json_at(doc, "cleanliness.temp_entries_left")) >= 1,
         "a sample that left a temporary entry is not retried either");
  if (doc)
    json_object_put(doc);

  /* A client that hangs once is terminated at its deadline. */
  doc = record_once("hang-fx", &rc);
  TAP_OK(rc == 1 && doc &&
             strcmp(json_str_at(doc, "lanes.hang-fx.summary.status"),
                    "failed") == 0 &&
             !json_object_get_boolean(
                 json_at(doc, "lanes.hang-fx.samples.0.retried")) &&
             json_object_get_int(
                 json_at(doc, "cleanliness.forced_terminations")) >= 1,
         "a sample whose peer was terminated is not retried either");
  if (doc)
    json_object_put(doc);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char cwd[512], crossrun[1024];

  if (getcwd(cwd, sizeof(cwd)) == NULL || tap_mkdtemp(tmp, sizeof tmp) == NULL)
    return 1;
  snprintf(crossrun, sizeof(crossrun), "%s/%s/crossrun", cwd, build);
  snprintf(fixture, sizeof(fixture), "%s/%s/tests/fixture", cwd, build);
  snprintf(crossrun_path, sizeof(crossrun_path), "%s", crossrun);
  if (TAP_OK(make_repo(crossrun) == 0, "a throwaway git repository")) {
    test_refusals();
    test_official();
    test_conformance();
    test_rejected_and_expectations();
    test_shards();
    test_retries();
  }
  if (getenv("KEEP_TEST_DIR") == NULL)
    sh("rm -rf %s", tmp);
  else
    tap_diag("kept %s", tmp);
  return tap_done();
}
