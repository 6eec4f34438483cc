/* A lane's latency chart, as inline SVG: the merged histogram of its
 * passed samples (protocol/SPEC.md section 7) drawn as the share of round
 * trips per bin on a log time axis, with p50, p99 and p99.9 marked. The
 * figures themselves are in the table beside it; the chart shows their
 * shape. */
#include "evidence/report/report_html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "protocol/histogram.h"

#define LAT_W 470
#define LAT_H 200
#define LAT_LEFT 46
#define LAT_RIGHT 14
#define LAT_TOP 58
#define LAT_BOTTOM 34
#define LAT_BINS 64

/* "10 µs", "2 ms": a tick's time. */
static void tick_text(char *out, size_t len, double ns)
{
  if (ns >= 1e9)
    snprintf(out, len, "%g s", ns / 1e9);
  else if (ns >= 1e6)
    snprintf(out, len, "%g ms", ns / 1e6);
  else if (ns >= 1e3)
    snprintf(out, len, "%g \xc2\xb5s", ns / 1e3);
  else
    snprintf(out, len, "%g ns", ns);
}

/* The chart's opening: its size, its title (summary: what it shows, or
 * why it shows nothing) and the lane's name. */
static void frame_begin(FILE *f, const struct report_lane *l,
                        const char *summary, int height)
{
  fprintf(f,
          "<svg class=\"latency\" viewBox=\"0 0 %d %d\" width=\"%d\" "
          "height=\"%d\" role=\"img\" aria-label=\"latency histogram of ",
          LAT_W, height, LAT_W, height);
  report_html_escape(f, l->name);
  fputs("\"><title>latency of ", f);
  report_html_escape(f, l->name);
  fputs(": ", f);
  report_html_escape(f, summary);
  fprintf(f, "</title>\n<text x=\"%d\" y=\"16\" font-weight=\"600\">",
          LAT_LEFT);
  report_html_escape_cut(f, l->name, 40);
  fputs("</text>", f);
}

static void empty_chart(FILE *f, const struct report_lane *l, const char *lead,
                        const char *why)
{
  frame_begin(f, l, why ? why : lead, 48);
  fprintf(f, "<text class=\"note\" x=\"%d\" y=\"38\">", LAT_LEFT);
  report_html_escape(f, lead);
  if (why) {
    fputs(": ", f);
    report_html_escape_cut(f, why, 60);
  }
  fputs("</text></svg>\n", f);
}

struct lat_axis {
  double lo, hi; /* log10 of ns */
};

static double axis_x(const struct lat_axis *a, double ns)
{
  double v = log10(ns > 1 ? ns : 1);
  double w = LAT_W - LAT_LEFT - LAT_RIGHT;
  return LAT_LEFT + w * (v - a->lo) / (a->hi - a->lo);
}

/* Ticks at 1, 2 and 5 times each power of ten in the range (only the
 * powers when the range spans more than three of them). */
static void ticks(FILE *f, const struct lat_axis *a)
{
  static const double steps[] = {1, 2, 5};
  int every = a->hi - a->lo > 3 ? 1 : 3;

  for (int e = (int)floor(a->lo); e <= (int)ceil(a->hi); e++) {
    for (int k = 0; k < every; k++) {
      double ns = steps[k] * pow(10, e), x;
      char text[32];
      if (log10(ns) < a->lo - 1e-9 || log10(ns) > a->hi + 1e-9)
        continue;
      x = axis_x(a, ns);
      tick_text(text, sizeof(text), ns);
      fprintf(f,
              "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
              "y2=\"%d\"/><text class=\"axis\" x=\"%.1f\" y=\"%d\" "
              "text-anchor=\"middle\">%s</text>\n",
              x, LAT_TOP, x, LAT_H - LAT_BOTTOM, x, LAT_H - LAT_BOTTOM + 14,
              text);
    }
  }
}

/* A percentile's mark: a line down the plot, its name and value above
 * it, on one of three rows so that close marks do not overlap. */
static void mark(FILE *f, const struct lat_axis *a, const char *name,
                 int64_t ns, int row)
{
  char value[64];
  int y = LAT_TOP - 26 + 10 * row;
  double x;

  if (ns < 0)
    return;
  x = axis_x(a, (double)ns);
  report_format_value(value, sizeof(value), (double)ns, REPORT_LATENCY_NS);
  fprintf(f,
          "<line class=\"mark\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
          "y2=\"%d\"/><text class=\"axis\" x=\"%.1f\" y=\"%d\" "
          "text-anchor=\"%s\">%s %s</text>\n",
          x, y + 2, x, LAT_H - LAT_BOTTOM, x + (x > LAT_W * 0.6 ? -3 : 3), y,
          x > LAT_W * 0.6 ? "end" : "start", name, value);
}

void report_html_latency_chart(FILE *f, const struct report_lane *l)
{
  const struct report_latency *lat = &l->latency;
  double share[LAT_BINS] = {0}, top = 0, total = 0, bin_w;
  struct lat_axis a;
  int64_t first, last;
  char summary[256], p50[64], p99[64], p999[64];

  if (!lat->present) {
    empty_chart(f, l, "latency not reported", l->latency_missing);
    return;
  }
  for (int i = 0; i < lat->nbuckets; i++)
    total += (double)lat->buckets[i].count;
  if (lat->nbuckets == 0 || !(total > 0)) {
    empty_chart(f, l, "no round trip measured", NULL);
    return;
  }
  first = hist_lower(lat->buckets[0].index);
  last = hist_lower(lat->buckets[lat->nbuckets - 1].index) +
         hist_width(lat->buckets[lat->nbuckets - 1].index);
  a.lo = log10(first > 1 ? (double)first : 1);
  a.hi = log10((double)last);
  /* At least a factor of ten wide, so a tight histogram stays readable. */
  if (a.hi - a.lo < 1) {
    double mid = (a.hi + a.lo) / 2;
    a.lo = mid - 0.5;
    a.hi = mid + 0.5;
  }
  a.lo -= 0.02 * (a.hi - a.lo);
  a.hi += 0.02 * (a.hi - a.lo);
  bin_w = (a.hi - a.lo) / LAT_BINS;
  for (int i = 0; i < lat->nbuckets; i++) {
    int64_t lower = hist_lower(lat->buckets[i].index);
    int b = (int)floor((log10(lower > 1 ? (double)lower : 1) - a.lo) / bin_w);
    b = b < 0 ? 0 : b >= LAT_BINS ? LAT_BINS - 1 : b;
    share[b] += (double)lat->buckets[i].count / total;
  }
  for (int b = 0; b < LAT_BINS; b++)
    top = fmax(top, share[b]);

  report_format_value(p50, sizeof(p50), (double)lat->p50, REPORT_LATENCY_NS);
  report_format_value(p99, sizeof(p99), (double)lat->p99, REPORT_LATENCY_NS);
  report_format_value(p999, sizeof(p999), (double)lat->p99_9,
                      REPORT_LATENCY_NS);
  snprintf(summary, sizeof(summary),
           "%lld round trips of %d sample%s, p50 %s, p99 %s, p99.9 %s",
           (long long)lat->count, lat->samples, lat->samples == 1 ? "" : "s",
           p50, p99, p999);
  frame_begin(f, l, summary, LAT_H);
  fprintf(f,
          "<text class=\"axis\" x=\"%d\" y=\"16\" text-anchor=\"end\">%lld "
          "round trips, %d sample%s</text>\n",
          LAT_W - LAT_RIGHT, (long long)lat->count, lat->samples,
          lat->samples == 1 ? "" : "s");
  ticks(f, &a);
  {
    double plot_h = LAT_H - LAT_TOP - LAT_BOTTOM;
    double w = (double)(LAT_W - LAT_LEFT - LAT_RIGHT) / LAT_BINS;
    for (int b = 0; b < LAT_BINS; b++) {
      double h = top > 0 ? plot_h * share[b] / top : 0;
      if (!(share[b] > 0))
        continue;
      fprintf(f,
              "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
              "height=\"%.1f\"><title>%.2f%% of round trips</title></rect>\n",
              LAT_LEFT + b * w, LAT_H - LAT_BOTTOM - fmax(h, 1),
              fmax(w - 0.6, 0.6), fmax(h, 1), 100 * share[b]);
    }
  }
  fprintf(f,
          "<line class=\"grid\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
          "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
          "%.1f%%</text><text class=\"axis\" x=\"%d\" y=\"%d\" "
          "text-anchor=\"end\">0</text>\n",
          LAT_LEFT, LAT_H - LAT_BOTTOM, LAT_W - LAT_RIGHT, LAT_H - LAT_BOTTOM,
          LAT_LEFT - 4, LAT_TOP + 4, 100 * top, LAT_LEFT - 4,
          LAT_H - LAT_BOTTOM);
  mark(f, &a, "p50", lat->p50, 0);
  mark(f, &a, "p99", lat->p99, 1);
  mark(f, &a, "p99.9", lat->p99_9, 2);
  fprintf(f,
          "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
          "latency, log scale; bars: share of round trips</text>\n</svg>\n",
          LAT_LEFT + (LAT_W - LAT_LEFT - LAT_RIGHT) / 2, LAT_H - 4);
}
