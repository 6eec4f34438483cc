/* Reproduce commands reproduce: a quick of fixture lanes that fail each
 * for its own reason (a client exit, a server that never prints READY, a
 * client past its deadline, a wrong count, a server killed by a signal),
 * from a matrix file outside the repository named relative to the folder
 * it ran from, with its own seed and timeouts. Every failed sample's
 * reproduce line, run through /bin/sh from its stated directory, and
 * `crossrun rerun` of it fail the lane again for the recorded reason. And
 * `crossrun rerun` refuses what it cannot rerun with one line. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_child.h"
#include "tests/lib_json.h"
#include "tests/lib_samples.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

/* The reproduce lines are POSIX shell lines ($PORT, $TMP), run from a
 * stand-in checkout of symbolic links: a Windows build starts no /bin/sh
 * (under wine it would start a Linux one, whose end it never sees) and
 * makes no such links, so there it reruns through crossrun rerun only. */
#ifdef _WIN32
#define SHELL_LINES 0
#else
#define SHELL_LINES 1
#endif

static char crossrun[SCRATCH_PATH_CAP], fixture[SCRATCH_PATH_CAP];
static char root[SCRATCH_PATH_CAP], checkout[SCRATCH_PATH_CAP];
static char cwd[SCRATCH_PATH_CAP]; /* the scratch folder, with its drive */

static const struct {
  const char *lane, *client, *server, *reason;
} faults[] = {
    {"ex-ex", "exit3", "ok", "client_exit"},
    {"nr-nr", "ok", "never-ready", "server_not_ready"},
    {"hg-hg", "hang", "ok", "timeout_client"},
    {"wc-wc", "wrong-count", "ok", "result_mismatch"},
    {"sg-sg", "ok", "signal", SAMPLES_DEATH_REASON},
};
#define NFAULTS (sizeof(faults) / sizeof(faults[0]))

/* Runs argv in cwd; its exit status, or -1 when it did not end by itself.
 * Its stdout and stderr into out and err when not NULL. */
static int run_in(const char *const *argv, const char *cwd, double seconds,
                  char *out, size_t outlen, char *err, size_t errlen)
{
  struct child_run r;
  int rc = child_run(&r, argv, cwd, NULL, tap_timeout_s(seconds));
  int status = rc == 0 && r.exited ? (int)r.exit_status : -1;

  if (out != NULL)
    snprintf(out, outlen, "%s", r.stdout_buf ? r.stdout_buf : "");
  if (err != NULL)
    snprintf(err, errlen, "%s", r.stderr_buf);
  if (status < 0)
    child_explain(&r, argv[0]);
  child_release(&r);
  return status;
}

/* The folder standing for the stated directory ".": every entry of the
 * checkout's root linked into a folder of the scratch, so that the
 * reproduce line's own evidence file is written there, not in the
 * checkout. */
static int make_checkout(void)
{
#if SHELL_LINES
  char from[SCRATCH_PATH_CAP], to[SCRATCH_PATH_CAP];
  struct dirent *e;
  DIR *d = opendir(root);
  int rc = 0;

  scratch_path(checkout, "checkout");
  if (d == NULL || scratch_mkdir(checkout) != 0) {
    if (d)
      closedir(d);
    return -1;
  }
  while ((e = readdir(d)) != NULL && rc == 0) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
        strncmp(e->d_name, "crossrun-", 9) == 0)
      continue;
    scratch_join(from, root, e->d_name);
    scratch_join(to, checkout, e->d_name);
    rc = symlink(from, to);
  }
  closedir(d);
  return rc;
#else
  return 0;
#endif
}

/* Unlinks the stand-in's links itself (unlink never follows one), so that
 * no removal can reach into the checkout. */
static void remove_checkout(void)
{
#if SHELL_LINES
  char path[SCRATCH_PATH_CAP];
  struct dirent *e;
  DIR *d = opendir(checkout);

  while (d != NULL && (e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      unlink(scratch_join(path, checkout, e->d_name));
  if (d != NULL)
    closedir(d);
  rmdir(checkout);
#endif
}

static const char *sample_reason(json_object *doc, const char *lane, int idx)
{
  char at[256];
  snprintf(at, sizeof(at), "lanes.%s.samples.%d.failure.reason", lane, idx);
  return json_str_at(doc, at);
}

/* Whether the words of reproduce.argv hold option followed by value. */
static int has_option(json_object *argv, const char *option, const char *value)
{
  size_t n = argv ? json_object_array_length(argv) : 0;
  for (size_t i = 0; i + 1 < n; i++)
    if (strcmp(json_object_get_string(json_object_array_get_idx(argv, i)),
               option) == 0 &&
        strncmp(json_object_get_string(json_object_array_get_idx(argv, i + 1)),
                value, strlen(value)) == 0)
      return 1;
  return 0;
}

static void test_reproduce(json_object *doc, const char *evidence)
{
  for (size_t f = 0; f < NFAULTS; f++) {
    const char *lane = faults[f].lane;
    char at[256], line[8192], out[SCRATCH_PATH_CAP], text[8192];
    json_object *repro, *again;
    const char *sh[] = {"/bin/sh", "-c", line, NULL};
    const char *rerun[] = {crossrun,  "rerun", evidence, "--lane", lane,
                           "--round", "2",     "--out",  out,      NULL};
    int rc;

    snprintf(at, sizeof(at), "lanes.%s.samples.1.reproduce", lane);
    repro = json_at(doc, at);
    TAP_OK(strcmp(sample_reason(doc, lane, 1), faults[f].reason) == 0,
           "%s: round 2 failed as %s (got '%s')", lane, faults[f].reason,
           sample_reason(doc, lane, 1));
    TAP_OK(strcmp(json_str_at(repro, "directory"), ".") == 0 &&
               has_option(json_at(repro, "argv"), "--seed", "99") &&
               has_option(json_at(repro, "argv"), "--ready-timeout", "1") &&
               has_option(json_at(repro, "argv"), "--timeout", "2") &&
               has_option(json_at(repro, "argv"), "--host", "127.0.0.1") &&
               (has_option(json_at(repro, "argv"), "--matrix", "$TMP/") ||
                has_option(json_at(repro, "argv"), "--matrix", "$TMP\\")),
           "%s: the command from '.' carries the seed, the timeouts, the "
           "host and the matrix file",
           lane);
    snprintf(at, sizeof(at), "lanes.%s.samples.1.port", lane);
    snprintf(text, sizeof(text), ":%d ", json_object_get_int(json_at(doc, at)));
    TAP_OK(json_at(doc, at) == NULL ||
               (strstr(json_str_at(repro, "client"), "\"$PORT\"") &&
                strstr(json_str_at(repro, "client"), "READY") &&
                strstr(json_str_at(repro, "client"), text) == NULL),
           "%s: the client line takes the port of the server's READY line: "
           "%s",
           lane, json_str_at(repro, "client"));

    /* The line as given, from the directory it names. */
    snprintf(line, sizeof(line), "%s", json_str_at(repro, "crossrun"));
    if (SHELL_LINES) {
      rc = run_in(sh, checkout, 120, NULL, 0, NULL, 0);
      scratch_join(out, checkout, "crossrun-reproduce.json");
      again = json_object_from_file(out);
      TAP_OK(rc == 1 && again &&
                 strcmp(sample_reason(again, lane, 0), faults[f].reason) == 0,
             "%s: its reproduce line fails it again as %s (exit %d, got '%s')",
             lane, faults[f].reason, rc,
             again ? sample_reason(again, lane, 0) : "no evidence");
      json_object_put(again);
      remove(out);
    } else {
      TAP_OK(1,
             "%s: its reproduce line # SKIP a POSIX shell line, and "
             "this build starts no /bin/sh",
             lane);
    }

    scratch_path(out, "rerun.json");
    rc = run_in(rerun, cwd, 120, text, sizeof(text), NULL, 0);
    again = json_object_from_file(out);
    TAP_OK(rc == 1 && strstr(text, "the same reason: reproduced") && again &&
               strcmp(sample_reason(again, lane, 0), faults[f].reason) == 0,
           "%s: crossrun rerun fails it again as %s and says so (exit %d)",
           lane, faults[f].reason, rc);
    json_object_put(again);
    remove(out);
  }
}

/* One line on stderr and exit 2 for each input rerun cannot take. */
static void test_refusals(json_object *doc, const char *evidence)
{
  char bare[SCRATCH_PATH_CAP], missing[SCRATCH_PATH_CAP], err[4096];
  json_object *copy = NULL;
  static const struct {
    const char *what, *file, *lane, *round, *says;
  } cases[] = {
      {"a missing file", "missing", "ex-ex", "1", "cannot read"},
      {"an unknown lane", "evidence", "zz-zz", "1", "no lane 'zz-zz'"},
      {"a round out of range", "evidence", "ex-ex", "3", "no round 3"},
      {"evidence without reproduce data", "bare", "ex-ex", "1",
       "no reproduce data"},
      {"no --lane", "evidence", NULL, "1", "--lane is required"},
  };

  scratch_path(bare, "bare.json");
  scratch_path(missing, "no-such.json");
  json_object_deep_copy(doc, &copy, NULL);
  json_object_object_del(json_at(copy, "lanes.ex-ex.samples.0.reproduce"),
                         "directory");
  json_object_object_del(json_at(copy, "lanes.ex-ex.samples.0.reproduce"),
                         "argv");
  json_object_to_file(bare, copy);
  json_object_put(copy);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const char *file = strcmp(cases[i].file, "missing") == 0 ? missing
                       : strcmp(cases[i].file, "bare") == 0  ? bare
                                                             : evidence;
    const char *argv[] = {crossrun,       "rerun",
                          file,           "--round",
                          cases[i].round, cases[i].lane ? "--lane" : NULL,
                          cases[i].lane,  NULL};
    int rc = run_in(argv, cwd, 30, NULL, 0, err, sizeof(err));
    char *nl = strchr(err, '\n');

    TAP_OK(rc == 2 && nl != NULL && nl[1] == '\0' &&
               strstr(err, cases[i].says) != NULL,
           "rerun refuses %s with one line (exit %d): %.*s", cases[i].what, rc,
           (int)strcspn(err, "\r\n"), err);
  }
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char text[4096], evidence[SCRATCH_PATH_CAP], matrix[SCRATCH_PATH_CAP];
  const char *argv[] = {NULL,
                        "quick",
                        "--matrix",
                        "m.yaml",
                        "--lanes",
                        "ex-ex,nr-nr,hg-hg,wc-wc,sg-sg",
                        "--samples",
                        "2",
                        "--seed",
                        "99",
                        "--ready-timeout",
                        "1",
                        "--timeout",
                        "2",
                        "--exit-timeout",
                        "2",
                        "--no-packages",
                        "--no-progress",
                        "--out",
                        "q.json",
                        NULL};
  size_t used = 0;
  json_object *doc;
  int rc;

  snprintf(root, sizeof(root), "%s",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".");
  snprintf(text, sizeof(text), "%s/%s/crossrun", root, build);
  samples_with_drive(crossrun, sizeof(crossrun), text);
  snprintf(text, sizeof(text), "%s/%s/tests/fixture", root, build);
  samples_with_drive(fixture, sizeof(fixture), text);
  argv[0] = crossrun;
  if (scratch_create() != 0)
    return tap_done();
  samples_with_drive(cwd, sizeof(cwd), scratch_root);
  used = (size_t)snprintf(text, sizeof(text), "runtimes:\n");
  for (size_t f = 0; f < NFAULTS; f++)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "  %.2s:\n"
                             "    client: [%s, client, %s]\n"
                             "    server: [%s, server, %s]\n",
                             faults[f].lane, fixture, faults[f].client, fixture,
                             faults[f].server);
  scratch_path(matrix, "m.yaml");
  TAP_OK(scratch_write(matrix, text, used) == 0 && make_checkout() == 0,
         "a matrix of faults outside the repository, a stand-in for '.'");
  rc = run_in(argv, cwd, 300, NULL, 0, NULL, 0);
  scratch_path(evidence, "q.json");
  doc = json_object_from_file(evidence);
  TAP_OK(rc == 1 && doc != NULL, "the quick of the faults ran (exit %d)", rc);
  if (doc != NULL) {
    test_reproduce(doc, evidence);
    test_refusals(doc, evidence);
    json_object_put(doc);
  }
  remove_checkout();
  scratch_remove();
  return tap_done();
}
