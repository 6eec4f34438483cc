/* runner/term_text: what crossrun prints on its terminal from text that
 * came from outside it. Every control character (C0, DEL, C1, the
 * bidirectional controls, the line and paragraph separators) and every
 * byte that is not UTF-8 is one '?'; any other character is itself; a
 * copy is cut between characters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/term_text.h"
#include "tests/lib_memfile.h"
#include "tests/tap.h"

static const struct {
  const char *in, *shown, *what;
} cases[] = {
    {"plain text: 12.0 ms", "plain text: 12.0 ms", "plain text is itself"},
    {"\xc2\xb5s, na\xc3\xafve, \xe2\x86\x92, \xf0\x9f\x98\x80",
     "\xc2\xb5s, na\xc3\xafve, \xe2\x86\x92, \xf0\x9f\x98\x80",
     "other characters, up to four bytes, are themselves"},
    {"a\nb\r\tc", "a?b??c", "newline, carriage return and tab are '?'"},
    {"\033[2K\033[1Agone", "?[2K?[1Agone",
     "ESC, so any CSI sequence, is shown"},
    {"x\x7fy\x01z", "x?y?z", "DEL and the other C0 controls"},
    {"\xc2\x9b"
     "31m\xc2\x85",
     "?31m?", "C1 controls (CSI, NEL) are one '?' each"},
    {"\xc2\xa0nbsp", "\xc2\xa0nbsp", "U+00A0, just after C1, is itself"},
    {"ab\xe2\x80\xae"
     "cd\xe2\x81\xa6\xe2\x81\xa9",
     "ab?cd??", "bidirectional overrides and isolates"},
    {"\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaf", "??\xe2\x80\xaf",
     "line and paragraph separators, not U+202F"},
    {"\xff\xfe ok \xc3", "?? ok ?", "bytes that are not UTF-8, each"},
    {"\xed\xa0\x80", "???", "a surrogate is not UTF-8"},
    {"\xe2\x82", "??", "a character cut short"},
    {"", "", "empty text"},
};

static void test_cases(void)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char out[64], *text = NULL;
    size_t len;
    FILE *f;

    TAP_EQ_STR(term_text(cases[i].in, out, sizeof(out)), cases[i].shown,
               "term_text: %s", cases[i].what);
    f = memfile_open(&text, &len);
    if (!TAP_NONNULL(f, "a memory file"))
      continue;
    term_text_put(f, cases[i].in);
    memfile_close(f);
    TAP_EQ_STR(text, cases[i].shown, "term_text_put: %s", cases[i].what);
    free(text);
  }
}

static void test_bounds(void)
{
  char out[8], *text = NULL;
  size_t len;
  FILE *f;

  memset(out, 'x', sizeof(out));
  TAP_EQ_STR(term_text("abcdefghij", out, sizeof(out)), "abcdefg",
             "a copy is cut to its buffer, with its NUL");
  TAP_EQ_STR(term_text("abcde\xc3\xa9z", out, 7), "abcde",
             "and between characters, never inside one");
  TAP_EQ_STR(term_text("abcde\033\033z", out, 8), "abcde??",
             "a '?' takes one byte, whatever it stands for");
  TAP_EQ_STR(term_text(NULL, out, sizeof(out)), "", "NULL is empty text");
  out[0] = 'k';
  term_text("abc", out, 0);
  TAP_EQ_INT(out[0], 'k', "a buffer of 0 bytes is not written");
  f = memfile_open(&text, &len);
  if (TAP_NONNULL(f, "a memory file")) {
    term_text_put(f, NULL);
    memfile_close(f);
    TAP_EQ_STR(text, "", "term_text_put of NULL writes nothing");
    free(text);
  }
}

int main(void)
{
  test_cases();
  test_bounds();
  return tap_done();
}
