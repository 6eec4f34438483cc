/* crossrun merge: record files of three OSes, crafted from a real quick
 * run, merged into one (every input named with its SHA-256, every raw
 * sample kept); the shards of one OS joined; a table of broken inputs,
 * each refused with its own message; one input with many problems, all
 * named; and the command line's exit statuses and output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evidence/merge.h"
#include "evidence/sha256.h"
#include "runner/commands.h"
#include "tests/lib_json.h"
#include "tests/tap.h"

#define COMMIT "0123456789abcdef0123456789abcdef01234567"
#define OTHER_COMMIT "fedcba9876543210fedcba9876543210fedcba98"
#define MATRIX_SHA                                                             \
  "5f2b0c6a4e1d3c7b9a8f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a291"
#define MAX_FILES 8

static char dir[512];
static json_object *base; /* the quick run, its passed lanes only */
static const char *lane0; /* the name of base's first lane */
static int nlanes;

static const char *const oses[3] = {"linux", "macos", "windows"};
static const char *const arches[3] = {"x86_64", "arm64", "x86_64"};
static const char *const good[3] = {"evidence-linux-x86_64.json",
                                    "evidence-macos-arm64.json",
                                    "evidence-windows-x86_64.json"};

static void in_dir(char *out, size_t outlen, const char *name)
{
  snprintf(out, outlen, "%s/%s", dir, name);
}

/* A member whose name has dots (a file name). */
static json_object *get(json_object *o, const char *key)
{
  json_object *v = NULL;
  return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *path_str(json_object *o, const char *dotted)
{
  json_object *v = json_at(o, dotted);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : "";
}

/* Sets doc's member at a dotted path (the parent must exist); takes v. */
static void set(json_object *doc, const char *dotted, json_object *v)
{
  char parent[256];
  const char *dot = strrchr(dotted, '.');
  json_object *p = doc;

  if (dot != NULL) {
    snprintf(parent, sizeof(parent), "%.*s", (int)(dot - dotted), dotted);
    p = json_at(doc, parent);
  }
  if (json_object_is_type(p, json_type_array))
    json_object_array_put_idx(p, (size_t)atoi(dot + 1), v);
  else if (json_object_is_type(p, json_type_object))
    json_object_object_add(p, dot ? dot + 1 : dotted, v);
  else
    json_object_put(v);
}

static json_object *copy(json_object *o)
{
  json_object *out = NULL;
  json_object_deep_copy(o, &out, NULL);
  return out;
}

/* A record of os crafted from the quick run, the way `crossrun record`
 * writes one. */
static json_object *craft(int os)
{
  json_object *d = copy(base), *prov, *ci, *matrix;

  set(d, "mode", json_object_new_string("record"));
  set(d, "official", json_object_new_boolean(1));
  set(d, "performance_claims", json_object_new_boolean(1));
  json_object_object_del(d, "performance_note");
  /* A measurement has comparisons; a smoke run's are null. */
  set(d, "comparisons", json_object_new_object());
  prov = json_object_new_object();
  set(prov, "commit", json_object_new_string(COMMIT));
  set(prov, "branch", json_object_new_string("main"));
  set(prov, "clean", json_object_new_boolean(1));
  ci = json_object_new_object();
  set(ci, "detected", json_object_new_boolean(1));
  set(ci, "provider", json_object_new_string("github_actions"));
  set(ci, "workflow", json_object_new_string("record"));
  set(ci, "run_id", json_object_new_string("4242"));
  set(ci, "run_attempt", json_object_new_string("1"));
  set(prov, "ci", ci);
  matrix = json_object_new_object();
  set(matrix, "matrix.yaml", json_object_new_string(MATRIX_SHA));
  set(prov, "matrix_sha256", matrix);
  set(prov, "cpu_governor", NULL);
  set(prov, "load_average_1m_at_start", NULL);
  set(d, "provenance", prov);
  set(d, "shard", NULL);
  set(d, "machine.os", json_object_new_string(oses[os]));
  set(d, "machine.arch", json_object_new_string(arches[os]));
  return d;
}

/* Writes doc as name in the folder, with marker's first occurrence
 * replaced by replacement when marker is given; puts doc. */
static void save_with(json_object *doc, const char *name, const char *marker,
                      const char *replacement)
{
  const char *text = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
  const char *at = marker ? strstr(text, marker) : NULL;
  char file[512];
  FILE *f;

  in_dir(file, sizeof(file), name);
  f = fopen(file, "wb");
  if (f != NULL) {
    if (at != NULL) {
      fwrite(text, 1, (size_t)(at - text), f);
      fputs(replacement, f);
      fputs(at + strlen(marker), f);
    } else {
      fputs(text, f);
    }
    fputc('\n', f);
    fclose(f);
  }
  json_object_put(doc);
}

static void save(json_object *doc, const char *name)
{
  save_with(doc, name, NULL, NULL);
}

static void save_text(const char *name, const char *text, size_t len)
{
  char file[512];
  FILE *f;
  in_dir(file, sizeof(file), name);
  f = fopen(file, "wb");
  if (f != NULL) {
    fwrite(text, 1, len, f);
    fclose(f);
  }
}

/* Shard index of count from doc: lanes i with i % count == index - 1. */
static json_object *shard_of(json_object *doc, int index, int count)
{
  json_object *d = copy(doc), *lanes = json_object_new_object(), *shard;
  int i = 0, samples = 0;

  json_object_object_foreach(json_at(doc, "lanes"), name, lane)
  {
    if (i++ % count == index - 1) {
      json_object_object_add(lanes, name, json_object_get(lane));
      samples += (int)json_object_array_length(json_at(lane, "samples"));
    }
  }
  set(d, "lanes", lanes);
  shard = json_object_new_object();
  set(shard, "index", json_object_new_int(index));
  set(shard, "count", json_object_new_int(count));
  set(shard, "lanes_total", json_object_new_int(nlanes));
  set(d, "shard", shard);
  set(d, "cleanliness.pairs_started", json_object_new_int(samples));
  set(d, "cleanliness.natural_exits", json_object_new_int(samples));
  return d;
}

struct files {
  const char *names[MAX_FILES];
  int n;
  const char *pinned[2];
  struct merge_options o;
};

/* broken in place of os's good file, with the other OSes' good files. */
static void with_good(struct files *f, const char *broken, int os)
{
  for (int i = 0; i < 3; i++)
    f->names[f->n++] = i == os ? broken : good[i];
}

static int merge(struct files *f, json_object **out, struct merge_problems *p)
{
  static const char *const require[] = {"linux", "macos", "windows"};
  char paths[MAX_FILES][512];
  const char *argv[MAX_FILES];

  if (f->o.require == NULL) {
    f->o.require = require;
    f->o.nrequire = 3;
  }
  for (int i = 0; i < f->n; i++) {
    in_dir(paths[i], sizeof(paths[i]), f->names[i]);
    argv[i] = paths[i];
  }
  return merge_files(&f->o, argv, f->n, out, p);
}

/* The line naming file (NULL: a line about no one file) that contains
 * message, or NULL. */
static const char *find_line(const struct merge_problems *p, const char *file,
                             const char *message)
{
  char prefix[600];
  size_t plen;

  if (file != NULL)
    snprintf(prefix, sizeof(prefix), "%s/%s: ", dir, file);
  plen = file ? strlen(prefix) : 0;
  for (int i = 0; i < p->count; i++) {
    const char *line = p->lines[i];
    if (file != NULL && strncmp(line, prefix, plen) != 0)
      continue;
    if (file == NULL && strncmp(line, dir, strlen(dir)) == 0)
      continue;
    if (strstr(line + plen, message) != NULL)
      return p->lines[i];
  }
  return NULL;
}

static void show(const struct merge_problems *p)
{
  for (int i = 0; i < p->count; i++)
    tap_diag("  %s", p->lines[i]);
}

static void test_three_oses(void)
{
  struct files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *inputs, *back;
  char file[512], out[512], partial[600], hex[65], err[256], line[4096];
  int rc, ok, samples = 0;

  with_good(&f, good[0], 0);
  rc = merge(&f, &m, &p);
  if (!TAP_OK(rc == 0 && m != NULL && p.count == 0,
              "three OSes' records merge")) {
    show(&p);
    merge_problems_release(&p);
    return;
  }
  TAP_OK(json_object_get_int(json_at(m, "schema_version")) == 1 &&
             strcmp(path_str(m, "tool.name"), "crossrun") == 0 &&
             strcmp(path_str(m, "tool.version"),
                    path_str(base, "tool.version")) == 0 &&
             strcmp(path_str(m, "mode"), "merged") == 0 &&
             json_object_get_boolean(json_at(m, "performance_claims")) &&
             json_object_get_boolean(json_at(m, "official")) &&
             strcmp(path_str(m, "commit"), COMMIT) == 0,
         "merged: schema_version, tool, mode, claims, official, commit");
  inputs = json_at(m, "inputs");
  TAP_OK(json_object_object_length(inputs) == 3, "merged: three inputs");
  for (int os = 0; os < 3; os++) {
    json_object *in = get(inputs, good[os]);
    in_dir(file, sizeof(file), good[os]);
    ok = sha256_file(file, hex, err, sizeof(err)) == 0;
    TAP_OK(ok && in != NULL && strcmp(path_str(in, "sha256"), hex) == 0 &&
               strcmp(path_str(in, "os"), oses[os]) == 0 &&
               strcmp(path_str(in, "arch"), arches[os]) == 0 &&
               json_object_object_get_ex(in, "shard", NULL) &&
               json_at(in, "shard") == NULL,
           "input '%s': its name, the SHA-256 of its bytes, os, arch, no "
           "shard",
           good[os]);
  }
  TAP_OK(json_object_object_length(json_at(m, "platforms")) == 3,
         "merged: three platforms");
  for (int os = 0; os < 3; os++) {
    json_object *pl = json_at(json_at(m, "platforms"), oses[os]);
    json_object *want = craft(os);
    ok = pl != NULL && !json_object_object_get_ex(pl, "shard", NULL) &&
         strcmp(path_str(pl, "machine.os"), oses[os]) == 0 &&
         json_object_equal(json_at(pl, "lanes"), json_at(want, "lanes")) &&
         json_object_equal(json_at(pl, "runtimes"), json_at(want, "runtimes")) &&
         json_object_equal(json_at(pl, "cleanliness"), json_at(want, "cleanliness"));
    json_object_object_foreach(json_at(pl, "lanes"), name, lane)
    {
      (void)name;
      samples += (int)json_object_array_length(json_at(lane, "samples"));
    }
    TAP_OK(ok,
           "platform %s: the record without its shard field, every "
           "lane and raw sample as written",
           oses[os]);
    json_object_put(want);
  }
  {
    int base_samples = 0;
    json_object_object_foreach(json_at(base, "lanes"), name, lane)
    {
      (void)name;
      base_samples += (int)json_object_array_length(json_at(lane, "samples"));
    }
    TAP_OK(samples == 3 * base_samples && samples > 0,
           "every raw sample kept: %d = 3 x %d", samples, base_samples);
  }
  ok = json_object_object_length(json_at(m, "toolchain_versions")) ==
       json_object_object_length(json_at(base, "runtimes"));
  json_object_object_foreach(json_at(base, "runtimes"), rt, rv)
  {
    json_object *tv = json_at(json_at(m, "toolchain_versions"), rt);
    for (int os = 0; os < 3; os++)
      ok &=
          json_object_equal(json_at(tv, oses[os]), json_at(rv, "toolchain_version"));
  }
  TAP_OK(ok, "toolchain_versions: every runtime's version on every OS");

  in_dir(out, sizeof(out), "merged.json");
  snprintf(partial, sizeof(partial), "%s.partial", out);
  TAP_OK(merge_write(m, out, err, sizeof(err)) == 0, "merge_write: %s", err);
  back = json_object_from_file(out);
  TAP_OK(back != NULL && json_object_equal(back, m) &&
             access(partial, F_OK) != 0,
         "the written file is the merged document; no temporary file left");
  json_object_put(back);
  merge_summary(m, line, sizeof(line));
  TAP_OK(strstr(line, "merged 3 files") && strstr(line, "linux x86_64") &&
             strstr(line, "macos arm64") && strstr(line, ", official"),
         "summary: %s", line);
  remove(out);
  json_object_put(m);
  merge_problems_release(&p);
}

static void test_shards(void)
{
  struct files f = {{"linux-shard-1-of-2.json", "evidence-macos-arm64.json",
                     "evidence-windows-x86_64.json", "linux-shard-2-of-2.json"},
                    4,
                    {NULL},
                    MERGE_OPTIONS_INIT};
  struct files reversed = {
      {"linux-shard-2-of-2.json", "evidence-windows-x86_64.json",
       "linux-shard-1-of-2.json", "evidence-macos-arm64.json"},
      4,
      {NULL},
      MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *m2 = NULL, *linux_doc, *lanes, *want = craft(0);
  json_object *s1, *s2;
  struct json_object_iterator a, ae, b, be;
  int ok, samples = 0;

  if (nlanes < 2) {
    TAP_OK(1, "# SKIP shards need 2 lanes; the quick run passed %d", nlanes);
    json_object_put(want);
    return;
  }
  save(shard_of(want, 1, 2), "linux-shard-1-of-2.json");
  save(shard_of(want, 2, 2), "linux-shard-2-of-2.json");
  if (!TAP_OK(merge(&f, &m, &p) == 0, "2 shards of linux join")) {
    show(&p);
    goto out;
  }
  TAP_OK(merge(&reversed, &m2, &p) == 0 &&
             json_object_equal(json_at(m, "platforms"), json_at(m2, "platforms")),
         "the same document whatever the order of the files");
  linux_doc = json_at(m, "platforms.linux");
  lanes = json_at(linux_doc, "lanes");
  s1 = get(json_at(m, "inputs"), "linux-shard-1-of-2.json");
  s2 = get(json_at(m, "inputs"), "linux-shard-2-of-2.json");
  TAP_OK(strlen(path_str(s1, "sha256")) == 64 &&
             json_object_get_int(json_at(s1, "shard.index")) == 1 &&
             json_object_get_int(json_at(s2, "shard.index")) == 2 &&
             json_object_get_int(json_at(s2, "shard.count")) == 2 &&
             strcmp(path_str(s2, "os"), "linux") == 0 &&
             json_object_object_length(json_at(m, "inputs")) == 4,
         "inputs: both shards, with index and count");
  TAP_OK(linux_doc != NULL &&
             !json_object_object_get_ex(linux_doc, "shard", NULL) &&
             json_object_equal(lanes, json_at(want, "lanes")),
         "linux: one document, no shard field, every lane and sample");
  ok = json_object_object_length(lanes) == nlanes;
  a = json_object_iter_begin(lanes);
  ae = json_object_iter_end(lanes);
  b = json_object_iter_begin(json_at(want, "lanes"));
  be = json_object_iter_end(json_at(want, "lanes"));
  while (ok && !json_object_iter_equal(&a, &ae) &&
         !json_object_iter_equal(&b, &be)) {
    ok = strcmp(json_object_iter_peek_name(&a),
                json_object_iter_peek_name(&b)) == 0;
    json_object_iter_next(&a);
    json_object_iter_next(&b);
  }
  TAP_OK(ok, "linux: the lanes in the order of the unsharded run");
  if (json_object_object_get_ex(lanes, "c-c", NULL)) {
    /* c-c sits in one shard; the joined document compares every lane
     * with it all the same. */
    json_object *cmp = json_at(linux_doc, "comparisons");
    int all = json_object_is_type(cmp, json_type_object);
    json_object_object_foreach(lanes, lname, lane_v)
    {
      char key[200];
      (void)lane_v;
      snprintf(key, sizeof(key), "%s vs c-c", lname);
      if (strcmp(lname, "c-c") != 0 && all)
        all = json_object_object_get_ex(cmp, key, NULL);
    }
    TAP_OK(all, "linux: comparisons of every lane with c-c, across shards");
  }
  json_object_object_foreach(lanes, name, lane)
  {
    (void)name;
    samples += (int)json_object_array_length(json_at(lane, "samples"));
  }
  TAP_OK(json_object_get_int(json_at(linux_doc, "cleanliness.pairs_started")) ==
                 samples &&
             json_object_equal(json_at(linux_doc, "runtimes"),
                               json_at(want, "runtimes")),
         "linux: cleanliness summed over the shards (%d pairs), runtimes "
         "united",
         samples);
out:
  json_object_put(m);
  json_object_put(m2);
  json_object_put(want);
  merge_problems_release(&p);
}

/* ---- broken inputs: each makes its files ---- */

static void commit_differs(struct files *f)
{
  json_object *d = craft(1);
  set(d, "provenance.commit", json_object_new_string(OTHER_COMMIT));
  save(d, "macos-other-commit.json");
  with_good(f, "macos-other-commit.json", 1);
}

static void os_missing(struct files *f)
{
  f->names[f->n++] = good[0];
  f->names[f->n++] = good[1];
}

static void os_twice(struct files *f)
{
  save(craft(0), "linux-again.json");
  with_good(f, good[0], 0);
  f->names[f->n++] = "linux-again.json";
}

static void os_on_two_arches(struct files *f)
{
  json_object *d = craft(0);
  set(d, "machine.arch", json_object_new_string("arm64"));
  save(d, "evidence-linux-arm64.json");
  with_good(f, good[0], 0);
  f->names[f->n++] = "evidence-linux-arm64.json";
}

static void sample_failed(struct files *f)
{
  char p[256];
  json_object *d = craft(0), *failure = json_object_new_object();
  snprintf(p, sizeof(p), "lanes.%s.samples.0", lane0);
  set(json_at(d, p), "status", json_object_new_string("failed"));
  set(failure, "stage", json_object_new_string("client"));
  set(failure, "reason", json_object_new_string("protocol_violation"));
  set(json_at(d, p), "failure", failure);
  save(d, "linux-sample-failed.json");
  with_good(f, "linux-sample-failed.json", 0);
}

static void lane_not_passed(struct files *f)
{
  char p[256];
  json_object *d = craft(2);
  snprintf(p, sizeof(p), "lanes.%s.summary.status", lane0);
  set(d, p, json_object_new_string("unsupported"));
  save(d, "windows-unsupported.json");
  with_good(f, "windows-unsupported.json", 2);
}

static void schema_2(struct files *f)
{
  json_object *d = craft(0);
  set(d, "schema_version", json_object_new_int(2));
  save(d, "linux-schema-2.json");
  with_good(f, "linux-schema-2.json", 0);
}

static void truncated(struct files *f)
{
  json_object *d = craft(1);
  const char *text = json_object_to_json_string(d);
  save_text("macos-truncated.json", text, strlen(text) / 2);
  json_object_put(d);
  with_good(f, "macos-truncated.json", 1);
}

static void not_json(struct files *f)
{
  save_text("macos-not-json.json", "evidence: yes\n", 14);
  with_good(f, "macos-not-json.json", 1);
}

static void empty(struct files *f)
{
  save_text("macos-empty.json", "", 0);
  with_good(f, "macos-empty.json", 1);
}

static void too_deep(struct files *f)
{
  char text[402];
  memset(text, '[', 200);
  memset(text + 200, ']', 200);
  text[400] = '\n';
  save_text("macos-deep.json", text, 401);
  with_good(f, "macos-deep.json", 1);
}

static void lanes_as_list(struct files *f)
{
  json_object *d = craft(2), *list = json_object_new_array();
  json_object_object_foreach(json_at(d, "lanes"), name, lane)
  {
    (void)name;
    json_object_array_add(list, json_object_get(lane));
  }
  set(d, "lanes", list);
  save(d, "windows-lanes-list.json");
  with_good(f, "windows-lanes-list.json", 2);
}

static void count_as_string(struct files *f)
{
  json_object *d = craft(2);
  set(d, "cleanliness.sockets_left", json_object_new_string("0"));
  save(d, "windows-count-string.json");
  with_good(f, "windows-count-string.json", 2);
}

static void huge_double(struct files *f)
{
  char p[256];
  json_object *d = craft(0);
  snprintf(p, sizeof(p), "lanes.%s.samples.0.elapsed_ns", lane0);
  set(d, p, json_object_new_int64(777777777777771));
  save_with(d, "linux-1e400.json", "777777777777771", "1e400");
  with_good(f, "linux-1e400.json", 0);
}

static void huge_int(struct files *f)
{
  json_object *d = craft(0);
  set(d, "cleanliness.processes_left", json_object_new_int64(777777777777772));
  save_with(d, "linux-huge-int.json", "777777777777772",
            "99999999999999999999");
  with_good(f, "linux-huge-int.json", 0);
}

/* Shards 1 and 3 of 3: shard 2 missing. */
static void shard_gap(struct files *f)
{
  json_object *d = craft(0);
  save(shard_of(d, 1, 3), "linux-gap-1-of-3.json");
  save(shard_of(d, 3, 3), "linux-gap-3-of-3.json");
  json_object_put(d);
  with_good(f, "linux-gap-1-of-3.json", 0);
  f->names[f->n++] = "linux-gap-3-of-3.json";
}

/* Shard 2 of 2 also holds shard 1's first lane. */
static void shard_overlap(struct files *f)
{
  char p[256];
  json_object *d = craft(0), *s2 = shard_of(d, 2, 2);
  snprintf(p, sizeof(p), "lanes.%s", lane0);
  json_object_object_add(json_at(s2, "lanes"), lane0, json_object_get(json_at(d, p)));
  save(shard_of(d, 1, 2), "linux-overlap-1-of-2.json");
  save(s2, "linux-overlap-2-of-2.json");
  json_object_put(d);
  with_good(f, "linux-overlap-1-of-2.json", 0);
  f->names[f->n++] = "linux-overlap-2-of-2.json";
}

static void shard_counts(struct files *f)
{
  json_object *d = craft(0);
  save(shard_of(d, 1, 2), "linux-count-1-of-2.json");
  save(shard_of(d, 2, 3), "linux-count-2-of-3.json");
  json_object_put(d);
  with_good(f, "linux-count-1-of-2.json", 0);
  f->names[f->n++] = "linux-count-2-of-3.json";
}

static void shard_twice(struct files *f)
{
  json_object *d = craft(0);
  save(shard_of(d, 1, 2), "linux-twice-1-of-2.json");
  save(shard_of(d, 1, 2), "linux-twice-1-of-2-again.json");
  save(shard_of(d, 2, 2), "linux-twice-2-of-2.json");
  json_object_put(d);
  with_good(f, "linux-twice-1-of-2.json", 0);
  f->names[f->n++] = "linux-twice-1-of-2-again.json";
  f->names[f->n++] = "linux-twice-2-of-2.json";
}

static void shard_arches(struct files *f)
{
  json_object *d = craft(0), *s2 = shard_of(d, 2, 2);
  set(s2, "machine.arch", json_object_new_string("arm64"));
  save(shard_of(d, 1, 2), "linux-arch-1-of-2.json");
  save(s2, "linux-arch-2-of-2.json");
  json_object_put(d);
  with_good(f, "linux-arch-1-of-2.json", 0);
  f->names[f->n++] = "linux-arch-2-of-2.json";
}

static void rehearsal(struct files *f)
{
  json_object *d = craft(1);
  set(d, "official", json_object_new_boolean(0));
  save(d, "macos-rehearsal.json");
  with_good(f, "macos-rehearsal.json", 1);
}

static void not_record(struct files *f)
{
  json_object *d = craft(1);
  set(d, "mode", json_object_new_string("quick"));
  save(d, "macos-quick.json");
  with_good(f, "macos-quick.json", 1);
}

static void incomplete(struct files *f)
{
  json_object *d = craft(1);
  set(d, "complete", json_object_new_boolean(0));
  set(d, "incomplete_reason", json_object_new_string("interrupted"));
  save(d, "macos-incomplete.json");
  with_good(f, "macos-incomplete.json", 1);
}

static void unclean(struct files *f)
{
  json_object *d = craft(2);
  set(d, "cleanliness.sockets_left", json_object_new_int(1));
  save(d, "windows-unclean.json");
  with_good(f, "windows-unclean.json", 2);
}

static void workload_differs(struct files *f)
{
  json_object *d = craft(2);
  set(d, "workload.round_trips", json_object_new_int(1000));
  save(d, "windows-workload.json");
  with_good(f, "windows-workload.json", 2);
}

static void matrix_differs(struct files *f)
{
  json_object *d = craft(2);
  json_object_object_add(json_at(d, "provenance.matrix_sha256"), "extra.yaml",
                         json_object_new_string(MATRIX_SHA));
  save(d, "windows-matrix.json");
  with_good(f, "windows-matrix.json", 2);
}

static void lane_missing(struct files *f)
{
  json_object *d = craft(2);
  json_object_object_del(json_at(d, "lanes"), lane0);
  save(d, "windows-lane-missing.json");
  with_good(f, "windows-lane-missing.json", 2);
}

static void pinned_differs(struct files *f)
{
  json_object *d = craft(1);
  set(d, "runtimes.c.toolchain_version", json_object_new_string("cc 99.1"));
  save(d, "macos-cc-99.json");
  with_good(f, "macos-cc-99.json", 1);
  f->pinned[0] = "c";
  f->o.pinned = f->pinned;
  f->o.npinned = 1;
}

/* The evidence itself says the matrix pins the runtime. */
static void matrix_pinned_differs(struct files *f)
{
  json_object *d = craft(1);
  set(d, "runtimes.rust.toolchain_version",
      json_object_new_string("rustc 0.9.0"));
  set(d, "runtimes.rust.toolchain_pinned", json_object_new_boolean(1));
  save(d, "macos-rust-pinned.json");
  with_good(f, "macos-rust-pinned.json", 1);
}

static void pinned_unknown(struct files *f)
{
  with_good(f, good[0], 0);
  f->pinned[0] = "cobol";
  f->o.pinned = f->pinned;
  f->o.npinned = 1;
}

static void unknown_os(struct files *f)
{
  json_object *d = craft(2);
  set(d, "machine.os", json_object_new_string("beos"));
  save(d, "beos.json");
  with_good(f, good[2], 2);
  f->names[f->n++] = "beos.json";
}

static void no_file(struct files *f)
{
  with_good(f, "no-such-file.json", 1);
}

static void same_name(struct files *f)
{
  with_good(f, good[0], 0);
  f->names[f->n++] = good[0];
}

static const struct broken_case {
  const char *what;
  void (*make)(struct files *f);
  const char *file; /* the input the line names; NULL: between files */
  const char *message;
} broken[] = {
    {"mismatched commit", commit_differs, NULL,
     "commits differ: '" COMMIT "' in "},
    {"missing OS", os_missing, NULL,
     "required os 'windows' missing: no input has machine.os 'windows'"},
    {"duplicate OS", os_twice, NULL, "os 'linux' present 2 times: "},
    {"one OS on two arches", os_on_two_arches, NULL,
     "os 'linux' present 2 times: "},
    {"failed sample", sample_failed, "linux-sample-failed.json",
     "sample 1 (round 1): failed at client: protocol_violation"},
    {"lane not passed", lane_not_passed, "windows-unsupported.json",
     "is unsupported, not passed"},
    {"wrong schema version", schema_2, "linux-schema-2.json",
     "unknown schema_version 2 (this crossrun reads 1)"},
    {"truncated JSON", truncated, "macos-truncated.json",
     "not JSON: unexpected end of data at byte"},
    {"not JSON", not_json, "macos-not-json.json", "not JSON: "},
    {"empty file", empty, "macos-empty.json", "not JSON: the file is empty"},
    {"nesting too deep", too_deep, "macos-deep.json",
     "nested more than 64 levels deep"},
    {"lanes as a list", lanes_as_list, "windows-lanes-list.json",
     "'lanes' is an array, expected an object"},
    {"a count as a string", count_as_string, "windows-count-string.json",
     "'cleanliness.sockets_left' is a string, expected an integer"},
    {"huge number 1e400", huge_double, "linux-1e400.json",
     ".samples[0].elapsed_ns' (1e400)"},
    {"huge number 99999999999999999999", huge_int, "linux-huge-int.json",
     "number out of range at 'cleanliness.processes_left' (beyond 64-bit"},
    {"shards with a gap", shard_gap, NULL, "linux: shard 2 of 3 missing"},
    {"shards overlapping", shard_overlap, NULL, "' is in more than one shard"},
    {"shard counts that differ", shard_counts, NULL,
     "linux: shard counts differ: "},
    {"a shard given twice", shard_twice, NULL,
     "linux: shard 1 of 2 given 2 times: "},
    {"shards on two arches", shard_arches, NULL,
     "os 'linux' present twice, on two arches: 'x86_64' in "},
    {"a rehearsal without --allow-rehearsal", rehearsal, "macos-rehearsal.json",
     "not official: a rehearsal"},
    {"not record mode", not_record, "macos-quick.json",
     "not record evidence: mode is 'quick'"},
    {"incomplete", incomplete, "macos-incomplete.json",
     "incomplete: interrupted"},
    {"a cleanliness count above zero", unclean, "windows-unclean.json",
     "cleanliness: sockets_left is 1 (must be 0)"},
    {"workloads that differ", workload_differs, NULL,
     "workloads differ: round_trips 20000 in "},
    {"matrix files that differ", matrix_differs, NULL,
     "matrix files differ (provenance.matrix_sha256): extra.yaml absent in "},
    {"lane sets that differ", lane_missing, NULL,
     "lane sets differ: windows "
     "lacks '"},
    {"a pinned toolchain that differs", pinned_differs, NULL,
     "the toolchain of pinned runtime 'c' differs: "},
    {"a toolchain the matrix pins that differs", matrix_pinned_differs, NULL,
     "the toolchain of runtime 'rust', which the matrix pins, differs: "},
    {"a pinned runtime no input declares", pinned_unknown, NULL,
     "--pinned: no input declares runtime 'cobol'"},
    {"an unknown os", unknown_os, "beos.json",
     "unknown os 'beos' in machine.os"},
    {"a file that does not exist", no_file, "no-such-file.json",
     "cannot read: "},
    {"two inputs of one name", same_name, NULL, "two inputs named '"},
};

static void test_broken(void)
{
  for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
    const struct broken_case *b = &broken[i];
    struct files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
    struct merge_problems p = MERGE_PROBLEMS_INIT;
    json_object *m = NULL;
    const char *line;
    int rc;

    b->make(&f);
    rc = merge(&f, &m, &p);
    line = find_line(&p, b->file, b->message);
    if (!TAP_OK(rc == -1 && m == NULL && line != NULL, "refused: %s: %s",
                b->what, line ? line : "(no such line)"))
      show(&p);
    merge_problems_release(&p);
  }
}

static void test_allowed(void)
{
  struct files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *d;
  char line[4096], key[256];

  rehearsal(&f);
  f.o.allow_rehearsal = 1;
  if (TAP_OK(merge(&f, &m, &p) == 0 &&
                 !json_object_get_boolean(json_at(m, "official")) &&
                 !json_object_get_boolean(json_at(m, "platforms.macos.official")),
             "--allow-rehearsal: merged, and the document is not official"))
    merge_summary(m, line, sizeof(line));
  else
    show(&p);
  json_object_put(m);
  m = NULL;

  /* A lane failing as expected is carried over, its failed sample too. */
  memset(&f, 0, sizeof(f));
  d = craft(0);
  snprintf(key, sizeof(key), "lanes.%s.summary.status", lane0);
  set(d, key, json_object_new_string("expected_failure"));
  snprintf(key, sizeof(key), "lanes.%s.samples.0.status", lane0);
  set(d, key, json_object_new_string("failed"));
  save(d, "linux-expected.json");
  with_good(&f, "linux-expected.json", 0);
  if (TAP_OK(merge(&f, &m, &p) == 0, "an expected_failure lane merges")) {
    snprintf(key, sizeof(key), "platforms.linux.lanes.%s.samples.0.status",
             lane0);
    merge_summary(m, line, sizeof(line));
    TAP_OK(strcmp(path_str(m, key), "failed") == 0 &&
               strstr(line, "1 expected failure: linux ") != NULL,
           "it is kept with its failed sample and reported: %s", line);
  } else {
    show(&p);
  }
  json_object_put(m);
  m = NULL;

  /* A runtime not pinned may differ: reported, not refused. */
  memset(&f, 0, sizeof(f));
  d = craft(1);
  set(d, "runtimes.c.toolchain_version", json_object_new_string("cc 99.1"));
  save(d, "macos-cc-99-unpinned.json");
  with_good(&f, "macos-cc-99-unpinned.json", 1);
  TAP_OK(merge(&f, &m, &p) == 0 &&
             strcmp(path_str(m, "toolchain_versions.c.macos"), "cc 99.1") ==
                 0 &&
             strcmp(path_str(m, "toolchain_versions.c.linux"),
                    path_str(base, "runtimes.c.toolchain_version")) == 0,
         "an unpinned toolchain that differs is reported in "
         "toolchain_versions");
  json_object_put(m);
  merge_problems_release(&p);
}

static void test_many_problems(void)
{
  static const struct {
    const char *file;
    const char *message;
  } want[] = {
      {"linux-many.json", "not official: "},
      {"linux-many.json", "incomplete: interrupted"},
      {"linux-many.json", "sample 1 (round 1): failed"},
      {"linux-many.json", "cleanliness: processes_left is 2 (must be 0)"},
      {"linux-many.json", "cleanliness: forced_terminations is 1"},
      {"linux-many.json", "'machine.arch' is missing"},
      {NULL, "commits differ: "},
      {NULL, "workloads differ: "},
  };
  struct files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *d = craft(0);
  char key[256];
  int all = 1;

  set(d, "official", json_object_new_boolean(0));
  set(d, "complete", json_object_new_boolean(0));
  set(d, "incomplete_reason", json_object_new_string("interrupted"));
  set(d, "provenance.commit", json_object_new_string(OTHER_COMMIT));
  snprintf(key, sizeof(key), "lanes.%s.samples.0.status", lane0);
  set(d, key, json_object_new_string("failed"));
  set(d, "cleanliness.processes_left", json_object_new_int(2));
  set(d, "cleanliness.forced_terminations", json_object_new_int(1));
  set(d, "workload.payload_bytes", json_object_new_int(1024));
  json_object_object_del(json_at(d, "machine"), "arch");
  save(d, "linux-many.json");
  with_good(&f, "linux-many.json", 0);
  TAP_OK(merge(&f, &m, &p) == -1 && m == NULL,
         "an input with many problems is refused");
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
    if (!TAP_OK(find_line(&p, want[i].file, want[i].message) != NULL,
                "and names: %s", want[i].message))
      all = 0;
  if (!all)
    show(&p);
  merge_problems_release(&p);
}

/* Damage anywhere in a record (bytes changed, the file cut short) is
 * refused or harmless; it never crashes (the sanitized build checks). */
static void test_random_damage(void)
{
  struct files f = {{"damaged.json"}, 1, {NULL}, MERGE_OPTIONS_INIT};
  static const char *const only_linux[] = {"linux"};
  json_object *d = craft(0), *m;
  const char *text = json_object_to_json_string(d);
  size_t len = strlen(text);
  char *buf = malloc(len + 1);
  int crashed = 0, refused = 0, rounds = 300;

  f.o.require = only_linux;
  f.o.nrequire = 1;
  srand(20261130);
  for (int r = 0; r < rounds && buf != NULL; r++) {
    struct merge_problems p = MERGE_PROBLEMS_INIT;
    size_t n = len;
    memcpy(buf, text, len + 1);
    for (int k = rand() % 4; k >= 0; k--)
      buf[(size_t)rand() % len] = "{}[]\":,0e9-. x\x01"[rand() % 16];
    if (r % 3 == 0)
      n = (size_t)rand() % len;
    save_text("damaged.json", buf, n);
    m = NULL;
    if (merge(&f, &m, &p) != 0)
      refused++;
    else if (m == NULL)
      crashed++;
    json_object_put(m);
    merge_problems_release(&p);
  }
  TAP_OK(buf != NULL && crashed == 0,
         "%d damaged records: %d refused, the rest merged, none crashed",
         rounds, refused);
  free(buf);
  json_object_put(d);
}

/* Runs cmd_merge with its output captured; out and err hold it. */
static int run_cmd(const char *const *args, int nargs, char *out, size_t outlen,
                   char *err, size_t errlen)
{
  char *argv[16], *text[2] = {NULL, NULL};
  char *bufs[2] = {out, err};
  size_t lens[2] = {outlen, errlen}, n[2] = {0, 0};
  FILE *f[2];
  int rc = -1;

  argv[0] = "merge";
  for (int i = 0; i < nargs && i < 14; i++)
    argv[i + 1] = (char *)args[i];
  argv[nargs + 1] = NULL;
  f[0] = open_memstream(&text[0], &n[0]);
  f[1] = open_memstream(&text[1], &n[1]);
  if (f[0] != NULL && f[1] != NULL)
    rc = cmd_merge(nargs + 1, argv, f[0], f[1]);
  for (int k = 0; k < 2; k++) {
    if (f[k] != NULL)
      fclose(f[k]);
    snprintf(bufs[k], lens[k], "%s", text[k] ? text[k] : "");
    free(text[k]);
  }
  return rc;
}

static void test_command(void)
{
  char l[512], m[512], w[512], failed[512], out[512], out2[512];
  char so[8192], se[8192], expect[1024];
  const char *files3[] = {l, m, w};
  json_object *doc;
  int rc;

  in_dir(l, sizeof(l), good[0]);
  in_dir(m, sizeof(m), good[1]);
  in_dir(w, sizeof(w), good[2]);
  in_dir(failed, sizeof(failed), "linux-sample-failed.json");
  in_dir(out, sizeof(out), "cmd-merged.json");
  in_dir(out2, sizeof(out2), "no-such-folder/merged.json");
  {
    static const struct {
      const char *what;
      const char *args[6];
      int n;
      const char *message;
    } usage[] = {
        {"no arguments", {NULL}, 0, "--out FILE is required"},
        {"an unknown option",
         {"--bogus", "--out", "x.json", "a.json"},
         4,
         "unknown option '--bogus'"},
        {"no files", {"--out", "x.json"}, 2, "no evidence files given"},
        {"no --out", {"a.json"}, 1, "--out FILE is required"},
        {"--out without a value",
         {"a.json", "--out"},
         2,
         "--out needs a value"},
        {"an unknown OS in --require",
         {"--require", "linux,beos", "--out", "x.json", "a.json"},
         5,
         "--require: unknown os 'beos'"},
        {"an empty name in --pinned",
         {"--pinned=c,,rust", "--out", "x.json", "a.json"},
         4,
         "--pinned: an empty name"},
    };
    for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
      rc = run_cmd(usage[i].args, usage[i].n, so, sizeof(so), se, sizeof(se));
      TAP_OK(rc == 2 && strncmp(se, "crossrun merge: ", 16) == 0 &&
                 strstr(se, usage[i].message) != NULL && so[0] == '\0',
             "merge with %s exits 2: %.*s", usage[i].what,
             (int)strcspn(se, "\n"), se);
    }
  }
  {
    const char *args[] = {"--help"};
    rc = run_cmd(args, 1, so, sizeof(so), se, sizeof(se));
    TAP_OK(rc == 0 && strstr(so, "--pinned RUNTIMES") &&
               strstr(so, "--allow-rehearsal") && strstr(so, "--require OSES"),
           "merge --help documents every option");
  }
  {
    const char *args[] = {"--out", out, l, m};
    rc = run_cmd(args, 4, so, sizeof(so), se, sizeof(se));
    TAP_OK(rc == 1 &&
               strstr(se, "crossrun merge: required os 'windows' missing") &&
               access(out, F_OK) != 0,
           "a refused merge exits 1, names the problem, writes nothing");
  }
  {
    const char *args[] = {
        "--require", "linux,macos,windows", "--out", out, failed, m, w};
    rc = run_cmd(args, 7, so, sizeof(so), se, sizeof(se));
    snprintf(expect, sizeof(expect), "crossrun merge: %s: lane '%s' sample 1",
             failed, lane0);
    TAP_OK(rc == 1 && strstr(se, expect) != NULL,
           "a problem of one file is 'crossrun merge: FILE: problem'");
  }
  {
    const char *args[] = {"--require=linux,macos,windows",
                          "--out",
                          out,
                          files3[0],
                          files3[1],
                          files3[2]};
    rc = run_cmd(args, 6, so, sizeof(so), se, sizeof(se));
    doc = json_object_from_file(out);
    TAP_OK(rc == 0 && se[0] == '\0' &&
               strncmp(so, "crossrun merge: merged 3 files", 30) == 0 &&
               strchr(so, '\n') == so + strlen(so) - 1 && doc != NULL &&
               strcmp(path_str(doc, "mode"), "merged") == 0,
           "a merge exits 0, writes --out and prints one line: %.*s",
           (int)strcspn(so, "\n"), so);
    json_object_put(doc);
    remove(out);
  }
  {
    char rh[512];
    const char *args[] = {"--allow-rehearsal", "--out", out, l, rh, w};
    in_dir(rh, sizeof(rh), "macos-rehearsal.json");
    rc = run_cmd(args, 6, so, sizeof(so), se, sizeof(se));
    TAP_OK(rc == 0 && strstr(so, "not official"),
           "merge --allow-rehearsal exits 0, not official");
    remove(out);
  }
  {
    const char *args[] = {"--out", out2, l, m, w};
    rc = run_cmd(args, 5, so, sizeof(so), se, sizeof(se));
    TAP_OK(rc == 3 && strstr(se, "crossrun merge: cannot write"),
           "an --out that cannot be written exits 3");
  }
}

/* The quick run's document, with its lanes that did not pass left out
 * (a runtime this machine lacks). */
static int load_base(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char cmd[2048], file[512];
  json_object *lanes, *kept;
  struct json_object_iterator first;
  int dropped = 0;

  in_dir(file, sizeof(file), "quick.json");
  snprintf(cmd, sizeof(cmd), "%s/crossrun quick --out %s >%s/quick.log 2>&1",
           build, file, dir);
  if (system(cmd) == -1)
    return -1;
  base = json_object_from_file(file);
  if (!TAP_OK(base != NULL, "a real quick run writes evidence (%s)", cmd))
    return -1;
  lanes = json_at(base, "lanes");
  kept = json_object_new_object();
  json_object_object_foreach(lanes, name, lane)
  {
    if (strcmp(path_str(lane, "summary.status"), "passed") == 0)
      json_object_object_add(kept, name, json_object_get(lane));
    else
      dropped++;
  }
  json_object_object_add(base, "lanes", kept);
  if (dropped > 0) {
    /* What the left-out lanes left behind is not what is tested here. */
    tap_diag("%d lanes of the quick run did not pass; left out", dropped);
    set(base, "cleanliness.processes_left", json_object_new_int(0));
    set(base, "cleanliness.sockets_left", json_object_new_int(0));
    set(base, "cleanliness.forced_terminations", json_object_new_int(0));
    set(base, "cleanliness.temp_entries_left", json_object_new_int(0));
  }
  nlanes = json_object_object_length(kept);
  if (!TAP_OK(nlanes > 0, "the quick run passed %d lanes", nlanes))
    return -1;
  first = json_object_iter_begin(kept);
  lane0 = json_object_iter_peek_name(&first);
  for (int os = 0; os < 3; os++)
    save(craft(os), good[os]);
  return 0;
}

int main(void)
{
  char cmd[600];

  if (tap_mkdtemp(dir, sizeof dir) == NULL) {
    TAP_OK(0, "mkdtemp %s", dir);
    return tap_done();
  }
  if (load_base() == 0) {
    test_three_oses();
    test_shards();
    test_broken();
    test_allowed();
    test_many_problems();
    test_random_damage();
    test_command();
  }
  json_object_put(base);
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
