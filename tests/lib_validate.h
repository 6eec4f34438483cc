/* Helpers of the validator's tests (test_validate*.c): its messages, JSON
 * pointers into documents, and whole files. */
#ifndef CROSSRUN_TESTS_LIB_VALIDATE_H
#define CROSSRUN_TESTS_LIB_VALIDATE_H

#include <json-c/json.h>
#include <stddef.h>

#include "evidence/schema/validate.h"

/* Whether a message of e contains needle. */
int vtest_has_error(const struct validate_errors *e, const char *needle);

/* The first max messages of e as diagnostics, and how many in all. */
void vtest_show_errors(const struct validate_errors *e, int max);

/* The value at an RFC 6901 pointer ("/lanes/c-c/samples/0"), or NULL.
 * Borrowed. */
json_object *vtest_at(json_object *doc, const char *pointer);

/* Sets (v != NULL or set_null) or deletes the member at pointer. Takes v.
 * Returns 0, -1 when the parent does not exist. */
int vtest_edit(json_object *doc, const char *pointer, json_object *v,
               int set_null);

/* Parses text with room for deep test documents (json_tokener_parse stops
 * at 32 levels). NULL for invalid text and for "null". The caller puts
 * it. */
json_object *vtest_parse(const char *text);

/* A deep copy (the caller puts it), or NULL. */
json_object *vtest_copy(json_object *o);

/* Writes len bytes of text to a new file at path. Returns 0 or -1. */
int vtest_write_text(const char *path, const char *text, size_t len);

/* A whole file, NUL-terminated (the caller frees), with its length in
 * *len when len is not NULL; NULL when it cannot be read. */
char *vtest_read_text(const char *path, size_t *len);

/* Sets every figure doc derives to what its raw samples give
 * (evidence/check/figures.h), so that a document crafted by a test from
 * real evidence is as the writer would have written it. Returns the number
 * of findings left that have no recomputed value (a rule, such as an
 * official record of the quick workload). */
int vtest_refigure(json_object *doc);

/* The JSON document at path as the validator reads it, or NULL. */
json_object *vtest_load(const char *path);

/* Runs crossrun (a path) with args (NULL-terminated) to its end, at most
 * seconds, its stdout and stderr together in the file log. Its exit code,
 * or -1 when it could not start, timed out or was killed (then with a
 * diagnostic). */
int vtest_run(const char *crossrun, const char *const *args, const char *log,
              double seconds);

/* The "os" crossrun records on the platform the tests run on. */
#if defined(_WIN32)
#define VTEST_OS "windows"
#elif defined(__APPLE__)
#define VTEST_OS "macos"
#else
#define VTEST_OS "linux"
#endif

#endif
