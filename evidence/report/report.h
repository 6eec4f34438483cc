/* Reports: any evidence file (a single-OS quick, full or record document,
 * or a merged one from `crossrun merge`) read into a plain model, then
 * rendered as Markdown, one self-contained HTML page, or JUnit XML. The
 * model is built from the file alone, so a report can be made on any
 * machine. Reading checks every type it uses: a file that is not JSON or
 * holds a wrong type is refused with one line, never half-read. */
#ifndef CROSSRUN_EVIDENCE_REPORT_H
#define CROSSRUN_EVIDENCE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The renderers' text helpers: UTF-8, XML escaping, figures as text. */
#include "evidence/report/report_text.h"

/* Hard limits on what a file may hold. The file itself is read under the
 * rules every command shares (evidence/base/json_read.h). */
#define REPORT_MAX_PLATFORMS 8
#define REPORT_MAX_LANES 4096    /* per platform */
#define REPORT_MAX_SAMPLES 10000 /* per lane */
#define REPORT_MAX_RUNTIMES 256  /* per platform */
#define REPORT_MAX_COMPARISONS 16384
/* Client x server tables and heat maps show at most this many runtimes. */
#define REPORT_MAX_MATRIX 24

/* A figure over a lane's passed samples. n == 0: not measured. When a
 * document carries only a summary median, have_range is 0 and min and max
 * equal the median. */
struct report_figure {
  int n;
  int have_range;
  double median;
  double min;
  double max;
};

struct report_sample {
  int round;           /* 0 when the file does not say */
  const char *status;  /* "passed", "failed", "unsupported", ... */
  const char *stage;   /* failure stage, NULL when passed */
  const char *reason;  /* failure reason, NULL when passed */
  const char *message; /* failure message, may be NULL */
  int have_time;
  double ns_per_round_trip;
  int64_t wall_ns; /* -1: unknown */
  int retried;     /* passed or failed on a retry; first_* say how
                      the first attempt failed */
  const char *first_stage;
  const char *first_reason;
  const char *first_message;
  const char *reproduce;           /* the crossrun command, may be NULL */
  const char *reproduce_directory; /* where it runs, may be NULL */
  const char *reproduce_server;
  const char *reproduce_client;
  const char *client_stderr; /* kept only for failed samples */
  const char *server_stderr;
};

/* A non-empty bucket of a latency histogram (protocol/SPEC.md section 7). */
struct report_bucket {
  int index; /* 0 to HIST_BUCKETS - 1, increasing along the array */
  int64_t count;
};

/* A lane's latency over its passed samples, merged by the runner (the
 * summary's latency_ns): the percentiles are bucket lower bounds, exact
 * from the buckets; min and max are exact. Times in ns, -1 when null. */
struct report_latency {
  int present; /* else the lane has no latency; see latency_missing */
  int samples; /* merged; 0 when the file does not say */
  int64_t count;
  int64_t min, max, p50, p90, p99, p99_9;
  const struct report_bucket *buckets;
  int nbuckets;
};

/* Why a figure of a lane with passed samples is missing when the
 * evidence predates it (no cost figures anywhere in the lane). */
#define REPORT_OLDER_EVIDENCE                                                  \
  "not in this evidence (its crossrun did not record it)"

struct report_lane {
  const char *name;
  const char *client; /* runtime names */
  const char *server;
  const char *status; /* the summary's, or derived from the samples */
  const char *unavailable_reason;
  const char *error_reason;
  const char *unstable_reasons;
  int stable; /* 1, 0, -1 unknown */
  int passed;
  int failed; /* samples failed or in error */
  struct report_figure ns_per_rt;
  struct report_figure client_rss; /* bytes */
  struct report_figure server_rss;
  /* How the peaks of client_rss and server_rss were taken: "exact" when
   * every passed sample's is the peer's own (exit_accounting_peak or
   * os_lifetime_peak), "sampled" when any is the last reading while it
   * ran (a lower bound), NULL when the file does not say. */
  const char *client_rss_label;
  const char *server_rss_label;
  /* When the samples give memory.label (text from the file, e.g. "exact,
   * tree of 2: sh, node"), the labels above are it: the one every passed
   * sample gives, or else the first sampled one (a lower bound), or else
   * the first with "; samples differ". covers: "process", "tree" or NULL. */
  const char *client_rss_covers;
  const char *server_rss_covers;
  struct report_figure client_cpu; /* ns, user + system */
  struct report_figure server_cpu;
  double peers_cpu_ns; /* both peers' CPU in every sample, summed */
  /* The cost of a round trip: latency, and each peer's CPU over its
   * measured window in µs per round trip (from the samples' cost, or the
   * summary's median). Each *_missing says why a lane with passed samples
   * has no such figure: the file's not_reported reason, or
   * REPORT_OLDER_EVIDENCE; NULL when the figure is there or nothing
   * passed. */
  struct report_latency latency;
  const char *latency_missing;
  struct report_figure client_cpu_per_rt;
  struct report_figure server_cpu_per_rt;
  const char *client_cpu_per_rt_missing;
  const char *server_cpu_per_rt_missing;
  struct report_sample *samples;
  int nsamples;
  /* The transport (evidence/report/report_tls.c): "tcp" or "tls" ("tcp"
   * when the file does not say); why it was not started when a runtime
   * declares it does not implement it; over tls the client's handshake
   * time over the passed samples, and the version and cipher they name
   * (each the one every passed sample's client gives, else "mixed"; NULL
   * when none reported it). */
  const char *transport;
  const char *unsupported_reason;
  struct report_figure handshake_ns;
  const char *tls_version;
  const char *tls_cipher;
};

struct report_package {
  int present;  /* the runtime declares a package */
  int measured; /* else error says why */
  const char *error;
  const char *file_name;
  const char *format;
  int64_t packed_bytes;
  int64_t unpacked_bytes;
  int file_count;
  const char *sha256;
  int reproducible; /* 1, 0, -1 unknown */
};

struct report_runtime {
  const char *name;
  const char *toolchain_version; /* may be NULL */
  const char *status; /* "available", "unavailable", "broken", or NULL */
  const char *reason;
  struct report_package package;
};

struct report_comparison {
  const char *lane;
  const char *reference;
  double ratio;
  double u;
  double p;
  const char *verdict; /* "tie", "faster", "slower", "~", "not_compared" */
  const char *reason;  /* why not compared (ratio -1); NULL otherwise */
};

struct report_cleanliness {
  int present;
  int pairs_started;
  int natural_exits;
  int processes_left;
  int sockets_left;
  int forced_terminations;
  int temp_entries_left;
};

/* One operating system's document. Every string is owned by the report. */
struct report_platform {
  const char *os;   /* the key in a merged file, else machine.os */
  const char *mode; /* "quick", "full", "record" */
  int performance_claims;
  int official;
  int complete;
  const char *incomplete_reason;
  const char *started_at;
  const char *tool_version;
  struct {
    const char *arch;
    const char *kernel;
    const char *cpu_model;
    int logical_cpus;     /* 0: unknown */
    int64_t memory_bytes; /* -1: unknown */
  } machine;
  struct {
    const char *name;
    int64_t warmup_round_trips; /* -1: unknown */
    int64_t round_trips;
    int64_t payload_bytes;
    int64_t max_in_flight;
    int samples_per_lane;
  } workload;
  struct {
    const char *commit;
    const char *branch;
    const char *ci_provider;
    const char *ci_workflow;
    const char *ci_run_id;
  } provenance;
  /* crossrun's own cost over the run (the top-level coordinator):
   * present 0 when the file does not say; a member it leaves null is -1. */
  struct {
    int present;
    double cpu_ns;
    double wall_ns;
    double cpu_share_of_wall; /* a fraction, 0.0021 for 0.21% */
    int64_t peak_rss_bytes;
  } coordinator;
  int shard_index; /* 0: not a shard */
  int shard_count;
  int packages_skipped; /* every package says --no-packages */
  struct report_runtime *runtimes;
  int nruntimes;
  struct report_lane *lanes;
  int nlanes;
  struct report_comparison *comparisons;
  int ncomparisons;
  struct report_cleanliness cleanliness;
  /* The runtimes the lanes use as client or server, each once, in the
   * order of runtimes and then of lanes. */
  const char **pair_runtimes;
  int npair_runtimes;
};

/* One input of a merged document: where it came from and whether its
 * provenance (its artifact attestation) was verified. */
struct report_input {
  const char *name;
  const char *os;
  int verified;
  const char *provenance; /* how, or why not; "not stated" when absent */
};

#define REPORT_MAX_INPUTS 256

struct report {
  const char *source; /* the file's name, without its folders */
  const char *mode;   /* "quick", "full", "record" or "merged" */
  int merged;
  int performance_claims; /* 0 when any platform's evidence is a smoke
                             check */
  int official;
  const char *commit; /* a merged file's, else the provenance's */
  const char *tool_version;
  struct report_platform *platforms;
  int nplatforms;
  struct report_input *inputs; /* a merged document's */
  int ninputs;
  /* Every platform's lane names, each once, in the order they first
   * appear. */
  const char **lane_names;
  int nlane_names;
  /* Every allocation of the model, freed by report_release. */
  void **owned;
  size_t nowned;
  size_t capowned;
};

#define REPORT_INIT                                                            \
  {                                                                            \
    0                                                                          \
  }

void report_init(struct report *r);

/* Reads the evidence file at path into r, which must be initialised: the
 * file with json_read_file (evidence/base/json_read.h: at most
 * JSON_READ_MAX_BYTES, UTF-8, no NUL byte, one JSON value nested at most
 * JSON_READ_MAX_DEPTH levels), then the model. Returns 0, or -1 with one
 * line in err ("not JSON: unexpected end of data at byte 12",
 * "'lanes.c-c.samples' is a string, expected an array") and r left
 * empty. */
int report_load(struct report *r, const char *path, char *err, size_t errlen);

/* The same from a document in memory (len bytes, need not end in NUL,
 * read with json_read_parse); name is what the report calls it. */
int report_parse(struct report *r, const char *name, const char *text,
                 size_t len, char *err, size_t errlen);

/* Frees everything the model owns; r is empty afterwards. */
void report_release(struct report *r);

/* The lane called name on p, or NULL. */
const struct report_lane *report_find_lane(const struct report_platform *p,
                                           const char *name);

/* The lane of client runtime c against server runtime s on p, or NULL. */
const struct report_lane *report_lane_of(const struct report_platform *p,
                                         const char *c, const char *s);

/* The package of runtime name on p, or NULL when p has none. */
const struct report_package *report_package_of(const struct report_platform *p,
                                               const char *name);

/* The renderers. Each writes the whole report to f and returns 0, or -1
 * when writing failed. Markdown and HTML that come from evidence without
 * performance claims carry a smoke-check banner and no comparisons or
 * ratios. Every string from the file is escaped for the output's
 * language; control characters are dropped and bytes that are not UTF-8
 * become U+FFFD. */
int report_markdown(const struct report *r, FILE *f);
int report_html(const struct report *r, FILE *f);
int report_junit(const struct report *r, FILE *f);

struct diff;

/* report_html with a section on what changed against a baseline: d, the
 * comparison of the evidence in old_name with r's in new_name
 * (evidence/diff/diff.h, crossrun compare OLD NEW), borrowed; NULL d is
 * report_html. */
int report_html_baseline(const struct report *r, const struct diff *d,
                         const char *old_name, const char *new_name, FILE *f);

#endif
