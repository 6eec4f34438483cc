/* The model of a run: the plain structs the runner and the platform layer
 * fill and the evidence writer reads. It sits below both: it includes
 * nothing of runner/ or platforms/, so evidence/ never reaches back into
 * the code that measures, and a new field is declared once.
 *
 * Who fills what: runner/sample.c a sample (its peers, its checks, with
 * the verdict of runner/verdict.c), runner/result.c the client's result
 * line, runner/tempdir.c the leftovers, platforms/ the machine and the
 * orphans, runner/prepare.c the runtimes and their packages. */
#ifndef CROSSRUN_EVIDENCE_MODEL_H
#define CROSSRUN_EVIDENCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/model/capture.h"

#define MODEL_ARGV_MAX 32
#define MODEL_PATH_MAX 4096
#define MODEL_MAX_ORPHANS 16
#define MODEL_MAX_LEFTOVERS 8

enum model_status {
  MODEL_PASSED,
  MODEL_FAILED,
  MODEL_UNSUPPORTED,
  MODEL_UNAVAILABLE,
  MODEL_ERROR
};

/* "passed", "failed", "unsupported", "unavailable", "error". */
const char *model_status_name(enum model_status s);

/* Every check a sample reports, in the order failures are ranked. */
enum model_check {
  MODEL_CHECK_SERVER_READY,
  MODEL_CHECK_CLIENT_EXIT,
  MODEL_CHECK_SERVER_EXIT,
  MODEL_CHECK_CLIENT_RESULT,
  MODEL_CHECK_SERVER_RESULT,
  MODEL_CHECK_NO_ORPHANS,
  MODEL_CHECK_PORT_FREE,
  MODEL_CHECK_TEMP_CLEAN,
  MODEL_CHECK_COUNT
};

/* "server_ready", "client_exit", ...; "unknown" out of range. */
const char *model_check_name(enum model_check id);

struct model_check_outcome {
  int ran; /* 0: could not be evaluated (an earlier stage failed) */
  int passed;
  char reason[256];
};

/* Timeouts and bounds, in milliseconds and bytes. */
struct model_limits {
  uint64_t ready_timeout_ms;  /* spawn to READY */
  uint64_t client_timeout_ms; /* client start to client exit */
  uint64_t exit_timeout_ms;   /* client exit to server exit */
  uint64_t kill_grace_ms;     /* SIGTERM to SIGKILL */
  uint64_t tick_ms;           /* the timer's fast period (see below) */
  size_t stderr_limit;        /* bytes of each peer's stderr kept */
};

/* clang-format 14 lays out a macro that is a braced list as a block. */
/* clang-format off */
#define MODEL_LIMITS_DEFAULT {10000, 120000, 5000, 1000, 5, 16384}
/* clang-format on */

/* The period of a sample's timer (memory readings, deadlines, reaping)
 * while every peer's end comes as an event (the platform's event_fd): the
 * timer then only enforces deadlines and takes the readings of memory
 * between the moments output arrives, so its cost to the coordinator, and
 * to the machine the peers share, stays small. Once a peer's end can only
 * be seen by polling, the sample's timer runs at limits.tick_ms. */
#define MODEL_SLOW_TICK_MS 200

/* The period a sample's timer starts at: MODEL_SLOW_TICK_MS, or
 * l->tick_ms when that is longer. */
uint64_t model_timer_ms(const struct model_limits *l);

/* The least time a measured round trip can take, as a plausibility floor
 * for elapsed_ns (round_trips x this), not a measurement: a real round
 * trip over a socket takes microseconds; even with many requests in flight
 * none comes near 10 ns. A client claiming less did not measure. Here, so
 * that the runner's check (runner/result.h) and the recompute of evidence
 * (evidence/check/figures.h) hold one floor. */
#define MODEL_MIN_NS_PER_ROUND_TRIP 10

/* A figure a peer did not report (lanes/README.md: "not reported", never
 * zero). */
#define MODEL_NOT_REPORTED (-1)

/* One non-empty bucket of a latency histogram (protocol/histogram.h). */
struct model_bucket {
  int index;
  int64_t count;
};

/* A latency histogram as a client reported it (lanes/README.md): the
 * figures it gave, -1 for null (no round trips), and its non-empty
 * buckets in the order given. */
struct model_latency {
  int64_t count;
  int64_t min, max;
  int64_t p50, p90, p99, p99_9;
  int nbuckets;
  struct model_bucket *buckets; /* owned; NULL when nbuckets is 0 */
};

/* Frees the buckets and empties *l. */
void model_latency_release(struct model_latency *l);

/* Checks a reported histogram as lanes/README.md says the runner does: the
 * buckets' indices within 0..HIST_BUCKETS-1 and strictly ascending, every
 * count above 0, their sum equal to count and to round_trips, each
 * percentile equal to hist_percentile of the buckets, min in the first and
 * max in the last non-empty bucket, max at most elapsed_ns, and with no
 * round trips every figure null. Returns 0, or -1 naming the first field
 * that is wrong ("result 'latency.p99' is ..."), in err. */
int model_latency_check(const struct model_latency *l, int64_t round_trips,
                        int64_t elapsed_ns, char *err, size_t errlen);

struct hist;

/* Fills *h (protocol/histogram.h) with l's buckets, count, min and max.
 * Returns 0, or -1 when l cannot be a histogram (an index out of range, a
 * negative count). */
int model_latency_to_hist(const struct model_latency *l, struct hist *h);

/* A result line's "tls" object (lanes/README.md, over tls only). */
#define MODEL_TLS_VERSION "TLSv1.3"
#define MODEL_TLS_ALPN "crossrun/1"
struct model_tls {
  int reported; /* the line had one; the rest is "" and -1 when not */
  char version[16];
  char cipher[64]; /* the IANA name of the suite */
  char alpn[32];
  int64_t handshake_ns; /* the client's; MODEL_NOT_REPORTED for a server */
};

/* Checks one line's tls object as lanes/README.md says the runner does:
 * over tcp (over_tls 0) there is none; over tls one that is reported has
 * version MODEL_TLS_VERSION and alpn MODEL_TLS_ALPN, a cipher, and for the
 * client (lifetime_ns not 0) 0 < handshake_ns <= lifetime_ns. whose is
 * "" or "server's " for the messages. Returns 0, or -1 naming the field
 * ("result 'tls.alpn' is ...") in err. */
int model_tls_check(const struct model_tls *t, const char *whose, int over_tls,
                    uint64_t lifetime_ns, char *err, size_t errlen);

/* Both peers reported their tls object: they name the same cipher.
 * Returns 0, or -1 with both in err. */
int model_tls_check_pair(const struct model_tls *client,
                         const struct model_tls *server, char *err,
                         size_t errlen);

/* The client's result line (lanes/README.md), as parsed. */
struct model_client_result {
  int64_t round_trips;
  int64_t warmup_round_trips;
  int64_t payload_bytes;
  int64_t max_in_flight;
  int64_t frames_sent;
  int64_t frames_received;
  int64_t bytes_sent;
  int64_t bytes_received;
  int64_t elapsed_ns;
  char runtime[32]; /* optional; "" when absent */
  /* The cost fields, each optional: MODEL_NOT_REPORTED when absent. */
  int64_t cpu_user_us;
  int64_t cpu_system_us;
  int has_latency;
  struct model_latency latency; /* owned */
  struct model_tls tls;
};

/* Frees what a result holds (its latency buckets). */
void model_client_result_release(struct model_client_result *r);

/* The server's result line (lanes/README.md), as parsed: every field is
 * required once the line is there. */
struct model_server_result {
  int64_t round_trips;
  int64_t warmup_round_trips;
  int64_t payload_bytes;
  int64_t max_in_flight;
  int64_t frames_sent;
  int64_t frames_received;
  int64_t bytes_sent;
  int64_t bytes_received;
  int64_t cpu_user_us;
  int64_t cpu_system_us;
  char runtime[32];     /* optional; "" when absent */
  struct model_tls tls; /* optional, over tls only */
};

struct model_orphan {
  long pid;
  char name[32];
};

/* Processes found alive after a sample: members of the peers' groups and
 * descendants that escaped them. They have been killed and reaped. */
struct model_orphans {
  int count;
  struct model_orphan list[MODEL_MAX_ORPHANS];
};

/* What was found in a directory that should be empty. */
struct model_leftovers {
  int count;                            /* direct entries found */
  char names[MODEL_MAX_LEFTOVERS][128]; /* the first few, by name */
};

/* The processes of a peer's tree (the peer and its descendants, including
 * those that left its process group), as the platform followed them. */
#define MODEL_TREE_MAX 16
struct model_tree_process {
  long pid;
  char program[32]; /* its name as the OS keeps it ("node", "sh") */
  /* Its peak RSS, -1 when unknown, and where it came from (static):
   * "exit_accounting_peak" (its own, exact), "os_lifetime_peak" (wait4's
   * ru_maxrss: its own, or that of a child it waited for when larger),
   * "sampled_peak_since_exec" (a reading while it ran: a lower bound). */
  int64_t peak_rss_bytes;
  const char *source;
};

struct model_tree {
  int count; /* processes seen; the first MODEL_TREE_MAX are listed */
  struct model_tree_process list[MODEL_TREE_MAX];
  int complete;       /* its end was seen: every process was counted */
  const char *method; /* how it was followed (static), NULL when not */
};

struct model_peer {
  int started;
  long pid;
  int reaped;
  int exited; /* exited by itself; exit_code valid */
  int exit_code;
  int signal;           /* signal that ended it, or 0 */
  char signal_name[32]; /* its name ("SIGSEGV"), "" when signal is 0 */
  int timed_out;        /* passed its deadline */
  int forced;           /* the runner had to signal it */
  uint64_t wall_ns;     /* spawn to reap */
  int64_t user_cpu_ns;  /* -1 when unknown */
  int64_t system_cpu_ns;
  /* Peak RSS as exactly as the OS allows, and where it came from:
   * "exit_accounting_peak" (read as the peer exits: exact),
   * "os_lifetime_peak" (the OS's figure for the reaped child: exact), or
   * "sampled_peak_since_exec" (the last reading while it ran: a lower
   * bound); NULL when none. */
  int64_t peak_rss_bytes;
  const char *peak_rss_source;
  int64_t exit_peak_rss_bytes;    /* read at the exit stop, or -1 */
  int64_t os_peak_rss_bytes;      /* the OS's raw figure (ru_maxrss) */
  int64_t spawner_peak_rss_bytes; /* the coordinator's peak at spawn */
  int64_t sampled_peak_rss_bytes; /* last peak-since-exec reading */
  int64_t sampled_rss_max_bytes;  /* max of RSS readings */
  int memory_samples;
  /* What peak_rss_bytes covers: "process" or "tree" (NULL when unknown);
   * a short label for tables; the tree as followed. */
  const char *memory_covers;
  char memory_label[96];
  int cpu_covers_tree; /* user/system CPU count every process of the tree */
  int exited_before_its_tree;
  struct model_tree tree;
  struct capture err; /* bounded stderr */
  uint64_t stdout_bytes;
  char argv[MODEL_ARGV_MAX][128];
  int argc;
};

/* One sample of one lane. */
struct model_sample {
  enum model_status status;
  const char *failure_stage;  /* NULL when passed */
  const char *failure_reason; /* DESIGN.md vocabulary, NULL when passed */
  char message[512];
  int port;
  uint64_t ready_ns; /* server spawn to READY */
  uint64_t wall_ns;
  struct model_peer server;
  struct model_peer client;
  int have_result;
  struct model_client_result result;
  /* The server printed a result line that parsed (server_result); the
   * check says why not when it printed one that did not. */
  int have_server_result;
  int server_printed_result;
  struct model_server_result server_result;
  struct model_check_outcome checks[MODEL_CHECK_COUNT];
  struct model_orphans orphans;
  struct model_leftovers leftovers;
  int port_attempts;
  char temp_dir[MODEL_PATH_MAX]; /* removed; kept to scrub it from text */
  int over_tls; /* the lane's transport is tls (protocol/SPEC.md 9) */
  /* The coordinator's own CPU during the sample (-1 unknown), its peak RSS
   * at the sample's end, and the period of its timer. */
  int64_t coordinator_cpu_ns;
  int64_t coordinator_peak_rss_bytes;
  uint64_t coordinator_tick_ms;
};

/* Frees what a sample holds (its peers' stderr captures, the result's
 * latency buckets). */
void model_sample_release(struct model_sample *s);

struct model_machine {
  char os[32];
  char arch[32];
  char kernel[96];
  char cpu_model[128];
  int logical_cpus;
  int64_t memory_bytes;
  char cpu_governor[32];  /* "" when the OS does not tell */
  double load_average_1m; /* -1 when the OS does not tell */
  /* What the run's OS really is when another one plays it ("wine 8.0"),
   * "" when none: its CPU and memory figures of other processes are the
   * emulator's, so such a run makes no performance claims. */
  char emulator[64];
  /* Whether a per-peer cgroup v2 could give the tree figures here: a
   * cgroup v2 with the memory and cpu controllers that this user may
   * write (delegated); cgroup_v2_reason says why not ("" when it could).
   * cgroup_v2_known is 0 where the OS has no cgroups. The tree figures
   * come from the spawn helper (a child subreaper) either way. */
  int cgroup_v2_known;
  int cgroup_v2_delegated;
  char cgroup_v2_reason[240];
};

struct model_package_entry {
  char *path; /* owned; as the archive names it ("package/lib/x.js") */
  int64_t size_bytes;
};

/* A package artifact as measured (runner/package.h). */
struct model_package_info {
  char file_name[256]; /* base name of the artifact */
  /* libarchive's format name, then its filters' names, outermost last:
   * "POSIX pax interchange format, gzip", "ZIP 2.0 (deflation)". For a zip
   * the format is the first entry's (it may differ from entry to entry). */
  char format[64];
  int64_t packed_bytes;                /* the artifact file's size */
  int64_t unpacked_bytes;              /* sum of the regular files' sizes */
  int file_count;                      /* regular files */
  char sha256[65];                     /* lowercase hex of the artifact file */
  struct model_package_entry *entries; /* owned; regular files, archive
                                          order */
  int nentries;                        /* == file_count */
};

#define MODEL_PACKAGE_INFO_INIT                                                \
  {                                                                            \
    "", "", 0, 0, 0, "", NULL, 0                                               \
  }

/* Frees the entries and empties *p. Safe on an empty or released info. */
void model_package_info_release(struct model_package_info *p);

/* What packing one runtime gave. */
struct model_package {
  const char *runtime; /* its name */
  int measured;        /* package holds a measurement */
  struct model_package_info package;
  char repack_sha256[65]; /* the second pack's SHA-256, "" if none */
  int reproducible;       /* 1, 0, or -1 when not known */
  char error[512];        /* non-empty: packing or measuring failed */
  uint64_t wall_ns;
};

void model_package_release(struct model_package *p);

/* A runtime a run used, as the evidence describes it. The strings belong
 * to the runner's runtime (runner/lanes.h), which outlives the run. */
struct model_runtime {
  const char *name;
  const char *declared_at; /* "FILE:LINE", relative to the root */
  /* NULL-terminated argument lists; NULL when the matrix gives none. */
  const char *const *client;
  const char *const *server;
  const char *const *build;
  const char *const *version;
  const char *toolchain_version; /* "" when not known */
  int pinned; /* its toolchain must be the same on every OS */
  int hidden; /* only run when named (the baseline) */
  int available;
  int broken;                  /* its build failed */
  const char *why_unavailable; /* "" when usable */
  int declares_package;
};

#endif
