/* `crossrun report`: evidence in, Markdown, HTML and JUnit XML out. */
#include "runner/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/base/json_read.h"
#include "evidence/diff/diff.h"
#include "evidence/report/report.h"
#include "runner/conform_report.h"
#include "runner/options.h"
#include "runner/outfile.h"
#include "runner/run.h"

#define PATH_MAX_LEN 4096

enum output_kind { OUT_MARKDOWN, OUT_HTML, OUT_JUNIT, OUT_COUNT };

static const char *const option_names[OUT_COUNT] = {"--markdown", "--html",
                                                    "--junit"};
static int (*const renderers[OUT_COUNT])(const struct report *, FILE *) = {
    report_markdown, report_html, report_junit};

static const struct options_command usage = {
    "report",
    "FILE [--markdown OUT] [--html OUT] [--junit OUT] [--baseline OLD]",
    "Reads an evidence file (quick, full, record, or merged from several "
    "systems) and writes reports from it alone. At least one output is "
    "needed; '-' writes it to standard output. When GITHUB_STEP_SUMMARY is "
    "set, the Markdown is also appended to that file. With --baseline, the "
    "Markdown ends with crossrun compare OLD FILE, and the HTML has it as a "
    "section: every lane's figures against the baseline's, with the change "
    "and its verdict.",
    "Exit status: 0 written; 1 the evidence cannot be read or is invalid, or "
    "an output cannot be written; 2 bad usage.",
};

static const char *const option_help[OUT_COUNT] = {
    "GitHub-flavoured Markdown tables ('-': standard output)",
    "one self-contained HTML page with SVG charts",
    "JUnit XML: a testsuite per platform, a testcase per lane",
};

/* The options, into t (room for OUT_COUNT and the end). */
static void table(const char **outputs, struct options_entry *t)
{
  for (int k = 0; k < OUT_COUNT; k++) {
    struct options_entry e = {
        OPTIONS_FIELDS(OPTIONS_KIND_STRING, option_names[k] + 2, 0, &outputs[k],
                       "OUT", option_help[k]),
        .flags = OPTIONS_ONCE | OPTIONS_NONEMPTY,
        .missing = "a file ('-': standard output)",
    };
    t[k] = e;
  }
  memset(&t[OUT_COUNT], 0, sizeof(t[OUT_COUNT]));
}

/* The report of kind, with the comparison with the baseline when there is
 * one: a section of the HTML page, the end of the Markdown. */
static int render(const struct report *r, enum output_kind kind,
                  const struct diff *d, const char *const *names, FILE *f)
{
  if (kind == OUT_HTML && d != NULL)
    return report_html_baseline(r, d, names[0], names[1], f);
  if (renderers[kind](r, f) != 0)
    return -1;
  if (kind != OUT_MARKDOWN || d == NULL)
    return 0;
  fputs("\n## Change against the baseline\n\n", f);
  return diff_markdown(d, names[0], names[1], f);
}

struct report_output {
  const struct report *r;
  enum output_kind kind;
  const struct diff *d;
  const char *const *names;
};

static int render_output(void *ctx, FILE *f)
{
  const struct report_output *o = ctx;
  return render(o->r, o->kind, o->d, o->names, f);
}

static int write_output(const struct report *r, enum output_kind kind,
                        const char *path, const struct diff *d,
                        const char *const *names, FILE *out, FILE *errf)
{
  struct report_output o = {r, kind, d, names};

  if (strcmp(path, "-") == 0) {
    if (render(r, kind, d, names, out) != 0) {
      fprintf(errf, "crossrun report: standard output: cannot write\n");
      return -1;
    }
    return 0;
  }
  return outfile_write("report", path, render_output, &o, errf);
}

static int append_step_summary(const struct report *r, const char *path,
                               const struct diff *d, const char *const *names,
                               FILE *errf)
{
  FILE *f = fopen(path, "ab");
  int rc;

  if (f == NULL) {
    fprintf(errf,
            "crossrun report: %s (GITHUB_STEP_SUMMARY): cannot "
            "append: %s\n",
            path, strerror(errno));
    return -1;
  }
  rc = render(r, OUT_MARKDOWN, d, names, f);
  if (fclose(f) != 0 || rc != 0) {
    fprintf(errf,
            "crossrun report: %s (GITHUB_STEP_SUMMARY): cannot "
            "append\n",
            path);
    return -1;
  }
  return 0;
}

/* What the arguments mean together: one evidence file, at most one
 * output on standard output. Returns 0 or RUN_EXIT_USAGE (the message
 * written). */
static int check_args(const char *const *files, int nfiles,
                      const char *const *outputs, FILE *errf)
{
  int noutputs = 0, stdout_used = 0;

  if (nfiles > 1 || (nfiles == 1 && strcmp(files[0], "-") == 0)) {
    options_error(errf, &usage,
                  nfiles > 1 ? "unexpected argument '%s'"
                             : "%s: give the evidence as a file",
                  files[nfiles - 1]);
    return RUN_EXIT_USAGE;
  }
  for (int k = 0; k < OUT_COUNT; k++) {
    if (outputs[k] == NULL)
      continue;
    noutputs++;
    if (strlen(outputs[k]) >= PATH_MAX_LEN) {
      options_error(errf, &usage, "%s: the file name is too long",
                    option_names[k]);
      return RUN_EXIT_USAGE;
    }
    if (strcmp(outputs[k], "-") == 0 && stdout_used++) {
      options_error(errf, &usage,
                    "%s: only one output can go to standard output",
                    option_names[k]);
      return RUN_EXIT_USAGE;
    }
  }
  if (nfiles == 0 || noutputs == 0) {
    options_error(errf, &usage, "%s",
                  nfiles == 0 ? "no evidence file given"
                              : "no output: give --markdown, --html or "
                                "--junit");
    return RUN_EXIT_USAGE;
  }
  return 0;
}

/* d compares the evidence in file with the one in baseline (crossrun
 * compare BASELINE FILE). Returns 0, or -1 with the message written. */
static int compare_baseline(struct diff *d, const char *baseline,
                            const char *file, FILE *errf)
{
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *old_doc = NULL, *new_doc = NULL;
  char err[1024];
  int rc = -1;

  if (json_read_file(baseline, JSON_READ_MAX_BYTES, &old_doc, err,
                     sizeof(err)) != 0)
    fprintf(errf, "crossrun report: %s (--baseline): %s\n", baseline, err);
  else if (json_read_file(file, JSON_READ_MAX_BYTES, &new_doc, err,
                          sizeof(err)) != 0)
    fprintf(errf, "crossrun report: %s: %s\n", file, err);
  else if (diff_compare(d, old_doc, new_doc, &o, err, sizeof(err)) != 0)
    fprintf(errf, "crossrun report: %s: %s\n",
            strncmp(err, "OLD:", 4) == 0 ? baseline : file,
            strncmp(err, "OLD:", 4) == 0 || strncmp(err, "NEW:", 4) == 0
                ? err + 5
                : err);
  else
    rc = 0;
  json_object_put(old_doc);
  json_object_put(new_doc);
  return rc;
}

/* Every report asked for, from the evidence in file (and the baseline's,
 * when given). */
static int report(const char *file, const char *baseline,
                  const char *const *outputs, FILE *out, FILE *errf)
{
  const char *summary, *names[2] = {baseline, file};
  struct report r;
  struct diff d, *dp = NULL;
  char err[1024];
  int rc = RUN_EXIT_OK;

  memset(&d, 0, sizeof(d));
  if ((rc = conform_report(file, baseline, outputs, out, errf)) >= 0)
    return rc;
  rc = RUN_EXIT_OK;
  if (report_load(&r, file, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun report: %s: %s\n", file, err);
    return RUN_EXIT_FAILED;
  }
  if (baseline != NULL) {
    if (compare_baseline(&d, baseline, file, errf) != 0) {
      diff_release(&d);
      report_release(&r);
      return RUN_EXIT_FAILED;
    }
    dp = &d;
  }
  for (int k = 0; k < OUT_COUNT; k++)
    if (outputs[k] != NULL && write_output(&r, (enum output_kind)k, outputs[k],
                                           dp, names, out, errf) != 0)
      rc = RUN_EXIT_FAILED;
  summary = getenv("GITHUB_STEP_SUMMARY");
  if (summary != NULL && summary[0] != '\0' &&
      append_step_summary(&r, summary, dp, names, errf) != 0)
    rc = RUN_EXIT_FAILED;
  diff_release(&d);
  report_release(&r);
  return rc;
}

int cmd_report(int argc, char **argv, FILE *out, FILE *errf)
{
  const char *outputs[OUT_COUNT] = {NULL, NULL, NULL}, *baseline = NULL;
  struct options_entry opts[OUT_COUNT + 2];
  const char **files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*files));
  int nfiles = 0, rc;

  if (files == NULL) {
    fprintf(errf, "crossrun report: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  table(outputs, opts);
  {
    struct options_entry b = {
        OPTIONS_FIELDS(OPTIONS_KIND_STRING, "baseline", 0, &baseline, "OLD",
                       "show the change of every lane's figures against the "
                       "evidence in OLD (crossrun compare) at the end of the "
                       "Markdown and in a section of the HTML"),
        .flags = OPTIONS_ONCE | OPTIONS_NONEMPTY,
        .missing = "an evidence file",
    };
    opts[OUT_COUNT] = b;
    memset(&opts[OUT_COUNT + 1], 0, sizeof(opts[0]));
  }
  rc = options_parse_command(&usage, opts, argc, argv, files, &nfiles, out,
                             errf);
  if (rc != 0)
    rc = rc == OPTIONS_HELP ? RUN_EXIT_OK : RUN_EXIT_USAGE;
  else {
    rc = check_args(files, nfiles, outputs, errf);
    if (rc == RUN_EXIT_OK)
      rc = report(files[0], baseline, outputs, out, errf);
  }
  fflush(out);
  fflush(errf);
  free(files);
  return rc;
}
