/* What the files that read an evidence document into the report model
 * (evidence/report/report_model.c, evidence/report/report_lane.c) share, not
 * for other callers: the reading state, typed reading of a member, and memory
 * the report owns. A member is named in messages by its dotted path from the
 * top of the file ("platforms.linux.lanes.c-c.samples[3].status"). The
 * first problem found is the only one reported: after it, the member
 * readers (report_reader_get and those built on it) find every member
 * absent. */
#ifndef CROSSRUN_EVIDENCE_REPORT_READER_H
#define CROSSRUN_EVIDENCE_REPORT_READER_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "evidence/report/report.h"

#define REPORT_WHERE_MAX 512 /* bytes of a member's dotted path */

/* The reading state: the report read into, and the caller's buffer for
 * the one error line. */
struct report_reader {
  struct report *r;
  char *err;
  size_t errlen;
  int failed; /* problems found; only the first is in err */
};

/* Writes the problem into err when it is the first; counts it. Returns
 * -1. */
int report_reader_fail(struct report_reader *rd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Hands p to the report (freed by report_release) and returns it; NULL p,
 * or no memory to record it (p is freed then), fails with "out of memory"
 * and returns NULL. */
void *report_reader_own(struct report_reader *rd, void *p);

/* n zeroed elements of size bytes (one when n is 0), owned by the report;
 * NULL when memory runs out (which fails). */
void *report_reader_own_array(struct report_reader *rd, size_t n, size_t size);

/* A copy of s owned by the report; NULL when memory runs out (which
 * fails). */
const char *report_reader_own_str(struct report_reader *rd, const char *s);

/* o's type for a message: "null", "a boolean", "a number", "an object",
 * "an array", "a string". */
const char *report_reader_type_name(json_object *o);

/* where.key into out (REPORT_WHERE_MAX bytes); just key when where is "". */
void report_reader_join(char *out, const char *where, const char *key);

/* Member key of o (at where) when it has type want (json_type_double: any
 * number); o's. Absent or null: NULL, and a failure when required. A
 * wrong type fails. NULL o, or reading that failed before, gives NULL. */
json_object *report_reader_get(struct report_reader *rd, json_object *o,
                               const char *where, const char *key,
                               json_type want, int required);

/* A string member, copied and owned by the report, or NULL when absent. */
const char *report_reader_str(struct report_reader *rd, json_object *o,
                              const char *where, const char *key);

/* The same, with fallback when absent. */
const char *report_reader_str_or(struct report_reader *rd, json_object *o,
                                 const char *where, const char *key,
                                 const char *fallback);

/* A boolean member, or fallback when absent. */
int report_reader_boolean(struct report_reader *rd, json_object *o,
                          const char *where, const char *key, int fallback);

/* A finite number in [0, 1e18] into *out. Returns 1 when present, 0 when
 * absent or out of range (which fails). */
int report_reader_number(struct report_reader *rd, json_object *o,
                         const char *where, const char *key, double *out);

/* A whole number in [0, 1e18] into *out. Returns 1 when present, 0 when
 * absent or out of range (which fails). */
int report_reader_whole(struct report_reader *rd, json_object *o,
                        const char *where, const char *key, int64_t *out);

/* A whole number as an int (capped at 10^9), or fallback when absent. */
int report_reader_whole_int(struct report_reader *rd, json_object *o,
                            const char *where, const char *key, int fallback);

/* ---- a lane (evidence/report/report_lane.c) ---- */

/* Reads lane name (the object o, at where) into l, which must be zeroed:
 * its runtimes (from the name "client-server" when the file does not say),
 * its samples (at most REPORT_MAX_SAMPLES), the figures over the passed
 * ones, and its summary; a status the file does not give is derived from
 * the samples. On a problem, rd has failed and l is partly read. */
void report_lane_read(struct report_reader *rd, const char *name,
                      json_object *o, const char *where, struct report_lane *l);

/* The figure over n values (median, min, max) into f, zeroed when n is
 * 0; computed by stats_figure_of as the evidence's own summaries are. */
void report_figure_of(double *v, int n, struct report_figure *f);

/* When f has no figure, the summary's median_key (with its range when
 * min_key and max_key are given and agree with it). */
void report_figure_from_summary(struct report_reader *rd, json_object *summary,
                                const char *where, const char *median_key,
                                const char *min_key, const char *max_key,
                                struct report_figure *f);

/* ---- a lane's transport (evidence/report/report_tls.c) ---- */

/* Reads the lane's transport, unsupported_reason and, over its passed
 * samples, the client's tls figures (the object o, at where) into l. */
void report_tls_lane(struct report_reader *rd, json_object *o,
                     const char *where, struct report_lane *l);

/* ---- a lane's cost figures (evidence/report/report_cost.c) ---- */

/* What a lane's samples give of the cost figures, gathered a sample at a
 * time; peer 0 is the client, 1 the server. cpu_per_rt[peer] has room for
 * every sample (the caller's). The strings are the report's. */
struct report_cost_values {
  double *cpu_per_rt[2]; /* µs per round trip of each passed sample */
  int n[2];
  const char *reason[2]; /* the first passed sample's not_reported */
  const char *latency_reason;
  int seen;             /* a sample has a cost member (null included) */
  const char *label[2]; /* memory.label of the first passed sample */
  int label_differ[2];
  const char *sampled[2]; /* the first label that says "sampled" */
  const char *covers[2];  /* "process" when any passed sample says so */
};

/* Adds sample (at where) to cv: its cost, and when passed its peers'
 * memory labels. */
void report_cost_sample(struct report_reader *rd, json_object *sample,
                        const char *where, int passed,
                        struct report_cost_values *cv);

/* The lane's cost figures from cv and its summary (may be NULL, at
 * where): CPU per round trip of each peer, the merged latency, why each
 * is missing, and the memory labels when the samples give them (they then
 * replace the peak_rss_source words). */
void report_cost_lane(struct report_reader *rd, json_object *summary,
                      const char *where, struct report_cost_values *cv,
                      struct report_lane *l);

#endif
