/* Regressions of what the fuzz harnesses (tests/fuzz/) found, each as a
 * unit test of the module that had the bug; the inputs that found them
 * are kept in tests/fuzz/corpus/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/schema/validate.h"
#include "runner/expect.h"
#include "runner/lanes.h"
#include "runner/matrix.h"
#include "tests/tap.h"

static char dir[512];

/* Writes text to dir/name; returns the path (static storage). */
static const char *write_file(const char *name, const char *text)
{
  static char path[700];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static int one_line(const char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 0;
  return 1;
}

static const char *root(void)
{
  const char *r = getenv("CROSSRUN_ROOT");
  return r && *r ? r : ".";
}

/* A property name with newlines in an evidence file: every message about
 * it is one line, so the file cannot print lines of its own into
 * `crossrun validate`'s output (fuzz_validate). */
static void test_validate_messages_are_lines(void)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  char path[1024];
  json_object *schema, *doc;
  int rc, lines = 1;

  snprintf(path, sizeof(path), "%s/evidence/schema.json", root());
  schema = json_object_from_file(path);
  doc = json_tokener_parse(
      "{\"schema_version\": 1, "
      "\"mode\\nevidence.json: valid\\n\\r\\t\\u007f\": \"quick\", "
      "\"lanes\": {\"a\\nb\": {\"samples\\n\": 1}}}");
  if (!TAP_OK(schema != NULL && doc != NULL, "the schema and the document"))
    return;
  rc = validate_document(schema, doc, &e);
  for (int i = 0; i < e.n; i++)
    lines = lines && one_line(e.messages[i]);
  TAP_OK(rc == 1 && e.n > 0 && lines,
         "a name with control characters is invalid, and each of the %d "
         "messages is one line (first: %s)",
         e.n, e.n ? e.messages[0] : "");
  validate_errors_release(&e);
  json_object_put(doc);
  json_object_put(schema);
}

/* A quoted YAML key with a newline in a matrix file and in an --expect
 * file: the error names it on one line (fuzz_matrix, fuzz_expect). */
static void test_yaml_errors_are_lines(void)
{
  struct lanes *l = calloc(1, sizeof(*l));
  static struct expect e;
  const char *path;
  char err[512];

  path = write_file("m.yaml", "runtimes:\n  c:\n    \"se\\nver\": [x]\n");
  TAP_OK(l && matrix_load(l, path, err, sizeof(err)) == -1 &&
             strstr(err, "unknown key 'se?ver'") && one_line(err),
         "a matrix key with a newline is refused on one line: %s", err);
  if (l)
    lanes_release(l);
  free(l);
  path = write_file("e.yaml", "known_failures:\n  - lane: c-c\n"
                              "    \"o\\ns\\r\": linux\n");
  TAP_OK(expect_load(&e, path, err, sizeof(err)) == -1 &&
             strstr(err, "unknown key 'o?s?'") && one_line(err),
         "an --expect key with a newline is refused on one line: %s", err);
}

int main(void)
{
  char cmd[600];

  if (tap_mkdtemp(dir, sizeof(dir)) == NULL)
    return 1;
  test_validate_messages_are_lines();
  test_yaml_errors_are_lines();
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
