/* One input of a merge: the file read, hashed and parsed by the one reader
 * (evidence/base/json_read.h), and checked on its own (schema version,
 * every field merge reads, mode, official, complete, os, lanes, samples,
 * cleanliness). What a file says about itself is checked here; what files
 * say about each other is checked in evidence/merge/merge_check.c. */
#include "evidence/merge/merge_input.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "evidence/base/json_read.h"
#include "evidence/base/sha256.h"
#include "evidence/check/figures.h"

#define FIELD_PATH_MAX 512 /* a field's dotted path in a message */

const char *const merge_os_names[MERGE_NOS] = {"linux", "macos", "windows"};

/* Counts a clean run leaves at 0; pairs_started and natural_exits are the
 * other two, summed when shards are joined. */
static const char *const must_be_zero[] = {"processes_left", "sockets_left",
                                           "forced_terminations",
                                           "temp_entries_left"};

/* A problem about one input: reported through its check. */
struct check {
  struct merge_problems *p;
  struct merge_input *in;
};

int merge_os_index(const char *os)
{
  for (int i = 0; i < MERGE_NOS; i++)
    if (os != NULL && strcmp(os, merge_os_names[i]) == 0)
      return i;
  return -1;
}

/* A problem of the input c checks. */
static void refuse(struct check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void refuse(struct check *c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  merge_problems_vadd(c->p, c->in->path, fmt, ap);
  va_end(ap);
}

static const char *type_phrase(enum json_type t)
{
  switch (t) {
  case json_type_null:
    return "null";
  case json_type_boolean:
    return "a boolean";
  case json_type_double:
    return "a fractional number";
  case json_type_int:
    return "an integer";
  case json_type_object:
    return "an object";
  case json_type_array:
    return "an array";
  case json_type_string:
    return "a string";
  }
  return "of an unknown type";
}

/* json-c saturates integers beyond 64 bits (to INT64_MIN, INT64_MAX or
 * UINT64_MAX) and reads 1e400 as infinity; neither is a figure. */
static int number_in_range(json_object *v)
{
  if (json_object_is_type(v, json_type_double))
    return isfinite(json_object_get_double(v));
  if (json_object_is_type(v, json_type_int)) {
    int64_t i = json_object_get_int64(v);
    if (i == INT64_MIN)
      return 0;
    if (i == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX)
      return 0;
  }
  return 1;
}

static int is_number(json_object *v)
{
  return json_object_is_type(v, json_type_int) ||
         json_object_is_type(v, json_type_double);
}

static void join_path(char *out, size_t outlen, const char *parent,
                      const char *key)
{
  snprintf(out, outlen, "%s%s%s", parent, parent[0] ? "." : "", key);
}

/* parent's member key when it has type want; NULL (with a problem) when it
 * is missing or of another type; NULL without one when nullable and null,
 * or when it is a number out of range (walk_numbers named it). */
static json_object *field(struct check *c, json_object *parent,
                          const char *ppath, const char *key,
                          enum json_type want, int nullable)
{
  char path[FIELD_PATH_MAX];
  json_object *v;

  if (parent == NULL)
    return NULL;
  join_path(path, sizeof(path), ppath, key);
  if (!json_object_object_get_ex(parent, key, &v)) {
    refuse(c, "'%s' is missing", path);
    return NULL;
  }
  if (v == NULL) {
    if (!nullable)
      refuse(c, "'%s' is null, expected %s", path, type_phrase(want));
    return NULL;
  }
  if (is_number(v) && !number_in_range(v))
    return NULL;
  if (json_object_is_type(v, want))
    return v;
  refuse(c, "'%s' is %s, expected %s", path,
         type_phrase(json_object_get_type(v)), type_phrase(want));
  return NULL;
}

static int field_int(struct check *c, json_object *parent, const char *ppath,
                     const char *key, int64_t *out)
{
  json_object *v = field(c, parent, ppath, key, json_type_int, 0);
  if (v == NULL)
    return -1;
  *out = json_object_get_int64(v);
  return 0;
}

const char *merge_str(json_object *v)
{
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : NULL;
}

/* obj.key when obj is an object and the member is a string, else NULL. */
const char *merge_member_str(json_object *obj, const char *key)
{
  json_object *v;
  if (!json_object_is_type(obj, json_type_object) ||
      !json_object_object_get_ex(obj, key, &v))
    return NULL;
  return merge_str(v);
}

json_object *merge_member(json_object *obj, const char *key)
{
  json_object *v;
  if (!json_object_is_type(obj, json_type_object) ||
      !json_object_object_get_ex(obj, key, &v))
    return NULL;
  return v;
}

/* Every number in the document, wherever it is. The depth is bounded by
 * the tokener's. */
static void walk_numbers(struct check *c, json_object *v, char *path,
                         size_t len, size_t cap)
{
  size_t n;
  int w;

  if (is_number(v)) {
    if (!number_in_range(v))
      refuse(c, "number out of range at '%s' (%s)", len ? path : "(top)",
             json_object_is_type(v, json_type_double)
                 ? json_object_to_json_string(v)
                 : "beyond 64-bit integers");
    return;
  }
  if (json_object_is_type(v, json_type_object)) {
    json_object_object_foreach(v, key, child)
    {
      w = snprintf(path + len, cap - len, "%s%s", len ? "." : "", key);
      n = w < 0 ? 0 : (size_t)w < cap - len ? (size_t)w : cap - len - 1;
      walk_numbers(c, child, path, len + n, cap);
      path[len] = '\0';
    }
  } else if (json_object_is_type(v, json_type_array)) {
    for (size_t i = 0; i < json_object_array_length(v); i++) {
      w = snprintf(path + len, cap - len, "[%zu]", i);
      n = w < 0 ? 0 : (size_t)w < cap - len ? (size_t)w : cap - len - 1;
      walk_numbers(c, json_object_array_get_idx(v, i), path, len + n, cap);
      path[len] = '\0';
    }
  }
}

/* The document of text, under the rules of evidence/base/json_read.h; NULL
 * (with a problem) when it breaks one or is not an object. */
static json_object *parse(struct check *c, const char *text, size_t len)
{
  json_object *doc;
  char err[512];

  if (json_read_parse(text, len, &doc, err, sizeof(err)) != 0) {
    refuse(c, "%s", err);
    return NULL;
  }
  if (!json_object_is_type(doc, json_type_object)) {
    refuse(c, "not evidence: the document is %s, expected an object",
           type_phrase(json_object_get_type(doc)));
    json_object_put(doc);
    return NULL;
  }
  return doc;
}

static void check_provenance(struct check *c)
{
  struct merge_input *in = c->in;
  json_object *prov = field(c, in->doc, "", "provenance", json_type_object, 0);
  char path[FIELD_PATH_MAX];

  in->commit = field(c, prov, "provenance", "commit", json_type_string, 0);
  if (in->commit != NULL && json_object_get_string_len(in->commit) == 0) {
    refuse(c, "'provenance.commit' is empty");
    in->commit = NULL;
  }
  in->matrix =
      field(c, prov, "provenance", "matrix_sha256", json_type_object, 0);
  if (in->matrix == NULL)
    return;
  json_object_object_foreach(in->matrix, file, sha)
  {
    join_path(path, sizeof(path), "provenance.matrix_sha256", file);
    if (!json_object_is_type(sha, json_type_string))
      refuse(c, "'%s' is %s, expected a string", path,
             type_phrase(json_object_get_type(sha)));
  }
}

static void check_shard(struct check *c)
{
  struct merge_input *in = c->in;
  json_object *v;
  int ok;

  in->shard = field(c, in->doc, "", "shard", json_type_object, 1);
  if (in->shard == NULL) {
    if (json_object_object_get_ex(in->doc, "shard", &v) && v == NULL)
      in->shard_state = 0;
    return;
  }
  ok = field_int(c, in->shard, "shard", "index", &in->shard_index) == 0;
  ok &= field_int(c, in->shard, "shard", "count", &in->shard_count) == 0;
  ok &= field_int(c, in->shard, "shard", "lanes_total", &in->lanes_total) == 0;
  if (!ok)
    return;
  if (in->shard_count < 1 || in->shard_count > MERGE_MAX_SHARDS) {
    refuse(c, "'shard.count' is %" PRId64 ", expected 1 to %d", in->shard_count,
           MERGE_MAX_SHARDS);
    ok = 0;
  } else if (in->shard_index < 1 || in->shard_index > in->shard_count) {
    refuse(c, "'shard.index' is %" PRId64 ", expected 1 to %" PRId64,
           in->shard_index, in->shard_count);
    ok = 0;
  }
  if (in->lanes_total < 1 || in->lanes_total > MERGE_MAX_LANES) {
    refuse(c, "'shard.lanes_total' is %" PRId64 ", expected 1 to %d",
           in->lanes_total, MERGE_MAX_LANES);
    ok = 0;
  }
  if (ok)
    in->shard_state = 1;
}

static void check_runtimes(struct check *c)
{
  struct merge_input *in = c->in;
  char path[FIELD_PATH_MAX];

  in->runtimes = field(c, in->doc, "", "runtimes", json_type_object, 0);
  if (in->runtimes == NULL)
    return;
  if (json_object_object_length(in->runtimes) > MERGE_MAX_RUNTIMES) {
    refuse(c, "too many runtimes (%d, at most %d)",
           json_object_object_length(in->runtimes), MERGE_MAX_RUNTIMES);
    in->runtimes = NULL;
    return;
  }
  json_object_object_foreach(in->runtimes, name, rt)
  {
    join_path(path, sizeof(path), "runtimes", name);
    if (!json_object_is_type(rt, json_type_object))
      refuse(c, "'%s' is %s, expected an object", path,
             type_phrase(json_object_get_type(rt)));
    else
      field(c, rt, path, "toolchain_version", json_type_string, 1);
  }
}

static void check_sample(struct check *c, const char *lane, int expected,
                         json_object *sample, size_t i)
{
  char path[FIELD_PATH_MAX];
  json_object *v, *failure;
  const char *status;

  snprintf(path, sizeof(path), "lanes.%s.samples[%zu]", lane, i);
  if (!json_object_is_type(sample, json_type_object)) {
    refuse(c, "'%s' is %s, expected an object", path,
           type_phrase(json_object_get_type(sample)));
    return;
  }
  v = field(c, sample, path, "status", json_type_string, 0);
  if (v == NULL)
    return;
  status = json_object_get_string(v);
  if (strcmp(status, "passed") == 0 || strcmp(status, "unsupported") == 0 ||
      (expected && strcmp(status, "failed") == 0))
    return;
  v = merge_member(sample, "round");
  failure = merge_member(sample, "failure");
  refuse(c, "lane '%s' sample %zu (round %s): %s%s%s%s%s", lane, i + 1,
         json_object_is_type(v, json_type_int) && number_in_range(v)
             ? json_object_get_string(v)
             : "?",
         status, merge_member_str(failure, "stage") ? " at " : "",
         merge_member_str(failure, "stage") ? merge_member_str(failure, "stage")
                                            : "",
         merge_member_str(failure, "reason") ? ": " : "",
         merge_member_str(failure, "reason")
             ? merge_member_str(failure, "reason")
             : "");
}

static void check_lanes(struct check *c)
{
  struct merge_input *in = c->in;
  char path[FIELD_PATH_MAX], spath[FIELD_PATH_MAX];
  json_object *summary, *status, *samples;
  int expected;

  in->lanes = field(c, in->doc, "", "lanes", json_type_object, 0);
  if (in->lanes == NULL)
    return;
  if (json_object_object_length(in->lanes) > MERGE_MAX_LANES) {
    refuse(c, "too many lanes (%d, at most %d)",
           json_object_object_length(in->lanes), MERGE_MAX_LANES);
    in->lanes = NULL;
    return;
  }
  if (json_object_object_length(in->lanes) == 0)
    refuse(c, "no lanes");
  json_object_object_foreach(in->lanes, name, lane)
  {
    join_path(path, sizeof(path), "lanes", name);
    if (!json_object_is_type(lane, json_type_object)) {
      refuse(c, "'%s' is %s, expected an object", path,
             type_phrase(json_object_get_type(lane)));
      continue;
    }
    summary = field(c, lane, path, "summary", json_type_object, 0);
    join_path(spath, sizeof(spath), path, "summary");
    status = field(c, summary, spath, "status", json_type_string, 0);
    expected = status != NULL &&
               strcmp(json_object_get_string(status), "expected_failure") == 0;
    /* unsupported: a combination a runtime does not implement, not
     * tested (a peer exited 127, or the matrix says so). */
    if (status != NULL && !expected &&
        strcmp(json_object_get_string(status), "passed") != 0 &&
        strcmp(json_object_get_string(status), "unsupported") != 0)
      refuse(c, "lane '%s' is %s, not passed", name,
             json_object_get_string(status));
    samples = field(c, lane, path, "samples", json_type_array, 0);
    for (size_t i = 0; samples && i < json_object_array_length(samples); i++)
      check_sample(c, name, expected, json_object_array_get_idx(samples, i), i);
  }
}

static void check_cleanliness(struct check *c)
{
  json_object *cl =
      field(c, c->in->doc, "", "cleanliness", json_type_object, 0);
  static const char *const counted[] = {"pairs_started", "natural_exits"};
  int64_t v;

  for (size_t i = 0; i < sizeof(counted) / sizeof(counted[0]); i++)
    if (field_int(c, cl, "cleanliness", counted[i], &v) == 0 && v < 0)
      refuse(c, "'cleanliness.%s' is negative (%" PRId64 ")", counted[i], v);
  for (size_t i = 0; i < sizeof(must_be_zero) / sizeof(must_be_zero[0]); i++) {
    if (field_int(c, cl, "cleanliness", must_be_zero[i], &v) != 0)
      continue;
    if (v < 0)
      refuse(c, "'cleanliness.%s' is negative (%" PRId64 ")", must_be_zero[i],
             v);
    else if (v > 0)
      refuse(c, "cleanliness: %s is %" PRId64 " (must be 0)", must_be_zero[i],
             v);
  }
}

static void add_finding(void *ctx, const struct figures_finding *f)
{
  refuse(ctx, "%s", f->message);
}

static void check_document(struct check *c, const struct merge_options *o)
{
  struct merge_input *in = c->in;
  json_object *doc = in->doc, *v, *tool, *machine, *why;
  char path[FIELD_PATH_MAX] = "";
  const char *s;

  /* The schema says what every other field means: nothing more is read
   * from a document of one this code does not know. */
  if (!json_object_object_get_ex(doc, "schema_version", &v)) {
    refuse(c, "no 'schema_version': not crossrun evidence");
    goto unknown;
  }
  if (!json_object_is_type(v, json_type_int)) {
    refuse(c, "'schema_version' is %s, expected an integer",
           type_phrase(json_object_get_type(v)));
    goto unknown;
  }
  if (!number_in_range(v) || json_object_get_int64(v) != MERGE_SCHEMA_VERSION) {
    refuse(c, "unknown schema_version %s (this crossrun reads %d)",
           number_in_range(v) ? json_object_get_string(v)
                              : "beyond 64-bit integers",
           MERGE_SCHEMA_VERSION);
    goto unknown;
  }
  walk_numbers(c, doc, path, 0, sizeof(path));

  tool = field(c, doc, "", "tool", json_type_object, 0);
  v = field(c, tool, "tool", "name", json_type_string, 0);
  if (v != NULL && strcmp(json_object_get_string(v), "crossrun") != 0)
    refuse(c, "not crossrun evidence: tool.name is '%s'",
           json_object_get_string(v));
  in->version = field(c, tool, "tool", "version", json_type_string, 0);
  v = field(c, doc, "", "mode", json_type_string, 0);
  if (v != NULL && strcmp(s = json_object_get_string(v), "record") != 0)
    refuse(c,
           "not record evidence: mode is '%s' (only files of `crossrun "
           "record` merge)",
           s);
  if ((v = field(c, doc, "", "official", json_type_boolean, 0)) != NULL) {
    in->official = json_object_get_boolean(v);
    if (!in->official && !o->allow_rehearsal)
      refuse(c, "not official: a rehearsal or a run with flaky lanes "
                "(--allow-rehearsal merges it into an unofficial document)");
  }
  v = field(c, doc, "", "performance_claims", json_type_boolean, 0);
  in->claims = v != NULL ? json_object_get_boolean(v) : -1;
  v = field(c, doc, "", "complete", json_type_boolean, 0);
  if (v != NULL && !json_object_get_boolean(v)) {
    why = field(c, doc, "", "incomplete_reason", json_type_string, 1);
    refuse(c, "incomplete: %s",
           why ? json_object_get_string(why) : "no reason given");
  }
  machine = field(c, doc, "", "machine", json_type_object, 0);
  v = field(c, machine, "machine", "os", json_type_string, 0);
  if (v != NULL) {
    in->os = merge_os_index(s = json_object_get_string(v));
    if (in->os < 0)
      refuse(c,
             "unknown os '%s' in machine.os (expected linux, macos or "
             "windows)",
             s);
  }
  in->arch = field(c, machine, "machine", "arch", json_type_string, 0);
  in->machine = machine;
  in->workload = field(c, doc, "", "workload", json_type_object, 0);
  check_provenance(c);
  check_shard(c);
  check_runtimes(c);
  check_lanes(c);
  check_cleanliness(c);
  /* What the file derives must be what its samples give: a figure edited
   * after the run is refused here, as crossrun validate refuses it. */
  figures_check(doc, add_finding, c);
  return;
unknown:
  json_object_put(in->doc);
  in->doc = NULL;
}

void merge_input_load(struct merge_input *in, const struct merge_options *o,
                      struct merge_problems *p)
{
  struct check c = {p, in};
  struct dynbuf text;
  char err[512];
  int rc;

  in->os = -1;
  in->official = in->claims = in->shard_state = -1;
  rc = json_read_bytes(in->path, JSON_READ_MAX_BYTES, &text, err, sizeof(err));
  if (rc != 0) {
    merge_problems_add(p, in->path, "%s", err);
    return;
  }
  if (sha256_bytes(dynbuf_ptr(&text), dynbuf_len(&text), in->sha256) != 0)
    merge_problems_add(p, in->path, "cannot hash");
  else
    in->doc = parse(&c, dynbuf_ptr(&text), dynbuf_len(&text));
  dynbuf_release(&text);
  if (in->doc != NULL)
    check_document(&c, o);
}

json_object *merge_input_toolchain(const struct merge_input *in,
                                   const char *runtime)
{
  json_object *v =
      merge_member(merge_member(in->runtimes, runtime), "toolchain_version");
  return json_object_is_type(v, json_type_string) ? v : NULL;
}

int merge_input_declares(const struct merge_input *in, const char *runtime)
{
  return json_object_is_type(merge_member(in->runtimes, runtime),
                             json_type_object);
}

/* The names of key (lanes, runtimes) in g[0..n), each once, in order, as
 * the keys of a new object (the caller puts it). */
json_object *merge_name_set(struct merge_input *const *g, int n, int lanes)
{
  json_object *set = json_object_new_object(), *of;

  for (int i = 0; i < n; i++) {
    of = lanes ? g[i]->lanes : g[i]->runtimes;
    if (of == NULL)
      continue;
    json_object_object_foreach(of, name, v)
    {
      (void)v;
      if (!json_object_object_get_ex(set, name, NULL))
        json_object_object_add(set, name, NULL);
    }
  }
  return set;
}
