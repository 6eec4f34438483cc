/* crossrun report's command line on real evidence (tests/lib_report.h):
 * its formats, outputs and exit statuses; and files that are not
 * evidence, which must be refused in one line and never crash. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "evidence/base/json_read.h"
#include "evidence/report/report.h"
#include "runner/commands.h"
#include "tests/lib_env.h"
#include "tests/lib_json.h"
#include "tests/lib_memfile.h"
#include "tests/lib_report.h"
#include "tests/tap.h"

#ifdef _WIN32
#define NULL_DEVICE "NUL"
#else
#define NULL_DEVICE "/dev/null"
#endif

/* ---- the command ---- */

/* cmd_report with its output and errors in memory; *out and *err (when
 * asked for) are the caller's to free. */
static int report_cmd(const char *const *args, char **out, char **err)
{
  const char *argv[16];
  char *text[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  FILE *f[2];
  int argc = 0, rc = -1;

  argv[argc++] = "report";
  for (int i = 0; args[i] && argc < 15; i++)
    argv[argc++] = args[i];
  argv[argc] = NULL;
  f[0] = memfile_open(&text[0], &len[0]);
  f[1] = memfile_open(&text[1], &len[1]);
  if (f[0] != NULL && f[1] != NULL)
    rc = cmd_report(argc, (char **)argv, f[0], f[1]);
  for (int k = 0; k < 2; k++)
    if (f[k] != NULL)
      memfile_close(f[k]);
  if (out)
    *out = text[0];
  else
    free(text[0]);
  if (err)
    *err = text[1];
  else
    free(text[1]);
  return rc;
}

/* The length of s without its newline, for printing. */
static int line_len(const char *s)
{
  return s ? (int)strcspn(s, "\n") : 0;
}

static int one_line(const char *s)
{
  size_t n = s ? strlen(s) : 0;
  return n > 0 && s[n - 1] == '\n' && strchr(s, '\n') == s + n - 1;
}

static void test_command(const char *full, const char *merged)
{
  const char *saved = getenv("GITHUB_STEP_SUMMARY");
  char *saved_copy = saved ? strdup(saved) : NULL;
  char *out = NULL, *err = NULL, *summary;
  char md[1100], html[1100], xml[1100], bad[1100];
  int rc;

  snprintf(md, sizeof(md), "%s", rtest_in_dir("cmd.md"));
  snprintf(html, sizeof(html), "%s", rtest_in_dir("cmd.html"));
  snprintf(xml, sizeof(xml), "%s", rtest_in_dir("cmd.xml"));
  env_set("GITHUB_STEP_SUMMARY", NULL);

  {
    const char *a[] = {full, "--markdown", md, "--html=", NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 2 && one_line(err) && strstr(err, "--html needs a file"),
           "an empty output name is bad usage: %.*s", line_len(err), err);
    free(err);
  }
  struct {
    const char *args[6];
    const char *says;
  } usage[] = {
      {{NULL}, "no evidence file"},
      {{full, NULL}, "no output"},
      {{full, "--pdf", "x", NULL}, "unknown option '--pdf'"},
      {{full, "--html", NULL}, "--html needs a file"},
      {{full, full, "--html", html, NULL}, "unexpected argument"},
      {{full, "--html", html, "--html", html, NULL}, "given twice"},
      {{full, "--markdown", "-", "--junit", "-", NULL}, "standard output"},
  };
  for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
    rc = report_cmd(usage[i].args, NULL, &err);
    TAP_OK(rc == 2 && one_line(err) && strstr(err, usage[i].says),
           "usage error %zu exits 2: %.*s", i, line_len(err), err ? err : "");
    free(err);
  }
  {
    const char *a[] = {"--help", NULL};
    rc = report_cmd(a, &out, NULL);
    TAP_OK(rc == 0 && out && strstr(out, "--markdown OUT") &&
               strstr(out, "GITHUB_STEP_SUMMARY"),
           "--help prints the usage and exits 0");
    free(out);
  }
  {
    const char *a[] = {rtest_in_dir("missing.json"), "--html", html, NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 1 && one_line(err) &&
               strncmp(err, "crossrun report: ", 17) == 0 &&
               strstr(err, "missing.json: cannot read"),
           "a missing file exits 1 with one line: %.*s", line_len(err),
           err ? err : "");
    free(err);
  }
  snprintf(bad, sizeof(bad), "%s", rtest_in_dir("bad.json"));
  {
    FILE *f = fopen(bad, "w");
    if (f) {
      fputs("{\"schema_version\": 1, \"mode\": \"full\", \"machine\": "
            "{\"os\": \"linux\"}, \"lanes\": {\"c-c\": {\"samples\": "
            "\"many\"}}}",
            f);
      fclose(f);
    }
    const char *a[] = {bad, "--markdown", md, NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 1 && one_line(err) &&
               strstr(err, "'lanes.c-c.samples' is a string, expected an "
                           "array"),
           "a wrong type exits 1, named in one line: %.*s", line_len(err),
           err ? err : "");
    free(err);
  }
  snprintf(bad, sizeof(bad), "%s", rtest_in_dir("summary.md"));
  remove(bad);
  {
    /* Binary, as crossrun appends: no "\r\n" on Windows. */
    FILE *f = fopen(bad, "wb");
    if (f) {
      fputs("earlier step\n", f);
      fclose(f);
    }
  }
  env_set("GITHUB_STEP_SUMMARY", bad);
  {
    const char *a[] = {merged, "--markdown", md,  "--html",
                       html,   "--junit",    xml, NULL};
    rc = report_cmd(a, &out, &err);
    char *mdt = rtest_slurp(md, NULL), *ht = rtest_slurp(html, NULL),
         *xt = rtest_slurp(xml, NULL);
    summary = rtest_slurp(bad, NULL);
    TAP_OK(rc == 0 && mdt && ht && xt && strstr(ht, "</html>") &&
               strstr(xt, "</testsuites>") && out && out[0] == '\0',
           "all three outputs written, nothing on stdout (%d: %.*s)", rc,
           line_len(err), err ? err : "");
    TAP_OK(summary && mdt && strncmp(summary, "earlier step\n", 13) == 0 &&
               strcmp(summary + 13, mdt) == 0,
           "the Markdown is appended to GITHUB_STEP_SUMMARY");
    free(mdt);
    free(ht);
    free(xt);
    free(summary);
    free(out);
    free(err);
  }
  env_set("GITHUB_STEP_SUMMARY", NULL);
  {
    const char *a[] = {full, "--markdown", "-", NULL};
    rc = report_cmd(a, &out, &err);
    TAP_OK(rc == 0 && out && strncmp(out, "# crossrun report", 17) == 0 &&
               err && err[0] == '\0',
           "--markdown - writes to standard output");
    free(out);
    free(err);
  }
  {
    const char *a[] = {full, "--html", rtest_in_dir("no/such/dir/r.html"),
                       NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 1 && one_line(err) && strstr(err, "cannot write"),
           "an output that cannot be written exits 1: %.*s", line_len(err),
           err ? err : "");
    free(err);
  }
  if (saved_copy)
    env_set("GITHUB_STEP_SUMMARY", saved_copy);
  free(saved_copy);
}

/* ---- files that are not evidence ---- */

static int refused(const char *text, const char *says, char *err, size_t errlen)
{
  struct report r;
  int rc = report_parse(&r, "t.json", text, strlen(text), err, errlen);
  if (rc == 0)
    report_release(&r);
  return rc == -1 && err[0] && !strchr(err, '\n') && strstr(err, says);
}

/* Sets dotted path in a copy of doc to value (owned) and returns the
 * text. */
static char *with_value(json_object *doc, const char *dotted,
                        json_object *value)
{
  json_object *copy = NULL, *parent;
  char buf[512], *dot;
  char *text;

  json_object_deep_copy(doc, &copy, NULL);
  snprintf(buf, sizeof(buf), "%s", dotted);
  dot = strrchr(buf, '.');
  if (dot) {
    *dot = '\0';
    parent = json_at(copy, buf);
  } else {
    parent = copy;
  }
  if (parent && json_object_is_type(parent, json_type_array))
    json_object_array_put_idx(parent, (size_t)atoi(dot + 1), value);
  else if (parent)
    json_object_object_add(parent, dot ? dot + 1 : buf, value);
  else
    json_object_put(value);
  text = strdup(json_object_to_json_string(copy));
  json_object_put(copy);
  return text;
}

static void test_invalid(json_object *full_doc, const char *full_path)
{
  static const struct {
    const char *text;
    const char *says;
  } texts[] = {
      {"", "not JSON: the file is empty"},
      {"not json", "not JSON"},
      {"{\"schema_version\": 1,", "not JSON: unexpected end of data"},
      {"{} {}", "not JSON"},
      {"{}  \n\t x", "not JSON"},
      {"[1, 2]", "the document is an array, expected an object"},
      {"{}", "'schema_version' is missing"},
      {"{\"schema_version\": \"1\"}", "'schema_version' is a string"},
      {"{\"schema_version\": 2, \"mode\": \"full\"}",
       "schema_version 2 is not supported"},
      {"{\"schema_version\": 1}", "'mode' is missing"},
      {"{\"schema_version\": 1, \"mode\": \"full\"}", "'machine' is missing"},
      {"{\"schema_version\": 1, \"mode\": \"full\", \"machine\": {\"os\": "
       "\"linux\"}}",
       "'lanes' is missing"},
      {"{\"schema_version\": 1, \"mode\": \"merged\", \"platforms\": {}}",
       "'platforms' has 0 entries"},
      {"{\"schema_version\": 1, \"mode\": \"merged\", \"platforms\": "
       "{\"linux\": 5}}",
       "'platforms.linux' is a number, expected an object"},
      {"{\"schema_version\": 1, \"mode\": \"full\", \"machine\": {\"os\": "
       "\"linux\"}, \"lanes\": {\"a\nb\": 1}}",
       "'lanes.a?b' is a number"},
      {"{\"schema_version\": 1, \"mode\": \"full\", \"machine\": {\"os\": "
       "\"linux\"}, \"lanes\": {\"a\\nb\": 1}}",
       "'lanes.a?b' is a number"},
  };
  static const struct {
    const char *path;
    const char *json;
    const char *says;
  } types[] = {
      {"lanes.c-c.samples", "\"x\"", "'lanes.c-c.samples' is a string"},
      {"lanes.c-c.samples.0", "[]", "'lanes.c-c.samples[0]' is an array"},
      {"lanes.c-c.samples.0.ns_per_round_trip", "\"fast\"",
       "'lanes.c-c.samples[0].ns_per_round_trip' is a string"},
      {"lanes.c-c.samples.0.ns_per_round_trip", "-5", "out of range"},
      {"lanes.c-c.samples.0.ns_per_round_trip", "1e300", "out of range"},
      {"lanes.c-c.samples.0.round", "1.5", "expected a whole number"},
      {"lanes.c-c.samples.0.client.memory.peak_rss_bytes", "true",
       "is a boolean, expected a whole number"},
      {"lanes.c-c.samples.0.failure", "\"bad\"", "expected an object"},
      {"lanes.c-c.summary.stable", "1", "expected a boolean"},
      {"lanes.c-c.summary", "[]", "'lanes.c-c.summary' is an array"},
      {"lanes.c-c", "null", "'lanes.c-c' is null"},
      {"machine", "[]", "'machine' is an array"},
      {"machine.os", "7", "'machine.os' is a number"},
      {"runtimes.c.package.packed_bytes", "-1", "out of range"},
      {"runtimes.c", "\"c\"", "'runtimes.c' is a string"},
      {"comparisons", "3", "'comparisons' is a number"},
      {"cleanliness.pairs_started", "\"9\"", "is a string"},
      {"performance_claims", "\"yes\"", "'performance_claims' is a string"},
      {"mode", "{}", "'mode' is an object"},
  };
  char err[512];

  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
    err[0] = '\0';
    TAP_OK(refused(texts[i].text, texts[i].says, err, sizeof(err)),
           "refused in one line: %s", err);
  }
  for (size_t i = 0; full_doc && i < sizeof(types) / sizeof(types[0]); i++) {
    char *text =
        with_value(full_doc, types[i].path, json_tokener_parse(types[i].json));
    err[0] = '\0';
    TAP_OK(text && refused(text, types[i].says, err, sizeof(err)),
           "%s = %s is refused: %s", types[i].path, types[i].json, err);
    free(text);
  }
  {
    char deep[4100];
    memset(deep, '[', 2000);
    memset(deep + 2000, ']', 2000);
    deep[4000] = '\0';
    err[0] = '\0';
    TAP_OK(refused(deep, "not JSON", err, sizeof(err)),
           "nesting 2000 deep is refused: %s", err);
  }
  {
    /* A sparse file past the limit: refused without reading it all in. */
    struct report r;
    int fd =
        open(rtest_in_dir("huge.json"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int ok = fd >= 0 && ftruncate(fd, JSON_READ_MAX_BYTES + 10) == 0;
    if (fd >= 0)
      close(fd);
    err[0] = '\0';
    TAP_OK(ok &&
               report_load(&r, rtest_in_dir("huge.json"), err, sizeof(err)) ==
                   -1 &&
               strstr(err, "too large"),
           "a file over the limit is refused: %s", err);
    remove(rtest_in_dir("huge.json"));
    TAP_OK(report_load(&r, rtest_dir, err, sizeof(err)) == -1 &&
               strstr(err, "cannot read"),
           "a folder is refused: %s", err);
  }

  /* Random damage: truncation, changed bytes, swapped characters. Every
   * result is a model or one line, never a crash; a model renders. */
  size_t len;
  char *orig = rtest_slurp(full_path, &len);
  int parsed = 0, refusedn = 0, bad_lines = 0, render_fail = 0;
  unsigned seed = 12345;
  if (orig == NULL) {
    TAP_OK(0, "random damage: the full evidence is readable");
    return;
  }
  char *buf = malloc(len + 1);
  FILE *sink = fopen(NULL_DEVICE, "w");
  for (int iter = 0; iter < 300 && buf && sink; iter++) {
    size_t n = len;
    memcpy(buf, orig, len);
    seed = seed * 1103515245u + 12345u;
    int kind = (int)((seed >> 16) % 3);
    for (int k = 0; k < 1 + iter % 4; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % len;
      if (kind == 0) {
        n = at;
        break;
      }
      if (kind == 1)
        buf[at] = "0-9.e{}[]\":,tfn \\\x01\xff"[(seed >> 3) % 20];
      else if (at + 1 < len) {
        char t = buf[at];
        buf[at] = buf[at + 1];
        buf[at + 1] = t;
      }
    }
    struct report r;
    err[0] = '\0';
    if (report_parse(&r, "damaged.json", buf, n, err, sizeof(err)) == 0) {
      parsed++;
      render_fail += report_markdown(&r, sink) != 0;
      render_fail += report_html(&r, sink) != 0;
      render_fail += report_junit(&r, sink) != 0;
      report_release(&r);
    } else {
      refusedn++;
      bad_lines += err[0] == '\0' || strchr(err, '\n') != NULL;
    }
  }
  if (sink)
    fclose(sink);
  TAP_OK(parsed + refusedn == 300 && bad_lines == 0 && render_fail == 0,
         "300 damaged files: %d read and rendered, %d refused in one line",
         parsed, refusedn);
  free(buf);
  free(orig);
}

int main(void)
{
  struct rtest_evidence e;

  if (rtest_setup(&e, 0) != 0)
    return tap_done();
  test_command(e.full, e.merged);
  test_invalid(e.full_doc, e.full);
  rtest_teardown(&e);
  return tap_done();
}
