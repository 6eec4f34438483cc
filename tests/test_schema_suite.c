/* evidence/validate against the JSON Schema Test Suite
 * (github.com/json-schema-org/JSON-Schema-Test-Suite; Debian's
 * json-schema-test-suite installs it): every test group of the newest draft
 * installed whose schema uses only the keywords evidence/schema/validate.h
 * supports, each test's document validated and the suite's verdict
 * asserted. A group that uses any other keyword is skipped and counted by
 * that keyword; a test where the validator departs from the suite on
 * purpose (evidence/SCHEMA.md, "Stricter than the standard") is skipped
 * with that reason. The optional/ folder (formats, bignums, ECMA-262 corner
 * cases) is not run. CROSSRUN_SCHEMA_SUITE names the suite's tests folder
 * when it is not where Debian puts it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evidence/schema/validate.h"
#include "tests/tap.h"

/* Where packages install the suite's tests folder. */
static const char *const suite_dirs[] = {
    "/usr/share/json-schema-test-suite/tests",
    "/usr/local/share/json-schema-test-suite/tests",
};

/* The drafts closest to the validator's (a subset of 2020-12) first; for the
 * keywords it supports, draft 7 means the same. */
static const char *const drafts[] = {"draft2020-12", "draft2019-09", "draft7"};

/* Keywords whose value is not a schema, and the annotations. */
static const char *const leaf_keywords[] = {
    "type",    "required",  "enum",      "const",   "minimum",
    "maximum", "minLength", "maxLength", "pattern", "description",
    "title",   "$comment",  "$schema",   "$id",
};

/* Tests where the validator is stricter than the standard on purpose: the
 * file, the group's and the test's descriptions (NULL: every test of the
 * group), and the reason. */
struct restriction {
  const char *file;
  const char *group;
  const char *test;
  const char *reason;
};

static const struct restriction restrictions[] = {
    {"type.json", "integer type matches integers",
     "a float with zero fractional part is an integer",
     "evidence/SCHEMA.md: 'integer' is json-c's integer type, 1.0 is a "
     "number"},
    {"pattern.json",
     "pattern with Unicode property escape requires unicode "
     "mode",
     NULL,
     "evidence/SCHEMA.md: property escapes take PCRE2's names (\\p{L}, not "
     "\\p{Letter})"},
};

#define MAX_SKIP_REASONS 64

/* Groups skipped, counted by reason. */
struct skips {
  char reason[MAX_SKIP_REASONS][96];
  int count[MAX_SKIP_REASONS];
  int n;
};

static struct skips group_skips;
static int groups_run, tests_run, tests_skipped;

static void skip_count(struct skips *s, const char *reason)
{
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->reason[i], reason) == 0) {
      s->count[i]++;
      return;
    }
  if (s->n < MAX_SKIP_REASONS) {
    snprintf(s->reason[s->n], sizeof(s->reason[0]), "%s", reason);
    s->count[s->n++] = 1;
  }
}

static int is_leaf_keyword(const char *key)
{
  for (size_t i = 0; i < sizeof(leaf_keywords) / sizeof(leaf_keywords[0]); i++)
    if (strcmp(key, leaf_keywords[i]) == 0)
      return 1;
  return 0;
}

/* Writes into why (and returns 1) the first thing in schema s outside what
 * the validator supports; 0 when there is none. */
static int unsupported(json_object *s, char *why, size_t whylen)
{
  if (!json_object_is_type(s, json_type_object))
    return 0; /* a boolean schema, or a malformed one the validator judges */
  json_object_object_foreach(s, key, v)
  {
    if (strcmp(key, "$schema") == 0 &&
        strncmp(json_object_get_string(v), "http://json-schema.org/", 23) !=
            0 &&
        strncmp(json_object_get_string(v), "https://json-schema.org/", 24) !=
            0) {
      /* The validator reads $schema as an annotation: a metaschema of the
       * group's own (vocabularies) is outside what it does. */
      snprintf(why, whylen, "$schema naming a metaschema of its own");
      return 1;
    }
    if (is_leaf_keyword(key))
      continue;
    if (strcmp(key, "$ref") == 0) {
      const char *ref = json_object_get_string(v);
      if (strncmp(ref, "#/$defs/", 8) != 0 || strchr(ref + 8, '/') != NULL ||
          strchr(ref, '%') != NULL) {
        snprintf(why, whylen, "$ref other than #/$defs/NAME");
        return 1;
      }
    } else if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
      if (!json_object_is_type(v, json_type_object))
        continue;
      json_object_object_foreach(v, name, sub)
      {
        (void)name;
        if (unsupported(sub, why, whylen))
          return 1;
      }
    } else if (strcmp(key, "additionalProperties") == 0 ||
               strcmp(key, "items") == 0) {
      if (strcmp(key, "items") == 0 &&
          json_object_is_type(v, json_type_array)) {
        snprintf(why, whylen, "items as an array of schemas");
        return 1;
      }
      if (unsupported(v, why, whylen))
        return 1;
    } else if (strcmp(key, "oneOf") == 0) {
      for (size_t i = 0; json_object_is_type(v, json_type_array) &&
                         i < json_object_array_length(v);
           i++)
        if (unsupported(json_object_array_get_idx(v, i), why, whylen))
          return 1;
    } else {
      snprintf(why, whylen, "unsupported keyword '%s'", key);
      return 1;
    }
  }
  return 0;
}

/* The reason a test departs from the suite on purpose, or NULL. */
static const char *restricted(const char *file, const char *group,
                              const char *test)
{
  for (size_t i = 0; i < sizeof(restrictions) / sizeof(restrictions[0]); i++)
    if (strcmp(file, restrictions[i].file) == 0 &&
        strcmp(group, restrictions[i].group) == 0 &&
        (restrictions[i].test == NULL ||
         strcmp(test, restrictions[i].test) == 0))
      return restrictions[i].reason;
  return NULL;
}

static const char *text_at(json_object *o, const char *key)
{
  json_object *v;
  if (!json_object_object_get_ex(o, key, &v) ||
      !json_object_is_type(v, json_type_string))
    return "?";
  return json_object_get_string(v);
}

static void run_test(const char *draft, const char *file, const char *group,
                     json_object *schema, json_object *t)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  const char *name = text_at(t, "description"), *reason;
  json_object *data = NULL, *valid = NULL;
  int want, rc;

  reason = restricted(file, group, name);
  if (reason != NULL) {
    tests_skipped++;
    TAP_OK(1, "%s/%s: %s: %s # SKIP %s", draft, file, group, name, reason);
    return;
  }
  if (!json_object_object_get_ex(t, "data", &data) ||
      !json_object_object_get_ex(t, "valid", &valid)) {
    TAP_OK(0, "%s/%s: %s: %s: the test has data and valid", draft, file, group,
           name);
    return;
  }
  want = json_object_get_boolean(valid) ? 0 : 1;
  tests_run++;
  rc = validate_document(schema, data, &e);
  if (!TAP_OK(rc == want, "%s/%s: %s: %s: %s", draft, file, group, name,
              want == 0 ? "valid" : "invalid")) {
    tap_diag("  validate_document returned %d", rc);
    for (int i = 0; i < e.n && i < 5; i++)
      tap_diag("  %s", e.messages[i]);
  }
  validate_errors_release(&e);
}

static void run_file(const char *draft, const char *dir, const char *file)
{
  char path[4096], why[128];
  json_object *groups;

  snprintf(path, sizeof(path), "%s/%s", dir, file);
  groups = json_object_from_file(path);
  if (!TAP_OK(json_object_is_type(groups, json_type_array),
              "%s/%s: an array of test groups", draft, file)) {
    json_object_put(groups);
    return;
  }
  for (size_t g = 0; g < json_object_array_length(groups); g++) {
    json_object *group = json_object_array_get_idx(groups, g);
    json_object *schema = NULL, *tests = NULL;
    const char *name = text_at(group, "description");

    json_object_object_get_ex(group, "schema", &schema);
    json_object_object_get_ex(group, "tests", &tests);
    if (unsupported(schema, why, sizeof(why))) {
      skip_count(&group_skips, why);
      continue;
    }
    groups_run++;
    for (size_t i = 0; json_object_is_type(tests, json_type_array) &&
                       i < json_object_array_length(tests);
         i++)
      run_test(draft, file, name, schema, json_object_array_get_idx(tests, i));
  }
  json_object_put(groups);
}

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every *.json file of dir in name order; returns how many. */
static int run_draft(const char *draft, const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *ent;
  char **names = NULL;
  size_t n = 0, cap = 0;

  if (!TAP_OK(d != NULL, "%s: the folder %s can be read", draft, dir))
    return 0;
  while ((ent = readdir(d)) != NULL) {
    size_t len = strlen(ent->d_name);
    if (len < 6 || strcmp(ent->d_name + len - 5, ".json") != 0)
      continue;
    if (n == cap) {
      char **bigger =
          realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));
      if (bigger == NULL)
        break;
      names = bigger;
    }
    names[n] = strdup(ent->d_name);
    if (names[n] != NULL)
      n++;
  }
  closedir(d);
  qsort(names, n, sizeof(*names), by_name);
  for (size_t i = 0; i < n; i++) {
    run_file(draft, dir, names[i]);
    free(names[i]);
  }
  free(names);
  return (int)n;
}

static int is_dir(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(void)
{
  const char *root = getenv("CROSSRUN_SCHEMA_SUITE");
  char dir[4096];
  const char *draft = NULL;
  int files, skipped = 0;

  if (root != NULL && *root != '\0') {
    if (!TAP_OK(is_dir(root), "CROSSRUN_SCHEMA_SUITE %s is a folder", root))
      return tap_done();
  } else {
    root = NULL;
    for (size_t i = 0; i < sizeof(suite_dirs) / sizeof(suite_dirs[0]); i++)
      if (is_dir(suite_dirs[i])) {
        root = suite_dirs[i];
        break;
      }
  }
  for (size_t i = 0; root != NULL && i < sizeof(drafts) / sizeof(drafts[0]);
       i++) {
    snprintf(dir, sizeof(dir), "%s/%s", root, drafts[i]);
    if (is_dir(dir)) {
      draft = drafts[i];
      break;
    }
  }
  if (draft == NULL && getenv("CROSSRUN_SCHEMA_SUITE") != NULL &&
      *getenv("CROSSRUN_SCHEMA_SUITE") != '\0') {
    TAP_OK(0,
           "CROSSRUN_SCHEMA_SUITE %s holds draft2020-12, draft2019-09 or "
           "draft7",
           root);
    return tap_done();
  }
  if (draft == NULL) {
    printf("ok 1 # SKIP json-schema-test-suite not installed\n");
    printf("1..1\n1 passed, 0 failed\n");
    return 0;
  }
  files = run_draft(draft, dir);
  for (int i = 0; i < group_skips.n; i++)
    skipped += group_skips.count[i];
  tap_diag("%s (%s): %d files; %d groups run (%d tests, %d more skipped on "
           "purpose), %d groups skipped",
           draft, root, files, groups_run, tests_run, tests_skipped, skipped);
  for (int i = 0; i < group_skips.n; i++)
    tap_diag("  skipped: %d group%s: %s", group_skips.count[i],
             group_skips.count[i] == 1 ? "" : "s", group_skips.reason[i]);
  TAP_OK(groups_run > 0 && tests_run > 0,
         "%s: some groups use only supported keywords", draft);
  return tap_done();
}
