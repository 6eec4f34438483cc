/* evidence/validate's own semantics, on small schemas and documents:
 * types, the keywords it supports and their edges, and a schema nested
 * too deep. */
#include <stdio.h>
#include <string.h>

#include "evidence/schema/validate.h"
#include "tests/lib_validate.h"
#include "tests/tap.h"

/* ---- the validator's semantics ---- */

struct semantic {
  const char *schema;
  const char *doc;
  int rc;
  const char *message; /* a message containing this, or NULL */
};

static const struct semantic semantics[] = {
    /* type arrays; integer is json-c's integer type */
    {"{\"type\": [\"integer\", \"null\"]}", "1", 0, NULL},
    {"{\"type\": [\"integer\", \"null\"]}", "null", 0, NULL},
    {"{\"type\": [\"integer\", \"null\"]}", "1.5", 1,
     "expected integer or null, got number 1.5"},
    {"{\"type\": [\"integer\", \"null\"]}", "\"1\"", 1, "got string"},
    {"{\"type\": \"integer\"}", "1.0", 1, "got number 1.0"},
    {"{\"type\": \"number\"}", "1", 0, NULL},
    {"{\"type\": \"number\"}", "1.5", 0, NULL},
    {"{\"type\": \"boolean\"}", "0", 1, "expected boolean"},
    {"true", "[1, {}]", 0, NULL},
    {"false", "1", 1, "at (root): not allowed here"},
    /* oneOf: exactly one */
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "-1", 0, NULL},
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "2.5", 0,
     NULL},
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "5", 1,
     "matches 2 of the 2 alternatives of oneOf (1 and 2)"},
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "-1.5", 1,
     "matches none of the 2 alternatives"},
    {"{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"object\", "
     "\"required\": [\"a\"]}]}",
     "{}", 1, "at /a: required property is missing"},
    /* $ref */
    {"{\"$defs\": {\"pos\": {\"type\": \"integer\", \"minimum\": 1}}, "
     "\"properties\": {\"a\": {\"$ref\": \"#/$defs/pos\"}}}",
     "{\"a\": 0}", 1, "at /a: 0 is less than the minimum 1"},
    {"{\"$defs\": {\"pos\": {\"type\": \"integer\", \"minimum\": 1}}, "
     "\"properties\": {\"a\": {\"$ref\": \"#/$defs/pos\"}}}",
     "{\"a\": 3}", 0, NULL},
    {"{\"$defs\": {\"a~b/c\": {\"const\": 1}}, \"$ref\": "
     "\"#/$defs/a~0b~1c\"}",
     "2", 1, "expected 1, got 2"},
    {"{\"$defs\": {\"x\": {\"maximum\": 3}}, \"$ref\": \"#/$defs/x\", "
     "\"minimum\": 2}",
     "4", 1, "greater than the maximum 3"},
    /* additionalProperties as a schema; required; pointers escaped */
    {"{\"additionalProperties\": {\"type\": \"string\"}}",
     "{\"x\": \"a\", \"y\": 1}", 1, "at /y: expected string"},
    {"{\"properties\": {\"x\": {}}, \"additionalProperties\": false}",
     "{\"x\": 1, \"a/b~c\": 2}", 1, "at /a~1b~0c: property is not allowed"},
    {"{\"required\": [\"a\", \"b\"]}", "{\"a\": 1}", 1,
     "at /b: required property is missing"},
    {"{\"required\": [\"a\"]}", "[]", 0, NULL},
    /* items */
    {"{\"items\": {\"type\": \"integer\"}}", "[1, \"a\", 3, null]", 1,
     "at /1: expected integer"},
    {"{\"items\": {\"type\": \"integer\"}}", "[1, \"a\", 3, null]", 1,
     "at /3: expected integer, got null"},
    {"{\"items\": {\"type\": \"integer\"}}", "[]", 0, NULL},
    /* minimum and maximum are inclusive; 64-bit integers are exact */
    {"{\"minimum\": 0, \"maximum\": 10}", "0", 0, NULL},
    {"{\"minimum\": 0, \"maximum\": 10}", "10", 0, NULL},
    {"{\"minimum\": 0, \"maximum\": 10}", "10.5", 1, "greater than"},
    {"{\"minimum\": 0, \"maximum\": 10}", "-0.5", 1, "less than"},
    {"{\"minimum\": 0.5}", "0", 1, "0 is less than the minimum 0.5"},
    {"{\"maximum\": 9223372036854775807}", "9223372036854775808", 1,
     "9223372036854775808 is greater than the maximum"},
    {"{\"maximum\": 9223372036854775807}", "9223372036854775807", 0, NULL},
    {"{\"minimum\": -9223372036854775807}", "-9223372036854775807", 0, NULL},
    {"{\"minimum\": 0}", "\"-1\"", 0, NULL},
    /* enum and const compare JSON values */
    {"{\"enum\": [\"a\", 1, null]}", "1.0", 0, NULL},
    {"{\"enum\": [\"a\", 1, null]}", "\"b\"", 1,
     "\"b\" is not one of: \"a\", 1, null"},
    {"{\"const\": {\"a\": [1, 2]}}", "{\"a\": [1, 2]}", 0, NULL},
    {"{\"const\": {\"a\": [1, 2]}}", "{\"a\": [2, 1]}", 1, "expected"},
    /* lengths count characters */
    {"{\"minLength\": 2, \"maxLength\": 2}", "\"\xc3\xa9\xc3\xa9\"", 0, NULL},
    {"{\"maxLength\": 1}", "\"\xc3\xa9\xc3\xa9\"", 1,
     "2 characters, more than the maximum length 1"},
    {"{\"minLength\": 1}", "\"\"", 1, "fewer than the minimum length 1"},
    {"{\"maxLength\": 2.0}", "\"abc\"", 1, "more than the maximum length 2"},
    {"{\"enum\": []}", "1", 1, "1 is not allowed (the enum is empty)"},
    /* patterns */
    {"{\"pattern\": \"^[0-9a-f]{64}$\"}",
     "\"0fcf0fc3370aa2a8a00f1a63d92b40158df936313fc2a1f89151c4a5fc1683e5\"", 0,
     NULL},
    {"{\"pattern\": \"^[0-9a-f]{64}$\"}",
     "\"0fcf0fc3370aa2a8a00f1a63d92b40158df936313fc2a1f89151c4a5fc1683e5"
     "0\"",
     1, "does not match"},
    {"{\"pattern\": \"b+c\"}", "\"abbbcd\"", 0, NULL},
    {"{\"pattern\": \"^b+c\"}", "\"abbbcd\"", 1, "does not match"},
    {"{\"pattern\": \"^a.c$\"}", "\"a\\nc\"", 1, "does not match"},
    {"{\"pattern\": \"^a.c$\"}", "\"a-c\"", 0, NULL},
    {"{\"pattern\": \"^\\\\d{2,3}[^a-z]?x*$\"}", "\"123Q\"", 0, NULL},
    {"{\"pattern\": \"^\\\\d{2,3}[^a-z]?x*$\"}", "\"1234q\"", 1,
     "does not match"},
    {"{\"pattern\": \"^[\\\\w.-]+$\"}", "\"build/x\"", 1, "does not match"},
    {"{\"pattern\": \"^[\\\\w.-]+$\"}", "\"a_b.c-d\"", 0, NULL},
    {"{\"pattern\": \"^a*a*a*a*a*a*a*a*a*a*a*a*b$\"}",
     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", 1,
     "does not match"},
    {"{\"pattern\": \"\\\\$\\\\.\\\\{\"}", "\"x$.{\"", 0, NULL},
    {"{\"pattern\": \"^(a|b)+$\"}", "\"abba\"", 0, NULL},
    {"{\"pattern\": \"a{2000}\"}", "\"a\"", 1, "does not match"},
    {"{\"pattern\": \"^a$\"}", "\"a\\n\"", 1, "does not match"},
    {"{\"pattern\": \"^.$\"}", "\"\xc3\xa9\"", 0, NULL},
    {"{\"pattern\": \"^(a+)+$\"}", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"",
     1, "matching it stopped (match limit exceeded)"},
    /* schemas outside the subset, or broken, are refused */
    {"{\"allOf\": []}", "1", -1, "schema: at /allOf: unsupported keyword"},
    {"{\"pattern\": \"(a|b\"}", "\"a\"", -1,
     "schema: at /pattern: pattern '(a|b' does not compile: missing closing "
     "parenthesis at offset 4"},
    {"{\"pattern\": \"a{3,2}\"}", "\"a\"", -1, "numbers out of order"},
    {"{\"pattern\": \"[a-\"}", "\"a\"", -1, "missing terminating ]"},
    {"{\"pattern\": \"a**\"}", "\"a\"", -1, "does not follow a repeatable"},
    {"{\"pattern\": \"\\\\q\"}", "\"a\"", -1, "unrecognized character"},
    {"{\"type\": \"int\"}", "1", -1, "unknown type 'int'"},
    {"{\"type\": 5}", "1", -1, "'type' must be"},
    {"{\"required\": [\"a\", \"a\"]}", "{}", -1, "listed twice"},
    {"{\"minLength\": -1}", "\"\"", -1, "'minLength' must be"},
    {"{\"items\": [{}]}", "[]", -1, "prefixItems"},
    {"{\"oneOf\": []}", "1", -1, "non-empty array"},
    {"{\"$ref\": \"#/$defs/nope\"}", "1", -1, "does not name a schema"},
    {"{\"$ref\": \"http://example.com/s.json\"}", "1", -1,
     "does not name a schema"},
    {"{\"properties\": {\"a\": {\"$defs\": {}}}}", "1", -1, "only at the root"},
    {"[]", "1", -1, "a schema must be an object or a boolean"},
    {"{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/a\"}}, \"$ref\": "
     "\"#/$defs/a\"}",
     "1", -1, "$ref cycle"},
    {"{\"$defs\": {\"n\": {\"oneOf\": [{\"items\": {\"$ref\": "
     "\"#/$defs/n\"}}, {\"items\": {\"$ref\": \"#/$defs/n\"}}]}}, \"$ref\": "
     "\"#/$defs/n\"}",
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     -1, "evaluation stopped after"},
};

/* validate_document_checked, on a schema validate_schema accepts, gives
 * validate_document's verdict and messages; a schema it refuses is refused
 * by validate_document each time, not only the first. */
static void same_when_checked(json_object *s, json_object *d, size_t i)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT,
                         checked = VALIDATE_ERRORS_INIT;
  int rc = validate_document(s, d, &e), same;

  if (validate_schema(s, &checked) != 0) {
    validate_errors_release(&checked);
    validate_errors_release(&e);
    rc = validate_document(s, d, &e);
    TAP_OK(rc == -1 && e.n > 0 && strncmp(e.messages[0], "schema: ", 8) == 0,
           "semantics %zu: the unusable schema is refused again", i);
    validate_errors_release(&e);
    return;
  }
  same = validate_document_checked(s, d, &checked) == rc &&
         checked.total == e.total && checked.n == e.n;
  for (int k = 0; same && k < e.n; k++)
    same = strcmp(checked.messages[k], e.messages[k]) == 0;
  TAP_OK(same, "semantics %zu: the same verdict and %d messages unchecked", i,
         e.total);
  validate_errors_release(&checked);
  validate_errors_release(&e);
}

static void test_semantics(void)
{
  char deep_schema[8192];
  size_t n = 0;

  for (size_t i = 0; i < sizeof(semantics) / sizeof(semantics[0]); i++) {
    const struct semantic *t = &semantics[i];
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    json_object *s = vtest_parse(t->schema);
    json_object *d = vtest_parse(t->doc);
    int rc;

    if ((s == NULL && strcmp(t->schema, "null") != 0) ||
        (d == NULL && strcmp(t->doc, "null") != 0)) {
      TAP_OK(0, "semantics %zu: test JSON parses", i);
      json_object_put(s);
      json_object_put(d);
      continue;
    }
    rc = validate_document(s, d, &e);
    if (!TAP_OK(rc == t->rc &&
                    (t->message == NULL ? e.total == 0
                                        : vtest_has_error(&e, t->message)),
                "%s against %.60s: %s", t->doc, t->schema,
                t->message ? t->message : "valid"))
      vtest_show_errors(&e, 10);
    validate_errors_release(&e);
    same_when_checked(s, d, i);
    json_object_put(s);
    json_object_put(d);
  }

  /* A schema nested 70 levels deep is refused, not followed. */
  for (int i = 0; i < 70; i++)
    n += (size_t)snprintf(deep_schema + n, sizeof(deep_schema) - n,
                          "{\"items\": ");
  n += (size_t)snprintf(deep_schema + n, sizeof(deep_schema) - n, "true");
  for (int i = 0; i < 70; i++)
    n += (size_t)snprintf(deep_schema + n, sizeof(deep_schema) - n, "}");
  {
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    json_object *s = vtest_parse(deep_schema);
    json_object *d = json_object_new_array();
    TAP_OK(s != NULL && validate_document(s, d, &e) == -1 &&
               vtest_has_error(&e, "nested deeper than 64 levels"),
           "a schema nested 70 levels deep is refused");
    validate_errors_release(&e);
    json_object_put(s);
    json_object_put(d);
  }
}

int main(void)
{
  test_semantics();
  return tap_done();
}
