/* `crossrun compare` on two evidence documents (evidence/diff/): the
 * input is OLD, a line "--8<--", then NEW (found by the fuzzer from the
 * seeds); without the line the document is compared with itself. Each
 * side is read by the reader the command uses (evidence/base/json_read.h).
 *
 * Properties: a refused pair says why in one ended line naming the file;
 * a compared pair has a verdict on every row, p-values within [0, 1] with
 * Holm's at least the raw one, and text fields that are one line of
 * UTF-8 (they go into terminal columns, Markdown tables and JSON); a
 * document compared with itself has no regression and no change; the
 * table and the Markdown are written whole as UTF-8, and so is the HTML
 * report of NEW with the comparison as its baseline section (crossrun
 * report --baseline) when NEW is a report's evidence; the JSON is read
 * back under the strict reader and follows evidence/diff/compare.schema.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/json_read.h"
#include "evidence/base/utf8.h"
#include "evidence/diff/diff.h"
#include "evidence/report/report.h"
#include "evidence/schema/validate.h"
#include "tests/fuzz/fuzz.h"

#ifndef FUZZ_SOURCE_ROOT
#define FUZZ_SOURCE_ROOT "."
#endif

#define SEPARATOR "\n--8<--\n"

static json_object *schema;

static void load_schema(void)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  const char *root = getenv("CROSSRUN_ROOT");
  char file[4096];

  snprintf(file, sizeof(file), "%s/evidence/diff/compare.schema.json",
           root && *root ? root : FUZZ_SOURCE_ROOT);
  schema = json_object_from_file(file);
  FUZZ_CHECK(schema != NULL, "compare.schema.json cannot be read");
  FUZZ_CHECK(validate_schema(schema, &e) == 0, "the schema is not usable");
  validate_errors_release(&e);
}

/* One line of UTF-8: no control character, no byte that is not UTF-8. */
static int one_line(const char *s)
{
  size_t len = strlen(s);

  if (utf8_error_at(s, len) >= 0)
    return 0;
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 0;
  return 1;
}

static void check_rows(const struct diff *d, int self)
{
  static const char *const moved[] = {"slower",  "faster",        "bigger",
                                      "smaller", "changed",       "new lane",
                                      "gone",    "status changed"};

  for (int i = 0; i < d->nrows; i++) {
    const struct diff_row *r = &d->rows[i];
    FUZZ_CHECK(r->verdict != NULL && r->figure != NULL && r->unit != NULL,
               "a row without a verdict, figure or unit");
    FUZZ_CHECK(one_line(r->platform) && one_line(r->subject) &&
                   one_line(r->old_text) && one_line(r->new_text) &&
                   one_line(r->reason),
               "a row's text is not one line of UTF-8");
    if (r->tested)
      FUZZ_CHECK(r->p >= 0 && r->p <= 1 && r->p_holm >= r->p && r->p_holm <= 1,
                 "a p-value outside [0, 1], or Holm's below the raw one");
    for (size_t k = 0; self && k < sizeof(moved) / sizeof(moved[0]); k++)
      FUZZ_CHECK(strcmp(r->verdict, moved[k]) != 0,
                 "a document compared with itself changed");
  }
  for (int i = 0; i < d->nentries; i++)
    FUZZ_CHECK(one_line(d->entries[i].platform) &&
                   one_line(d->entries[i].runtime) &&
                   one_line(d->entries[i].path),
               "a package entry's text is not one line of UTF-8");
  for (int i = 0; i < d->nnotes; i++)
    FUZZ_CHECK(one_line(d->notes[i].platform) && one_line(d->notes[i].text),
               "a refusal is not one line of UTF-8");
  FUZZ_CHECK(!self || (d->regressions == 0 && d->nentries == 0),
             "a document compared with itself regressed");
}

static void render(const struct diff *d,
                   int (*renderer)(const struct diff *, const char *,
                                   const char *, FILE *))
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);

  if (f == NULL)
    return;
  FUZZ_CHECK(renderer(d, "old.json", "new.json", f) == 0,
             "a renderer failed to write");
  fclose(f);
  FUZZ_CHECK(fuzz_utf8_valid(out, len), "a rendered comparison is not UTF-8");
  free(out);
}

static void check_json(const struct diff *d)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *j = diff_json(d, "old.json", "new.json"), *back = NULL;
  const char *text;
  char err[512];

  FUZZ_CHECK(j != NULL, "no JSON");
  text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
  FUZZ_CHECK(text != NULL, "the JSON cannot be printed");
  FUZZ_CHECK(json_read_parse(text, strlen(text), &back, err, sizeof(err)) == 0,
             "the JSON written is not JSON the reader accepts");
  FUZZ_CHECK(validate_document_checked(schema, back, &e) == 0,
             "the JSON does not follow compare.schema.json");
  validate_errors_release(&e);
  json_object_put(back);
  json_object_put(j);
}

/* crossrun report NEW --baseline OLD --html. */
static void check_report(const struct diff *d, const uint8_t *text, size_t len)
{
  struct report r;
  char err[512], *out = NULL;
  size_t outlen = 0;
  FILE *f;

  report_init(&r);
  if (report_parse(&r, "new.json", (const char *)text, len, err, sizeof(err)) ==
          0 &&
      (f = open_memstream(&out, &outlen)) != NULL) {
    FUZZ_CHECK(report_html_baseline(&r, d, "o<ld.json", "n&ew.json", f) == 0,
               "the HTML report with a baseline failed to write");
    fclose(f);
    FUZZ_CHECK(fuzz_utf8_valid(out, outlen),
               "the HTML report with a baseline is not UTF-8");
    FUZZ_CHECK(strstr(out, "o<ld") == NULL && strstr(out, "n&ew") == NULL,
               "a file's name is not escaped in the HTML");
    free(out);
  }
  report_release(&r);
}

static json_object *read_side(const uint8_t *data, size_t size)
{
  json_object *doc = NULL;
  char err[512];

  if (json_read_parse((const char *)data, size, &doc, err, sizeof(err)) != 0)
    return NULL;
  if (!json_object_is_type(doc, json_type_object)) {
    json_object_put(doc); /* refused by the command before the diff */
    return NULL;
  }
  return doc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
  struct diff_options o = DIFF_OPTIONS_INIT;
  json_object *old_doc, *new_doc;
  struct diff d;
  char err[512];
  int self = sep == NULL, rc;

  if (schema == NULL)
    load_schema();
  old_doc = read_side(data, self ? size : (size_t)(sep - data));
  if (old_doc == NULL)
    return 0;
  new_doc = self ? json_object_get(old_doc)
                 : read_side(sep + strlen(SEPARATOR),
                             size - (size_t)(sep - data) - strlen(SEPARATOR));
  if (new_doc == NULL) {
    json_object_put(old_doc);
    return 0;
  }
  /* The options vary with the input's length, so that machines that differ
   * and the thresholds' edges are reached too. */
  o.allow_different_machines = size % 2;
  o.threshold_pct = (double[]){5, 0, 50}[(size / 2) % 3];
  memset(err, 'x', sizeof(err));
  rc = diff_compare(&d, old_doc, new_doc, &o, err, sizeof(err));
  if (rc != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the error is not ended");
    FUZZ_CHECK(one_line(err), "the error is not one line of UTF-8");
    FUZZ_CHECK(strncmp(err, "OLD: ", 5) == 0 || strncmp(err, "NEW: ", 5) == 0 ||
                   strcmp(err, "out of memory") == 0,
               "the error names no file");
  } else {
    check_rows(&d, self);
    render(&d, diff_print);
    render(&d, diff_markdown);
    check_json(&d);
    if (self)
      check_report(&d, data, size);
    else
      check_report(&d, sep + strlen(SEPARATOR),
                   size - (size_t)(sep - data) - strlen(SEPARATOR));
  }
  diff_release(&d);
  json_object_put(old_doc);
  json_object_put(new_doc);
  return 0;
}
