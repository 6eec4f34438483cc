/* crossrun merge: the entry points of evidence/merge/merge.h. Reads every input
 * (evidence/merge/merge_input.c), checks them together
 * (evidence/merge/merge_check.c), then joins each OS's shards and builds the
 * merged document; also writes it and sums it up in one line. */
#include "evidence/merge/merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/check/figures.h"
#include "evidence/merge/merge_input.h"

/* ---- the merged document ---- */

static void put(json_object *o, const char *key, json_object *v)
{
  json_object_object_add(o, key, v);
}

/* Members of each shard's key object (runtimes), the first shard's first.
 * NULL when no shard has an object there. */
static json_object *join_union(struct merge_input *const *g, int n,
                               const char *key)
{
  json_object *out = NULL, *v;
  for (int i = 0; i < n; i++) {
    v = merge_member(g[i]->doc, key);
    if (!json_object_is_type(v, json_type_object))
      continue;
    if (out == NULL)
      out = json_object_new_object();
    json_object_object_foreach(v, name, val)
    {
      if (merge_member(out, name) == NULL)
        put(out, name, json_object_get(val));
    }
  }
  return out;
}

/* Shard K holds lanes K-1, K-1+N, ... of the run's order: dealing them
 * back round by round restores it. */
static json_object *join_lanes(struct merge_input *const *g, int n)
{
  struct json_object_iterator it[MERGE_MAX_SHARDS], end[MERGE_MAX_SHARDS];
  json_object *out = json_object_new_object();
  int more = 1;

  for (int i = 0; i < n; i++) {
    it[i] = json_object_iter_begin(g[i]->lanes);
    end[i] = json_object_iter_end(g[i]->lanes);
  }
  while (more) {
    more = 0;
    for (int i = 0; i < n; i++) {
      if (json_object_iter_equal(&it[i], &end[i]))
        continue;
      put(out, json_object_iter_peek_name(&it[i]),
          json_object_get(json_object_iter_peek_value(&it[i])));
      json_object_iter_next(&it[i]);
      more = 1;
    }
  }
  return out;
}

static json_object *join_cleanliness(struct merge_input *const *g, int n)
{
  json_object *first = merge_member(g[0]->doc, "cleanliness");
  json_object *out = json_object_new_object();

  json_object_object_foreach(first, key, val)
  {
    int64_t sum = 0, v;
    if (!json_object_is_type(val, json_type_int)) {
      put(out, key, json_object_get(val));
      continue;
    }
    for (int i = 0; i < n; i++) {
      v = json_object_get_int64(
          merge_member(merge_member(g[i]->doc, "cleanliness"), key));
      sum = v > 0 && sum > INT64_MAX - v ? INT64_MAX : sum + (v > 0 ? v : 0);
    }
    put(out, key, json_object_new_int64(sum));
  }
  return out;
}

/* The comparisons of a whole run, from its joined lanes: a shard compares
 * only the lanes it holds, so its own comparisons are not enough. Each
 * lane is placed on the machine of the shard that held it, and a pair
 * measured on two machines is not compared (figures_comparisons). */
static json_object *join_comparisons(json_object *lanes,
                                     struct merge_input *const *g, int n)
{
  struct figures_origin *origins;
  json_object *all;
  int i = 0;

  origins =
      calloc((size_t)json_object_object_length(lanes) + 1, sizeof(*origins));
  if (origins == NULL)
    return json_object_new_object();
  json_object_object_foreach(lanes, name, lane)
  {
    (void)lane;
    for (int k = 0; k < n; k++)
      if (merge_member(g[k]->lanes, name) != NULL) {
        origins[i].machine = g[k]->machine;
        origins[i].input = g[k]->name;
        break;
      }
    i++;
  }
  all = figures_comparisons(lanes, origins);
  free(origins);
  return all;
}

/* One OS's document from its whole run or its shards (sorted by index). */
static json_object *join_platform(struct merge_input *const *g, int n)
{
  json_object *out;
  int official = 1;

  if (g[0]->shard_state == 0) {
    out = json_object_get(g[0]->doc);
    json_object_object_del(out, "shard");
    return out;
  }
  for (int i = 0; i < n; i++)
    official &= g[i]->official == 1;
  out = json_object_new_object();
  json_object_object_foreach(g[0]->doc, key, val)
  {
    if (strcmp(key, "shard") == 0)
      continue;
    if (strcmp(key, "lanes") == 0)
      put(out, key, join_lanes(g, n));
    else if (strcmp(key, "comparisons") == 0)
      put(out, key,
          json_object_is_type(val, json_type_object) &&
                  merge_member(out, "lanes") != NULL
              ? join_comparisons(merge_member(out, "lanes"), g, n)
              : json_object_get(val));
    else if (strcmp(key, "runtimes") == 0)
      put(out, key, join_union(g, n, key));
    else if (strcmp(key, "cleanliness") == 0)
      put(out, key, join_cleanliness(g, n));
    else if (strcmp(key, "official") == 0)
      put(out, key, json_object_new_boolean(official));
    else
      put(out, key, json_object_get(val));
  }
  return out;
}

static json_object *input_json(const struct merge_input *in)
{
  json_object *o = json_object_new_object(), *shard = NULL;

  put(o, "sha256", json_object_new_string(in->sha256));
  put(o, "os", json_object_new_string(merge_os_names[in->os]));
  put(o, "arch", json_object_get(in->arch));
  put(o, "machine", json_object_get(in->machine));
  if (in->shard_state == 1) {
    shard = json_object_new_object();
    put(shard, "index", json_object_new_int64(in->shard_index));
    put(shard, "count", json_object_new_int64(in->shard_count));
  }
  put(o, "shard", shard);
  put(o, "provenance_verified",
      json_object_new_boolean(in->provenance.verified));
  put(o, "provenance", json_object_new_string(in->provenance.note));
  return o;
}

static json_object *build(struct merge_input *ins, int n)
{
  struct merge_input *groups[MERGE_NOS][MERGE_MAX_INPUTS];
  json_object *doc = json_object_new_object(), *o, *inputs, *tools, *platforms,
              *runtimes;
  int sizes[MERGE_NOS] = {0}, official = 1, claims = 1;

  for (int i = 0; i < n; i++) {
    struct merge_input **g = groups[ins[i].os];
    int k = sizes[ins[i].os]++;
    /* By shard index: the order the lanes are dealt back in. */
    while (k > 0 && g[k - 1]->shard_index > ins[i].shard_index) {
      g[k] = g[k - 1];
      k--;
    }
    g[k] = &ins[i];
    official &= ins[i].official == 1;
    claims &= ins[i].claims == 1;
  }
  put(doc, "schema_version", json_object_new_int(MERGE_SCHEMA_VERSION));
  o = json_object_new_object();
  put(o, "name", json_object_new_string("crossrun"));
  put(o, "version", json_object_get(ins[0].version));
  put(doc, "tool", o);
  put(doc, "mode", json_object_new_string("merged"));
  put(doc, "performance_claims", json_object_new_boolean(claims));
  put(doc, "official", json_object_new_boolean(official));
  put(doc, "commit", json_object_get(ins[0].commit));

  inputs = json_object_new_object();
  tools = json_object_new_object();
  platforms = json_object_new_object();
  for (int os = 0; os < MERGE_NOS; os++) {
    struct merge_input *const *g = groups[os];
    if (sizes[os] == 0)
      continue;
    for (int i = 0; i < sizes[os]; i++)
      put(inputs, g[i]->name, input_json(g[i]));
    runtimes = merge_name_set(g, sizes[os], 0);
    json_object_object_foreach(runtimes, runtime, unused)
    {
      json_object *t = merge_member(tools, runtime), *v = NULL;
      (void)unused;
      if (t == NULL) {
        t = json_object_new_object();
        put(tools, runtime, t);
      }
      for (int i = 0; i < sizes[os] && v == NULL; i++)
        v = merge_input_toolchain(g[i], runtime);
      put(t, merge_os_names[os], json_object_get(v));
    }
    json_object_put(runtimes);
    put(platforms, merge_os_names[os], join_platform(g, sizes[os]));
  }
  put(doc, "inputs", inputs);
  put(doc, "toolchain_versions", tools);
  put(doc, "platforms", platforms);
  return doc;
}

static const char *base_name(const char *path)
{
  const char *name = path;
  for (const char *c = path; *c; c++)
    if (*c == '/' || *c == '\\')
      name = c + 1;
  return name;
}

int merge_files(const struct merge_options *o, const char *const *paths,
                int npaths, json_object **out, struct merge_problems *p)
{
  int before = p->count + p->dropped, rc = -1;
  struct merge_input *ins;

  *out = NULL;
  if (npaths <= 0 || npaths > MERGE_MAX_INPUTS) {
    merge_problems_add(p, NULL, "%d input files (expected 1 to %d)", npaths,
                       MERGE_MAX_INPUTS);
    return -1;
  }
  ins = calloc((size_t)npaths, sizeof(*ins));
  if (ins == NULL) {
    merge_problems_add(p, NULL, "out of memory");
    return -1;
  }
  for (int i = 0; i < npaths; i++) {
    ins[i].path = paths[i];
    ins[i].name = base_name(paths[i]);
    if (o->provenance != NULL)
      ins[i].provenance = o->provenance[i];
    if (ins[i].provenance.note == NULL)
      ins[i].provenance.note = MERGE_NOT_VERIFIED;
    merge_input_load(&ins[i], o, p);
  }
  merge_check_together(o, p, ins, npaths);
  if (p->count + p->dropped == before) {
    *out = build(ins, npaths);
    rc = 0;
  }
  for (int i = 0; i < npaths; i++)
    json_object_put(ins[i].doc);
  free(ins);
  return rc;
}

int merge_write(json_object *merged, const char *path, char *err, size_t errlen)
{
  const char *body = json_object_to_json_string_ext(
      merged, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                  JSON_C_TO_STRING_NOSLASHESCAPE);
  char tmp[4200];
  uv_fs_t req;
  FILE *f;
  int failed = 0, rc;

  if (body == NULL) {
    snprintf(err, errlen, "cannot write '%s': out of memory", path);
    return -1;
  }
  if ((size_t)snprintf(tmp, sizeof(tmp), "%s.partial", path) >= sizeof(tmp)) {
    snprintf(err, errlen, "cannot write '%s': the name is too long", path);
    return -1;
  }
  f = fopen(tmp, "wb");
  if (f == NULL) {
    snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
    return -1;
  }
  if (fputs(body, f) < 0 || fputc('\n', f) < 0)
    failed = 1;
  if (fclose(f) != 0)
    failed = 1;
  if (failed) {
    snprintf(err, errlen, "cannot write '%s'", tmp);
    remove(tmp);
    return -1;
  }
  /* uv_fs_rename replaces an existing file on every OS. */
  rc = uv_fs_rename(NULL, &req, tmp, path, NULL);
  uv_fs_req_cleanup(&req);
  if (rc != 0) {
    snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, path,
             uv_strerror(rc));
    remove(tmp);
    return -1;
  }
  return 0;
}

static int count_inputs_of(json_object *inputs, const char *os)
{
  int n = 0;
  if (!json_object_is_type(inputs, json_type_object))
    return 0;
  json_object_object_foreach(inputs, file, in)
  {
    const char *of = merge_member_str(in, "os");
    (void)file;
    n += of != NULL && strcmp(of, os) == 0;
  }
  return n;
}

void merge_summary(json_object *merged, char *out, size_t outlen)
{
  json_object *platforms = merge_member(merged, "platforms");
  json_object *inputs = merge_member(merged, "inputs");
  struct merge_line l = {"", 0}, expected = {"", 0};
  int64_t samples = 0;
  int nplatforms = 0, lanes = 0, nexpected = 0, shards;

  merge_line_add(&l, "merged %d files into",
                 json_object_is_type(inputs, json_type_object)
                     ? json_object_object_length(inputs)
                     : 0);
  if (json_object_is_type(platforms, json_type_object)) {
    json_object_object_foreach(platforms, os, doc)
    {
      const char *arch = merge_member_str(merge_member(doc, "machine"), "arch");
      json_object *ls = merge_member(doc, "lanes");
      merge_line_add(&l, "%s %s %s", nplatforms++ ? "," : "", os,
                     arch ? arch : "?");
      shards = count_inputs_of(inputs, os);
      if (shards > 1)
        merge_line_add(&l, " (%d shards)", shards);
      if (!json_object_is_type(ls, json_type_object))
        continue;
      lanes = json_object_object_length(ls);
      json_object_object_foreach(ls, name, lane)
      {
        json_object *s = merge_member(lane, "samples");
        const char *status =
            merge_member_str(merge_member(lane, "summary"), "status");
        if (json_object_is_type(s, json_type_array))
          samples += (int64_t)json_object_array_length(s);
        if (status != NULL && strcmp(status, "expected_failure") == 0)
          merge_line_add(&expected, "%s%s %s", nexpected++ ? ", " : "", os,
                         name);
      }
    }
  }
  merge_line_add(&l, ": %d lanes, %" PRId64 " samples, %s", lanes, samples,
                 json_object_get_boolean(merge_member(merged, "official"))
                     ? "official"
                     : "not official (rehearsal)");
  if (nexpected)
    merge_line_add(&l, "; %d expected failure%s: %s", nexpected,
                   nexpected > 1 ? "s" : "", expected.text);
  snprintf(out, outlen, "%s", l.text);
}
