/* The HTML report: one self-contained page. Inline CSS and inline SVG
 * charts, no script, no font or image from anywhere, and a content
 * security policy that forbids loading anything, so the page shows the
 * same offline, in a CI artifact viewer, or with JavaScript off. Every
 * string from the evidence goes through report_xml_text. */
#include "evidence/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 960
#define LABEL_W 190
#define VALUE_W 120
#define BAR_H 16
#define BAR_GAP 3
#define GROUP_GAP 14
#define CHART_TOP 26
#define CHART_BOTTOM 34

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

static void h(FILE *f, const char *s)
{
  report_xml_text(f, s, 0);
}

/* At most max characters of s, with an ellipsis when cut. */
static void h_cut(FILE *f, const char *s, int max)
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
  h(f, buf);
  if (*p)
    fputs("\xe2\x80\xa6", f);
}

static int passed_status(const char *s)
{
  return strcmp(s, "passed") == 0;
}

/* Statuses that are not a failure of the lane itself. */
static int benign_status(const char *s)
{
  return passed_status(s) || strcmp(s, "unavailable") == 0 ||
         strcmp(s, "unsupported") == 0 || strcmp(s, "expected_failure") == 0;
}

static const char *platform_color(const struct report *r, int i)
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
            platform_color(r, i));
    h(f, r->platforms[i].os);
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

/* ---- horizontal bars, one per platform, grouped in rows ---- */

struct bar {
  const struct report_figure *fig; /* NULL or n == 0: no bar */
  const char *note;                /* shown instead of a missing bar */
};

struct bar_row {
  const char *label;
  const char *detail; /* second word of the label, may be NULL */
  struct bar bars[REPORT_MAX_PLATFORMS];
};

/* A step of 1, 2, 2.5 or 5 times a power of ten giving about five ticks
 * up to max. */
static double nice_step(double max)
{
  double raw = max / 5, mag, norm;

  if (!(raw > 0))
    return 1;
  mag = pow(10, floor(log10(raw)));
  norm = raw / mag;
  return mag * (norm <= 1     ? 1
                : norm <= 2   ? 2
                : norm <= 2.5 ? 2.5
                : norm <= 5   ? 5
                              : 10);
}

static void bar_chart(FILE *f, const struct report *r, const char *title,
                      const struct bar_row *rows, int nrows,
                      enum report_unit unit, const char *axis)
{
  int np = r->nplatforms;
  int group_h = np * BAR_H + (np - 1) * BAR_GAP;
  int height = CHART_TOP + nrows * (group_h + GROUP_GAP) + CHART_BOTTOM;
  double top = 0, step, span, divisor = 1, x0 = LABEL_W;
  double width = CHART_W - LABEL_W - VALUE_W;
  const char *tick_unit = "";

  for (int i = 0; i < nrows; i++)
    for (int p = 0; p < np; p++)
      if (rows[i].bars[p].fig && rows[i].bars[p].fig->n > 0)
        top = fmax(top,
                   fmax(rows[i].bars[p].fig->max, rows[i].bars[p].fig->median));
  if (unit == REPORT_BYTES) {
    divisor = top >= 1048576 ? 1048576 : 1024;
    tick_unit = top >= 1048576 ? " MiB" : " KiB";
  }
  step = nice_step(top / divisor);
  span = step * ceil(top / divisor / step);
  if (!(span > 0))
    span = step;

  fprintf(f,
          "<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
          "role=\"img\" aria-label=\"",
          CHART_W, height, CHART_W, height);
  h(f, title);
  fputs("\"><title>", f);
  h(f, title);
  fputs("</title>\n", f);
  for (double t = 0; t <= span + step / 2; t += step) {
    double x = x0 + width * t / span;
    fprintf(f,
            "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
            "y2=\"%d\"/><text class=\"axis\" x=\"%.1f\" y=\"%d\" "
            "text-anchor=\"middle\">%g%s</text>\n",
            x, CHART_TOP - 6, x, height - CHART_BOTTOM + 4, x, CHART_TOP - 10,
            t, t > 0 && t + step > span + step / 2 ? tick_unit : "");
  }
  fprintf(f,
          "<text class=\"axis\" x=\"%.1f\" y=\"%d\" "
          "text-anchor=\"middle\">",
          x0 + width / 2, height - 8);
  h(f, axis);
  fputs("</text>\n", f);
  for (int i = 0; i < nrows; i++) {
    int gy = CHART_TOP + i * (group_h + GROUP_GAP) + GROUP_GAP / 2;
    /* A label and its detail on two lines when the group is tall enough,
     * else on one. */
    int two_lines = rows[i].detail && group_h >= 2 * BAR_H;
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">"
            "<tspan font-weight=\"600\">",
            LABEL_W - 10, gy + group_h / 2 + (two_lines ? -2 : 4));
    h_cut(f, rows[i].label, 22);
    fputs("</tspan>", f);
    if (rows[i].detail && !two_lines) {
      fputs(" <tspan class=\"axis\">", f);
      h_cut(f, rows[i].detail, 12);
      fputs("</tspan>", f);
    }
    fputs("</text>", f);
    if (two_lines) {
      fprintf(f,
              "<text class=\"axis\" x=\"%d\" y=\"%d\" "
              "text-anchor=\"end\">",
              LABEL_W - 10, gy + group_h / 2 + 11);
      h_cut(f, rows[i].detail, 28);
      fputs("</text>", f);
    }
    fputs("\n", f);
    for (int p = 0; p < np; p++) {
      const struct report_figure *fig = rows[i].bars[p].fig;
      int y = gy + p * (BAR_H + BAR_GAP);
      double cy = y + BAR_H / 2.0, xm, xl, xh;
      char value[64], range[128];

      if (fig == NULL || fig->n == 0) {
        fprintf(f, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\">", x0 + 6,
                cy + 4);
        h(f, np > 1 ? r->platforms[p].os : "");
        fputs(np > 1 ? ": " : "", f);
        h(f, rows[i].bars[p].note ? rows[i].bars[p].note : "not measured");
        fputs("</text>\n", f);
        continue;
      }
      xm = x0 + width * (fig->median / divisor) / span;
      xl = x0 + width * (fig->min / divisor) / span;
      xh = x0 + width * (fig->max / divisor) / span;
      report_format_value(value, sizeof(value), fig->median, unit);
      report_format_figure(range, sizeof(range), fig, unit);
      fprintf(f,
              "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
              "rx=\"2\" fill=\"%s\"><title>",
              x0, y, fmax(xm - x0, 1), BAR_H, platform_color(r, p));
      h(f, rows[i].label);
      fputs(rows[i].detail ? " " : "", f);
      h(f, rows[i].detail);
      fputs(", ", f);
      h(f, r->platforms[p].os);
      fprintf(f, ": %s</title></rect>", range);
      if (fig->have_range && fig->max > fig->min)
        fprintf(f,
                "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" "
                "x2=\"%.1f\" y2=\"%.1f\"/><line class=\"whisker\" "
                "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" "
                "x2=\"%.1f\" y2=\"%.1f\"/>",
                xl, cy, xh, cy, xl, cy - 5, xl, cy + 5, xh, cy - 5, xh, cy + 5);
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", fmax(xm, xh) + 6,
              cy + 4, value);
    }
  }
  fputs("</svg>\n", f);
}

/* ---- heat map: client x server ---- */

#define CELL_W 128
#define CELL_H 58
#define HEAT_LEFT 110
#define HEAT_TOP 52

/* Green (fast) through yellow to red (slow), t in [0, 1]. */
static void heat_color(char *out, size_t len, double t)
{
  static const int stops[3][3] = {
      {0xab, 0xe3, 0xbb}, {0xff, 0xe5, 0x8f}, {0xf7, 0xa1, 0x9a}};
  int lo = t < 0.5 ? 0 : 1;
  double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
  int c[3];

  for (int i = 0; i < 3; i++)
    c[i] = (int)lround(stops[lo][i] + (stops[lo + 1][i] - stops[lo][i]) * u);
  snprintf(out, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static void heat_map(FILE *f, const struct report_platform *p, int pos)
{
  const char *const *rts = p->pair_runtimes;
  int n = p->npair_runtimes < REPORT_MAX_MATRIX ? p->npair_runtimes
                                                : REPORT_MAX_MATRIX;
  double lo = 0, hi = 0;
  int any = 0, width, height;

  if (n == 0)
    return;
  for (int i = 0; i < p->nlanes; i++) {
    const struct report_figure *fig = &p->lanes[i].ns_per_rt;
    if (fig->n == 0 || !(fig->median > 0))
      continue;
    lo = any ? fmin(lo, fig->median) : fig->median;
    hi = any ? fmax(hi, fig->median) : fig->median;
    any = 1;
  }
  width = HEAT_LEFT + n * CELL_W + 10;
  height = HEAT_TOP + n * CELL_H + 56;
  fprintf(f,
          "<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
          "role=\"img\" aria-label=\"client by server heat map\"><title>"
          "median ns per round trip, client by server, ",
          width, height, width, height);
  h(f, p->os);
  fprintf(f,
          "</title>\n<text class=\"axis\" x=\"%d\" y=\"16\" "
          "text-anchor=\"middle\">server \xe2\x86\x92</text><text "
          "class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\">client "
          "\xe2\x86\x93</text>\n",
          HEAT_LEFT + n * CELL_W / 2, HEAT_LEFT - 12, HEAT_TOP - 8);
  for (int s = 0; s < n; s++) {
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
            "font-weight=\"600\">",
            HEAT_LEFT + s * CELL_W + CELL_W / 2, HEAT_TOP - 10);
    h_cut(f, rts[s], 16);
    fputs("</text>\n", f);
  }
  for (int c = 0; c < n; c++) {
    int y = HEAT_TOP + c * CELL_H;
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
            "font-weight=\"600\">",
            HEAT_LEFT - 12, y + CELL_H / 2 + 4);
    h_cut(f, rts[c], 14);
    fputs("</text>\n", f);
    for (int s = 0; s < n; s++) {
      const struct report_lane *l = report_lane_of(p, rts[c], rts[s]);
      int x = HEAT_LEFT + s * CELL_W, cx = x + CELL_W / 2;
      char color[16] = "#ffffff", value[64], range[64], full[128];
      const struct report_figure *fig = l ? &l->ns_per_rt : NULL;

      if (fig && fig->n > 0 && fig->median > 0) {
        double t =
            hi > lo ? (log(fig->median) - log(lo)) / (log(hi) - log(lo)) : 0;
        heat_color(color, sizeof(color), t);
      } else if (l) {
        snprintf(color, sizeof(color), "#eaeef2");
      }
      fprintf(f,
              "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
              "rx=\"5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"2\">"
              "<title>",
              x + 2, y + 2, CELL_W - 4, CELL_H - 4, color,
              l ? "#ffffff" : "#d0d7de");
      h(f, rts[c]);
      fputs(" client, ", f);
      h(f, rts[s]);
      fputs(" server: ", f);
      if (l) {
        report_format_figure(full, sizeof(full), fig, REPORT_NS);
        h(f, l->status);
        fprintf(f, ", %s ns per round trip", full);
      } else {
        fputs("no such lane", f);
      }
      fputs("</title></rect>\n", f);
      if (l == NULL)
        continue;
      if (fig->n > 0) {
        report_format_value(value, sizeof(value), fig->median, REPORT_NS);
        report_format_figure(full, sizeof(full), fig, REPORT_NS);
        /* the bracketed part of "288.8 [280.1–300.2]" */
        snprintf(range, sizeof(range), "%s",
                 strchr(full, '[') ? strchr(full, '[') : "");
        int ok = passed_status(l->status);
        fprintf(f,
                "<text class=\"cellv\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text>",
                cx, y + CELL_H / 2 + (ok ? 2 : -6), value);
        fprintf(f,
                "<text class=\"cellr\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text>\n",
                cx, y + CELL_H / 2 + (ok ? 17 : 8), range);
      }
      if (!passed_status(l->status)) {
        fprintf(f,
                "<text class=\"note\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">",
                cx, fig->n > 0 ? y + CELL_H - 6 : y + CELL_H / 2 + 4);
        h_cut(f, l->status, 18);
        fputs("</text>\n", f);
      }
    }
  }
  if (any) {
    int ly = HEAT_TOP + n * CELL_H + 18, lw = n * CELL_W - 4;
    char a[64], b[64], stop[16];
    fprintf(f, "<defs><linearGradient id=\"heat-%d\">", pos);
    for (int i = 0; i <= 4; i++) {
      heat_color(stop, sizeof(stop), i / 4.0);
      fprintf(f, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", i * 25, stop);
    }
    report_format_value(a, sizeof(a), lo, REPORT_NS);
    report_format_value(b, sizeof(b), hi, REPORT_NS);
    fprintf(f,
            "</linearGradient></defs><rect x=\"%d\" y=\"%d\" "
            "width=\"%d\" height=\"10\" rx=\"3\" "
            "fill=\"url(#heat-%d)\"/><text class=\"axis\" x=\"%d\" "
            "y=\"%d\">%s ns (fastest)</text><text class=\"axis\" "
            "x=\"%d\" y=\"%d\" text-anchor=\"end\">%s ns (slowest, log "
            "scale)</text>\n",
            HEAT_LEFT + 2, ly, lw, pos, HEAT_LEFT + 2, ly + 24, a,
            HEAT_LEFT + 2 + lw, ly + 24, b);
  }
  fputs("</svg>\n", f);
}

/* ---- tables ---- */

static void figure_td(FILE *f, const struct report_figure *fig,
                      enum report_unit unit)
{
  char buf[128];
  report_format_figure(buf, sizeof(buf), fig, unit);
  fprintf(f, "<td class=\"n\">%s</td>", buf);
}

static void status_span(FILE *f, const char *status)
{
  fprintf(f, "<span class=\"%s\">",
          passed_status(status)   ? "passed"
          : benign_status(status) ? "muted"
                                  : "bad");
  h(f, status);
  fputs("</span>", f);
}

static void lane_td(FILE *f, const struct report_lane *l)
{
  char buf[128];

  fputs("<td class=\"n\">", f);
  if (l == NULL) {
    fputs("<span class=\"muted\">not in this evidence</span></td>", f);
    return;
  }
  if (!passed_status(l->status)) {
    status_span(f, l->status);
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
  struct bar_row *rows = calloc(n > 0 ? (size_t)n : 1, sizeof(*rows));

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
    bar_chart(f, r, "median ns per round trip by lane and platform", rows, n,
              REPORT_NS, "ns per round trip (median, min\xe2\x80\x93max)");
    free(rows);
  }
  fputs("</div>\n<table><tr><th>lane</th>", f);
  for (int p = 0; p < r->nplatforms; p++) {
    fputs("<th>", f);
    h(f, r->platforms[p].os);
    fputs(" ns [min\xe2\x80\x93max]</th>", f);
  }
  fputs("</tr>\n", f);
  for (int i = 0; i < n; i++) {
    fputs("<tr><th>", f);
    h(f, names[i]);
    fputs("</th>", f);
    for (int p = 0; p < r->nplatforms; p++)
      lane_td(f, report_find_lane(&r->platforms[p], names[i]));
    fputs("</tr>\n", f);
  }
  fputs("</table></section>\n", f);
}

static void memory_section(FILE *f, const struct report *r)
{
  const char *rts[REPORT_MAX_MATRIX];
  int n = 0;
  struct bar_row rows[2 * REPORT_MAX_MATRIX];

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
      struct bar_row *row = &rows[2 * k + side];
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
  bar_chart(f, r, "peak RSS of same-runtime lanes", rows, 2 * n, REPORT_BYTES,
            "peak RSS (median, min\xe2\x80\x93max)");
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
      h(f, r->platforms[p].os);
      fputs("</td><th>", f);
      h(f, rts[k]);
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
  struct bar_row rows[2 * REPORT_MAX_MATRIX];
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
      struct bar_row *row = &rows[2 * k + side];
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
  bar_chart(f, r, "package sizes", rows, 2 * n, REPORT_BYTES, "bytes");
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
      h(f, r->platforms[p].os);
      fputs("</td><th>", f);
      h(f, rt->name);
      fputs("</th>", f);
      if (!pk->measured) {
        fputs("<td colspan=\"5\" class=\"muted\">not measured: ", f);
        h(f, pk->error ? pk->error : "no artifact");
        fputs("</td></tr>\n", f);
        continue;
      }
      report_format_value(a, sizeof(a), (double)pk->packed_bytes, REPORT_BYTES);
      report_format_value(b, sizeof(b), (double)pk->unpacked_bytes,
                          REPORT_BYTES);
      fputs("<td class=\"nw\">", f);
      h(f, pk->file_name);
      fputs("<br><code class=\"sha\">", f);
      h(f, pk->sha256 ? pk->sha256 : "-");
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

static void matrix_table(FILE *f, const struct report_platform *p)
{
  const char *const *rts = p->pair_runtimes;
  int n = p->npair_runtimes < REPORT_MAX_MATRIX ? p->npair_runtimes
                                                : REPORT_MAX_MATRIX;

  fputs("<table><tr><th>client \\ server</th>", f);
  for (int s = 0; s < n; s++) {
    fputs("<th>", f);
    h(f, rts[s]);
    fputs("</th>", f);
  }
  fputs("</tr>\n", f);
  for (int c = 0; c < n; c++) {
    fputs("<tr><th>", f);
    h(f, rts[c]);
    fputs("</th>", f);
    for (int s = 0; s < n; s++) {
      const struct report_lane *l = report_lane_of(p, rts[c], rts[s]);
      if (l)
        lane_td(f, l);
      else
        fputs("<td></td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void failures(FILE *f, const struct report_platform *p)
{
  int header = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    const char *why = l->error_reason ? l->error_reason : l->unavailable_reason;
    int bad = why != NULL;
    for (int s = 0; s < l->nsamples; s++)
      bad |= !passed_status(l->samples[s].status) || l->samples[s].retried;
    if (!bad)
      continue;
    if (!header++)
      fputs("<h3>Failures and lanes not run</h3><ul class=\"fails\">\n", f);
    fputs("<li><b>", f);
    h(f, l->name);
    fputs("</b>: ", f);
    status_span(f, l->status);
    if (why) {
      fputs(": ", f);
      h(f, why);
    }
    for (int s = 0; s < l->nsamples; s++) {
      const struct report_sample *sm = &l->samples[s];
      if (passed_status(sm->status) && sm->retried) {
        fprintf(f,
                "<br>round %d: passed on a retry; the first attempt "
                "failed",
                sm->round);
        if (sm->first_stage) {
          fputs(" at ", f);
          h(f, sm->first_stage);
        }
        if (sm->first_reason) {
          fputs(": <b>", f);
          h(f, sm->first_reason);
          fputs("</b>", f);
        }
        if (sm->first_message) {
          fputs(": ", f);
          h(f, sm->first_message);
        }
        continue;
      }
      if (passed_status(sm->status))
        continue;
      fprintf(f, "<br>round %d: ", sm->round);
      h(f, sm->status);
      if (sm->stage) {
        fputs(" at ", f);
        h(f, sm->stage);
      }
      if (sm->reason) {
        fputs(": <b>", f);
        h(f, sm->reason);
        fputs("</b>", f);
      }
      if (sm->message) {
        fputs(": ", f);
        h(f, sm->message);
      }
      if (sm->reproduce) {
        fputs("<pre>", f);
        report_xml_text(f, sm->reproduce, 1);
        fputs("</pre>", f);
      }
      if (sm->server_stderr || sm->client_stderr) {
        fputs("<details><summary>stderr</summary>", f);
        if (sm->server_stderr) {
          fputs("<div class=\"muted\">server</div><pre>", f);
          report_xml_text(f, sm->server_stderr, 1);
          fputs("</pre>", f);
        }
        if (sm->client_stderr) {
          fputs("<div class=\"muted\">client</div><pre>", f);
          report_xml_text(f, sm->client_stderr, 1);
          fputs("</pre>", f);
        }
        fputs("</details>", f);
      }
    }
    fputs("</li>\n", f);
  }
  if (header)
    fputs("</ul>\n", f);
}

static void row(FILE *f, const char *key, const char *value)
{
  if (value == NULL)
    return;
  fprintf(f, "<tr><th>%s</th><td>", key);
  h(f, value);
  fputs("</td></tr>\n", f);
}

static void machine_table(FILE *f, const struct report_platform *p)
{
  char buf[512];

  fputs("<div><h3>Machine</h3><table>\n", f);
  row(f, "system", p->os);
  row(f, "arch", p->machine.arch);
  row(f, "kernel", p->machine.kernel);
  row(f, "CPU", p->machine.cpu_model);
  if (p->machine.logical_cpus > 0) {
    snprintf(buf, sizeof(buf), "%d", p->machine.logical_cpus);
    row(f, "logical CPUs", buf);
  }
  if (p->machine.memory_bytes >= 0) {
    report_format_value(buf, sizeof(buf), (double)p->machine.memory_bytes,
                        REPORT_BYTES);
    row(f, "memory", buf);
  }
  snprintf(buf, sizeof(buf), "%s%s%s", p->mode,
           p->performance_claims ? "" : " (smoke check)",
           p->official ? ", official" : "");
  row(f, "mode", buf);
  if (p->workload.round_trips >= 0) {
    snprintf(buf, sizeof(buf),
             "%d sample%s per lane, %lld + %lld round "
             "trips, %lld-byte payloads, %lld in flight",
             p->workload.samples_per_lane,
             p->workload.samples_per_lane == 1 ? "" : "s",
             (long long)p->workload.warmup_round_trips,
             (long long)p->workload.round_trips,
             (long long)p->workload.payload_bytes,
             (long long)p->workload.max_in_flight);
    row(f, "workload", buf);
  }
  row(f, "started", p->started_at);
  row(f, "commit", p->provenance.commit);
  row(f, "branch", p->provenance.branch);
  if (p->provenance.ci_provider) {
    snprintf(buf, sizeof(buf), "%s%s%s%s%s", p->provenance.ci_provider,
             p->provenance.ci_workflow ? ", " : "",
             p->provenance.ci_workflow ? p->provenance.ci_workflow : "",
             p->provenance.ci_run_id ? ", run " : "",
             p->provenance.ci_run_id ? p->provenance.ci_run_id : "");
    row(f, "CI", buf);
  }
  if (p->shard_count > 0) {
    snprintf(buf, sizeof(buf), "%d of %d", p->shard_index, p->shard_count);
    row(f, "shard", buf);
  }
  if (!p->complete)
    row(f, "incomplete",
        p->incomplete_reason ? p->incomplete_reason : "interrupted");
  fputs("</table></div>\n", f);
  if (p->nruntimes == 0)
    return;
  fputs("<div><h3>Toolchains</h3><table><tr><th>runtime</th><th>toolchain"
        "</th><th>status</th></tr>\n",
        f);
  for (int i = 0; i < p->nruntimes; i++) {
    const struct report_runtime *rt = &p->runtimes[i];
    fputs("<tr><th>", f);
    h(f, rt->name);
    fputs("</th><td>", f);
    h(f, rt->toolchain_version ? rt->toolchain_version : "-");
    fputs("</td><td>", f);
    if (rt->status) {
      fprintf(f, "<span class=\"%s\">",
              strcmp(rt->status, "available") == 0 ? "passed" : "bad");
      h(f, rt->status);
      fputs("</span>", f);
    }
    if (rt->reason) {
      fputs(": ", f);
      h(f, rt->reason);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</table></div>\n", f);
}

static void cleanliness(FILE *f, const struct report_platform *p)
{
  const struct report_cleanliness *c = &p->cleanliness;
  int dirty;

  if (!c->present)
    return;
  dirty = c->processes_left || c->sockets_left || c->forced_terminations ||
          c->temp_entries_left;
  fprintf(f,
          "<h3>Cleanliness</h3><table><tr><th>pairs started</th><th>"
          "natural exits</th><th>processes left</th><th>sockets left"
          "</th><th>forced terminations</th><th>temp entries left</th>"
          "</tr><tr><td class=\"n\">%d</td><td class=\"n\">%d</td><td "
          "class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d"
          "</td><td class=\"n\">%d</td></tr></table><p class=\"%s\">%s"
          "</p>\n",
          c->pairs_started, c->natural_exits, c->processes_left,
          c->sockets_left, c->forced_terminations, c->temp_entries_left,
          dirty ? "bad" : "muted",
          dirty ? "Not clean: every count but the first two must be 0."
                : "Clean: nothing left behind.");
}

static void comparisons(FILE *f, const struct report_platform *p)
{
  int unstable = 0;

  if (!p->performance_claims)
    return;
  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    if (l->stable != 0)
      continue;
    if (!unstable++)
      fputs("<h3>Stability</h3><p>Lanes whose samples disagree; compare "
            "them with care.</p><ul>\n",
            f);
    fputs("<li><b>", f);
    h(f, l->name);
    fputs("</b>: ", f);
    h(f, l->unstable_reasons ? l->unstable_reasons : "not stable");
    fputs("</li>\n", f);
  }
  if (unstable)
    fputs("</ul>\n", f);
  if (p->ncomparisons == 0)
    return;
  fputs("<h3>Comparisons</h3><p>Ratio of medians; exact two-sided "
        "Mann-Whitney U at 0.05; within 5% is a tie; ~ is not "
        "significant.</p><table><tr><th>lane</th><th>against</th><th>ratio "
        "of medians</th><th>U</th><th>p</th><th>verdict</th></tr>\n",
        f);
  for (int i = 0; i < p->ncomparisons; i++) {
    const struct report_comparison *c = &p->comparisons[i];
    fputs("<tr><th>", f);
    h(f, c->lane);
    fputs("</th><td>", f);
    h(f, c->reference);
    fprintf(f, "</td><td class=\"n\">%.2f\xc3\x97</td><td class=\"n\">",
            c->ratio);
    if (c->u >= 0)
      fprintf(f, "%g", c->u);
    fputs("</td><td class=\"n\">", f);
    if (c->p >= 0)
      fprintf(f, "%.3f", c->p);
    fputs("</td><td>", f);
    h(f, c->verdict);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void platform_section(FILE *f, const struct report *r, int i)
{
  const struct report_platform *p = &r->platforms[i];

  fprintf(f,
          "<section id=\"p%d\"><h2><span class=\"swatch\" "
          "style=\"background:%s\"></span>",
          i, platform_color(r, i));
  h(f, p->os);
  if (p->machine.arch) {
    fputs(" <span class=\"muted\">", f);
    h(f, p->machine.arch);
    fputs("</span>", f);
  }
  fputs("</h2>\n", f);
  failures(f, p);
  fputs("<h3>Client \xc3\x97 server</h3><p>Median ns per round trip of each "
        "client (rows) against each server (columns), with "
        "[min\xe2\x80\x93max]; green is fastest on this platform, red "
        "slowest.</p><div class=\"two\"><div class=\"card heat\">",
        f);
  heat_map(f, p, i);
  fputs("</div>\n<div class=\"side\">", f);
  machine_table(f, p);
  fputs("</div></div>\n", f);
  matrix_table(f, p);
  cleanliness(f, p);
  comparisons(f, p);
  fputs("</section>\n", f);
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
  h(f, r->mode);
  fputs("</b> \xc2\xb7 ", f);
  fputs(r->official ? "<b>official record</b>" : "not an official record", f);
  if (r->commit) {
    fputs(" \xc2\xb7 commit <code>", f);
    h(f, r->commit);
    fputs("</code>", f);
  }
  if (r->tool_version) {
    fputs(" \xc2\xb7 crossrun ", f);
    h(f, r->tool_version);
  }
  fputs(" \xc2\xb7 from <code>", f);
  h(f, r->source);
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
    h(f, r->platforms[p].os);
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
  h(f, r->mode);
  fprintf(f, "</title><style>%s</style></head>\n<body><main>\n", css);
  header(f, r);
  time_section(f, r);
  memory_section(f, r);
  package_section(f, r);
  for (int i = 0; i < r->nplatforms; i++)
    platform_section(f, r, i);
  fputs("<footer>Made by <code>crossrun report</code> from the evidence "
        "file alone. Figures are medians over the passed samples with "
        "[min\xe2\x80\x93max].</footer>\n</main></body></html>\n",
        f);
  fflush(f);
  return ferror(f) ? -1 : 0;
}
