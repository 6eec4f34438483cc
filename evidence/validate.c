/* The validator's entry points that touch files: reading a JSON document
 * within the limits evidence/validate.h sets, and validating one file
 * against a schema file. The checks themselves are in
 * evidence/validate_schema.c and evidence/validate_document.c. */
#include "evidence/validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/validate_ctx.h"

/* json-c's parser keeps its own stack, but freeing and printing a tree
 * recurse once per level: past a few tens of thousands of levels they
 * overflow the C stack. Files are refused well before that; the documents
 * accepted by VALIDATE_MAX_DEPTH are far shallower still. */
#define PARSE_DEPTH (16 * VALIDATE_MAX_DEPTH)

int validate_read_json(const char *path, json_object **doc,
                       struct validate_errors *out, char *err, size_t errlen)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t len = 0, cap = 0, end;
  struct json_tokener *tok;
  enum json_tokener_error e;
  json_object *o;
  int too_big = 0;

  *doc = NULL;
  if (f == NULL) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    return -1;
  }
  for (;;) {
    size_t got;
    if (len == cap) {
      size_t grown = cap ? cap * 2 : 65536;
      char *bigger;
      if (cap > VALIDATE_MAX_FILE_BYTES) {
        too_big = 1;
        break;
      }
      /* One byte past the limit is enough to know it is too large. */
      if (grown > VALIDATE_MAX_FILE_BYTES)
        grown = (size_t)VALIDATE_MAX_FILE_BYTES + 1;
      bigger = realloc(buf, grown + 1);
      if (bigger == NULL) {
        snprintf(err, errlen, "cannot read: out of memory");
        goto fail;
      }
      buf = bigger;
      cap = grown;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    goto fail;
  }
  fclose(f);
  f = NULL;
  if (too_big || len > VALIDATE_MAX_FILE_BYTES) {
    validate_errors_addf(out, "too large: more than %u bytes, the most read",
                         VALIDATE_MAX_FILE_BYTES);
    free(buf);
    return 1;
  }
  buf[len] = '\0';
  tok = json_tokener_new_ex(PARSE_DEPTH);
  if (tok == NULL) {
    snprintf(err, errlen, "cannot read: out of memory");
    goto fail;
  }
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
  o = json_tokener_parse_ex(tok, buf, (int)len);
  e = json_tokener_get_error(tok);
  end = json_tokener_get_parse_end(tok);
  if (e == json_tokener_continue) {
    /* The end of the file ends a number or shows it was cut short. */
    o = json_tokener_parse_ex(tok, "", 1);
    e = json_tokener_get_error(tok);
    end = len;
  }
  json_tokener_free(tok);
  free(buf);
  if (e != json_tokener_success) {
    validate_errors_addf(out, "not JSON: %s at byte %zu",
                         json_tokener_error_desc(e), end);
    return 1;
  }
  if (end < len) {
    /* json-c stops at a NUL byte. */
    validate_errors_addf(out,
                         "not JSON: unexpected data after the document at "
                         "byte %zu",
                         end);
    json_object_put(o);
    return 1;
  }
  *doc = o; /* NULL for a document that is just null */
  return 0;
fail:
  if (f != NULL)
    fclose(f);
  free(buf);
  return -1;
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
    rc = validate_document(schema, doc, out);
    if (rc < 0)
      snprintf(err, errlen, "schema '%s': cannot be evaluated on '%s'",
               schema_path, doc_path);
  }
  json_object_put(doc);
  json_object_put(schema);
  return rc;
}
