#include "runner/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "runner/options.h"
#include "runner/lanes.h"

void cli_defaults(enum cli_command cmd, struct cli_options *o)
{
  struct model_limits limits = MODEL_LIMITS_DEFAULT;

  memset(o, 0, sizeof(*o));
  o->command = cmd;
  o->limits = limits;
  o->host = "127.0.0.1";
  o->progress = -1;
  o->workload.payload_bytes = 64;
  o->workload.max_in_flight = 64;
  if (cmd == CLI_RUN || cmd == CLI_RECORD) {
    o->workload.warmup = 100000;
    o->workload.round_trips = 1000000;
    o->samples = 5;
    o->workload_name = "full";
    o->out = "crossrun-full.json";
    o->limits.client_timeout_ms = 600000;
  } else {
    o->workload.warmup = 1000;
    o->workload.round_trips = 20000;
    o->samples = 1;
    o->workload_name = "quick";
    o->out = "crossrun-quick.json";
  }
}

void cli_apply_workload(struct cli_options *o, const struct proto_workload *w,
                        int samples)
{
  if (!(o->overrides & CLI_SET_WARMUP))
    o->workload.warmup = w->warmup;
  if (!(o->overrides & CLI_SET_ROUND_TRIPS))
    o->workload.round_trips = w->round_trips;
  if (!(o->overrides & CLI_SET_PAYLOAD))
    o->workload.payload_bytes = w->payload_bytes;
  if (!(o->overrides & CLI_SET_IN_FLIGHT))
    o->workload.max_in_flight = w->max_in_flight;
  if (!(o->overrides & CLI_SET_SAMPLES))
    o->samples = samples;
}

const char *cli_command_name(enum cli_command cmd)
{
  return cmd == CLI_QUICK    ? "quick"
         : cmd == CLI_RUN    ? "run"
         : cmd == CLI_RECORD ? "record"
                             : "crossrun";
}

static const struct options_command usages[] = {
    [CLI_QUICK] = {"quick", "[OPTIONS]",
                   "Checks every lane once with a small workload (1,000 "
                   "warm-up and 20,000 measured round trips). A smoke check: "
                   "its timings make no performance claims.",
                   NULL},
    [CLI_RUN] = {"run", "[OPTIONS]",
                 "Measures lanes with the full workload (100,000 warm-up and "
                 "1,000,000 measured round trips, 64-byte payloads, 64 in "
                 "flight, 5 samples per lane). Samples of all lanes are "
                 "interleaved, shuffled per round.",
                 NULL},
    [CLI_RECORD] = {"record", "--output-directory DIR [OPTIONS]",
                    "Records official evidence: the full workload of every "
                    "lane, run from a clean checkout of main in CI (the CI "
                    "variable set), written to DIR/evidence-<os>-<arch>.json. "
                    "Any failed sample means no evidence file: the data goes "
                    "to DIR/rejected-<os>-<arch>.json and the run exits 1. A "
                    "failed sample is retried once; a lane that passes on "
                    "retry is flaky, and flaky evidence is not official.",
                    NULL},
};

static const char exit_status[] =
    "exit status: 0 when every sample passed every check, 1 when any failed, "
    "2 for bad usage, 3 when the runner itself failed, 130 when "
    "interrupted.";

/* --shard K/N */
static int parse_shard(const struct options_entry *opt, const char *value,
                       char *err, size_t errlen)
{
  struct cli_options *o = opt->value;
  char *end;
  long k = strtol(value, &end, 10), n = 0;

  if (end != value && *end == '/')
    n = strtol(end + 1, &end, 10);
  if (*value < '0' || *value > '9' || *end != '\0' || n < 1 || n > 64 ||
      k < 1 || k > n) {
    snprintf(err, errlen, "expected K/N with 1 <= K <= N <= 64, got '%s'",
             value);
    return -1;
  }
  o->shard_index = (int)k;
  o->shard_count = (int)n;
  return 0;
}

/* --transport tcp,tls: the transports of the lanes. */
static int parse_transport(const struct options_entry *opt, const char *value,
                           char *err, size_t errlen)
{
  struct cli_options *o = opt->value;
  return lanes_transports_parse(value, &o->transports, err, errlen);
}

/* A workload figure that wins over the matrix's. */
#define FIGURE(name, field, lo, hi, bit, help)                                 \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_INTEGER, name, 0, &o->field, "N", help),       \
        .size = sizeof(o->field), .min = (lo), .max = (hi),                    \
        .given = &o->overrides, .given_bit = (bit)                             \
  }
/* A file or folder name, which cannot be empty. */
#define NAME(name, field, arg, noun, help)                                     \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_STRING, name, 0, &o->field, arg, help),        \
        .flags = OPTIONS_NONEMPTY, .missing = (noun)                           \
  }

/* The options of the lanes' selection and the run's output. */
static int table_lanes(enum cli_command cmd, struct cli_options *o,
                       struct options_entry *t)
{
  struct options_entry e[] = {
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "lanes", 0, &o->lanes, "LIST",
                      "lanes to run, comma-separated names or patterns "
                      "(c-c, 'node-*', '*-rust', 'c-c+tls')"),
       .shown = "every lane"},
      {OPTIONS_FIELDS(OPTIONS_KIND_CUSTOM, "transport", 0, o, "LIST",
                      "transports of the lanes, comma-separated: tcp, tls "
                      "(lanes over tls are named 'c-c+tls')"),
       .parse = parse_transport, .shown = "the matrix's transports"},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "matrix", 0, o->matrix, "FILE",
                      "read runtimes and workloads from FILE too "
                      "(repeatable; a runtime of the same name replaces "
                      "matrix.yaml's)"),
       .flags = OPTIONS_REPEAT | OPTIONS_NONEMPTY, .missing = "a file",
       .count = &o->nmatrix, .max_count = CLI_MAX_MATRIX},
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "workload", 0, &o->workload_name,
                      "NAME", "a workload of the matrix"),
       .shown = cmd == CLI_QUICK ? "quick" : "full"},
      OPTIONS_FLAG("no-packages", 0, &o->no_packages,
                   "do not pack and measure the runtimes' packages"),
      FIGURE("samples", samples, 1, 1000, CLI_SET_SAMPLES,
             "samples per lane (1 to 1000)"),
      OPTIONS_FLAG("allow-unavailable", 0, &o->allow_unavailable,
                   "in CI (CI set), accept lanes whose runtime is "
                   "unavailable; without it only runtimes marked optional: "
                   "true may be"),
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "out", 0, &o->out, "FILE",
                      "evidence file to write (rewritten after every "
                      "sample)"),
       .flags = OPTIONS_NONEMPTY, .missing = "a file", .shown = o->out},
  };
  /* A record's files are named by --output-directory, and every lane of
   * it must run: the last two are not its options. */
  int n = (int)(sizeof(e) / sizeof(e[0])) - (cmd == CLI_RECORD ? 2 : 0);

  memcpy(t, e, (size_t)n * sizeof(e[0]));
  return n;
}

/* The workload's figures and the limits of a sample. */
static int table_workload(enum cli_command cmd, struct cli_options *o,
                          struct options_entry *t)
{
  struct options_entry e[] = {
      FIGURE("warmup", workload.warmup, 0, UINT64_C(1) << 40, CLI_SET_WARMUP,
             "warm-up round trips per sample"),
      FIGURE("round-trips", workload.round_trips, 1, UINT64_C(1) << 40,
             CLI_SET_ROUND_TRIPS, "measured round trips per sample"),
      FIGURE("payload-bytes", workload.payload_bytes, 0,
             PROTO_MAX_PAYLOAD_BYTES, CLI_SET_PAYLOAD,
             "payload bytes per frame (0 to 1048576)"),
      FIGURE("max-in-flight", workload.max_in_flight, 1, PROTO_MAX_IN_FLIGHT,
             CLI_SET_IN_FLIGHT, "requests outstanding at most (1 to 65536)"),
      {OPTIONS_FIELDS(OPTIONS_KIND_INTEGER, "seed", 0, &o->seed, "N",
                      "seed of the per-round lane order"),
       .size = sizeof(o->seed), .max = UINT64_MAX, .given = &o->seed_given,
       .given_bit = 1, .shown = "from the clock"},
      OPTIONS_CUSTOM("shard", 0, o, parse_shard, "K/N",
                     "run only the K-th of N deterministic parts of the "
                     "lanes"),
      {OPTIONS_FIELDS(OPTIONS_KIND_SECONDS, "ready-timeout", 0,
                      &o->limits.ready_timeout_ms, "SEC",
                      "time for a server to print READY"),
       .max = 86400, .shown = "10"},
      {OPTIONS_FIELDS(OPTIONS_KIND_SECONDS, "timeout", 0,
                      &o->limits.client_timeout_ms, "SEC",
                      "time for a client to finish"),
       .max = 86400, .shown = cmd == CLI_QUICK ? "120" : "600"},
      {OPTIONS_FIELDS(OPTIONS_KIND_SECONDS, "exit-timeout", 0,
                      &o->limits.exit_timeout_ms, "SEC",
                      "time for a server to exit after its client"),
       .max = 86400, .shown = "5"},
  };
  memcpy(t, e, sizeof(e));
  return (int)(sizeof(e) / sizeof(e[0]));
}

/* Where peers listen and what is printed. */
static int table_host(enum cli_command cmd, struct cli_options *o,
                      struct options_entry *t)
{
  struct options_entry e[] = {
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "host", 0, &o->host, "ADDR",
                      "address peers listen on"),
       .shown = "127.0.0.1"},
      OPTIONS_FLAG("allow-non-loopback", 0, &o->allow_non_loopback,
                   "accept a --host outside loopback"),
      {OPTIONS_FIELDS(OPTIONS_KIND_FLAG, "progress", 0, &o->progress, NULL,
                      "a line per sample on stderr"),
       .number = 1, .shown = "when stderr is a terminal"},
      OPTIONS_SET("no-progress", 0, &o->progress, 0, "no progress lines"),
      OPTIONS_FLAG("version", 0, &o->version, "print the version"),
  };
  memcpy(t, e, sizeof(e));
  return (int)(sizeof(e) / sizeof(e[0]));
}

/* Record's own options, listed first in its help. */
static int table_record(struct cli_options *o, struct options_entry *t)
{
  struct options_entry e[] = {
      NAME("output-directory", output_directory, "DIR", "a folder",
           "where the evidence goes (required)"),
      OPTIONS_FLAG("rehearse", 0, &o->rehearse,
                   "run anywhere; the file says \"official\": false"),
      OPTIONS_FLAG("no-conform", 0, &o->no_conform,
                   "do not run the runtimes' conformance (crossrun conform) "
                   "beside the lanes; only with --rehearse"),
      OPTIONS_STRING("expect", 0, &o->expect, "FILE",
                     "known failures per lane and OS (YAML); an unexpected "
                     "failure or pass fails the run"),
  };
  memcpy(t, e, sizeof(e));
  return (int)(sizeof(e) / sizeof(e[0]));
}

static void cli_table(enum cli_command cmd, struct cli_options *o,
                      struct options_entry *t)
{
  int n = cmd == CLI_RECORD ? table_record(o, t) : 0;

  n += table_lanes(cmd, o, t + n);

  n += table_workload(cmd, o, t + n);
  n += table_host(cmd, o, t + n);
  memset(&t[n], 0, sizeof(t[n]));
}

void cli_usage(enum cli_command cmd, FILE *f)
{
  struct options_entry table[CLI_MAX_OPTIONS];
  struct options_command usage;
  struct cli_options o;

  if (cmd == CLI_NONE) /* no table of its own: commands_usage is that */
    cmd = CLI_QUICK;
  usage = usages[cmd];
  cli_defaults(cmd, &o);
  cli_table(cmd, &o, table);
  usage.after = exit_status;
  options_usage(&usage, table, f);
}

static int is_loopback(const char *host)
{
  unsigned char a[16];
  static const unsigned char v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                                0, 0, 0, 0, 0, 0, 0, 1};
  if (uv_inet_pton(AF_INET, host, a) == 0)
    return a[0] == 127;
  if (uv_inet_pton(AF_INET6, host, a) == 0)
    return memcmp(a, v6_loopback, 16) == 0;
  return -1;
}

/* What the options mean together. */
static int cli_check(const struct cli_options *o, char *err, size_t errlen)
{
  if (o->command == CLI_RECORD && o->output_directory == NULL) {
    snprintf(err, errlen, "record needs --output-directory DIR");
    return -1;
  }
  if (o->no_conform && !o->rehearse) {
    snprintf(err, errlen,
             "--no-conform: only with --rehearse (an official record "
             "includes the runtimes' conformance)");
    return -1;
  }
  switch (is_loopback(o->host)) {
  case -1:
    snprintf(err, errlen,
             "--host: '%s' is not a numeric IPv4 or IPv6 address%s", o->host,
             o->host[0] == '[' ? " (give an IPv6 one without brackets: ::1)"
                               : "");
    return -1;
  case 0:
    if (!o->allow_non_loopback) {
      snprintf(err, errlen,
               "--host: %s is not a loopback address; peers would be "
               "reachable from the network (add --allow-non-loopback to "
               "mean it)",
               o->host);
      return -1;
    }
  }
  if (proto_workload_check(&o->workload) != 0) {
    snprintf(err, errlen, "the workload breaks protocol/SPEC.md's limits");
    return -1;
  }
  return 0;
}

int cli_parse_command(enum cli_command cmd, int argc, char **argv,
                      struct cli_options *o, char *err, size_t errlen)
{
  struct options_entry table[CLI_MAX_OPTIONS];
  char why[512];
  int rc;

  cli_defaults(cmd, o);
  cli_table(cmd, o, table);
  rc = options_parse(table, argc, argv, NULL, NULL, why, sizeof(why));
  if (rc == OPTIONS_HELP) {
    o->help = 1;
    return 0;
  }
  if (rc != 0) {
    snprintf(err, errlen, "%s (see crossrun %s --help)", why,
             cli_command_name(cmd));
    return -1;
  }
  if (o->version)
    return 0;
  return cli_check(o, err, errlen);
}

int cli_parse(int argc, char **argv, struct cli_options *o, char *err,
              size_t errlen)
{
  static const enum cli_command cmds[] = {CLI_QUICK, CLI_RUN, CLI_RECORD};

  cli_defaults(CLI_NONE, o);
  if (argc < 2) {
    snprintf(err, errlen, "no command given (see crossrun --help)");
    return -1;
  }
  for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
    if (strcmp(argv[1], cli_command_name(cmds[i])) == 0)
      return cli_parse_command(cmds[i], argc - 1, argv + 1, o, err, errlen);
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
    o->help = 1;
  else if (strcmp(argv[1], "--version") == 0)
    o->version = 1;
  else if (argv[1][0] == '-')
    snprintf(err, errlen, "'%s' needs a command first (quick or run)", argv[1]);
  else
    snprintf(err, errlen,
             "unknown command '%s' (expected quick, run or record; see "
             "crossrun --help)",
             argv[1]);
  return o->help || o->version ? 0 : -1;
}
