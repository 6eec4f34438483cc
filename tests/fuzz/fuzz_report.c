/* `crossrun report` on an evidence document (evidence/report/report_model.c and
 * the readers it uses), then every renderer on what was read: Markdown,
 * HTML and JUnit XML.
 *
 * Properties: a refused document says why in one ended line; a read one
 * renders in every format without a write error, as valid UTF-8 (the
 * renderers promise to turn every byte that is not into U+FFFD). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/report/report.h"
#include "tests/fuzz/fuzz.h"

static void render(const struct report *r,
                   int (*renderer)(const struct report *, FILE *))
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);

  if (f == NULL)
    return;
  FUZZ_CHECK(renderer(r, f) == 0, "a renderer failed to write");
  fclose(f);
  FUZZ_CHECK(fuzz_utf8_valid(out, len), "a rendered report is not UTF-8");
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct report r;
  char err[512];

  report_init(&r);
  memset(err, 'x', sizeof(err));
  if (report_parse(&r, "evidence.json", (const char *)data, size, err,
                   sizeof(err)) != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the error is not ended");
    FUZZ_CHECK(strchr(err, '\n') == NULL, "the error is not one line");
    report_release(&r);
    return 0;
  }
  render(&r, report_markdown);
  render(&r, report_html);
  render(&r, report_junit);
  report_release(&r);
  return 0;
}
