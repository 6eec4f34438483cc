/* Merging record evidence: the files of `crossrun record` from several
 * OSes (each OS as one file or as the shards of one run) checked against
 * each other and written as one document. Reads evidence files and nothing
 * else.
 *
 * The merged document:
 *
 *   {"schema_version": 1,
 *    "tool": {"name": "crossrun", "version": <the inputs' version>},
 *    "mode": "merged",
 *    "performance_claims": <true when every input makes them>,
 *    "official": <false when a rehearsal was allowed in>,
 *    "commit": <provenance.commit of the inputs>,
 *    "inputs": {<file base name>: {"sha256": <hex of the file's bytes>,
 *                                  "os", "arch", "machine",
 *                                  "shard": null | {"index", "count"},
 *                                  "provenance_verified": <bool>,
 *                                  "provenance": <how, or why not>}},
 *    "toolchain_versions": {<runtime>: {<os>: <toolchain_version>|null}},
 *    "platforms": {<os>: <the OS's evidence document>}}
 *
 * A platform is its input document with "shard" removed, every raw sample
 * kept. Shards are joined into one: their lanes dealt back into the order
 * of the unsharded run (shard K of N holds lanes K-1, K-1+N, ...),
 * runtimes and comparisons united, cleanliness counts summed, "official"
 * true when every shard's is, everything else (machine, settings,
 * provenance, started_at) from shard 1; the shards' own files stay
 * identified by their sha256 in "inputs". A lane whose summary.status is
 * "expected_failure" is kept as it is, with its failed samples.
 * toolchain_versions is information: it names every runtime's version on
 * each OS, pinned or not. Inputs and platforms are in the order linux,
 * macos, windows, then shard index. */
#ifndef CROSSRUN_EVIDENCE_MERGE_H
#define CROSSRUN_EVIDENCE_MERGE_H

#include <stddef.h>
#include <json-c/json.h>

#define MERGE_SCHEMA_VERSION 1 /* the one it reads */
#define MERGE_MAX_INPUTS 256
#define MERGE_MAX_SHARDS 64
#define MERGE_MAX_LANES 4096     /* per input */
#define MERGE_MAX_RUNTIMES 256   /* per input */
#define MERGE_MAX_PROBLEMS 10000 /* lines kept */
#define MERGE_LINE_MAX 4096      /* bytes per problem line */

/* Whether an input's provenance was verified (its artifact attestation,
 * checked by the caller: evidence/ starts no process), and how or why
 * not, one line. */
struct merge_provenance {
  int verified;
  const char *note;
};

/* The note of every input of a merge given no provenance. */
#define MERGE_NOT_VERIFIED                                                     \
  "not verified: local merge (crossrun merge without --attestation-repo)"

struct merge_options {
  /* OSes ("linux", "macos", "windows") that must each be present exactly
   * once, as one file or as a complete set of shards. Other known OSes
   * are merged too, under the same checks. */
  const char *const *require;
  int nrequire;
  /* Runtimes whose toolchain is pinned: their
   * runtimes.<name>.toolchain_version must be the same on every OS. The
   * matrix file has no pin field, so the caller names them (--pinned).
   * Every other runtime's versions are only reported. */
  const char *const *pinned;
  int npinned;
  /* Accept inputs with "official": false (rehearsals); the merged
   * document is then "official": false. */
  int allow_rehearsal;
  /* provenance[i] for paths[i] of merge_files; NULL: none was verified
   * (each input then says MERGE_NOT_VERIFIED). */
  const struct merge_provenance *provenance;
};

#define MERGE_OPTIONS_INIT                                                     \
  {                                                                            \
    NULL, 0, NULL, 0, 0, NULL                                                  \
  }

/* The problems found, one line each: "<file as given>: <problem>" for a
 * problem of one file, "<problem>" for one between files. Control
 * characters from the inputs are replaced by '?', so a line is one line.
 * At most MERGE_MAX_PROBLEMS are kept; dropped counts the rest. */
struct merge_problems {
  char **lines; /* owned */
  int count;
  int cap;
  int dropped;
};

#define MERGE_PROBLEMS_INIT                                                    \
  {                                                                            \
    NULL, 0, 0, 0                                                              \
  }

void merge_problems_init(struct merge_problems *p);

/* Frees every line; p is empty again. */
void merge_problems_release(struct merge_problems *p);

/* 0, 1, 2 for "linux", "macos", "windows"; -1 for anything else. */
int merge_os_index(const char *os);

/* Reads every file (under the rules of evidence/base/json_read.h), checks each
 * and all of them together, joins each OS's shards and merges the OSes.
 * Never stops at the first problem: every problem of every file and
 * between files is added to problems.
 *
 * Refused: a file evidence/base/json_read.h refuses (unreadable, too large,
 * not UTF-8, a NUL byte, not JSON, truncated, nested too deep); numbers
 * beyond 64-bit integers or not finite; a schema_version other than
 * MERGE_SCHEMA_VERSION; a field merge reads missing or of the wrong
 * type; mode other than "record"; "official": false without
 * allow_rehearsal; "complete": false; an unknown machine.os; a lane whose
 * summary.status is not "passed" or "expected_failure"; a sample whose
 * status is not "passed" (in an expected_failure lane, "failed" is
 * allowed); a cleanliness count (processes_left, sockets_left,
 * forced_terminations, temp_entries_left) above zero; two inputs with one
 * base name; a required OS missing; an OS present twice (two files, two
 * arches, or a whole run beside shards); shards of one OS whose counts or
 * lanes_total differ, an index missing or given twice, a lane in two
 * shards, lanes that do not add up to lanes_total, toolchain versions that
 * differ between them; commits, tool versions, workloads, matrix files
 * (provenance.matrix_sha256) or lane sets that differ; a pinned runtime's
 * toolchain_version that differs between OSes, or that no input declares.
 *
 * Returns 0 and the merged document in *out (the caller owns it:
 * json_object_put), or -1 with *out NULL and at least one problem. */
int merge_files(const struct merge_options *o, const char *const *paths,
                int npaths, json_object **out, struct merge_problems *problems);

/* Writes the merged document to path atomically (path.partial, then a
 * rename). Returns 0, or -1 with a message in err. */
int merge_write(json_object *merged, const char *path, char *err,
                size_t errlen);

/* One line about a merged document: its platforms, files, lanes, samples,
 * whether it is official, and its expected failures. */
void merge_summary(json_object *merged, char *out, size_t outlen);

#endif
