/* The cost figures in the reports, from crafted evidence
 * (tests/lib_report.h's rtest_cost_doc): the model reads the merged
 * latency, each peer's CPU per round trip and memory label, and why a
 * figure is null; the Markdown and the HTML show every figure, a null one
 * with its reason (never a 0), text from the file escaped; the HTML has a
 * latency chart per lane and stays well-formed; evidence older than the
 * figures still renders, saying it has none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/report/report.h"
#include "protocol/histogram.h"
#include "tests/lib_json.h"
#include "tests/lib_report.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static int load_doc(struct report *r, json_object *doc)
{
  const char *text =
      json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
  char err[512] = "";

  if (report_parse(r, "cost.json", text, strlen(text), err, sizeof(err)) != 0) {
    tap_diag("cost.json: %s", err);
    return -1;
  }
  return 0;
}

/* Keeps what a test rendered in $BUILD/test-output, to look at. */
static void keep(const char *name, const char *text)
{
  char path[1200];
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
  FILE *f;

  snprintf(path, sizeof(path), "%s/test-output/%s", b, name);
  f = fopen(path, "w");
  if (f == NULL)
    return;
  fputs(text ? text : "", f);
  fclose(f);
}

static void test_model(const struct report *r, json_object *doc)
{
  const struct report_platform *p = &r->platforms[0];
  const struct report_lane *cc = report_find_lane(p, "c-c");
  const struct report_lane *nc = report_find_lane(p, "node-c");
  const struct report_lane *cn = report_find_lane(p, "c-node");
  const struct report_lane *rr = report_find_lane(p, "rust-rust");

  if (!TAP_OK(cc && nc && cn && rr, "the four lanes are read"))
    return;
  TAP_OK(cc->latency.present && cc->latency.samples == 2 &&
             cc->latency.count == 2000 &&
             cc->latency.p50 == json_object_get_int64(json_at(
                                    doc, "lanes.c-c.summary.latency_ns.p50")) &&
             cc->latency.p99_9 ==
                 json_object_get_int64(
                     json_at(doc, "lanes.c-c.summary.latency_ns.p99_9")) &&
             cc->latency.nbuckets ==
                 (int)json_object_array_length(
                     json_at(doc, "lanes.c-c.summary.latency_ns.buckets")),
         "c-c: the summary's merged latency, percentiles and buckets");
  TAP_OK(cc->client_cpu_per_rt.n == 2 && cc->client_cpu_per_rt.median == 2.0 &&
             cc->client_cpu_per_rt.min == 1.5 &&
             cc->client_cpu_per_rt.max == 2.5 && cc->server_cpu_per_rt.n == 2 &&
             cc->server_cpu_per_rt.median == 1.1 &&
             !cc->client_cpu_per_rt_missing && !cc->latency_missing,
         "c-c: CPU per round trip of each peer, median [min-max] over the "
         "samples");
  TAP_OK(nc->server_cpu_per_rt.n == 0 && nc->server_cpu_per_rt_missing &&
             strcmp(nc->server_cpu_per_rt_missing, RTEST_EVIL_REASON) == 0 &&
             nc->client_cpu_per_rt.n == 1,
         "node-c: a null server figure carries the summary's reason");
  TAP_OK(
      nc->client_rss_label &&
          strcmp(nc->client_rss_label, RTEST_EVIL_LABEL) == 0 &&
          nc->client_rss_covers && strcmp(nc->client_rss_covers, "tree") == 0 &&
          nc->server_rss_label && strcmp(nc->server_rss_label, "sampled") == 0,
      "node-c: each peer's memory label and what it covers");
  TAP_OK(!cn->latency.present && cn->latency_missing &&
             strcmp(cn->latency_missing, "the client reported no latency") ==
                 0 &&
             cn->client_cpu_per_rt_missing &&
             strcmp(cn->client_cpu_per_rt_missing,
                    "the client reported no cpu_user_us") == 0,
         "c-node: null latency and CPU, each with its reason");
  TAP_OK(rr->passed == 0 && !rr->latency_missing &&
             !rr->client_cpu_per_rt_missing,
         "rust-rust: nothing passed, so nothing is missing");
  TAP_OK(p->coordinator.present && p->coordinator.cpu_ns == 12000000 &&
             p->coordinator.cpu_share_of_wall == 0.003 &&
             p->coordinator.peak_rss_bytes == 8388608,
         "the coordinator's own CPU and peak memory");
}

static void test_markdown(const struct report *r)
{
  char *md = rtest_rendered(r, report_markdown);
  const char *bad = "";
  char p50[64], want[512];
  const struct report_lane *cc = report_find_lane(&r->platforms[0], "c-c");

  keep("cost.md", md);
  TAP_OK(md && rtest_md_aligned(md, &bad),
         "Markdown: the cost table's columns line up (%.*s)",
         (int)strcspn(bad, "\n"), bad);
  rtest_md_unpadded(md);
  TAP_HAS_STR(md, "### Cost per round trip\n\n",
              "Markdown: a cost section under the platform");
  TAP_HAS_STR(md,
              "| lane | ns per round trip | p50 latency | p99 | p99.9 | client "
              "CPU/rt | server CPU/rt | client peak memory | server peak "
              "memory |",
              "Markdown: its columns");
  report_format_value(p50, sizeof(p50), (double)cc->latency.p50,
                      REPORT_LATENCY_NS);
  snprintf(want, sizeof(want),
           "| c-c | 31000 [30000\xe2\x80\x93"
           "32000] | %s |",
           p50);
  TAP_HAS_STR(md, want, "Markdown: c-c's time and p50 (%s)", p50);
  TAP_HAS_STR(md,
              "| 2.00 \xc2\xb5s [1.50\xe2\x80\x93"
              "2.50] | 1.10 \xc2\xb5s [1.00\xe2\x80\x93"
              "1.20] | 2.0 MiB [2.0\xe2\x80\x93"
              "2.0] exact, process only | 3.0 MiB [3.0\xe2\x80\x93"
              "3.0] exact, process only |",
              "Markdown: c-c's CPU per round trip per peer and memory with "
              "its label");
  TAP_HAS_STR(md,
              "| not reported: server line &lt;b>missing&lt;/b> &amp; \"q\" "
              "| 46.0 MiB [46.0\xe2\x80\x93"
              "46.0] exact, tree of 2: sh&lt;i>, node &amp; co |",
              "Markdown: a null figure says why; a label from the file, "
              "escaped");
  TAP_HAS_STR(md,
              "| c-node | 50000 [50000\xe2\x80\x93"
              "50000] | not reported: the client reported no latency | "
              "not reported: the client reported no latency | not reported: "
              "the client reported no latency | not reported: the client "
              "reported no cpu_user_us |",
              "Markdown: null percentiles and CPU with their reasons");
  TAP_OK(md && !strstr(md, "| rust-rust | -"),
         "Markdown: a lane with nothing passed has no cost row");
  TAP_OK(md && !strstr(md, "<b>") && !strstr(md, "<i>") && !strstr(md, "\x01"),
         "Markdown: no markup or control character from the file");
  free(md);
}

/* The text of svg element number i (0 first) of class "latency". */
static const char *latency_svg(const char *html, int i)
{
  const char *p = html;
  for (int k = 0; p && k <= i; k++) {
    p = strstr(p, "<svg class=\"latency\"");
    if (p && k < i)
      p++;
  }
  return p;
}

static void test_junit(const struct report *r)
{
  char *x = rtest_rendered(r, report_junit);

  keep("cost.xml", x);
  TAP_HAS_STR(x,
              "\nlatency p50 38.1 \xc2\xb5s, p99 59.9 \xc2\xb5s, p99.9 "
              "598.0 \xc2\xb5s; CPU per round trip client 2.00 \xc2\xb5s "
              "[1.50\xe2\x80\x93"
              "2.50], server 1.10 \xc2\xb5s",
              "JUnit: c-c's latency and CPU per round trip");
  TAP_HAS_STR(x,
              "server not reported: server line &lt;b&gt;missing&lt;/b&gt; "
              "&amp; &quot;q&quot; ",
              "JUnit: a null figure's reason, escaped");
  free(x);
}

/* html parses with balanced tags, no script, its SVG and tables. */
static void well_formed(const char *html, const char *name)
{
  FILE *f;
  json_object *res, *errors;

  if (!rtest_have_python() || rtest_dir[0] == '\0') {
    printf("ok %d - # SKIP python3 not installed: HTML parse check\n",
           ++tap_count);
    return;
  }
  f = fopen(rtest_in_dir(name), "w");
  if (f != NULL) {
    fputs(html, f);
    fclose(f);
  }
  res =
      rtest_python_check(rtest_html_check_py, rtest_in_dir(name), "html-check");
  errors = json_at(res, "errors");
  TAP_OK(res && errors && json_object_array_length(errors) == 0 &&
             !json_at(res, "tags.script") && json_at(res, "tags.svg") &&
             json_at(res, "tags.table"),
         "%s parses: tags balanced, no script, SVG and tables (%s)", name,
         errors ? json_object_to_json_string(errors) : "no result");
  json_object_put(res);
}

static void test_html(const struct report *r)
{
  char *html = rtest_rendered(r, report_html);
  const struct report_lane *cc = report_find_lane(&r->platforms[0], "c-c");
  const char *svg;
  char p99[64], want[256];

  keep("cost.html", html);
  if (!TAP_OK(html != NULL, "HTML: written"))
    return;
  TAP_HAS_STR(html, "<h3>Cost per round trip</h3>", "HTML: the cost section");
  well_formed(html, "cost.html");
  TAP_EQ_INT(rtest_count(html, "<svg class=\"latency\""), 3,
             "HTML: a latency chart per lane that passed");
  svg = latency_svg(html, 0);
  TAP_OK(svg && strstr(svg, "latency histogram of c-c") &&
             rtest_count(svg, "<rect class=\"bin\"") >= 5 &&
             strstr(svg, "</svg>") &&
             strstr(svg, "</svg>") > strstr(svg, "<rect class=\"bin\""),
         "HTML: c-c's chart has the bars of its histogram");
  report_format_value(p99, sizeof(p99), (double)cc->latency.p99,
                      REPORT_LATENCY_NS);
  snprintf(want, sizeof(want), ">p99 %s</text>", p99);
  TAP_OK(svg && strstr(svg, ">p50 ") && strstr(svg, want) &&
             strstr(svg, ">p99.9 ") &&
             strstr(svg, "2000 round trips, 2 "
                         "samples"),
         "HTML: p50, p99 (%s) and p99.9 marked, the round trips counted", p99);
  svg = latency_svg(html, 2);
  {
    const char *end = svg ? strstr(svg, "</svg>") : NULL;
    const char *bin = svg ? strstr(svg, "class=\"bin\"") : NULL;
    TAP_OK(end && strstr(svg, "latency histogram of c-node") &&
               strstr(svg, "latency not reported: the client reported no "
                           "latency") &&
               (bin == NULL || bin > end),
           "HTML: a lane without latency says why instead of bars");
  }
  TAP_HAS_STR(html,
              "<td>not reported: server line &lt;b&gt;missing&lt;/b&gt; "
              "&amp; &quot;q&quot; </td>",
              "HTML: a null figure says why, escaped");
  TAP_HAS_STR(html,
              "46.0 MiB [46.0\xe2\x80\x93"
              "46.0] exact, tree of 2: sh&lt;i&gt;, node &amp; co</td>",
              "HTML: a memory label from the file, escaped");
  TAP_OK(!strstr(html, "<b>missing") && !strstr(html, "sh<i>") &&
             !strstr(html, "\x01"),
         "HTML: no markup or control character from the file");
  TAP_HAS_STR(html,
              "<tr><th>coordinator</th><td>crossrun&#39;s own CPU 12.0 ms "
              "over 4.00 s of wall time (0.30%), peak memory 8.0 MiB</td>"
              "</tr>",
              "HTML: the coordinator's own CPU and peak memory");
  free(html);
}

/* The cost doc with every cost member taken out: what an older crossrun
 * wrote. */
static void strip_cost(json_object *doc)
{
  json_object_object_del(doc, "coordinator");
  json_object_object_foreach(json_at(doc, "lanes"), name, lane)
  {
    json_object *samples = json_at(lane, "samples"), *summary;
    (void)name;
    for (size_t i = 0; i < json_object_array_length(samples); i++) {
      json_object *s = json_object_array_get_idx(samples, i);
      json_object_object_del(s, "cost");
      for (int peer = 0; peer < 2; peer++) {
        json_object *m = json_at(s, peer ? "server.memory" : "client.memory");
        if (m == NULL)
          continue;
        json_object_object_del(m, "label");
        json_object_object_del(m, "covers");
      }
    }
    summary = json_at(lane, "summary");
    json_object_object_del(summary, "latency_ns");
    json_object_object_del(summary, "client_cpu_us_per_round_trip_median");
    json_object_object_del(summary, "server_cpu_us_per_round_trip_median");
    json_object_object_del(summary, "not_reported");
  }
}

static void test_older(void)
{
  json_object *doc = rtest_cost_doc();
  struct report r;
  char *md, *html;
  const struct report_lane *cc;

  strip_cost(doc);
  if (!TAP_OK(load_doc(&r, doc) == 0, "older evidence loads")) {
    json_object_put(doc);
    return;
  }
  cc = report_find_lane(&r.platforms[0], "c-c");
  TAP_OK(cc && !cc->latency.present && cc->latency_missing &&
             strcmp(cc->latency_missing, REPORT_OLDER_EVIDENCE) == 0 &&
             cc->client_cpu_per_rt_missing &&
             strcmp(cc->client_rss_label, "exact") == 0 &&
             !cc->client_rss_covers && !r.platforms[0].coordinator.present,
         "older evidence: no cost figures, the peak_rss_source words");
  md = rtest_md_unpadded(rtest_rendered(&r, report_markdown));
  html = rtest_rendered(&r, report_html);
  keep("cost-older.md", md);
  TAP_HAS_STR(md,
              "This evidence has no latency and no CPU per round trip: the "
              "crossrun that wrote it did not record them.",
              "older Markdown: says once that the figures are not there");
  TAP_HAS_STR(md,
              "| c-c | 31000 [30000\xe2\x80\x93"
              "32000] | - | - | - | - | - | 2.0 MiB [2.0\xe2\x80\x93"
              "2.0] exact | 3.0 MiB [3.0\xe2\x80\x93"
              "3.0] exact |",
              "older Markdown: time and memory with today's words, the rest "
              "-");
  TAP_OK(html && strstr(html, "<h3>Cost per round trip</h3>") &&
             !strstr(html, "<svg class=\"latency\"") && strstr(html, "</html>"),
         "older HTML: the section without charts");
  if (html)
    well_formed(html, "cost-older.html");
  free(md);
  free(html);
  report_release(&r);
  json_object_put(doc);
}

/* A malformed histogram is refused with one line, not half-read. */
static void test_refused(void)
{
  static const char *const cases[][2] = {
      {"[[5, 1], [5, 2]]", "an index of 0 to 7295 above the one before"},
      {"[[7296, 1]]", "an index of 0 to 7295"},
      {"[[1, -1]]", "a count of 0 or more"},
      {"[[1]]", "is not [index, count]"},
      {"[\"x\"]", "is not [index, count]"},
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    json_object *doc = rtest_cost_doc();
    struct report r;
    char err[512] = "";
    const char *text;
    json_object_object_add(json_at(doc, "lanes.c-c.summary.latency_ns"),
                           "buckets", json_tokener_parse(cases[i][0]));
    text = json_object_to_json_string(doc);
    TAP_OK(report_parse(&r, "bad.json", text, strlen(text), err, sizeof(err)) ==
                   -1 &&
               strstr(err, "lanes.c-c.summary.latency_ns.buckets[") &&
               strstr(err, cases[i][1]),
           "buckets %s refused: %s", cases[i][0], err);
    json_object_put(doc);
  }
}

int main(void)
{
  json_object *doc = rtest_cost_doc();
  struct report r;

  if (tap_mkdtemp(rtest_dir, sizeof(rtest_dir)) == NULL)
    rtest_dir[0] = '\0';

  if (TAP_OK(load_doc(&r, doc) == 0, "the crafted cost document loads")) {
    test_model(&r, doc);
    test_markdown(&r);
    test_html(&r);
    test_junit(&r);
    report_release(&r);
  }
  json_object_put(doc);
  test_older();
  test_refused();
  if (rtest_dir[0] != '\0' && scratch_remove_tree(rtest_dir, 0) != 0)
    tap_diag("could not remove %s", rtest_dir);
  return tap_done();
}
