/* crossrun merge refuses broken inputs: a table of them, each refused
 * with its own message; what is allowed all the same (a rehearsal with
 * --allow-rehearsal, an expected failure, an unpinned toolchain); and the
 * command line's exit statuses and output. The records are crafted from
 * a real quick run (tests/lib_merge.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evidence/merge/merge.h"
#include "runner/commands.h"
#include "tests/lib_json.h"
#include "tests/lib_memfile.h"
#include "tests/lib_merge.h"
#include "tests/lib_validate.h"
#include "tests/tap.h"

/* ---- broken inputs: each makes its files ---- */

static void commit_differs(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  mtest_set(d, "provenance.commit", json_object_new_string(MTEST_OTHER_COMMIT));
  mtest_save(d, "macos-other-commit.json");
  mtest_with_good(f, "macos-other-commit.json", 1);
}

static void os_missing(struct mtest_files *f)
{
  f->names[f->n++] = mtest_good[0];
  f->names[f->n++] = mtest_good[1];
}

static void os_twice(struct mtest_files *f)
{
  mtest_save(mtest_craft(0), "linux-again.json");
  mtest_with_good(f, mtest_good[0], 0);
  f->names[f->n++] = "linux-again.json";
}

static void os_on_two_arches(struct mtest_files *f)
{
  json_object *d = mtest_craft(0);
  mtest_set(d, "machine.arch", json_object_new_string("arm64"));
  mtest_save(d, "evidence-linux-arm64.json");
  mtest_with_good(f, mtest_good[0], 0);
  f->names[f->n++] = "evidence-linux-arm64.json";
}

static void sample_failed(struct mtest_files *f)
{
  char p[256];
  json_object *d = mtest_craft(0), *failure = json_object_new_object();
  snprintf(p, sizeof(p), "lanes.%s.samples.0", mtest_lane0);
  mtest_set(json_at(d, p), "status", json_object_new_string("failed"));
  mtest_set(failure, "stage", json_object_new_string("client"));
  mtest_set(failure, "reason", json_object_new_string("protocol_violation"));
  mtest_set(json_at(d, p), "failure", failure);
  mtest_save(d, "linux-sample-failed.json");
  mtest_with_good(f, "linux-sample-failed.json", 0);
}

static void lane_not_passed(struct mtest_files *f)
{
  char p[256];
  json_object *d = mtest_craft(2);
  /* unavailable, not unsupported: a combination a runtime does not
   * implement is not tested and merges; a missing toolchain does not. */
  snprintf(p, sizeof(p), "lanes.%s.summary.status", mtest_lane0);
  mtest_set(d, p, json_object_new_string("unavailable"));
  mtest_save(d, "windows-unavailable.json");
  mtest_with_good(f, "windows-unavailable.json", 2);
}

static void schema_2(struct mtest_files *f)
{
  json_object *d = mtest_craft(0);
  mtest_set(d, "schema_version", json_object_new_int(2));
  mtest_save(d, "linux-schema-2.json");
  mtest_with_good(f, "linux-schema-2.json", 0);
}

static void truncated(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  const char *text = json_object_to_json_string(d);
  mtest_save_text("macos-truncated.json", text, strlen(text) / 2);
  json_object_put(d);
  mtest_with_good(f, "macos-truncated.json", 1);
}

static void not_json(struct mtest_files *f)
{
  mtest_save_text("macos-not-json.json", "evidence: yes\n", 14);
  mtest_with_good(f, "macos-not-json.json", 1);
}

static void empty(struct mtest_files *f)
{
  mtest_save_text("macos-empty.json", "", 0);
  mtest_with_good(f, "macos-empty.json", 1);
}

static void too_deep(struct mtest_files *f)
{
  char text[402];
  memset(text, '[', 200);
  memset(text + 200, ']', 200);
  text[400] = '\n';
  mtest_save_text("macos-deep.json", text, 401);
  mtest_with_good(f, "macos-deep.json", 1);
}

static void lanes_as_list(struct mtest_files *f)
{
  json_object *d = mtest_craft(2), *list = json_object_new_array();
  json_object_object_foreach(json_at(d, "lanes"), name, lane)
  {
    (void)name;
    json_object_array_add(list, json_object_get(lane));
  }
  mtest_set(d, "lanes", list);
  mtest_save(d, "windows-lanes-list.json");
  mtest_with_good(f, "windows-lanes-list.json", 2);
}

static void count_as_string(struct mtest_files *f)
{
  json_object *d = mtest_craft(2);
  mtest_set(d, "cleanliness.sockets_left", json_object_new_string("0"));
  mtest_save(d, "windows-count-string.json");
  mtest_with_good(f, "windows-count-string.json", 2);
}

static void huge_double(struct mtest_files *f)
{
  char p[256];
  json_object *d = mtest_craft(0);
  snprintf(p, sizeof(p), "lanes.%s.samples.0.elapsed_ns", mtest_lane0);
  mtest_set(d, p, json_object_new_int64(777777777777771));
  mtest_save_with(d, "linux-1e400.json", "777777777777771", "1e400");
  mtest_with_good(f, "linux-1e400.json", 0);
}

static void huge_int(struct mtest_files *f)
{
  json_object *d = mtest_craft(0);
  mtest_set(d, "cleanliness.processes_left",
            json_object_new_int64(777777777777772));
  mtest_save_with(d, "linux-huge-int.json", "777777777777772",
                  "99999999999999999999");
  mtest_with_good(f, "linux-huge-int.json", 0);
}

/* Shards 1 and 3 of 3: shard 2 missing. */
static void shard_gap(struct mtest_files *f)
{
  json_object *d = mtest_craft(0);
  mtest_save(mtest_shard_of(d, 1, 3), "linux-gap-1-of-3.json");
  mtest_save(mtest_shard_of(d, 3, 3), "linux-gap-3-of-3.json");
  json_object_put(d);
  mtest_with_good(f, "linux-gap-1-of-3.json", 0);
  f->names[f->n++] = "linux-gap-3-of-3.json";
}

/* Shard 2 of 2 also holds shard 1's first lane. */
static void shard_overlap(struct mtest_files *f)
{
  char p[256];
  json_object *d = mtest_craft(0), *s2 = mtest_shard_of(d, 2, 2);
  snprintf(p, sizeof(p), "lanes.%s", mtest_lane0);
  json_object_object_add(json_at(s2, "lanes"), mtest_lane0,
                         json_object_get(json_at(d, p)));
  mtest_save(mtest_shard_of(d, 1, 2), "linux-overlap-1-of-2.json");
  mtest_save(s2, "linux-overlap-2-of-2.json");
  json_object_put(d);
  mtest_with_good(f, "linux-overlap-1-of-2.json", 0);
  f->names[f->n++] = "linux-overlap-2-of-2.json";
}

static void shard_counts(struct mtest_files *f)
{
  json_object *d = mtest_craft(0);
  mtest_save(mtest_shard_of(d, 1, 2), "linux-count-1-of-2.json");
  mtest_save(mtest_shard_of(d, 2, 3), "linux-count-2-of-3.json");
  json_object_put(d);
  mtest_with_good(f, "linux-count-1-of-2.json", 0);
  f->names[f->n++] = "linux-count-2-of-3.json";
}

static void shard_twice(struct mtest_files *f)
{
  json_object *d = mtest_craft(0);
  mtest_save(mtest_shard_of(d, 1, 2), "linux-twice-1-of-2.json");
  mtest_save(mtest_shard_of(d, 1, 2), "linux-twice-1-of-2-again.json");
  mtest_save(mtest_shard_of(d, 2, 2), "linux-twice-2-of-2.json");
  json_object_put(d);
  mtest_with_good(f, "linux-twice-1-of-2.json", 0);
  f->names[f->n++] = "linux-twice-1-of-2-again.json";
  f->names[f->n++] = "linux-twice-2-of-2.json";
}

static void shard_arches(struct mtest_files *f)
{
  json_object *d = mtest_craft(0), *s2 = mtest_shard_of(d, 2, 2);
  mtest_set(s2, "machine.arch", json_object_new_string("arm64"));
  mtest_save(mtest_shard_of(d, 1, 2), "linux-arch-1-of-2.json");
  mtest_save(s2, "linux-arch-2-of-2.json");
  json_object_put(d);
  mtest_with_good(f, "linux-arch-1-of-2.json", 0);
  f->names[f->n++] = "linux-arch-2-of-2.json";
}

static void rehearsal(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  mtest_set(d, "official", json_object_new_boolean(0));
  mtest_save(d, "macos-rehearsal.json");
  mtest_with_good(f, "macos-rehearsal.json", 1);
}

static void not_record(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  mtest_set(d, "mode", json_object_new_string("quick"));
  mtest_save(d, "macos-quick.json");
  mtest_with_good(f, "macos-quick.json", 1);
}

static void incomplete(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  mtest_set(d, "complete", json_object_new_boolean(0));
  mtest_set(d, "incomplete_reason", json_object_new_string("interrupted"));
  mtest_save(d, "macos-incomplete.json");
  mtest_with_good(f, "macos-incomplete.json", 1);
}

static void unclean(struct mtest_files *f)
{
  json_object *d = mtest_craft(2);
  mtest_set(d, "cleanliness.sockets_left", json_object_new_int(1));
  mtest_save(d, "windows-unclean.json");
  mtest_with_good(f, "windows-unclean.json", 2);
}

static void workload_differs(struct mtest_files *f)
{
  json_object *d = mtest_craft(2);
  mtest_set(d, "workload.round_trips", json_object_new_int(1000));
  mtest_save(d, "windows-workload.json");
  mtest_with_good(f, "windows-workload.json", 2);
}

static void matrix_differs(struct mtest_files *f)
{
  json_object *d = mtest_craft(2);
  json_object_object_add(json_at(d, "provenance.matrix_sha256"), "extra.yaml",
                         json_object_new_string(MTEST_MATRIX_SHA));
  mtest_save(d, "windows-matrix.json");
  mtest_with_good(f, "windows-matrix.json", 2);
}

static void lane_missing(struct mtest_files *f)
{
  json_object *d = mtest_craft(2);
  json_object_object_del(json_at(d, "lanes"), mtest_lane0);
  mtest_save(d, "windows-lane-missing.json");
  mtest_with_good(f, "windows-lane-missing.json", 2);
}

static void pinned_differs(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  mtest_set(d, "runtimes.c.toolchain_version",
            json_object_new_string("cc 99.1"));
  mtest_save(d, "macos-cc-99.json");
  mtest_with_good(f, "macos-cc-99.json", 1);
  f->pinned[0] = "c";
  f->o.pinned = f->pinned;
  f->o.npinned = 1;
}

/* The evidence itself says the matrix pins the runtime. */
static void matrix_pinned_differs(struct mtest_files *f)
{
  json_object *d = mtest_craft(1);
  mtest_set(d, "runtimes.rust.toolchain_version",
            json_object_new_string("rustc 0.9.0"));
  mtest_set(d, "runtimes.rust.toolchain_pinned", json_object_new_boolean(1));
  mtest_save(d, "macos-rust-pinned.json");
  mtest_with_good(f, "macos-rust-pinned.json", 1);
}

static void pinned_unknown(struct mtest_files *f)
{
  mtest_with_good(f, mtest_good[0], 0);
  f->pinned[0] = "cobol";
  f->o.pinned = f->pinned;
  f->o.npinned = 1;
}

static void unknown_os(struct mtest_files *f)
{
  json_object *d = mtest_craft(2);
  mtest_set(d, "machine.os", json_object_new_string("beos"));
  mtest_save(d, "beos.json");
  mtest_with_good(f, mtest_good[2], 2);
  f->names[f->n++] = "beos.json";
}

static void no_file(struct mtest_files *f)
{
  mtest_with_good(f, "no-such-file.json", 1);
}

static void same_name(struct mtest_files *f)
{
  mtest_with_good(f, mtest_good[0], 0);
  f->names[f->n++] = mtest_good[0];
}

static const struct broken_case {
  const char *what;
  void (*make)(struct mtest_files *f);
  const char *file; /* the input the line names; NULL: between files */
  const char *message;
} broken[] = {
    {"mismatched commit", commit_differs, NULL,
     "commits differ: '" MTEST_COMMIT "' in "},
    {"missing OS", os_missing, NULL,
     "required os 'windows' missing: no input has machine.os 'windows'"},
    {"duplicate OS", os_twice, NULL, "os 'linux' present 2 times: "},
    {"one OS on two arches", os_on_two_arches, NULL,
     "os 'linux' present 2 times: "},
    {"failed sample", sample_failed, "linux-sample-failed.json",
     "sample 1 (round 1): failed at client: protocol_violation"},
    {"lane not passed", lane_not_passed, "windows-unavailable.json",
     "is unavailable, not passed"},
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
    struct mtest_files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
    struct merge_problems p = MERGE_PROBLEMS_INIT;
    json_object *m = NULL;
    const char *line;
    int rc;

    b->make(&f);
    rc = mtest_merge(&f, &m, &p);
    line = mtest_find_line(&p, b->file, b->message);
    if (!TAP_OK(rc == -1 && m == NULL && line != NULL, "refused: %s: %s",
                b->what, line ? line : "(no such line)"))
      mtest_show(&p);
    merge_problems_release(&p);
  }
}

static void test_allowed(void)
{
  struct mtest_files f = {{NULL}, 0, {NULL}, MERGE_OPTIONS_INIT};
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *m = NULL, *d;
  char line[4096], key[256];

  rehearsal(&f);
  f.o.allow_rehearsal = 1;
  if (TAP_OK(
          mtest_merge(&f, &m, &p) == 0 &&
              !json_object_get_boolean(json_at(m, "official")) &&
              !json_object_get_boolean(json_at(m, "platforms.macos.official")),
          "--allow-rehearsal: merged, and the document is not official"))
    merge_summary(m, line, sizeof(line));
  else
    mtest_show(&p);
  json_object_put(m);
  m = NULL;

  /* A lane failing as expected is carried over, its failed sample too. */
  memset(&f, 0, sizeof(f));
  d = mtest_craft(0);
  snprintf(key, sizeof(key), "lanes.%s.summary.status", mtest_lane0);
  mtest_set(d, key, json_object_new_string("expected_failure"));
  snprintf(key, sizeof(key), "lanes.%s.expected_failure_reason", mtest_lane0);
  mtest_set(d, key, json_object_new_string("a known failure"));
  snprintf(key, sizeof(key), "lanes.%s.samples.0", mtest_lane0);
  {
    json_object *s = json_at(d, key), *failure = json_object_new_object();
    mtest_set(s, "status", json_object_new_string("failed"));
    mtest_set(failure, "stage", json_object_new_string("result"));
    mtest_set(failure, "reason", json_object_new_string("result_mismatch"));
    mtest_set(failure, "message", json_object_new_string("frames_sent 1"));
    mtest_set(s, "failure", failure);
    mtest_set(s, "checks.client_result.outcome",
              json_object_new_string("failed"));
  }
  vtest_refigure(d);
  mtest_save(d, "linux-expected.json");
  mtest_with_good(&f, "linux-expected.json", 0);
  if (TAP_OK(mtest_merge(&f, &m, &p) == 0, "an expected_failure lane merges")) {
    snprintf(key, sizeof(key), "platforms.linux.lanes.%s.samples.0.status",
             mtest_lane0);
    merge_summary(m, line, sizeof(line));
    TAP_OK(strcmp(mtest_path_str(m, key), "failed") == 0 &&
               strstr(line, "1 expected failure: linux ") != NULL,
           "it is kept with its failed sample and reported: %s", line);
  } else {
    mtest_show(&p);
  }
  json_object_put(m);
  m = NULL;

  /* A runtime not pinned may differ: reported, not refused. */
  memset(&f, 0, sizeof(f));
  d = mtest_craft(1);
  mtest_set(d, "runtimes.c.toolchain_version",
            json_object_new_string("cc 99.1"));
  mtest_save(d, "macos-cc-99-unpinned.json");
  mtest_with_good(&f, "macos-cc-99-unpinned.json", 1);
  TAP_OK(mtest_merge(&f, &m, &p) == 0 &&
             strcmp(mtest_path_str(m, "toolchain_versions.c.macos"),
                    "cc 99.1") == 0 &&
             strcmp(mtest_path_str(m, "toolchain_versions.c.linux"),
                    mtest_path_str(mtest_base,
                                   "runtimes.c.toolchain_version")) == 0,
         "an unpinned toolchain that differs is reported in "
         "toolchain_versions");
  json_object_put(m);
  merge_problems_release(&p);
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
  f[0] = memfile_open(&text[0], &n[0]);
  f[1] = memfile_open(&text[1], &n[1]);
  if (f[0] != NULL && f[1] != NULL)
    rc = cmd_merge(nargs + 1, argv, f[0], f[1]);
  for (int k = 0; k < 2; k++) {
    if (f[k] != NULL)
      memfile_close(f[k]);
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

  mtest_in_dir(l, sizeof(l), mtest_good[0]);
  mtest_in_dir(m, sizeof(m), mtest_good[1]);
  mtest_in_dir(w, sizeof(w), mtest_good[2]);
  mtest_in_dir(failed, sizeof(failed), "linux-sample-failed.json");
  mtest_in_dir(out, sizeof(out), "cmd-merged.json");
  mtest_in_dir(out2, sizeof(out2), "no-such-folder/merged.json");
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
             failed, mtest_lane0);
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
               strcmp(mtest_path_str(doc, "mode"), "merged") == 0,
           "a merge exits 0, writes --out and prints one line: %.*s",
           (int)strcspn(so, "\n"), so);
    json_object_put(doc);
    remove(out);
  }
  {
    char rh[512];
    const char *args[] = {"--allow-rehearsal", "--out", out, l, rh, w};
    mtest_in_dir(rh, sizeof(rh), "macos-rehearsal.json");
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

int main(void)
{
  if (mtest_setup() == 0) {
    test_broken();
    test_allowed();
    test_command();
  }
  mtest_teardown();
  return tap_done();
}
