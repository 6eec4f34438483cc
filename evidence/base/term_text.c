#include "evidence/base/term_text.h"

#include <stdint.h>
#include <string.h>

#include "evidence/base/utf8.h"

static int shown_as_is(uint32_t cp)
{
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
    return 0;
  /* Line and paragraph separators, and the embeddings, overrides and
   * isolates of Unicode's bidirectional algorithm. */
  if (cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069))
    return 0;
  return 1;
}

/* The length of the character at s (len > 0 bytes left) and whether it is
 * shown as itself; else it is shown as one '?'. */
static size_t next_char(const char *s, size_t len, int *as_is)
{
  uint32_t cp;
  int n = utf8_decode(s, len, &cp);

  *as_is = n > 0 && shown_as_is(cp);
  return n > 0 ? (size_t)n : 1;
}

char *term_text(const char *text, char *out, size_t outlen)
{
  size_t len = text ? strlen(text) : 0, n = 0;

  if (outlen == 0)
    return out;
  for (size_t i = 0; i < len;) {
    int as_is;
    size_t k = next_char(text + i, len - i, &as_is);
    size_t w = as_is ? k : 1;
    if (n + w >= outlen)
      break;
    if (as_is)
      memcpy(out + n, text + i, k);
    else
      out[n] = '?';
    n += w;
    i += k;
  }
  out[n] = '\0';
  return out;
}

void term_text_put(FILE *f, const char *text)
{
  size_t len = text ? strlen(text) : 0;

  for (size_t i = 0; i < len;) {
    int as_is;
    size_t k = next_char(text + i, len - i, &as_is);
    if (as_is)
      fwrite(text + i, 1, k, f);
    else
      fputc('?', f);
    i += k;
  }
}
