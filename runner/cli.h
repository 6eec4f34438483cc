/* The command line of `crossrun quick` and `crossrun run`. */
#ifndef CROSSRUN_RUNNER_CLI_H
#define CROSSRUN_RUNNER_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/codec.h"
#include "runner/sample.h"

enum cli_command { CLI_NONE, CLI_QUICK, CLI_RUN, CLI_RECORD };

#define CLI_MAX_MATRIX 8
#define CLI_MAX_OPTIONS 32 /* entries in a command's table, with its end */

/* Workload fields given on the command line, which win over the matrix. */
enum cli_override {
  CLI_SET_WARMUP = 1,
  CLI_SET_ROUND_TRIPS = 2,
  CLI_SET_PAYLOAD = 4,
  CLI_SET_IN_FLIGHT = 8,
  CLI_SET_SAMPLES = 16
};

struct cli_options {
  enum cli_command command;
  int help;    /* --help was given: print usage, do nothing else */
  int version; /* --version */
  const char *lanes;
  unsigned transports;       /* --transport: LANES_TRANSPORT_BIT bits, 0: not
                                given (the matrix's set) */
  const char *workload_name; /* "quick" or "full" unless --workload */
  const char *matrix[CLI_MAX_MATRIX]; /* --matrix files, in order */
  int nmatrix;
  int no_packages;
  unsigned overrides; /* enum cli_override bits */
  int samples;
  const char *out;
  struct proto_workload workload;
  uint64_t seed;
  unsigned seed_given; /* 1 when --seed was given */
  struct model_limits limits;
  const char *host;
  int allow_non_loopback;
  int allow_unavailable; /* in CI, lanes may be unavailable */
  int progress;          /* -1: when stderr is a terminal */
  int shard_index;       /* --shard K/N: 1-based K, 0 when not sharded */
  int shard_count;
  /* record */
  const char *output_directory;
  int rehearse;
  int no_conform; /* only with rehearse: an official record includes it */
  const char *expect;
};

/* The default workload of each command, used when the matrix does not
 * define "quick" or "full". */
void cli_defaults(enum cli_command cmd, struct cli_options *o);

/* Takes the workload's figures, except those the command line gave. */
void cli_apply_workload(struct cli_options *o, const struct proto_workload *w,
                        int samples);

/* Parses the options of cmd (quick, run or record) in argv[1..argc), where
 * argv[0] is the command's name, through the command's table of options
 * (runner/options.h). Returns 0 (o->help or o->version set when those
 * were given: the rest is not checked), or -1 with a one-line message in
 * err (the caller exits 2). Strings point into argv. */
int cli_parse_command(enum cli_command cmd, int argc, char **argv,
                      struct cli_options *o, char *err, size_t errlen);

/* The same with argv[0] the program and argv[1] the command. */
int cli_parse(int argc, char **argv, struct cli_options *o, char *err,
              size_t errlen);

/* Prints the --help of cmd (quick, run or record), generated from its
 * table. */
void cli_usage(enum cli_command cmd, FILE *f);

const char *cli_command_name(enum cli_command cmd);

#endif
