/* The fixture of the merge tests: see tests/lib_merge.h. */
#include "tests/lib_merge.h"
#include "tests/lib_json.h"
#include "tests/lib_lanes.h"
#include "tests/lib_scratch.h"
#include "tests/lib_validate.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char mtest_dir[512];
json_object *mtest_base;
const char *mtest_lane0;
int mtest_nlanes;

const char *const mtest_oses[3] = {"linux", "macos", "windows"};
const char *const mtest_arches[3] = {"x86_64", "arm64", "x86_64"};
const char *const mtest_good[3] = {"evidence-linux-x86_64.json",
                                   "evidence-macos-arm64.json",
                                   "evidence-windows-x86_64.json"};

void mtest_in_dir(char *out, size_t outlen, const char *name)
{
  snprintf(out, outlen, "%s/%s", mtest_dir, name);
}

json_object *mtest_get(json_object *o, const char *key)
{
  json_object *v = NULL;
  return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *mtest_path_str(json_object *o, const char *dotted)
{
  json_object *v = json_at(o, dotted);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : "";
}

void mtest_set(json_object *doc, const char *dotted, json_object *v)
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

json_object *mtest_copy(json_object *o)
{
  json_object *out = NULL;
  json_object_deep_copy(o, &out, NULL);
  return out;
}

json_object *mtest_craft(int os)
{
  json_object *d = mtest_copy(mtest_base), *prov, *ci, *matrix;

  mtest_set(d, "mode", json_object_new_string("record"));
  mtest_set(d, "official", json_object_new_boolean(1));
  mtest_set(d, "rehearsal", json_object_new_boolean(0));
  mtest_set(d, "performance_claims", json_object_new_boolean(1));
  json_object_object_del(d, "performance_note");
  /* A measurement has comparisons; a smoke run's are null. */
  mtest_set(d, "comparisons", json_object_new_object());
  prov = json_object_new_object();
  mtest_set(prov, "commit", json_object_new_string(MTEST_COMMIT));
  mtest_set(prov, "branch", json_object_new_string("main"));
  mtest_set(prov, "clean", json_object_new_boolean(1));
  ci = json_object_new_object();
  mtest_set(ci, "detected", json_object_new_boolean(1));
  mtest_set(ci, "provider", json_object_new_string("github_actions"));
  mtest_set(ci, "workflow", json_object_new_string("record"));
  mtest_set(ci, "run_id", json_object_new_string("4242"));
  mtest_set(ci, "run_attempt", json_object_new_string("1"));
  mtest_set(prov, "ci", ci);
  matrix = json_object_new_object();
  mtest_set(matrix, "matrix.yaml", json_object_new_string(MTEST_MATRIX_SHA));
  mtest_set(prov, "matrix_sha256", matrix);
  mtest_set(prov, "cpu_governor", NULL);
  mtest_set(prov, "load_average_1m_at_start", NULL);
  mtest_set(d, "provenance", prov);
  mtest_set(d, "shard", NULL);
  mtest_set(d, "machine.os", json_object_new_string(mtest_oses[os]));
  mtest_set(d, "machine.arch", json_object_new_string(mtest_arches[os]));
  /* Each stands for a record of a real machine of its OS: the emulator
   * the base ran under (wine, for the Windows build's tests) is not
   * theirs, and would take their performance claims away. */
  json_object_object_del(json_at(d, "machine"), "emulator");
  /* A record for the official merge runs the full workload; its figures
   * are what the quick run's samples give, as a record's would be. */
  mtest_set(d, "workload.name", json_object_new_string("full"));
  vtest_refigure(d);
  return d;
}

void mtest_save_with(json_object *doc, const char *name, const char *marker,
                     const char *replacement)
{
  const char *text = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
  const char *at = marker ? strstr(text, marker) : NULL;
  char file[512];
  FILE *f;

  mtest_in_dir(file, sizeof(file), name);
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

void mtest_save(json_object *doc, const char *name)
{
  mtest_save_with(doc, name, NULL, NULL);
}

void mtest_save_text(const char *name, const char *text, size_t len)
{
  char file[512];
  FILE *f;
  mtest_in_dir(file, sizeof(file), name);
  f = fopen(file, "wb");
  if (f != NULL) {
    fwrite(text, 1, len, f);
    fclose(f);
  }
}

json_object *mtest_shard_of(json_object *doc, int index, int count)
{
  json_object *d = mtest_copy(doc), *lanes = json_object_new_object(), *shard;
  int i = 0, samples = 0;

  json_object_object_foreach(json_at(doc, "lanes"), name, lane)
  {
    if (i++ % count == index - 1) {
      json_object_object_add(lanes, name, json_object_get(lane));
      samples += (int)json_object_array_length(json_at(lane, "samples"));
    }
  }
  mtest_set(d, "lanes", lanes);
  shard = json_object_new_object();
  mtest_set(shard, "index", json_object_new_int(index));
  mtest_set(shard, "count", json_object_new_int(count));
  mtest_set(shard, "lanes_total", json_object_new_int(mtest_nlanes));
  mtest_set(d, "shard", shard);
  mtest_set(d, "cleanliness.pairs_started", json_object_new_int(samples));
  mtest_set(d, "cleanliness.natural_exits", json_object_new_int(samples));
  vtest_refigure(d);
  return d;
}

void mtest_with_good(struct mtest_files *f, const char *broken, int os)
{
  for (int i = 0; i < 3; i++)
    f->names[f->n++] = i == os ? broken : mtest_good[i];
}

int mtest_merge(struct mtest_files *f, json_object **out,
                struct merge_problems *p)
{
  static const char *const require[] = {"linux", "macos", "windows"};
  char paths[MTEST_MAX_FILES][512];
  const char *argv[MTEST_MAX_FILES];

  if (f->o.require == NULL) {
    f->o.require = require;
    f->o.nrequire = 3;
  }
  for (int i = 0; i < f->n; i++) {
    mtest_in_dir(paths[i], sizeof(paths[i]), f->names[i]);
    argv[i] = paths[i];
  }
  return merge_files(&f->o, argv, f->n, out, p);
}

const char *mtest_find_line(const struct merge_problems *p, const char *file,
                            const char *message)
{
  char prefix[600];
  size_t plen;

  if (file != NULL)
    snprintf(prefix, sizeof(prefix), "%s/%s: ", mtest_dir, file);
  plen = file ? strlen(prefix) : 0;
  for (int i = 0; i < p->count; i++) {
    const char *line = p->lines[i];
    if (file != NULL && strncmp(line, prefix, plen) != 0)
      continue;
    if (file == NULL && strncmp(line, mtest_dir, strlen(mtest_dir)) == 0)
      continue;
    if (strstr(line + plen, message) != NULL)
      return p->lines[i];
  }
  return NULL;
}

void mtest_show(const struct merge_problems *p)
{
  for (int i = 0; i < p->count; i++)
    tap_diag("  %s", p->lines[i]);
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

  mtest_in_dir(file, sizeof(file), "quick.json");
  snprintf(cmd, sizeof(cmd),
           "%s/crossrun quick --lanes " LIB_LANES_FEW
           " --out %s >%s/quick.log 2>&1",
           build, file, mtest_dir);
  if (system(cmd) == -1)
    return -1;
  mtest_base = json_object_from_file(file);
  if (!TAP_OK(mtest_base != NULL, "a real quick run writes evidence (%s)", cmd))
    return -1;
  lanes = json_at(mtest_base, "lanes");
  kept = json_object_new_object();
  json_object_object_foreach(lanes, name, lane)
  {
    if (strcmp(mtest_path_str(lane, "summary.status"), "passed") == 0)
      json_object_object_add(kept, name, json_object_get(lane));
    else
      dropped++;
  }
  json_object_object_add(mtest_base, "lanes", kept);
  if (dropped > 0) {
    /* What the left-out lanes left behind is not what is tested here. */
    tap_diag("%d lanes of the quick run did not pass; left out", dropped);
    mtest_set(mtest_base, "cleanliness.processes_left", json_object_new_int(0));
    mtest_set(mtest_base, "cleanliness.sockets_left", json_object_new_int(0));
    mtest_set(mtest_base, "cleanliness.forced_terminations",
              json_object_new_int(0));
    mtest_set(mtest_base, "cleanliness.temp_entries_left",
              json_object_new_int(0));
  }
  mtest_nlanes = json_object_object_length(kept);
  if (!TAP_OK(mtest_nlanes > 0, "the quick run passed %d lanes", mtest_nlanes))
    return -1;
  first = json_object_iter_begin(kept);
  mtest_lane0 = json_object_iter_peek_name(&first);
  for (int os = 0; os < 3; os++)
    mtest_save(mtest_craft(os), mtest_good[os]);
  return 0;
}

int mtest_setup(void)
{
  if (tap_mkdtemp(mtest_dir, sizeof mtest_dir) == NULL) {
    TAP_OK(0, "mkdtemp %s", mtest_dir);
    return -1;
  }
  return load_base();
}

void mtest_teardown(void)
{
  json_object_put(mtest_base);
  mtest_base = NULL;
  if (mtest_dir[0] == '\0')
    return;
  if (scratch_remove_tree(mtest_dir, 0) != 0)
    tap_diag("could not remove %s", mtest_dir);
}
