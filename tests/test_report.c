/* Reports from real evidence (tests/lib_report.h): the model read from
 * quick, full and merged evidence; the Markdown with its tables and
 * (quick only) the smoke banner; the HTML, which parses and renders in
 * headless Chromium with its SVG charts and numbers (a screenshot is kept
 * in $BUILD/test-output/); the JUnit XML, which passes a strict parser
 * and has a suite per platform and a case per lane. Nothing from the file
 * can inject markup. The command line and files that are not evidence
 * are test_report_command.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include "evidence/report/report.h"
#include "tests/lib_json.h"
#include "tests/lib_report.h"
#include "tests/tap.h"

#ifndef CHROMIUM
#define CHROMIUM "/usr/bin/chromium"
#endif

static const struct report_lane *lane_named(const struct report *r, int p,
                                            const char *name)
{
  return p < r->nplatforms ? report_find_lane(&r->platforms[p], name) : NULL;
}

/* The emulator that ran the full evidence (machine.emulator: wine), or
 * NULL. Under one a run makes no performance claims (and so has no
 * comparisons): its report has the smoke banner. */
static const char *emulator;

static void test_model(const char *quick, const char *full, const char *merged,
                       json_object *full_doc)
{
  struct report r;
  char err[512] = "";
  const struct report_lane *l;

  if (TAP_OK(report_load(&r, quick, err, sizeof(err)) == 0,
             "quick evidence loads: %s", err)) {
    TAP_OK(!r.merged && r.nplatforms == 1 && !r.performance_claims &&
               strcmp(r.mode, "quick") == 0 && r.platforms[0].nlanes >= 1,
           "quick: one platform, no performance claims, %d lanes",
           r.platforms[0].nlanes);
    report_release(&r);
  }
  if (TAP_OK(report_load(&r, full, err, sizeof(err)) == 0,
             "full evidence loads: %s", err)) {
    double median =
        json_object_get_double(json_at(full_doc, "lanes.c-c.summary."
                                                 "ns_per_round_trip_median"));
    l = lane_named(&r, 0, "c-c");
    TAP_OK(r.performance_claims == !emulator && l && l->ns_per_rt.n == 3 &&
               l->ns_per_rt.median == median && l->ns_per_rt.min <= median &&
               l->ns_per_rt.max >= median,
           "full: c-c's median from its samples is the summary's (%g)%s",
           median, emulator ? "; no performance claims under an emulator" : "");
    TAP_OK(l && l->client_rss.n == 3 && l->client_rss.min > 0 &&
               l->server_cpu.n == 3,
           "full: memory and CPU figures with their range");
    TAP_OK((r.platforms[0].ncomparisons > 0) == !emulator &&
               r.platforms[0].cleanliness.present &&
               r.platforms[0].nruntimes >= 1,
           "full: comparisons, cleanliness and runtimes are read%s",
           emulator ? " (under an emulator: no comparisons)" : "");
    report_release(&r);
  }
  if (TAP_OK(report_load(&r, merged, err, sizeof(err)) == 0,
             "merged evidence loads: %s", err)) {
    TAP_OK(r.merged && r.nplatforms == 3 &&
               strcmp(r.platforms[1].os, "macos") == 0 &&
               strcmp(r.platforms[2].os, "windows") == 0 &&
               strcmp(r.commit, "0123456789abcdef0123456789abcdef01234567") ==
                   0,
           "merged: three platforms in order, the commit");
    l = lane_named(&r, 2, RTEST_EVIL_LANE);
    TAP_OK(l && strcmp(l->status, "failed") == 0 && l->failed == 1 &&
               l->samples[0].reproduce &&
               strstr(l->samples[0].reproduce, "--lanes c-c"),
           "merged: the crafted lane failed, with a reproduce command");
    l = lane_named(&r, 1, "rust-rust");
    TAP_OK(l && strcmp(l->status, "unavailable") == 0 && l->ns_per_rt.n == 0,
           "merged: an unavailable lane has no figure");
    report_release(&r);
  }
}

/* ---- Markdown ---- */

static char *render(const char *evidence, const char *name,
                    int (*fn)(const struct report *, FILE *))
{
  struct report r;
  char err[512];
  FILE *f;
  char *text = NULL;

  if (report_load(&r, evidence, err, sizeof(err)) != 0)
    return NULL;
  f = fopen(rtest_in_dir(name), "wb");
  if (f != NULL) {
    int rc = fn(&r, f);
    if (fclose(f) == 0 && rc == 0)
      text = rtest_slurp(rtest_in_dir(name), NULL);
  }
  report_release(&r);
  return text;
}

static int has_control(const char *s)
{
  for (; *s; s++)
    if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
      return 1;
  return 0;
}

static void test_markdown(const char *quick, const char *full,
                          const char *merged, int ncomparisons)
{
  char *q = render(quick, "quick.md", report_markdown);
  char *f = render(full, "full.md", report_markdown);
  char *m = render(merged, "merged.md", report_markdown);
  const char *bad = "";
  /* The tables' pipes line up; the checks below read them unpadded. */
  int aligned = q && f && m && rtest_md_aligned(q, &bad) &&
                rtest_md_aligned(f, &bad) && rtest_md_aligned(m, &bad);

  TAP_OK(aligned, "Markdown: every table's columns line up (%.*s)",
         (int)strcspn(bad, "\n"), bad);
  rtest_md_unpadded(q);
  rtest_md_unpadded(f);
  rtest_md_unpadded(m);

  if (TAP_OK(q != NULL, "quick: Markdown written")) {
    TAP_OK(strstr(q, "Smoke check: no performance claims") != NULL,
           "quick Markdown: the smoke-check banner");
    TAP_OK(strstr(q, "## Time per round trip") && strstr(q, "| c-c |") &&
               strstr(q, "### Client \xc3\x97 server") &&
               strstr(q, "### Cleanliness") &&
               strstr(q, "### Machine and toolchains"),
           "quick Markdown: the time, client x server, cleanliness and "
           "machine tables");
    TAP_OK(!strstr(q, "### Comparisons") && !strstr(q, "ratio of medians") &&
               !strstr(q, "\xc3\x97 |"),
           "quick Markdown: no comparisons or ratios");
  }
  if (TAP_OK(f != NULL, "full: Markdown written")) {
    if (emulator)
      TAP_OK(strstr(f, "Smoke check: no performance claims"),
             "full Markdown under an emulator: the smoke banner");
    else
      TAP_OK(!strstr(f, "Smoke check"), "full Markdown: no smoke banner");
    if (ncomparisons > 0)
      TAP_OK(strstr(f, "### Comparisons") &&
                 strstr(strstr(f, "### Comparisons"), " | c-c | "),
             "full Markdown: the comparisons against c-c");
    else
      TAP_OK(!strstr(f, "### Comparisons"),
             "full Markdown: no comparisons when the evidence has none");
    TAP_OK(strstr(f, "### Same-runtime lanes: peak RSS and CPU") &&
               strstr(f, " MiB ["),
           "full Markdown: same-runtime memory with min-max");
    TAP_OK(rtest_count(f, "[") > 20 && strstr(f, "\xe2\x80\x93"),
           "full Markdown: figures carry [min\xe2\x80\x93max]");
    TAP_OK(strstr(f, "### Cost per round trip") &&
               strstr(strstr(f, "### Cost per round trip"), "\n| c-c | "),
           "full Markdown: the cost per round trip of c-c");
  }
  if (TAP_OK(m != NULL, "merged: Markdown written")) {
    TAP_OK(strstr(m, "| lane | linux | macos | windows |") &&
               strstr(m, "## macos arm64") && strstr(m, "## windows x86_64"),
           "merged Markdown: a platform x lane table and a section per "
           "platform");
    TAP_OK(!strstr(m, "<script") && strstr(m, "&lt;script>") && !has_control(m),
           "merged Markdown: markup and control characters from the file "
           "are neutralised");
    TAP_OK(strstr(m, "round 2: passed on a retry; the first attempt failed "
                     "at client: timeout_client: deadline passed") &&
               strstr(m, "**flaky** 3/3: "),
           "merged Markdown: a flaky lane and its first attempt");
    TAP_OK(strstr(m, "| commit | 0123456789abcdef0123456789abcdef01234567 on "
                     "main |"),
           "merged Markdown: a record's provenance");
    TAP_OK(strstr(m, "reproduce: ` ") &&
               strstr(m, " run --lanes c-c --samples 1 "),
           "merged Markdown: the failure's reproduce command");
  }
  free(q);
  free(f);
  free(m);
}

/* ---- checks with Python's parsers ---- */

static const char *const junit_check_py =
    "import sys, json\n"
    "import xml.etree.ElementTree as E\n"
    "root = E.parse(sys.argv[1]).getroot()\n"
    "out = {'root': root.tag, 'suites': []}\n"
    "for s in root.findall('testsuite'):\n"
    "    cases = []\n"
    "    for c in s.findall('testcase'):\n"
    "        f, k = c.find('failure'), c.find('skipped')\n"
    "        cases.append({'name': c.get('name'),\n"
    "            'classname': c.get('classname'),\n"
    "            'out': c.findtext('system-out') or '',\n"
    "            'failure': None if f is None else\n"
    "                (f.get('message') or '') + '\\n' + (f.text or ''),\n"
    "            'skipped': None if k is None else k.get('message')})\n"
    "    out['suites'].append({'name': s.get('name'),\n"
    "        'tests': int(s.get('tests')), 'failures': "
    "int(s.get('failures')),\n"
    "        'skipped': int(s.get('skipped')), 'cases': cases})\n"
    "print(json.dumps(out))\n";

/* ---- HTML ---- */

/* Renders path in headless Chromium: its DOM (dump) or a screenshot. */
static int chromium(const char *html, const char *mode_arg, const char *out,
                    const char *name)
{
  char url[1200], profile[1100], home[1100], err[64], env_home[1200],
      env_cfg[1200], env_cache[1200], shot[1200];
  const char *argv[24];
  int n = 0, rc;

  snprintf(url, sizeof(url), "file://%s", html);
  snprintf(profile, sizeof(profile), "%s/profile-%s", rtest_dir, name);
  snprintf(home, sizeof(home), "%s/home", rtest_dir);
  tap_mkdir(home);
  snprintf(env_home, sizeof(env_home), "HOME=%s", home);
  snprintf(env_cfg, sizeof(env_cfg), "XDG_CONFIG_HOME=%s/.config", home);
  snprintf(env_cache, sizeof(env_cache), "XDG_CACHE_HOME=%s/.cache", home);
  /* Its singleton socket and temporary files go to our folder too. */
  char env_tmp[1200];
  snprintf(env_tmp, sizeof(env_tmp), "TMPDIR=%s", rtest_dir);
  const char *env[] = {env_home, env_cfg, env_cache, env_tmp, NULL};
  char user_data[1200];
  snprintf(user_data, sizeof(user_data), "--user-data-dir=%s", profile);
  argv[n++] = CHROMIUM;
  argv[n++] = "--headless";
  argv[n++] = "--no-sandbox";
  argv[n++] = "--disable-gpu";
  argv[n++] = "--disable-quic";
  argv[n++] = "--no-first-run";
  argv[n++] = "--disable-background-networking";
  argv[n++] = "--disable-component-update";
  argv[n++] = "--disable-sync";
  argv[n++] = user_data;
  if (strcmp(mode_arg, "dump") == 0) {
    argv[n++] = "--dump-dom";
  } else {
    snprintf(shot, sizeof(shot), "--screenshot=%s", out);
    argv[n++] = shot;
    argv[n++] = "--window-size=1280,2000";
  }
  argv[n++] = url;
  argv[n] = NULL;
  snprintf(err, sizeof(err), "chromium-%s.err", name);
  rc = rtest_run(argv,
                 strcmp(mode_arg, "dump") == 0 ? out : rtest_in_dir("shot.out"),
                 rtest_in_dir(err), env, tap_timeout_s(60));
  if (rc != 0) {
    char *e = rtest_slurp(rtest_in_dir(err), NULL);
    tap_diag("chromium exited with %d: %.800s", rc, e ? e : "");
    free(e);
  }
  return rc;
}

#ifdef _WIN32
/* CHROMIUM is a Linux program: under wine a Windows program starts one
 * with no handle to wait on or end. */
#define CHROMIUM_MISSING "no browser for a Windows program: chromium is Linux's"
static int have_chromium(void)
{
  return 0;
}
#else
#define CHROMIUM_MISSING "chromium not installed"
static int have_chromium(void)
{
  return access(CHROMIUM, X_OK) == 0;
}
#endif

static void test_html(const char *quick, const char *full, const char *merged,
                      double cc_median)
{
  char *q = render(quick, "quick.html", report_html);
  char *f = render(full, "full.html", report_html);
  char *m = render(merged, "merged.html", report_html);
  char median[64];

  report_format_value(median, sizeof(median), cc_median, REPORT_NS);
  TAP_OK(q && strstr(q, "Smoke check: no performance claims") &&
             !strstr(q, "Comparisons"),
         "quick HTML: the smoke banner, no comparisons");
  if (emulator)
    TAP_OK(f && strstr(f, "Smoke check: no performance claims") &&
               !strstr(f, "Comparisons"),
           "full HTML under an emulator: the smoke banner, no comparisons");
  else
    TAP_OK(f && !strstr(f, "Smoke check") && strstr(f, "<h3>Comparisons</h3>"),
           "full HTML: no banner, the comparisons");
  if (m != NULL) {
    TAP_OK(!strstr(m, "<script") && !strstr(m, "<SCRIPT") &&
               strstr(m, "&lt;script&gt;alert(1)") &&
               strstr(m, "&amp;&quot;&#39;") && !has_control(m) &&
               !strstr(m, "\xef\xbf\xbe"),
           "merged HTML: every string from the file is escaped");
    TAP_OK(!strstr(m, "http://") && !strstr(m, "https://") &&
               !strstr(m, " src=") && strstr(m, "default-src 'none'"),
           "merged HTML: self-contained, loads nothing");
    TAP_OK(rtest_count(m, "<svg") >= 6 && strstr(m, median),
           "merged HTML: SVG charts and the numbers (c-c %s)", median);
  } else {
    TAP_OK(0, "merged: HTML written");
  }
  if (rtest_have_python()) {
    const char *names[] = {"quick.html", "full.html", "merged.html"};
    for (int i = 0; i < 3; i++) {
      json_object *res = rtest_python_check(
          rtest_html_check_py, rtest_in_dir(names[i]), "html-check");
      json_object *errors = json_at(res, "errors");
      TAP_OK(res && errors && json_object_array_length(errors) == 0 &&
                 !json_at(res, "tags.script") && json_at(res, "tags.svg") &&
                 json_at(res, "tags.table"),
             "%s parses: tags balanced, no script, SVG and tables (%s)",
             names[i],
             errors ? json_object_to_json_string(errors) : "no result");
      if (i == 2)
        TAP_OK(res && strstr(json_object_get_string(json_at(res, "text")),
                             "<script>alert(\"m\")</script> & 'q'"),
               "merged HTML: the hostile message reads back as text");
      json_object_put(res);
    }
  } else {
    printf("ok %d - # SKIP python3 not installed: HTML parse check\n",
           ++tap_count);
  }

  /* As many skips as the checks below, so the plan is the same either
   * way. */
  if (!have_chromium()) {
    for (int i = 0; i < 6; i++)
      printf("ok %d - # SKIP %s\n", ++tap_count, CHROMIUM_MISSING);
  } else {
    char shot[1200];
    int rc = chromium(rtest_in_dir("merged.html"), "dump",
                      rtest_in_dir("dom.html"), "dom");
    char *dom = rc == 0 ? rtest_slurp(rtest_in_dir("dom.html"), NULL) : NULL;
    if (TAP_OK(dom && rtest_count(dom, "<svg") >= 6,
               "chromium: the DOM holds the SVG charts (%d <svg>)",
               dom ? rtest_count(dom, "<svg") : -1)) {
      TAP_OK(rtest_count(dom, "<rect") >= 50 && strstr(dom, median),
             "chromium: bars and heat-map cells (%d <rect>), c-c's median "
             "%s",
             rtest_count(dom, "<rect"), median);
      TAP_OK(!strstr(dom, "<script") && strstr(dom, "&lt;script&gt;"),
             "chromium: the hostile lane stayed text");
    } else {
      TAP_OK(0, "chromium: bars and heat-map cells");
      TAP_OK(0, "chromium: the hostile lane stayed text");
    }
    free(dom);
    rc = chromium(rtest_in_dir("quick.html"), "dump",
                  rtest_in_dir("dom-quick.html"), "quick");
    dom = rc == 0 ? rtest_slurp(rtest_in_dir("dom-quick.html"), NULL) : NULL;
    TAP_OK(dom && strstr(dom, "Smoke check: no performance claims") &&
               rtest_count(dom, "<svg") >= 3,
           "chromium: the quick report shows its smoke banner");
    free(dom);
    snprintf(shot, sizeof(shot), "%s/report.png", rtest_outdir);
    remove(shot);
    rc = chromium(rtest_in_dir("merged.html"), "shot", shot, "shot");
    {
      size_t len = 0;
      char *png = rtest_slurp(shot, &len);
      TAP_OK(rc == 0 && png && len > 10000 &&
                 memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0,
             "chromium: a screenshot of the merged report (%zu bytes)", len);
      free(png);
    }
    tap_diag("screenshot: %s", shot);
    {
      /* The browser's helpers end with it; give them a moment. */
      int left = rtest_count_ours();
      for (int waited = 0; left > 0 && waited < 5000; waited += 100) {
        rtest_sleep_ms(100);
        left = rtest_count_ours();
      }
      TAP_EQ_INT(left, 0, "no process of the browser is left running (%d)",
                 left);
      rtest_kill_ours();
    }
  }
  free(q);
  free(f);
  free(m);
}

/* ---- JUnit ---- */

static json_object *case_named(json_object *suite, const char *name)
{
  json_object *cases = json_at(suite, "cases");
  for (size_t i = 0; cases && i < json_object_array_length(cases); i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    if (strcmp(json_object_get_string(json_at(c, "name")), name) == 0)
      return c;
  }
  return NULL;
}

static void test_junit(const char *merged, const char *quick)
{
  char *x = render(merged, "junit.xml", report_junit);
  char *xq = render(quick, "junit-quick.xml", report_junit);
  json_object *res;
  const char *evil_clean = "x<script>alert(1)</script>&\"'-c";

  TAP_OK(
      x && strncmp(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38) == 0 &&
          !has_control(x) && !strstr(x, "<script") &&
          !strstr(x, "\xef\xbf\xbe"),
      "JUnit: an XML declaration, nothing raw from the file");
  if (!rtest_have_python()) {
    printf("ok %d - # SKIP python3 not installed: JUnit parse check\n",
           ++tap_count);
    free(x);
    free(xq);
    return;
  }
  res = rtest_python_check(junit_check_py, rtest_in_dir("junit.xml"),
                           "junit-check");
  if (TAP_OK(res &&
                 strcmp(json_object_get_string(json_at(res, "root")),
                        "testsuites") == 0 &&
                 json_object_array_length(json_at(res, "suites")) == 3,
             "JUnit: a strict parser reads <testsuites> with 3 suites")) {
    static const char *const oses[] = {"linux", "macos", "windows"};
    for (int i = 0; i < 3; i++) {
      json_object *s =
          json_object_array_get_idx(json_at(res, "suites"), (size_t)i);
      char want[64];
      snprintf(want, sizeof(want), "crossrun.%s", oses[i]);
      json_object *cc = case_named(s, "c-c");
      TAP_OK(strcmp(json_object_get_string(json_at(s, "name")), want) == 0 &&
                 json_object_get_int(json_at(s, "tests")) ==
                     (int)json_object_array_length(json_at(s, "cases")) &&
                 json_object_array_length(json_at(s, "cases")) >= 2 && cc &&
                 strcmp(json_object_get_string(json_at(cc, "classname")),
                        want) == 0,
             "JUnit: suite %s, a testcase per lane named by the lane", want);
    }
    json_object *lin =
        case_named(json_object_array_get_idx(json_at(res, "suites"), 0), "c-c");
    TAP_OK(lin && json_at(lin, "failure") == NULL &&
               strstr(json_object_get_string(json_at(lin, "out")),
                      "round 2: the first attempt failed at client: "
                      "timeout_client: deadline passed; the retry passed"),
           "JUnit: a flaky lane passes and says how its first attempt "
           "failed");
    json_object *mac = json_object_array_get_idx(json_at(res, "suites"), 1);
    json_object *rr = case_named(mac, "rust-rust");
    TAP_OK(rr && json_at(rr, "skipped") &&
               strstr(json_object_get_string(json_at(rr, "skipped")),
                      "cargo not found") &&
               json_object_get_int(json_at(mac, "skipped")) >= 1,
           "JUnit: the unavailable lane is skipped, with its reason");
    json_object *win = json_object_array_get_idx(json_at(res, "suites"), 2);
    json_object *evil = case_named(win, evil_clean);
    const char *text =
        evil ? json_object_get_string(json_at(evil, "failure")) : NULL;
    TAP_OK(evil && text && json_object_get_int(json_at(win, "failures")) >= 1,
           "JUnit: the crafted lane, its name read back without control "
           "characters, has a failure");
    TAP_OK(text && strstr(text, "protocol_violation") &&
               strstr(text, "<script>alert(\"m\")</script> & 'q'") &&
               strstr(text, "reproduce: ") &&
               strstr(text, "run --lanes c-c --samples 1"),
           "JUnit: the failure carries the reason, the message and the "
           "reproduce command");
    TAP_OK(text && strstr(text, "\xef\xbf\xbd"),
           "JUnit: bytes that are not UTF-8 became U+FFFD");
  }
  json_object_put(res);
  res = rtest_python_check(junit_check_py, rtest_in_dir("junit-quick.xml"),
                           "junit-check");
  TAP_OK(res && json_object_array_length(json_at(res, "suites")) == 1 &&
             json_object_array_length(json_at(res, "suites.0.cases")) >= 1,
         "JUnit from quick evidence parses: one suite with its lanes");
  json_object_put(res);
  free(x);
  free(xq);
}

int main(void)
{
  struct rtest_evidence e;

  if (rtest_setup(&e, 1) != 0)
    return tap_done();
  emulator = json_str_at(e.full_doc, "machine.emulator");
  if (emulator && !emulator[0])
    emulator = NULL;
  test_model(e.quick, e.full, e.merged, e.full_doc);
  test_markdown(
      e.quick, e.full, e.merged,
      e.full_doc && json_at(e.full_doc, "comparisons")
          ? json_object_object_length(json_at(e.full_doc, "comparisons"))
          : 0);
  test_html(e.quick, e.full, e.merged, e.cc_median);
  test_junit(e.merged, e.quick);
  rtest_teardown(&e);
  return tap_done();
}
