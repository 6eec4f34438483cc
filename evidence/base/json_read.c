/* The one reader of input documents (evidence/base/json_read.h): the file read
 * within its limit into a dynbuf, its text checked, and one JSON value
 * parsed from it. */
#include "evidence/base/json_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "evidence/base/utf8.h"

static void too_big(char *err, size_t errlen, size_t limit)
{
  snprintf(err, errlen, "too large: more than %zu bytes", limit);
}

int json_read_bytes(const char *path, size_t limit, struct dynbuf *into,
                    char *err, size_t errlen)
{
  struct stat st;
  FILE *f;
  int rc;

  dynbuf_init(into, limit);
  f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
    return JSON_READ_EREAD;
  }
  /* A regular file too large is refused without reading it. A stream's
   * size is not known: it is read up to one byte past the limit. */
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
      (uintmax_t)st.st_size > limit) {
    fclose(f);
    too_big(err, errlen, limit);
    return JSON_READ_ETOOBIG;
  }
  rc = dynbuf_read(into, f);
  if (rc == DYNBUF_EIO)
    snprintf(err, errlen, "cannot read: %s", strerror(errno));
  fclose(f);
  switch (rc) {
  case 0:
    return 0;
  case DYNBUF_ETOOBIG:
    too_big(err, errlen, limit);
    rc = JSON_READ_ETOOBIG;
    break;
  case DYNBUF_ENOMEM:
    snprintf(err, errlen, "cannot read: out of memory");
    rc = JSON_READ_ENOMEM;
    break;
  default:
    rc = JSON_READ_EREAD;
    break;
  }
  dynbuf_release(into);
  return rc;
}

int json_read_check_text(const char *text, size_t len, size_t *at,
                         const char **what)
{
  const char *nul = memchr(text, '\0', len);
  long long bad = utf8_error_at(text, nul ? (size_t)(nul - text) : len);

  if (bad >= 0) {
    *at = (size_t)bad;
    *what = "not valid UTF-8";
    return JSON_READ_ETEXT;
  }
  if (nul != NULL) {
    *at = (size_t)(nul - text);
    *what = "a NUL byte";
    return JSON_READ_ETEXT;
  }
  return 0;
}

int json_read_text_file(const char *path, size_t limit, struct dynbuf *into,
                        char *err, size_t errlen)
{
  const char *s, *line, *what;
  size_t at, lineno = 1;
  int rc = json_read_bytes(path, limit, into, err, errlen);

  if (rc != 0)
    return rc;
  s = dynbuf_ptr(into);
  rc = json_read_check_text(s, dynbuf_len(into), &at, &what);
  if (rc == 0)
    return 0;
  line = s;
  for (size_t i = 0; i < at; i++)
    if (s[i] == '\n')
      lineno++, line = s + i + 1;
  snprintf(err, errlen, "%zu:%zu: %s", lineno,
           utf8_length(line, (size_t)(s + at - line)) + 1, what);
  return rc;
}

static int is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int json_read_parse(const char *text, size_t len, json_object **doc, char *err,
                    size_t errlen)
{
  struct json_tokener *tok;
  enum json_tokener_error e;
  const char *what;
  json_object *o;
  size_t end, i;

  *doc = NULL;
  /* json-c takes an int length. */
  if (len > JSON_READ_MAX_BYTES) {
    too_big(err, errlen, JSON_READ_MAX_BYTES);
    return JSON_READ_ETOOBIG;
  }
  if (json_read_check_text(text, len, &end, &what) != 0) {
    snprintf(err, errlen, "not JSON: %s at byte %zu", what, end);
    return JSON_READ_ETEXT;
  }
  for (i = 0; i < len && is_space(text[i]); i++)
    ;
  if (i == len) {
    snprintf(err, errlen, "not JSON: the file is empty");
    return JSON_READ_ESYNTAX;
  }
  tok = json_tokener_new_ex(JSON_READ_MAX_DEPTH);
  if (tok == NULL) {
    snprintf(err, errlen, "cannot read: out of memory");
    return JSON_READ_ENOMEM;
  }
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
  o = json_tokener_parse_ex(tok, text, (int)len);
  e = json_tokener_get_error(tok);
  end = json_tokener_get_parse_end(tok);
  if (e == json_tokener_continue) {
    /* The end of the text ends a number ("12") or shows that the value
     * was cut short. */
    o = json_tokener_parse_ex(tok, "", 1);
    e = json_tokener_get_error(tok);
    end = len;
  }
  json_tokener_free(tok);
  if (e == json_tokener_error_depth) {
    snprintf(err, errlen,
             "not JSON: nested more than %d levels deep at byte %zu",
             JSON_READ_MAX_DEPTH, end);
    return JSON_READ_ESYNTAX;
  }
  if (e != json_tokener_success) {
    snprintf(err, errlen, "not JSON: %s at byte %zu",
             json_tokener_error_desc(e), end);
    return JSON_READ_ESYNTAX;
  }
  for (i = end; i < len && is_space(text[i]); i++)
    ;
  if (i < len) {
    json_object_put(o);
    snprintf(err, errlen,
             "not JSON: unexpected data after the document at byte %zu", i);
    return JSON_READ_ESYNTAX;
  }
  *doc = o;
  return 0;
}

int json_read_file(const char *path, size_t limit, json_object **doc, char *err,
                   size_t errlen)
{
  struct dynbuf text;
  int rc;

  *doc = NULL;
  if (limit > JSON_READ_MAX_BYTES)
    limit = JSON_READ_MAX_BYTES;
  rc = json_read_bytes(path, limit, &text, err, errlen);
  if (rc == 0)
    rc =
        json_read_parse(dynbuf_ptr(&text), dynbuf_len(&text), doc, err, errlen);
  dynbuf_release(&text);
  return rc;
}
