/* Direct tests of the input readers' modules: the one UTF-8 decoder
 * (evidence/utf8.h), the bounded buffer (evidence/dynbuf.h) and the one
 * reader of input documents (evidence/json_read.h), and that validate,
 * merge and report give the same answer for the same bad file. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "evidence/utf8.h"
#include "tests/tap.h"

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
  TAP_OK(utf8_length(mixed, sizeof(mixed) - 1) == 8,
         "utf8_length: characters, not bytes (%zu)",
         utf8_length(mixed, sizeof(mixed) - 1));
}

int main(void)
{
  test_utf8_decode();
  test_utf8_strings();
  return tap_done();
}
