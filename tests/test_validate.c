/* evidence/validate and evidence/schema.json: evidence that crossrun writes
 * (quick, run, record, and a merged document built from the record)
 * validates clean; broken variants of it are each reported at the right
 * JSON pointer; files that are not JSON are reported by byte;
 * `crossrun validate`'s output and exit status. The validator's own
 * semantics on small schemas are test_validate_semantics.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/base/json_read.h"
#include "evidence/schema/validate.h"
#include "runner/commands.h"
#include "tests/lib_lanes.h"
#include "tests/lib_memfile.h"
#include "tests/lib_scratch.h"
#include "tests/lib_validate.h"
#include "tests/tap.h"

static char crossrun[1024];
static char schema_path[4096];
static char dir[512];
static json_object *schema;

/* ---- helpers ---- */

/* Validates doc and checks that it is valid. */
static void expect_valid(json_object *doc, const char *what)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  int rc = validate_document(schema, doc, &e);
  if (!TAP_OK(rc == 0, "%s validates clean (rc %d, %d errors)", what, rc,
              e.total))
    vtest_show_errors(&e, 20);
  validate_errors_release(&e);
}

/* Validates doc and checks that one message is "at <pointer>: ..." and
 * contains problem. */
static void expect_error(json_object *doc, const char *pointer,
                         const char *problem, const char *what)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  char prefix[1200];
  int rc = validate_document(schema, doc, &e), found = 0;

  snprintf(prefix, sizeof(prefix), "at %s: ", pointer);
  for (int i = 0; i < e.n; i++)
    if (strncmp(e.messages[i], prefix, strlen(prefix)) == 0 &&
        strstr(e.messages[i], problem) != NULL)
      found = 1;
  if (!TAP_OK(rc == 1 && found, "%s: reported at %s (%s)", what, pointer,
              problem))
    vtest_show_errors(&e, 20);
  validate_errors_release(&e);
}

#define TEXT_LEN ((size_t)-1) /* strlen(text) */

/* Writes len bytes of text (TEXT_LEN: all of it) to a file in the
 * temporary folder and checks that validate_file reports it with want in
 * a message. */
static void expect_file_error(const char *name, const char *text, size_t len,
                              const char *want)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  char path[512], err[512] = "";
  int rc;

  if (len == TEXT_LEN)
    len = strlen(text);
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  if (vtest_write_text(path, text, len) != 0) {
    TAP_OK(0, "%s: written", name);
    return;
  }
  rc = validate_file(schema_path, path, &e, err, sizeof(err));
  if (!TAP_OK(rc == 1 && vtest_has_error(&e, want), "%s: reported as '%s'",
              name, want))
    vtest_show_errors(&e, 10);
  validate_errors_release(&e);
  remove(path);
}

/* Runs crossrun with args, its output in the folder's "stdout". */
static int run(const char *const *args)
{
  char log[600];
  snprintf(log, sizeof(log), "%s/stdout", dir);
  return vtest_run(crossrun, args, log, tap_timeout_s(600));
}

/* The one evidence-*.json or rejected-*.json file in folder, or "". */
static void find_json(const char *folder, char *out, size_t outlen)
{
  uv_fs_t req;
  uv_dirent_t ent;

  out[0] = '\0';
  if (uv_fs_scandir(NULL, &req, folder, 0, NULL) < 0) {
    uv_fs_req_cleanup(&req);
    return;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    size_t n = strlen(ent.name);
    if (n > 5 && strcmp(ent.name + n - 5, ".json") == 0)
      snprintf(out, outlen, "%s/%s", folder, ent.name);
  }
  uv_fs_req_cleanup(&req);
}

/* ---- evidence that crossrun writes ---- */

static json_object *quick_doc, *run_doc, *record_doc;

static void test_written_evidence(void)
{
  char out[600], args[1200], recdir[600], recfile[1200];
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  int rc;

  snprintf(out, sizeof(out), "%s/quick.json", dir);
  {
    const char *a[] = {"quick", "--lanes", LIB_LANES_EACH_RUNTIME,
                       "--out", out,       NULL};
    rc = run(a);
  }
  /* 1: a lane failed or a toolchain is missing; the file is evidence all
   * the same. */
  TAP_OK(rc == 0 || rc == 1, "crossrun quick (every runtime) ran: exit %d", rc);
  rc = validate_file(schema_path, out, &e, args, sizeof(args));
  if (!TAP_EQ_INT(rc, 0, "quick evidence validates clean (rc %d)", rc))
    vtest_show_errors(&e, 20);
  validate_errors_release(&e);
  quick_doc = vtest_load(out);

  snprintf(out, sizeof(out), "%s/run.json", dir);
  {
    const char *a[] = {"run",       "--lanes",  "c-c,c-node,node-node",
                       "--samples", "2",        "--round-trips",
                       "20000",     "--warmup", "1000",
                       "--out",     out,        NULL};
    rc = run(a);
  }
  TAP_OK(rc == 0 || rc == 1, "crossrun run ran: exit %d", rc);
  rc = validate_file(schema_path, out, &e, args, sizeof(args));
  if (!TAP_EQ_INT(rc, 0, "run evidence validates clean (rc %d)", rc))
    vtest_show_errors(&e, 20);
  validate_errors_release(&e);
  run_doc = vtest_load(out);

  snprintf(recdir, sizeof(recdir), "%s/record", dir);
  {
    const char *a[] = {"record",
                       "--output-directory",
                       recdir,
                       "--rehearse",
                       "--no-conform",
                       "--lanes",
                       "c-c",
                       "--samples",
                       "1",
                       "--round-trips",
                       "20000",
                       "--warmup",
                       "1000",
                       NULL};
    rc = run(a);
  }
  find_json(recdir, recfile, sizeof(recfile));
  TAP_OK(recfile[0] != '\0',
         "crossrun record --rehearse wrote a file: exit "
         "%d",
         rc);
  if (recfile[0] != '\0') {
    rc = validate_file(schema_path, recfile, &e, args, sizeof(args));
    if (!TAP_EQ_INT(rc, 0, "record evidence validates clean (rc %d)", rc))
      vtest_show_errors(&e, 20);
    validate_errors_release(&e);
    record_doc = vtest_load(recfile);
    remove(recfile);
  }
  uv_fs_t req;
  uv_fs_rmdir(NULL, &req, recdir, NULL);
  uv_fs_req_cleanup(&req);
  TAP_OK(quick_doc && run_doc && record_doc, "the three files parse");
}

/* A merged document (the shape crossrun merge writes) around the record:
 * one platform, its shard removed. */
static json_object *make_merged(json_object *record)
{
  json_object *m = json_object_new_object(), *inputs, *input, *platforms,
              *tools, *linux_doc, *commit;

  linux_doc = vtest_copy(record);
  json_object_object_del(linux_doc, "shard");
  json_object_object_add(m, "schema_version", json_object_new_int(1));
  json_object_object_add(m, "tool", vtest_copy(vtest_at(record, "/tool")));
  json_object_object_add(m, "mode", json_object_new_string("merged"));
  json_object_object_add(m, "performance_claims", json_object_new_boolean(1));
  json_object_object_add(m, "official", json_object_new_boolean(0));
  commit = vtest_at(record, "/provenance/commit");
  json_object_object_add(
      m, "commit",
      json_object_new_string(commit ? json_object_get_string(commit)
                                    : "0123456789abcdef0123456789abcdef"
                                      "01234567"));
  input = json_object_new_object();
  json_object_object_add(
      input, "sha256",
      json_object_new_string("0fcf0fc3370aa2a8a00f1a63d92b40158df936313fc2a1"
                             "f89151c4a5fc1683e5"));
  json_object_object_add(input, "os", json_object_new_string("linux"));
  json_object_object_add(input, "arch", json_object_new_string("x86_64"));
  json_object_object_add(input, "machine",
                         vtest_copy(vtest_at(record, "/machine")));
  json_object_object_add(input, "shard", NULL);
  json_object_object_add(input, "provenance_verified",
                         json_object_new_boolean(0));
  json_object_object_add(input, "provenance",
                         json_object_new_string("not verified: local merge"));
  inputs = json_object_new_object();
  json_object_object_add(inputs, "evidence-linux-x86_64.json", input);
  json_object_object_add(m, "inputs", inputs);
  tools = json_object_new_object();
  json_object_object_add(tools, "c", json_object_new_object());
  json_object_object_add(vtest_at(tools, "/c"), "linux",
                         json_object_new_string("cc 12.2.0"));
  json_object_object_add(m, "toolchain_versions", tools);
  platforms = json_object_new_object();
  json_object_object_add(platforms, "linux", linux_doc);
  json_object_object_add(m, "platforms", platforms);
  return m;
}

/* ---- broken variants ---- */

static json_object *deep_array(int levels)
{
  json_object *inner = json_object_new_array();
  for (int i = 1; i < levels; i++) {
    json_object *outer = json_object_new_array();
    json_object_array_add(outer, inner);
    inner = outer;
  }
  return inner;
}

struct variant {
  const char *what;
  const char *edit; /* pointer edited */
  int op;           /* EDIT_DELETE, EDIT_SET, EDIT_SET_NULL */
  json_object *(*value)(void);
  const char *report; /* pointer of the error */
  const char *problem;
};

/* EDIT_: windows.h defines DELETE. */
enum { EDIT_DELETE, EDIT_SET, EDIT_SET_NULL };

static json_object *v_string_number(void)
{
  return json_object_new_string("20000");
}
static json_object *v_one_point_zero(void)
{
  return json_object_new_double(1.0);
}
static json_object *v_minus_one(void)
{
  return json_object_new_int(-1);
}
static json_object *v_one(void)
{
  return json_object_new_int(1);
}
static json_object *v_bogus(void)
{
  return json_object_new_string("bogus");
}
static json_object *v_short_sha(void)
{
  return json_object_new_string("0fcf0fc3370a");
}
static json_object *v_upper_sha(void)
{
  return json_object_new_string("0FCF0FC3370AA2A8A00F1A63D92B40158DF936313FC2"
                                "A1F89151C4A5FC1683E5");
}
static json_object *v_inf(void)
{
  return json_object_new_double_s(INFINITY, "1e400");
}
static json_object *v_nan(void)
{
  return json_object_new_double(NAN);
}
static json_object *v_deep(void)
{
  return deep_array(10000);
}
static json_object *v_port(void)
{
  return json_object_new_int(70000);
}
static json_object *v_bad_utf8(void)
{
  return json_object_new_string("\xff\xfe");
}
static json_object *v_date(void)
{
  return json_object_new_string("30/11/2026");
}
static json_object *v_failure(void)
{
  return vtest_parse("{\"stage\": \"cleanup\", \"reason\": \"port_not_free\", "
                     "\"message\": \"x\"}");
}
static json_object *v_true(void)
{
  return json_object_new_boolean(1);
}

#define SAMPLE "/lanes/c-c/samples/0"
/* The 65th level: argv/0 is the 7th, 57 more below it. */
#define ZEROS8 "/0/0/0/0/0/0/0/0"
#define DEEP_POINTER                                                           \
  SAMPLE "/client/argv/0" ZEROS8 ZEROS8 ZEROS8 ZEROS8 ZEROS8 ZEROS8 ZEROS8 "/" \
         "0"

static const struct variant variants[] = {
    {"a missing required field", "/machine", EDIT_DELETE, NULL, "/machine",
     "required property is missing"},
    {"a missing check", SAMPLE "/checks/port_free", EDIT_DELETE, NULL,
     SAMPLE "/checks/port_free", "required property is missing"},
    {"a wrong type", "/workload/round_trips", EDIT_SET, v_string_number,
     "/workload/round_trips", "expected integer, got string \"20000\""},
    {"a count written as 1.0", "/cleanliness/pairs_started", EDIT_SET,
     v_one_point_zero, "/cleanliness/pairs_started",
     "expected integer, got number 1.0"},
    {"null where null is not allowed", "/tool/version", EDIT_SET_NULL, NULL,
     "/tool/version", "expected string, got null"},
    {"an unknown extra field", SAMPLE "/server/memory/extra", EDIT_SET, v_one,
     SAMPLE "/server/memory/extra", "not allowed"},
    {"an unknown top-level field", "/extra", EDIT_SET, v_one, "/extra",
     "not allowed"},
    {"a bad sample status", SAMPLE "/status", EDIT_SET, v_bogus,
     SAMPLE "/status", "\"bogus\" is not one of"},
    {"a bad lane status", "/lanes/c-c/summary/status", EDIT_SET, v_bogus,
     "/lanes/c-c/summary/status", "is not one of"},
    {"a bad check outcome", SAMPLE "/checks/temp_clean/outcome", EDIT_SET,
     v_bogus, SAMPLE "/checks/temp_clean/outcome", "is not one of"},
    {"a bad memory source", SAMPLE "/client/memory/peak_rss_source", EDIT_SET,
     v_bogus, SAMPLE "/client/memory/peak_rss_source", "is not one of"},
    {"a bad mode", "/mode", EDIT_SET, v_bogus, "/mode", "is not one of"},
    {"a negative count", "/cleanliness/processes_left", EDIT_SET, v_minus_one,
     "/cleanliness/processes_left", "-1 is less than the minimum 0"},
    {"a negative figure", SAMPLE "/server/cpu/user_ns", EDIT_SET, v_minus_one,
     SAMPLE "/server/cpu/user_ns", "less than the minimum 0"},
    {"a port out of range", SAMPLE "/port", EDIT_SET, v_port, SAMPLE "/port",
     "greater than the maximum 65535"},
    {"a sha256 that is not 64 hex", "/runtimes/c/package/sha256", EDIT_SET,
     v_short_sha, "/runtimes/c/package/sha256", "does not match"},
    {"a sha256 in capitals", "/runtimes/c/package/sha256", EDIT_SET,
     v_upper_sha, "/runtimes/c/package/sha256", "does not match"},
    {"a date that is not ISO 8601", "/started_at", EDIT_SET, v_date,
     "/started_at", "does not match"},
    {"1e400", SAMPLE "/ns_per_round_trip", EDIT_SET, v_inf,
     SAMPLE "/ns_per_round_trip", "number out of range: 1e400"},
    {"NaN", "/lanes/c-c/summary/ns_per_round_trip_median", EDIT_SET, v_nan,
     "/lanes/c-c/summary/ns_per_round_trip_median", "not a finite double"},
    {"a string that is not UTF-8", SAMPLE "/reproduce/server", EDIT_SET,
     v_bad_utf8, SAMPLE "/reproduce/server", "not valid UTF-8"},
    {"an array nested 10,000 levels deep", SAMPLE "/client/argv/0", EDIT_SET,
     v_deep, DEEP_POINTER, "nested deeper than 64 levels"},
    {"the same, its type", SAMPLE "/client/argv/0", EDIT_SET, v_deep,
     SAMPLE "/client/argv/0", "expected string, got an array of 1 item"},
    {"a passed sample with a failure", SAMPLE "/failure", EDIT_SET, v_failure,
     SAMPLE "/failure", "expected null, got an object"},
    {"claims without comparisons", "/comparisons", EDIT_SET_NULL, NULL,
     "/comparisons", "expected object, got null"},
    {"a quick file that claims performance", "/performance_claims", EDIT_SET,
     v_true, "/performance_claims", "expected false, got true"},
};

/* The emulator that ran doc (machine.emulator: wine), or NULL. */
static const char *emulator_of(json_object *doc)
{
  json_object *e = vtest_at(doc, "/machine/emulator");
  const char *s = e ? json_object_get_string(e) : NULL;
  return s && s[0] ? s : NULL;
}

/* What a run under an emulator does not hold: it makes no performance
 * claims, so it has no comparisons, and it builds no package (there is
 * no sh or npm). A variant that edits one of them is skipped there. */
static int emulator_lacks(json_object *doc, const char *pointer)
{
  static const char *const lacked[] = {"/runtimes/c/package/sha256",
                                       "/comparisons"};
  if (emulator_of(doc) == NULL || vtest_at(doc, pointer) != NULL)
    return 0;
  for (size_t i = 0; i < sizeof(lacked) / sizeof(lacked[0]); i++)
    if (strcmp(pointer, lacked[i]) == 0)
      return 1;
  return 0;
}

static void test_broken_variants(void)
{
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
    const struct variant *v = &variants[i];
    /* The run file's lane c-c has passed samples and the C runtime a
     * measured package; the quick file makes no performance claims. */
    int quick = strstr(v->what, "quick file") != NULL;
    json_object *doc = vtest_copy(quick ? quick_doc : run_doc);
    if (doc == NULL)
      continue;
    if (emulator_lacks(doc, v->edit)) {
      printf("ok %d - # SKIP %s: a run under %s has no %s\n", ++tap_count,
             v->what, emulator_of(doc), v->edit);
    } else if (vtest_edit(doc, v->edit,
                          v->op == EDIT_DELETE || v->op == EDIT_SET_NULL
                              ? NULL
                              : v->value(),
                          v->op == EDIT_SET_NULL) != 0) {
      TAP_OK(0, "%s: %s exists in the evidence", v->what, v->edit);
    } else {
      expect_error(doc, v->report, v->problem, v->what);
    }
    json_object_put(doc);
  }
}

static void test_valid_variants(void)
{
  json_object *doc = vtest_copy(run_doc), *failure;

  if (doc == NULL)
    return;
  vtest_edit(doc, "/machine/memory_bytes", NULL, 1);
  vtest_edit(doc, SAMPLE "/server/cpu/user_ns", NULL, 1);
  vtest_edit(doc, SAMPLE "/client/memory/peak_rss_bytes", NULL, 1);
  expect_valid(doc, "null figures ('not measured')");
  json_object_put(doc);

  doc = vtest_copy(run_doc);
  failure = v_failure();
  vtest_edit(doc, SAMPLE "/status", json_object_new_string("failed"), 0);
  vtest_edit(doc, SAMPLE "/failure", failure, 0);
  vtest_edit(doc, SAMPLE "/elapsed_ns", NULL, 1);
  vtest_edit(doc, SAMPLE "/ns_per_round_trip", NULL, 1);
  expect_valid(doc, "a failed sample with its failure");
  json_object_put(doc);
}

static void test_many_errors(void)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *doc = vtest_copy(run_doc);
  char key[32];
  int rc;

  if (doc == NULL)
    return;
  vtest_edit(doc, "/machine", NULL, 0);
  vtest_edit(doc, "/workload/round_trips", v_string_number(), 0);
  vtest_edit(doc, SAMPLE "/status", v_bogus(), 0);
  vtest_edit(doc, "/cleanliness/sockets_left", v_minus_one(), 0);
  rc = validate_document(schema, doc, &e);
  if (!TAP_OK(rc == 1 && vtest_has_error(&e, "at /machine: ") &&
                  vtest_has_error(&e, "at /workload/round_trips: ") &&
                  vtest_has_error(&e, "at " SAMPLE "/status: ") &&
                  vtest_has_error(&e, "at /cleanliness/sockets_left: "),
              "four problems in one file: all four reported"))
    vtest_show_errors(&e, 20);
  validate_errors_release(&e);

  for (int i = 0; i < 500; i++) {
    snprintf(key, sizeof(key), "extra_%d", i);
    json_object_object_add(doc, key, json_object_new_int(i));
  }
  rc = validate_document(schema, doc, &e);
  TAP_OK(rc == 1 && e.n == VALIDATE_MAX_ERRORS && e.total > 500,
         "500 unknown fields: %d kept, %d counted", e.n, e.total);
  validate_errors_release(&e);
  json_object_put(doc);
}

static void test_merged(void)
{
  json_object *m, *doc;

  if (record_doc == NULL)
    return;
  m = make_merged(record_doc);
  expect_valid(m, "a merged document around the record");

  doc = vtest_copy(m);
  vtest_edit(doc, "/inputs/evidence-linux-x86_64.json/sha256", v_short_sha(),
             0);
  expect_error(doc, "/inputs/evidence-linux-x86_64.json/sha256",
               "does not match the pattern ^[0-9a-f]{64}$",
               "merged: an input's sha256 that is not 64 hex");
  json_object_put(doc);

  doc = vtest_copy(m);
  vtest_edit(doc, "/platforms/linux/mode", json_object_new_string("quick"), 0);
  expect_error(doc, "/platforms/linux/mode", "expected \"record\"",
               "merged: a platform that is not a record");
  json_object_put(doc);

  doc = vtest_copy(m);
  vtest_edit(doc, "/platforms/linux/shard", NULL, 1);
  expect_error(doc, "/platforms/linux/shard", "not allowed",
               "merged: a platform that kept its shard");
  json_object_put(doc);

  doc = vtest_copy(m);
  vtest_edit(doc, "/platforms/freebsd",
             vtest_copy(vtest_at(m, "/platforms/linux")), 0);
  expect_error(doc, "/platforms/freebsd", "not allowed",
               "merged: an unknown OS");
  json_object_put(doc);

  doc = vtest_copy(m);
  vtest_edit(doc, "/commit", json_object_new_string("HEAD"), 0);
  expect_error(doc, "/commit", "does not match",
               "merged: a commit that is not a hash");
  json_object_put(doc);

  doc = vtest_copy(m);
  vtest_edit(doc, "/platforms/linux" SAMPLE "/wall_ns", v_minus_one(), 0);
  expect_error(doc, "/platforms/linux" SAMPLE "/wall_ns", "less than",
               "merged: a platform's sample");
  json_object_put(doc);
  json_object_put(m);
}

/* ---- files ---- */

static void test_files(void)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  char path[600], err[512] = "", *text, *deep;
  size_t len = 0;
  int rc;

  snprintf(path, sizeof(path), "%s/quick.json", dir);
  text = vtest_read_text(path, &len);
  if (TAP_OK(text != NULL && len > 1000, "the quick file reads back")) {
    char want[80];
    /* Cut inside the document: the parser runs out at the cut. */
    snprintf(want, sizeof(want), "not JSON: unexpected end of data at byte %zu",
             len / 2);
    expect_file_error("truncated.json", text, len / 2, want);
  }
  free(text);
  /* Not "nul.json": Windows reads NUL.* as its null device. */
  expect_file_error("nul-byte.json", "{\"a\": 1}\0{}", 11,
                    "not JSON: a NUL byte at byte 8");
  expect_file_error("not-json.json", "<!doctype html>\n", TEXT_LEN,
                    "not JSON: unexpected character at byte 0");
  expect_file_error("empty.json", "", TEXT_LEN, "not JSON: the file is empty");
  expect_file_error("trailing.json", "{} {}", TEXT_LEN, "not JSON: ");
  expect_file_error("nan.json", "{\"schema_version\": NaN}", TEXT_LEN,
                    "at /schema_version: number out of range");
  expect_file_error("huge-double.json", "{\"schema_version\": 1e400}", TEXT_LEN,
                    "at /schema_version: number out of range: 1e400");
  expect_file_error("huge-integer.json",
                    "{\"schema_version\": 99999999999999999999}", TEXT_LEN,
                    "at /schema_version: integer out of range");
  expect_file_error("negative-huge.json",
                    "{\"cleanliness\": {\"pairs_started\": "
                    "-99999999999999999999}}",
                    TEXT_LEN,
                    "at /cleanliness/pairs_started: integer out of range");
  expect_file_error("not-utf8.json", "{\"mode\": \"\xff\"}", TEXT_LEN,
                    "not JSON: not valid UTF-8 at byte 10");
  expect_file_error("array.json", "[1, 2]", TEXT_LEN,
                    "at (root): expected object, got an array of 2 items");
  expect_file_error("null.json", "null", TEXT_LEN,
                    "at (root): expected object, "
                    "got null");

  deep = malloc(20001);
  if (deep != NULL) {
    memset(deep, '[', 10000);
    memset(deep + 10000, ']', 10000);
    expect_file_error("deep.json", deep, 20000,
                      "not JSON: nested more than 64 levels deep at byte");
    free(deep);
  }

  /* A sparse file one byte past the limit: refused, not read whole. */
  snprintf(path, sizeof(path), "%s/large.json", dir);
  {
    FILE *f = fopen(path, "wb");
    int made = f != NULL &&
               fseek(f, (long)JSON_READ_MAX_BYTES, SEEK_SET) == 0 &&
               fputc(' ', f) != EOF;
    if (f != NULL && fclose(f) != 0)
      made = 0;
    rc = made ? validate_file(schema_path, path, &e, err, sizeof(err)) : -2;
    if (!TAP_OK(rc == 1 && vtest_has_error(&e, "too large: more than 268435456 "
                                               "bytes"),
                "a file past 256 MiB is refused as too large (rc %d)", rc))
      vtest_show_errors(&e, 5);
    validate_errors_release(&e);
    remove(path);
  }

  snprintf(path, sizeof(path), "%s/missing.json", dir);
  rc = validate_file(schema_path, path, &e, err, sizeof(err));
  TAP_OK(rc == -1 && strstr(err, "cannot read") != NULL &&
             strstr(err, "missing.json") != NULL,
         "a missing file cannot be read: %s", err);
  validate_errors_release(&e);
  rc = validate_file(path, schema_path, &e, err, sizeof(err));
  TAP_OK(rc == -1 && strstr(err, "schema") != NULL,
         "a missing schema cannot be read: %s", err);
  validate_errors_release(&e);
  snprintf(path, sizeof(path), "%s/run.json", dir);
  rc = validate_file(schema_path, path, &e, err, sizeof(err));
  TAP_OK(rc == 0 && e.total == 0, "validate_file on the run file: valid");
  validate_errors_release(&e);
}

/* ---- crossrun validate ---- */

/* Runs cmd_validate with its output in memory; returns its status and
 * what it printed on out (then on err, after "[stderr] ") in out. */
static int command(const char *const *args, int nargs, char *out, size_t outlen)
{
  char *argv[16], *text = NULL, *etext = NULL;
  size_t len = 0, elen = 0;
  FILE *f = memfile_open(&text, &len), *ef = memfile_open(&etext, &elen);
  int rc = -1;

  argv[0] = "validate";
  for (int i = 0; i < nargs && i < 14; i++)
    argv[i + 1] = (char *)args[i];
  argv[nargs + 1] = NULL;
  if (f != NULL && ef != NULL)
    rc = cmd_validate(nargs + 1, argv, f, ef);
  if (f != NULL)
    memfile_close(f);
  if (ef != NULL)
    memfile_close(ef);
  snprintf(out, outlen, "%s", text ? text : "");
  if (etext != NULL && etext[0] != '\0')
    snprintf(out + strlen(out), outlen - strlen(out), "[stderr] %s", etext);
  free(text);
  free(etext);
  return rc;
}

/* Runs `crossrun validate ARGS` and checks its status and that its output
 * holds every string of want (NULL-terminated). */
static void expect_command(const char *const *args, int nargs, int want_rc,
                           const char *const *want, const char *what)
{
  char out[16384];
  int rc = command(args, nargs, out, sizeof(out)), found = 1;

  for (int i = 0; want[i] != NULL; i++)
    if (strstr(out, want[i]) == NULL)
      found = 0;
  if (!TAP_OK(rc == want_rc && found, "crossrun validate: %s: exit %d", what,
              want_rc)) {
    tap_diag("exit %d, output:", rc);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
      tap_diag("  %s", line);
  }
}

static void test_command(void)
{
  char quick[600], broken[600], bad_schema[600], schema_flag[4200],
      valid_line[700], invalid_line[700];
  json_object *doc;

  snprintf(quick, sizeof(quick), "%s/quick.json", dir);
  snprintf(broken, sizeof(broken), "%s/broken.json", dir);
  snprintf(bad_schema, sizeof(bad_schema), "%s/bad-schema.json", dir);
  snprintf(schema_flag, sizeof(schema_flag), "--schema=%s", schema_path);
  snprintf(valid_line, sizeof(valid_line), "%s: valid\n", quick);
  snprintf(invalid_line, sizeof(invalid_line),
           "%s: at /cleanliness/processes_left: -1 is less than the minimum "
           "0\n",
           broken);
  {
    const char *args[] = {"--schema", schema_path, quick};
    const char *want[] = {valid_line, NULL};
    expect_command(args, 3, 0, want, "a valid file: 'FILE: valid'");
  }
  doc = vtest_copy(run_doc);
  if (doc != NULL) {
    const char *args[] = {quick, broken, schema_flag};
    const char *want[] = {valid_line, invalid_line,
                          "at " SAMPLE "/status: \"bogus\" is not one of",
                          NULL};
    vtest_edit(doc, "/cleanliness/processes_left", v_minus_one(), 0);
    vtest_edit(doc, SAMPLE "/status", v_bogus(), 0);
    json_object_to_file(broken, doc);
    json_object_put(doc);
    expect_command(args, 3, 1, want,
                   "an invalid file among valid ones: every problem as "
                   "'FILE: at /pointer: problem'");
  }
  {
    const char *args[] = {"--schema", schema_path, "--", "no-such.json"};
    const char *want[] = {"no-such.json: cannot read", NULL};
    expect_command(args, 4, 1, want, "an unreadable file");
  }
  {
    const char *args[] = {"--schema", schema_path};
    const char *want[] = {"no file given", NULL};
    expect_command(args, 2, 2, want, "no file");
  }
  {
    const char *args[] = {"--frobnicate", quick};
    const char *want[] = {"unknown option '--frobnicate'", NULL};
    expect_command(args, 2, 2, want, "an unknown option");
  }
  {
    const char *args[] = {quick, "--schema"};
    const char *want[] = {"--schema needs a path", NULL};
    expect_command(args, 2, 2, want, "--schema without its path");
  }
  {
    const char *args[] = {"--help"};
    const char *want[] = {"usage: crossrun validate FILE...", NULL};
    expect_command(args, 1, 0, want, "--help");
  }
  vtest_write_text(bad_schema, "{\"allOf\": []}", 13);
  {
    const char *args[] = {"--schema", bad_schema, quick};
    const char *want[] = {"unsupported keyword", NULL};
    expect_command(args, 3, 2, want, "an unusable --schema");
  }
  remove(bad_schema);
  remove(broken);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  const char *root = getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
  int rc;

  snprintf(crossrun, sizeof(crossrun), "%s/crossrun", build);
  snprintf(schema_path, sizeof(schema_path), "%s/evidence/schema.json", root);
  schema = vtest_load(schema_path);
  if (!TAP_OK(schema != NULL, "%s parses", schema_path))
    return tap_done();
  {
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    if (!TAP_OK(validate_schema(schema, &e) == 0,
                "evidence/schema.json uses only the supported subset"))
      vtest_show_errors(&e, 20);
    validate_errors_release(&e);
  }
  if (!TAP_OK(tap_mkdtemp(dir, sizeof dir) != NULL, "a temporary folder"))
    return tap_done();

  test_written_evidence();
  if (run_doc != NULL && quick_doc != NULL) {
    test_broken_variants();
    test_valid_variants();
    test_many_errors();
  }
  test_merged();
  test_files();
  test_command();

  json_object_put(quick_doc);
  json_object_put(run_doc);
  json_object_put(record_doc);
  json_object_put(schema);
  if ((rc = scratch_remove_tree(dir, 0)) != 0)
    tap_diag("could not remove %s: %s", dir, uv_strerror(rc));
  return tap_done();
}
