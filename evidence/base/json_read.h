/* The one reader of the documents crossrun is given: evidence files and
 * schemas (JSON) for `crossrun validate`, `merge` and `report`, and the
 * matrix files (YAML) for runner/matrix.c, which uses the same bounded
 * reading and the same text rules. Whichever command reads a file, it is
 * accepted or refused for the same reasons, with the same message:
 *
 * - at most a limit of bytes (JSON_READ_MAX_BYTES for JSON): a regular file
 *   past it is refused without being read, a stream when one byte past it
 *   has been read ("too large: more than N bytes");
 * - text: valid UTF-8 (evidence/base/utf8.h: no overlong forms, surrogates, or
 *   code points past U+10FFFF) and no NUL byte ("not JSON: a NUL byte at
 *   byte N", "not JSON: not valid UTF-8 at byte N");
 * - JSON: exactly one value in json-c's strict mode, nested at most
 *   JSON_READ_MAX_DEPTH levels, followed by nothing but white space
 *   ("not JSON: <json-c's reason> at byte N", "not JSON: the file is
 *   empty", "not JSON: nested more than 64 levels deep at byte N").
 *
 * Messages are one line, the problem alone: every command prints it after
 * the file's name ("quick.json: not JSON: unexpected character at byte 0").
 * Byte offsets count from 0. */
#ifndef CROSSRUN_EVIDENCE_JSON_READ_H
#define CROSSRUN_EVIDENCE_JSON_READ_H

#include <stddef.h>
#include <json-c/json.h>

#include "evidence/base/dynbuf.h"

/* The most bytes read of one JSON document (an evidence file, merged or
 * not, or a schema). */
#define JSON_READ_MAX_BYTES ((size_t)256 << 20)
/* The most bytes read of one matrix file (YAML, written by hand). */
#define JSON_READ_MATRIX_MAX_BYTES ((size_t)1 << 20)
/* The most bytes read of one --expect file (YAML, written by hand). */
#define JSON_READ_EXPECT_MAX_BYTES ((size_t)256 << 10)
/* The deepest nesting of arrays and objects read. */
#define JSON_READ_MAX_DEPTH 64

/* What the reader's functions return besides 0: which rule refused. */
enum {
  JSON_READ_EREAD = -1,   /* cannot open or read ("cannot read: <why>") */
  JSON_READ_ENOMEM = -2,  /* "cannot read: out of memory" */
  JSON_READ_ETOOBIG = -3, /* past the limit */
  JSON_READ_ETEXT = -4,   /* a NUL byte, or not UTF-8 */
  JSON_READ_ESYNTAX = -5  /* not one JSON value within the depth */
};

/* Reads the file at path whole into into (which this initialises: the
 * caller releases it with dynbuf_release whatever is returned), at most
 * limit bytes. Checks no text rule. Returns 0, or JSON_READ_EREAD,
 * JSON_READ_ENOMEM or JSON_READ_ETOOBIG with the problem in err. */
int json_read_bytes(const char *path, size_t limit, struct dynbuf *into,
                    char *err, size_t errlen);

/* Checks the text rules on text (len bytes). Returns 0, or
 * JSON_READ_ETEXT with the offset of the first byte that breaks one in
 * *at and what it is in *what ("a NUL byte", "not valid UTF-8"). */
int json_read_check_text(const char *text, size_t len, size_t *at,
                         const char **what);

/* json_read_bytes then json_read_check_text, for a text file that is not
 * JSON (the YAML files: matrix, --expect): the file at path, at most limit
 * bytes, in into (initialised here, released by the caller whatever is
 * returned). A broken text rule is reported as "LINE:COLUMN: what" (columns
 * in characters, as libyaml counts them), without the path, which the
 * caller puts before it. Returns 0 or what those two return. */
int json_read_text_file(const char *path, size_t limit, struct dynbuf *into,
                        char *err, size_t errlen);

/* Parses text (len bytes, at most JSON_READ_MAX_BYTES; it need not end in
 * NUL) under the text and JSON rules. Returns 0 with the document in *doc
 * (the caller puts it; NULL is a document that is just null), or
 * JSON_READ_ETOOBIG, JSON_READ_ETEXT, JSON_READ_ESYNTAX or
 * JSON_READ_ENOMEM with *doc NULL and the problem in err. */
int json_read_parse(const char *text, size_t len, json_object **doc, char *err,
                    size_t errlen);

/* json_read_bytes then json_read_parse: the file at path, at most limit
 * bytes (and at most JSON_READ_MAX_BYTES), read under every rule. Returns
 * what they return, with *doc set as json_read_parse sets it. */
int json_read_file(const char *path, size_t limit, json_object **doc, char *err,
                   size_t errlen);

#endif
