/* crossrun merge: record files of three OSes, crafted from a real quick
 * run (tests/lib_merge.h), merged into one (every input named with its
 * SHA-256, every raw sample kept); the shards of one OS joined; one input
 * with many problems, all named; damaged records refused, never crashing.
 * The broken inputs and the command line are test_merge_refused.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evidence/merge/merge.h"
#include "evidence/schema/validate.h"
#include "evidence/base/sha256.h"
#include "tests/lib_json.h"
#include "tests/lib_merge.h"
#include "tests/tap.h"

static void test_three_oses(void)
{
  struct mtest_files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *inputs, *back;
  char file[512], out[512], partial[600], hex[65], err[256] = "", line[4096];
  int rc, ok, samples = 0;

  mtest_with_good(&f, mtest_good[0], 0);
  rc = mtest_merge(&f, &m, &p);
  if (!TAP_OK(rc == 0 && m != NULL && p.count == 0,
              "three OSes' records merge")) {
    mtest_show(&p);
    merge_problems_release(&p);
    return;
  }
  TAP_OK(json_object_get_int(json_at(m, "schema_version")) == 1 &&
             strcmp(mtest_path_str(m, "tool.name"), "crossrun") == 0 &&
             strcmp(mtest_path_str(m, "tool.version"),
                    mtest_path_str(mtest_base, "tool.version")) == 0 &&
             strcmp(mtest_path_str(m, "mode"), "merged") == 0 &&
             json_object_get_boolean(json_at(m, "performance_claims")) &&
             json_object_get_boolean(json_at(m, "official")) &&
             strcmp(mtest_path_str(m, "commit"), MTEST_COMMIT) == 0,
         "merged: schema_version, tool, mode, claims, official, commit");
  inputs = json_at(m, "inputs");
  TAP_EQ_INT(json_object_object_length(inputs), 3, "merged: three inputs");
  for (int os = 0; os < 3; os++) {
    json_object *in = mtest_get(inputs, mtest_good[os]);
    mtest_in_dir(file, sizeof(file), mtest_good[os]);
    ok = sha256_file(file, hex, err, sizeof(err)) == 0;
    TAP_OK(ok && in != NULL && strcmp(mtest_path_str(in, "sha256"), hex) == 0 &&
               strcmp(mtest_path_str(in, "os"), mtest_oses[os]) == 0 &&
               strcmp(mtest_path_str(in, "arch"), mtest_arches[os]) == 0 &&
               json_object_object_get_ex(in, "shard", NULL) &&
               json_at(in, "shard") == NULL,
           "input '%s': its name, the SHA-256 of its bytes, os, arch, no "
           "shard",
           mtest_good[os]);
  }
  TAP_EQ_INT(json_object_object_length(json_at(m, "platforms")), 3,
             "merged: three platforms");
  for (int os = 0; os < 3; os++) {
    json_object *pl = json_at(json_at(m, "platforms"), mtest_oses[os]);
    json_object *want = mtest_craft(os);
    ok =
        pl != NULL && !json_object_object_get_ex(pl, "shard", NULL) &&
        strcmp(mtest_path_str(pl, "machine.os"), mtest_oses[os]) == 0 &&
        json_object_equal(json_at(pl, "lanes"), json_at(want, "lanes")) &&
        json_object_equal(json_at(pl, "runtimes"), json_at(want, "runtimes")) &&
        json_object_equal(json_at(pl, "cleanliness"),
                          json_at(want, "cleanliness"));
    json_object_object_foreach(json_at(pl, "lanes"), name, lane)
    {
      (void)name;
      samples += (int)json_object_array_length(json_at(lane, "samples"));
    }
    TAP_OK(ok,
           "platform %s: the record without its shard field, every "
           "lane and raw sample as written",
           mtest_oses[os]);
    json_object_put(want);
  }
  {
    int base_samples = 0;
    json_object_object_foreach(json_at(mtest_base, "lanes"), name, lane)
    {
      (void)name;
      base_samples += (int)json_object_array_length(json_at(lane, "samples"));
    }
    TAP_OK(samples == 3 * base_samples && samples > 0,
           "every raw sample kept: %d = 3 x %d", samples, base_samples);
  }
  ok = json_object_object_length(json_at(m, "toolchain_versions")) ==
       json_object_object_length(json_at(mtest_base, "runtimes"));
  json_object_object_foreach(json_at(mtest_base, "runtimes"), rt, rv)
  {
    json_object *tv = json_at(json_at(m, "toolchain_versions"), rt);
    for (int os = 0; os < 3; os++)
      ok &= json_object_equal(json_at(tv, mtest_oses[os]),
                              json_at(rv, "toolchain_version"));
  }
  TAP_OK(ok, "toolchain_versions: every runtime's version on every OS");

  mtest_in_dir(out, sizeof(out), "merged.json");
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
  struct mtest_files f = {
      {"linux-shard-1-of-2.json", "evidence-macos-arm64.json",
       "evidence-windows-x86_64.json", "linux-shard-2-of-2.json"},
      4,
      {NULL},
      MERGE_OPTIONS_INIT};
  struct mtest_files reversed = {
      {"linux-shard-2-of-2.json", "evidence-windows-x86_64.json",
       "linux-shard-1-of-2.json", "evidence-macos-arm64.json"},
      4,
      {NULL},
      MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *m2 = NULL, *linux_doc, *lanes, *want = mtest_craft(0);
  json_object *s1, *s2;
  struct json_object_iterator a, ae, b, be;
  int ok, samples = 0;

  if (mtest_nlanes < 2) {
    TAP_OK(1, "# SKIP shards need 2 lanes; the quick run passed %d",
           mtest_nlanes);
    json_object_put(want);
    return;
  }
  mtest_save(mtest_shard_of(want, 1, 2), "linux-shard-1-of-2.json");
  mtest_save(mtest_shard_of(want, 2, 2), "linux-shard-2-of-2.json");
  if (!TAP_OK(mtest_merge(&f, &m, &p) == 0, "2 shards of linux join")) {
    mtest_show(&p);
    goto out;
  }
  TAP_OK(
      mtest_merge(&reversed, &m2, &p) == 0 &&
          json_object_equal(json_at(m, "platforms"), json_at(m2, "platforms")),
      "the same document whatever the order of the files");
  linux_doc = json_at(m, "platforms.linux");
  lanes = json_at(linux_doc, "lanes");
  s1 = mtest_get(json_at(m, "inputs"), "linux-shard-1-of-2.json");
  s2 = mtest_get(json_at(m, "inputs"), "linux-shard-2-of-2.json");
  TAP_OK(strlen(mtest_path_str(s1, "sha256")) == 64 &&
             json_object_get_int(json_at(s1, "shard.index")) == 1 &&
             json_object_get_int(json_at(s2, "shard.index")) == 2 &&
             json_object_get_int(json_at(s2, "shard.count")) == 2 &&
             strcmp(mtest_path_str(s2, "os"), "linux") == 0 &&
             json_object_object_length(json_at(m, "inputs")) == 4,
         "inputs: both shards, with index and count");
  TAP_OK(linux_doc != NULL &&
             !json_object_object_get_ex(linux_doc, "shard", NULL) &&
             json_object_equal(lanes, json_at(want, "lanes")),
         "linux: one document, no shard field, every lane and sample");
  ok = json_object_object_length(lanes) == mtest_nlanes;
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
  struct mtest_files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *d = mtest_craft(0);
  char key[256];
  int all = 1;

  mtest_set(d, "official", json_object_new_boolean(0));
  mtest_set(d, "complete", json_object_new_boolean(0));
  mtest_set(d, "incomplete_reason", json_object_new_string("interrupted"));
  mtest_set(d, "provenance.commit", json_object_new_string(MTEST_OTHER_COMMIT));
  snprintf(key, sizeof(key), "lanes.%s.samples.0.status", mtest_lane0);
  mtest_set(d, key, json_object_new_string("failed"));
  mtest_set(d, "cleanliness.processes_left", json_object_new_int(2));
  mtest_set(d, "cleanliness.forced_terminations", json_object_new_int(1));
  mtest_set(d, "workload.payload_bytes", json_object_new_int(1024));
  json_object_object_del(json_at(d, "machine"), "arch");
  mtest_save(d, "linux-many.json");
  mtest_with_good(&f, "linux-many.json", 0);
  TAP_OK(mtest_merge(&f, &m, &p) == -1 && m == NULL,
         "an input with many problems is refused");
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
    if (!TAP_OK(mtest_find_line(&p, want[i].file, want[i].message) != NULL,
                "and names: %s", want[i].message))
      all = 0;
  if (!all)
    mtest_show(&p);
  merge_problems_release(&p);
}

/* Damage anywhere in a record (bytes changed, the file cut short) is
 * refused or harmless; it never crashes (the sanitized build checks). */
static void test_random_damage(void)
{
  struct mtest_files f = {{"damaged.json"}, 1, {NULL}, MERGE_OPTIONS_INIT};
  static const char *const only_linux[] = {"linux"};
  json_object *d = mtest_craft(0), *m;
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
    mtest_save_text("damaged.json", buf, n);
    m = NULL;
    if (mtest_merge(&f, &m, &p) != 0)
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

/* Shards of one OS recorded on two machines: each input keeps its machine,
 * and no ratio is computed between lanes of different machines. */
static void test_shards_on_two_machines(void)
{
  struct mtest_files f = {{"linux-machine-1.json", "evidence-macos-arm64.json",
                           "evidence-windows-x86_64.json",
                           "linux-machine-2.json"},
                          4,
                          {NULL},
                          MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *m = NULL, *want = mtest_craft(0), *s2, *lanes;
  char schema[4200], out[600], err[600];
  int across = 0, within = 0, wrong = 0;

  if (mtest_nlanes < 3) {
    TAP_OK(1, "# SKIP two machines need 3 lanes; the quick run passed %d",
           mtest_nlanes);
    json_object_put(want);
    return;
  }
  mtest_save(mtest_shard_of(want, 1, 2), "linux-machine-1.json");
  s2 = mtest_shard_of(want, 2, 2);
  mtest_set(s2, "machine.cpu_model", json_object_new_string("another CPU"));
  mtest_save(s2, "linux-machine-2.json");
  if (!TAP_OK(mtest_merge(&f, &m, &p) == 0,
              "2 shards of linux from two machines merge")) {
    mtest_show(&p);
    goto out;
  }
  TAP_OK(strcmp(mtest_path_str(
                    mtest_get(json_at(m, "inputs"), "linux-machine-2.json"),
                    "machine.cpu_model"),
                "another CPU") == 0 &&
             strcmp(mtest_path_str(
                        mtest_get(json_at(m, "inputs"), "linux-machine-1.json"),
                        "machine.cpu_model"),
                    mtest_path_str(want, "machine.cpu_model")) == 0,
         "each input keeps its own machine");
  lanes = json_at(want, "lanes");
  json_object_object_foreach(json_at(m, "platforms.linux.comparisons"), key, c)
  {
    int i = 0, li = -1, ri = -1;
    json_object_object_foreach(lanes, name, lane)
    {
      (void)lane;
      if (strcmp(name, mtest_path_str(c, "lane")) == 0)
        li = i;
      if (strcmp(name, mtest_path_str(c, "reference")) == 0)
        ri = i;
      i++;
    }
    if (li % 2 != ri % 2) {
      across++;
      wrong +=
          json_at(c, "ratio_of_medians") != NULL ||
          strcmp(mtest_path_str(c, "verdict"), "not_compared") != 0 ||
          strstr(mtest_path_str(c, "reason"),
                 "measured on different machines") == NULL ||
          strstr(mtest_path_str(c, "reason"), "linux-machine-2.json") == NULL;
    } else {
      within++;
      wrong += !json_object_is_type(json_at(c, "ratio_of_medians"),
                                    json_type_double);
    }
    if (wrong)
      tap_diag("%s: %s", key, json_object_to_json_string(c));
  }
  TAP_OK(across > 0 && within > 0 && wrong == 0,
         "%d pairs across machines not compared (null, with a reason), %d "
         "within one machine compared",
         across, within);
  snprintf(schema, sizeof(schema), "%s/evidence/schema.json",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".");
  mtest_in_dir(out, sizeof(out), "two-machines.json");
  merge_write(m, out, err, sizeof(err));
  if (!TAP_OK(validate_file(schema, out, &e, err, sizeof(err)) == 0,
              "the merged document validates, its comparisons recomputed"))
    for (int i = 0; i < e.n; i++)
      tap_diag("  %s", e.messages[i]);
  validate_errors_release(&e);
  {
    char cmd[2000], md[700], *text;
    FILE *fp;
    size_t n = 0;
    snprintf(md, sizeof(md), "%s.md", out);
    snprintf(cmd, sizeof(cmd), "%s/crossrun report %s --markdown %s",
             getenv("BUILD") ? getenv("BUILD") : "build", out, md);
    text = system(cmd) == 0 && (fp = fopen(md, "rb")) != NULL
               ? calloc(1, 1 << 20)
               : NULL;
    if (text != NULL) {
      n = fread(text, 1, (1 << 20) - 1, fp);
      fclose(fp);
    }
    TAP_OK(n > 0 && strstr(text, "not compared") != NULL &&
               strstr(text, "measured on different machines") != NULL,
           "the report says which pairs were not compared, and why");
    free(text);
  }
out:
  json_object_put(m);
  json_object_put(want);
  merge_problems_release(&p);
}

int main(void)
{
  if (mtest_setup() == 0) {
    test_three_oses();
    test_shards();
    test_shards_on_two_machines();
    test_many_problems();
    test_random_damage();
  }
  mtest_teardown();
  return tap_done();
}
