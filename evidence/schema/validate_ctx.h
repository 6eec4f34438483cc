/* What the validator's files (evidence/validate*.c) share, not for other
 * callers: adding to an error list, and the context in which the schema's
 * own check and the evaluation of a document walk. A message is
 * "at /json/pointer: problem", the pointer being where the walk is. */
#ifndef CROSSRUN_EVIDENCE_VALIDATE_CTX_H
#define CROSSRUN_EVIDENCE_VALIDATE_CTX_H

#include <stddef.h>
#include <json-c/json.h>
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8 /* patterns and strings are UTF-8 */
#endif
#include <pcre2.h>

#include "evidence/schema/validate.h"

#define VALIDATE_POINTER_MAX 2048 /* bytes of the JSON pointer kept */

/* ---- error lists (struct validate_errors, evidence/schema/validate.h) ---- */

/* Appends a copy of msg to e. Past VALIDATE_MAX_ERRORS, or when memory runs
 * out, the message is only counted in e->total. */
void validate_errors_add(struct validate_errors *e, const char *msg);

/* The same with a printf format; a message longer than
 * VALIDATE_MESSAGE_MAX is cut and ends in "...". */
void validate_errors_addf(struct validate_errors *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Moves every message of from to the end of to (those from only counted
 * are counted in to); from is left empty. */
void validate_errors_move(struct validate_errors *to,
                          struct validate_errors *from);

/* ---- the walk ---- */

/* One check of a schema or evaluation of a document. Zeroed (calloc) is
 * its empty state; root and out are set by the caller and stay the
 * caller's. */
struct validate_ctx {
  json_object *root; /* the schema */
  struct validate_errors *out;
  int in_schema; /* messages are about the schema: "schema: " first */
  char ptr[VALIDATE_POINTER_MAX];
  size_t ptrlen;
  int eval_depth;
  long long steps;
  long long max_steps;
  int aborted; /* the schema cannot be evaluated any further */
  long long nodes;
  /* PCRE2's limits and its match data, made by the first match. */
  pcre2_match_context *match_context;
  pcre2_match_data *match_data;
};

/* Frees what c's matches allocated; c itself is the caller's. */
void validate_ctx_release(struct validate_ctx *c);

/* Appends "/seg" (escaped per RFC 6901) to c's pointer and returns the
 * length to restore with validate_ctx_pop. A pointer that no longer fits
 * ends in "...". */
size_t validate_ctx_push(struct validate_ctx *c, const char *seg);

/* The same with an array index as the segment. */
size_t validate_ctx_push_index(struct validate_ctx *c, size_t index);

/* Cuts c's pointer back to old, a value validate_ctx_push returned. */
void validate_ctx_pop(struct validate_ctx *c, size_t old);

/* Adds "at <pointer>: <problem>" to c->out ("schema: " first when
 * c->in_schema, "(root)" for an empty pointer). */
void validate_ctx_report(struct validate_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The evaluation cannot go on: adds "schema: <problem> (at <pointer>)" to
 * c->out and sets c->aborted, at which every caller unwinds. */
void validate_ctx_abort(struct validate_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What every document must be whatever the schema says, reported for v
 * (level levels deep) and below it: nested at most VALIDATE_MAX_DEPTH
 * levels, finite numbers, 64-bit integers json-c did not clamp, UTF-8
 * strings and keys. Adds the nodes it visits to c->nodes. */
void validate_ctx_scan(struct validate_ctx *c, json_object *v, int level);

/* ---- patterns ---- */

/* Compiles the schema's pattern string k with PCRE2 (UTF mode, '$' only at
 * the very end as in ECMA-262, not anchored) unless it was compiled
 * before: the compiled form stays with k (json-c userdata, freed with k),
 * so a schema's patterns are compiled once however many documents it
 * checks. A schema so marked cannot be copied with json_object_deep_copy.
 * Returns 0, or -1 with "pattern 'SRC' does not compile: <PCRE2's message>
 * at offset N" in err. */
int validate_ctx_pattern_compile(json_object *k, char *err, size_t errlen);

/* Looks for a match of the pattern k anywhere in s (len bytes of valid
 * UTF-8), within PCRE2 match and depth limits that keep any pattern on any
 * string fast. Returns 1 when it matches, 0 when it does not, or -1 when
 * it cannot tell (the pattern does not compile, the limit was hit, memory
 * ran out: why in err); the caller counts -1 as a failed match. */
int validate_ctx_pattern_match(struct validate_ctx *c, json_object *k,
                               const char *s, size_t len, char *err,
                               size_t errlen);

/* The schema that ref ("#/$defs/NAME") names in c->root, or NULL. The
 * result belongs to c->root. */
json_object *validate_ctx_resolve_ref(struct validate_ctx *c, const char *ref);

#endif
