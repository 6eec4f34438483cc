/* The fixture of the merge tests (test_merge*.c): a real quick run's
 * evidence, its passed lanes only, crafted into the records three OSes
 * would write, in a fresh folder; and the readers, writers and calls the
 * tests make on them. Every file named here is in that folder. */
#ifndef CROSSRUN_TESTS_LIB_MERGE_H
#define CROSSRUN_TESTS_LIB_MERGE_H

#include <json-c/json.h>
#include <stddef.h>

#include "evidence/merge/merge.h"

#define MTEST_COMMIT "0123456789abcdef0123456789abcdef01234567"
#define MTEST_OTHER_COMMIT "fedcba9876543210fedcba9876543210fedcba98"
#define MTEST_MATRIX_SHA                                                       \
  "5f2b0c6a4e1d3c7b9a8f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a291"
#define MTEST_MAX_FILES 8

extern char mtest_dir[512];
extern json_object *mtest_base; /* the quick run, its passed lanes only */
extern const char *mtest_lane0; /* the name of base's first lane */
extern int mtest_nlanes;

extern const char *const mtest_oses[3];   /* linux, macos, windows */
extern const char *const mtest_arches[3]; /* each one's arch */
extern const char *const mtest_good[3];   /* each one's good record */

/* The files one merge reads, and its options. */
struct mtest_files {
  const char *names[MTEST_MAX_FILES];
  int n;
  const char *pinned[2];
  struct merge_options o;
};

/* Makes the folder, runs `crossrun quick` into it and writes the three
 * good records (two TAP checks). Returns 0, or -1 when there is nothing
 * to test. */
int mtest_setup(void);

/* Puts the quick run's document and removes the folder. */
void mtest_teardown(void);

/* The path of name in the folder, into out. */
void mtest_in_dir(char *out, size_t outlen, const char *name);

/* A member whose name has dots (a file name). Borrowed. */
json_object *mtest_get(json_object *o, const char *key);

/* The string at dotted, or "". */
const char *mtest_path_str(json_object *o, const char *dotted);

/* Sets doc's member at a dotted path (the parent must exist); takes v. */
void mtest_set(json_object *doc, const char *dotted, json_object *v);

/* A deep copy; the caller puts it. */
json_object *mtest_copy(json_object *o);

/* A record of mtest_oses[os] crafted from the quick run, the way
 * `crossrun record` writes one. The caller puts it. */
json_object *mtest_craft(int os);

/* Writes doc as name in the folder, with marker's first occurrence
 * replaced by replacement when marker is given; puts doc. */
void mtest_save_with(json_object *doc, const char *name, const char *marker,
                     const char *replacement);
void mtest_save(json_object *doc, const char *name);
void mtest_save_text(const char *name, const char *text, size_t len);

/* Shard index of count from doc: lanes i with i % count == index - 1. The
 * caller puts it. */
json_object *mtest_shard_of(json_object *doc, int index, int count);

/* broken in place of os's good file, with the other OSes' good files. */
void mtest_with_good(struct mtest_files *f, const char *broken, int os);

/* merge_files() on f's files, requiring the three OSes unless f says. */
int mtest_merge(struct mtest_files *f, json_object **out,
                struct merge_problems *p);

/* The line naming file (NULL: a line about no one file) that contains
 * message, or NULL. */
const char *mtest_find_line(const struct merge_problems *p, const char *file,
                            const char *message);

/* Every line of p as a diagnostic. */
void mtest_show(const struct merge_problems *p);

#endif
