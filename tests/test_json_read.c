/* Direct tests of the input readers' modules: the one UTF-8 decoder
 * (evidence/base/utf8.h), the bounded buffer (evidence/base/dynbuf.h) and the
 * one reader of input documents (evidence/base/json_read.h), and that validate,
 * merge and report give the same answer for the same bad file. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evidence/base/dynbuf.h"
#include "evidence/base/json_read.h"
#include "evidence/merge/merge.h"
#include "evidence/report/report.h"
#include "evidence/base/utf8.h"
#include "evidence/schema/validate.h"
#include "tests/tap.h"

/* A file of the bytes of a string literal, its NUL bytes included. */
#define WRITE(name, literal) write_file(name, literal, sizeof(literal) - 1)

static char dir[512];
static char paths[16][600];
static int npaths;

/* Writes len bytes of text to a file of the test's folder; its path. */
static const char *write_file(const char *name, const char *text, size_t len)
{
  char *path = paths[npaths < 16 ? npaths++ : 15];
  FILE *f;

  snprintf(path, sizeof(paths[0]), "%s/%s", dir, name);
  /* A file not written whole fails the checks that read it. */
  f = fopen(path, "wb");
  if (f != NULL) {
    if (fwrite(text, 1, len, f) != len)
      tap_diag("cannot write %s", path);
    fclose(f);
  }
  return path;
}

/* ---- UTF-8 ---- */

static void test_utf8_decode(void)
{
  static const struct {
    const char *what;
    const char *bytes;
    size_t len;
    int n;       /* utf8_decode's length, 0: not UTF-8 */
    uint32_t cp; /* the code point when n > 0 */
  } cases[] = {
      {"ASCII", "a", 1, 1, 'a'},
      {"a NUL byte is U+0000", "\0", 1, 1, 0},
      {"two bytes", "\xc3\xa9", 2, 2, 0xe9},
      {"three bytes", "\xe2\x82\xac", 3, 3, 0x20ac},
      {"four bytes", "\xf0\x9f\x98\x80", 4, 4, 0x1f600},
      {"the last code point", "\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff},
      {"U+FFFF is a character", "\xef\xbf\xbf", 3, 3, 0xffff},
      {"a stray continuation byte", "\x80", 1, 0, 0},
      {"0xff", "\xff", 1, 0, 0},
      {"an overlong two-byte form", "\xc0\xaf", 2, 0, 0},
      {"an overlong three-byte form", "\xe0\x80\xaf", 3, 0, 0},
      {"an overlong four-byte form", "\xf0\x80\x80\xaf", 4, 0, 0},
      {"a surrogate", "\xed\xa0\x80", 3, 0, 0},
      {"beyond U+10FFFF", "\xf4\x90\x80\x80", 4, 0, 0},
      {"0xf5 starts nothing", "\xf5\x80\x80\x80", 4, 0, 0},
      {"cut short by the length", "\xe2\x82\xac", 2, 0, 0},
      {"cut short by a byte that does not continue it", "\xe2\x82(", 3, 0, 0},
      {"nothing to decode", "", 0, 0, 0},
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    uint32_t cp = 1;
    int n = utf8_decode(cases[i].bytes, cases[i].len, &cp);
    TAP_OK(
        n == cases[i].n && cp == (cases[i].n ? cases[i].cp : UTF8_REPLACEMENT),
        "utf8_decode: %s (length %d, U+%04X)", cases[i].what, n, (unsigned)cp);
  }
}

static void test_utf8_strings(void)
{
  const char mixed[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";

  TAP_OK(utf8_error_at(mixed, sizeof(mixed) - 1) == -1,
         "utf8_error_at: valid text has no error");
  TAP_OK(utf8_error_at("ab\xc3\xa9\xed\xa0\x80z", 8) == 4,
         "utf8_error_at: the offset of a surrogate after valid text");
  TAP_OK(utf8_error_at("abc\xc3", 4) == 3,
         "utf8_error_at: a sequence cut by the end of the text");
  TAP_OK(utf8_error_at("a\0b", 3) == -1,
         "utf8_error_at: a NUL byte is UTF-8 (the readers refuse it apart)");
  {
    static const char runs[] = "abcdefgh\xc3\xa9ijklmnopqrstu\xe2\x82\xac";
    long long wrong = -1;
    /* A bad byte at every offset of a word and beyond, cut by the 'a'
     * after it or by the end of the text. */
    for (size_t at = 0; at < 24 && wrong < 0; at++) {
      char text[40];
      memset(text, 'a', sizeof(text));
      text[at] = '\xc3';
      if (utf8_error_at(text, at + 1 + at % 9) != (long long)at)
        wrong = (long long)at;
    }
    TAP_OK(wrong < 0,
           "utf8_error_at: the offset of a bad byte after 0 to 23 ASCII bytes "
           "(first wrong: %lld)",
           wrong);
    TAP_OK(utf8_error_at(runs, sizeof(runs) - 1) == -1,
           "utf8_error_at: characters between runs of ASCII bytes");
  }
  TAP_OK(utf8_length(mixed, sizeof(mixed) - 1) == 8,
         "utf8_length: characters, not bytes (%zu)",
         utf8_length(mixed, sizeof(mixed) - 1));
}

/* ---- dynbuf ---- */

static void test_dynbuf(void)
{
  struct dynbuf b = DYNBUF_INIT(10);
  const char *path;
  FILE *f;
  int rc;

  TAP_OK(dynbuf_len(&b) == 0 && strcmp(dynbuf_ptr(&b), "") == 0,
         "dynbuf: empty, an empty string, nothing allocated");
  rc = dynbuf_add(&b, "hello", 5);
  rc |= dynbuf_add(&b, " you", 4);
  TAP_OK(rc == 0 && dynbuf_len(&b) == 9 &&
             strcmp(dynbuf_ptr(&b), "hello you") == 0,
         "dynbuf: bytes added are held, followed by a NUL");
  TAP_OK(dynbuf_add(&b, "!!", 2) == DYNBUF_ETOOBIG && dynbuf_len(&b) == 9,
         "dynbuf: past the limit is too big, and the buffer is unchanged");
  TAP_OK(dynbuf_add(&b, "!", 1) == 0 && dynbuf_len(&b) == 10,
         "dynbuf: up to the limit exactly is fine");
  dynbuf_release(&b);
  TAP_OK(b.buf == NULL && b.len == 0 && b.max == 10,
         "dynbuf_release: empty again, the same limit");

  path = WRITE("ten.txt", "0123456789");
  f = fopen(path, "rb");
  rc = f ? dynbuf_read(&b, f) : -99;
  TAP_OK(rc == 0 && dynbuf_len(&b) == 10 &&
             strcmp(dynbuf_ptr(&b), "0123456789") == 0,
         "dynbuf_read: a stream of exactly the limit is read whole (%d)", rc);
  if (f)
    fclose(f);
  dynbuf_release(&b);
  dynbuf_init(&b, 9);
  f = fopen(path, "rb");
  rc = f ? dynbuf_read(&b, f) : -99;
  TAP_OK(rc == DYNBUF_ETOOBIG && dynbuf_len(&b) == 9,
         "dynbuf_read: one byte past the limit is too big (%d)", rc);
  if (f)
    fclose(f);
  dynbuf_release(&b);

  /* Many small reads' worth: the buffer grows past its first size. */
  {
    static char big[100000];
    memset(big, 'x', sizeof(big));
    path = write_file("big.txt", big, sizeof(big));
    dynbuf_init(&b, sizeof(big));
    f = fopen(path, "rb");
    rc = f ? dynbuf_read(&b, f) : -99;
    TAP_OK(rc == 0 && dynbuf_len(&b) == sizeof(big) &&
               memcmp(dynbuf_ptr(&b), big, sizeof(big)) == 0 &&
               dynbuf_ptr(&b)[sizeof(big)] == '\0',
           "dynbuf_read: a file of many first allocations (%d)", rc);
    if (f)
      fclose(f);
    dynbuf_release(&b);
  }
}

/* ---- json_read ---- */

/* json_read_parse of text (len bytes): its return, the problem in err. */
static int parse(const char *text, size_t len, char *err, size_t errlen)
{
  json_object *doc = NULL;
  int rc;

  err[0] = '\0';
  rc = json_read_parse(text, len, &doc, err, errlen);
  json_object_put(doc);
  return rc;
}

static void test_json_read_parse(void)
{
  static const struct {
    const char *what;
    const char *text;
    size_t len; /* 0: strlen */
    int rc;
    const char *err; /* the whole message */
  } cases[] = {
      {"an object", "{\"a\": [1, 2.5, \"\xc3\xa9\"]}\n", 0, 0, ""},
      {"a number the end of the text ends", "12", 0, 0, ""},
      {"white space around the value", " \t\r\n{}\n\n", 0, 0, ""},
      {"an empty file", "", 0, JSON_READ_ESYNTAX,
       "not JSON: the file is empty"},
      {"only white space", " \n\t", 0, JSON_READ_ESYNTAX,
       "not JSON: the file is empty"},
      {"a NUL byte", "{\"a\": 1}\0{}", 11, JSON_READ_ETEXT,
       "not JSON: a NUL byte at byte 8"},
      {"a NUL byte in a string", "{\"a\": \"x\0y\"}", 12, JSON_READ_ETEXT,
       "not JSON: a NUL byte at byte 8"},
      {"a byte that is not UTF-8", "{\"a\": \"\xff\"}", 0, JSON_READ_ETEXT,
       "not JSON: not valid UTF-8 at byte 7"},
      {"a surrogate, which json-c lets through", "{\"a\": \"\xed\xa0\x80\"}", 0,
       JSON_READ_ETEXT, "not JSON: not valid UTF-8 at byte 7"},
      {"an overlong form", "[\"\xe0\x80\xaf\"]", 0, JSON_READ_ETEXT,
       "not JSON: not valid UTF-8 at byte 2"},
      {"the first broken rule is named", "[\"\xff\0\"]", 5, JSON_READ_ETEXT,
       "not JSON: not valid UTF-8 at byte 2"},
      {"a second value", "{} {}", 0, JSON_READ_ESYNTAX,
       "not JSON: unexpected character at byte 3"},
      {"trailing garbage", "{}  \n\t x", 0, JSON_READ_ESYNTAX,
       "not JSON: unexpected character at byte 7"},
      {"a value cut short", "{\"a\": [1,", 0, JSON_READ_ESYNTAX,
       "not JSON: unexpected end of data at byte 9"},
      {"not JSON at all", "<!doctype html>", 0, JSON_READ_ESYNTAX,
       "not JSON: unexpected character at byte 0"},
      {"a byte-order mark", "\xef\xbb\xbf{}", 0, JSON_READ_ESYNTAX,
       "not JSON: unexpected character at byte 0"},
  };
  char err[256];

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
    int rc = parse(cases[i].text, len, err, sizeof(err));
    TAP_OK(rc == cases[i].rc && strcmp(err, cases[i].err) == 0,
           "json_read_parse: %s (%d, '%s')", cases[i].what, rc, err);
  }

  {
    char deep[200];
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    TAP_OK(parse(deep + 1, 128, err, sizeof(err)) == 0,
           "json_read_parse: 64 levels of nesting are read");
    TAP_OK(parse(deep, 130, err, sizeof(err)) == JSON_READ_ESYNTAX &&
               strcmp(err, "not JSON: nested more than 64 levels deep at "
                           "byte 64") == 0,
           "json_read_parse: 65 are not: %s", err);
  }
  {
    json_object *doc = (json_object *)1;
    TAP_OK(json_read_parse("null", 4, &doc, err, sizeof(err)) == 0 &&
               doc == NULL,
           "json_read_parse: a document that is just null is NULL");
  }
}

static void test_json_read_file(void)
{
  json_object *doc = NULL;
  char err[256] = "";
  const char *path;
  struct dynbuf b;
  size_t at;
  const char *what;
  int rc;

  path = WRITE("ok.json", "{\"a\": 1}\n");
  rc = json_read_file(path, JSON_READ_MAX_BYTES, &doc, err, sizeof(err));
  TAP_OK(rc == 0 && json_object_is_type(doc, json_type_object),
         "json_read_file: a small document is read (%d %s)", rc, err);
  json_object_put(doc);
  rc = json_read_file(path, 9, &doc, err, sizeof(err));
  TAP_OK(rc == 0 && doc != NULL, "json_read_file: a file of the limit is read");
  json_object_put(doc);
  rc = json_read_file(path, 8, &doc, err, sizeof(err));
  TAP_OK(rc == JSON_READ_ETOOBIG && doc == NULL &&
             strcmp(err, "too large: more than 8 bytes") == 0,
         "json_read_file: one byte past the limit is too large: %s", err);

  rc = json_read_file(dir, JSON_READ_MAX_BYTES, &doc, err, sizeof(err));
  TAP_OK(rc == JSON_READ_EREAD && strncmp(err, "cannot read: ", 13) == 0,
         "json_read_file: a folder cannot be read: %s", err);
  snprintf(paths[15], sizeof(paths[15]), "%s/missing.json", dir);
  rc = json_read_file(paths[15], JSON_READ_MAX_BYTES, &doc, err, sizeof(err));
  TAP_OK(rc == JSON_READ_EREAD &&
             strcmp(err, "cannot read: No such file or directory") == 0,
         "json_read_file: a missing file cannot be read: %s", err);

  /* A stream has no size to check beforehand: read up to the limit. */
  rc = json_read_bytes("/dev/zero", 1000, &b, err, sizeof(err));
  TAP_OK(rc == JSON_READ_ETOOBIG && dynbuf_len(&b) == 0 &&
             strcmp(err, "too large: more than 1000 bytes") == 0,
         "json_read_bytes: an endless stream stops one byte past the limit");
  dynbuf_release(&b);
  rc = json_read_bytes(path, 100, &b, err, sizeof(err));
  TAP_OK(rc == 0 && dynbuf_len(&b) == 9 && b.max == 100,
         "json_read_bytes: the bytes, checked by no text rule");
  dynbuf_release(&b);

  TAP_OK(json_read_check_text("a: b\n", 5, &at, &what) == 0,
         "json_read_check_text: plain text passes");
  TAP_OK(json_read_check_text("a:\n b\xc3", 6, &at, &what) == JSON_READ_ETEXT &&
             at == 5 && strcmp(what, "not valid UTF-8") == 0,
         "json_read_check_text: the offset of a cut character");
}

/* ---- every command, the same answer ---- */

/* The one-line answer each of validate, merge and report gives for the
 * file at path: "refused: <problem>" or "accepted". */
static void answers(const char *path, char *v, char *m, char *r, size_t len)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  struct merge_options o = MERGE_OPTIONS_INIT;
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  const char *const one[] = {path};
  json_object *doc = NULL, *merged = NULL;
  struct report rep;
  char err[512] = "", prefix[700];
  int rc;

  rc = validate_read_json(path, &doc, &e, err, sizeof(err));
  snprintf(v, len, "%s%s", rc == 0 ? "accepted" : "refused: ",
           rc < 0              ? err
           : rc > 0 && e.n > 0 ? e.messages[0]
                               : "");
  json_object_put(doc);
  validate_errors_release(&e);

  snprintf(m, len, "accepted");
  snprintf(prefix, sizeof(prefix), "%s: ", path);
  merge_files(&o, one, 1, &merged, &p);
  for (int i = 0; i < p.count; i++)
    if (strncmp(p.lines[i], prefix, strlen(prefix)) == 0) {
      snprintf(m, len, "refused: %s", p.lines[i] + strlen(prefix));
      break;
    }
  json_object_put(merged);
  merge_problems_release(&p);

  report_init(&rep);
  rc = report_load(&rep, path, err, sizeof(err));
  snprintf(r, len, "%s%s",
           rc == 0 ? "accepted" : "refused: ", rc == 0 ? "" : err);
  if (rc == 0)
    report_release(&rep);
}

static void same_answer(const char *what, const char *path, const char *want)
{
  char v[600], m[600], r[600], expect[600];

  snprintf(expect, sizeof(expect), "refused: %s", want);
  answers(path, v, m, r, sizeof(v));
  if (!TAP_OK(strcmp(v, expect) == 0 && strcmp(m, expect) == 0 &&
                  strcmp(r, expect) == 0,
              "validate, merge and report: %s: %s", what, want)) {
    tap_diag("validate: %s", v);
    tap_diag("merge:    %s", m);
    tap_diag("report:   %s", r);
  }
}

static void test_every_command(void)
{
  const char *path;
  FILE *f;
  int made;

  /* Not "nul.json": Windows opens NUL.* as its null device. */
  same_answer("a NUL byte",
              WRITE("zero-byte.json", "{\"schema_version\": 1}\0{}"),
              "not JSON: a NUL byte at byte 21");
  same_answer("a byte that is not UTF-8",
              WRITE("ff.json", "{\"mode\": \"\xff\"}"),
              "not JSON: not valid UTF-8 at byte 10");
  /* json-c takes a surrogate: merge and report read it before. */
  same_answer("a surrogate",
              WRITE("surrogate.json", "{\"mode\": \"\xed\xa0\x80\"}"),
              "not JSON: not valid UTF-8 at byte 10");
  same_answer("trailing garbage",
              WRITE("trailing.json", "{\"schema_version\": 1} x"),
              "not JSON: unexpected character at byte 22");
  same_answer("an empty file", WRITE("empty.json", ""),
              "not JSON: the file is empty");
  same_answer("a value cut short", WRITE("cut.json", "{\"schema_version\": "),
              "not JSON: unexpected end of data at byte 19");

  /* A sparse file one byte past the limit: refused by its size. */
  path = WRITE("huge.json", "");
  f = fopen(path, "r+b");
  made = f != NULL && fseek(f, (long)JSON_READ_MAX_BYTES, SEEK_SET) == 0 &&
         fputc(' ', f) != EOF;
  if (f != NULL && fclose(f) != 0)
    made = 0;
  if (TAP_OK(made, "a sparse file past the limit is made"))
    same_answer("over the limit", path, "too large: more than 268435456 bytes");
}

int main(void)
{
  if (tap_mkdtemp(dir, sizeof(dir)) == NULL) {
    TAP_OK(0, "a temporary folder");
    return tap_done();
  }
  test_utf8_decode();
  test_utf8_strings();
  test_dynbuf();
  test_json_read_parse();
  test_json_read_file();
  test_every_command();
  for (int i = 0; i < npaths; i++)
    remove(paths[i]);
  rmdir(dir);
  return tap_done();
}
