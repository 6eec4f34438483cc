/* The cost figures in evidence (evidence/write/cost.h): a rehearsed record
 * of fixture peers, one lane whose client reports its CPU and a latency
 * histogram and whose server prints its result line, one lane whose peers
 * report neither, holds every field as lanes/README.md and ISSUE 14 name
 * them and validates and merges as written; with one cost figure, the
 * lane's merged histogram or a reported percentile edited it is refused by
 * `crossrun validate` and by `crossrun merge`, naming the field's JSON
 * pointer; the same file without any of the new fields, as older evidence
 * is, still validates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "evidence/merge/merge.h"
#include "tests/lib_validate.h"
#include "tests/tap.h"

static char crossrun[1024], fixture[1024], dir[512], record[1200];
static json_object *base;

static int run(const char *args, const char *log)
{
  char cmd[4096];
  int status;
  snprintf(cmd, sizeof(cmd), "cd %s && %s %s >%s/%s 2>&1", dir, crossrun, args,
           dir, log);
  status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *name)
{
  char path[700];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return vtest_read_text(path, NULL);
}

/* Runtime "a" reports every cost figure, "b" none. */
static int make_record(void)
{
  char m[2048], path[700], folder[700];
  uv_fs_t req;
  uv_dirent_t ent;

  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  a:\n    client: [%s, client, latency]\n"
           "    server: [%s, server, result]\n"
           "  b:\n    client: [%s, client, ok]\n    server: [%s, server, ok]\n"
           "workloads:\n"
           "  quick: {warmup: 10, round_trips: 200, payload_bytes: 16, "
           "max_in_flight: 4, samples: 2}\n"
           "  full: {warmup: 10, round_trips: 300, payload_bytes: 16, "
           "max_in_flight: 4, samples: 2}\n",
           fixture, fixture, fixture, fixture);
  snprintf(path, sizeof(path), "%s/cost.yaml", dir);
  vtest_write_text(path, m, strlen(m));
  snprintf(folder, sizeof(folder), "%s/record", dir);
  run("record --rehearse --no-conform --matrix cost.yaml --lanes a-a,b-b "
      "--no-packages "
      "--output-directory record",
      "record.log");
  record[0] = '\0';
  if (uv_fs_scandir(NULL, &req, folder, 0, NULL) >= 0)
    while (uv_fs_scandir_next(&req, &ent) != UV_EOF)
      if (strncmp(ent.name, "evidence-", 9) == 0)
        snprintf(record, sizeof(record), "%s/%s", folder, ent.name);
  uv_fs_req_cleanup(&req);
  base = record[0] ? vtest_load(record) : NULL;
  return base != NULL ? 0 : -1;
}

static void save(json_object *doc, const char *name, char *path, size_t len)
{
  const char *text = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
  snprintf(path, len, "%s/%s", dir, name);
  vtest_write_text(path, text, strlen(text));
  json_object_put(doc);
}

/* validate exits 0 (want 0) or refuses with "FILE: at POINTER: recorded"
 * holding want; merge agrees. */
static void expect(const char *path, const char *pointer, const char *want,
                   const char *what)
{
  static const char *const require[] = {"linux"};
  struct merge_options o = MERGE_OPTIONS_INIT;
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  const char *paths[1] = {path};
  char args[1400], line[2048], *out;
  json_object *merged = NULL;
  int rc, found = 0;

  snprintf(args, sizeof(args), "validate %s", path);
  rc = run(args, "validate.out");
  out = slurp("validate.out");
  snprintf(line, sizeof(line), "%s: at %s: recorded ", path,
           pointer ? pointer : "");
  if (pointer == NULL) {
    if (!TAP_OK(rc == 0, "validate accepts %s", what))
      tap_diag("exit %d:\n%s", rc, out ? out : "");
  } else if (!TAP_OK(rc == 1 && out != NULL && strstr(out, line) != NULL &&
                         strstr(strstr(out, line), want) != NULL,
                     "validate refuses %s: names %s (%s)", what, pointer,
                     want)) {
    tap_diag("exit %d:\n%s", rc, out ? out : "");
  }
  free(out);

  o.require = require;
  o.nrequire = 1;
  o.allow_rehearsal = 1;
  rc = merge_files(&o, paths, 1, &merged, &p);
  for (int i = 0; pointer != NULL && i < p.count; i++)
    if (strncmp(p.lines[i], line, strlen(line)) == 0 &&
        strstr(p.lines[i], want) != NULL)
      found = 1;
  if (!TAP_OK(pointer == NULL ? rc == 0 : rc == -1 && merged == NULL && found,
              "merge %s %s", pointer == NULL ? "accepts" : "refuses", what))
    for (int i = 0; i < p.count; i++)
      tap_diag("  %s", p.lines[i]);
  json_object_put(merged);
  merge_problems_release(&p);
}

#define SAMPLE_A "/lanes/a-a/samples/0"
#define SAMPLE_B "/lanes/b-b/samples/0"

static void test_fields(void)
{
  json_object *lat = vtest_at(base, "/lanes/a-a/summary/latency_ns");
  json_object *cost = vtest_at(base, SAMPLE_A "/cost");

  TAP_OK(vtest_at(base, SAMPLE_A "/result/latency/buckets") != NULL &&
             vtest_at(base, SAMPLE_A "/result/cpu_user_us") != NULL &&
             vtest_at(base, SAMPLE_A "/server_result/frames_received") !=
                 NULL &&
             vtest_at(base, SAMPLE_A "/cost/client_cpu_us_per_round_trip") !=
                 NULL &&
             vtest_at(base, SAMPLE_A "/cost/server_cpu_us_per_round_trip") !=
                 NULL &&
             vtest_at(base, SAMPLE_A "/cost/latency_ns/p99_9") != NULL,
         "a reporting lane's sample keeps the result's cost fields, the "
         "server's line and its cost");
  TAP_OK(lat != NULL && json_object_get_int(vtest_at(lat, "/samples")) == 2 &&
             json_object_get_int64(vtest_at(lat, "/count")) == 600 &&
             vtest_at(base, "/lanes/a-a/summary/"
                            "client_cpu_us_per_round_trip_median") != NULL &&
             vtest_at(base, "/lanes/a-a/summary/"
                            "server_cpu_us_per_round_trip_median") != NULL &&
             json_object_object_length(
                 vtest_at(base, "/lanes/a-a/summary/not_reported")) == 0,
         "its summary merges both histograms (600 latencies) and has both "
         "CPU medians");
  TAP_OK(cost != NULL &&
             json_object_object_length(vtest_at(cost, "/not_reported")) == 0,
         "nothing of it is not reported");
  TAP_OK(
      vtest_at(base, SAMPLE_B "/cost") != NULL &&
          vtest_at(base, SAMPLE_B "/cost/latency_ns") == NULL &&
          vtest_at(base, SAMPLE_B "/cost/not_reported/latency_ns") != NULL &&
          vtest_at(base, SAMPLE_B
                   "/cost/not_reported/server_cpu_us_per_round_trip") != NULL &&
          vtest_at(base, SAMPLE_B "/result/latency") == NULL &&
          vtest_at(base, "/lanes/b-b/summary/not_reported/latency_ns") != NULL,
      "a lane that reports nothing has null figures, each with why");
}

/* The summary crossrun prints: a row per lane with its time, p50, p99,
 * p99.9 and each peer's CPU per round trip, "-" where not reported. */
static void test_summary(void)
{
  char *log = slurp("record.log");
  const char *table = log ? strstr(log, "cost per round trip") : NULL;
  const char *a = table ? strstr(table, "\na-a ") : NULL;
  const char *b = table ? strstr(table, "\nb-b ") : NULL;

  TAP_OK(table != NULL && strstr(table, "p99.9") != NULL &&
             strstr(table, "client CPU µs/rt") != NULL &&
             strstr(table, "server CPU µs/rt") != NULL,
         "the summary has the cost table with its columns");
  TAP_OK(a != NULL && strchr(a + 1, '\n') != NULL &&
             memchr(a + 5, '-', (size_t)(strchr(a + 1, '\n') - (a + 5))) ==
                 NULL &&
             (strstr(a, " ns ") != NULL || strstr(a, " µs ") != NULL),
         "a reporting lane's row has every figure (no '-' after its name)");
  TAP_OK(b != NULL && strstr(b, "  -  ") != NULL,
         "a lane that reports nothing shows '-' for its figures");
  if (table == NULL || a == NULL || b == NULL)
    tap_diag("%s", log ? log : "");
  free(log);
}

static void test_edits(void)
{
  static const struct {
    const char *pointer;
    const char *value; /* JSON */
    const char *want;  /* in the message */
    const char *what;
  } edits[] = {
      {SAMPLE_A "/cost/client_cpu_us_per_round_trip", "1234.5",
       "recomputed from the raw samples", "a client CPU per round trip"},
      {SAMPLE_A "/cost/server_cpu_us_per_round_trip", "0.001",
       "recomputed from the raw samples", "a server CPU per round trip"},
      {SAMPLE_A "/cost/latency_ns/p99", "1", "recomputed from the raw samples",
       "a sample's p99"},
      {SAMPLE_A "/result/latency/p90", "5", "the buckets give",
       "a percentile the client reported"},
      {"/lanes/a-a/summary/latency_ns/p50", "1",
       "recomputed from the raw samples", "the merged median"},
      {"/lanes/a-a/summary/latency_ns/count", "601",
       "recomputed from the raw samples", "the merged count"},
      {"/lanes/a-a/summary/server_cpu_us_per_round_trip_median", "0.5",
       "recomputed from the raw samples", "a CPU median"},
  };
  char path[700], name[32];

  for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
    json_object *doc = vtest_copy(base);
    const char *pointer = edits[i].pointer;
    char at[256];
    vtest_edit(doc, pointer, vtest_parse(edits[i].value), 1);
    snprintf(name, sizeof(name), "edit%zu.json", i);
    save(doc, name, path, sizeof(path));
    /* The finding is at the object holding a nested figure. */
    snprintf(at, sizeof(at), "%s", pointer);
    if (strstr(at, "/cost/latency_ns/") != NULL)
      *strrchr(at, '/') = '\0';
    if (strstr(at, "/result/latency/") != NULL)
      *strrchr(at, '/') = '\0';
    if (strstr(at, "/summary/latency_ns/") != NULL)
      *strrchr(at, '/') = '\0';
    expect(path, at, edits[i].want, edits[i].what);
  }
}

/* Older evidence has none of the new fields: still valid, still merged. */
static void test_older(void)
{
  static const char *const gone[] = {
      "/cost",
      "/server_result",
      "/checks/server_result",
      "/result/cpu_user_us",
      "/result/cpu_system_us",
      "/result/latency",
  };
  static const char *const gone_summary[] = {
      "latency_ns", "client_cpu_us_per_round_trip_median",
      "server_cpu_us_per_round_trip_median", "not_reported"};
  json_object *doc = vtest_copy(base);
  char path[700];

  json_object_object_foreach(vtest_at(doc, "/lanes"), name, lane)
  {
    json_object *samples = vtest_at(lane, "/samples");
    (void)name;
    for (size_t k = 0; k < json_object_array_length(samples); k++) {
      json_object *s = json_object_array_get_idx(samples, k);
      for (size_t g = 0; g < sizeof(gone) / sizeof(gone[0]); g++) {
        const char *slash = strrchr(gone[g], '/');
        char parent[64];
        snprintf(parent, sizeof(parent), "%.*s", (int)(slash - gone[g]),
                 gone[g]);
        json_object *holder = parent[0] ? vtest_at(s, parent) : s;
        if (json_object_is_type(holder, json_type_object))
          json_object_object_del(holder, slash + 1);
      }
    }
    for (size_t g = 0; g < sizeof(gone_summary) / sizeof(gone_summary[0]); g++)
      json_object_object_del(vtest_at(lane, "/summary"), gone_summary[g]);
  }
  save(doc, "older.json", path, sizeof(path));
  expect(path, NULL, NULL, "evidence without the cost fields");
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char cmd[700], cwd[512];

  if (getcwd(cwd, sizeof(cwd)) == NULL)
    return 1;
  snprintf(crossrun, sizeof(crossrun), "%s/%s/crossrun", cwd, build);
  snprintf(fixture, sizeof(fixture), "%s/%s/tests/fixture", cwd, build);
  if (!TAP_OK(tap_mkdtemp(dir, sizeof dir) != NULL, "a temporary folder"))
    return tap_done();
  if (TAP_OK(make_record() == 0, "crossrun record --rehearse of fixture "
                                 "peers wrote evidence")) {
    expect(record, NULL, NULL, "the record as written");
    test_fields();
    test_summary();
    test_edits();
    test_older();
  } else {
    char *log = slurp("record.log");
    tap_diag("%s", log ? log : "");
    free(log);
  }
  json_object_put(base);
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
