/* crossrun where its caller or its input is odd: a closed output pipe, an
 * --out it cannot write, a run where no lane could run (in CI and out of
 * it), a program that is there but cannot be run, a matrix of many
 * runtimes, and what the help texts promise. Each run goes through sh, so
 * that pipes and the environment are those a user would have. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_json.h"
#include "tests/tap.h"

static char dir[512], crossrun[1024], fixture[1024];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
  char cmd[8192];
  va_list ap;
  int status;

  va_start(ap, fmt);
  vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *name)
{
  char path[700];
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

/* dir/name's text, valid until the next call. */
static const char *slurp_keep(const char *name)
{
  static char *text;

  free(text);
  text = slurp(name);
  return text;
}

/* Whether dir/name holds needle; shows the file when not. */
static int file_has(const char *name, const char *needle)
{
  char *text = slurp(name);
  int found = strstr(text, needle) != NULL;

  if (!found)
    tap_diag("%s: %s", name, text);
  free(text);
  return found;
}

static const char *write_file(const char *name, const char *text)
{
  static char path[700];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

/* A matrix of fixture runtimes "a" and "b" and a small quick workload. */
static const char *fixture_matrix(void)
{
  char m[2048];

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  a:\n    client: [%s, client, ok]\n    server: [%s, server, ok]\n"
           "  b:\n    client: [%s, client, ok]\n    server: [%s, server, ok]\n"
           "workloads:\n"
           "  quick: {warmup: 10, round_trips: 200, payload_bytes: 16, "
           "max_in_flight: 4, samples: 1}\n",
           fixture, fixture, fixture, fixture);
  return write_file("ab.yaml", m);
}

static void test_closed_pipe(void)
{
  char out[700];
  json_object *doc;
  int rc;

  snprintf(out, sizeof(out), "%s/pipe.json", dir);
  /* head exits after the first progress line; every later line, and the
   * summary, go to a closed pipe. */
  rc = sh(
      "cd %s && { %s quick --matrix %s --lanes a-a,a-b,b-a,b-b --no-packages "
      "--progress --samples 2 --out %s 2>&1; echo \"exit $?\" >%s/pipe.rc; "
      "} | head -1 >/dev/null",
      dir, crossrun, fixture_matrix(), out, dir);
  doc = json_object_from_file(out);
  TAP_OK(rc == 0 && file_has("pipe.rc", "exit 0"),
         "a closed output pipe does not kill the run");
  TAP_OK(doc && json_object_get_boolean(json_at(doc, "complete")) &&
             json_object_object_length(json_at(doc, "lanes")) == 4 &&
             json_object_get_int(json_at(doc, "cleanliness.pairs_started")) ==
                 8,
         "its evidence is complete: every lane, every sample");
  if (doc)
    json_object_put(doc);
}

static int file_empty(const char *name)
{
  char *text = slurp(name);
  int empty = text[0] == '\0';

  if (!empty)
    tap_diag("%s: %s", name, text);
  free(text);
  return empty;
}

/* crossrun quick on the fixture matrix with --out out; its stdout and
 * stderr in dir/name.out and dir/name.err. */
static int quick_out(const char *name, const char *out)
{
  return sh("cd %s && %s quick --matrix %s --no-packages --out %s >%s/%s.out "
            "2>%s/%s.err",
            dir, crossrun, fixture_matrix(), out, dir, name, dir, name);
}

static void test_unwritable_out(void)
{
  char out[700];
  int rc;

  /* A read-only folder stops only those who are not root. */
  if (geteuid() != 0) {
    sh("mkdir -p %s/ro && chmod 555 %s/ro", dir, dir);
    snprintf(out, sizeof(out), "%s/ro/x.json", dir);
    rc = quick_out("ro", out);
    TAP_OK(rc == 2 && file_has("ro.err", "cannot write the evidence") &&
               file_has("ro.err", "Permission denied"),
           "an --out in a read-only folder exits 2 (exit %d)", rc);
    TAP_OK(file_empty("ro.out"), "before any sample ran");
    sh("chmod 755 %s/ro", dir);
  }
  sh("mkdir -p %s/isdir.json", dir);
  snprintf(out, sizeof(out), "%s/isdir.json", dir);
  rc = quick_out("isdir", out);
  TAP_OK(rc == 2 && file_has("isdir.err", "is a folder") &&
             file_empty("isdir.out"),
         "an --out that is a folder exits 2 before any sample (exit %d)", rc);
  snprintf(out, sizeof(out), "%s/no/such/x.json", dir);
  rc = quick_out("nodir", out);
  TAP_OK(rc == 2 && file_has("nodir.err", "No such file or directory") &&
             file_empty("nodir.out"),
         "an --out in a missing folder exits 2, one line (exit %d)", rc);
  write_file("a-file", "x\n");
  rc = sh("cd %s && %s record --rehearse --output-directory a-file --matrix "
          "%s --lanes a-a --no-packages >rec.out 2>rec.err",
          dir, crossrun, fixture_matrix());
  TAP_OK(rc == 2 && file_has("rec.err", "cannot write the evidence") &&
             file_empty("rec.out"),
         "a record whose --output-directory is a file exits 2 before any "
         "sample (exit %d)",
         rc);
}

/* A temporary folder that is missing, or a file, is one line and exit 2
 * before anything is built or run, not a runner_error in every sample (or
 * an error in every conform case). */
static void test_bad_tmpdir(void)
{
  const char *what[] = {"no/such", "a-file"};
  char out[700];
  int rc;

  snprintf(out, sizeof(out), "%s/tmp.json", dir);
  write_file("a-file", "x\n");
  for (int i = 0; i < 2; i++) {
    rc = sh("cd %s && TMPDIR=%s/%s %s quick --matrix %s --no-packages "
            "--out tmp.json >tmp.out 2>tmp.err",
            dir, dir, what[i], crossrun, fixture_matrix());
    TAP_OK(rc == 2 &&
               file_has("tmp.err", "cannot create a temporary directory in") &&
               file_empty("tmp.out") && access(out, F_OK) != 0,
           "a TMPDIR that is %s exits 2 with one line, before any sample "
           "(exit %d)",
           i == 0 ? "missing" : "a file", rc);
  }
  rc = sh("cd %s && TMPDIR=%s/no/such %s conform --matrix %s --runtimes a "
          "--out tmp.json >tmp.out 2>tmp.err",
          dir, dir, crossrun, fixture_matrix());
  TAP_OK(rc == 2 &&
             file_has("tmp.err", "crossrun conform: cannot create a "
                                 "temporary directory in") &&
             file_empty("tmp.out") && access(out, F_OK) != 0,
         "and so does conform, before any case (exit %d)", rc);
}

static void test_help_texts(void)
{
  int rc;

  rc = sh("%s record --help >%s/rh.out 2>&1", crossrun, dir);
  TAP_OK(rc == 0 && file_has("rh.out", "--output-directory") &&
             !strstr(slurp_keep("rh.out"), "--out "),
         "record --help lists no --out (its files are named by "
         "--output-directory)");
  rc = sh("%s record --output-directory x --out y.json >%s/ro2.out 2>&1",
          crossrun, dir);
  TAP_OK(rc == 2 && file_has("ro2.out", "'--out'"),
         "record refuses --out rather than ignoring it (exit %d)", rc);
  rc = sh("%s merge --help >%s/mh.out 2>&1", crossrun, dir);
  TAP_OK(rc == 0 && file_has("mh.out", "pinned: true") &&
             !strstr(slurp_keep("mh.out"), "no pin field"),
         "merge --help says the matrix's pinned: true is honoured");
}

static void test_not_executable(void)
{
  char m[2048], out[700];
  json_object *doc;
  int rc;

  sh("mkdir -p %s/bin && printf '#!/bin/sh\\n' >%s/bin/crossrun-noexec && "
     "chmod 644 %s/bin/crossrun-noexec && cp %s/bin/crossrun-noexec "
     "%s/peer.sh",
     dir, dir, dir, dir, dir);
  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  onpath:\n    client: [crossrun-noexec, client]\n"
           "    server: [crossrun-noexec, server]\n"
           "  local:\n    client: [./peer.sh, client]\n"
           "    server: [./peer.sh, server]\n");
  write_file("noexec.yaml", m);
  snprintf(out, sizeof(out), "%s/noexec.json", dir);
  rc = sh("cd %s && PATH=%s/bin:$PATH %s quick --matrix noexec.yaml --lanes "
          "onpath-onpath,local-local --no-packages --out %s >%s/noexec.out "
          "2>&1",
          dir, dir, crossrun, out, dir);
  doc = json_object_from_file(out);
  TAP_OK(rc != 0 && doc &&
             strstr(json_str_at(doc, "runtimes.onpath.reason"),
                    "'crossrun-noexec' (its client program) is on PATH but "
                    "not executable"),
         "a program on PATH without execute permission is 'not executable', "
         "not missing: %s",
         doc ? json_str_at(doc, "runtimes.onpath.reason") : "no evidence");
  TAP_OK(doc && strstr(json_str_at(doc, "runtimes.local.reason"),
                       "its client program './peer.sh' is not executable"),
         "so is a program named by its path: %s",
         doc ? json_str_at(doc, "runtimes.local.reason") : "no evidence");
  if (doc)
    json_object_put(doc);
}

/* quick on lanes of the fixture runtime "a" and a missing "ghost"
 * (optional: true when asked), with env before it; stderr in
 * dir/name.err. */
static int quick_ghost(const char *name, const char *env, int optional,
                       const char *lanes, const char *flags)
{
  char m[2048], file[64];

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  a:\n    client: [%s, client, ok]\n    server: [%s, server, ok]\n"
           "  ghost:\n    client: [crossrun-no-such-program, client]\n"
           "    server: [crossrun-no-such-program, server]\n%s"
           "workloads:\n"
           "  quick: {warmup: 10, round_trips: 200, payload_bytes: 16, "
           "max_in_flight: 4, samples: 1}\n",
           fixture, fixture, optional ? "    optional: true\n" : "");
  snprintf(file, sizeof(file), "%s.yaml", name);
  write_file(file, m);
  return sh("cd %s && env -u CI %s %s quick --matrix %s --lanes %s "
            "--no-packages --out %s.json %s >%s.out 2>%s.err",
            dir, env, crossrun, file, lanes, name, flags, name, name);
}

static void test_unavailable(void)
{
  int rc;

  rc = quick_ghost("none", "", 0, "ghost-ghost", "");
  TAP_OK(rc == 1 && file_has("none.err", "no lane ran: every selected lane "
                                         "is unavailable or broken"),
         "a run where no lane ran exits 1 with a line saying so (exit %d)", rc);
  rc = quick_ghost("none-ci", "CI=true", 1, "ghost-ghost",
                   "--allow-unavailable");
  TAP_OK(rc == 1 && file_has("none-ci.err", "no lane ran"),
         "nothing allows a run that tested nothing (exit %d)", rc);
  rc = quick_ghost("local", "", 0, "a-a,ghost-a", "");
  TAP_OK(rc == 0,
         "outside CI an unavailable lane beside one that ran "
         "passes (exit %d)",
         rc);
  rc = quick_ghost("ci", "CI=true", 0, "a-a,ghost-a", "");
  TAP_OK(rc == 1 && file_has("ci.err", "lane ghost-a is unavailable in CI: "
                                       "'crossrun-no-such-program'"),
         "in CI an unavailable lane fails the run, with its reason (exit %d)",
         rc);
  rc = quick_ghost("ci-flag", "CI=true", 0, "a-a,ghost-a",
                   "--allow-unavailable");
  TAP_OK(rc == 0, "--allow-unavailable accepts it (exit %d)", rc);
  rc = quick_ghost("ci-optional", "CI=true", 1, "a-a,ghost-a", "");
  TAP_OK(rc == 0, "so does optional: true on the runtime (exit %d)", rc);
}

static void test_packages(void)
{
  char m[4096], out[700];
  json_object *doc;
  int rc;

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  listing:\n    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n"
           "    package:\n"
           "      command: [sh, -c, 'printf \"#mtree\\\\n./index.js "
           "type=file size=100\\\\n\" >\"$0/x.tgz\"', '{out}']\n"
           "      artifact: '*.tgz'\n"
           "  twice:\n    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n"
           "    package:\n"
           "      command: [sh, -c, 'mkdir %s/packed 2>/dev/null || exit 5; "
           "tar -czf \"$0/t.tgz\" -C %s ab.yaml', '{out}']\n"
           "      artifact: '*.tgz'\n"
           "  together:\n    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n"
           "    package:\n"
           "      command: [sh, -c, 'touch \"%s/meet.$$\"; i=0; while [ "
           "$(ls %s | grep -c meet) -lt 2 ]; do i=$((i+1)); [ $i -gt 400 ] "
           "&& exit 3; sleep 0.05; done; tar -czf \"$0/t.tgz\" -C %s "
           "ab.yaml', '{out}']\n"
           "      artifact: '*.tgz'\n",
           fixture, fixture, fixture, fixture, dir, dir, fixture, fixture, dir,
           dir, dir);
  write_file("pack.yaml", m);
  fixture_matrix();
  snprintf(out, sizeof(out), "%s/pack.json", dir);
  /* run, not quick: a smoke check packs once. */
  rc = sh("cd %s && rm -rf packed meet.* && %s run --matrix pack.yaml "
          "--lanes listing-listing,twice-twice,together-together --samples 1 "
          "--warmup 0 --round-trips 20 --no-progress --out %s "
          ">pack.out 2>pack.err",
          dir, crossrun, out);
  doc = json_object_from_file(out);
  TAP_OK(rc == 1 && file_has("pack.err", "the package of runtime 'listing' "
                                         "was not measured"),
         "an artifact that is not an archive fails the run (exit %d)", rc);
  TAP_OK(doc && json_at(doc, "runtimes.listing.package.packed_bytes") == NULL &&
             strstr(json_str_at(doc, "runtimes.listing.package.error"),
                    "not an archive of a package format"),
         "its figures are null, with the reason: %s",
         doc ? json_str_at(doc, "runtimes.listing.package.error") : "-");
  /* Its two packings run side by side: which of them fails is chance. */
  TAP_OK(file_has("pack.err", "the package of runtime 'twice' was not "
                              "measured: ") &&
             doc &&
             strstr(json_str_at(doc, "runtimes.twice.package.error"),
                    "exited with 5"),
         "a package command that fails one of its two times fails the run "
         "too: %s",
         doc ? json_str_at(doc, "runtimes.twice.package.error") : "-");
  TAP_OK(doc && json_object_get_boolean(
                    json_at(doc, "runtimes.together.package.reproducible")),
         "the two packings run side by side (each waits to see the other): "
         "%s",
         doc ? json_str_at(doc, "runtimes.together.package.error") : "-");
  if (doc)
    json_object_put(doc);
}

static void test_forty_runtimes(void)
{
  char *m = malloc(40 * 2200 + 512), out[700];
  size_t used = 0;
  json_object *doc;
  int rc;

  if (m == NULL)
    return;
  used += (size_t)sprintf(m, "runtimes:\n");
  for (int i = 1; i <= 40; i++)
    used += (size_t)sprintf(m + used,
                            "  r%d:\n    client: [%s, client, ok]\n"
                            "    server: [%s, server, ok]\n",
                            i, fixture, fixture);
  sprintf(m + used, "workloads:\n  quick: {warmup: 10, round_trips: 200, "
                    "payload_bytes: 16, max_in_flight: 4, samples: 1}\n");
  write_file("forty.yaml", m);
  free(m);
  snprintf(out, sizeof(out), "%s/forty.json", dir);
  rc = sh("cd %s && %s quick --matrix forty.yaml --lanes r40-r1,r1-r40,r17-r23 "
          "--no-packages --out %s >forty.out 2>forty.err",
          dir, crossrun, out);
  doc = json_object_from_file(out);
  TAP_OK(rc == 0 && doc &&
             json_object_object_length(json_at(doc, "lanes")) == 3 &&
             strcmp(json_str_at(doc, "lanes.r40-r1.summary.status"),
                    "passed") == 0 &&
             strcmp(json_str_at(doc, "lanes.r17-r23.summary.status"),
                    "passed") == 0,
         "a matrix of 40 runtimes runs (exit %d)", rc);
  if (doc)
    json_object_put(doc);
}

/* The progress estimate comes from the samples alone: a build of 3 s
 * before them does not make the first line promise seconds more. */
static void test_eta_after_build(void)
{
  char m[2048], out[700];
  int rc;

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  a:\n    build: [sleep, '3']\n"
           "    client: [%s, client, ok]\n    server: [%s, server, ok]\n",
           fixture, fixture);
  write_file("slow-build.yaml", m);
  snprintf(out, sizeof(out), "%s/eta.json", dir);
  rc = sh("cd %s && %s quick --matrix %s --matrix slow-build.yaml --lanes "
          "a-a --samples 3 --no-packages --progress --out %s 2>eta.err "
          ">/dev/null",
          dir, crossrun, fixture_matrix(), out);
  TAP_OK(rc == 0 && file_has("eta.err", "building runtime 'a'"),
         "a run with a slow build passes");
  TAP_OK(file_has("eta.err", "round 1/3") && file_has("eta.err", "eta 0m00s") &&
             !strstr(slurp_keep("eta.err"), "eta 0m06s"),
         "its first estimate counts the samples, not the build");
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char cwd[900], root[1024];

  /* The runs below must meet SIGPIPE as a user's shell would. */
  signal(SIGPIPE, SIG_DFL);
  if (getcwd(cwd, sizeof(cwd)) == NULL || tap_mkdtemp(dir, sizeof dir) == NULL)
    return 1;
  snprintf(root, sizeof(root), "%s",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : cwd);
  snprintf(crossrun, sizeof(crossrun), "%s/%s/crossrun", root, build);
  snprintf(fixture, sizeof(fixture), "%s/%s/tests/fixture", root, build);
  test_closed_pipe();
  test_unwritable_out();
  test_bad_tmpdir();
  test_help_texts();
  test_not_executable();
  test_unavailable();
  test_packages();
  test_forty_runtimes();
  test_eta_after_build();
  if (getenv("KEEP_TEST_DIR") == NULL)
    sh("chmod -R u+w %s; rm -rf %s", dir, dir);
  else
    tap_diag("kept %s", dir);
  return tap_done();
}
