/* The bounded capture of a peer's stdout and stderr (runner/capture.c).
 *
 * Input: two bytes choose the capture's limit (2 to 4097) and the size of
 * the buffer it is read into (1 to 4096); the rest is the stream, cut into
 * the chunks a pipe would deliver wherever a 0xFF byte stands (the byte
 * itself delivered too).
 *
 * Properties: the total counts every byte; what is kept is the stream's
 * first bytes and its last ones, and all of it when nothing was dropped;
 * the text and the first line end within their buffers, and the first
 * line has no newline. */
#include <stdlib.h>
#include <string.h>

#include "evidence/model/capture.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct capture c = CAPTURE_INIT;
  size_t limit, outlen, start, len;
  const char *stream;
  char *out;

  if (size < 2)
    return 0;
  limit = 2 + (size_t)(data[0] * 16 + data[0] % 16) % 4096;
  outlen = 1 + (size_t)(data[1] * 16 + data[1] % 16) % 4096;
  stream = (const char *)data + 2;
  len = size - 2;
  if (capture_alloc(&c, limit) != 0)
    return 0;
  start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || (unsigned char)stream[i] == 0xFF) {
      size_t end = i < len ? i + 1 : i;
      capture_append(&c, stream + start, end - start);
      start = end;
    }
  }
  FUZZ_CHECK(c.total == len, "the total is not every byte");
  FUZZ_CHECK(c.head_len <= limit / 2 && c.tail_len <= limit - limit / 2,
             "the capture kept more than its limit");
  FUZZ_CHECK(capture_truncated(&c) == (len > c.head_len + c.tail_len),
             "truncated says something else than the counts");

  out = malloc(outlen);
  if (out != NULL) {
    size_t n = capture_text(&c, out, outlen);
    FUZZ_CHECK(n < outlen && out[n] == '\0', "the text is not ended");
    if (!capture_truncated(&c)) {
      size_t want = len < outlen - 1 ? len : outlen - 1;
      FUZZ_CHECK(n == want && memcmp(out, stream, n) == 0,
                 "the text of a stream kept whole is not the stream");
    } else {
      size_t head = c.head_len < outlen - 1 ? c.head_len : outlen - 1;
      FUZZ_CHECK(memcmp(out, stream, head) == 0,
                 "the text does not begin with the stream's first bytes");
      if (c.head_len + c.tail_len + 64 < outlen) {
        /* Room for all of it and the marker: the text ends with the
         * stream's last bytes. */
        FUZZ_CHECK(n >= c.tail_len &&
                       memcmp(out + n - c.tail_len, stream + len - c.tail_len,
                              c.tail_len) == 0,
                   "the text does not end with the stream's last bytes");
      }
    }
    n = capture_first_line(&c, out, outlen);
    FUZZ_CHECK(n < outlen && out[n] == '\0' && memchr(out, '\n', n) == NULL,
               "the first line is not one ended line");
    FUZZ_CHECK(memcmp(out, stream, n) == 0,
               "the first line is not the stream's beginning");
    free(out);
  }
  capture_release(&c);
  return 0;
}
