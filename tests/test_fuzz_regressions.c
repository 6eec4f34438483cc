/* Regressions of what the fuzz harnesses (tests/fuzz/) found, each as a
 * unit test of the module that had the bug; the inputs that found them
 * are kept in tests/fuzz/corpus/. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/base/json_read.h"
#include "evidence/base/utf8.h"
#include "evidence/diff/diff.h"
#include "evidence/merge/merge.h"
#include "evidence/schema/validate.h"
#include "evidence/write/stats.h"
#include "runner/expect.h"
#include "runner/lanes.h"
#include "runner/matrix.h"
#include "tests/lib_memfile.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char dir[512];

/* Writes text to dir/name; returns the path (static storage). */
static const char *write_file(const char *name, const char *text)
{
  static char path[700];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static int one_line(const char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 0;
  return 1;
}

static const char *root(void)
{
  const char *r = getenv("CROSSRUN_ROOT");
  return r && *r ? r : ".";
}

/* A property name with newlines in an evidence file: every message about
 * it is one line, so the file cannot print lines of its own into
 * `crossrun validate`'s output (fuzz_validate). */
static void test_validate_messages_are_lines(void)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  char path[1024];
  json_object *schema, *doc;
  int rc, lines = 1;

  snprintf(path, sizeof(path), "%s/evidence/schema.json", root());
  schema = json_object_from_file(path);
  doc = json_tokener_parse(
      "{\"schema_version\": 1, "
      "\"mode\\nevidence.json: valid\\n\\r\\t\\u007f\": \"quick\", "
      "\"lanes\": {\"a\\nb\": {\"samples\\n\": 1}}}");
  if (!TAP_OK(schema != NULL && doc != NULL, "the schema and the document"))
    return;
  rc = validate_document(schema, doc, &e);
  for (int i = 0; i < e.n; i++)
    lines = lines && one_line(e.messages[i]);
  TAP_OK(rc == 1 && e.n > 0 && lines,
         "a name with control characters is invalid, and each of the %d "
         "messages is one line (first: %s)",
         e.n, e.n ? e.messages[0] : "");
  validate_errors_release(&e);
  json_object_put(doc);
  json_object_put(schema);
}

/* A quoted YAML key with a newline in a matrix file and in an --expect
 * file: the error names it on one line (fuzz_matrix, fuzz_expect). */
static void test_yaml_errors_are_lines(void)
{
  struct lanes *l = calloc(1, sizeof(*l));
  static struct expect e;
  const char *path;
  char err[512];

  path = write_file("m.yaml", "runtimes:\n  c:\n    \"se\\nver\": [x]\n");
  TAP_OK(l && matrix_load(l, path, err, sizeof(err)) == -1 &&
             strstr(err, "unknown key 'se?ver'") && one_line(err),
         "a matrix key with a newline is refused on one line: %s", err);
  if (l)
    lanes_release(l);
  free(l);
  path = write_file("e.yaml", "known_failures:\n  - lane: c-c\n"
                              "    \"o\\ns\\r\": linux\n");
  TAP_OK(expect_load(&e, path, err, sizeof(err)) == -1 &&
             strstr(err, "unknown key 'o?s?'") && one_line(err),
         "an --expect key with a newline is refused on one line: %s", err);
}

static int utf8_line(const char *s)
{
  return utf8_error_at(s, strlen(s)) < 0 && one_line(s);
}

/* `crossrun compare` of a file whose package hash holds a control
 * character, whose lane name has a newline and is longer than a row keeps
 * in multibyte characters, and whose entry is 1e300 bytes: every text of
 * the comparison is one line of UTF-8, the JSON reads back, and the size
 * is clamped, not converted out of range (fuzz_compare; the input is in
 * tests/fuzz/corpus/fuzz_compare/). */
static void test_compare_texts_are_lines(void)
{
  static const char old_text[] =
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": "
      "{\"sha256\": \"aa\", \"packed_bytes\": 1, \"entries\": []}}}}";
  char new_text[2048], name[600] = "a\nb";
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *old_doc = NULL, *new_doc = NULL, *j = NULL, *back = NULL;
  struct diff d;
  char err[512] = "";
  int lines = 1, rc;

  for (int i = 0; i < 60; i++)
    strcat(name, "\xc3\xa9"); /* é: a cut at 127 bytes falls inside one */
  snprintf(new_text, sizeof(new_text),
           "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
           "\"lanes\": {\"%s\": {\"summary\": {\"status\": \"passed\"}}}, "
           "\"runtimes\": {\"c\": {\"package\": {\"sha256\": "
           "\"b\\u0011\\nb\", \"packed_bytes\": 1, \"entries\": "
           "[{\"path\": \"x\\ty\", \"size_bytes\": 1e300}]}}}}",
           name);
  memset(&d, 0, sizeof(d));
  if (!TAP_OK(json_read_parse(old_text, strlen(old_text), &old_doc, err,
                              sizeof(err)) == 0 &&
                  json_read_parse(new_text, strlen(new_text), &new_doc, err,
                                  sizeof(err)) == 0,
              "the two documents read (%s)", err))
    goto out;
  rc = diff_compare(&d, old_doc, new_doc, &o, err, sizeof(err));
  if (!TAP_EQ_INT(rc, 0, "they compare"))
    goto out;
  for (int i = 0; i < d.nrows; i++)
    lines = lines && utf8_line(d.rows[i].subject) &&
            utf8_line(d.rows[i].old_text) && utf8_line(d.rows[i].new_text);
  for (int i = 0; i < d.nentries; i++)
    lines = lines && utf8_line(d.entries[i].path);
  TAP_OK(lines && d.nrows > 0 && d.nentries == 1,
         "every row's and entry's text is one line of UTF-8 (%d rows)",
         d.nrows);
  TAP_OK(d.nentries == 1 && d.entries[0].new_bytes == (long long)1 << 62 &&
             strcmp(d.entries[0].path, "x?y") == 0,
         "the entry of 1e300 bytes is clamped to 2^62, its tab a '?'");
  j = diff_json(&d, "old.json", "new.json");
  {
    const char *text = j ? json_object_to_json_string(j) : "";
    TAP_OK(json_read_parse(text, strlen(text), &back, err, sizeof(err)) == 0,
           "the comparison's JSON reads back (%s)", err);
  }
out:
  diff_release(&d);
  json_object_put(back);
  json_object_put(j);
  json_object_put(old_doc);
  json_object_put(new_doc);
}

/* A package that holds one path twice (a tar may append a file again),
 * compared with itself: the second copy was compared with the first copy
 * of the other side and reported grown. The k-th copy of a path is
 * compared with the k-th; a third copy on one side is added, and one gone
 * is removed (fuzz_compare; the input is in
 * tests/fuzz/corpus/fuzz_compare/). */
static void test_compare_repeated_entry(void)
{
  static const char *const texts[] = {
      /* a.c twice, then b.c */
      "[{\"path\": \"a.c\", \"size_bytes\": 10239}, "
      "{\"path\": \"a.c\", \"size_bytes\": 10240}, "
      "{\"path\": \"b.c\", \"size_bytes\": 7}]",
      /* a.c three times, b.c gone */
      "[{\"path\": \"a.c\", \"size_bytes\": 10239}, "
      "{\"path\": \"a.c\", \"size_bytes\": 10240}, "
      "{\"path\": \"a.c\", \"size_bytes\": 5}]",
  };
  json_object *docs[2] = {NULL, NULL};
  struct diff_options o = DIFF_OPTIONS_INIT;
  struct diff d;
  char text[1024], err[512] = "";
  int rc;

  memset(&d, 0, sizeof(d));
  for (int i = 0; i < 2; i++) {
    snprintf(text, sizeof(text),
             "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
             "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": "
             "{\"sha256\": \"aa\", \"packed_bytes\": 1, \"entries\": %s}}}}",
             texts[i]);
    if (!TAP_OK(json_read_parse(text, strlen(text), &docs[i], err,
                                sizeof(err)) == 0,
                "repeated entries: document %d reads (%s)", i, err))
      goto out;
  }
  rc = diff_compare(&d, docs[0], docs[0], &o, err, sizeof(err));
  TAP_OK(rc == 0 && d.nentries == 0 && d.regressions == 0,
         "a package with a path twice, compared with itself, has no entry "
         "changed (%d: first %s %s)",
         d.nentries, d.nentries ? d.entries[0].path : "",
         d.nentries ? d.entries[0].change : "");
  diff_release(&d);
  memset(&d, 0, sizeof(d));
  rc = diff_compare(&d, docs[0], docs[1], &o, err, sizeof(err));
  TAP_OK(rc == 0 && d.nentries == 2 && strcmp(d.entries[0].path, "a.c") == 0 &&
             strcmp(d.entries[0].change, "added") == 0 &&
             d.entries[0].new_bytes == 5 &&
             strcmp(d.entries[1].path, "b.c") == 0 &&
             strcmp(d.entries[1].change, "removed") == 0,
         "a third copy is added and the one gone removed (%d entries)",
         d.nentries);
out:
  diff_release(&d);
  json_object_put(docs[0]);
  json_object_put(docs[1]);
}

/* A package hash whose 12th byte falls inside a character: the table cut
 * it at 12 bytes and printed half a character (fuzz_compare; the input is
 * in tests/fuzz/corpus/fuzz_compare/). */
static void test_compare_hash_cut(void)
{
  static const char text[] =
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": "
      "{\"sha256\": \"432e539d008\u01c7aa\", \"packed_bytes\": 1, "
      "\"entries\": []}}}}";
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *doc = NULL;
  struct diff d;
  char err[512] = "", *out = NULL;
  size_t len = 0;
  FILE *f;

  memset(&d, 0, sizeof(d));
  if (!TAP_OK(json_read_parse(text, strlen(text), &doc, err, sizeof(err)) == 0,
              "hash cut: the document reads (%s)", err))
    return;
  f = memfile_open(&out, &len);
  if (TAP_OK(diff_compare(&d, doc, doc, &o, err, sizeof(err)) == 0 && f != NULL,
             "hash cut: it compares with itself (%s)", err)) {
    diff_print(&d, "old.json", "new.json", f);
    memfile_close(f);
    f = NULL;
    TAP_OK(out != NULL && utf8_error_at(out, len) < 0 &&
               strstr(out, "432e539d008 ") != NULL,
           "hash cut: the table cuts the hash between characters");
  }
  if (f != NULL)
    memfile_close(f);
  free(out);
  diff_release(&d);
  json_object_put(doc);
}

/* A sample read back from a file whose server user CPU is the largest
 * int64: its user and system CPU were summed in int64 before the summary
 * took them, a signed overflow (UBSan in fuzz_merge; the input is in
 * tests/fuzz/corpus/fuzz_merge/). The sum is a double, as the figure. */
static void test_stats_cpu_sum(void)
{
  struct evidence_sample *s = calloc(1, sizeof(*s));
  struct stats_lane st;

  if (!TAP_NONNULL(s, "cpu sum: a sample"))
    return;
  s->result.status = MODEL_PASSED;
  s->result.client.peak_rss_bytes = -1;
  s->result.server.peak_rss_bytes = -1;
  s->result.client.user_cpu_ns = INT64_MAX;
  s->result.client.system_cpu_ns = INT64_MAX;
  s->result.server.user_cpu_ns = INT64_MAX;
  s->result.server.system_cpu_ns = 4627000;
  stats_lane_compute(s, 1, &st);
  TAP_OK(st.server_cpu.n == 1 &&
             st.server_cpu.median == (double)INT64_MAX + 4627000.0 &&
             st.client_cpu.median == 2.0 * (double)INT64_MAX,
         "cpu sum: the largest int64 of CPU sums without overflow (%g)",
         st.server_cpu.median);
  free(s);
}

/* crossrun's own comparison of OLD and NEW follows compare.schema.json. */
static void compare_follows_schema(const char *name, const char *old_text,
                                   const char *new_text)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *old_doc = NULL, *new_doc = NULL, *schema = NULL, *j = NULL;
  struct diff d;
  char err[512] = "", path[700];
  const char *root = getenv("CROSSRUN_ROOT");

  memset(&d, 0, sizeof(d));
  snprintf(path, sizeof(path), "%s/evidence/diff/compare.schema.json",
           root && *root ? root : ".");
  if (!TAP_OK(validate_read_json(path, &schema, &e, err, sizeof(err)) == 0 &&
                  validate_schema(schema, &e) == 0,
              "%s: the schema reads (%s)", name, err) ||
      !TAP_OK(json_read_parse(old_text, strlen(old_text), &old_doc, err,
                              sizeof(err)) == 0 &&
                  json_read_parse(new_text, strlen(new_text), &new_doc, err,
                                  sizeof(err)) == 0,
              "%s: the documents read (%s)", name, err) ||
      !TAP_EQ_INT(diff_compare(&d, old_doc, new_doc, &o, err, sizeof(err)), 0,
                  "%s: they compare (%s)", name, err))
    goto out;
  j = diff_json(&d, "old.json", "new.json");
  {
    int ok = j != NULL && validate_document_checked(schema, j, &e) == 0;
    TAP_OK(ok, "%s: the comparison follows compare.schema.json (%s)", name,
           e.n ? e.messages[0] : "");
  }
out:
  validate_errors_release(&e);
  diff_release(&d);
  json_object_put(j);
  json_object_put(schema);
  json_object_put(old_doc);
  json_object_put(new_doc);
}

/* A runtime whose name is empty where json-c ends it ("\u0000c" is ""):
 * its package rows have an empty subject; and a machine whose os is "":
 * its refusal, rows and package entries have an empty platform.
 * compare.schema.json refused both (minLength 1) for a comparison crossrun
 * wrote itself (fuzz_compare; the inputs are in
 * tests/fuzz/corpus/fuzz_compare/). */
static void test_compare_empty_name(void)
{
  compare_follows_schema(
      "empty name",
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": {\"sha256\": "
      "\"aa\", \"packed_bytes\": 1, \"entries\": []}}}}",
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
      "\"lanes\": {}, \"runtimes\": {\"\\u0000c\": {\"package\": "
      "{\"sha256\": \"bb\", \"packed_bytes\": 2, \"entries\": "
      "[{\"path\": \"x\", \"size_bytes\": 1}]}}}}");
  compare_follows_schema(
      "empty platform",
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": {\"sha256\": "
      "\"aa\", \"packed_bytes\": 1, \"entries\": []}}}}",
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": "
      "{\"sha256\": \"bb\", \"packed_bytes\": 2, \"entries\": "
      "[{\"path\": \"x\", \"size_bytes\": 1}]}}}}");
}

/* A sample's figure beyond a double's range (server_ready_ns 1e4006
 * reads as infinite): the comparison's row held Infinity, which its JSON
 * cannot hold (fuzz_compare; the input is in
 * tests/fuzz/corpus/fuzz_compare/). Such a figure is not compared. */
static void test_compare_infinite_figure(void)
{
  static const char text[] =
      "{\"mode\": \"run\", \"performance_claims\": true, \"machine\": "
      "{\"os\": \"linux\"}, \"runtimes\": {}, \"lanes\": {\"c-c\": "
      "{\"summary\": {\"status\": \"passed\"}, \"samples\": "
      "[{\"status\": \"passed\", \"ns_per_round_trip\": 600, "
      "\"server_ready_ns\": 1703921e4006}]}}}";
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *doc = NULL;
  struct diff d;
  char err[512] = "";
  int finite = 1, ready = 0;

  memset(&d, 0, sizeof(d));
  if (!TAP_OK(json_read_parse(text, strlen(text), &doc, err, sizeof(err)) == 0,
              "infinite figure: the document reads (%s)", err))
    return;
  if (TAP_EQ_INT(diff_compare(&d, doc, doc, &o, err, sizeof(err)), 0,
                 "infinite figure: it compares with itself (%s)", err)) {
    for (int i = 0; i < d.nrows; i++) {
      const struct diff_row *r = &d.rows[i];
      ready += strcmp(r->figure, "server_ready_ns") == 0 && r->old_side.n > 0;
      finite = finite && isfinite(r->old_side.median) &&
               isfinite(r->new_side.median);
    }
    TAP_OK(finite && ready == 0 && d.nrows > 0,
           "infinite figure: not compared, every row finite (%d rows)",
           d.nrows);
  }
  diff_release(&d);
  json_object_put(doc);
}

/* A package hash that is not a string (sha256: 1), compared with itself:
 * "changed", since only two strings could be the same (fuzz_compare; the
 * input is in tests/fuzz/corpus/fuzz_compare/). Two values are the same
 * when they are equal as JSON. */
static void test_compare_hash_not_string(void)
{
  static const char *const texts[] = {
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": "
      "{\"sha256\": 1}}}}",
      "{\"mode\": \"quick\", \"machine\": {\"os\": \"linux\"}, "
      "\"lanes\": {}, \"runtimes\": {\"c\": {\"package\": "
      "{\"sha256\": 2}}}}",
  };
  const char *verdict[2] = {"", ""};
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *docs[2] = {NULL, NULL};
  char err[512] = "";

  for (int i = 0; i < 2; i++)
    if (!TAP_OK(json_read_parse(texts[i], strlen(texts[i]), &docs[i], err,
                                sizeof(err)) == 0,
                "hash not a string: document %d reads (%s)", i, err))
      goto out;
  for (int k = 0; k < 2; k++) {
    struct diff d;
    memset(&d, 0, sizeof(d));
    if (diff_compare(&d, docs[0], docs[k], &o, err, sizeof(err)) == 0)
      for (int i = 0; i < d.nrows; i++)
        if (strcmp(d.rows[i].figure, "sha256") == 0)
          verdict[k] = d.rows[i].verdict;
    diff_release(&d);
  }
  TAP_EQ_STR(verdict[0], "same", "hash not a string: the same as itself");
  TAP_EQ_STR(verdict[1], "changed", "hash not a string: 1 against 2 changed");
out:
  json_object_put(docs[0]);
  json_object_put(docs[1]);
}

/* A merged document whose inputs name the platform and whose platform has
 * no lanes: merge refuses it with its problems rather than aborting where
 * evidence/check/figures.c measured the lanes before checking that they
 * are an object (fuzz_merge; the input is in tests/fuzz/corpus/fuzz_merge/). */
static void test_merge_platform_without_lanes(void)
{
  struct merge_options o = MERGE_OPTIONS_INIT;
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *merged = NULL;
  const char *list[1];
  int rc;

  list[0] = write_file("no-lanes.json",
                       "{\"schema_version\": 1, \"mode\": \"merged\", "
                       "\"inputs\": {\"a.json\": {\"os\": \"linux\"}}, "
                       "\"platforms\": {\"linux\": {\"mode\": \"record\"}}}");
  rc = merge_files(&o, list, 1, &merged, &p);
  TAP_OK(rc != 0 && merged == NULL && p.count >= 1,
         "a merged input with a platform without lanes is refused with %d "
         "problems (first: %s)",
         p.count, p.count ? p.lines[0] : "");
  merge_problems_release(&p);
  json_object_put(merged);
}

int main(void)
{
  if (tap_mkdtemp(dir, sizeof(dir)) == NULL)
    return 1;
  test_validate_messages_are_lines();
  test_yaml_errors_are_lines();
  test_compare_texts_are_lines();
  test_compare_repeated_entry();
  test_compare_hash_cut();
  test_stats_cpu_sum();
  test_compare_empty_name();
  test_compare_infinite_figure();
  test_compare_hash_not_string();
  test_merge_platform_without_lanes();
  if (scratch_remove_tree(dir, 0) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
