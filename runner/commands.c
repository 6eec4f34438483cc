/* The table of crossrun's commands and the dispatch through it. */
#include "runner/commands.h"

#include <string.h>

#include "runner/options.h"
#include "runner/run.h"

const struct command commands[] = {
    {"quick", cmd_quick,
     "check every lane once with a tiny workload (a smoke check: no "
     "performance claims)"},
    {"run", cmd_run,
     "measure lanes with the full workload (5 samples of 1,000,000 round "
     "trips by default)"},
    {"record", cmd_record,
     "the official record: the full workload of every lane, from a clean "
     "checkout of main in CI, to DIR/evidence-<os>-<arch>.json"},
    {"conform", cmd_conform,
     "test each runtime's server and client against protocol/SPEC.md with a "
     "scripted peer: every rejection and valid edge, case by case"},
    {"merge", cmd_merge,
     "join the record evidence of Linux, macOS and Windows strictly into one "
     "document"},
    {"report", cmd_report,
     "Markdown, HTML and JUnit reports of any evidence file"},
    {"compare", cmd_compare,
     "what changed between two evidence files, lane by lane, with a verdict "
     "from the raw samples; a gate for CI"},
    {"validate", cmd_validate,
     "check evidence files against evidence/schema.json"},
    {"rerun", cmd_rerun,
     "run one sample of an evidence file again, as its reproduce block "
     "recorded it, and say whether it fails for the same reason"},
    {NULL, NULL, NULL},
};

const struct command *commands_find(const char *name)
{
  for (const struct command *c = commands; c->name != NULL; c++)
    if (strcmp(c->name, name) == 0)
      return c;
  return NULL;
}

void commands_usage(FILE *f)
{
  fputs("usage: crossrun COMMAND [OPTIONS]\n\n", f);
  options_wrap(f,
               "Runs every client runtime against every server runtime of "
               "one wire protocol, checks that each session and each process "
               "ended cleanly, and writes JSON evidence.",
               0, 0);
  fputs("\ncommands:\n", f);
  for (const struct command *c = commands; c->name != NULL; c++) {
    fprintf(f, "  %-9s", c->name);
    options_wrap(f, c->summary, 11, 11);
  }
  fputs("\n"
        "  crossrun COMMAND --help   options of a command\n"
        "  crossrun --version        the version\n",
        f);
}

/* "unknown command 'x' (expected quick, run, ... or validate; ...)" */
static int unknown_command(const char *name, FILE *err)
{
  fprintf(err, "crossrun: unknown command '%s'", name);
  for (const struct command *c = commands; c->name != NULL; c++)
    if (options_near(name, c->name)) {
      fprintf(err, "; did you mean '%s'?", c->name);
      break;
    }
  fputs(" (expected", err);
  for (const struct command *c = commands; c->name != NULL; c++)
    fprintf(err, "%s %s",
            c == commands ? ""
            : c[1].name   ? ","
                          : " or",
            c->name);
  fputs("; see crossrun --help)\n", err);
  return RUN_EXIT_USAGE;
}

int commands_main(int argc, char **argv, FILE *out, FILE *err)
{
  const struct command *c;

  if (argc <= 1) {
    commands_usage(err);
    return RUN_EXIT_USAGE;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    commands_usage(out);
    return RUN_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    fprintf(out, "crossrun %s\n", CROSSRUN_VERSION);
    return RUN_EXIT_OK;
  }
  if (argv[1][0] == '-') {
    fprintf(err, "crossrun: '%s' needs a command first (see crossrun --help)\n",
            argv[1]);
    return RUN_EXIT_USAGE;
  }
  c = commands_find(argv[1]);
  if (c == NULL)
    return unknown_command(argv[1], err);
  return c->run(argc - 1, argv + 1, out, err);
}
