/* Evidence: the JSON document a run leaves behind, written with json-c
 * from the plain structs the executor filled. Keyed objects, units in the
 * field names, every raw sample, no absolute paths, user or host names. */
#ifndef CROSSRUN_EVIDENCE_EVIDENCE_H
#define CROSSRUN_EVIDENCE_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "evidence/model/model.h"
#include "protocol/codec.h"

#define EVIDENCE_SCHEMA_VERSION 1

/* The lane every other is compared with. */
#define EVIDENCE_REFERENCE_LANE "c-c"

struct evidence_sample {
  int round; /* 1-based */
  int order; /* position in its round's shuffled order, 1-based */
  struct model_sample result;
  int retried; /* result is a retry; first_attempt failed */
  struct model_sample first_attempt;
};

#define EVIDENCE_MAX_MATRIX 9

/* Where a record came from: the commit, the CI run, the matrix files. */
struct evidence_provenance {
  char commit[64];
  char branch[128];
  int clean; /* 1, 0, -1 unknown */
  int in_ci;
  char ci_provider[32];
  char ci_workflow[128];
  char ci_run_id[32];
  char ci_run_attempt[16];
  struct {
    char file[256]; /* relative to the root when below it */
    char sha256[65];
  } matrix[EVIDENCE_MAX_MATRIX];
  int nmatrix;
};

struct evidence_lane {
  const char *name;
  const char *client_runtime;
  const char *server_runtime;
  const char *unavailable_reason; /* non-NULL: the lane could not run */
  const char *error_reason;       /* non-NULL: a runtime of it is broken */
  /* non-NULL: a runtime of it declares it does not implement the lane's
   * transport, so no sample was started */
  const char *unsupported_reason;
  const char *transport;        /* "tcp" or "tls"; NULL: written as "tcp" */
  const char *expected_failure; /* --expect's reason when it failed as
                                   expected, else NULL */
  const char *client_dir;       /* the runtimes' folders, where peers run */
  const char *server_dir;
  struct evidence_sample *samples;
  int nsamples;
};

struct evidence_run {
  const char *tool_version;
  const char *mode; /* "quick", "full" */
  int performance_claims;
  int complete; /* 0 while running or when interrupted */
  const char *incomplete_reason;
  const char *workload_name;
  struct proto_workload workload;
  int samples_per_lane;
  uint64_t seed;
  const char *host;
  struct model_limits limits;
  struct model_machine machine;
  /* How the platform obtains each memory figure (platform_*_method()). */
  const char *peak_rss_method;
  const char *sampled_rss_method;
  const char *stop_method;   /* NULL: not written */
  char started_at[32];       /* UTC, ISO 8601 */
  const char *root;          /* stripped from every path written */
  const char *crossrun_path; /* how the runner was invoked, for reproduce */
  struct evidence_lane *lanes;
  int nlanes;
  /* The runtimes the lanes use, and their packages (packages may be 0). */
  const struct model_runtime *runtimes;
  int nruntimes;
  const struct model_package *packages;
  int npackages;
  int packages_skipped;        /* --no-packages */
  const char *matrix_files[9]; /* as given, the default first */
  int nmatrix;
  /* For the reproduce lines: each --matrix file as an absolute path, in
   * order, and whether --allow-non-loopback was given. */
  const char *matrix_paths[EVIDENCE_MAX_MATRIX];
  int nmatrix_paths;
  int allow_non_loopback;
  int official;  /* record, not rehearsed, nothing flaky */
  int rehearsal; /* record --rehearse */
  const struct evidence_provenance *provenance; /* record only */
  int shard_index;                              /* 0: not sharded */
  int shard_count;
  int lanes_total; /* lanes before sharding */
};

/* Counts a run must report; all but pairs and natural exits must be 0. */
struct evidence_cleanliness {
  int pairs_started;
  int natural_exits; /* samples whose two peers exited by themselves */
  int processes_left;
  int sockets_left;        /* ports that could not be bound again */
  int forced_terminations; /* peers the runner had to signal */
  int temp_entries_left;
};

void evidence_cleanliness(const struct evidence_run *run,
                          struct evidence_cleanliness *c);

/* A lane's "summary" object and a run's "cleanliness" object, as
 * evidence_write writes them; new objects the caller owns. Exported so
 * that evidence/check/figures.c recomputes them from a document's raw
 * samples with the very functions that wrote them. */
json_object *evidence_lane_summary_json(const struct evidence_lane *lane);
json_object *evidence_cleanliness_json(const struct evidence_run *run);

/* Writes the whole document to path, atomically (a temporary file in the
 * same folder, then a rename), so a reader never sees half a file. Returns
 * 0 or -1 with a message. */
int evidence_write(const struct evidence_run *run, const char *path, char *err,
                   size_t errlen);

/* Where a reproduce command runs: "." is the root of the checkout (the
 * folder of matrix.yaml and of the build), as every path of the evidence
 * below it is written. */
#define EVIDENCE_REPRODUCE_DIRECTORY "."

#define EVIDENCE_REPRODUCE_WORDS 96

/* The words of a command, pointing into buf. */
struct evidence_words {
  char *argv[EVIDENCE_REPRODUCE_WORDS];
  int argc;
  int truncated; /* a word did not fit: the command is not whole */
  char buf[16384];
  size_t used;
};

struct sanitize;

/* The crossrun command that reruns one sample of lane alone, from
 * EVIDENCE_REPRODUCE_DIRECTORY: `run` with the same matrix files,
 * workload, seed, host and timeouts, one sample, no packages, its
 * evidence to crossrun-reproduce.json. Paths are written as the evidence
 * writes them (scrubbed by s): relative to the root below it, "~/..." and
 * "$TMP/..." below the home and the temporary folder. */
void evidence_reproduce_argv(const struct evidence_run *run,
                             const struct evidence_lane *lane,
                             const struct sanitize *s,
                             struct evidence_words *w);

/* w as one line for /bin/sh: words quoted where needed, "~" and "$TMP"
 * written as "$HOME" and "${TMPDIR:-/tmp}", which the shell expands. */
void evidence_reproduce_line(const struct evidence_words *w, char *out,
                             size_t outlen);

/* evidence_reproduce_argv then _line, scrubbed by run's own rules: the
 * line a summary prints. */
void evidence_reproduce(const struct evidence_run *run,
                        const struct evidence_lane *lane, char *out,
                        size_t outlen);

/* One peer's command line for /bin/sh from EVIDENCE_REPRODUCE_DIRECTORY:
 * run from dir (its runtime's folder) in a subshell when that is not the
 * root; the client's --connect port, which the recorded server chose,
 * written "$PORT" with a note that it comes from the READY line of the
 * server started first (port: the recorded one, 0 when none). */
void evidence_reproduce_peer(const struct sanitize *s,
                             const struct model_peer *p, const char *dir,
                             int port, char *out, size_t outlen);

#endif
