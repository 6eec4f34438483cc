/* `crossrun compare OLD NEW`: what a change did to every lane's figures,
 * as a table, Markdown, JSON, and an exit status a CI job can gate on. */
#include "runner/commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/base/json_read.h"
#include "evidence/diff/diff.h"
#include "runner/options.h"
#include "runner/outfile.h"
#include "runner/run.h"

static const struct options_command usage = {
    "compare",
    "OLD.json NEW.json [OPTIONS]",
    "Compares two evidence files (quick, full, record or merged; any "
    "machine) lane by lane and platform by platform: time per round trip, "
    "latency percentiles and CPU per round trip where the evidence has "
    "them, peak memory of each peer, time to READY, and each runtime's "
    "package. A sampled figure is slower or faster (bigger or smaller) only "
    "when the exact Mann-Whitney U test on the raw samples rejects at "
    "--alpha after the Holm-Bonferroni correction over every comparison "
    "AND its median moved by more than --threshold; a significant change "
    "within it is a tie, an insignificant one '~'. Package sizes and hashes "
    "are exact: any change is shown, entry by entry. Sampled figures of "
    "different machines (CPU model, logical CPUs) or workloads, or of quick "
    "evidence, are not compared, and the table says why. When "
    "GITHUB_STEP_SUMMARY is set, the Markdown is also appended to it.",
    "Exit status: 0 compared (and, with --fail-on-regression, no "
    "regression); 1 with --fail-on-regression, a lane slower or bigger in "
    "memory beyond the threshold, a package grown, or a lane no longer "
    "passed; 2 bad usage or a file that is not readable evidence; 3 an "
    "output cannot be written.",
};

/* --alpha and --threshold: a decimal number within the bounds the entry
 * carries in min and max (max 0: no upper bound). */
static int parse_number(const struct options_entry *opt, const char *value,
                        char *err, size_t errlen)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(value, &end);
  if (errno != 0 || end == value || *end != '\0' || !isfinite(v)) {
    snprintf(err, errlen, "'%s' is not a number", value);
    return -1;
  }
  if (strcmp(opt->long_name, "alpha") == 0 ? !(v > 0 && v < 1) : !(v >= 0)) {
    snprintf(err, errlen, "%s is out of range (%s)", value,
             strcmp(opt->long_name, "alpha") == 0 ? "above 0 and below 1"
                                                  : "0 or more");
    return -1;
  }
  *(double *)opt->value = v;
  return 0;
}

static int load(const char *path, json_object **doc, FILE *errf)
{
  char err[512];

  if (json_read_file(path, JSON_READ_MAX_BYTES, doc, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun compare: %s: %s\n", path, err);
    return -1;
  }
  if (!json_object_is_type(*doc, json_type_object)) {
    fprintf(errf,
            "crossrun compare: %s: not an evidence document (not a "
            "JSON object)\n",
            path);
    json_object_put(*doc);
    *doc = NULL;
    return -1;
  }
  return 0;
}

enum output { OUT_MARKDOWN, OUT_JSON };

static int render(const struct diff *d, enum output kind, const char *const *f,
                  FILE *to)
{
  json_object *j;
  int rc;

  if (kind == OUT_MARKDOWN)
    return diff_markdown(d, f[0], f[1], to);
  j = diff_json(d, f[0], f[1]);
  if (j == NULL)
    return -1;
  rc = fputs(json_object_to_json_string_ext(
                 j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
             to) < 0 ||
       fputc('\n', to) == EOF;
  json_object_put(j);
  return rc ? -1 : 0;
}

struct compare_output {
  const struct diff *d;
  enum output kind;
  const char *const *files;
};

static int render_output(void *ctx, FILE *f)
{
  const struct compare_output *o = ctx;
  return render(o->d, o->kind, o->files, f);
}

/* "-" is standard output; a file is written whole or not at all. */
static int write_output(const struct diff *d, enum output kind,
                        const char *path, const char *const *files, FILE *out,
                        FILE *errf)
{
  struct compare_output o = {d, kind, files};

  if (strcmp(path, "-") == 0)
    return render(d, kind, files, out);
  return outfile_write("compare", path, render_output, &o, errf);
}

static int append_step_summary(const struct diff *d, const char *const *files,
                               FILE *errf)
{
  const char *path = getenv("GITHUB_STEP_SUMMARY");
  FILE *f;
  int rc;

  if (path == NULL || path[0] == '\0')
    return 0;
  f = fopen(path, "ab");
  if (f == NULL) {
    fprintf(errf,
            "crossrun compare: %s (GITHUB_STEP_SUMMARY): cannot append: %s\n",
            path, strerror(errno));
    return -1;
  }
  rc = diff_markdown(d, files[0], files[1], f);
  if (fclose(f) != 0 || rc != 0) {
    fprintf(errf,
            "crossrun compare: %s (GITHUB_STEP_SUMMARY): cannot "
            "append\n",
            path);
    return -1;
  }
  return 0;
}

int cmd_compare(int argc, char **argv, FILE *out, FILE *errf)
{
  struct diff_options o = DIFF_OPTIONS_INIT;
  const char *outputs[2] = {NULL, NULL};
  int fail_on_regression = 0;
  struct options_entry opts[] = {
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "markdown", 0, &outputs[0], "FILE",
                      "write the comparison as Markdown to FILE ('-': "
                      "standard output)"),
       .flags = OPTIONS_ONCE | OPTIONS_NONEMPTY,
       .missing = "a file ('-': standard output)"},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "json", 0, &outputs[1], "FILE",
                      "write the comparison as JSON "
                      "(evidence/diff/compare.schema.json) to FILE"),
       .flags = OPTIONS_ONCE | OPTIONS_NONEMPTY,
       .missing = "a file ('-': standard output)"},
      OPTIONS_FLAG("fail-on-regression", 0, &fail_on_regression,
                   "exit 1 when any lane regressed (see exit status)"),
      {OPTIONS_FIELDS(OPTIONS_KIND_CUSTOM, "threshold", 0, &o.threshold_pct,
                      "PCT",
                      "a significant change of a median within PCT percent "
                      "is a tie"),
       .parse = parse_number, .shown = "5", .missing = "a percentage"},
      {OPTIONS_FIELDS(OPTIONS_KIND_CUSTOM, "alpha", 0, &o.alpha, "A",
                      "significance level of the two-sided tests, after the "
                      "Holm-Bonferroni correction"),
       .parse = parse_number, .shown = "0.05", .missing = "a number"},
      OPTIONS_FLAG("allow-different-machines", 0, &o.allow_different_machines,
                   "compare sampled figures measured on different CPU models "
                   "or CPU counts"),
      OPTIONS_END,
  };
  const char *files[3] = {NULL, NULL, NULL};
  const char **args = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*args));
  json_object *old_doc = NULL, *new_doc = NULL;
  struct diff d;
  char err[512];
  int nargs = 0, rc;

  if (args == NULL) {
    fprintf(errf, "crossrun compare: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  memset(&d, 0, sizeof(d));
  rc = options_parse_command(&usage, opts, argc, argv, args, &nargs, out, errf);
  if (rc != 0) {
    rc = rc == OPTIONS_HELP ? RUN_EXIT_OK : RUN_EXIT_USAGE;
    goto done;
  }
  if (nargs != 2) {
    options_error(errf, &usage,
                  nargs < 2 ? "give two evidence files, OLD and NEW"
                            : "unexpected argument '%s'",
                  nargs > 2 ? args[2] : "");
    rc = RUN_EXIT_USAGE;
    goto done;
  }
  if (outputs[0] && outputs[1] && strcmp(outputs[0], "-") == 0 &&
      strcmp(outputs[1], "-") == 0) {
    options_error(errf, &usage, "only one output can go to standard output");
    rc = RUN_EXIT_USAGE;
    goto done;
  }
  files[0] = args[0];
  files[1] = args[1];
  rc = RUN_EXIT_USAGE;
  if (load(files[0], &old_doc, errf) != 0 ||
      load(files[1], &new_doc, errf) != 0)
    goto done;
  if (diff_compare(&d, old_doc, new_doc, &o, err, sizeof(err)) != 0) {
    /* diff names the files OLD and NEW; the user knows them by name. */
    if (strncmp(err, "OLD:", 4) == 0 || strncmp(err, "NEW:", 4) == 0)
      fprintf(errf, "crossrun compare: %s:%s\n", files[err[0] == 'N'], err + 4);
    else
      fprintf(errf, "crossrun compare: %s\n", err);
    rc = strcmp(err, "out of memory") == 0 ? RUN_EXIT_RUNNER : RUN_EXIT_USAGE;
    goto done;
  }
  rc = RUN_EXIT_OK;
  if (!(outputs[0] && strcmp(outputs[0], "-") == 0) &&
      !(outputs[1] && strcmp(outputs[1], "-") == 0))
    diff_print(&d, files[0], files[1], out);
  for (int k = 0; k < 2; k++)
    if (outputs[k] != NULL &&
        write_output(&d, (enum output)k, outputs[k], files, out, errf) != 0)
      rc = RUN_EXIT_RUNNER;
  if (append_step_summary(&d, files, errf) != 0)
    rc = RUN_EXIT_RUNNER;
  if (rc == RUN_EXIT_OK && fail_on_regression && d.regressions > 0)
    rc = RUN_EXIT_FAILED;
done:
  diff_release(&d);
  json_object_put(old_doc);
  json_object_put(new_doc);
  fflush(out);
  fflush(errf);
  free(args);
  return rc;
}
