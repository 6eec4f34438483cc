/* The validator's entry points that touch files: reading a JSON document
 * with the one reader of evidence/base/json_read.h, and validating one file
 * against a schema file. The checks themselves are in
 * evidence/schema/validate_schema.c and evidence/schema/validate_document.c. */
#include "evidence/schema/validate.h"

#include <stdio.h>

#include "evidence/base/json_read.h"
#include "evidence/check/figures.h"
#include "evidence/schema/validate_ctx.h"

int validate_read_json(const char *path, json_object **doc,
                       struct validate_errors *out, char *err, size_t errlen)
{
  char why[VALIDATE_MESSAGE_MAX];

  switch (json_read_file(path, JSON_READ_MAX_BYTES, doc, why, sizeof(why))) {
  case 0:
    return 0; /* *doc NULL for a document that is just null */
  case JSON_READ_EREAD:
  case JSON_READ_ENOMEM:
    snprintf(err, errlen, "%s", why);
    return -1;
  default:
    validate_errors_addf(out, "%s", why);
    return 1;
  }
}

static void add_finding(void *ctx, const struct figures_finding *f)
{
  validate_errors_addf(ctx, "%s", f->message);
}

int validate_figures(json_object *doc, struct validate_errors *out)
{
  return figures_check(doc, add_finding, out) > 0;
}

int validate_file(const char *schema_path, const char *doc_path,
                  struct validate_errors *out, char *err, size_t errlen)
{
  struct validate_errors schema_errors = VALIDATE_ERRORS_INIT;
  json_object *schema = NULL, *doc = NULL;
  char why[512];
  int rc;

  rc = validate_read_json(schema_path, &schema, &schema_errors, why,
                          sizeof(why));
  if (rc == 0 && validate_schema(schema, &schema_errors) != 0)
    rc = 1;
  if (rc != 0) {
    snprintf(err, errlen, "schema '%s': %s%s", schema_path,
             rc < 0                ? why
             : schema_errors.n > 0 ? schema_errors.messages[0]
                                   : "unusable",
             schema_errors.total > 1 ? " (and more)" : "");
    validate_errors_move(out, &schema_errors);
    json_object_put(schema);
    return -1;
  }
  rc = validate_read_json(doc_path, &doc, out, why, sizeof(why));
  if (rc < 0)
    snprintf(err, errlen, "'%s': %s", doc_path, why);
  if (rc == 0) {
    rc = validate_document_checked(schema, doc, out);
    if (rc == 0)
      rc = validate_figures(doc, out);
    if (rc < 0)
      snprintf(err, errlen, "schema '%s': cannot be evaluated on '%s'",
               schema_path, doc_path);
  }
  json_object_put(doc);
  json_object_put(schema);
  return rc;
}
