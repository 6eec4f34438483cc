/* What the files of `crossrun merge` share, not for other callers: the
 * problem list's reporters and line builder (evidence/merge/merge_problems.c),
 * one input as read and checked on its own (evidence/merge/merge_input.c), and
 * the checks between inputs (evidence/merge/merge_check.c) that
 * evidence/merge/merge.c runs before it builds the merged document. */
#ifndef CROSSRUN_EVIDENCE_MERGE_INPUT_H
#define CROSSRUN_EVIDENCE_MERGE_INPUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "evidence/merge/merge.h"

/* The OSes merge knows, by merge_os_index: "linux", "macos", "windows". */
#define MERGE_NOS 3
extern const char *const merge_os_names[MERGE_NOS];

/* ---- problems (evidence/merge/merge_problems.c) ---- */

/* Adds "<file>: <problem>" (file NULL: "<problem>") to p, cut at
 * MERGE_LINE_MAX with "...", control characters replaced by '?'. Past
 * MERGE_MAX_PROBLEMS, or when memory runs out, the line is only counted in
 * p->dropped. */
void merge_problems_add(struct merge_problems *p, const char *file,
                        const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void merge_problems_vadd(struct merge_problems *p, const char *file,
                         const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* A line built from parts, cut at MERGE_LINE_MAX. {"", 0} is empty. */
struct merge_line {
  char text[MERGE_LINE_MAX];
  size_t len;
};

/* Appends to l what printf would write; what does not fit is dropped. */
void merge_line_add(struct merge_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- one input (evidence/merge/merge_input.c) ---- */

/* One input file. The json_object fields point into doc (NULL when the
 * file did not say or said it wrongly); doc is the input's, put by
 * merge_files. */
struct merge_input {
  const char *path; /* as given: problems name it */
  const char *name; /* base name: the key in "inputs" */
  struct merge_provenance provenance;
  char sha256[65];
  json_object *doc;     /* NULL when unreadable or of an unknown schema */
  int os;               /* merge_os_index(machine.os) */
  json_object *machine; /* its machine block: where its lanes ran */
  json_object *arch, *commit, *version, *workload, *matrix, *runtimes, *lanes,
      *shard;
  int official; /* -1 unknown */
  int claims;
  int shard_state; /* 1 sharded, 0 a whole run, -1 unknown */
  int64_t shard_index, shard_count, lanes_total;
};

/* Reads, hashes, parses and checks the file at in->path (in zeroed but for
 * path and name) and fills in the rest of in. Every problem of the file is
 * added to p, named by its path; a file that cannot be read or is of an
 * unknown schema is left with doc NULL. */
void merge_input_load(struct merge_input *in, const struct merge_options *o,
                      struct merge_problems *p);

/* runtimes.<runtime>.toolchain_version of in when it is a string, else
 * NULL; in's. */
json_object *merge_input_toolchain(const struct merge_input *in,
                                   const char *runtime);

/* 1 when in declares runtime (runtimes.<runtime> is an object). */
int merge_input_declares(const struct merge_input *in, const char *runtime);

/* The names of the lanes (lanes 1) or of the runtimes (lanes 0) of
 * g[0..n), each once, in order, as the keys of a new object; the caller
 * puts it. */
json_object *merge_name_set(struct merge_input *const *g, int n, int lanes);

/* v's string when v is a string, else NULL. */
const char *merge_str(json_object *v);

/* obj.key when obj is an object that has key, else NULL (also when the
 * member is null); obj's. */
json_object *merge_member(json_object *obj, const char *key);

/* obj.key when obj is an object and the member is a string, else NULL. */
const char *merge_member_str(json_object *obj, const char *key);

/* ---- between inputs (evidence/merge/merge_check.c) ---- */

/* Checks ins[0..n) against each other (each already loaded) and adds every
 * problem found to p: names given twice, required OSes missing, an OS
 * present twice or as shards that do not make one run, and commits, tool
 * versions, workloads, matrix files, lane sets or pinned toolchains that
 * differ. */
void merge_check_together(const struct merge_options *o,
                          struct merge_problems *p, struct merge_input *ins,
                          int n);

#endif
