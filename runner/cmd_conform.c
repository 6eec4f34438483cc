/* `crossrun conform`: every selected runtime's server and client against
 * the runner's scripted peer, case by case (runner/conform.h), a table per
 * runtime on the terminal and evidence of mode conform. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "evidence/write/conform_write.h"
#include "platforms/platform.h"
#include "runner/commands.h"
#include "runner/conform.h"
#include "runner/conform_run.h"
#include "runner/matrix.h"
#include "runner/options.h"
#include "runner/prepare.h"
#include "runner/record.h"
#include "runner/run.h"

static const struct options_command usage = {
    "conform",
    "[--runtimes LIST] [--matrix FILE]... [--cases PATTERN] [--out FILE]",
    "Tests each runtime against protocol/SPEC.md with a scripted peer: its "
    "server is started as in a sample (a fresh temporary directory, its own "
    "process group) and driven by the runner's codec as a client, and its "
    "client is started against the runner as a scripted server. Every case "
    "of protocol/vectors/invalid.json and of the runner's table "
    "(runner/conform_table.c) is played: the peer must reject with the "
    "named rejection on its one stderr line and a non-zero exit (and the "
    "ERROR frame where SPEC.md requires one), within the case's deadline, "
    "leaving nothing behind; a valid edge session must pass with a correct "
    "result line. A runtime's author runs this before any lane.",
    "Exit status: 0 every case of every runtime that could run passed; "
    "1 a case failed, or no runtime could "
    "run; 2 bad usage; 3 the evidence cannot be written or the runner "
    "failed; 130 interrupted.",
};

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
  stop_signal = sig;
}

static int load(struct conform_options *o, struct lanes *l, char *err,
                size_t errlen)
{
  if (commands_load_matrices(l, o->matrix, o->nmatrix, err, errlen) != 0)
    return -1;
  return 0;
}

/* With --record: the provenance a record carries. */
static int provenance(struct conform_options *o, const struct lanes *l,
                      struct evidence_provenance *p, FILE *errf)
{
  char path[LANES_PATH_MAX + 16], err[512];

  if (!o->record)
    return RUN_EXIT_OK;
  memset(p, 0, sizeof(*p));
  record_provenance(l->root, p);
  snprintf(path, sizeof(path), "%s/matrix.yaml", l->root);
  if (record_add_matrix(p, path, l->root, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun conform: %s\n", err);
    return RUN_EXIT_RUNNER;
  }
  for (int i = 0; i < o->nmatrix; i++)
    if (record_add_matrix(p, o->matrix[i], l->root, err, sizeof(err)) != 0) {
      fprintf(errf, "crossrun conform: %s\n", err);
      return RUN_EXIT_RUNNER;
    }
  o->provenance = p;
  return RUN_EXIT_OK;
}

int cmd_conform(int argc, char **argv, FILE *out, FILE *errf)
{
  struct conform_options o;
  struct lanes *l = calloc(1, sizeof(*l));
  char bin[LANES_PATH_MAX], err[1024];
  void (*old_int)(int), (*old_term)(int);
  struct evidence_provenance prov;
  int rc;

  conform_options_init(&o);
  struct options_entry opts[] = {
      OPTIONS_LIST("runtimes", 0, &o.runtimes, "LIST",
                   "comma-separated runtimes to test (default: every runtime "
                   "of the matrix that is not hidden)"),
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "matrix", 0, o.matrix, "FILE",
                      "read runtimes from FILE too (repeatable; a runtime of "
                      "the same name replaces matrix.yaml's)"),
       .flags = OPTIONS_REPEAT | OPTIONS_NONEMPTY, .missing = "a file",
       .count = &o.nmatrix, .max_count = CONFORM_MAX_MATRIX},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "cases", 0, &o.cases, "PATTERN",
                      "only the cases whose ROLE/NAME matches one of these "
                      "comma-separated patterns ('server/*', '*eof*', "
                      "'client/session_*'); a pattern without '/' matches "
                      "the name in either role"),
       .flags = OPTIONS_NONEMPTY, .missing = "a pattern"},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "out", 0, &o.out, "FILE",
                      "evidence file to write (mode conform)"),
       .flags = OPTIONS_NONEMPTY, .missing = "a file", .shown = o.out},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "host", 0, &o.host, "ADDRESS",
                      "loopback address to listen on and connect to "
                      "(127.0.0.1 or ::1)"),
       .flags = OPTIONS_NONEMPTY, .missing = "an address",
       .shown = "127.0.0.1"},
      {OPTIONS_FIELDS(OPTIONS_KIND_SECONDS, "case-timeout", 0,
                      &o.case_timeout_ms, "SEC",
                      "time for a peer to react to a case's input"),
       .max = 3600, .shown = "5"},
      OPTIONS_FLAG("quick", 0, &o.quick,
                   "a smoke subset: one valid session and one case of each "
                   "kind of rejection per role (what make quick runs)"),
      OPTIONS_FLAG("record", 0, &o.record,
                   "fill the evidence's provenance (commit, branch, clean, "
                   "CI, the matrix files' SHA-256) as crossrun record does"),
      OPTIONS_FLAG("list", 0, &o.list,
                   "print the selected cases, one per line, and run none"),
      OPTIONS_SET("no-progress", 0, &o.progress, 0,
                  "no line per case on stderr"),
      OPTIONS_END,
  };

  rc = options_parse_command(&usage, opts, argc, argv, NULL, NULL, out, errf);
  if (rc != 0) {
    options_release(opts);
    free(l);
    return rc == OPTIONS_HELP ? RUN_EXIT_OK : RUN_EXIT_USAGE;
  }
  if (l == NULL ||
      commands_locate(bin, sizeof(bin), l->root, sizeof(l->root)) != 0) {
    fprintf(errf, "crossrun conform: cannot find its own executable\n");
    rc = RUN_EXIT_RUNNER;
  } else if (strcmp(o.host, "127.0.0.1") != 0 && strcmp(o.host, "::1") != 0) {
    fprintf(errf,
            "crossrun conform: --host: '%s' is not a loopback address "
            "(127.0.0.1 or ::1)\n",
            o.host);
    rc = RUN_EXIT_USAGE;
  } else if (o.quick && o.cases != NULL) {
    fprintf(errf, "crossrun conform: --quick and --cases: give one of "
                  "them\n");
    rc = RUN_EXIT_USAGE;
  } else if (load(&o, l, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun conform: %s\n", err);
    rc = RUN_EXIT_USAGE;
  } else if (platform_init(err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun conform: %s\n", err);
    rc = RUN_EXIT_RUNNER;
  } else {
    stop_signal = 0;
    old_int = signal(SIGINT, on_stop_signal);
    old_term = signal(SIGTERM, on_stop_signal);
    o.stop = &stop_signal;
    if (o.quick)
      o.cases = CONFORM_QUICK_CASES;
    rc = provenance(&o, l, &prov, errf);
    if (rc == RUN_EXIT_OK)
      rc = conform_run(&o, l, out, errf);
    signal(SIGINT, old_int);
    signal(SIGTERM, old_term);
  }
  options_release(opts);
  if (l != NULL)
    lanes_release(l);
  free(l);
  return rc;
}
