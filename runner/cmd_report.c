/* `crossrun report`: evidence in, Markdown, HTML and JUnit XML out. */
#include "runner/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/report.h"
#include "runner/run.h"

#define PATH_MAX_LEN 4096

enum output_kind { OUT_MARKDOWN, OUT_HTML, OUT_JUNIT, OUT_COUNT };

static const char *const option_names[OUT_COUNT] = {"--markdown", "--html",
                                                    "--junit"};
static int (*const renderers[OUT_COUNT])(const struct report *, FILE *) = {
    report_markdown, report_html, report_junit};

static void usage(FILE *f)
{
  fputs("usage: crossrun report FILE [--markdown OUT] [--html OUT] "
        "[--junit OUT]\n"
        "\n"
        "Reads an evidence file (quick, full, record, or merged from "
        "several\n"
        "systems) and writes reports from it alone:\n"
        "  --markdown OUT  GitHub-flavoured Markdown tables ('-': standard "
        "output)\n"
        "  --html OUT      one self-contained HTML page with SVG charts\n"
        "  --junit OUT     JUnit XML: a testsuite per platform, a testcase "
        "per lane\n"
        "At least one output is needed; '-' writes it to standard output. "
        "When\n"
        "GITHUB_STEP_SUMMARY is set, the Markdown is also appended to that "
        "file.\n"
        "\n"
        "Exit status: 0 written; 1 the evidence cannot be read or is "
        "invalid, or\n"
        "an output cannot be written; 2 bad usage.\n",
        f);
}

static int usage_error(FILE *errf, const char *fmt, const char *arg)
{
  fputs("crossrun report: ", errf);
  fprintf(errf, fmt, arg);
  fputs(" (see crossrun report --help)\n", errf);
  return RUN_EXIT_USAGE;
}

/* Writes kind to path through a temporary file and a rename, so a reader
 * never sees half a report; "-" is standard output. */
static int write_output(const struct report *r, enum output_kind kind,
                        const char *path, FILE *out, FILE *errf)
{
  char tmp[PATH_MAX_LEN + 16];
  FILE *f;
  int rc;

  if (strcmp(path, "-") == 0) {
    if (renderers[kind](r, out) != 0) {
      fprintf(errf, "crossrun report: standard output: cannot write\n");
      return -1;
    }
    return 0;
  }
  snprintf(tmp, sizeof(tmp), "%s.partial", path);
  f = fopen(tmp, "wb");
  if (f == NULL) {
    fprintf(errf, "crossrun report: %s: cannot write: %s\n", path,
            strerror(errno));
    return -1;
  }
  rc = renderers[kind](r, f);
  if (fclose(f) != 0)
    rc = -1;
  if (rc == 0) {
    uv_fs_t req;
    /* uv_fs_rename replaces an existing file on every OS. */
    rc = uv_fs_rename(NULL, &req, tmp, path, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    fprintf(errf, "crossrun report: %s: cannot write\n", path);
    remove(tmp);
    return -1;
  }
  return 0;
}

static int append_step_summary(const struct report *r, const char *path,
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
  rc = report_markdown(r, f);
  if (fclose(f) != 0 || rc != 0) {
    fprintf(errf,
            "crossrun report: %s (GITHUB_STEP_SUMMARY): cannot "
            "append\n",
            path);
    return -1;
  }
  return 0;
}

int cmd_report(int argc, char **argv, FILE *out, FILE *errf)
{
  const char *outputs[OUT_COUNT] = {NULL, NULL, NULL};
  const char *file = NULL, *summary;
  struct report r;
  char err[1024];
  int noutputs = 0, stdout_used = 0, rc = RUN_EXIT_OK;

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = NULL;
    int kind = -1;

    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(out);
      return RUN_EXIT_OK;
    }
    for (int k = 0; k < OUT_COUNT; k++) {
      size_t n = strlen(option_names[k]);
      if (strncmp(arg, option_names[k], n) == 0 &&
          (arg[n] == '\0' || arg[n] == '=')) {
        kind = k;
        value = arg[n] == '=' ? arg + n + 1 : NULL;
      }
    }
    if (kind < 0) {
      if (arg[0] == '-' && arg[1] != '\0')
        return usage_error(errf, "unknown option '%s'", arg);
      if (file != NULL)
        return usage_error(errf, "unexpected argument '%s'", arg);
      if (strcmp(arg, "-") == 0)
        return usage_error(errf, "%s: give the evidence as a file", arg);
      file = arg;
      continue;
    }
    if (value == NULL) {
      if (i + 1 >= argc)
        return usage_error(errf, "%s needs a file ('-': standard output)",
                           option_names[kind]);
      value = argv[++i];
    }
    if (value[0] == '\0')
      return usage_error(errf, "%s needs a file ('-': standard output)",
                         option_names[kind]);
    if (outputs[kind] != NULL)
      return usage_error(errf, "%s is given twice", option_names[kind]);
    if (strlen(value) >= PATH_MAX_LEN)
      return usage_error(errf, "%s: the file name is too long", option_names[kind]);
    if (strcmp(value, "-") == 0 && stdout_used++)
      return usage_error(errf, "%s: only one output can go to standard output",
                         option_names[kind]);
    outputs[kind] = value;
    noutputs++;
  }
  if (file == NULL)
    return usage_error(errf, "%s", "no evidence file given");
  if (noutputs == 0)
    return usage_error(errf, "%s", "no output: give --markdown, --html or --junit");

  if (report_load(&r, file, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun report: %s: %s\n", file, err);
    return RUN_EXIT_FAILED;
  }
  for (int k = 0; k < OUT_COUNT; k++)
    if (outputs[k] != NULL &&
        write_output(&r, (enum output_kind)k, outputs[k], out, errf) != 0)
      rc = RUN_EXIT_FAILED;
  summary = getenv("GITHUB_STEP_SUMMARY");
  if (summary != NULL && summary[0] != '\0' &&
      append_step_summary(&r, summary, errf) != 0)
    rc = RUN_EXIT_FAILED;
  report_release(&r);
  fflush(out);
  fflush(errf);
  return rc;
}
