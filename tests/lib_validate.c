/* Helpers of the validator's tests: see tests/lib_validate.h. */
#include "tests/lib_validate.h"
#include "evidence/check/figures.h"
#include "tests/lib_child.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vtest_has_error(const struct validate_errors *e, const char *needle)
{
  for (int i = 0; i < e->n; i++)
    if (strstr(e->messages[i], needle) != NULL)
      return 1;
  return 0;
}

void vtest_show_errors(const struct validate_errors *e, int max)
{
  for (int i = 0; i < e->n && i < max; i++)
    tap_diag("  %s", e->messages[i]);
  if (e->total > max)
    tap_diag("  (%d in all)", e->total);
}

json_object *vtest_at(json_object *doc, const char *pointer)
{
  char buf[1024], *save = NULL;
  json_object *o = doc;

  snprintf(buf, sizeof(buf), "%s", pointer);
  for (char *k = strtok_r(buf, "/", &save); k != NULL && o != NULL;
       k = strtok_r(NULL, "/", &save)) {
    if (json_object_is_type(o, json_type_array))
      o = json_object_array_get_idx(o, (size_t)atoi(k));
    else if (!json_object_object_get_ex(o, k, &o))
      return NULL;
  }
  return o;
}

int vtest_edit(json_object *doc, const char *pointer, json_object *v,
               int set_null)
{
  char parent[1024];
  const char *slash = strrchr(pointer, '/');
  json_object *p;

  snprintf(parent, sizeof(parent), "%.*s", (int)(slash - pointer), pointer);
  p = vtest_at(doc, parent);
  if (p == NULL) {
    json_object_put(v);
    return -1;
  }
  if (json_object_is_type(p, json_type_array)) {
    json_object_array_put_idx(p, (size_t)atoi(slash + 1), v);
  } else if (v == NULL && !set_null) {
    json_object_object_del(p, slash + 1);
  } else {
    json_object_object_add(p, slash + 1, v);
  }
  return 0;
}

json_object *vtest_parse(const char *text)
{
  struct json_tokener *tok = json_tokener_new_ex(1024);
  json_object *o;
  if (tok == NULL)
    return NULL;
  o = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
  json_tokener_free(tok);
  return o;
}

json_object *vtest_copy(json_object *o)
{
  json_object *c = NULL;
  if (json_object_deep_copy(o, &c, NULL) != 0)
    return NULL;
  return c;
}

int vtest_write_text(const char *path, const char *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(text, 1, len, f) == len;
  if (f != NULL && fclose(f) != 0)
    ok = 0;
  return ok ? 0 : -1;
}

char *vtest_read_text(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;

  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
    fclose(f);
    return NULL;
  }
  rewind(f);
  buf = calloc(1, (size_t)n + 1);
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (len != NULL)
    *len = (size_t)n;
  return buf;
}

json_object *vtest_load(const char *path)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *doc = NULL;
  char err[256];
  if (validate_read_json(path, &doc, &e, err, sizeof(err)) != 0)
    doc = NULL;
  validate_errors_release(&e);
  return doc;
}

int vtest_run(const char *crossrun, const char *const *args, const char *log,
              double seconds)
{
  struct child_opts opts = {log, log, 0};
  struct child_run r;
  const char *argv[32];
  int n = 0, rc;

  argv[n++] = crossrun;
  for (int i = 0; args[i] != NULL && n < 31; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  rc = child_run_with(&r, argv, NULL, NULL, &opts, seconds);
  if (rc != 0)
    tap_diag("%s: %s", crossrun, uv_strerror(rc));
  else if (r.timed_out || r.term_signal != 0)
    child_explain(&r, crossrun);
  rc = rc == 0 && r.exited && !r.timed_out && r.term_signal == 0
           ? (int)r.exit_status
           : -1;
  child_release(&r);
  return rc;
}

struct refigure {
  char pointer[64][FIGURES_POINTER_MAX];
  json_object *value[64];
  int remove[64];
  int n, rules;
};

static void collect(void *ctx, const struct figures_finding *f)
{
  struct refigure *r = ctx;

  /* A comparison the samples do not give is left out. */
  int stale = !f->has_recomputed &&
              strncmp(f->pointer, "/comparisons/", 13) == 0 &&
              strchr(f->pointer + 13, '/') == NULL;

  if (!f->has_recomputed && !stale) {
    r->rules++;
    return;
  }
  if (r->n == 64)
    return;
  snprintf(r->pointer[r->n], sizeof(r->pointer[0]), "%s", f->pointer);
  r->value[r->n] = stale ? NULL : vtest_copy(f->recomputed);
  r->remove[r->n++] = stale;
}

int vtest_refigure(json_object *doc)
{
  static struct refigure r;

  /* Statuses first, then the figures made of them: a few passes. */
  for (int pass = 0; pass < 4; pass++) {
    memset(&r, 0, sizeof(r));
    figures_check(doc, collect, &r);
    for (int i = 0; i < r.n; i++)
      vtest_edit(doc, r.pointer[i], r.value[i], !r.remove[i]);
    if (r.n == 0)
      break;
  }
  return r.rules;
}
