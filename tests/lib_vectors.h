/* Reading the shared protocol vectors (the JSON files of protocol/vectors
 * under $CROSSRUN_ROOT, default ".") and their cases' fields, as
 * vectors/README.md writes them, for the codec's tests. Links with the
 * codec alone, like every tests/lib_*.c (the codec's test programs link
 * no more). */
#ifndef CROSSRUN_TESTS_LIB_VECTORS_H
#define CROSSRUN_TESTS_LIB_VECTORS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/codec.h"

/* Loads protocol/vectors/<name>, which must hold a "cases" array. Returns
 * the document (the caller puts it), or NULL after a diagnostic. */
json_object *vectors_load(const char *name);

/* The "cases" array of a document vectors_load() returned. Borrowed. */
json_object *vectors_cases(json_object *doc);

/* The member key of obj, or NULL. Borrowed. */
json_object *vectors_field(json_object *obj, const char *key);

/* The string member key of obj, or NULL when absent or not a string. */
const char *vectors_str(json_object *obj, const char *key);

/* 64-bit quantities are decimal strings in the vectors (JSON numbers lose
 * precision above 2^53 in several languages). Returns 0, or -1 when the
 * member is absent or not a plain decimal. */
int vectors_u64(json_object *obj, const char *key, uint64_t *out);

/* A JSON integer member in 0..UINT32_MAX. Returns 0 or -1. */
int vectors_u32(json_object *obj, const char *key, uint32_t *out);

/* Decodes a lowercase hex member into a new buffer (at least 1 byte, so
 * empty strings give a valid pointer). Returns 0 (the caller frees *out)
 * or -1. */
int vectors_hex(json_object *obj, const char *key, uint8_t **out, size_t *len);

/* The workload object key of obj. Returns 0 or -1. */
int vectors_workload(json_object *obj, const char *key,
                     struct proto_workload *w);

/* The counts object key of obj. Returns 0 or -1. */
int vectors_counts(json_object *obj, const char *key, struct proto_counts *c);

/* Whether two counts agree in all four fields. */
int vectors_counts_equal(const struct proto_counts *a,
                         const struct proto_counts *b);

/* The case's "name", or "?". */
const char *vectors_case_name(json_object *c);

#endif
