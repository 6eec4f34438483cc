/* `crossrun validate` on an evidence file: read as a file within the
 * reader's limits (evidence/schema/validate.c), then validated against the
 * repository's evidence/schema.json (evidence/schema/validate_document.c and
 * the pattern matcher).
 *
 * Properties: the schema is usable; a document is either read or refused
 * with a reason; validation says valid (0) or invalid (1) and never that
 * the schema cannot be used; "valid" comes with no message and "invalid"
 * with at least one; every message is one ended line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/schema/validate.h"
#include "tests/fuzz/fuzz.h"

#ifndef FUZZ_SOURCE_ROOT
#define FUZZ_SOURCE_ROOT "."
#endif

static json_object *schema;

static void check_messages(const struct validate_errors *e)
{
  FUZZ_CHECK(e->n <= VALIDATE_MAX_ERRORS && e->n <= e->total,
             "more messages kept than found or allowed");
  for (int i = 0; i < e->n; i++)
    FUZZ_CHECK(strchr(e->messages[i], '\n') == NULL &&
                   strlen(e->messages[i]) < VALIDATE_MESSAGE_MAX + 4,
               "a message is not one short line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *doc = NULL;
  const char *path;
  char err[512];
  int rc;

  if (schema == NULL) {
    const char *root = getenv("CROSSRUN_ROOT");
    char file[4096];
    snprintf(file, sizeof(file), "%s/evidence/schema.json",
             root && *root ? root : FUZZ_SOURCE_ROOT);
    schema = json_object_from_file(file);
    FUZZ_CHECK(schema != NULL, "evidence/schema.json cannot be read");
    FUZZ_CHECK(validate_schema(schema, &e) == 0, "the schema is not usable");
    validate_errors_release(&e);
  }

  path = fuzz_file("evidence.json", data, size);
  rc = validate_read_json(path, &doc, &e, err, sizeof(err));
  FUZZ_CHECK(rc == 0 || rc == 1, "a file that was written cannot be read");
  if (rc == 1) {
    FUZZ_CHECK(e.n >= 1, "a refused file without a reason");
    check_messages(&e);
    validate_errors_release(&e);
    return 0;
  }
  rc = validate_document_checked(schema, doc, &e);
  FUZZ_CHECK(rc == 0 || rc == 1, "the schema was called unusable");
  FUZZ_CHECK((rc == 0) == (e.total == 0),
             "the verdict disagrees with the messages");
  check_messages(&e);
  validate_errors_release(&e);
  json_object_put(doc);
  return 0;
}
