/* The one reader of the JSON documents crossrun is given
 * (evidence/base/json_read.c): its text rules and its parser, on any bytes.
 *
 * Properties: the text rules accept exactly the bytes that are UTF-8 with
 * no NUL (checked against this harness's own decoder), and name the first
 * byte that breaks them; a document the parser accepts is such text,
 * prints as UTF-8, and reads back as a document that prints the same; a
 * refusal is one ended line. */
#include <stdlib.h>
#include <string.h>

#include "evidence/base/json_read.h"
#include "tests/fuzz/fuzz.h"

static int text_ok(const char *s, size_t len)
{
  return memchr(s, '\0', len) == NULL && fuzz_utf8_valid(s, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data, *what = NULL;
  json_object *doc = NULL, *again = NULL;
  size_t at = (size_t)-1;
  char err[512];
  int ok = text_ok(text, size);

  if (json_read_check_text(text, size, &at, &what) == 0) {
    FUZZ_CHECK(ok, "text that is not UTF-8 or holds a NUL was accepted");
  } else {
    FUZZ_CHECK(!ok, "UTF-8 text without a NUL was refused");
    FUZZ_CHECK(at < size && what != NULL, "a refusal that names no byte");
    FUZZ_CHECK(text_ok(text, at), "the byte named is not the first bad one");
  }

  memset(err, 'x', sizeof(err));
  if (json_read_parse(text, size, &doc, err, sizeof(err)) != 0) {
    FUZZ_CHECK(doc == NULL, "a refusal with a document");
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the error is not ended");
    FUZZ_CHECK(strchr(err, '\n') == NULL, "the error is not one line");
    return 0;
  }
  FUZZ_CHECK(ok, "a document read from text that breaks the text rules");
  {
    size_t len;
    const char *printed =
        json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
    FUZZ_CHECK(printed != NULL && fuzz_utf8_valid(printed, len),
               "a document read prints as something that is not UTF-8");
    FUZZ_CHECK(json_read_parse(printed, len, &again, err, sizeof(err)) == 0,
               "a document read does not read back from its printed form");
    /* Printed forms, not json_object_equal: NaN, which the reader leaves
     * to its callers to refuse with the member's name, is not equal to
     * itself. */
    FUZZ_CHECK(
        strcmp(json_object_to_json_string_ext(again, JSON_C_TO_STRING_PLAIN),
               printed) == 0,
        "a document read back prints differently");
  }
  json_object_put(again);
  json_object_put(doc);
  return 0;
}
