/* `crossrun merge`: the record files of several OSes in, one merged
 * document out, or every reason why not. */
#include "runner/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/merge.h"
#include "runner/run.h"

#define LIST_MAX 64 /* names in --require or --pinned */

static void usage(FILE *f)
{
  fputs("usage: crossrun merge [--require OSES] [--pinned RUNTIMES]\n"
        "                      [--allow-rehearsal] --out FILE FILES...\n"
        "\n"
        "Joins the shards of each OS and merges the record evidence of "
        "several OSes\n"
        "(the files of `crossrun record`) into one document, after checking "
        "them all.\n"
        "It refuses, naming every problem on its own line: a file that is not "
        "JSON,\n"
        "truncated, of another schema_version, with a field of the wrong type "
        "or a\n"
        "number out of range; evidence that is not from record mode, not "
        "official or\n"
        "incomplete; a lane that did not pass (an expected_failure lane is "
        "kept and\n"
        "reported), a failed sample, a cleanliness count above 0; a required "
        "OS\n"
        "missing or present twice; shards with a gap or an overlap; commits, "
        "tool\n"
        "versions, workloads, matrix files or lane sets that differ.\n"
        "\n"
        "  --require OSES       comma-separated OSes that must each be "
        "present once\n"
        "                       (default linux,macos,windows)\n"
        "  --pinned RUNTIMES    comma-separated runtimes whose toolchain is "
        "pinned:\n"
        "                       runtimes.<name>.toolchain_version must be the "
        "same on\n"
        "                       every OS. The matrix file has no pin field, so "
        "they are\n"
        "                       named here; every runtime's versions are "
        "reported in\n"
        "                       the merged file's \"toolchain_versions\" "
        "either way.\n"
        "  --allow-rehearsal    accept inputs with \"official\": false; the "
        "merged file\n"
        "                       is then \"official\": false\n"
        "  --out FILE           the merged document (written atomically; "
        "required)\n"
        "\n"
        "Exit status: 0 merged; 1 refused (each problem on stderr as "
        "\"crossrun merge:\n"
        "FILE: problem\", or without FILE for one between files); 2 bad usage; "
        "3 the\n"
        "output cannot be written.\n",
        f);
}

static int usage_error(FILE *errf, const char *fmt, const char *arg)
{
  fputs("crossrun merge: ", errf);
  fprintf(errf, fmt, arg);
  fputs(" (see crossrun merge --help)\n", errf);
  return RUN_EXIT_USAGE;
}

/* Splits a comma-separated list in place into items[0..max). Returns the
 * count, or -1 with a usage message printed. */
static int split_list(const char *flag, char *list, const char **items, int max,
                      int os_names, FILE *errf)
{
  int n = 0;
  char *item = list, *comma;

  for (;;) {
    comma = strchr(item, ',');
    if (comma != NULL)
      *comma = '\0';
    if (*item == '\0' || n == max) {
      usage_error(errf, *item ? "%s: too many names"
                        : "%s: an empty name in the "
                          "list",
                  flag);
      return -1;
    }
    if (os_names && merge_os_index(item) < 0) {
      fprintf(errf,
              "crossrun merge: %s: unknown os '%s' (expected linux, macos or "
              "windows)\n",
              flag, item);
      return -1;
    }
    for (int i = 0; i < n; i++)
      if (strcmp(items[i], item) == 0) {
        fprintf(errf, "crossrun merge: %s: '%s' given twice\n", flag, item);
        return -1;
      }
    items[n++] = item;
    if (comma == NULL)
      return n;
    item = comma + 1;
  }
}

/* The value of a flag given as "--flag VALUE" or "--flag=VALUE"; NULL when
 * arg is not that flag. *i moves past a separate value. */
static const char *flag_value(const char *flag, int argc, char **argv, int *i,
                              int *missing)
{
  size_t len = strlen(flag);
  const char *arg = argv[*i];

  if (strncmp(arg, flag, len) != 0)
    return NULL;
  if (arg[len] == '=')
    return arg + len + 1;
  if (arg[len] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

struct merge_args {
  char *require_text, *pinned_text; /* owned copies, split in place */
  const char *require[LIST_MAX], *pinned[LIST_MAX];
  const char *out;
  const char **files; /* owned array of argv's strings */
  int nfiles;
  struct merge_options options;
};

static void merge_args_release(struct merge_args *a)
{
  free(a->require_text);
  free(a->pinned_text);
  free(a->files);
}

/* Returns 0, 1 for --help (printed), or RUN_EXIT_USAGE (message
 * printed). */
static int parse_args(int argc, char **argv, struct merge_args *a,
                      FILE *out, FILE *errf)
{
  const char *require = NULL, *pinned = NULL, *v;
  int options_done = 0, missing = 0, n;

  memset(a, 0, sizeof(*a));
  a->files = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*a->files));
  if (a->files == NULL)
    return usage_error(errf, "%s", "out of memory");
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      a->files[a->nfiles++] = arg;
    } else if (strcmp(arg, "--") == 0) {
      options_done = 1;
    } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(out);
      return 1;
    } else if (strcmp(arg, "--allow-rehearsal") == 0) {
      a->options.allow_rehearsal = 1;
    } else if ((v = flag_value("--require", argc, argv, &i, &missing))) {
      require = v;
    } else if ((v = flag_value("--pinned", argc, argv, &i, &missing))) {
      pinned = v;
    } else if ((v = flag_value("--out", argc, argv, &i, &missing))) {
      if (*v == '\0')
        return usage_error(errf, "%s: empty file name", "--out");
      a->out = v;
    } else if (missing) {
      return usage_error(errf, "%s needs a value", arg);
    } else {
      return usage_error(errf, "unknown option '%s'", arg);
    }
  }
  if (a->out == NULL)
    return usage_error(errf, "%s is required", "--out FILE");
  if (a->nfiles == 0)
    return usage_error(errf, "%s", "no evidence files given");
  if (a->nfiles > MERGE_MAX_INPUTS) {
    fprintf(errf, "crossrun merge: %d files, at most %d\n", a->nfiles,
            MERGE_MAX_INPUTS);
    return RUN_EXIT_USAGE;
  }
  a->require_text = strdup(require ? require : "linux,macos,windows");
  a->pinned_text = pinned ? strdup(pinned) : NULL;
  if (a->require_text == NULL || (pinned && a->pinned_text == NULL))
    return usage_error(errf, "%s", "out of memory");
  n = split_list("--require", a->require_text, a->require, LIST_MAX, 1, errf);
  if (n < 0)
    return RUN_EXIT_USAGE;
  a->options.require = a->require;
  a->options.nrequire = n;
  if (a->pinned_text != NULL) {
    n = split_list("--pinned", a->pinned_text, a->pinned, LIST_MAX, 0, errf);
    if (n < 0)
      return RUN_EXIT_USAGE;
    a->options.pinned = a->pinned;
    a->options.npinned = n;
  }
  return 0;
}

int cmd_merge(int argc, char **argv, FILE *out, FILE *errf)
{
  struct merge_problems problems = MERGE_PROBLEMS_INIT;
  struct merge_args a;
  json_object *merged = NULL;
  char err[1024], summary[MERGE_LINE_MAX];
  int rc;

  rc = parse_args(argc, argv, &a, out, errf);
  if (rc != 0) {
    merge_args_release(&a);
    return rc == 1 ? RUN_EXIT_OK : rc;
  }
  if (merge_files(&a.options, a.files, a.nfiles, &merged, &problems) != 0) {
    for (int i = 0; i < problems.count; i++)
      fprintf(errf, "crossrun merge: %s\n", problems.lines[i]);
    if (problems.dropped > 0)
      fprintf(errf, "crossrun merge: %d more problems not shown\n",
              problems.dropped);
    rc = RUN_EXIT_FAILED;
  } else if (merge_write(merged, a.out, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun merge: %s\n", err);
    rc = RUN_EXIT_RUNNER;
  } else {
    merge_summary(merged, summary, sizeof(summary));
    fprintf(out, "crossrun merge: %s; written to %s\n", summary, a.out);
    rc = RUN_EXIT_OK;
  }
  fflush(out);
  fflush(errf);
  json_object_put(merged);
  merge_problems_release(&problems);
  merge_args_release(&a);
  return rc;
}
