/* The HTML report: one self-contained page. Inline CSS and inline SVG
 * charts, no script, no font or image from anywhere, and a content
 * security policy that forbids loading anything, so the page shows the
 * same offline, in a CI artifact viewer, or with JavaScript off. Every
 * string from the evidence goes through report_xml_text.
 *
 * This file holds the page itself, the helpers its parts share, and the
 * sections that span every platform (time, memory, packages); the charts
 * are in evidence/report_html_chart.c, a platform's own section in
 * evidence/report_html_platform.c. */
#include "evidence/report.h"

#include <stdlib.h>
#include <string.h>

#include "evidence/report_html.h"

static const char *const css =
    ":root{color-scheme:light}"
    "body{margin:0;background:#f6f8fa;color:#1f2328;font:14px/1.45 "
    "system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
    "sans-serif}"
    "main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}"
    "h1{font-size:28px;margin:0 0 2px}"
    "h2{font-size:21px;margin:36px 0 10px;padding-bottom:6px;border-bottom:"
    "1px solid #d0d7de}"
    "h3{font-size:16px;margin:24px 0 8px}"
    "p{margin:6px 0 10px}"
    ".meta{color:#57606a;margin:0 0 14px}"
    ".meta b{color:#1f2328;font-weight:600}"
    ".banner{background:#fff8c5;border:1px solid #d4a72c;border-left:6px "
    "solid #bf8700;border-radius:6px;padding:12px 16px;margin:14px 0}"
    ".banner strong{font-size:16px}"
    ".result{border-radius:6px;padding:10px 16px;margin:14px 0;font-weight:"
    "600}"
    ".result.ok{background:#dafbe1;border:1px solid #4ac26b}"
    ".result.bad{background:#ffebe9;border:1px solid #ff8182}"
    ".card{background:#fff;border:1px solid #d0d7de;border-radius:8px;"
    "padding:14px 16px;margin:12px 0;overflow-x:auto}"
    ".legend{display:flex;gap:18px;flex-wrap:wrap;margin:0 0 6px;color:"
    "#57606a}"
    ".swatch{display:inline-block;width:12px;height:12px;border-radius:3px;"
    "margin-right:6px;vertical-align:-1px}"
    "nav{margin:8px 0 0;color:#57606a}"
    "nav a{color:#0969da;text-decoration:none;margin-right:14px}"
    "table{border-collapse:collapse;margin:8px 0 4px;background:#fff;"
    "font-variant-numeric:tabular-nums}"
    "th,td{border:1px solid #d0d7de;padding:5px 10px;text-align:left;"
    "vertical-align:top}"
    "th{background:#f6f8fa;font-weight:600}"
    "td.n{text-align:right;white-space:nowrap}"
    "code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"
    "monospace;font-size:12.5px}"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;"
    "padding:8px 10px;white-space:pre-wrap;word-break:break-all;margin:6px "
    "0}"
    ".passed{color:#1a7f37;font-weight:600}"
    ".bad{color:#cf222e;font-weight:600}"
    ".muted{color:#57606a}"
    ".two{display:flex;gap:28px;flex-wrap:wrap;align-items:flex-start}"
    ".card.heat{flex:none;margin-top:0}"
    ".side{flex:1 1 320px;min-width:0}"
    ".side h3:first-child{margin-top:0}"
    ".wide{overflow-x:auto}"
    "td.nw{white-space:nowrap}"
    "code.sha{font-size:11px}"
    "ul.fails{padding-left:20px}ul.fails li{margin:8px 0}"
    "svg{display:block;max-width:100%;height:auto}"
    "svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,"
    "sans-serif;font-size:12px;fill:#1f2328}"
    "svg .axis{fill:#57606a;font-size:11px}"
    "svg .grid{stroke:#d8dee4;stroke-width:1}"
    "svg .whisker{stroke:#24292f;stroke-width:1.4}"
    "svg .note{fill:#cf222e;font-style:italic}"
    "svg .cellv{font-size:15px;font-weight:600}"
    "svg .cellr{font-size:11px;fill:#424a53}"
    "footer{margin-top:40px;color:#57606a;font-size:12px}";

void report_html_escape(FILE *f, const char *s)
{
  report_xml_text(f, s, 0);
}

/* At most max characters of s, with an ellipsis when cut. */
void report_html_escape_cut(FILE *f, const char *s, int max)
{
  char buf[512];
  size_t used = 0;
  int chars = 0;
  const char *p = s;

  while (*p && chars < max && used + 4 < sizeof(buf)) {
    uint32_t c;
    int n = report_utf8_next(p, &c);
    memcpy(buf + used, p, (size_t)n);
    used += (size_t)n;
    p += n;
    chars++;
  }
  buf[used] = '\0';
  report_html_escape(f, buf);
  if (*p)
    fputs("\xe2\x80\xa6", f);
}

int report_html_passed(const char *s)
{
  return strcmp(s, "passed") == 0;
}

/* Statuses that are not a failure of the lane itself. */
static int benign_status(const char *s)
{
  return report_html_passed(s) || strcmp(s, "unavailable") == 0 ||
         strcmp(s, "unsupported") == 0 || strcmp(s, "expected_failure") == 0;
}

const char *report_html_platform_color(const struct report *r, int i)
{
  static const char *const palette[] = {"#0969da", "#8250df", "#bc4c00",
                                        "#1a7f37", "#bf3989", "#6e7781",
                                        "#0a8a8a", "#9a6700"};
  const char *os = r->platforms[i].os;
  if (strcmp(os, "linux") == 0)
    return palette[0];
  if (strcmp(os, "macos") == 0)
    return palette[1];
  if (strcmp(os, "windows") == 0)
    return palette[2];
  return palette[(3 + i) % 8];
}

static void legend(FILE *f, const struct report *r, int whiskers)
{
  fputs("<div class=\"legend\">", f);
  for (int i = 0; i < r->nplatforms; i++) {
    fprintf(f,
            "<span><span class=\"swatch\" style=\"background:%s\">"
            "</span>",
            report_html_platform_color(r, i));
    report_html_escape(f, r->platforms[i].os);
    fputs("</span>", f);
  }
  if (!whiskers) {
    fputs("</div>\n", f);
    return;
  }
  fputs("<span><svg width=\"30\" height=\"12\" style=\"display:inline;"
        "vertical-align:-1px\" aria-hidden=\"true\"><line class=\"whisker\" "
        "x1=\"2\" y1=\"6\" x2=\"28\" y2=\"6\"/><line class=\"whisker\" "
        "x1=\"2\" y1=\"2\" x2=\"2\" y2=\"10\"/><line class=\"whisker\" "
        "x1=\"28\" y1=\"2\" x2=\"28\" y2=\"10\"/></svg> min\xe2\x80\x93max "
        "of the samples</span></div>\n",
        f);
}

/* ---- table cells, and the sections that span every platform ---- */

static void figure_td(FILE *f, const struct report_figure *fig,
                      enum report_unit unit)
{
  char buf[128];
  report_format_figure(buf, sizeof(buf), fig, unit);
  fprintf(f, "<td class=\"n\">%s</td>", buf);
}

void report_html_status_span(FILE *f, const char *status)
{
  fprintf(f, "<span class=\"%s\">",
          report_html_passed(status) ? "passed"
          : benign_status(status)    ? "muted"
                                     : "bad");
  report_html_escape(f, status);
  fputs("</span>", f);
}

void report_html_lane_td(FILE *f, const struct report_lane *l)
{
  char buf[128];

  fputs("<td class=\"n\">", f);
  if (l == NULL) {
    fputs("<span class=\"muted\">not in this evidence</span></td>", f);
    return;
  }
  if (!report_html_passed(l->status)) {
    report_html_status_span(f, l->status);
    fprintf(f, " %d/%d%s", l->passed, l->nsamples,
            l->ns_per_rt.n > 0 ? "<br>" : "");
  }
  if (l->ns_per_rt.n > 0) {
    report_format_figure(buf, sizeof(buf), &l->ns_per_rt, REPORT_NS);
    fputs(buf, f);
  }
  fputs("</td>", f);
}

static void time_section(FILE *f, const struct report *r)
{
  const char *const *names = r->lane_names;
  int n = r->nlane_names;
  struct report_html_bar_row *rows =
      calloc(n > 0 ? (size_t)n : 1, sizeof(*rows));

  fputs("<section id=\"time\"><h2>Time per round trip</h2><p>Median "
        "nanoseconds per round trip of each lane (the same number is "
        "milliseconds per million round trips); the whiskers span the "
        "fastest and the slowest passed sample. With many requests in "
        "flight this is throughput, not latency. Lanes are "
        "<i>client-server</i>.</p>\n<div class=\"card\">",
        f);
  legend(f, r, 1);
  if (rows != NULL) {
    for (int i = 0; i < n; i++) {
      rows[i].label = names[i];
      for (int p = 0; p < r->nplatforms; p++) {
        const struct report_lane *l =
            report_find_lane(&r->platforms[p], names[i]);
        rows[i].bars[p].fig = l ? &l->ns_per_rt : NULL;
        rows[i].bars[p].note = l ? l->status : "not in this evidence";
      }
    }
    report_html_bar_chart(f, r, "median ns per round trip by lane and platform",
                          rows, n, REPORT_NS,
                          "ns per round trip (median, min\xe2\x80\x93max)");
    free(rows);
  }
  fputs("</div>\n<table><tr><th>lane</th>", f);
  for (int p = 0; p < r->nplatforms; p++) {
    fputs("<th>", f);
    report_html_escape(f, r->platforms[p].os);
    fputs(" ns [min\xe2\x80\x93max]</th>", f);
  }
  fputs("</tr>\n", f);
  for (int i = 0; i < n; i++) {
    fputs("<tr><th>", f);
    report_html_escape(f, names[i]);
    fputs("</th>", f);
    for (int p = 0; p < r->nplatforms; p++)
      report_html_lane_td(f, report_find_lane(&r->platforms[p], names[i]));
    fputs("</tr>\n", f);
  }
  fputs("</table></section>\n", f);
}

static void memory_section(FILE *f, const struct report *r)
{
  const char *rts[REPORT_MAX_MATRIX];
  int n = 0;
  struct report_html_bar_row rows[2 * REPORT_MAX_MATRIX];

  for (int p = 0; p < r->nplatforms; p++)
    for (int i = 0; i < r->platforms[p].nlanes; i++) {
      const struct report_lane *l = &r->platforms[p].lanes[i];
      int seen = 0;
      if (strcmp(l->client, l->server) != 0 || n >= REPORT_MAX_MATRIX)
        continue;
      for (int k = 0; k < n && !seen; k++)
        seen = strcmp(rts[k], l->client) == 0;
      if (!seen)
        rts[n++] = l->client;
    }
  if (n == 0)
    return;
  memset(rows, 0, sizeof(rows));
  for (int k = 0; k < n; k++) {
    for (int side = 0; side < 2; side++) {
      struct report_html_bar_row *row = &rows[2 * k + side];
      row->label = rts[k];
      row->detail = side ? "server" : "client";
      for (int p = 0; p < r->nplatforms; p++) {
        const struct report_lane *l =
            report_lane_of(&r->platforms[p], rts[k], rts[k]);
        row->bars[p].fig = l ? side ? &l->server_rss : &l->client_rss : NULL;
        row->bars[p].note = l ? l->status : "not in this evidence";
      }
    }
  }
  fputs("<section id=\"memory\"><h2>Memory of same-runtime lanes</h2><p>"
        "Peak resident memory of each peer as the operating system reports "
        "it, median over the passed samples, when a runtime's client talks "
        "to its own server.</p>\n<div class=\"card\">",
        f);
  legend(f, r, 1);
  report_html_bar_chart(f, r, "peak RSS of same-runtime lanes", rows, 2 * n,
                        REPORT_BYTES, "peak RSS (median, min\xe2\x80\x93max)");
  fputs("</div>\n<table><tr><th>platform</th><th>runtime</th><th>client "
        "peak RSS</th><th>server peak RSS</th><th>client CPU</th><th>server "
        "CPU</th></tr>\n",
        f);
  for (int p = 0; p < r->nplatforms; p++) {
    for (int k = 0; k < n; k++) {
      const struct report_lane *l =
          report_lane_of(&r->platforms[p], rts[k], rts[k]);
      if (l == NULL)
        continue;
      fputs("<tr><td>", f);
      report_html_escape(f, r->platforms[p].os);
      fputs("</td><th>", f);
      report_html_escape(f, rts[k]);
      fputs("</th>", f);
      figure_td(f, &l->client_rss, REPORT_BYTES);
      figure_td(f, &l->server_rss, REPORT_BYTES);
      figure_td(f, &l->client_cpu, REPORT_CPU_NS);
      figure_td(f, &l->server_cpu, REPORT_CPU_NS);
      fputs("</tr>\n", f);
    }
  }
  fputs("</table></section>\n", f);
}

static void package_section(FILE *f, const struct report *r)
{
  const char *rts[REPORT_MAX_MATRIX];
  int n = 0;
  struct report_html_bar_row rows[2 * REPORT_MAX_MATRIX];
  struct report_figure figs[2 * REPORT_MAX_MATRIX][REPORT_MAX_PLATFORMS];

  for (int p = 0; p < r->nplatforms; p++)
    for (int i = 0; i < r->platforms[p].nruntimes; i++) {
      const struct report_runtime *rt = &r->platforms[p].runtimes[i];
      int seen = 0;
      if (!rt->package.present || n >= REPORT_MAX_MATRIX)
        continue;
      for (int k = 0; k < n && !seen; k++)
        seen = strcmp(rts[k], rt->name) == 0;
      if (!seen)
        rts[n++] = rt->name;
    }
  if (n == 0)
    return;
  memset(rows, 0, sizeof(rows));
  memset(figs, 0, sizeof(figs));
  for (int k = 0; k < n; k++) {
    for (int side = 0; side < 2; side++) {
      struct report_html_bar_row *row = &rows[2 * k + side];
      row->label = rts[k];
      row->detail = side ? "unpacked" : "packed";
      for (int p = 0; p < r->nplatforms; p++) {
        const struct report_package *pk =
            report_package_of(&r->platforms[p], rts[k]);
        int64_t v = pk == NULL      ? -1
                    : !pk->measured ? -1
                    : side          ? pk->unpacked_bytes
                                    : pk->packed_bytes;
        row->bars[p].note = pk == NULL ? "no package" : "not measured";
        if (v < 0)
          continue;
        figs[2 * k + side][p] =
            (struct report_figure){1, 0, (double)v, (double)v, (double)v};
        row->bars[p].fig = &figs[2 * k + side][p];
      }
    }
  }
  fputs("<section id=\"packages\"><h2>Packages</h2><p>The artifact each "
        "runtime ships: its size packed and unpacked.</p>\n"
        "<div class=\"card\">",
        f);
  legend(f, r, 0);
  report_html_bar_chart(f, r, "package sizes", rows, 2 * n, REPORT_BYTES,
                        "bytes");
  fputs("</div>\n<div class=\"wide\"><table><tr><th>platform</th><th>"
        "runtime</th><th>artifact and its SHA-256</th><th>packed</th><th>"
        "unpacked</th><th>files</th><th>reproducible</th></tr>\n",
        f);
  for (int p = 0; p < r->nplatforms; p++) {
    for (int i = 0; i < r->platforms[p].nruntimes; i++) {
      const struct report_runtime *rt = &r->platforms[p].runtimes[i];
      const struct report_package *pk = &rt->package;
      char a[32], b[32];
      if (!pk->present)
        continue;
      fputs("<tr><td>", f);
      report_html_escape(f, r->platforms[p].os);
      fputs("</td><th>", f);
      report_html_escape(f, rt->name);
      fputs("</th>", f);
      if (!pk->measured) {
        fputs("<td colspan=\"5\" class=\"muted\">not measured: ", f);
        report_html_escape(f, pk->error ? pk->error : "no artifact");
        fputs("</td></tr>\n", f);
        continue;
      }
      report_format_value(a, sizeof(a), (double)pk->packed_bytes, REPORT_BYTES);
      report_format_value(b, sizeof(b), (double)pk->unpacked_bytes,
                          REPORT_BYTES);
      fputs("<td class=\"nw\">", f);
      report_html_escape(f, pk->file_name);
      fputs("<br><code class=\"sha\">", f);
      report_html_escape(f, pk->sha256 ? pk->sha256 : "-");
      fprintf(f,
              "</code></td><td class=\"n\">%s</td><td class=\"n\">%s"
              "</td><td class=\"n\">%d</td><td>%s</td></tr>\n",
              pk->packed_bytes >= 0 ? a : "-",
              pk->unpacked_bytes >= 0 ? b : "-", pk->file_count,
              pk->reproducible < 0 ? "unknown"
              : pk->reproducible   ? "<span class=\"passed\">yes</span>"
                                   : "<span class=\"bad\">no</span>: a "
                                     "second pack differs");
    }
  }
  fputs("</table></div></section>\n", f);
}

static int has_memory(const struct report *r)
{
  for (int p = 0; p < r->nplatforms; p++)
    for (int i = 0; i < r->platforms[p].nlanes; i++)
      if (strcmp(r->platforms[p].lanes[i].client,
                 r->platforms[p].lanes[i].server) == 0)
        return 1;
  return 0;
}

static int has_packages(const struct report *r)
{
  for (int p = 0; p < r->nplatforms; p++)
    for (int i = 0; i < r->platforms[p].nruntimes; i++)
      if (r->platforms[p].runtimes[i].package.present)
        return 1;
  return 0;
}

static void header(FILE *f, const struct report *r)
{
  int runs = 0, bad = 0;

  fputs("<header><h1>crossrun report</h1><p class=\"meta\">", f);
  fputs("mode <b>", f);
  report_html_escape(f, r->mode);
  fputs("</b> \xc2\xb7 ", f);
  fputs(r->official ? "<b>official record</b>" : "not an official record", f);
  if (r->commit) {
    fputs(" \xc2\xb7 commit <code>", f);
    report_html_escape(f, r->commit);
    fputs("</code>", f);
  }
  if (r->tool_version) {
    fputs(" \xc2\xb7 crossrun ", f);
    report_html_escape(f, r->tool_version);
  }
  fputs(" \xc2\xb7 from <code>", f);
  report_html_escape(f, r->source);
  fputs("</code></p>\n", f);
  if (!r->performance_claims)
    fputs("<div class=\"banner\" role=\"note\"><strong>Smoke check: no "
          "performance claims.</strong><br>This evidence comes from a quick "
          "run: its workload is too small for its timings to mean anything. "
          "They only show that each lane ran; no comparisons or ratios are "
          "made from them.</div>\n",
          f);
  for (int p = 0; p < r->nplatforms; p++)
    for (int l = 0; l < r->platforms[p].nlanes; l++) {
      runs++;
      bad += !benign_status(r->platforms[p].lanes[l].status);
    }
  if (bad == 0)
    fprintf(f,
            "<div class=\"result ok\">Every lane that ran passed: %d "
            "lane%s on %d platform%s.</div>\n",
            runs, runs == 1 ? "" : "s", r->nplatforms,
            r->nplatforms == 1 ? "" : "s");
  else
    fprintf(f,
            "<div class=\"result bad\">%d of %d lane%s did not pass; "
            "see the failures under each platform.</div>\n",
            bad, runs, runs == 1 ? "" : "s");
  fputs("<nav><a href=\"#time\">time</a>", f);
  if (has_memory(r))
    fputs("<a href=\"#memory\">memory</a>", f);
  if (has_packages(r))
    fputs("<a href=\"#packages\">packages</a>", f);
  for (int p = 0; p < r->nplatforms; p++) {
    fprintf(f, "<a href=\"#p%d\">", p);
    report_html_escape(f, r->platforms[p].os);
    fputs("</a>", f);
  }
  fputs("</nav></header>\n", f);
}

int report_html(const struct report *r, FILE *f)
{
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale="
        "1\"><meta http-equiv=\"Content-Security-Policy\" content=\""
        "default-src 'none'; style-src 'unsafe-inline'\"><title>crossrun "
        "report: ",
        f);
  report_html_escape(f, r->mode);
  fprintf(f, "</title><style>%s</style></head>\n<body><main>\n", css);
  header(f, r);
  time_section(f, r);
  memory_section(f, r);
  package_section(f, r);
  for (int i = 0; i < r->nplatforms; i++)
    report_html_platform_section(f, r, i);
  fputs("<footer>Made by <code>crossrun report</code> from the evidence "
        "file alone. Figures are medians over the passed samples with "
        "[min\xe2\x80\x93max].</footer>\n</main></body></html>\n",
        f);
  fflush(f);
  return ferror(f) ? -1 : 0;
}
