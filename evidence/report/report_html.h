/* What the files of the HTML sink (evidence/report/report_sink_html.c,
 * evidence/report_html_*.c) share, not for other callers; report_html
 * itself is in evidence/report/report.h. Every function writes to f and keeps
 * nothing; strings from the evidence are escaped on the way out. */
#ifndef CROSSRUN_EVIDENCE_REPORT_HTML_H
#define CROSSRUN_EVIDENCE_REPORT_HTML_H

#include <stdio.h>

#include "evidence/report/report.h"
#include "evidence/report/report_sink.h"

/* ---- the page's helpers (evidence/report/report_sink_html.c) ---- */

/* Writes s as HTML text (report_xml_text on one line); NULL writes
 * nothing. */
void report_html_escape(FILE *f, const char *s);

/* The same for at most max characters of s, with an ellipsis when cut. */
void report_html_escape_cut(FILE *f, const char *s, int max);

/* 1 when a lane's or a sample's status is "passed". */
int report_html_passed(const char *s);

/* The colour of platform i of r in every chart and legend: fixed for
 * linux, macos and windows. */
const char *report_html_platform_color(const struct report *r, int i);

/* A status in a span coloured by what it means: passed, benign
 * (unavailable, unsupported, an expected failure) or bad. */
void report_html_status_span(FILE *f, const char *status);

/* A table cell with lane l's time per round trip, and its status and
 * passed samples when it did not pass; NULL: "not in this evidence". */
void report_html_lane_td(FILE *f, const struct report_lane *l);

/* ---- charts (evidence/report/report_html_chart.c) ---- */

struct report_html_bar {
  const struct report_figure *fig; /* NULL or n == 0: no bar */
  const char *note;                /* shown instead of a missing bar */
  const char *label; /* after the figure ("exact", "sampled"), may be NULL */
};

struct report_html_bar_row {
  const char *label;
  const char *detail; /* second word of the label, may be NULL */
  struct report_html_bar bars[REPORT_MAX_PLATFORMS];
};

/* An SVG chart of rows[0..nrows) (each a bar per platform of r, at the
 * median with min-max whiskers) on one scale in unit, titled title, with
 * axis under it. */
void report_html_bar_chart(FILE *f, const struct report *r, const char *title,
                           const struct report_html_bar_row *rows, int nrows,
                           enum report_unit unit, const char *axis);

/* An SVG heat map of p's median time per round trip, client (rows) by
 * server (columns), for at most REPORT_MAX_MATRIX runtimes, on a log
 * scale from green to red; pos makes its gradient's id unique on the
 * page. Writes nothing when p has no lanes. */
void report_html_heat_map(FILE *f, const struct report_platform *p, int pos);

/* ---- a lane's latency (evidence/report/report_html_latency.c) ---- */

/* An SVG histogram of l's merged latency (share of round trips per bin on
 * a log time axis, p50, p99 and p99.9 marked), or a small one saying why
 * there is none. */
void report_html_latency_chart(FILE *f, const struct report_lane *l);

/* ---- the sink's charts and blocks (evidence/report/report_html_blocks.c) ----
 */

/* The sink's chart operation: a card with a legend and the bars of c, or
 * for a heat map the platform's map with its machine and toolchains
 * beside it. */
void report_html_chart(struct report_sink *s, const struct report_chart *c);

/* The sink's package operations: the table, with a platform column when
 * across, and a row a runtime that declares a package. */
void report_html_package_begin(struct report_sink *s, int across);
void report_html_package_row(struct report_sink *s,
                             const struct report_package_row *row);
void report_html_package_end(struct report_sink *s);

#endif
