/* JSON's grammar as crossrun holds a peer's result line to it
 * (evidence/base/json_syntax.c), on any bytes.
 *
 * Properties: text it accepts is UTF-8 with no NUL, and json-c's strict
 * parser (which reads more than JSON, never less) reads all of it, with at
 * most as many members as counted (fewer only when a key came twice), and
 * prints it as text it accepts again with the same count; a refusal names
 * a byte within the text and a reason; the result does not depend on what
 * follows the text in memory. */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/base/json_syntax.h"
#include "tests/fuzz/fuzz.h"

#define DEPTH 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* A copy of exactly size bytes, so that ASan sees a read past them. */
  char *text = malloc(size ? size : 1);
  struct json_syntax syn;
  struct json_tokener *tok;
  json_object *doc;

  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  if (json_syntax_check(text, size, DEPTH, &syn) != 0) {
    FUZZ_CHECK(syn.what != NULL && syn.at <= size,
               "a refusal that names no byte or no reason");
    free(text);
    return 0;
  }
  FUZZ_CHECK(syn.what == NULL && syn.at == size, "an accepted text ends early");
  FUZZ_CHECK(memchr(text, '\0', size) == NULL && fuzz_utf8_valid(text, size),
             "text that is not UTF-8 or holds a NUL was accepted");
  tok = json_tokener_new_ex(DEPTH + 2);
  FUZZ_CHECK(tok != NULL, "out of memory");
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
  doc = json_tokener_parse_ex(tok, text, (int)size);
  if (doc == NULL && json_tokener_get_error(tok) == json_tokener_continue)
    /* A number at the very end: json-c waits for more, as a stream. */
    doc = json_tokener_parse_ex(tok, "", 1);
  FUZZ_CHECK(json_tokener_get_error(tok) == json_tokener_success,
             "JSON that json-c's strict parser refuses was accepted");
  FUZZ_CHECK(json_syntax_members(doc) <= syn.members,
             "json-c holds more members than the text");
  {
    size_t len;
    const char *printed =
        json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
    struct json_syntax again;
    /* json-c prints a double it read as the text it read ("1E400"), and
     * NaN and Infinity only for values JSON cannot hold; both are JSON
     * here, since the text was. */
    FUZZ_CHECK(printed != NULL &&
                   json_syntax_check(printed, len, DEPTH, &again) == 0,
               "what json-c prints of it is not JSON");
    FUZZ_CHECK(again.members == json_syntax_members(doc),
               "json-c's print of it counts other members");
  }
  json_object_put(doc);
  json_tokener_free(tok);
  free(text);
  return 0;
}
