/* The comparison as JSON, for machines: evidence/diff/compare.schema.json.
 * Rows are an array, unlike the evidence's keyed objects: a row is named
 * by three fields (platform, subject, figure), and its order is the
 * order a person reads them in. */
#include <string.h>

#include "evidence/diff/diff_internal.h"

static const char *const kinds[] = {"sampled", "geomean", "status", "lane",
                                    "package"};

static void put(json_object *o, const char *key, json_object *v)
{
  json_object_object_add(o, key, v);
}

static json_object *side(const struct diff_row *r, int old)
{
  const struct diff_side *s = old ? &r->old_side : &r->new_side;
  json_object *o;

  if (s->n == 0)
    return NULL;
  o = json_object_new_object();
  put(o, "n", json_object_new_int(s->n));
  put(o, "median", json_object_new_double(s->median));
  put(o, "min", json_object_new_double(s->min));
  put(o, "max", json_object_new_double(s->max));
  return o;
}

static json_object *text_or_null(const char *s)
{
  return s[0] ? json_object_new_string(s) : NULL;
}

static json_object *row_json(const struct diff_row *r)
{
  json_object *o = json_object_new_object(), *t = NULL;

  put(o, "platform", json_object_new_string(r->platform));
  put(o, "kind", json_object_new_string(kinds[r->kind]));
  put(o, "subject", json_object_new_string(r->subject));
  put(o, "figure", json_object_new_string(r->figure));
  put(o, "unit", json_object_new_string(r->unit));
  put(o, "old", side(r, 1));
  put(o, "new", side(r, 0));
  put(o, "old_text", text_or_null(r->old_text));
  put(o, "new_text", text_or_null(r->new_text));
  put(o, "change_pct",
      r->have_change ? json_object_new_double(r->change_pct) : NULL);
  put(o, "verdict", json_object_new_string(r->verdict));
  put(o, "reason", text_or_null(r->reason));
  if (r->tested) {
    t = json_object_new_object();
    put(t, "test", json_object_new_string("mann_whitney_u"));
    put(t, "u", json_object_new_double(r->u));
    put(t, "p", json_object_new_double(r->p));
    put(t, "p_exact", json_object_new_boolean(r->p_exact));
    put(t, "p_holm", json_object_new_double(r->p_holm));
  }
  put(o, "test", t);
  put(o, "regression", json_object_new_boolean(r->regression));
  return o;
}

static json_object *file_json(const struct diff_file *f, const char *name)
{
  json_object *o = json_object_new_object();
  put(o, "file", json_object_new_string(name));
  put(o, "mode", json_object_new_string(f->mode));
  put(o, "performance_claims", json_object_new_boolean(f->performance_claims));
  return o;
}

json_object *diff_json(const struct diff *d, const char *old_name,
                       const char *new_name)
{
  json_object *o = json_object_new_object(), *a, *s;

  if (o == NULL)
    return NULL;
  put(o, "schema_version", json_object_new_int(1));
  put(o, "old", file_json(&d->old_file, old_name));
  put(o, "new", file_json(&d->new_file, new_name));
  s = json_object_new_object();
  put(s, "alpha", json_object_new_double(d->opts.alpha));
  put(s, "threshold_pct", json_object_new_double(d->opts.threshold_pct));
  put(s, "allow_different_machines",
      json_object_new_boolean(d->opts.allow_different_machines));
  put(s, "correction", json_object_new_string("holm_bonferroni"));
  put(o, "settings", s);
  put(o, "comparisons", json_object_new_int(d->tested));
  a = json_object_new_array();
  for (int i = 0; i < d->nnotes; i++) {
    json_object *n = json_object_new_object();
    put(n, "platform", json_object_new_string(d->notes[i].platform));
    put(n, "reason", json_object_new_string(d->notes[i].text));
    json_object_array_add(a, n);
  }
  put(o, "refusals", a);
  a = json_object_new_array();
  for (int i = 0; i < d->nrows; i++)
    json_object_array_add(a, row_json(&d->rows[i]));
  put(o, "rows", a);
  a = json_object_new_array();
  for (int i = 0; i < d->nentries; i++) {
    const struct diff_entry *e = &d->entries[i];
    json_object *n = json_object_new_object();
    put(n, "platform", json_object_new_string(e->platform));
    put(n, "runtime", json_object_new_string(e->runtime));
    put(n, "path", json_object_new_string(e->path));
    put(n, "change", json_object_new_string(e->change));
    put(n, "old_size_bytes",
        e->old_bytes >= 0 ? json_object_new_int64(e->old_bytes) : NULL);
    put(n, "new_size_bytes",
        e->new_bytes >= 0 ? json_object_new_int64(e->new_bytes) : NULL);
    json_object_array_add(a, n);
  }
  put(o, "package_entries", a);
  put(o, "regressions", json_object_new_int(d->regressions));
  return o;
}
