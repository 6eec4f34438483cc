/* Packages are exact figures: one artifact per runtime, measured once, so
 * any difference is a change, shown to the byte and entry by entry. */
#include <stdlib.h>
#include <string.h>

#include "evidence/diff/diff_internal.h"

static const char *const sizes[] = {"packed_bytes", "unpacked_bytes",
                                    "file_count"};

/* A package object that was measured (not null, not {"error": ...}). */
static json_object *measured(json_object *runtime)
{
  json_object *p = diff_get(runtime, "package");
  return json_object_is_type(p, json_type_object) &&
                 diff_get(p, "sha256") != NULL
             ? p
             : NULL;
}

/* What stands for a package that was not measured, for its row. */
static void unmeasured_text(json_object *runtimes, const char *name, char *out,
                            size_t len)
{
  json_object *rt = NULL, *p;
  const char *error;

  if (runtimes == NULL || !json_object_object_get_ex(runtimes, name, &rt)) {
    snprintf(out, len, "no runtime");
    return;
  }
  p = diff_get(rt, "package");
  error = diff_string(p, "error");
  if (error != NULL)
    snprintf(out, len, "not measured: %s", error);
  else
    snprintf(out, len, "none declared");
}

static int add_entry(struct diff *d, const char *os, const char *runtime,
                     const char *path, const char *change, long long old_bytes,
                     long long new_bytes)
{
  struct diff_entry *e =
      diff_grow(d->entries, d->nentries, &d->entries_cap, sizeof(*e));
  if (e == NULL)
    return -1;
  d->entries = e;
  e = &e[d->nentries++];
  diff_text(e->platform, sizeof(e->platform), os);
  diff_text(e->runtime, sizeof(e->runtime), runtime);
  diff_text(e->path, sizeof(e->path), path);
  e->change = change;
  e->old_bytes = old_bytes;
  e->new_bytes = new_bytes;
  return 0;
}

/* The size of e when it is an entry at path with a size, else -1. */
static long long sized_entry(json_object *e, const char *path)
{
  const char *p = diff_string(e, "path");
  double size;

  if (p == NULL || strcmp(p, path) != 0 || !diff_number(e, "size_bytes", &size))
    return -1;
  return diff_bytes(size);
}

/* How many entries with a size before the i-th of entries are at its
 * path: an archive may hold a path more than once (tar appends), and the
 * k-th of them in NEW is compared with the k-th in OLD. */
static size_t occurrence(json_object *entries, size_t i, const char *path)
{
  size_t k = 0;

  for (size_t j = 0; j < i; j++)
    if (sized_entry(json_object_array_get_idx(entries, j), path) >= 0)
      k++;
  return k;
}

/* The size of the k-th entry with a size at path in entries (from 0), or
 * -1. */
static long long entry_size(json_object *entries, const char *path, size_t k)
{
  size_t n = json_object_is_type(entries, json_type_array)
                 ? json_object_array_length(entries)
                 : 0;
  for (size_t i = 0; i < n; i++) {
    long long size = sized_entry(json_object_array_get_idx(entries, i), path);
    if (size >= 0 && k-- == 0)
      return size;
  }
  return -1;
}

/* Entries added, grown and shrunk in NEW's order, then those removed in
 * OLD's. */
static int entries(struct diff *d, const char *os, const char *runtime,
                   json_object *old_pkg, json_object *new_pkg)
{
  json_object *oe = diff_get(old_pkg, "entries"),
              *ne = diff_get(new_pkg, "entries");
  size_t nn = json_object_is_type(ne, json_type_array)
                  ? json_object_array_length(ne)
                  : 0,
         no = json_object_is_type(oe, json_type_array)
                  ? json_object_array_length(oe)
                  : 0;

  for (size_t i = 0; i < nn; i++) {
    json_object *e = json_object_array_get_idx(ne, i);
    const char *path = diff_string(e, "path");
    double size;
    long long before;
    if (path == NULL || !diff_number(e, "size_bytes", &size) ||
        diff_bytes(size) < 0)
      continue;
    before = entry_size(oe, path, occurrence(ne, i, path));
    if (before < 0
            ? add_entry(d, os, runtime, path, "added", -1, diff_bytes(size))
        : before != diff_bytes(size)
            ? add_entry(d, os, runtime, path,
                        diff_bytes(size) > before ? "grown" : "shrunk", before,
                        diff_bytes(size))
            : 0)
      return -1;
  }
  for (size_t i = 0; i < no; i++) {
    json_object *e = json_object_array_get_idx(oe, i);
    const char *path = diff_string(e, "path");
    double size;
    if (path != NULL && diff_number(e, "size_bytes", &size) &&
        diff_bytes(size) >= 0 &&
        entry_size(ne, path, occurrence(oe, i, path)) < 0 &&
        add_entry(d, os, runtime, path, "removed", diff_bytes(size), -1) != 0)
      return -1;
  }
  return 0;
}

static int measured_rows(struct diff *d, const char *os, const char *name,
                         json_object *old_pkg, json_object *new_pkg)
{
  const char *oh = diff_string(old_pkg, "sha256");
  const char *nh = diff_string(new_pkg, "sha256");
  struct diff_row *r;

  for (int k = 0; k < 3; k++) {
    double o = 0, n = 0;
    diff_number(old_pkg, sizes[k], &o);
    diff_number(new_pkg, sizes[k], &n);
    r = diff_add_row(d, DIFF_ROW_PACKAGE, os, name, sizes[k],
                     k == 2 ? "files" : "bytes");
    if (r == NULL)
      return -1;
    r->old_side = (struct diff_side){1, o, o, o};
    r->new_side = (struct diff_side){1, n, n, n};
    if (o > 0 || n == o) {
      r->have_change = 1;
      r->change_pct = o > 0 ? (n / o - 1) * 100 : 0;
    }
    r->verdict = n > o ? "bigger" : n < o ? "smaller" : "same";
    r->regression = n > o; /* a package that grew, by any amount */
  }
  r = diff_add_row(d, DIFF_ROW_PACKAGE, os, name, "sha256", "");
  if (r == NULL)
    return -1;
  diff_text(r->old_text, sizeof(r->old_text), oh);
  diff_text(r->new_text, sizeof(r->new_text), nh);
  /* As JSON values: a hash that is not a string (a hand-made file) is the
   * same as itself too. */
  r->verdict = json_object_equal(diff_get(old_pkg, "sha256"),
                                 diff_get(new_pkg, "sha256"))
                   ? "same"
                   : "changed";
  return entries(d, os, name, old_pkg, new_pkg);
}

/* A runtime whose package was measured on one side only, or on neither
 * for different reasons: one row saying what each side has. */
static int presence_row(struct diff *d, const char *os, const char *name,
                        json_object *old_rts, json_object *new_rts)
{
  char o[DIFF_TEXT_MAX], n[DIFF_TEXT_MAX];
  json_object *ort = NULL, *nrt = NULL;
  struct diff_row *r;

  if (old_rts)
    json_object_object_get_ex(old_rts, name, &ort);
  if (new_rts)
    json_object_object_get_ex(new_rts, name, &nrt);
  if (measured(ort))
    snprintf(o, sizeof(o), "measured");
  else
    unmeasured_text(old_rts, name, o, sizeof(o));
  if (measured(nrt))
    snprintf(n, sizeof(n), "measured");
  else
    unmeasured_text(new_rts, name, n, sizeof(n));
  /* Measured on neither side: nothing to compare, whatever each says. */
  if (strcmp(o, n) == 0 || (!measured(ort) && !measured(nrt)))
    return 0;
  r = diff_add_row(d, DIFF_ROW_PACKAGE, os, name, "package", "");
  if (r == NULL)
    return -1;
  diff_text(r->old_text, sizeof(r->old_text), o);
  diff_text(r->new_text, sizeof(r->new_text), n);
  r->verdict = "not compared";
  snprintf(r->reason, sizeof(r->reason), "measured in %s only",
           measured(ort) ? "OLD" : "NEW");
  return 0;
}

int diff_packages(struct diff *d, const char *os, json_object *old_body,
                  json_object *new_body)
{
  json_object *old_rts = diff_get(old_body, "runtimes");
  json_object *new_rts = diff_get(new_body, "runtimes");

  if (!json_object_is_type(old_rts, json_type_object))
    old_rts = NULL;
  if (!json_object_is_type(new_rts, json_type_object))
    new_rts = NULL;
  if (new_rts != NULL) {
    json_object_object_foreach(new_rts, name, nrt)
    {
      json_object *ort = NULL;
      json_object *op, *np = measured(nrt);
      if (old_rts != NULL)
        json_object_object_get_ex(old_rts, name, &ort);
      op = measured(ort);
      if (op != NULL && np != NULL
              ? measured_rows(d, os, name, op, np)
              : presence_row(d, os, name, old_rts, new_rts))
        return -1;
    }
  }
  if (old_rts != NULL) {
    json_object_object_foreach(old_rts, name, ort)
    {
      (void)ort;
      if (new_rts != NULL && json_object_object_get_ex(new_rts, name, NULL))
        continue;
      if (presence_row(d, os, name, old_rts, new_rts) != 0)
        return -1;
    }
  }
  return 0;
}
