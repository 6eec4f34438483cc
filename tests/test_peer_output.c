/* What hostile peers print, as the runner reads it into evidence:
 * - the evidence scrubber as a peer reaches it: a server whose stderr and
 *   READY line, and a client whose stderr, hold the shortest absolute
 *   paths ("/a/b", "/", "//") and MSYS-style ones ("/c/Users/x"): the
 *   fixture's short-paths mode;
 * - a READY line with a NUL byte and more after the port (ready-nul),
 *   which is not the contract's `READY <port>`.
 * The run must end with its evidence written and each sample failed for
 * its own reason, not with the coordinator crashed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_child.h"
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
  FILE *f;
  int rc;

  snprintf(matrix, sizeof(matrix), "%s/paths.yaml", dir);
  snprintf(out, sizeof(out), "%s/paths.json", dir);
  f = fopen(matrix, "w");
  if (f == NULL) {
    TAP_OK(0, "cannot write %s", matrix);
    return;
  }
  fprintf(f,
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
          fixture, fixture, fixture, fixture, fixture, fixture);
  fclose(f);

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
  if (scratch_remove_tree(dir, 4) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
