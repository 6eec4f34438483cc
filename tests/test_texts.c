/* The texts a person reads, end to end: crossrun quick on a matrix of the
 * C lane and the fixture's misbehaving peers, then its reports. Each
 * prefix is added once: a peer's rejection reads "client: wrong_sequence:
 * ..." (the lane's own line), never "client: client: ...", and a package
 * left out by --no-packages reads "not measured: skipped by
 * --no-packages", never "not measured: not measured: ...". No text of the
 * summary, the evidence or the Markdown, HTML and JUnit reports repeats a
 * prefix. And with runtime names of 31 characters (lanes of 63) the
 * summary's columns and every Markdown table, the summary's and the
 * report's, still line up: each column is as wide as its content. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_json.h"
#include "tests/lib_report.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char crossrun[SCRATCH_PATH_CAP], fixture[SCRATCH_PATH_CAP];
static char c_client[SCRATCH_PATH_CAP], c_server[SCRATCH_PATH_CAP];

/* Runs a shell command; its exit code, or -1. */
static int sh(const char *cmd)
{
  int status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *name)
{
  char path[SCRATCH_PATH_CAP];
  size_t len;
  char *text;

  scratch_path(path, name);
  text = (char *)scratch_read(path, &len);
  if (text != NULL)
    text[len] = '\0'; /* scratch_read leaves the byte after for this */
  return text;
}

/* The first "X: X:" in text (X a run of lowercase words), or NULL. */
static const char *doubled_prefix(const char *text, char *found, size_t len)
{
  for (const char *p = text; *p; p++) {
    const char *q = p, *colon;
    size_t n;
    if (p != text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
      continue;
    while (islower((unsigned char)*q) || *q == '_' ||
           (*q == ' ' && islower((unsigned char)q[1])))
      q++;
    if (q == p || q[0] != ':' || q[1] != ' ')
      continue;
    colon = q;
    n = (size_t)(colon - p);
    if (strncmp(colon + 2, p, n) == 0 && colon[2 + n] == ':') {
      snprintf(found, len, "%.*s", (int)(n * 2 + 3), p);
      return p;
    }
  }
  return NULL;
}

static void no_doubled_prefix(const char *what, const char *text)
{
  char found[256] = "";
  int twice = text == NULL || doubled_prefix(text, found, sizeof(found));
  TAP_OK(!twice, "%s: no prefix twice%s%s", what, found[0] ? ": " : "", found);
}

/* A new matrix file in the scratch folder, or NULL (a failed check). */
static FILE *matrix_file(const char *name)
{
  char path[SCRATCH_PATH_CAP];
  FILE *f;

  scratch_path(path, name);
  f = fopen(path, "w");
  if (f == NULL)
    TAP_OK(0, "cannot write %s", path);
  return f;
}

static void test_doubled_prefixes(void)
{
  char cmd[4 * SCRATCH_PATH_CAP];
  char *out, *md, *html, *junit;
  json_object *doc;
  FILE *f;
  int rc, server_decided = 0;

  if ((f = matrix_file("faults.yaml")) == NULL)
    return;
  /* c declares a package, which --no-packages leaves out. */
  fprintf(f,
          "runtimes:\n"
          "  c:\n"
          "    client: [%s]\n"
          "    server: [%s]\n"
          "    version: [echo, '1']\n"
          "    package: {command: ['true'], artifact: c.tgz}\n"
          "  wseq:\n"
          "    client: [%s, client, wrong-sequence]\n"
          "    server: [%s, server, wrong-sequence]\n",
          c_client, c_server, fixture, fixture);
  fclose(f);
  snprintf(cmd, sizeof(cmd),
           "cd %s && %s quick --matrix faults.yaml --lanes c-wseq,wseq-c "
           "--no-packages --no-progress --out faults.json >faults.out 2>&1",
           scratch_root, crossrun);
  rc = sh(cmd);
  TAP_EQ_INT(rc, 1, "two lanes of rejected sessions fail the run");
  snprintf(cmd, sizeof(cmd),
           "cd %s && %s report faults.json --markdown faults.md --html "
           "faults.html --junit faults.xml",
           scratch_root, crossrun);
  TAP_EQ_INT(sh(cmd), 0, "the reports are written");

  out = slurp("faults.out");
  md = slurp("faults.md");
  html = slurp("faults.html");
  junit = slurp("faults.xml");
  {
    char path[SCRATCH_PATH_CAP];
    scratch_path(path, "faults.json");
    doc = json_object_from_file(path);
  }
  if (TAP_NONNULL(doc, "the evidence is written")) {
    TAP_EQ_STR(json_str_at(doc, "lanes.c-wseq.samples.0.failure.message"),
               "client: wrong_sequence: RESPONSE with sequence 4 (expected 3)",
               "the C client's rejection, as it printed it");
    /* Which of the server's rejection and the fixture client's missing
     * result is seen first depends on timing (the earliest fault
     * decides); the server's message is checked when it decided. */
    server_decided =
        json_str_at(doc, "lanes.wseq-c.samples.0.failure.reason") &&
        strcmp(json_str_at(doc, "lanes.wseq-c.samples.0.failure.reason"),
               "protocol_violation") == 0;
    if (server_decided)
      TAP_EQ_STR(json_str_at(doc, "lanes.wseq-c.samples.0.failure.message"),
                 "server: wrong_sequence: REQUEST with sequence 4 (expected 3)",
                 "the C server's rejection, as it printed it");
    else
      TAP_OK(1, "the C server's rejection # SKIP the client's fault was "
                "seen first");
    TAP_EQ_STR(json_str_at(doc, "runtimes.c.package.error"),
               "skipped by --no-packages",
               "a package left out says why, without 'not measured'");
    no_doubled_prefix("the evidence", json_object_to_json_string(doc));
    json_object_put(doc);
  }
  TAP_HAS_STR(out,
              "c-wseq round 1: failed at client: protocol_violation: "
              "client: wrong_sequence: RESPONSE with sequence 4 (expected "
              "3)\n",
              "the summary's line of the client's rejection");
  if (server_decided)
    TAP_HAS_STR(out,
                "wseq-c round 1: failed at server: protocol_violation: "
                "server: wrong_sequence: REQUEST with sequence 4 (expected "
                "3)\n",
                "the summary's line of the server's rejection");
  else
    TAP_OK(1, "the summary's line of the server's rejection # SKIP the "
              "client's fault was seen first");
  TAP_HAS_STR(md,
              "- **c-wseq** round 1: failed at client: protocol_violation: "
              "client: wrong_sequence: RESPONSE with sequence 4 (expected "
              "3)\n",
              "the Markdown's line of the client's rejection");
  TAP_HAS_STR(md, "| not measured: skipped by --no-packages ",
              "the Markdown's package row: 'not measured' once");
  TAP_HAS_STR(html, "not measured: skipped by --no-packages</td>",
              "the HTML's package row: 'not measured' once");
  no_doubled_prefix("the summary", out);
  no_doubled_prefix("the Markdown", md);
  no_doubled_prefix("the HTML", html);
  no_doubled_prefix("the JUnit XML", junit);
  free(out);
  free(md);
  free(html);
  free(junit);
}

/* ---- columns that line up whatever the names ---- */

#define LONG_A "a_runtime_with_a_long_name_0001" /* 31: the most allowed */
#define LONG_B "b_runtime_with_a_long_name_0002"

/* 1 when every line of the plain table that starts at the line beginning
 * with heading has its columns where the heading's are: each column of
 * the heading starts after two spaces, and so does each row's cell. */
static int plain_aligned(const char *text, const char *heading,
                         const char **bad)
{
  const char *h = strstr(text, heading);
  int starts[16], n = 0;
  const char *line;

  if (h == NULL) {
    *bad = "no heading";
    return 0;
  }
  for (const char *p = h; *p && *p != '\n' && n < 16; p++)
    if (p == h || (p[-1] == ' ' && p[-2] == ' ' && *p != ' '))
      starts[n++] = (int)(p - h);
  line = strchr(h, '\n');
  for (int rows = 0; line && line[1] && line[1] != '\n' && rows < 8; rows++) {
    line++;
    if (strncmp(line, "peak RSS:", 9) == 0)
      break; /* the table's footnote */
    for (int c = 1; c < n; c++) {
      const char *at = line + starts[c];
      if ((size_t)starts[c] >= strcspn(line, "\n") || at[-1] != ' ' ||
          at[-2] != ' ' || *at == ' ') {
        *bad = line;
        return 0;
      }
    }
    line = strchr(line, '\n');
  }
  return 1;
}

static void test_long_names(void)
{
  char cmd[4 * SCRATCH_PATH_CAP];
  const char *bad = "";
  char *out, *md;
  FILE *f;
  int ok;

  if ((f = matrix_file("long.yaml")) == NULL)
    return;
  fprintf(f,
          "runtimes:\n"
          "  " LONG_A ":\n"
          "    client: [%s, client, ok]\n"
          "    server: [%s, server, ok]\n"
          "    version: [echo, '1']\n"
          "  " LONG_B ":\n"
          "    client: [%s, client, ok]\n"
          "    server: [%s, server, ok]\n"
          "    version: [echo, '1']\n",
          fixture, fixture, fixture, fixture);
  fclose(f);
  snprintf(cmd, sizeof(cmd),
           "cd %s && %s quick --matrix long.yaml --lanes '" LONG_A "-*," LONG_B
           "-*' --transport tcp --no-packages --no-progress --out long.json "
           ">long.out 2>&1 && %s report long.json --markdown long.md",
           scratch_root, crossrun, crossrun);
  TAP_EQ_INT(sh(cmd), 0,
             "four lanes of runtimes with 31-character names pass, and "
             "their report is written");
  out = slurp("long.out");
  md = slurp("long.md");
  TAP_HAS_STR(out, LONG_A "-" LONG_B "  passed  ",
              "the summary: a 63-character lane name, then its status");
  ok = out && plain_aligned(out, "lane  ", &bad);
  TAP_OK(ok,
         "the summary's lane table: every column where its heading is "
         "(%.*s)",
         (int)strcspn(bad, "\n"), bad);
  ok = out && rtest_md_aligned(out, &bad);
  TAP_OK(ok, "the summary's Markdown tables line up (%.*s)",
         (int)strcspn(bad, "\n"), bad);
  ok = md && rtest_md_aligned(md, &bad);
  TAP_OK(ok, "the report's Markdown tables line up (%.*s)",
         (int)strcspn(bad, "\n"), bad);
  TAP_HAS_STR(md, "| " LONG_A "-" LONG_B " |",
              "the report: the longest lane name sets its column's width");
  free(out);
  free(md);
}

static void test_doubled_prefix_finder(void)
{
  char found[64];
  TAP_NONNULL(doubled_prefix("x: client: client: y", found, sizeof(found)),
              "the finder finds 'client: client:'");
  TAP_EQ_STR(found, "client: client:", "and shows it");
  TAP_NONNULL(
      doubled_prefix("not measured: not measured: x", found, sizeof(found)),
      "the finder finds a prefix of two words twice");
  TAP_NULL(doubled_prefix("failed at client: protocol_violation: client: x",
                          found, sizeof(found)),
           "a stage and a lane's own prefix apart are no doubled prefix");
}

int main(void)
{
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
  char build[SCRATCH_PATH_CAP];

  /* The commands run from the scratch folder: the programs by absolute
   * paths. */
  if (b[0] == '/')
    snprintf(build, sizeof(build), "%s", b);
  else if (getcwd(build, sizeof(build)) != NULL)
    snprintf(build + strlen(build), sizeof(build) - strlen(build), "/%s", b);
  snprintf(crossrun, sizeof(crossrun), "%s/crossrun", build);
  snprintf(fixture, sizeof(fixture), "%s/tests/fixture", build);
  snprintf(c_client, sizeof(c_client), "%s/lanes/c/client", build);
  snprintf(c_server, sizeof(c_server), "%s/lanes/c/server", build);
  if (scratch_create() != 0)
    return tap_done();
  test_doubled_prefix_finder();
  test_doubled_prefixes();
  test_long_names();
  scratch_remove();
  return tap_done();
}
