/* Recomputing evidence from its raw samples: every figure and verdict a
 * document derives (each sample's status from its checks and its time from
 * the client's result line, each lane's summary, the cleanliness totals,
 * the comparisons, performance_claims and official) is computed again with
 * the writer's own functions (evidence/write/evidence.c's
 * evidence_lane_summary_json and evidence_cleanliness_json, stats.c,
 * compare.c's compare_run_json) and set against what the document says.
 * `crossrun validate` and `crossrun merge` both refuse a document that
 * disagrees, so an edited figure cannot pass for a measured one.
 *
 * What is read: a single-OS document, or a merged one (each platform, and
 * the merged official and performance_claims). Fields of the wrong type
 * are skipped, not reported: the schema (validate) and merge's own field
 * checks name them. */
#ifndef CROSSRUN_EVIDENCE_FIGURES_H
#define CROSSRUN_EVIDENCE_FIGURES_H

#include <stddef.h>
#include <json-c/json.h>

#define FIGURES_POINTER_MAX 1024 /* bytes of a JSON pointer kept */
#define FIGURES_MESSAGE_MAX 2048 /* bytes of a message */
#define FIGURES_VALUE_SHOWN 120  /* bytes of a value quoted in a message */
/* Counts one sample can hold (processes left, temp entries left): more
 * than the writer can have put there, and small enough that their sums
 * cannot overflow. */
#define FIGURES_MAX_COUNT 65536

/* One disagreement. pointer: the JSON pointer of the field
 * ("/lanes/c-c/summary/ns_per_round_trip_median"); recorded: what the
 * document holds there (NULL for null or absent); recomputed: what the raw
 * samples give, when has_recomputed (NULL for null); message: one line,
 * "at POINTER: recorded R, recomputed from the raw samples C" or
 * "at POINTER: recorded R, RULE". Everything is the checker's, valid
 * during the call only. */
struct figures_finding {
  const char *pointer;
  json_object *recorded;
  int has_recomputed;
  json_object *recomputed;
  const char *message;
};

typedef void figures_sink(void *ctx, const struct figures_finding *f);

/* Recomputes everything doc derives and calls sink once per field that
 * disagrees, in document order. doc is not changed. Returns the number of
 * findings (0: every derived figure agrees with the samples). */
int figures_check(json_object *doc, figures_sink *sink, void *ctx);

/* Where a lane of a merged platform was measured: the machine block of
 * the input that held it and that input's name. */
struct figures_origin {
  json_object *machine;
  const char *input;
};

/* The comparisons of a lanes object (a run's, or an OS's shards joined),
 * the pairs chosen and computed by compare_run_json. origins[i] is where
 * the i-th lane (in the object's order) was measured, or origins is NULL
 * for one machine; a pair whose lanes come from machine blocks that
 * differ is not computed but written as
 *   {"lane", "reference", "ratio_of_medians": null, "mann_whitney_u": null,
 *    "p_value_exact": null, "verdict": "not_compared",
 *    "reason": "measured on different machines: ..."}
 * Returns a new object the caller owns. */
json_object *figures_comparisons(json_object *lanes,
                                 const struct figures_origin *origins);

#endif
