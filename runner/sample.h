/* One sample of one lane: a fresh temporary directory, a fresh server and
 * a fresh client, one session between them, and every check of the peer
 * contract afterwards. The executor fills plain structs; it knows nothing
 * of YAML or JSON. */
#ifndef CROSSRUN_RUNNER_SAMPLE_H
#define CROSSRUN_RUNNER_SAMPLE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "platforms/platform.h"
#include "protocol/codec.h"
#include "evidence/capture.h"
#include "runner/result.h"
#include "runner/tempdir.h"

#define SAMPLE_ARGV_MAX 32

enum sample_status {
  SAMPLE_PASSED,
  SAMPLE_FAILED,
  SAMPLE_UNSUPPORTED,
  SAMPLE_UNAVAILABLE,
  SAMPLE_ERROR
};

/* Every check a sample reports, in the order failures are ranked. */
enum check_id {
  CHECK_SERVER_READY,
  CHECK_CLIENT_EXIT,
  CHECK_SERVER_EXIT,
  CHECK_CLIENT_RESULT,
  CHECK_NO_ORPHANS,
  CHECK_PORT_FREE,
  CHECK_TEMP_CLEAN,
  CHECK_COUNT
};

struct check_outcome {
  int ran;    /* 0: could not be evaluated (an earlier stage failed) */
  int passed;
  char reason[256];
};

/* Timeouts and bounds, in milliseconds and bytes. */
struct sample_limits {
  uint64_t ready_timeout_ms;  /* spawn to READY */
  uint64_t client_timeout_ms; /* client start to client exit */
  uint64_t exit_timeout_ms;   /* client exit to server exit */
  uint64_t kill_grace_ms;     /* SIGTERM to SIGKILL */
  uint64_t tick_ms;           /* memory sampling and reaping period */
  size_t stderr_limit;        /* bytes of each peer's stderr kept */
};

#define SAMPLE_LIMITS_DEFAULT {10000, 120000, 5000, 1000, 5, 16384}

struct sample_spec {
  const char *lane;
  const char *const *server_argv; /* program and fixed arguments */
  const char *const *client_argv;
  const char *host; /* the address peers listen on and connect to */
  struct proto_workload workload;
  struct sample_limits limits;
  /* When set to non-zero (from a signal handler), the sample stops: both
   * peers are killed and the sample ends as an error "interrupted". */
  const volatile sig_atomic_t *stop;
  /* The folders the peers start in (their matrix file's), or NULL. */
  const char *server_cwd;
  const char *client_cwd;
};

struct peer_report {
  int started;
  long pid;
  int reaped;
  int exited;       /* exited by itself; exit_code valid */
  int exit_code;
  int signal;       /* signal that ended it, or 0 */
  int timed_out;    /* passed its deadline */
  int forced;       /* the runner had to signal it */
  uint64_t wall_ns; /* spawn to reap */
  int64_t user_cpu_ns; /* -1 when unknown */
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
  struct capture err; /* bounded stderr */
  uint64_t stdout_bytes;
  char argv[SAMPLE_ARGV_MAX][128];
  int argc;
};

struct sample_result {
  enum sample_status status;
  const char *failure_stage;  /* NULL when passed */
  const char *failure_reason; /* DESIGN.md vocabulary, NULL when passed */
  char message[512];
  int port;
  uint64_t ready_ns; /* server spawn to READY */
  uint64_t wall_ns;
  struct peer_report server;
  struct peer_report client;
  int have_result;
  struct client_result result;
  struct check_outcome checks[CHECK_COUNT];
  struct platform_orphans orphans;
  struct tempdir_leftovers leftovers;
  int port_attempts;
  char temp_dir[TEMPDIR_PATH_MAX]; /* removed; kept to scrub it from text */
};

/* Runs one sample. Returns 0 when the sample ran to a verdict (which may be
 * any status, in res), or negative when the runner itself could not work
 * (err says why; res->status is SAMPLE_ERROR). res must be released with
 * sample_result_release(). */
int sample_run(const struct sample_spec *spec, struct sample_result *res,
               char *err, size_t errlen);

/* Frees what a result holds (its stderr captures). */
void sample_result_release(struct sample_result *res);

/* "server_ready", "client_exit", ... */
const char *sample_check_name(enum check_id id);

/* "passed", "failed", "unsupported", "unavailable", "error". */
const char *sample_status_name(enum sample_status s);

#endif
