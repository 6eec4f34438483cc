/* A validator for the subset of JSON Schema (draft 2020-12) that
 * evidence/schema.json uses, on json-c. SCHEMA.md lists the subset: type,
 * properties, required, additionalProperties, items, enum, const, minimum,
 * maximum, minLength, maxLength, pattern (ECMA-262 regular expressions as
 * PCRE2 compiles them, not anchored, matched within PCRE2's limits), $defs,
 * $ref "#/$defs/NAME", oneOf, and the annotations description, title,
 * $comment, $schema and $id. A keyword outside it makes the schema unusable
 * rather than being ignored.
 *
 * Where it is stricter than the standard: "integer" is json-c's integer
 * type only (1.0 is a number, not an integer); a document nested deeper
 * than VALIDATE_MAX_DEPTH, a number that is not finite (1e400, NaN), an
 * integer json-c had to clamp to 64 bits, and a string that is not UTF-8
 * are errors whatever the schema says. */
#ifndef CROSSRUN_EVIDENCE_VALIDATE_H
#define CROSSRUN_EVIDENCE_VALIDATE_H

#include <stddef.h>
#include <json-c/json.h>

/* Errors kept per document; more are counted in total, not kept. */
#define VALIDATE_MAX_ERRORS 100
/* Deepest nesting of arrays and objects accepted in documents and
 * schemas. */
#define VALIDATE_MAX_DEPTH 64
/* Longest message kept; longer ones are cut with "...". */
#define VALIDATE_MESSAGE_MAX 1024
/* PCRE2's limits on one match of a pattern against one string (its match
 * limit, depth limit and heap limit in KiB): a few milliseconds of work.
 * A match that reaches one fails. */
#define VALIDATE_PATTERN_MATCH_LIMIT 100000
#define VALIDATE_PATTERN_DEPTH_LIMIT 10000
#define VALIDATE_PATTERN_HEAP_KIB 16384

/* The problems found in one document, in the order found. Each message is
 * "at /json/pointer: problem" ("at (root): ..." for the whole document),
 * "not JSON: <what> at byte N", or "schema: ..." for a problem of the
 * schema itself. Control characters (a newline in a property name) are
 * kept as '?', so that each message is one line. */
struct validate_errors {
  char **messages; /* owned, n of them */
  int n;           /* kept: at most VALIDATE_MAX_ERRORS */
  int total;       /* found, kept or not */
};

#define VALIDATE_ERRORS_INIT                                                   \
  {                                                                            \
    NULL, 0, 0                                                                 \
  }

void validate_errors_init(struct validate_errors *e);

/* Frees the messages and empties e (it can be used again). */
void validate_errors_release(struct validate_errors *e);

/* Checks that schema uses only the supported subset, correctly: known
 * keywords with values of the right type, patterns that compile, $refs
 * that resolve, nesting within VALIDATE_MAX_DEPTH. Each pattern's compiled
 * form stays with its string in schema (json-c userdata, freed with it), so
 * that it is compiled once however many documents the schema checks; such
 * a schema cannot be copied with json_object_deep_copy. Returns 0, or -1
 * with every problem appended to out as "schema: at /pointer: problem". */
int validate_schema(json_object *schema, struct validate_errors *out);

/* Validates doc against schema and appends every problem found to out
 * (none is skipped because another was found first). Neither argument is
 * kept or changed (json-c may cache the printed form of a number quoted in
 * a message; schema keeps its compiled patterns, as above). Returns 0 when doc
 * is valid, 1 when it is not, -1 when the schema cannot be used (the reasons,
 * "schema: ...", in out). */
int validate_document(json_object *schema, json_object *doc,
                      struct validate_errors *out);

/* validate_document for a schema that validate_schema accepted and that
 * has not changed since: the same verdict and messages without checking
 * the schema again, which costs about as much as evaluating a document.
 * Meant for one schema that checks many documents (crossrun validate on
 * many files). Returns 0 valid, 1 invalid, or -1 when the evaluation
 * stopped at its budget of steps or depth (why in out). On a schema
 * validate_schema refuses, the result is undefined (json-c may abort on a
 * keyword whose value has the wrong type). */
int validate_document_checked(json_object *schema, json_object *doc,
                              struct validate_errors *out);

/* Reads and parses the JSON file at path with json_read_file, under the
 * rules of evidence/base/json_read.h (at most JSON_READ_MAX_BYTES, UTF-8, no
 * NUL byte, one value nested at most JSON_READ_MAX_DEPTH levels). Returns 0
 * with the document in *doc (the caller puts it; NULL is a document that
 * is just null), 1 when the file breaks a rule (the reason, "not JSON: ...
 * at byte N" or "too large: ...", appended to out), or -1 when it cannot
 * be opened or read ("cannot read: <reason>" in err; the caller names
 * the file). */
int validate_read_json(const char *path, json_object **doc,
                       struct validate_errors *out, char *err, size_t errlen);

/* Recomputes every figure doc derives from its raw samples
 * (evidence/check/figures.h) and appends each disagreement to out as
 * "at /json/pointer: recorded R, recomputed from the raw samples C".
 * Meant for a document that is valid against evidence/schema.json.
 * Returns 0 when everything agrees, 1 when something does not. */
int validate_figures(json_object *doc, struct validate_errors *out);

/* Reads the schema and the document and validates one against the other,
 * then (when the document is valid) its figures with validate_figures.
 * Returns 0 valid, 1 invalid or not JSON (every problem in out), or -1
 * when the schema cannot be read or used or the document cannot be read
 * (one line in err; for an unusable schema, its problems in out too). */
int validate_file(const char *schema_path, const char *doc_path,
                  struct validate_errors *out, char *err, size_t errlen);

#endif
