/* The evidence scrubber (evidence/write/sanitize.c) on text a peer printed.
 *
 * Input: the first byte picks the output buffer's size and whether the
 * text is a peer's (sanitize_text) or the runner's (sanitize_message);
 * then the values to replace, one a line (each by "~": absolute ones are
 * folders, others names), a NUL byte, and the text. Without a NUL,
 * everything after the first byte is text and nothing is replaced.
 *
 * Properties: the output ends within the buffer, is valid UTF-8, and holds
 * no absolute path that still names a folder ("/x/y" at the start of a
 * word: every such path keeps only its last component); text that holds
 * no '/' and none of the values is never changed (scrubbing is by place
 * and by the values given, nothing else); a message keeps every name. */
#include <stdlib.h>
#include <string.h>

#include "evidence/write/sanitize.h"
#include "tests/fuzz/fuzz.h"

static const char *const delimiters = " \t\n'\"),;]"; /* where a path ends */
static const char *const word_start = " \t\n'\"(=:,[";

static void check_no_folder(const char *out)
{
  for (const char *p = out; *p != '\0'; p++) {
    if (*p != '/' || (p > out && strchr(word_start, p[-1]) == NULL) ||
        p[1] == '\0' || p[1] == ' ' || p[1] == '/')
      continue;
    for (const char *q = p + 1; *q != '\0' && strchr(delimiters, *q) == NULL;
         q++)
      FUZZ_CHECK(*q != '/', "an absolute path kept a folder");
  }
}

/* Whether text holds a value of s that may be replaced there: any folder,
 * and a name (in any case) when the text is a peer's. */
static int holds_a_value(const struct sanitize *s, const char *text, int peer)
{
  for (int i = 0; i < s->nrules; i++)
    if (s->rules[i].kind == SANITIZE_FOLDER
            ? strstr(text, s->rules[i].from) != NULL
            : peer && strcasestr(text, s->rules[i].from) != NULL)
      return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const size_t sizes[] = {1, 2, 3, 4, 5, 8, 16, 64, 4096};
  struct sanitize s;
  const uint8_t *nul;
  char *text, *out;
  size_t outlen;

  if (size < 1)
    return 0;
  size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
  int peer = (data[0] / nsizes) % 2 == 0;

  outlen = sizes[data[0] % nsizes];
  data++;
  size--;

  memset(&s, 0, sizeof(s));
  nul = memchr(data, '\0', size);
  if (nul != NULL) {
    char *rules = malloc((size_t)(nul - data) + 1);
    if (rules == NULL)
      return 0;
    memcpy(rules, data, (size_t)(nul - data));
    rules[nul - data] = '\0';
    for (char *line = strtok(rules, "\n"); line; line = strtok(NULL, "\n"))
      sanitize_add(&s, line, "~");
    free(rules);
    size -= (size_t)(nul - data) + 1;
    data = nul + 1;
  }

  text = malloc(size + 1);
  out = malloc(outlen);
  if (text == NULL || out == NULL) {
    free(text);
    free(out);
    sanitize_release(&s);
    return 0;
  }
  memcpy(text, data, size);
  text[size] = '\0'; /* the text ends at its first NUL, as in C */

  if (peer)
    sanitize_text(&s, text, out, outlen);
  else
    sanitize_message(&s, text, out, outlen);
  FUZZ_CHECK(memchr(out, '\0', outlen) != NULL, "the output is not ended");
  FUZZ_CHECK(fuzz_utf8_valid(out, strlen(out)), "the output is not UTF-8");
  check_no_folder(out);

  /* What the scrubber has no reason to touch stays as it was. */
  if (strchr(text, '/') == NULL && strchr(text, '\\') == NULL &&
      strlen(text) < outlen && fuzz_utf8_valid(text, strlen(text)) &&
      !holds_a_value(&s, text, peer))
    FUZZ_CHECK(strcmp(out, text) == 0,
               "UTF-8 text without paths or the values was changed");

  sanitize_release(&s);
  free(text);
  free(out);
  return 0;
}
