/* evidence/validate and evidence/schema.json: evidence that crossrun writes
 * (quick, run, record, and a merged document built from the record)
 * validates clean; broken variants of it are each reported at the right
 * JSON pointer; files that are not JSON are reported by byte; the
 * validator's own semantics on small schemas; `crossrun validate`'s
 * output and exit status. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "evidence/json_read.h"
#include "evidence/validate.h"
#include "runner/commands.h"
#include "tests/tap.h"

static char crossrun[1024];
static char schema_path[4096];
static char dir[512];
static json_object *schema;

/* ---- helpers ---- */

static int has_error(const struct validate_errors *e, const char *needle)
{
  for (int i = 0; i < e->n; i++)
    if (strstr(e->messages[i], needle) != NULL)
      return 1;
  return 0;
}

static void show_errors(const struct validate_errors *e, int max)
{
  for (int i = 0; i < e->n && i < max; i++)
    tap_diag("  %s", e->messages[i]);
  if (e->total > max)
    tap_diag("  (%d in all)", e->total);
}

/* The value at an RFC 6901 pointer ("/lanes/c-c/samples/0"), or NULL. */
static json_object *at(json_object *doc, const char *pointer)
{
  char buf[1024], *save = NULL;
  json_object *o = doc;

  snprintf(buf, sizeof(buf), "%s", pointer);
  for (char *k = strtok_r(buf, "/", &save); k != NULL && o != NULL;
       k = strtok_r(NULL, "/", &save)) {
    if (json_object_is_type(o, json_type_array))
      o = json_object_array_get_idx(o, (size_t)atoi(k));
    else if (!json_object_object_get_ex(o, k, &o))
      return NULL;
  }
  return o;
}

/* Sets (v != NULL or set_null) or deletes the member at pointer. Takes v.
 * Returns 0, -1 when the parent does not exist. */
static int edit(json_object *doc, const char *pointer, json_object *v,
                int set_null)
{
  char parent[1024];
  const char *slash = strrchr(pointer, '/');
  json_object *p;

  snprintf(parent, sizeof(parent), "%.*s", (int)(slash - pointer), pointer);
  p = at(doc, parent);
  if (p == NULL) {
    json_object_put(v);
    return -1;
  }
  if (json_object_is_type(p, json_type_array)) {
    json_object_array_put_idx(p, (size_t)atoi(slash + 1), v);
  } else if (v == NULL && !set_null) {
    json_object_object_del(p, slash + 1);
  } else {
    json_object_object_add(p, slash + 1, v);
  }
  return 0;
}

/* Parses text with room for deep test documents (json_tokener_parse stops
 * at 32 levels). NULL for invalid text and for "null". */
static json_object *parse(const char *text)
{
  struct json_tokener *tok = json_tokener_new_ex(1024);
  json_object *o;
  if (tok == NULL)
    return NULL;
  o = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
  json_tokener_free(tok);
  return o;
}

static json_object *copy(json_object *o)
{
  json_object *c = NULL;
  if (json_object_deep_copy(o, &c, NULL) != 0)
    return NULL;
  return c;
}

static int write_text(const char *path, const char *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  int ok = f != NULL && fwrite(text, 1, len, f) == len;
  if (f != NULL && fclose(f) != 0)
    ok = 0;
  return ok ? 0 : -1;
}

static char *read_text(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;

  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
    fclose(f);
    return NULL;
  }
  rewind(f);
  buf = calloc(1, (size_t)n + 1);
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (len != NULL)
    *len = (size_t)n;
  return buf;
}

static json_object *load(const char *path)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *doc = NULL;
  char err[256];
  if (validate_read_json(path, &doc, &e, err, sizeof(err)) != 0)
    doc = NULL;
  validate_errors_release(&e);
  return doc;
}

/* Validates doc and checks that it is valid. */
static void expect_valid(json_object *doc, const char *what)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  int rc = validate_document(schema, doc, &e);
  if (!TAP_OK(rc == 0, "%s validates clean (rc %d, %d errors)", what, rc,
              e.total))
    show_errors(&e, 20);
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
    show_errors(&e, 20);
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
  if (write_text(path, text, len) != 0) {
    TAP_OK(0, "%s: written", name);
    return;
  }
  rc = validate_file(schema_path, path, &e, err, sizeof(err));
  if (!TAP_OK(rc == 1 && has_error(&e, want), "%s: reported as '%s'", name,
              want))
    show_errors(&e, 10);
  validate_errors_release(&e);
  remove(path);
}

static int run(const char *args)
{
  char cmd[4096];
  int status;
  snprintf(cmd, sizeof(cmd), "%s %s >%s/stdout 2>&1", crossrun, args, dir);
  status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  snprintf(args, sizeof(args), "quick --out %s", out);
  rc = run(args);
  /* 1: a lane failed or a toolchain is missing; the file is evidence all
   * the same. */
  TAP_OK(rc == 0 || rc == 1, "crossrun quick (every lane) ran: exit %d", rc);
  rc = validate_file(schema_path, out, &e, args, sizeof(args));
  if (!TAP_OK(rc == 0, "quick evidence validates clean (rc %d)", rc))
    show_errors(&e, 20);
  validate_errors_release(&e);
  quick_doc = load(out);

  snprintf(out, sizeof(out), "%s/run.json", dir);
  snprintf(args, sizeof(args),
           "run --lanes c-c,c-node,node-node --samples 2 --round-trips 20000 "
           "--warmup 1000 --out %s",
           out);
  rc = run(args);
  TAP_OK(rc == 0 || rc == 1, "crossrun run ran: exit %d", rc);
  rc = validate_file(schema_path, out, &e, args, sizeof(args));
  if (!TAP_OK(rc == 0, "run evidence validates clean (rc %d)", rc))
    show_errors(&e, 20);
  validate_errors_release(&e);
  run_doc = load(out);

  snprintf(recdir, sizeof(recdir), "%s/record", dir);
  snprintf(args, sizeof(args),
           "record --output-directory %s --rehearse --lanes c-c --samples 1 "
           "--round-trips 20000 --warmup 1000",
           recdir);
  rc = run(args);
  find_json(recdir, recfile, sizeof(recfile));
  TAP_OK(recfile[0] != '\0',
         "crossrun record --rehearse wrote a file: exit "
         "%d",
         rc);
  if (recfile[0] != '\0') {
    rc = validate_file(schema_path, recfile, &e, args, sizeof(args));
    if (!TAP_OK(rc == 0, "record evidence validates clean (rc %d)", rc))
      show_errors(&e, 20);
    validate_errors_release(&e);
    record_doc = load(recfile);
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

  linux_doc = copy(record);
  json_object_object_del(linux_doc, "shard");
  json_object_object_add(m, "schema_version", json_object_new_int(1));
  json_object_object_add(m, "tool", copy(at(record, "/tool")));
  json_object_object_add(m, "mode", json_object_new_string("merged"));
  json_object_object_add(m, "performance_claims", json_object_new_boolean(1));
  json_object_object_add(m, "official", json_object_new_boolean(0));
  commit = at(record, "/provenance/commit");
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
  json_object_object_add(input, "shard", NULL);
  inputs = json_object_new_object();
  json_object_object_add(inputs, "evidence-linux-x86_64.json", input);
  json_object_object_add(m, "inputs", inputs);
  tools = json_object_new_object();
  json_object_object_add(tools, "c", json_object_new_object());
  json_object_object_add(at(tools, "/c"), "linux",
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
  int op;           /* DELETE, SET, SET_NULL */
  json_object *(*value)(void);
  const char *report; /* pointer of the error */
  const char *problem;
};

enum { DELETE, SET, SET_NULL };

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
  return parse("{\"stage\": \"cleanup\", \"reason\": \"port_not_free\", "
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
    {"a missing required field", "/machine", DELETE, NULL, "/machine",
     "required property is missing"},
    {"a missing check", SAMPLE "/checks/port_free", DELETE, NULL,
     SAMPLE "/checks/port_free", "required property is missing"},
    {"a wrong type", "/workload/round_trips", SET, v_string_number,
     "/workload/round_trips", "expected integer, got string \"20000\""},
    {"a count written as 1.0", "/cleanliness/pairs_started", SET,
     v_one_point_zero, "/cleanliness/pairs_started",
     "expected integer, got number 1.0"},
    {"null where null is not allowed", "/tool/version", SET_NULL, NULL,
     "/tool/version", "expected string, got null"},
    {"an unknown extra field", SAMPLE "/server/memory/extra", SET, v_one,
     SAMPLE "/server/memory/extra", "not allowed"},
    {"an unknown top-level field", "/extra", SET, v_one, "/extra",
     "not allowed"},
    {"a bad sample status", SAMPLE "/status", SET, v_bogus, SAMPLE "/status",
     "\"bogus\" is not one of"},
    {"a bad lane status", "/lanes/c-c/summary/status", SET, v_bogus,
     "/lanes/c-c/summary/status", "is not one of"},
    {"a bad check outcome", SAMPLE "/checks/temp_clean/outcome", SET, v_bogus,
     SAMPLE "/checks/temp_clean/outcome", "is not one of"},
    {"a bad memory source", SAMPLE "/client/memory/peak_rss_source", SET,
     v_bogus, SAMPLE "/client/memory/peak_rss_source", "is not one of"},
    {"a bad mode", "/mode", SET, v_bogus, "/mode", "is not one of"},
    {"a negative count", "/cleanliness/processes_left", SET, v_minus_one,
     "/cleanliness/processes_left", "-1 is less than the minimum 0"},
    {"a negative figure", SAMPLE "/server/cpu/user_ns", SET, v_minus_one,
     SAMPLE "/server/cpu/user_ns", "less than the minimum 0"},
    {"a port out of range", SAMPLE "/port", SET, v_port, SAMPLE "/port",
     "greater than the maximum 65535"},
    {"a sha256 that is not 64 hex", "/runtimes/c/package/sha256", SET,
     v_short_sha, "/runtimes/c/package/sha256", "does not match"},
    {"a sha256 in capitals", "/runtimes/c/package/sha256", SET, v_upper_sha,
     "/runtimes/c/package/sha256", "does not match"},
    {"a date that is not ISO 8601", "/started_at", SET, v_date, "/started_at",
     "does not match"},
    {"1e400", SAMPLE "/ns_per_round_trip", SET, v_inf,
     SAMPLE "/ns_per_round_trip", "number out of range: 1e400"},
    {"NaN", "/lanes/c-c/summary/ns_per_round_trip_median", SET, v_nan,
     "/lanes/c-c/summary/ns_per_round_trip_median", "not a finite double"},
    {"a string that is not UTF-8", SAMPLE "/reproduce/server", SET, v_bad_utf8,
     SAMPLE "/reproduce/server", "not valid UTF-8"},
    {"an array nested 10,000 levels deep", SAMPLE "/client/argv/0", SET, v_deep,
     DEEP_POINTER, "nested deeper than 64 levels"},
    {"the same, its type", SAMPLE "/client/argv/0", SET, v_deep,
     SAMPLE "/client/argv/0", "expected string, got an array of 1 item"},
    {"a passed sample with a failure", SAMPLE "/failure", SET, v_failure,
     SAMPLE "/failure", "expected null, got an object"},
    {"claims without comparisons", "/comparisons", SET_NULL, NULL,
     "/comparisons", "expected object, got null"},
    {"a quick file that claims performance", "/performance_claims", SET, v_true,
     "/performance_claims", "expected false, got true"},
};

static void test_broken_variants(void)
{
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
    const struct variant *v = &variants[i];
    /* The run file's lane c-c has passed samples and the C runtime a
     * measured package; the quick file makes no performance claims. */
    int quick = strstr(v->what, "quick file") != NULL;
    json_object *doc = copy(quick ? quick_doc : run_doc);
    if (doc == NULL)
      continue;
    if (edit(doc, v->edit,
             v->op == DELETE || v->op == SET_NULL ? NULL : v->value(),
             v->op == SET_NULL) != 0) {
      TAP_OK(0, "%s: %s exists in the evidence", v->what, v->edit);
    } else {
      expect_error(doc, v->report, v->problem, v->what);
    }
    json_object_put(doc);
  }
}

static void test_valid_variants(void)
{
  json_object *doc = copy(run_doc), *failure;

  if (doc == NULL)
    return;
  edit(doc, "/machine/memory_bytes", NULL, 1);
  edit(doc, SAMPLE "/server/cpu/user_ns", NULL, 1);
  edit(doc, SAMPLE "/client/memory/peak_rss_bytes", NULL, 1);
  expect_valid(doc, "null figures ('not measured')");
  json_object_put(doc);

  doc = copy(run_doc);
  failure = v_failure();
  edit(doc, SAMPLE "/status", json_object_new_string("failed"), 0);
  edit(doc, SAMPLE "/failure", failure, 0);
  edit(doc, SAMPLE "/elapsed_ns", NULL, 1);
  edit(doc, SAMPLE "/ns_per_round_trip", NULL, 1);
  expect_valid(doc, "a failed sample with its failure");
  json_object_put(doc);
}

static void test_many_errors(void)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *doc = copy(run_doc);
  char key[32];
  int rc;

  if (doc == NULL)
    return;
  edit(doc, "/machine", NULL, 0);
  edit(doc, "/workload/round_trips", v_string_number(), 0);
  edit(doc, SAMPLE "/status", v_bogus(), 0);
  edit(doc, "/cleanliness/sockets_left", v_minus_one(), 0);
  rc = validate_document(schema, doc, &e);
  if (!TAP_OK(rc == 1 && has_error(&e, "at /machine: ") &&
                  has_error(&e, "at /workload/round_trips: ") &&
                  has_error(&e, "at " SAMPLE "/status: ") &&
                  has_error(&e, "at /cleanliness/sockets_left: "),
              "four problems in one file: all four reported"))
    show_errors(&e, 20);
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

  doc = copy(m);
  edit(doc, "/inputs/evidence-linux-x86_64.json/sha256", v_short_sha(), 0);
  expect_error(doc, "/inputs/evidence-linux-x86_64.json/sha256",
               "does not match the pattern ^[0-9a-f]{64}$",
               "merged: an input's sha256 that is not 64 hex");
  json_object_put(doc);

  doc = copy(m);
  edit(doc, "/platforms/linux/mode", json_object_new_string("quick"), 0);
  expect_error(doc, "/platforms/linux/mode", "expected \"record\"",
               "merged: a platform that is not a record");
  json_object_put(doc);

  doc = copy(m);
  edit(doc, "/platforms/linux/shard", NULL, 1);
  expect_error(doc, "/platforms/linux/shard", "not allowed",
               "merged: a platform that kept its shard");
  json_object_put(doc);

  doc = copy(m);
  edit(doc, "/platforms/freebsd", copy(at(m, "/platforms/linux")), 0);
  expect_error(doc, "/platforms/freebsd", "not allowed",
               "merged: an unknown OS");
  json_object_put(doc);

  doc = copy(m);
  edit(doc, "/commit", json_object_new_string("HEAD"), 0);
  expect_error(doc, "/commit", "does not match",
               "merged: a commit that is not a hash");
  json_object_put(doc);

  doc = copy(m);
  edit(doc, "/platforms/linux" SAMPLE "/wall_ns", v_minus_one(), 0);
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
  text = read_text(path, &len);
  if (TAP_OK(text != NULL && len > 1000, "the quick file reads back")) {
    char want[80];
    /* Cut inside the document: the parser runs out at the cut. */
    snprintf(want, sizeof(want), "not JSON: unexpected end of data at byte %zu",
             len / 2);
    expect_file_error("truncated.json", text, len / 2, want);
  }
  free(text);
  expect_file_error("nul.json", "{\"a\": 1}\0{}", 11,
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
    if (!TAP_OK(rc == 1 && has_error(&e, "too large: more than 268435456 "
                                         "bytes"),
                "a file past 256 MiB is refused as too large (rc %d)", rc))
      show_errors(&e, 5);
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

/* ---- the validator's semantics ---- */

struct semantic {
  const char *schema;
  const char *doc;
  int rc;
  const char *message; /* a message containing this, or NULL */
};

static const struct semantic semantics[] = {
    /* type arrays; integer is json-c's integer type */
    {"{\"type\": [\"integer\", \"null\"]}", "1", 0, NULL},
    {"{\"type\": [\"integer\", \"null\"]}", "null", 0, NULL},
    {"{\"type\": [\"integer\", \"null\"]}", "1.5", 1,
     "expected integer or null, got number 1.5"},
    {"{\"type\": [\"integer\", \"null\"]}", "\"1\"", 1, "got string"},
    {"{\"type\": \"integer\"}", "1.0", 1, "got number 1.0"},
    {"{\"type\": \"number\"}", "1", 0, NULL},
    {"{\"type\": \"number\"}", "1.5", 0, NULL},
    {"{\"type\": \"boolean\"}", "0", 1, "expected boolean"},
    {"true", "[1, {}]", 0, NULL},
    {"false", "1", 1, "at (root): not allowed here"},
    /* oneOf: exactly one */
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "-1", 0, NULL},
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "2.5", 0,
     NULL},
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "5", 1,
     "matches 2 of the 2 alternatives of oneOf (1 and 2)"},
    {"{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "-1.5", 1,
     "matches none of the 2 alternatives"},
    {"{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"object\", "
     "\"required\": [\"a\"]}]}",
     "{}", 1, "at /a: required property is missing"},
    /* $ref */
    {"{\"$defs\": {\"pos\": {\"type\": \"integer\", \"minimum\": 1}}, "
     "\"properties\": {\"a\": {\"$ref\": \"#/$defs/pos\"}}}",
     "{\"a\": 0}", 1, "at /a: 0 is less than the minimum 1"},
    {"{\"$defs\": {\"pos\": {\"type\": \"integer\", \"minimum\": 1}}, "
     "\"properties\": {\"a\": {\"$ref\": \"#/$defs/pos\"}}}",
     "{\"a\": 3}", 0, NULL},
    {"{\"$defs\": {\"a~b/c\": {\"const\": 1}}, \"$ref\": "
     "\"#/$defs/a~0b~1c\"}",
     "2", 1, "expected 1, got 2"},
    {"{\"$defs\": {\"x\": {\"maximum\": 3}}, \"$ref\": \"#/$defs/x\", "
     "\"minimum\": 2}",
     "4", 1, "greater than the maximum 3"},
    /* additionalProperties as a schema; required; pointers escaped */
    {"{\"additionalProperties\": {\"type\": \"string\"}}",
     "{\"x\": \"a\", \"y\": 1}", 1, "at /y: expected string"},
    {"{\"properties\": {\"x\": {}}, \"additionalProperties\": false}",
     "{\"x\": 1, \"a/b~c\": 2}", 1, "at /a~1b~0c: property is not allowed"},
    {"{\"required\": [\"a\", \"b\"]}", "{\"a\": 1}", 1,
     "at /b: required property is missing"},
    {"{\"required\": [\"a\"]}", "[]", 0, NULL},
    /* items */
    {"{\"items\": {\"type\": \"integer\"}}", "[1, \"a\", 3, null]", 1,
     "at /1: expected integer"},
    {"{\"items\": {\"type\": \"integer\"}}", "[1, \"a\", 3, null]", 1,
     "at /3: expected integer, got null"},
    {"{\"items\": {\"type\": \"integer\"}}", "[]", 0, NULL},
    /* minimum and maximum are inclusive; 64-bit integers are exact */
    {"{\"minimum\": 0, \"maximum\": 10}", "0", 0, NULL},
    {"{\"minimum\": 0, \"maximum\": 10}", "10", 0, NULL},
    {"{\"minimum\": 0, \"maximum\": 10}", "10.5", 1, "greater than"},
    {"{\"minimum\": 0, \"maximum\": 10}", "-0.5", 1, "less than"},
    {"{\"minimum\": 0.5}", "0", 1, "0 is less than the minimum 0.5"},
    {"{\"maximum\": 9223372036854775807}", "9223372036854775808", 1,
     "9223372036854775808 is greater than the maximum"},
    {"{\"maximum\": 9223372036854775807}", "9223372036854775807", 0, NULL},
    {"{\"minimum\": -9223372036854775807}", "-9223372036854775807", 0, NULL},
    {"{\"minimum\": 0}", "\"-1\"", 0, NULL},
    /* enum and const compare JSON values */
    {"{\"enum\": [\"a\", 1, null]}", "1.0", 0, NULL},
    {"{\"enum\": [\"a\", 1, null]}", "\"b\"", 1,
     "\"b\" is not one of: \"a\", 1, null"},
    {"{\"const\": {\"a\": [1, 2]}}", "{\"a\": [1, 2]}", 0, NULL},
    {"{\"const\": {\"a\": [1, 2]}}", "{\"a\": [2, 1]}", 1, "expected"},
    /* lengths count characters */
    {"{\"minLength\": 2, \"maxLength\": 2}", "\"\xc3\xa9\xc3\xa9\"", 0, NULL},
    {"{\"maxLength\": 1}", "\"\xc3\xa9\xc3\xa9\"", 1,
     "2 characters, more than the maximum length 1"},
    {"{\"minLength\": 1}", "\"\"", 1, "fewer than the minimum length 1"},
    {"{\"maxLength\": 2.0}", "\"abc\"", 1, "more than the maximum length 2"},
    {"{\"enum\": []}", "1", 1, "1 is not allowed (the enum is empty)"},
    /* patterns */
    {"{\"pattern\": \"^[0-9a-f]{64}$\"}",
     "\"0fcf0fc3370aa2a8a00f1a63d92b40158df936313fc2a1f89151c4a5fc1683e5\"", 0,
     NULL},
    {"{\"pattern\": \"^[0-9a-f]{64}$\"}",
     "\"0fcf0fc3370aa2a8a00f1a63d92b40158df936313fc2a1f89151c4a5fc1683e5"
     "0\"",
     1, "does not match"},
    {"{\"pattern\": \"b+c\"}", "\"abbbcd\"", 0, NULL},
    {"{\"pattern\": \"^b+c\"}", "\"abbbcd\"", 1, "does not match"},
    {"{\"pattern\": \"^a.c$\"}", "\"a\\nc\"", 1, "does not match"},
    {"{\"pattern\": \"^a.c$\"}", "\"a-c\"", 0, NULL},
    {"{\"pattern\": \"^\\\\d{2,3}[^a-z]?x*$\"}", "\"123Q\"", 0, NULL},
    {"{\"pattern\": \"^\\\\d{2,3}[^a-z]?x*$\"}", "\"1234q\"", 1,
     "does not match"},
    {"{\"pattern\": \"^[\\\\w.-]+$\"}", "\"build/x\"", 1, "does not match"},
    {"{\"pattern\": \"^[\\\\w.-]+$\"}", "\"a_b.c-d\"", 0, NULL},
    {"{\"pattern\": \"^a*a*a*a*a*a*a*a*a*a*a*a*b$\"}",
     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", 1,
     "does not match"},
    {"{\"pattern\": \"\\\\$\\\\.\\\\{\"}", "\"x$.{\"", 0, NULL},
    {"{\"pattern\": \"^(a|b)+$\"}", "\"abba\"", 0, NULL},
    {"{\"pattern\": \"a{2000}\"}", "\"a\"", 1, "does not match"},
    {"{\"pattern\": \"^a$\"}", "\"a\\n\"", 1, "does not match"},
    {"{\"pattern\": \"^.$\"}", "\"\xc3\xa9\"", 0, NULL},
    {"{\"pattern\": \"^(a+)+$\"}", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"",
     1, "matching it stopped (match limit exceeded)"},
    /* schemas outside the subset, or broken, are refused */
    {"{\"allOf\": []}", "1", -1, "schema: at /allOf: unsupported keyword"},
    {"{\"pattern\": \"(a|b\"}", "\"a\"", -1,
     "schema: at /pattern: pattern '(a|b' does not compile: missing closing "
     "parenthesis at offset 4"},
    {"{\"pattern\": \"a{3,2}\"}", "\"a\"", -1, "numbers out of order"},
    {"{\"pattern\": \"[a-\"}", "\"a\"", -1, "missing terminating ]"},
    {"{\"pattern\": \"a**\"}", "\"a\"", -1, "does not follow a repeatable"},
    {"{\"pattern\": \"\\\\q\"}", "\"a\"", -1, "unrecognized character"},
    {"{\"type\": \"int\"}", "1", -1, "unknown type 'int'"},
    {"{\"type\": 5}", "1", -1, "'type' must be"},
    {"{\"required\": [\"a\", \"a\"]}", "{}", -1, "listed twice"},
    {"{\"minLength\": -1}", "\"\"", -1, "'minLength' must be"},
    {"{\"items\": [{}]}", "[]", -1, "prefixItems"},
    {"{\"oneOf\": []}", "1", -1, "non-empty array"},
    {"{\"$ref\": \"#/$defs/nope\"}", "1", -1, "does not name a schema"},
    {"{\"$ref\": \"http://example.com/s.json\"}", "1", -1,
     "does not name a schema"},
    {"{\"properties\": {\"a\": {\"$defs\": {}}}}", "1", -1, "only at the root"},
    {"[]", "1", -1, "a schema must be an object or a boolean"},
    {"{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/a\"}}, \"$ref\": "
     "\"#/$defs/a\"}",
     "1", -1, "$ref cycle"},
    {"{\"$defs\": {\"n\": {\"oneOf\": [{\"items\": {\"$ref\": "
     "\"#/$defs/n\"}}, {\"items\": {\"$ref\": \"#/$defs/n\"}}]}}, \"$ref\": "
     "\"#/$defs/n\"}",
     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     -1, "evaluation stopped after"},
};

static void test_semantics(void)
{
  char deep_schema[8192];
  size_t n = 0;

  for (size_t i = 0; i < sizeof(semantics) / sizeof(semantics[0]); i++) {
    const struct semantic *t = &semantics[i];
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    json_object *s = parse(t->schema);
    json_object *d = parse(t->doc);
    int rc;

    if ((s == NULL && strcmp(t->schema, "null") != 0) ||
        (d == NULL && strcmp(t->doc, "null") != 0)) {
      TAP_OK(0, "semantics %zu: test JSON parses", i);
      json_object_put(s);
      json_object_put(d);
      continue;
    }
    rc = validate_document(s, d, &e);
    if (!TAP_OK(rc == t->rc && (t->message == NULL ? e.total == 0
                                                   : has_error(&e, t->message)),
                "%s against %.60s: %s", t->doc, t->schema,
                t->message ? t->message : "valid"))
      show_errors(&e, 10);
    validate_errors_release(&e);
    json_object_put(s);
    json_object_put(d);
  }

  /* A schema nested 70 levels deep is refused, not followed. */
  for (int i = 0; i < 70; i++)
    n += (size_t)snprintf(deep_schema + n, sizeof(deep_schema) - n,
                          "{\"items\": ");
  n += (size_t)snprintf(deep_schema + n, sizeof(deep_schema) - n, "true");
  for (int i = 0; i < 70; i++)
    n += (size_t)snprintf(deep_schema + n, sizeof(deep_schema) - n, "}");
  {
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    json_object *s = parse(deep_schema);
    json_object *d = json_object_new_array();
    TAP_OK(s != NULL && validate_document(s, d, &e) == -1 &&
               has_error(&e, "nested deeper than 64 levels"),
           "a schema nested 70 levels deep is refused");
    validate_errors_release(&e);
    json_object_put(s);
    json_object_put(d);
  }
}

/* ---- crossrun validate ---- */

/* Runs cmd_validate with its output in memory; returns its status and
 * what it printed on out (then on err, after "[stderr] ") in out. */
static int command(const char *const *args, int nargs, char *out, size_t outlen)
{
  char *argv[16], *text = NULL, *etext = NULL;
  size_t len = 0, elen = 0;
  FILE *f = open_memstream(&text, &len), *ef = open_memstream(&etext, &elen);
  int rc = -1;

  argv[0] = "validate";
  for (int i = 0; i < nargs && i < 14; i++)
    argv[i + 1] = (char *)args[i];
  argv[nargs + 1] = NULL;
  if (f != NULL && ef != NULL)
    rc = cmd_validate(nargs + 1, argv, f, ef);
  if (f != NULL)
    fclose(f);
  if (ef != NULL)
    fclose(ef);
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
  doc = copy(run_doc);
  if (doc != NULL) {
    const char *args[] = {quick, broken, schema_flag};
    const char *want[] = {valid_line, invalid_line,
                          "at " SAMPLE "/status: \"bogus\" is not one of",
                          NULL};
    edit(doc, "/cleanliness/processes_left", v_minus_one(), 0);
    edit(doc, SAMPLE "/status", v_bogus(), 0);
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
  write_text(bad_schema, "{\"allOf\": []}", 13);
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
  char cmd[256];

  snprintf(crossrun, sizeof(crossrun), "%s/crossrun", build);
  snprintf(schema_path, sizeof(schema_path), "%s/evidence/schema.json", root);
  schema = load(schema_path);
  if (!TAP_OK(schema != NULL, "%s parses", schema_path))
    return tap_done();
  {
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    if (!TAP_OK(validate_schema(schema, &e) == 0,
                "evidence/schema.json uses only the supported subset"))
      show_errors(&e, 20);
    validate_errors_release(&e);
  }
  if (!TAP_OK(tap_mkdtemp(dir, sizeof dir) != NULL, "a temporary folder"))
    return tap_done();

  test_semantics();
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
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
