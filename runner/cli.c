#include "runner/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

void cli_defaults(enum cli_command cmd, struct cli_options *o)
{
  struct sample_limits limits = SAMPLE_LIMITS_DEFAULT;

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

void cli_usage(enum cli_command cmd, FILE *f)
{
  if (cmd == CLI_NONE) {
    fputs("usage: crossrun COMMAND [OPTIONS]\n"
          "\n"
          "Runs every client runtime against every server runtime of one "
          "wire protocol,\nchecks that each session and each process ended "
          "cleanly, and writes JSON evidence.\n"
          "\n"
          "commands:\n"
          "  quick    check every lane once with a tiny workload (a smoke "
          "check: no\n           performance claims)\n"
          "  run      measure lanes with the full workload (5 samples of 1,000,000\n"
          "           round trips by default)\n"
          "  record   the official record: the full workload of every lane, "
          "from a clean\n           checkout of main in CI, to "
          "DIR/evidence-<os>-<arch>.json\n"
          "  merge    join the record evidence of Linux, macOS and Windows "
          "strictly into one\n           document\n"
          "  report   Markdown, HTML and JUnit reports of any evidence file\n"
          "  validate check evidence files against evidence/schema.json\n"
          "\n"
          "  crossrun COMMAND --help   options of a command\n"
          "  crossrun --version        the version\n",
          f);
    return;
  }
  fprintf(f, "usage: crossrun %s [OPTIONS]\n\n", cli_command_name(cmd));
  if (cmd == CLI_RECORD)
    fputs("Records official evidence: the full workload of every lane, run "
          "from a clean\ncheckout of main in CI (the CI variable set), "
          "written to\nDIR/evidence-<os>-<arch>.json. Any failed sample "
          "means no evidence file: the\ndata goes to "
          "DIR/rejected-<os>-<arch>.json and the run exits 1. A failed "
          "sample\nis retried once; a lane that passes on retry is flaky, "
          "and flaky evidence is\nnot official.\n\n"
          "record options:\n"
          "  --output-directory DIR  where the evidence goes (required)\n"
          "  --rehearse            run anywhere; the file says "
          "\"official\": false\n"
          "  --expect FILE         known failures per lane and OS (YAML); "
          "an unexpected\n                        failure or pass fails "
          "the run\n\n",
          f);
  else if (cmd == CLI_QUICK)
    fputs("Checks every lane once with a small workload (1,000 warm-up and "
          "20,000\nmeasured round trips). A smoke check: its timings make "
          "no performance claims.\n\n",
          f);
  else
    fputs("Measures lanes with the full workload (100,000 warm-up and "
          "1,000,000 measured\nround trips, 64-byte payloads, 64 in flight, "
          "5 samples per lane). Samples of\nall lanes are interleaved, "
          "shuffled per round.\n\n",
          f);
  fputs("options:\n"
        "  --lanes LIST          lanes to run, comma-separated names or "
        "patterns\n"
        "                        (c-c, 'node-*', '*-rust'); default: every "
        "lane\n"
        "  --matrix FILE         read runtimes and workloads from FILE too "
        "(repeatable;\n"
        "                        a runtime of the same name replaces "
        "matrix.yaml's)\n"
        "  --workload NAME       a workload of the matrix (quick: 'quick', "
        "run: 'full')\n"
        "  --no-packages         do not pack and measure the runtimes' "
        "packages\n"
        "  --samples N           samples per lane\n"
        "  --out FILE            evidence file to write (rewritten after "
        "every sample)\n"
        "  --warmup N            warm-up round trips per sample\n"
        "  --round-trips N       measured round trips per sample\n"
        "  --payload-bytes N     payload bytes per frame (0 to 1048576)\n"
        "  --max-in-flight N     requests outstanding at most (1 to 65536)\n"
        "  --seed N              seed of the per-round lane order\n"
        "  --shard K/N           run only the K-th of N deterministic parts "
        "of the lanes\n"
        "  --ready-timeout SEC   time for a server to print READY (10)\n"
        "  --timeout SEC         time for a client to finish (quick 120, run "
        "600)\n"
        "  --exit-timeout SEC    time for a server to exit after its client "
        "(5)\n"
        "  --host ADDR           address peers listen on (127.0.0.1)\n"
        "  --allow-non-loopback  accept a --host outside loopback\n"
        "  --progress, --no-progress\n"
        "                        a line per sample on stderr (default: when "
        "a terminal)\n"
        "  -h, --help            this help\n"
        "\n"
        "exit status: 0 when every sample passed every check, 1 when any "
        "failed,\n2 for bad usage, 3 when the runner itself failed, 130 "
        "when interrupted.\n",
        f);
}

static int parse_u64(const char *flag, const char *s, uint64_t min,
                     uint64_t max, uint64_t *out, char *err, size_t errlen)
{
  char *end;
  unsigned long long v;

  if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ') {
    snprintf(err, errlen, "%s: expected a whole number, got '%s'", flag,
             s ? s : "");
    return -1;
  }
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0') {
    snprintf(err, errlen, "%s: expected a whole number, got '%s'", flag, s);
    return -1;
  }
  if (v < min || v > max) {
    snprintf(err, errlen, "%s: %s is out of range (%" PRIu64 " to %" PRIu64
                          ")", flag, s, min, max);
    return -1;
  }
  *out = v;
  return 0;
}

static int parse_seconds(const char *flag, const char *s, uint64_t *ms,
                         char *err, size_t errlen)
{
  char *end;
  double v;

  errno = 0;
  v = s ? strtod(s, &end) : 0;
  if (s == NULL || *s == '\0' || errno != 0 || *end != '\0' || !(v > 0) ||
      v > 86400) {
    snprintf(err, errlen, "%s: expected seconds (above 0, at most 86400), "
                          "got '%s'", flag, s ? s : "");
    return -1;
  }
  *ms = (uint64_t)(v * 1000.0 + 0.5);
  if (*ms == 0)
    *ms = 1;
  return 0;
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

static int takes_value(const char *flag)
{
  static const char *const valued[] = {
      "--lanes",       "--out",           "--host",         "--samples",
      "--matrix",      "--workload",      "--shard",  "--output-directory",
      "--expect",
      "--warmup",      "--round-trips",   "--payload-bytes", "--max-in-flight",
      "--seed",        "--ready-timeout", "--timeout",      "--exit-timeout",
  };
  for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
    if (strcmp(flag, valued[i]) == 0)
      return 1;
  return 0;
}

int cli_parse(int argc, char **argv, struct cli_options *o, char *err,
              size_t errlen)
{
  enum cli_command cmd = CLI_NONE;
  int i = 1;

  if (argc > 1 && argv[1][0] != '-') {
    if (strcmp(argv[1], "quick") == 0)
      cmd = CLI_QUICK;
    else if (strcmp(argv[1], "run") == 0)
      cmd = CLI_RUN;
    else if (strcmp(argv[1], "record") == 0)
      cmd = CLI_RECORD;
    else {
      snprintf(err, errlen, "unknown command '%s' (expected quick, run, "
                            "record, merge, report or validate; see "
                            "crossrun --help)", argv[1]);
      return -1;
    }
    i = 2;
  }
  cli_defaults(cmd, o);
  for (; i < argc; i++) {
    char flag[64];
    const char *arg = argv[i], *value = NULL, *eq;
    uint64_t v;

    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      o->help = 1;
      continue;
    }
    if (strcmp(arg, "--version") == 0) {
      o->version = 1;
      continue;
    }
    if (strncmp(arg, "--", 2) != 0) {
      snprintf(err, errlen, "unexpected argument '%s'", arg);
      return -1;
    }
    if (cmd == CLI_NONE) {
      snprintf(err, errlen, "'%s' needs a command first (quick or run)", arg);
      return -1;
    }
    eq = strchr(arg, '=');
    snprintf(flag, sizeof(flag), "%.*s",
             (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
    if (strcmp(flag, "--allow-non-loopback") == 0 ||
        strcmp(flag, "--progress") == 0 ||
        strcmp(flag, "--no-progress") == 0 ||
        strcmp(flag, "--no-packages") == 0 ||
        strcmp(flag, "--rehearse") == 0) {
      if (eq) {
        snprintf(err, errlen, "%s takes no value", flag);
        return -1;
      }
      if (flag[2] == 'a')
        o->allow_non_loopback = 1;
      else if (strcmp(flag, "--no-packages") == 0)
        o->no_packages = 1;
      else if (strcmp(flag, "--rehearse") == 0)
        o->rehearse = 1;
      else
        o->progress = flag[2] == 'p';
      continue;
    }
    if (!takes_value(flag)) {
      snprintf(err, errlen, "unknown option '%s' (see crossrun %s --help)",
               flag, cli_command_name(cmd));
      return -1;
    }
    if (eq)
      value = eq + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else {
      snprintf(err, errlen, "%s needs a value", flag);
      return -1;
    }
    if (strcmp(flag, "--lanes") == 0)
      o->lanes = value;
    else if (strcmp(flag, "--workload") == 0)
      o->workload_name = value;
    else if (strcmp(flag, "--output-directory") == 0) {
      if (*value == '\0') {
        snprintf(err, errlen, "--output-directory: empty folder name");
        return -1;
      }
      o->output_directory = value;
    } else if (strcmp(flag, "--expect") == 0)
      o->expect = value;
    else if (strcmp(flag, "--shard") == 0) {
      char *end;
      long k = strtol(value, &end, 10), n = 0;
      if (end != value && *end == '/')
        n = strtol(end + 1, &end, 10);
      if (*value < '0' || *value > '9' || *end != '\0' || n < 1 ||
          n > 64 || k < 1 || k > n) {
        snprintf(err, errlen, "--shard: expected K/N with 1 <= K <= N <= "
                              "64, got '%s'", value);
        return -1;
      }
      o->shard_index = (int)k;
      o->shard_count = (int)n;
    }
    else if (strcmp(flag, "--matrix") == 0) {
      if (*value == '\0' || o->nmatrix >= CLI_MAX_MATRIX) {
        snprintf(err, errlen, "--matrix: %s", *value ? "too many files"
                                                      : "empty file name");
        return -1;
      }
      o->matrix[o->nmatrix++] = value;
    }
    else if (strcmp(flag, "--out") == 0) {
      if (*value == '\0') {
        snprintf(err, errlen, "--out: empty file name");
        return -1;
      }
      o->out = value;
    } else if (strcmp(flag, "--host") == 0)
      o->host = value;
    else if (strcmp(flag, "--samples") == 0) {
      if (parse_u64(flag, value, 1, 1000, &v, err, errlen))
        return -1;
      o->samples = (int)v;
      o->overrides |= CLI_SET_SAMPLES;
    } else if (strcmp(flag, "--warmup") == 0) {
      if (parse_u64(flag, value, 0, UINT64_C(1) << 40, &v, err, errlen))
        return -1;
      o->workload.warmup = v;
      o->overrides |= CLI_SET_WARMUP;
    } else if (strcmp(flag, "--round-trips") == 0) {
      if (parse_u64(flag, value, 1, UINT64_C(1) << 40, &v, err, errlen))
        return -1;
      o->workload.round_trips = v;
      o->overrides |= CLI_SET_ROUND_TRIPS;
    } else if (strcmp(flag, "--payload-bytes") == 0) {
      if (parse_u64(flag, value, 0, PROTO_MAX_PAYLOAD_BYTES, &v, err, errlen))
        return -1;
      o->workload.payload_bytes = (uint32_t)v;
      o->overrides |= CLI_SET_PAYLOAD;
    } else if (strcmp(flag, "--max-in-flight") == 0) {
      if (parse_u64(flag, value, 1, PROTO_MAX_IN_FLIGHT, &v, err, errlen))
        return -1;
      o->workload.max_in_flight = (uint32_t)v;
      o->overrides |= CLI_SET_IN_FLIGHT;
    } else if (strcmp(flag, "--seed") == 0) {
      if (parse_u64(flag, value, 0, UINT64_MAX, &o->seed, err, errlen))
        return -1;
      o->seed_given = 1;
    } else if (strcmp(flag, "--ready-timeout") == 0) {
      if (parse_seconds(flag, value, &o->limits.ready_timeout_ms, err,
                        errlen))
        return -1;
    } else if (strcmp(flag, "--timeout") == 0) {
      if (parse_seconds(flag, value, &o->limits.client_timeout_ms, err,
                        errlen))
        return -1;
    } else if (strcmp(flag, "--exit-timeout") == 0) {
      if (parse_seconds(flag, value, &o->limits.exit_timeout_ms, err,
                        errlen))
        return -1;
    } else {
      snprintf(err, errlen, "unknown option '%s' (see crossrun %s --help)",
               flag, cli_command_name(cmd));
      return -1;
    }
  }
  if (o->help || o->version)
    return 0;
  if (cmd == CLI_NONE) {
    snprintf(err, errlen, "no command given (see crossrun --help)");
    return -1;
  }
  if (cmd == CLI_RECORD && o->output_directory == NULL) {
    snprintf(err, errlen, "record needs --output-directory DIR");
    return -1;
  }
  if (cmd != CLI_RECORD &&
      (o->output_directory || o->rehearse || o->expect)) {
    snprintf(err, errlen, "--output-directory, --rehearse and --expect "
                          "belong to record");
    return -1;
  }
  switch (is_loopback(o->host)) {
  case -1:
    snprintf(err, errlen, "--host: '%s' is not a numeric IPv4 or IPv6 "
                          "address", o->host);
    return -1;
  case 0:
    if (!o->allow_non_loopback) {
      snprintf(err, errlen, "--host: %s is not a loopback address; peers "
                            "would be reachable from the network (add "
                            "--allow-non-loopback to mean it)", o->host);
      return -1;
    }
  }
  if (proto_workload_check(&o->workload) != 0) {
    snprintf(err, errlen, "the workload breaks protocol/SPEC.md's limits");
    return -1;
  }
  return 0;
}
