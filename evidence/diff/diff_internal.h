/* What the files of evidence/diff/ share: reading the documents, growing
 * the arrays of a struct diff. Not part of diff.h's interface. */
#ifndef CROSSRUN_EVIDENCE_DIFF_INTERNAL_H
#define CROSSRUN_EVIDENCE_DIFF_INTERNAL_H

#include <json-c/json.h>

#include "evidence/diff/diff.h"

/* linux, macos, windows: a merged document holds at most these. */
#define DIFF_MAX_PLATFORMS 3

struct diff_figure {
  const char *name; /* the row's figure */
  const char *unit;
  const char *path; /* in a sample, dotted */
  int is_time;      /* slower/faster; else bigger/smaller */
};

struct diff_platform {
  char os[16];
  json_object *body; /* borrowed */
};

/* The member at a dotted path of objects, or NULL. */
json_object *diff_get(json_object *o, const char *dotted);
/* The string at a dotted path, or NULL when absent or not a string. */
const char *diff_string(json_object *o, const char *dotted);
/* 1 with the number at a dotted path in *out; 0 when absent, null, not
 * a number or beyond a double's range. */
int diff_number(json_object *o, const char *dotted, double *out);

/* Copies text from a document into out (outlen bytes, ended) as one line
 * of UTF-8: a control character or a byte that is not UTF-8 becomes '?',
 * and a cut falls between characters. Every row, entry and refusal text
 * goes through it: a hostile file cannot print lines of its own into the
 * table, break the Markdown, or make the JSON unreadable. */
void diff_text(char *out, size_t outlen, const char *text);

/* A number of a document as a byte count: clamped to [-1, 2^62], so that
 * a file's 1e300 converts within range (-1 stands for absent). */
long long diff_bytes(double v);

/* array itself while n < *cap, else a copy twice as large (*cap updated),
 * or NULL when out of memory (array still valid). */
void *diff_grow(void *array, int n, int *cap, size_t size);

/* A new row at the end of d's rows, zeroed but for what is given; NULL
 * when out of memory. */
struct diff_row *diff_add_row(struct diff *d, enum diff_row_kind kind,
                              const char *platform, const char *subject,
                              const char *figure, const char *unit);
int diff_add_note(struct diff *d, const char *platform, const char *text);

/* The package rows and entries of platform os, either body NULL when the
 * platform is in one file only. Returns 0, or -1 when out of memory. */
int diff_packages(struct diff *d, const char *os, json_object *old_body,
                  json_object *new_body);

#endif
