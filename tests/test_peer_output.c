/* What hostile peers print, as the runner reads it into evidence and
 * shows it on its terminal:
 * - the evidence scrubber as a peer reaches it: a server whose stderr and
 *   READY line, and a client whose stderr, hold the shortest absolute
 *   paths ("/a/b", "/", "//") and MSYS-style ones ("/c/Users/x"): the
 *   fixture's short-paths mode;
 * - a READY line with a NUL byte and more after the port (ready-nul),
 *   which is not the contract's `READY <port>`.
 * - terminal controls on stderr (the escapes mode), from a client and from
 *   a package command: kept exactly in the evidence, and shown as '?' in
 *   what crossrun and crossrun rerun print (evidence/base/term_text.h), so that
 *   no line of crossrun's is erased, rewritten or forged.
 * The run must end with its evidence written and each sample failed for
 * its own reason, not with the coordinator crashed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_child.h"
#include "tests/lib_env.h"
#include "tests/lib_json.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char dir[512], crossrun[1024], fixture[1024];

/* Runs crossrun with args, at most seconds. Its exit code, 128 + N for
 * signal N, or -1 when it was killed at the deadline or did not start. */
static int run(const char *const *args, double seconds)
{
  const char *argv[16];
  struct child_run r;
  int n = 0, rc;

  argv[n++] = crossrun;
  while (args[n - 1] != NULL && n < 15) {
    argv[n] = args[n - 1];
    n++;
  }
  argv[n] = NULL;
  rc = child_run(&r, argv, NULL, NULL, seconds);
  rc = rc != 0 || r.timed_out || !r.exited ? -1
       : r.term_signal                     ? 128 + r.term_signal
                                           : (int)r.exit_status;
  if (rc != 1)
    child_explain(&r, "crossrun");
  child_release(&r);
  return rc;
}

/* Writes dir/name from a format, its path into path. 0, or -1 with a
 * failed check. */
static TAP_PRINTF(4, 5) int write_file(char *path, size_t len, const char *name,
                                       const char *fmt, ...)
{
  va_list ap;
  FILE *f;

  snprintf(path, len, "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f == NULL) {
    TAP_OK(0, "cannot write %s", path);
    return -1;
  }
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  return fclose(f) == 0 ? 0 : -1;
}

/* The first sample of lane in doc, as "lanes.<lane>.samples.0.<what>". */
static const char *sample_str(json_object *doc, const char *lane,
                              const char *what)
{
  char path[256];
  snprintf(path, sizeof(path), "lanes.%s.samples.0.%s", lane, what);
  return json_str_at(doc, path);
}

static void test_hostile_peers(void)
{
  char matrix[600], out[600];
  const char *args[] = {
      "quick",         "--matrix", matrix, "--lanes",       "fx-sp,sp-fx,fx-rn",
      "--no-packages", "--out",    out,    "--no-progress", NULL};
  json_object *doc;
  int rc;

  snprintf(out, sizeof(out), "%s/paths.json", dir);
  if (write_file(matrix, sizeof(matrix), "paths.yaml",
                 "runtimes:\n"
                 "  sp:\n"
                 "    client: [%s, client, short-paths]\n"
                 "    server: [%s, server, short-paths]\n"
                 "  fx:\n"
                 "    client: [%s, client, ok]\n"
                 "    server: [%s, server, ok]\n"
                 "  rn:\n"
                 "    client: [%s, client, ok]\n"
                 "    server: [%s, server, ready-nul]\n",
                 fixture, fixture, fixture, fixture, fixture, fixture) != 0)
    return;

  rc = run(args, tap_timeout_s(120));
  TAP_OK(rc == 1,
         "peers printing short paths fail the run, and it ends "
         "by itself (exit %d; 139 is the coordinator's SIGSEGV)",
         rc);
  doc = json_object_from_file(out);
  if (!TAP_OK(doc != NULL, "the evidence is written"))
    return;
  TAP_OK(json_object_get_boolean(json_at(doc, "complete")), "and complete");

  /* fx-sp: the fx client against the short-paths server. */
  TAP_OK(strcmp(sample_str(doc, "fx-sp", "failure.reason"),
                "server_not_ready") == 0 &&
             strcmp(sample_str(doc, "fx-sp", "failure.message"),
                    "server printed 'READY .../b' instead of "
                    "'READY <port>'") == 0,
         "a READY line holding a path fails as server_not_ready, its path "
         "shortened: %s: %s",
         sample_str(doc, "fx-sp", "failure.reason"),
         sample_str(doc, "fx-sp", "failure.message"));
  TAP_OK(strcmp(sample_str(doc, "fx-sp", "server.stderr.text"),
                "fixture server: cannot open .../b, / or // "
                "(see .../x and .../x)\n") == 0,
         "the server's stderr is kept, every folder hidden: %s",
         sample_str(doc, "fx-sp", "server.stderr.text"));

  /* sp-fx: the short-paths client against the fx server. */
  TAP_OK(strcmp(sample_str(doc, "sp-fx", "failure.reason"), "client_exit") ==
                 0 &&
             strcmp(sample_str(doc, "sp-fx", "failure.message"),
                    "client exited with 3: fixture client: cannot open "
                    ".../b, / or // (see .../x and .../x)") == 0,
         "a client's stderr holding paths fails as its own exit: %s: %s",
         sample_str(doc, "sp-fx", "failure.reason"),
         sample_str(doc, "sp-fx", "failure.message"));

  /* fx-rn: the fx client against a server whose READY line goes on after
   * a NUL byte. */
  TAP_OK(strcmp(sample_str(doc, "fx-rn", "failure.reason"),
                "server_not_ready") == 0 &&
             strstr(sample_str(doc, "fx-rn", "failure.message"),
                    "? and more' instead of 'READY <port>'") != NULL,
         "a READY line that goes on after a NUL byte is not READY, and "
         "the message shows the byte: %s: %s",
         sample_str(doc, "fx-rn", "failure.reason"),
         sample_str(doc, "fx-rn", "failure.message"));
  json_object_put(doc);
}

/* The first fault of what crossrun printed as a terminal shows it: a
 * control character other than the line ends crossrun writes ("\n", and
 * "\r\n" on Windows), a C1 control, a bidirectional override, or a line
 * that starts with a CI runner's "::"; NULL when there is none. */
static const char *terminal_fault(const char *text)
{
  for (const char *p = text; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if ((p == text || p[-1] == '\n') && strncmp(p, "::", 2) == 0)
      return "a line starts with '::'";
    if ((c < 0x20 && c != '\n' && !(c == '\r' && p[1] == '\n')) || c == 0x7f)
      return "a control character";
    if (c == 0xc2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] < 0xa0)
      return "a C1 control";
    if (strncmp(p, "\xe2\x80\xae", 3) == 0)
      return "a right-to-left override";
  }
  return NULL;
}

static void test_escapes(void)
{
  char matrix[600], out[600], rerun_out[600], un_out[600], ci[64];
  const char *args[] = {crossrun,  "quick",       "--matrix",      matrix,
                        "--lanes", "es-fx,eb-fx", "--transport",   "tcp",
                        "--out",   out,           "--no-progress", NULL};
  const char *rerun[] = {crossrun,  "rerun", out,     "--lane",  "es-fx",
                         "--round", "1",     "--out", rerun_out, NULL};
  const char *unavailable[] = {
      crossrun,        "quick", "--matrix", matrix,          "--lanes", "un-fx",
      "--no-packages", "--out", un_out,     "--no-progress", NULL};
  const char *shown = "client exited with 3: fixture client: "
                      "?[1A?[2Kall|passed??31m?deR?";
  struct child_run r;
  json_object *doc;
  const char *fault;
  int rc;

  snprintf(out, sizeof(out), "%s/escapes.json", dir);
  snprintf(rerun_out, sizeof(rerun_out), "%s/escapes-rerun.json", dir);
  snprintf(un_out, sizeof(un_out), "%s/unavailable.json", dir);
  if (write_file(matrix, sizeof(matrix), "escapes.yaml",
                 "runtimes:\n"
                 "  es:\n"
                 "    client: [%s, client, escapes]\n"
                 "    server: [%s, server, ok]\n"
                 "    package:\n"
                 "      command: [%s, client, escapes]\n"
                 "      artifact: x.tgz\n"
                 "  eb:\n"
                 "    build: [%s, client, escapes]\n"
                 "    client: [%s, client, ok]\n"
                 "    server: [%s, server, ok]\n"
                 "  un:\n"
                 "    client: [\"no-such-\\e[2Kclient\"]\n"
                 "    server: [%s, server, ok]\n"
                 "  fx:\n"
                 "    client: [%s, client, ok]\n"
                 "    server: [%s, server, ok]\n",
                 fixture, fixture, fixture, fixture, fixture, fixture, fixture,
                 fixture, fixture) != 0)
    return;

  rc = child_run(&r, args, NULL, NULL, tap_timeout_s(120));
  TAP_OK(rc == 0 && r.exited && r.exit_status == 1,
         "a client, a build and a package command printing terminal "
         "controls fail the run (exit %d)",
         (int)r.exit_status);
  fault = terminal_fault(r.stdout_buf);
  TAP_OK(fault == NULL, "crossrun's summary holds no terminal control: %s",
         fault ? fault : "none");
  fault = terminal_fault(r.stderr_buf);
  TAP_OK(fault == NULL, "nor what it printed on stderr: %s",
         fault ? fault : "none");
  TAP_HAS_STR(r.stdout_buf, shown,
              "the client's failure shows each control as '?'");
  TAP_HAS_STR(r.stdout_buf, "exited with 3: ::error::forged\\|cell?[0m |",
              "the package's failure stays in its cell of the Markdown "
              "table, its pipe escaped");
  TAP_HAS_STR(r.stderr_buf, "exited with 3: ::error::forged|cell?[0m\n",
              "the package's failure is on stderr too, shown the same");
  TAP_HAS_STR(r.stdout_buf, "exited with 3: ::error::forged|cell?[0m\n",
              "the build's failure is shown the same");
  child_release(&r);

  /* In CI a lane that cannot run fails the run, with its reason. */
  snprintf(ci, sizeof(ci), "%s", getenv("CI") ? getenv("CI") : "");
  env_set("CI", "true");
  rc = child_run(&r, unavailable, NULL, NULL, tap_timeout_s(60));
  env_set("CI", ci[0] ? ci : NULL);
  TAP_OK(rc == 0 && r.exited && r.exit_status == 1,
         "in CI, a lane whose program is missing fails the run (exit %d)",
         (int)r.exit_status);
  TAP_HAS_STR(r.stderr_buf,
              "un-fx is unavailable in CI: 'no-such-?[2Kclient' (its client "
              "program)",
              "it is named on stderr, its program's name shown the same");
  fault = terminal_fault(r.stderr_buf);
  TAP_OK(fault == NULL, "with no terminal control: %s", fault ? fault : "none");
  fault = terminal_fault(r.stdout_buf);
  TAP_OK(fault == NULL, "nor in the summary: %s", fault ? fault : "none");
  child_release(&r);

  doc = json_object_from_file(out);
  if (TAP_OK(doc != NULL, "the evidence is written")) {
    TAP_HAS_STR(sample_str(doc, "es-fx", "failure.message"),
                "fixture client: \033[1A\033[2Kall|passed\r\xc2\x9b"
                "31m\xe2\x80\xae"
                "deR",
                "the evidence keeps what the client printed exactly");
    json_object_put(doc);
  }

  rc = child_run(&r, rerun, NULL, NULL, tap_timeout_s(120));
  TAP_OK(rc == 0 && r.exited && r.exit_status == 1,
         "crossrun rerun fails it again (exit %d)", (int)r.exit_status);
  fault = terminal_fault(r.stdout_buf);
  TAP_OK(fault == NULL, "and prints no terminal control: %s",
         fault ? fault : "none");
  TAP_HAS_STR(r.stdout_buf, shown, "the recorded outcome shown as '?' too");
  child_release(&r);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  const char *root = getenv("CROSSRUN_ROOT");
  char cwd[900];

  if (getcwd(cwd, sizeof(cwd)) == NULL || tap_mkdtemp(dir, sizeof dir) == NULL)
    return 1;
  snprintf(crossrun, sizeof(crossrun), "%s/%s/crossrun", root ? root : cwd,
           build);
  snprintf(fixture, sizeof(fixture), "%s/%s/tests/fixture", root ? root : cwd,
           build);
  test_hostile_peers();
  test_escapes();
  if (scratch_remove_tree(dir, 4) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
