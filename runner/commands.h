/* The commands of crossrun, and the table main dispatches through (git's
 * commands[]). Each takes the arguments from its own name on (argv[0] is
 * the command's name, e.g. "report"), parses them with its table of
 * options (runner/options.h), writes what it reports to out and its errors
 * to err (the process's stdout and stderr, or a test's buffers), and
 * returns the process exit status. */
#ifndef CROSSRUN_RUNNER_COMMANDS_H
#define CROSSRUN_RUNNER_COMMANDS_H

#include <stdio.h>

#define CROSSRUN_VERSION "0.1.0"

struct command {
  const char *name;
  int (*run)(int argc, char **argv, FILE *out, FILE *err);
  const char *summary; /* one line for `crossrun --help` */
};

/* Every command, in the order `crossrun --help` lists them, then one with
 * a NULL name. */
extern const struct command commands[];

/* The command called name, or NULL. */
const struct command *commands_find(const char *name);

/* What `crossrun` without a command prints: the usage and the commands. */
void commands_usage(FILE *f);

/* `crossrun ARGS...` (argv[0] is the program): --help, --version, or the
 * command that argv[1] names. Returns the exit status; bad usage is one
 * line on err and 2. */
int commands_main(int argc, char **argv, FILE *out, FILE *err);

/* The folder of the running executable and the repository root above it
 * (build/crossrun -> build, .). Returns 0 or -1. */
int commands_locate(char *bin_dir, size_t bin_len, char *root, size_t root_len);

/* Loads the repository's matrix.yaml (when present) and then each of
 * files, in order; without either, an error naming the missing file. */
struct lanes;
int commands_load_matrices(struct lanes *l, const char *const *files,
                           int nfiles, char *err, size_t errlen);

/* `crossrun conform [--runtimes LIST] [--matrix FILE]... [--cases PATTERN]
 * [--out FILE]` (runner/conform_run.h): each runtime against the runner's
 * scripted peer, evidence of mode conform. */
int cmd_conform(int argc, char **argv, FILE *out, FILE *err);

/* `crossrun quick|run|record [OPTIONS]` (runner/cli.h has the options):
 * runs the lanes and writes evidence (runner/run.h has the exit
 * statuses). */
int cmd_quick(int argc, char **argv, FILE *out, FILE *err);
int cmd_run(int argc, char **argv, FILE *out, FILE *err);
int cmd_record(int argc, char **argv, FILE *out, FILE *err);

/* `crossrun report FILE [--markdown OUT] [--html OUT] [--junit OUT]
 * [--baseline OLD]`: reads any evidence file and writes the reports asked
 * for; the Markdown is also appended to $GITHUB_STEP_SUMMARY when that is
 * set, and ends with crossrun compare OLD FILE's table with --baseline;
 * an OUT of "-" is out. Returns 0, 1 when the evidence cannot be read or is
 * invalid or an output cannot be written (one line on err: "crossrun report:
 * FILE: problem"), 2 for bad usage. */
int cmd_report(int argc, char **argv, FILE *out, FILE *err);

/* `crossrun merge [--require OSES] [--pinned RUNTIMES] [--allow-rehearsal]
 * --out FILE FILES...`: checks record evidence files (evidence/merge/merge.h
 * says what is refused), joins each OS's shards and writes one merged
 * document to FILE atomically, printing a one-line summary. --require
 * defaults to linux,macos,windows; --pinned names the runtimes whose
 * toolchain_version must agree across OSes. Returns 0; 1 when refusing
 * (every problem on err, one line each: "crossrun merge: FILE: problem",
 * or "crossrun merge: problem" for one between files); 2 for bad usage (an
 * unknown option, no files, an unknown OS in --require, no --out); 3 when
 * FILE cannot be written. */
int cmd_merge(int argc, char **argv, FILE *out, FILE *err);

/* `crossrun compare OLD NEW [--markdown FILE] [--json FILE]
 * [--fail-on-regression] [--threshold PCT] [--alpha A]
 * [--allow-different-machines]`: evidence/diff/diff.h's comparison of two
 * evidence files, as a table on out (unless an output is "-"), Markdown
 * and JSON; the Markdown is also appended to $GITHUB_STEP_SUMMARY when
 * that is set. Returns 0; 1 with --fail-on-regression when a row
 * regressed; 2 for bad usage or a file that is not readable evidence (one
 * line on err: "crossrun compare: FILE: problem"); 3 when an output cannot
 * be written. */
int cmd_compare(int argc, char **argv, FILE *out, FILE *err);

/* `crossrun validate FILE... [--schema PATH]`: checks each evidence file
 * (quick, full, record or merged) against a JSON Schema, by default
 * evidence/schema.json in the repository above the executable's folder.
 * Prints "FILE: valid", or each problem as "FILE: at /json/pointer:
 * problem" ("FILE: not JSON: ... at byte N" for a file that does not
 * parse), on out. Returns 0 when every file is valid, 1 when any is
 * invalid or unreadable, 2 for bad usage (an unknown option, no file, an
 * unusable --schema), 3 when the default schema is missing or unusable. */
int cmd_validate(int argc, char **argv, FILE *out, FILE *err);

/* `crossrun rerun EVIDENCE --lane L --round R [--out FILE]`: runs that
 * sample again from its reproduce block (its directory and argv, with
 * this crossrun), writes the new evidence to FILE and prints the recorded
 * and the new outcome. Returns 0 when it passed now, 1 when it failed for
 * the recorded reason, 4 for another outcome, 2 for bad usage or evidence
 * that cannot be rerun (one line on err), 3 and 130 as run does. */
int cmd_rerun(int argc, char **argv, FILE *out, FILE *err);

#endif
