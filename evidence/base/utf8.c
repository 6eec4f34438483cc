/* The one UTF-8 decoder (evidence/base/utf8.h). */
#include "evidence/base/utf8.h"

#include <string.h>

int utf8_decode(const char *s, size_t len, uint32_t *cp)
{
  const unsigned char *u = (const unsigned char *)s;
  uint32_t c, min;
  size_t n;

  *cp = UTF8_REPLACEMENT;
  if (len == 0)
    return 0;
  if (u[0] < 0x80) {
    *cp = u[0];
    return 1;
  }
  /* 0xc0, 0xc1 and 0xf5 and above can only start overlong forms or code
   * points beyond U+10FFFF. */
  if (u[0] >= 0xc2 && u[0] <= 0xdf)
    n = 2, c = u[0] & 0x1f, min = 0x80;
  else if (u[0] >= 0xe0 && u[0] <= 0xef)
    n = 3, c = u[0] & 0x0f, min = 0x800;
  else if (u[0] >= 0xf0 && u[0] <= 0xf4)
    n = 4, c = u[0] & 0x07, min = 0x10000;
  else
    return 0;
  if (len < n)
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((u[i] & 0xc0) != 0x80)
      return 0;
    c = (c << 6) | (u[i] & 0x3f);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0;
  *cp = c;
  return (int)n;
}

long long utf8_error_at(const char *s, size_t len)
{
  size_t i = 0;
  uint32_t cp;

  while (i < len) {
    int n;
    /* Most text is ASCII: eight bytes at a time while none has its top bit
     * set. Every reader of evidence runs this over the whole file, so the
     * word-wide test is worth its lines (under the fuzzers' comparison
     * tracing a byte-wide loop cost a third of fuzz_validate). */
    while (len - i >= 8) {
      uint64_t word;
      memcpy(&word, s + i, sizeof(word));
      if ((word & UINT64_C(0x8080808080808080)) != 0)
        break;
      i += 8;
    }
    if (i == len)
      break;
    if ((unsigned char)s[i] < 0x80) {
      i++;
      continue;
    }
    n = utf8_decode(s + i, len - i, &cp);
    if (n == 0)
      return (long long)i;
    i += (size_t)n;
  }
  return -1;
}

size_t utf8_length(const char *s, size_t len)
{
  size_t n = 0;

  /* Valid UTF-8: every byte but a continuation byte starts a character. */
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xc0) != 0x80;
  return n;
}
