/* The HTML report's charts, as inline SVG: horizontal bars with
 * min-max whiskers, one bar per platform and a group per row, and a
 * client x server heat map of one platform's time per round trip. Apart
 * from the page because drawing is geometry, not HTML structure. */
#include "evidence/report/report_html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHART_W 960
#define LABEL_W 190
#define VALUE_W 120
#define BAR_H 16
#define BAR_GAP 3
#define GROUP_GAP 14
#define CHART_TOP 26
#define CHART_BOTTOM 34

/* ---- horizontal bars, one per platform, grouped in rows ---- */

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

void report_html_bar_chart(FILE *f, const struct report *r, const char *title,
                           const struct report_html_bar_row *rows, int nrows,
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
  report_html_escape(f, title);
  fputs("\"><title>", f);
  report_html_escape(f, title);
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
  report_html_escape(f, axis);
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
    report_html_escape_cut(f, rows[i].label, 22);
    fputs("</tspan>", f);
    if (rows[i].detail && !two_lines) {
      fputs(" <tspan class=\"axis\">", f);
      report_html_escape_cut(f, rows[i].detail, 12);
      fputs("</tspan>", f);
    }
    fputs("</text>", f);
    if (two_lines) {
      fprintf(f,
              "<text class=\"axis\" x=\"%d\" y=\"%d\" "
              "text-anchor=\"end\">",
              LABEL_W - 10, gy + group_h / 2 + 11);
      report_html_escape_cut(f, rows[i].detail, 28);
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
        report_html_escape(f, np > 1 ? r->platforms[p].os : "");
        fputs(np > 1 ? ": " : "", f);
        report_html_escape(f, rows[i].bars[p].note ? rows[i].bars[p].note
                                                   : "not measured");
        fputs("</text>\n", f);
        continue;
      }
      xm = x0 + width * (fig->median / divisor) / span;
      xl = x0 + width * (fig->min / divisor) / span;
      xh = x0 + width * (fig->max / divisor) / span;
      /* The label is text from the file: escaped, apart from the
       * figures. */
      report_format_value(value, sizeof(value), fig->median, unit);
      report_format_figure(range, sizeof(range), fig, unit);
      fprintf(f,
              "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
              "rx=\"2\" fill=\"%s\"><title>",
              x0, y, fmax(xm - x0, 1), BAR_H, report_html_platform_color(r, p));
      report_html_escape(f, rows[i].label);
      fputs(rows[i].detail ? " " : "", f);
      report_html_escape(f, rows[i].detail);
      fputs(", ", f);
      report_html_escape(f, r->platforms[p].os);
      fprintf(f, ": %s", range);
      if (rows[i].bars[p].label) {
        fputs(" ", f);
        report_html_escape(f, rows[i].bars[p].label);
      }
      fputs("</title></rect>", f);
      if (fig->have_range && fig->max > fig->min)
        fprintf(f,
                "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" "
                "x2=\"%.1f\" y2=\"%.1f\"/><line class=\"whisker\" "
                "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" "
                "x2=\"%.1f\" y2=\"%.1f\"/>",
                xl, cy, xh, cy, xl, cy - 5, xl, cy + 5, xh, cy - 5, xh, cy + 5);
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s", fmax(xm, xh) + 6, cy + 4,
              value);
      if (rows[i].bars[p].label) {
        fputs(" ", f);
        report_html_escape_cut(f, rows[i].bars[p].label, 40);
      }
      fputs("</text>\n", f);
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

void report_html_heat_map(FILE *f, const struct report_platform *p, int pos)
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
  report_html_escape(f, p->os);
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
    report_html_escape_cut(f, rts[s], 16);
    fputs("</text>\n", f);
  }
  for (int c = 0; c < n; c++) {
    int y = HEAT_TOP + c * CELL_H;
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
            "font-weight=\"600\">",
            HEAT_LEFT - 12, y + CELL_H / 2 + 4);
    report_html_escape_cut(f, rts[c], 14);
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
      report_html_escape(f, rts[c]);
      fputs(" client, ", f);
      report_html_escape(f, rts[s]);
      fputs(" server: ", f);
      if (l) {
        report_format_figure(full, sizeof(full), fig, REPORT_NS);
        report_html_escape(f, l->status);
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
        int ok = report_html_passed(l->status);
        fprintf(f,
                "<text class=\"cellv\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text>",
                cx, y + CELL_H / 2 + (ok ? 2 : -6), value);
        fprintf(f,
                "<text class=\"cellr\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text>\n",
                cx, y + CELL_H / 2 + (ok ? 17 : 8), range);
      }
      if (!report_html_passed(l->status)) {
        fprintf(f,
                "<text class=\"note\" x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">",
                cx, fig->n > 0 ? y + CELL_H - 6 : y + CELL_H / 2 + 4);
        report_html_escape_cut(f, l->status, 18);
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
