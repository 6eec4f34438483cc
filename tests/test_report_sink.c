/* The report's sections against a sink (evidence/report/report_sink.h): a sink
 * that records each call shows what every format is given, in which
 * order, and that a sink without charts is never asked for one; the
 * Markdown sink's output of a small document is checked line by line; the
 * exact or sampled label of each peak RSS in the Markdown and the HTML. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/report/report.h"
#include "evidence/report/report_sink.h"
#include "tests/lib_report.h"
#include "tests/tap.h"

/* A document of one platform: a lane with a failed sample, a package,
 * a comparison, an unstable lane, a clean run. */
static const char *const doc_full =
    "{\"schema_version\":1,\"mode\":\"full\",\"performance_claims\":true,"
    "\"machine\":{\"os\":\"linux\",\"arch\":\"x86_64\"},"
    "\"runtimes\":{\"c\":{\"status\":\"available\",\"package\":{"
    "\"file_name\":\"c.tgz\",\"packed_bytes\":10,\"unpacked_bytes\":20,"
    "\"file_count\":1,\"sha256\":\"ab\",\"reproducible\":true}}},"
    "\"lanes\":{\"c-c\":{\"client_runtime\":\"c\",\"server_runtime\":\"c\","
    "\"samples\":[{\"round\":1,\"status\":\"passed\","
    "\"ns_per_round_trip\":100,\"client\":{\"memory\":{"
    "\"peak_rss_bytes\":1048576}}},{\"round\":2,\"status\":\"failed\","
    "\"failure\":{\"stage\":\"client\",\"reason\":\"timeout\","
    "\"message\":\"late\"},\"reproduce\":{\"crossrun\":\"crossrun run\"},"
    "\"client\":{\"stderr\":{\"text\":\"oops\"}}}],"
    "\"summary\":{\"status\":\"failed\",\"stable\":false,"
    "\"unstable_reasons\":\"spread\"}}},"
    "\"comparisons\":{\"x\":{\"lane\":\"c-c\",\"reference\":\"c-c\","
    "\"ratio_of_medians\":1.0,\"verdict\":\"tie\"}},"
    "\"cleanliness\":{\"pairs_started\":2,\"natural_exits\":2,"
    "\"processes_left\":0,\"sockets_left\":0,\"forced_terminations\":0,"
    "\"temp_entries_left\":0}}";

/* A smoke check with nothing to compare. */
static const char *const doc_quick =
    "{\"schema_version\":1,\"mode\":\"quick\",\"performance_claims\":false,"
    "\"machine\":{\"os\":\"macos\"},\"lanes\":{\"c-c\":{\"samples\":[{"
    "\"round\":1,\"status\":\"passed\",\"ns_per_round_trip\":5}],"
    "\"summary\":{\"status\":\"passed\",\"stable\":false}}},"
    "\"comparisons\":{\"x\":{\"lane\":\"c-c\",\"reference\":\"c-c\","
    "\"ratio_of_medians\":1.0,\"verdict\":\"tie\"}}}";

/* ---- a sink that records its calls, one word each ---- */

struct recorder {
  struct report_sink sink; /* first: the operations get it */
  char log[8192];
  size_t used;
  int depth; /* open sections, tables and lists */
  int unbalanced;
};

static void logf_(struct report_sink *s, const char *fmt, ...)
{
  struct recorder *rec = (struct recorder *)s;
  va_list ap;
  int n;

  if (rec->used + 1 >= sizeof(rec->log))
    return;
  va_start(ap, fmt);
  n = vsnprintf(rec->log + rec->used, sizeof(rec->log) - rec->used, fmt, ap);
  va_end(ap);
  if (n > 0)
    rec->used += (size_t)n;
  if (rec->used >= sizeof(rec->log))
    rec->used = sizeof(rec->log) - 1;
}

static void opened(struct report_sink *s)
{
  ((struct recorder *)s)->depth++;
}

static void closed(struct report_sink *s)
{
  struct recorder *rec = (struct recorder *)s;
  if (--rec->depth < 0)
    rec->unbalanced = 1;
}

static void doc_begin(struct report_sink *s)
{
  logf_(s, "begin ");
}

static void doc_outline(struct report_sink *s, const struct report_outline *o)
{
  logf_(s, "outline(%s,%d bad) ", o->lanes_text, o->bad);
}

static void doc_end(struct report_sink *s)
{
  logf_(s, "end");
}

static void sec_begin(struct report_sink *s, int level, const char *title,
                      const char *detail, const char *anchor, int platform)
{
  logf_(s, "[%d %s%s%s] ", level, title, detail ? " " : "",
        detail ? detail : "");
  opened(s);
}

static void sec_end(struct report_sink *s, int level)
{
  closed(s);
}

static void paragraph(struct report_sink *s, const struct report_span *sp,
                      int n)
{
  logf_(s, "p ");
}

static void note(struct report_sink *s, enum report_note_tone tone,
                 const char *lead, const char *text)
{
  logf_(s, "note(%s) ", lead);
}

static void chart(struct report_sink *s, const struct report_chart *c)
{
  static const char *const kinds[] = {"time", "memory", "packages", "heat",
                                      "latency"};
  logf_(s, "chart(%s) ", kinds[c->kind]);
}

static void table_begin(struct report_sink *s, const char *const *titles, int n)
{
  logf_(s, "table(%s..%d) ", titles[0], n);
  opened(s);
}

static void table_row(struct report_sink *s, const struct report_cell *c, int n)
{
  logf_(s, "row ");
}

static void table_end(struct report_sink *s)
{
  closed(s);
}

static void list_begin(struct report_sink *s, enum report_list_style style)
{
  opened(s);
}

static void list_item(struct report_sink *s, const char *term, const char *text)
{
  logf_(s, "item(%s: %s) ", term, text);
}

static void list_end(struct report_sink *s, enum report_list_style style)
{
  closed(s);
}

static void failure_begin(struct report_sink *s, const struct report_lane *l,
                          const char *why)
{
  logf_(s, "failure(%s) ", l->name);
  opened(s);
}

static void failure_line(struct report_sink *s, const struct report_lane *l,
                         const struct report_span *sp, int n)
{
  logf_(s, "line(");
  for (int i = 0; i < n; i++)
    logf_(s, "%s", sp[i].text);
  logf_(s, ") ");
}

static void failure_reproduce(struct report_sink *s, const char *directory,
                              const char *command)
{
  logf_(s, "reproduce ");
}

static void failure_stderr(struct report_sink *s, const char *server,
                           const char *client)
{
  logf_(s, "stderr(%s) ", client ? client : "-");
}

static void failure_end(struct report_sink *s)
{
  closed(s);
}

static void package_begin(struct report_sink *s, int across)
{
  logf_(s, "packages(%s) ", across ? "across" : "one");
  opened(s);
}

static void package_row(struct report_sink *s,
                        const struct report_package_row *row)
{
  logf_(s, "package(%s%s%s %s %s %s) ", row->platform ? row->platform : "",
        row->platform ? " " : "", row->runtime, row->file_name, row->packed,
        row->sha256);
}

static void machine(struct report_sink *s, int platform)
{
  logf_(s, "machine(%d) ", platform);
}

static const struct report_sink_ops recorder_ops = {
    .document = {doc_begin, doc_outline, doc_end},
    .section = {sec_begin, sec_end},
    .paragraph = paragraph,
    .note = note,
    .chart = chart,
    .table = {table_begin, table_row, table_end},
    .list = {list_begin, list_item, list_end},
    .failure = {failure_begin, failure_line, failure_reproduce, failure_stderr,
                failure_end},
    .package = {package_begin, package_row, table_end},
    .machine = machine,
};

static int load(struct report *r, const char *name, const char *doc)
{
  char err[256];
  if (report_parse(r, name, doc, strlen(doc), err, sizeof(err)) != 0) {
    tap_diag("%s: %s", name, err);
    return -1;
  }
  return 0;
}

/* Writes r to a recorder; charts says whether the recorder draws them. */
static int record(const struct report *r, int charts, struct recorder *rec,
                  struct report_sink_ops *ops)
{
  FILE *out = tmpfile(); /* no operation writes to it */
  int rc;

  memset(rec, 0, sizeof(*rec));
  *ops = recorder_ops;
  if (!charts)
    ops->chart = NULL;
  rec->sink = (struct report_sink){ops, out, r, charts, NULL, {NULL, NULL}};
  rc = out ? report_sections_write(&rec->sink) : -1;
  if (out)
    fclose(out);
  return rc;
}

static int has(const struct recorder *rec, const char *s)
{
  if (strstr(rec->log, s) != NULL)
    return 1;
  tap_diag("no '%s' in: %s", s, rec->log);
  return 0;
}

/* a comes before b in the log */
static int before(const struct recorder *rec, const char *a, const char *b)
{
  const char *x = strstr(rec->log, a), *y = strstr(rec->log, b);
  if (x && y && x < y)
    return 1;
  tap_diag("'%s' not before '%s' in: %s", a, b, rec->log);
  return 0;
}

static void test_sections(void)
{
  struct report r;
  struct recorder rec;
  struct report_sink_ops ops;

  if (load(&r, "full.json", doc_full) != 0) {
    TAP_OK(0, "the full document loads");
    return;
  }
  TAP_OK(record(&r, 0, &rec, &ops) == 0 && !rec.unbalanced && rec.depth == 0,
         "without charts: written, every section, table and list closed");
  TAP_OK(!strstr(rec.log, "chart(") && !strstr(rec.log, "note(Smoke"),
         "without charts: no chart asked for; no smoke banner");
  TAP_OK(has(&rec, "begin outline(1 lane,1 bad) [2 Time per round trip] p "
                   "table(lane..2) row "),
         "the outline, then time per round trip: a lane column and one a "
         "platform");
  TAP_OK(has(&rec, "failure(c-c) line(round 2: failed at client: timeout: "
                   "late) reproduce stderr(oops) "),
         "a failed sample: its cause, its command, its peer's stderr");
  TAP_OK(before(&rec, "[2 linux x86_64]", "[3 Failures and lanes not run]") &&
             before(&rec, "[3 Failures", "[3 Client \xc3\x97 server]") &&
             before(&rec, "[3 Client", "[3 Cost per round trip]") &&
             before(&rec, "[3 Cost per round trip]", "[3 Same-runtime lanes") &&
             before(&rec, "[3 Same-runtime",
                    "[3 Packages] packages(one) package(c c.tgz 10 B ab)") &&
             before(&rec, "packages(one)", "[3 Cleanliness]") &&
             before(&rec, "[3 Cleanliness]", "item(c-c: spread)") &&
             before(&rec, "item(c-c: spread)", "[3 Comparisons]") &&
             before(&rec, "[3 Comparisons]", "machine(0) end"),
         "under the platform: failures, client x server, cost, memory, "
         "packages, cleanliness, stability, comparisons, machine");
  TAP_OK(has(&rec, "note(Clean:)"), "a clean run says so (a sink may not)");

  TAP_OK(record(&r, 1, &rec, &ops) == 0 && !rec.unbalanced && rec.depth == 0,
         "with charts: written, every section, table and list closed");
  TAP_OK(before(&rec, "[2 Time per round trip] p chart(time) table(",
                "[2 Memory of same-runtime lanes] p chart(memory) "
                "table(platform..6)") &&
             before(&rec, "table(platform..6)",
                    "[2 Packages] p chart(packages) packages(across) "
                    "package(linux c c.tgz 10 B ab)") &&
             before(&rec, "packages(across)", "[2 linux x86_64]") &&
             has(&rec, "[3 Client \xc3\x97 server] p chart(heat) table(") &&
             !strstr(rec.log, "[3 Same-runtime") &&
             !strstr(rec.log, "packages(one)"),
         "with charts: memory and packages across platforms beside their "
         "bars, a heat map before the client x server table");
  report_release(&r);

  if (load(&r, "quick.json", doc_quick) != 0) {
    TAP_OK(0, "the quick document loads");
    return;
  }
  TAP_OK(record(&r, 0, &rec, &ops) == 0 &&
             has(&rec, "begin note(Smoke check: no performance claims.) "
                       "outline(1 lane,0 bad)") &&
             !strstr(rec.log, "Comparisons") && !strstr(rec.log, "item("),
         "a smoke check: the banner first, no stability or comparisons");
  TAP_OK(!strstr(rec.log, "Packages") && !strstr(rec.log, "Cleanliness") &&
             !strstr(rec.log, "Failures"),
         "sections with nothing to show are left out");
  report_release(&r);
}

/* ---- the Markdown sink ---- */

static char *markdown_of(const struct report *r)
{
  return rtest_rendered(r, report_markdown);
}

static void test_markdown(void)
{
  struct report r;
  char *md;

  if (load(&r, "full.json", doc_full) != 0) {
    TAP_OK(0, "the full document loads");
    return;
  }
  md = markdown_of(&r);
  TAP_OK(md && strstr(md, "## Time per round trip\n\nMedian nanoseconds per "
                          "round trip (the same number"),
         "Markdown: a level-2 heading and its paragraph");
  TAP_HAS_STR(md,
              "| lane | linux                               |\n"
              "| ---- | ----------------------------------- |\n"
              "| c-c  | **failed** 1/2: 100.0 [100.0\xe2\x80\x93"
              "100.0] |\n\n",
              "Markdown: a table, its rule, a lane cell with its status, each "
              "column as wide as its widest cell");
  TAP_HAS_STR(md,
              "| client \\\\ server | c                                   |\n"
              "| ---------------- | ----------------------------------- |\n"
              "| **c**            | **failed** 1/2: ",
              "Markdown: escaped titles, bold row headings in client x "
              "server");
  TAP_OK(md && strstr(md, "- **c-c** round 2: failed at client: timeout: "
                          "late\n  - reproduce: ` crossrun run `\n"),
         "Markdown: a failed sample's line and its command as code");
  TAP_OK(md && !strstr(md, "oops") && !strstr(md, "Clean:"),
         "Markdown: no peer stderr, no word that the run was clean");
  TAP_OK(md && strstr(md, "- c-c: spread\n\n### Comparisons\n\n"),
         "Markdown: a list and the section after it");
  free(md);
  report_release(&r);
}

/* ---- how each peak was taken: exact or sampled ---- */

/* c-c: every peak the peer's own; rust-rust: a client peak that is the
 * last reading while it ran; node-node: peaks whose source is not said. */
#define MEM_SAMPLE(rss, csrc, ssrc)                                            \
  "{\"round\":1,\"status\":\"passed\",\"ns_per_round_trip\":100,"              \
  "\"client\":{\"memory\":{\"peak_rss_bytes\":" rss csrc "}},"                 \
  "\"server\":{\"memory\":{\"peak_rss_bytes\":" rss ssrc "}}}"
#define SRC(x) ",\"peak_rss_source\":\"" x "\""
#define MEM_LANE(rt, a, b)                                                     \
  "\"" rt "-" rt "\":{\"client_runtime\":\"" rt "\",\"server_runtime\":\"" rt  \
  "\",\"samples\":[" a "," b "]}"
static const char *const doc_memory =
    "{\"schema_version\":1,\"mode\":\"full\",\"performance_claims\":true,"
    "\"machine\":{\"os\":\"linux\"},\"lanes\":{" MEM_LANE(
        "c",
        MEM_SAMPLE("1048576", SRC("exit_accounting_peak"),
                   SRC("exit_accounting_peak")),
        MEM_SAMPLE(
            "1048576", SRC("os_lifetime_peak"),
            SRC("exit_accounting_peak"))) "," MEM_LANE("rust",
                                                       MEM_SAMPLE(
                                                           "2097152",
                                                           SRC("exit_"
                                                               "accounting_"
                                                               "peak"),
                                                           SRC("exit_"
                                                               "accounting_"
                                                               "peak")),
                                                       MEM_SAMPLE(
                                                           "2097152",
                                                           SRC("sampled_peak_"
                                                               "since_exec"),
                                                           SRC("exit_"
                                                               "accounting_"
                                                               "peak"))) "," MEM_LANE("node",
                                                                                      MEM_SAMPLE(
                                                                                          "3145728",
                                                                                          "",
                                                                                          ""),
                                                                                      MEM_SAMPLE(
                                                                                          "3145728",
                                                                                          "",
                                                                                          "")) "}}";

static void test_rss_labels(void)
{
  struct report r;
  const struct report_lane *l;
  char *md, *html;

  if (load(&r, "memory.json", doc_memory) != 0) {
    TAP_OK(0, "the memory document loads");
    return;
  }
  l = report_find_lane(&r.platforms[0], "c-c");
  TAP_OK(l && l->client_rss_label && l->server_rss_label &&
             strcmp(l->client_rss_label, "exact") == 0 &&
             strcmp(l->server_rss_label, "exact") == 0,
         "the model: peaks from the exit record or the OS's lifetime figure "
         "are exact");
  l = report_find_lane(&r.platforms[0], "rust-rust");
  TAP_OK(l && l->client_rss_label && l->server_rss_label &&
             strcmp(l->client_rss_label, "sampled") == 0 &&
             strcmp(l->server_rss_label, "exact") == 0,
         "the model: one sampled peak makes the median sampled (a lower "
         "bound), per peer");
  l = report_find_lane(&r.platforms[0], "node-node");
  TAP_OK(l && !l->client_rss_label && !l->server_rss_label,
         "the model: no label where the file does not say");

  md = rtest_md_unpadded(markdown_of(&r));
  TAP_HAS_STR(md,
              "| c | 1.0 MiB [1.0\xe2\x80\x93"
              "1.0] exact | 1.0 MiB "
              "[1.0\xe2\x80\x93"
              "1.0] exact |",
              "Markdown: exact after each peak");
  TAP_HAS_STR(md,
              "| rust | 2.0 MiB [2.0\xe2\x80\x93"
              "2.0] sampled | 2.0 MiB "
              "[2.0\xe2\x80\x93"
              "2.0] exact |",
              "Markdown: sampled for the client, exact for the server");
  TAP_HAS_STR(md,
              "| node | 3.0 MiB [3.0\xe2\x80\x93"
              "3.0] | 3.0 MiB "
              "[3.0\xe2\x80\x93"
              "3.0] |",
              "Markdown: no label where the evidence has none");
  TAP_HAS_STR(md,
              "Exact: the peer's own peak as it exited; sampled: the "
              "last reading while it ran (a lower bound).",
              "Markdown: what the labels mean");
  free(md);

  html = rtest_rendered(&r, report_html);
  TAP_HAS_STR(html,
              "1.0 MiB [1.0\xe2\x80\x93"
              "1.0] exact</td>",
              "HTML: exact in the table");
  TAP_HAS_STR(html,
              "2.0 MiB [2.0\xe2\x80\x93"
              "2.0] sampled</td>",
              "HTML: sampled in the table");
  TAP_HAS_STR(html, ">2.0 MiB sampled</text>",
              "HTML: sampled beside the client's bar");
  TAP_HAS_STR(html,
              "rust client, linux: 2.0 MiB [2.0\xe2\x80\x93"
              "2.0] "
              "sampled</title>",
              "HTML: and in the bar's title");
  free(html);
  report_release(&r);
}

int main(void)
{
  test_sections();
  test_markdown();
  test_rss_labels();
  return tap_done();
}
