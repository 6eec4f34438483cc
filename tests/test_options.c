/* The command-line parser (runner/options.h) and the command table: each
 * argument kind, bad values, unknown and missing options, repeats, the
 * generated --help, and the README's options against it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/commands.h"
#include "runner/options.h"
#include "tests/lib_memfile.h"
#include "tests/tap.h"

struct values {
  int flag, progress, count;
  const char *name, *out;
  const char *files[2];
  int nfiles;
  uint64_t big;
  uint32_t mid;
  int small;
  uint64_t ms;
  struct options_list list;
  const char *once;
  int custom;
  unsigned given;
};

static int parse_even(const struct options_entry *opt, const char *value,
                      char *err, size_t errlen)
{
  int v = atoi(value);
  if (v % 2 != 0) {
    snprintf(err, errlen, "'%s' is not even", value);
    return -1;
  }
  *(int *)opt->value = v;
  return 0;
}

/* The table every check parses with, pointing into v. */
static void table(struct values *v, struct options_entry *t)
{
  struct options_entry e[] = {
      OPTIONS_FLAG("flag", 'f', &v->flag, "a plain flag"),
      OPTIONS_SET("no-progress", 0, &v->progress, 0, "stores 0"),
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "name", 'n', &v->name, "NAME",
                      "a string that may be empty"),
       .shown = "anon"},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "out", 0, &v->out, "FILE",
                      "a file name, never empty"),
       .flags = OPTIONS_NONEMPTY, .missing = "a file"},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "file", 0, v->files, "FILE",
                      "repeatable, twice at most"),
       .flags = OPTIONS_REPEAT, .count = &v->nfiles, .max_count = 2},
      {OPTIONS_FIELDS(OPTIONS_KIND_INTEGER, "big", 0, &v->big, "N",
                      "a 64-bit whole number"),
       .size = sizeof(v->big), .max = UINT64_MAX, .given = &v->given,
       .given_bit = 1},
      OPTIONS_INTEGER("mid", 0, &v->mid, 1, 65536, "N", "1 to 65536"),
      OPTIONS_INTEGER("samples", 0, &v->small, 1, 1000, "N", "an int"),
      OPTIONS_SECONDS("wait", 0, &v->ms, 60, "seconds, at most 60"),
      OPTIONS_LIST("list", 0, &v->list, "A,B", "comma-separated names"),
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "once", 0, &v->once, "X",
                      "given once at most"),
       .flags = OPTIONS_ONCE},
      OPTIONS_CUSTOM("even", 0, &v->custom, parse_even, "N",
                     "an even number, parsed by the table's function; its "
                     "help is long enough to be wrapped onto a second line "
                     "and a third one as well"),
      OPTIONS_END,
  };
  memcpy(t, e, sizeof(e));
}

#define TABLE_SIZE 13

/* Parses the words of line (split at spaces) as argv[1..]. Returns what
 * options_parse returned; err holds its message. */
static int parse(const char *line, struct values *v, const char **args,
                 int *nargs, char *err, size_t errlen)
{
  static char buf[512];
  char *argv[32];
  struct options_entry t[TABLE_SIZE];
  int argc = 0, rc;

  free(v->list.text); /* what the previous parse left */
  memset(v, 0, sizeof(*v));
  v->progress = -1;
  table(v, t);
  snprintf(buf, sizeof(buf), "test %s", line);
  argv[argc++] = strtok(buf, " ");
  for (char *w = strtok(NULL, " "); w && argc < 31; w = strtok(NULL, " "))
    argv[argc++] = w;
  argv[argc] = NULL;
  err[0] = '\0';
  rc = options_parse(t, argc, argv, args, nargs, err, errlen);
  return rc;
}

static void test_kinds(void)
{
  struct values v;
  const char *args[32];
  char err[256];
  int n;

  memset(&v, 0, sizeof(v));
  TAP_OK(parse("--flag --no-progress", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.flag == 1 && v.progress == 0,
         "a flag stores 1, a set flag its number");
  TAP_OK(parse("-f", &v, NULL, NULL, err, sizeof(err)) == 0 && v.flag == 1,
         "a short name");
  TAP_OK(parse("--name a --out=b", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             strcmp(v.name, "a") == 0 && strcmp(v.out, "b") == 0,
         "a string takes the next word or '=value'");
  TAP_OK(parse("-n x", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             strcmp(v.name, "x") == 0,
         "-n VALUE");
  TAP_OK(parse("-ny", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             strcmp(v.name, "y") == 0,
         "-nVALUE");
  TAP_OK(parse("--name=", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             strcmp(v.name, "") == 0,
         "an empty string where one is allowed");
  TAP_OK(parse("--big 18446744073709551615 --mid 65536 --samples 7", &v, NULL,
               NULL, err, sizeof(err)) == 0 &&
             v.big == UINT64_MAX && v.mid == 65536 && v.small == 7 &&
             v.given == 1,
         "whole numbers of three widths, the given bit set");
  TAP_OK(parse("--wait 0.5", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.ms == 500,
         "seconds are stored as milliseconds");
  TAP_OK(parse("--wait=0.0001", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.ms == 1,
         "a tiny wait is at least 1 ms");
  TAP_OK(parse("--list a,b,c", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.list.count == 3 && strcmp(v.list.items[2], "c") == 0,
         "a list is split at commas");
  TAP_OK(parse("--even 4", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.custom == 4,
         "a custom option runs its function");
  TAP_OK(parse("a --flag - b", &v, args, &n, err, sizeof(err)) == 0 && n == 3 &&
             strcmp(args[0], "a") == 0 && strcmp(args[1], "-") == 0 && v.flag,
         "arguments among options are kept, '-' is one");
  TAP_OK(parse("--flag -- --name x", &v, args, &n, err, sizeof(err)) == 0 &&
             n == 2 && strcmp(args[0], "--name") == 0 && v.name == NULL,
         "'--' ends the options");
  TAP_OK(parse("--flag --help --bogus", &v, NULL, NULL, err, sizeof(err)) ==
                 OPTIONS_HELP &&
             parse("-h", &v, NULL, NULL, err, sizeof(err)) == OPTIONS_HELP,
         "-h and --help stop the parse");
}

static void test_repeats(void)
{
  struct values v;
  char err[256];

  memset(&v, 0, sizeof(v));
  TAP_OK(parse("--name a --name b", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             strcmp(v.name, "b") == 0,
         "the last use of an option wins");
  TAP_OK(parse("--list a,b --list c", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.list.count == 1 && strcmp(v.list.items[0], "c") == 0,
         "a list given again replaces the first");
  TAP_OK(parse("--file a --file=b", &v, NULL, NULL, err, sizeof(err)) == 0 &&
             v.nfiles == 2 && strcmp(v.files[1], "b") == 0,
         "a repeatable option appends");
  TAP_OK(parse("--file a --file b --file c", &v, NULL, NULL, err,
               sizeof(err)) == -1 &&
             strstr(err, "--file: given more than 2 times"),
         "past its capacity: %s", err);
  TAP_OK(parse("--once a --once b", &v, NULL, NULL, err, sizeof(err)) == -1 &&
             strcmp(err, "--once is given twice") == 0,
         "a once-only option given twice: %s", err);
  parse("", &v, NULL, NULL, err, sizeof(err));
}

static void test_errors(void)
{
  static const struct {
    const char *line;
    const char *message;
  } bad[] = {
      {"--bogus", "unknown option '--bogus'"},
      {"--bogus=1", "unknown option '--bogus'"},
      {"--nmae x", "unknown option '--nmae'; did you mean '--name'?"},
      {"--sample 3", "did you mean '--samples'?"},
      {"-x", "unknown option '-x'"},
      {"stray", "unexpected argument 'stray'"},
      {"--flag=1", "--flag takes no value"},
      {"--name", "--name needs a value"},
      {"--out", "--out needs a file"},
      {"--out=", "--out needs a file"},
      {"--samples x", "--samples: expected a whole number, got 'x'"},
      {"--samples -3", "expected a whole number, got '-3'"},
      {"--samples +3", "expected a whole number"},
      {"--samples 3x", "expected a whole number"},
      {"--samples=", "expected a whole number, got ''"},
      {"--samples 0", "--samples: 0 is out of range (1 to 1000)"},
      {"--mid 65537", "65537 is out of range (1 to 65536)"},
      {"--big 18446744073709551616", "expected a whole number"},
      {"--wait 0", "--wait: expected seconds (above 0, at most 60), got '0'"},
      {"--wait 61", "expected seconds"},
      {"--wait abc", "expected seconds"},
      {"--list a,,b", "--list: an empty name in the list"},
      {"--list a,b,a", "--list: 'a' given twice"},
      {"--list=", "--list: an empty name in the list"},
      {"--even 3", "--even: '3' is not even"},
  };
  struct values v;
  char err[256];

  memset(&v, 0, sizeof(v));
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = parse(bad[i].line, &v, NULL, NULL, err, sizeof(err));
    TAP_OK(rc == -1 && strstr(err, bad[i].message) != NULL &&
               strchr(err, '\n') == NULL,
           "'%s' is refused in one line: %s", bad[i].line, err);
  }
  parse("", &v, NULL, NULL, err, sizeof(err));
}

static int lines_fit(const char *text)
{
  for (const char *l = text; *l;) {
    size_t len = strcspn(l, "\n");
    if (len > 79)
      return 0;
    l += len + (l[len] == '\n');
  }
  return 1;
}

static void test_usage(void)
{
  static const struct options_command cmd = {"test", "[OPTIONS] FILES...",
                                             "What the test command does.",
                                             "Exit status: 0."};
  struct values v;
  struct options_entry t[TABLE_SIZE];
  char *buf = NULL, *text, want[128];
  size_t len = 0;
  int all = 1;

  FILE *f = memfile_open(&buf, &len);

  memset(&v, 0, sizeof(v));
  table(&v, t);
  if (f == NULL)
    return;
  options_usage(&cmd, t, f);
  memfile_close(f);
  text = buf;
  for (int i = 0; t[i].kind; i++) {
    snprintf(want, sizeof(want), "--%s%s%s", t[i].long_name,
             t[i].kind == OPTIONS_KIND_FLAG ? "" : " ",
             t[i].kind == OPTIONS_KIND_FLAG ? "" : t[i].arg);
    char help[24];
    /* The start of the help: the rest may be wrapped. */
    snprintf(help, sizeof(help), "%s", t[i].help);
    if (strstr(text, want) == NULL || strstr(text, help) == NULL) {
      tap_diag("missing from --help: %s", want);
      all = 0;
    }
  }
  TAP_OK(all, "--help lists every option of the table with its help");
  TAP_OK(strncmp(text, "usage: crossrun test [OPTIONS] FILES...\n", 40) == 0,
         "it starts with the usage line");
  TAP_OK(strstr(text, "What the test command does.") &&
             strstr(text, "Exit status: 0."),
         "with the command's text before and after the options");
  TAP_OK(strstr(text, "-f, --flag") && strstr(text, "-n, --name NAME") &&
             strstr(text, "-h, --help"),
         "short names are shown, and -h, --help");
  TAP_OK(strstr(text, "(default: anon)") != NULL, "defaults are shown");
  TAP_OK(lines_fit(text), "no line is wider than 79 columns");
  TAP_OK(strstr(text, "  --even N              an even number") &&
             strstr(text, "\n                        "),
         "a long help is wrapped under its column");
  free(text);
}

/* Runs `crossrun ARGS` (words of line) through the command table, with
 * its output and errors in *out and *err (the caller frees them). */
static int crossrun(const char *line, char **out, char **err)
{
  char buf[512], *argv[16];
  size_t olen = 0, elen = 0;
  FILE *fo = memfile_open(out, &olen), *fe = memfile_open(err, &elen);
  int argc = 0, rc = -1;

  snprintf(buf, sizeof(buf), "crossrun %s", line);
  for (char *w = strtok(buf, " "); w && argc < 15; w = strtok(NULL, " "))
    argv[argc++] = w;
  argv[argc] = NULL;
  if (fo != NULL && fe != NULL)
    rc = commands_main(argc, argv, fo, fe);
  if (fo != NULL)
    memfile_close(fo);
  if (fe != NULL)
    memfile_close(fe);
  return rc;
}

static void test_commands(void)
{
  char *out = NULL, *err = NULL, line[64];
  int rc, listed = 1;

  rc = crossrun("--help", &out, &err);
  for (const struct command *c = commands; c->name != NULL; c++) {
    snprintf(line, sizeof(line), "\n  %-9s", c->name);
    if (strstr(out, line) == NULL)
      listed = 0;
  }
  TAP_OK(rc == 0 && listed && err[0] == '\0',
         "crossrun --help lists every command of the table");
  free(out);
  free(err);
  rc = crossrun("", &out, &err);
  TAP_OK(rc == 2 && out[0] == '\0' && strncmp(err, "usage: ", 7) == 0,
         "crossrun alone prints the usage on stderr and exits 2");
  free(out);
  free(err);
  rc = crossrun("qiuck", &out, &err);
  TAP_OK(rc == 2 && strstr(err, "unknown command 'qiuck'; did you mean "
                                "'quick'?"),
         "a misspelt command gets a suggestion: %.*s", (int)strcspn(err, "\n"),
         err);
  free(out);
  free(err);
  rc = crossrun("frobnicate", &out, &err);
  TAP_OK(rc == 2 && strchr(err, '\n') == err + strlen(err) - 1 &&
             strstr(err, "unknown command 'frobnicate' (expected quick, run, "
                         "record, conform, merge, report, compare, validate "
                         "or rerun"),
         "an unknown command is one line: %.*s", (int)strcspn(err, "\n"), err);
  free(out);
  free(err);
  for (const struct command *c = commands; c->name != NULL; c++) {
    char want[64];
    snprintf(line, sizeof(line), "%s --help", c->name);
    snprintf(want, sizeof(want), "usage: crossrun %s ", c->name);
    rc = crossrun(line, &out, &err);
    TAP_OK(rc == 0 && strncmp(out, want, strlen(want)) == 0 &&
               strstr(out, "\noptions:\n") && strstr(out, "-h, --help") &&
               lines_fit(out),
           "crossrun %s --help is generated from its table", c->name);
    free(out);
    free(err);
    snprintf(line, sizeof(line), "%s --bogus", c->name);
    rc = crossrun(line, &out, &err);
    TAP_OK(rc == 2 && strstr(err, "unknown option '--bogus'") &&
               strchr(err, '\n') == err + strlen(err) - 1,
           "crossrun %s --bogus exits 2 with one line", c->name);
    free(out);
    free(err);
  }
}

/* The --help of every command, one after the other (the caller frees
 * it). */
static char *every_help(void)
{
  char *help = NULL;
  size_t len = 0;
  FILE *all = memfile_open(&help, &len);

  for (const struct command *c = commands; all && c->name != NULL; c++) {
    char arg0[32], arg1[] = "--help";
    char *argv[] = {arg0, arg1, NULL};
    snprintf(arg0, sizeof(arg0), "%s", c->name);
    c->run(2, argv, all, stderr);
  }
  if (all != NULL)
    memfile_close(all);
  return help;
}

/* Every option the README's Commands section names (outside its table of
 * make targets) is one that a command's --help lists. */
static void test_readme(void)
{
  const char *root = getenv("CROSSRUN_ROOT");
  char path[1024], *readme = NULL, *help = every_help(), *section, *end;
  FILE *f;
  int missing = 0;

  snprintf(path, sizeof(path), "%s/README.md", root ? root : ".");
  f = fopen(path, "rb");
  if (f != NULL) {
    readme = calloc(1, 1 << 20);
    if (readme != NULL)
      (void)!fread(readme, 1, (1 << 20) - 1, f);
    fclose(f);
  }
  section = readme ? strstr(readme, "\n## Commands\n") : NULL;
  end = section ? strstr(section + 1, "\n## ") : NULL;
  if (end != NULL)
    *end = '\0';
  for (char *p = section; p && (p = strstr(p, "--")) != NULL; p += 2) {
    char name[64];
    size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
    const char *bol = p;
    while (bol > section && bol[-1] != '\n')
      bol--;
    /* The table of make targets names other tools' flags. */
    if (p[2] < 'a' || p[2] > 'z' || p[-1] == '-' || *bol == '|')
      continue;
    snprintf(name, sizeof(name), "--%.*s", (int)n, p + 2);
    if (help == NULL || strstr(help, name) == NULL) {
      tap_diag("README.md names %s, which no --help lists", name);
      missing++;
    }
  }
  TAP_OK(section != NULL && missing == 0,
         "the README's commands name only options the commands have");
  {
    char *overview = NULL;
    size_t olen = 0;
    FILE *f2 = memfile_open(&overview, &olen);
    if (f2 != NULL) {
      commands_usage(f2);
      memfile_close(f2);
    }
    TAP_OK(section && overview && strstr(section, overview),
           "the README shows what crossrun --help prints");
    free(overview);
  }
  free(readme);
  free(help);
}

int main(void)
{
  test_kinds();
  test_repeats();
  test_errors();
  test_usage();
  test_commands();
  test_readme();
  return tap_done();
}
