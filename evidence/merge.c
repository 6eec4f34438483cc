#include "evidence/merge.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/sha256.h"

#define NOS 3
#define FIELD_PATH_MAX 512 /* a field's dotted path in a message */
#define SHOWN_VALUE_MAX 200

static const char *const os_names[NOS] = {"linux", "macos", "windows"};

/* Counts a clean run leaves at 0; pairs_started and natural_exits are the
 * other two, summed when shards are joined. */
static const char *const must_be_zero[] = {"processes_left", "sockets_left",
                                           "forced_terminations",
                                           "temp_entries_left"};

struct input {
  const char *path; /* as given: problems name it */
  const char *name; /* base name: the key in "inputs" */
  char sha256[65];
  json_object *doc; /* NULL when unreadable or of an unknown schema */
  int os;           /* merge_os_index(machine.os) */
  json_object *arch, *commit, *version, *workload, *matrix, *runtimes, *lanes,
      *shard;
  int official; /* -1 unknown */
  int claims;
  int shard_state; /* 1 sharded, 0 a whole run, -1 unknown */
  int64_t shard_index, shard_count, lanes_total;
};

/* A problem about one input: reported through its check. */
struct check {
  struct merge_problems *p;
  struct input *in;
};

int merge_os_index(const char *os)
{
  for (int i = 0; i < NOS; i++)
    if (os != NULL && strcmp(os, os_names[i]) == 0)
      return i;
  return -1;
}

void merge_problems_init(struct merge_problems *p)
{
  p->lines = NULL;
  p->count = 0;
  p->cap = 0;
  p->dropped = 0;
}

void merge_problems_release(struct merge_problems *p)
{
  for (int i = 0; i < p->count; i++)
    free(p->lines[i]);
  free(p->lines);
  merge_problems_init(p);
}

static void vproblem(struct merge_problems *p, const char *file,
                     const char *fmt, va_list ap)
{
  char line[MERGE_LINE_MAX], *copy;
  size_t n = 0;
  int w;

  if (p->count >= MERGE_MAX_PROBLEMS) {
    p->dropped++;
    return;
  }
  if (file != NULL) {
    w = snprintf(line, sizeof(line), "%s: ", file);
    n = w < 0 ? 0 : (size_t)w < sizeof(line) ? (size_t)w : sizeof(line) - 1;
  }
  w = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
  if (w >= 0 && (size_t)w >= sizeof(line) - n)
    memcpy(line + sizeof(line) - 4, "...", 4);
  /* Names come from the inputs: a newline in one must not start a line. */
  for (char *c = line; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = '?';
  if (p->count == p->cap) {
    int cap = p->cap ? p->cap * 2 : 16;
    char **lines = realloc(p->lines, (size_t)cap * sizeof(*lines));
    if (lines == NULL) {
      p->dropped++;
      return;
    }
    p->lines = lines;
    p->cap = cap;
  }
  copy = strdup(line);
  if (copy == NULL) {
    p->dropped++;
    return;
  }
  p->lines[p->count++] = copy;
}

static void problem(struct merge_problems *p, const char *file, const char *fmt,
                    ...)
{
  va_list ap;
  va_start(ap, fmt);
  vproblem(p, file, fmt, ap);
  va_end(ap);
}

/* A problem of the input c checks. */
static void refuse(struct check *c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vproblem(c->p, c->in->path, fmt, ap);
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

static const char *str(json_object *v)
{
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : NULL;
}

/* obj.key when obj is an object and the member is a string, else NULL. */
static const char *member_str(json_object *obj, const char *key)
{
  json_object *v;
  if (!json_object_is_type(obj, json_type_object) ||
      !json_object_object_get_ex(obj, key, &v))
    return NULL;
  return str(v);
}

static json_object *member(json_object *obj, const char *key)
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

/* The whole file, at most MERGE_MAX_FILE_BYTES. */
static int read_all(const char *path, char **out, size_t *outlen, char *err,
                    size_t errlen)
{
  size_t cap = 65536, len = 0, n;
  char *buf = malloc(cap), *grown;
  FILE *f = fopen(path, "rb");

  if (f == NULL || buf == NULL) {
    snprintf(err, errlen, "cannot open: %s",
             f == NULL ? strerror(errno) : "out of memory");
    free(buf);
    if (f != NULL)
      fclose(f);
    return -1;
  }
  for (;;) {
    if (len == cap) {
      if (cap > MERGE_MAX_FILE_BYTES)
        break;
      cap = cap * 2 > MERGE_MAX_FILE_BYTES + 1 ? MERGE_MAX_FILE_BYTES + 1
                                               : cap * 2;
      grown = realloc(buf, cap);
      if (grown == NULL) {
        snprintf(err, errlen, "cannot read: out of memory");
        goto fail;
      }
      buf = grown;
    }
    n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0) {
      if (ferror(f)) {
        snprintf(err, errlen, "cannot read: %s", strerror(errno));
        goto fail;
      }
      break;
    }
  }
  if (len > MERGE_MAX_FILE_BYTES) {
    snprintf(err, errlen, "too large: more than %zu MiB",
             MERGE_MAX_FILE_BYTES >> 20);
    goto fail;
  }
  fclose(f);
  *out = buf;
  *outlen = len;
  return 0;
fail:
  fclose(f);
  free(buf);
  return -1;
}

static int is_space(char ch)
{
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static json_object *parse(struct check *c, const char *buf, size_t len)
{
  struct json_tokener *tok = json_tokener_new_ex(MERGE_MAX_DEPTH);
  enum json_tokener_error jerr;
  json_object *doc;
  size_t end, i;

  if (tok == NULL) {
    refuse(c, "cannot parse: out of memory");
    return NULL;
  }
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  /* len fits: MERGE_MAX_FILE_BYTES is below INT_MAX. */
  doc = json_tokener_parse_ex(tok, buf, (int)len);
  jerr = json_tokener_get_error(tok);
  end = json_tokener_get_parse_end(tok);
  json_tokener_free(tok);
  if (jerr != json_tokener_success) {
    json_object_put(doc);
    for (i = 0; i < len && is_space(buf[i]); i++)
      ;
    if (i == len)
      refuse(c, "not JSON: the file is empty");
    else if (jerr == json_tokener_continue)
      refuse(c,
             "truncated JSON: the text ends inside a value after %zu "
             "bytes",
             len);
    else if (jerr == json_tokener_error_depth)
      refuse(c, "not JSON this reads: nested more than %d levels deep",
             MERGE_MAX_DEPTH);
    else
      refuse(c, "not JSON: %s at byte %zu", json_tokener_error_desc(jerr), end);
    return NULL;
  }
  for (i = end; i < len && is_space(buf[i]); i++)
    ;
  if (i < len) {
    json_object_put(doc);
    refuse(c, "not JSON: more text after the document, at byte %zu", i);
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
  struct input *in = c->in;
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
  struct input *in = c->in;
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
  struct input *in = c->in;
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
  if (strcmp(status, "passed") == 0 ||
      (expected && strcmp(status, "failed") == 0))
    return;
  v = member(sample, "round");
  failure = member(sample, "failure");
  refuse(c, "lane '%s' sample %zu (round %s): %s%s%s%s%s", lane, i + 1,
         json_object_is_type(v, json_type_int) && number_in_range(v)
             ? json_object_get_string(v)
             : "?",
         status, member_str(failure, "stage") ? " at " : "",
         member_str(failure, "stage") ? member_str(failure, "stage") : "",
         member_str(failure, "reason") ? ": " : "",
         member_str(failure, "reason") ? member_str(failure, "reason") : "");
}

static void check_lanes(struct check *c)
{
  struct input *in = c->in;
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
    if (status != NULL && !expected &&
        strcmp(json_object_get_string(status), "passed") != 0)
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

static void check_document(struct check *c, const struct merge_options *o)
{
  struct input *in = c->in;
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
  in->workload = field(c, doc, "", "workload", json_type_object, 0);
  check_provenance(c);
  check_shard(c);
  check_runtimes(c);
  check_lanes(c);
  check_cleanliness(c);
  return;
unknown:
  json_object_put(in->doc);
  in->doc = NULL;
}

static void load_input(struct input *in, const struct merge_options *o,
                       struct merge_problems *p)
{
  struct check c = {p, in};
  char err[512], *buf = NULL;
  size_t len = 0;

  in->os = -1;
  in->official = in->claims = in->shard_state = -1;
  if (read_all(in->path, &buf, &len, err, sizeof(err)) != 0) {
    problem(p, in->path, "%s", err);
    return;
  }
  if (sha256_bytes(buf, len, in->sha256) != 0) {
    problem(p, in->path, "cannot hash");
    free(buf);
    return;
  }
  in->doc = parse(&c, buf, len);
  free(buf);
  if (in->doc != NULL)
    check_document(&c, o);
}

/* ---- between files ---- */

/* A line built from parts, cut at MERGE_LINE_MAX. */
struct line {
  char text[MERGE_LINE_MAX];
  size_t len;
};

static void line_add(struct line *l, const char *fmt, ...)
{
  va_list ap;
  int w;

  if (l->len >= sizeof(l->text) - 1)
    return;
  va_start(ap, fmt);
  w = vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt, ap);
  va_end(ap);
  if (w > 0)
    l->len += (size_t)w < sizeof(l->text) - l->len
                  ? (size_t)w
                  : sizeof(l->text) - l->len - 1;
}

/* keys NULL: the whole value; else only those members of an object. */
static void line_value(struct line *l, json_object *v, json_object *keys)
{
  const char *text;
  int n = 0;

  if (v == NULL) {
    line_add(l, "none");
  } else if (json_object_is_type(v, json_type_string)) {
    line_add(l, "'%.*s'", SHOWN_VALUE_MAX, json_object_get_string(v));
  } else if (keys != NULL) {
    json_object_object_foreach(keys, key, unused)
    {
      (void)unused;
      line_add(l, "%s%s ", n++ ? ", " : "", key);
      if (json_object_object_get_ex(v, key, NULL))
        line_value(l, member(v, key), NULL);
      else
        line_add(l, "absent");
    }
  } else {
    text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
    line_add(l, "%.*s%s", SHOWN_VALUE_MAX, text,
             strlen(text) > SHOWN_VALUE_MAX ? "..." : "");
  }
}

/* The members on which the objects among values[] (labelled) differ, as
 * the keys of a new object; NULL when a value is not an object. */
static json_object *differing_keys(json_object *const *values,
                                   const char *const *labels, int n)
{
  json_object *keys = json_object_new_object(), *first = NULL;

  for (int i = 0; i < n; i++) {
    if (labels[i] == NULL)
      continue;
    if (!json_object_is_type(values[i], json_type_object)) {
      json_object_put(keys);
      return NULL;
    }
    if (first == NULL)
      first = values[i];
  }
  for (int i = 0; i < n; i++) {
    if (labels[i] == NULL)
      continue;
    json_object_object_foreach(values[i], key, v)
    {
      if (!json_object_equal(v, member(first, key)) ||
          !json_object_object_get_ex(first, key, NULL))
        json_object_object_add(keys, key, NULL);
    }
    json_object_object_foreach(first, fkey, fv)
    {
      (void)fv;
      if (!json_object_object_get_ex(values[i], fkey, NULL))
        json_object_object_add(keys, fkey, NULL);
    }
  }
  return keys;
}

/* When values[0..n) (those whose label is not NULL) are not all equal, one
 * line "<prefix>: <value> in <label>, <label>; <value> in <label>". */
static void differ(struct merge_problems *p, const char *prefix,
                   json_object *const *values, const char *const *labels, int n)
{
  int group[MERGE_MAX_INPUTS], ngroups = 0;
  struct line l = {"", 0};
  json_object *keys;

  for (int i = 0; i < n; i++)
    group[i] = -1;
  for (int i = 0; i < n; i++) {
    if (labels[i] == NULL || group[i] >= 0)
      continue;
    group[i] = ngroups;
    for (int j = i + 1; j < n; j++)
      if (labels[j] != NULL && group[j] < 0 &&
          json_object_equal(values[i], values[j]))
        group[j] = ngroups;
    ngroups++;
  }
  if (ngroups < 2)
    return;
  keys = differing_keys(values, labels, n);
  line_add(&l, "%s: ", prefix);
  for (int g = 0; g < ngroups; g++) {
    int first = 1;
    for (int i = 0; i < n; i++) {
      if (group[i] != g)
        continue;
      if (first) {
        line_add(&l, "%s", g ? "; " : "");
        line_value(&l, values[i], keys);
        line_add(&l, " in %s", labels[i]);
        first = 0;
      } else {
        line_add(&l, ", %s", labels[i]);
      }
    }
  }
  json_object_put(keys);
  problem(p, NULL, "%s", l.text);
}

static json_object *toolchain_of(const struct input *in, const char *runtime)
{
  json_object *v = member(member(in->runtimes, runtime), "toolchain_version");
  return json_object_is_type(v, json_type_string) ? v : NULL;
}

static int declares(const struct input *in, const char *runtime)
{
  return json_object_is_type(member(in->runtimes, runtime), json_type_object);
}

static int is_pinned(const struct merge_options *o, const char *runtime)
{
  for (int i = 0; i < o->npinned; i++)
    if (strcmp(o->pinned[i], runtime) == 0)
      return 1;
  return 0;
}

static void check_names(struct merge_problems *p, struct input *ins, int n)
{
  for (int i = 0; i < n; i++) {
    struct line l = {"", 0};
    int dup = 0;
    for (int j = 0; j < i; j++)
      if (strcmp(ins[i].name, ins[j].name) == 0)
        dup = -1; /* named when j was */
    for (int j = i + 1; j < n && dup == 0; j++)
      if (strcmp(ins[i].name, ins[j].name) == 0)
        dup = 1;
    if (dup <= 0)
      continue;
    line_add(&l, "two inputs named '%s': %s", ins[i].name, ins[i].path);
    for (int j = i + 1; j < n; j++)
      if (strcmp(ins[i].name, ins[j].name) == 0)
        line_add(&l, ", %s", ins[j].path);
    problem(p, NULL, "%s", l.text);
  }
}

static void shard_label(const struct input *in, char *out, size_t outlen)
{
  const char *arch = str(in->arch) ? str(in->arch) : "?";
  if (in->shard_state == 1)
    snprintf(out, outlen, "%s (%s, shard %" PRId64 " of %" PRId64 ")", in->path,
             arch, in->shard_index, in->shard_count);
  else
    snprintf(out, outlen, "%s (%s)", in->path, arch);
}

/* The names of key (lanes, runtimes) in g[0..n), each once, in order, as
 * the keys of a new object (the caller puts it). */
static json_object *name_set(struct input *const *g, int n, int lanes)
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

/* The shards of one OS: one run, cut into disjoint parts that add up. */
static void check_shards(const struct merge_options *o,
                         struct merge_problems *p, const char *os,
                         struct input *const *g, int n)
{
  json_object *values[MERGE_MAX_INPUTS], *runtimes;
  const char *labels[MERGE_MAX_INPUTS];
  char prefix[256];
  int64_t count = g[0]->shard_count, total = g[0]->lanes_total, held = 0;
  int counts_agree = 1, totals_agree = 1, all_lanes = 1;

  for (int i = 0; i < n; i++) {
    counts_agree &= g[i]->shard_count == count;
    totals_agree &= g[i]->lanes_total == total;
    all_lanes &= g[i]->lanes != NULL;
    labels[i] = g[i]->path;
  }
  if (!counts_agree) {
    for (int i = 0; i < n; i++)
      values[i] = member(g[i]->shard, "count");
    snprintf(prefix, sizeof(prefix), "%s: shard counts differ", os);
    differ(p, prefix, values, labels, n);
  }
  if (!totals_agree) {
    for (int i = 0; i < n; i++)
      values[i] = member(g[i]->shard, "lanes_total");
    snprintf(prefix, sizeof(prefix), "%s: shards differ on lanes_total", os);
    differ(p, prefix, values, labels, n);
  }
  for (int64_t k = 1; counts_agree && k <= count; k++) {
    struct line l = {"", 0};
    int found = 0;
    for (int i = 0; i < n; i++)
      if (g[i]->shard_index == k)
        line_add(&l, "%s%s", found++ ? ", " : "", g[i]->path);
    if (found == 0)
      problem(p, NULL, "%s: shard %" PRId64 " of %" PRId64 " missing", os, k,
              count);
    else if (found > 1)
      problem(p, NULL,
              "%s: shard %" PRId64 " of %" PRId64 " given %d times: %s", os, k,
              count, found, l.text);
  }
  /* Each lane once: named at its first shard, with every shard holding it. */
  for (int i = 0; i < n; i++) {
    if (g[i]->lanes == NULL)
      continue;
    json_object_object_foreach(g[i]->lanes, lane, lv)
    {
      struct line l = {"", 0};
      int earlier = 0, holders = 0;
      (void)lv;
      for (int j = 0; j < i && !earlier; j++)
        earlier = member(g[j]->lanes, lane) != NULL;
      if (earlier)
        continue;
      held++;
      for (int j = i; j < n; j++)
        if (member(g[j]->lanes, lane) != NULL)
          line_add(&l, "%s%s (shard %" PRId64 ")", holders++ ? ", " : "",
                   g[j]->path, g[j]->shard_index);
      if (holders > 1)
        problem(p, NULL, "%s: lane '%s' is in more than one shard: %s", os,
                lane, l.text);
    }
  }
  if (totals_agree && all_lanes && held != total)
    problem(p, NULL,
            "%s: the shards hold %" PRId64 " lanes, but lanes_total "
            "is %" PRId64,
            os, held, total);
  /* One OS's document has one toolchain per runtime. Pinned ones are
   * compared across every input anyway. */
  runtimes = name_set(g, n, 0);
  json_object_object_foreach(runtimes, runtime, unused)
  {
    (void)unused;
    if (is_pinned(o, runtime))
      continue;
    for (int i = 0; i < n; i++) {
      values[i] = toolchain_of(g[i], runtime);
      labels[i] = declares(g[i], runtime) ? g[i]->path : NULL;
    }
    snprintf(prefix, sizeof(prefix),
             "%s: the toolchain of '%s' differs between shards", os, runtime);
    differ(p, prefix, values, labels, n);
  }
  json_object_put(runtimes);
}

/* The inputs of one OS: one whole run, or the shards of one. */
static void check_os(const struct merge_options *o, struct merge_problems *p,
                     int os, struct input *const *g, int n)
{
  json_object *values[MERGE_MAX_INPUTS];
  const char *labels[MERGE_MAX_INPUTS];
  char prefix[256], label[1024];
  int whole = 0, unknown = 0;

  for (int i = 0; i < n; i++) {
    whole += g[i]->shard_state == 0;
    unknown += g[i]->shard_state < 0;
  }
  if (n > 1 && whole > 0) {
    struct line l = {"", 0};
    line_add(&l, "os '%s' present %d times:", os_names[os], n);
    for (int i = 0; i < n; i++) {
      shard_label(g[i], label, sizeof(label));
      line_add(&l, "%s %s", i ? "," : "", label);
    }
    problem(p, NULL, "%s", l.text);
    return;
  }
  for (int i = 0; i < n; i++) {
    values[i] = g[i]->arch;
    labels[i] = g[i]->arch ? g[i]->path : NULL;
  }
  snprintf(prefix, sizeof(prefix), "os '%s' present twice, on two arches",
           os_names[os]);
  differ(p, prefix, values, labels, n);
  if (whole == 0 && unknown == 0)
    check_shards(o, p, os_names[os], g, n);
}

static void check_lane_sets(struct merge_problems *p,
                            struct input *groups[NOS][MERGE_MAX_INPUTS],
                            const int sizes[NOS])
{
  json_object *mine[NOS], *all = json_object_new_object();
  int present = 0;

  for (int os = 0; os < NOS; os++) {
    mine[os] = name_set(groups[os], sizes[os], 1);
    present += json_object_object_length(mine[os]) > 0;
    json_object_object_foreach(mine[os], lane, v)
    {
      (void)v;
      json_object_object_add(all, lane, NULL);
    }
  }
  for (int os = 0; os < NOS && present > 1; os++) {
    struct line l = {"", 0};
    int missing = 0;
    if (json_object_object_length(mine[os]) == 0)
      continue;
    json_object_object_foreach(all, lane, v)
    {
      (void)v;
      if (!json_object_object_get_ex(mine[os], lane, NULL))
        line_add(&l, "%s'%s'", missing++ ? ", " : "", lane);
    }
    if (missing)
      problem(p, NULL,
              "lane sets differ: %s lacks %s, which other platforms "
              "have",
              os_names[os], l.text);
  }
  for (int os = 0; os < NOS; os++)
    json_object_put(mine[os]);
  json_object_put(all);
}

static void check_together(const struct merge_options *o,
                           struct merge_problems *p, struct input *ins, int n)
{
  struct input *groups[NOS][MERGE_MAX_INPUTS];
  json_object *values[MERGE_MAX_INPUTS] = {NULL};
  const char *labels[MERGE_MAX_INPUTS] = {NULL};
  int sizes[NOS] = {0}, unknown = 0;
  char prefix[256];

  check_names(p, ins, n);
  for (int i = 0; i < n; i++) {
    if (ins[i].os >= 0)
      groups[ins[i].os][sizes[ins[i].os]++] = &ins[i];
    else
      unknown++;
  }
  for (int r = 0; r < o->nrequire; r++) {
    int os = merge_os_index(o->require[r]);
    if (os >= 0 && sizes[os] == 0)
      problem(p, NULL,
              "required os '%s' missing: no input has machine.os "
              "'%s'%s",
              os_names[os], os_names[os],
              unknown ? " (some inputs have no known os)" : "");
  }
  for (int os = 0; os < NOS; os++)
    if (sizes[os] > 0)
      check_os(o, p, os, groups[os], sizes[os]);

#define DIFFER(what, member_name)                                              \
  do {                                                                         \
    for (int i = 0; i < n; i++) {                                              \
      values[i] = ins[i].member_name;                                          \
      labels[i] = ins[i].member_name ? ins[i].path : NULL;                     \
    }                                                                          \
    differ(p, what, values, labels, n);                                        \
  } while (0)
  DIFFER("commits differ", commit);
  DIFFER("tool versions differ", version);
  DIFFER("workloads differ", workload);
  DIFFER("matrix files differ (provenance.matrix_sha256)", matrix);
#undef DIFFER
  check_lane_sets(p, groups, sizes);

  for (int k = 0; k < o->npinned; k++) {
    int declared = 0;
    for (int i = 0; i < n; i++) {
      values[i] = toolchain_of(&ins[i], o->pinned[k]);
      labels[i] = declares(&ins[i], o->pinned[k]) ? ins[i].path : NULL;
      declared += labels[i] != NULL;
    }
    if (declared == 0) {
      problem(p, NULL, "--pinned: no input declares runtime '%s'",
              o->pinned[k]);
      continue;
    }
    snprintf(prefix, sizeof(prefix),
             "the toolchain of pinned runtime '%s' differs", o->pinned[k]);
    differ(p, prefix, values, labels, n);
  }
  /* Runtimes the matrix pins (toolchain_pinned), unless --pinned named
   * them already. */
  {
    json_object *pins = json_object_new_object();
    for (int i = 0; i < n; i++) {
      if (ins[i].runtimes == NULL)
        continue;
      json_object_object_foreach(ins[i].runtimes, name, rt)
      {
        json_object *flag = member(rt, "toolchain_pinned");
        if (json_object_is_type(flag, json_type_boolean) &&
            json_object_get_boolean(flag) && !is_pinned(o, name))
          json_object_object_add(pins, name, NULL);
      }
    }
    json_object_object_foreach(pins, name, unused)
    {
      (void)unused;
      for (int i = 0; i < n; i++) {
        values[i] = toolchain_of(&ins[i], name);
        labels[i] = declares(&ins[i], name) ? ins[i].path : NULL;
      }
      snprintf(prefix, sizeof(prefix),
               "the toolchain of runtime '%s', which the matrix pins, differs",
               name);
      differ(p, prefix, values, labels, n);
    }
    json_object_put(pins);
  }
}

/* ---- the merged document ---- */

static void put(json_object *o, const char *key, json_object *v)
{
  json_object_object_add(o, key, v);
}

/* Members of each shard's key object, the first shard's first. NULL when
 * no shard has an object there (comparisons of a smoke run). */
static json_object *join_union(struct input *const *g, int n, const char *key)
{
  json_object *out = NULL, *v;
  for (int i = 0; i < n; i++) {
    v = member(g[i]->doc, key);
    if (!json_object_is_type(v, json_type_object))
      continue;
    if (out == NULL)
      out = json_object_new_object();
    json_object_object_foreach(v, name, val)
    {
      if (member(out, name) == NULL)
        put(out, name, json_object_get(val));
    }
  }
  return out;
}

/* Shard K holds lanes K-1, K-1+N, ... of the run's order: dealing them
 * back round by round restores it. */
static json_object *join_lanes(struct input *const *g, int n)
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

static json_object *join_cleanliness(struct input *const *g, int n)
{
  json_object *first = member(g[0]->doc, "cleanliness");
  json_object *out = json_object_new_object();

  json_object_object_foreach(first, key, val)
  {
    int64_t sum = 0, v;
    if (!json_object_is_type(val, json_type_int)) {
      put(out, key, json_object_get(val));
      continue;
    }
    for (int i = 0; i < n; i++) {
      v = json_object_get_int64(member(member(g[i]->doc, "cleanliness"), key));
      sum = v > 0 && sum > INT64_MAX - v ? INT64_MAX : sum + (v > 0 ? v : 0);
    }
    put(out, key, json_object_new_int64(sum));
  }
  return out;
}

/* One OS's document from its whole run or its shards (sorted by index). */
static json_object *join_platform(struct input *const *g, int n)
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
    else if (strcmp(key, "runtimes") == 0 || strcmp(key, "comparisons") == 0)
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

static json_object *input_json(const struct input *in)
{
  json_object *o = json_object_new_object(), *shard = NULL;

  put(o, "sha256", json_object_new_string(in->sha256));
  put(o, "os", json_object_new_string(os_names[in->os]));
  put(o, "arch", json_object_get(in->arch));
  if (in->shard_state == 1) {
    shard = json_object_new_object();
    put(shard, "index", json_object_new_int64(in->shard_index));
    put(shard, "count", json_object_new_int64(in->shard_count));
  }
  put(o, "shard", shard);
  return o;
}

static json_object *build(struct input *ins, int n)
{
  struct input *groups[NOS][MERGE_MAX_INPUTS];
  json_object *doc = json_object_new_object(), *o, *inputs, *tools, *platforms,
              *runtimes;
  int sizes[NOS] = {0}, official = 1, claims = 1;

  for (int i = 0; i < n; i++) {
    struct input **g = groups[ins[i].os];
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
  for (int os = 0; os < NOS; os++) {
    struct input *const *g = groups[os];
    if (sizes[os] == 0)
      continue;
    for (int i = 0; i < sizes[os]; i++)
      put(inputs, g[i]->name, input_json(g[i]));
    runtimes = name_set(g, sizes[os], 0);
    json_object_object_foreach(runtimes, runtime, unused)
    {
      json_object *t = member(tools, runtime), *v = NULL;
      (void)unused;
      if (t == NULL) {
        t = json_object_new_object();
        put(tools, runtime, t);
      }
      for (int i = 0; i < sizes[os] && v == NULL; i++)
        v = toolchain_of(g[i], runtime);
      put(t, os_names[os], json_object_get(v));
    }
    json_object_put(runtimes);
    put(platforms, os_names[os], join_platform(g, sizes[os]));
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
  struct input *ins;

  *out = NULL;
  if (npaths <= 0 || npaths > MERGE_MAX_INPUTS) {
    problem(p, NULL, "%d input files (expected 1 to %d)", npaths,
            MERGE_MAX_INPUTS);
    return -1;
  }
  ins = calloc((size_t)npaths, sizeof(*ins));
  if (ins == NULL) {
    problem(p, NULL, "out of memory");
    return -1;
  }
  for (int i = 0; i < npaths; i++) {
    ins[i].path = paths[i];
    ins[i].name = base_name(paths[i]);
    load_input(&ins[i], o, p);
  }
  check_together(o, p, ins, npaths);
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
    const char *of = member_str(in, "os");
    (void)file;
    n += of != NULL && strcmp(of, os) == 0;
  }
  return n;
}

void merge_summary(json_object *merged, char *out, size_t outlen)
{
  json_object *platforms = member(merged, "platforms");
  json_object *inputs = member(merged, "inputs");
  struct line l = {"", 0}, expected = {"", 0};
  int64_t samples = 0;
  int nplatforms = 0, lanes = 0, nexpected = 0, shards;

  line_add(&l, "merged %d files into",
           json_object_is_type(inputs, json_type_object)
               ? json_object_object_length(inputs)
               : 0);
  if (json_object_is_type(platforms, json_type_object)) {
    json_object_object_foreach(platforms, os, doc)
    {
      const char *arch = member_str(member(doc, "machine"), "arch");
      json_object *ls = member(doc, "lanes");
      line_add(&l, "%s %s %s", nplatforms++ ? "," : "", os, arch ? arch : "?");
      shards = count_inputs_of(inputs, os);
      if (shards > 1)
        line_add(&l, " (%d shards)", shards);
      if (!json_object_is_type(ls, json_type_object))
        continue;
      lanes = json_object_object_length(ls);
      json_object_object_foreach(ls, name, lane)
      {
        json_object *s = member(lane, "samples");
        const char *status = member_str(member(lane, "summary"), "status");
        if (json_object_is_type(s, json_type_array))
          samples += (int64_t)json_object_array_length(s);
        if (status != NULL && strcmp(status, "expected_failure") == 0)
          line_add(&expected, "%s%s %s", nexpected++ ? ", " : "", os, name);
      }
    }
  }
  line_add(&l, ": %d lanes, %" PRId64 " samples, %s", lanes, samples,
           json_object_get_boolean(member(merged, "official"))
               ? "official"
               : "not official (rehearsal)");
  if (nexpected)
    line_add(&l, "; %d expected failure%s: %s", nexpected,
             nexpected > 1 ? "s" : "", expected.text);
  snprintf(out, outlen, "%s", l.text);
}
