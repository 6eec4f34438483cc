/* The HTML sink of the report's sections (evidence/report/report_sections.c):
 * one self-contained page. Inline CSS and inline SVG charts, no script, no
 * font or image from anywhere, and a content security policy that forbids
 * loading anything, so the page shows the same offline, in a CI artifact
 * viewer, or with JavaScript off. Every string from the evidence goes
 * through report_xml_text.
 *
 * This file holds the page and the parts every section is made of; the
 * charts and the blocks HTML lays out its own way (machine, packages) are in
 * evidence/report/report_html_blocks.c, the SVG drawing in
 * evidence/report/report_html_chart.c. */
#include "evidence/report/report_html.h"

#include <string.h>

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
    ".lat{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}"
    ".lat .card{flex:0 1 500px;margin:0}"
    "svg .bin{fill:#0969da}"
    "svg .mark{stroke:#cf222e;stroke-width:1;stroke-dasharray:3 2}"
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

/* text escaped inside <tag>...</tag> */
static void tagged(FILE *f, const char *tag, const char *text)
{
  fprintf(f, "<%s>", tag);
  report_html_escape(f, text);
  fprintf(f, "</%s>", tag);
}

int report_html_passed(const char *s)
{
  return strcmp(s, "passed") == 0;
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

/* ---- table cells ---- */

void report_html_status_span(FILE *f, const char *status)
{
  fprintf(f, "<span class=\"%s\">",
          report_html_passed(status)     ? "passed"
          : report_status_benign(status) ? "muted"
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

/* ---- the page ---- */

static void document_begin(struct report_sink *s)
{
  const struct report *r = s->r;
  FILE *f = s->f;

  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale="
        "1\"><meta http-equiv=\"Content-Security-Policy\" content=\""
        "default-src 'none'; style-src 'unsafe-inline'\"><title>crossrun "
        "report: ",
        f);
  report_html_escape(f, r->mode);
  fprintf(f, "</title><style>%s</style></head>\n<body><main>\n", css);

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
}

static void document_outline(struct report_sink *s,
                             const struct report_outline *o)
{
  const struct report *r = s->r;
  FILE *f = s->f;

  if (o->bad == 0)
    fprintf(f,
            "<div class=\"result ok\">Every lane that ran passed: %s on "
            "%s.</div>\n",
            o->lanes_text, o->platforms_text);
  else
    fprintf(f,
            "<div class=\"result bad\">%d of %s did not pass; see the "
            "failures under each platform.</div>\n",
            o->bad, o->lanes_text);
  fputs("<nav>", f);
  if (s->baseline)
    fputs("<a href=\"#baseline\">change</a>", f);
  fputs("<a href=\"#time\">time</a>", f);
  if (o->memory)
    fputs("<a href=\"#memory\">memory</a>", f);
  if (o->packages)
    fputs("<a href=\"#packages\">packages</a>", f);
  for (int p = 0; p < r->nplatforms; p++) {
    fprintf(f, "<a href=\"#p%d\">", p);
    report_html_escape(f, r->platforms[p].os);
    fputs("</a>", f);
  }
  fputs("</nav></header>\n", f);
}

static void document_end(struct report_sink *s)
{
  fputs("<footer>Made by <code>crossrun report</code> from the evidence "
        "file alone. Figures are medians over the passed samples with "
        "[min\xe2\x80\x93max].</footer>\n</main></body></html>\n",
        s->f);
}

/* ---- the sections' parts ---- */

static void section_begin(struct report_sink *s, int level, const char *title,
                          const char *detail, const char *anchor, int platform)
{
  FILE *f = s->f;

  if (level == 3) {
    tagged(f, "h3", title);
    return;
  }
  fprintf(f, "<section id=\"%s\"><h2>", anchor);
  if (platform >= 0)
    fprintf(f, "<span class=\"swatch\" style=\"background:%s\"></span>",
            report_html_platform_color(s->r, platform));
  report_html_escape(f, title);
  if (detail) {
    fputs(" <span class=\"muted\">", f);
    report_html_escape(f, detail);
    fputs("</span>", f);
  }
  fputs("</h2>\n", f);
}

static void section_end(struct report_sink *s, int level)
{
  if (level == 2)
    fputs("</section>\n", s->f);
}

static void spans(FILE *f, const struct report_span *sp, int n)
{
  for (int i = 0; i < n; i++) {
    switch (sp[i].kind) {
    case REPORT_SPAN_PROSE:
      fputs(sp[i].text, f);
      break;
    case REPORT_SPAN_TEXT:
      report_html_escape(f, sp[i].text);
      break;
    case REPORT_SPAN_CAUSE:
      tagged(f, "b", sp[i].text);
      break;
    case REPORT_SPAN_EMPH:
      fprintf(f, "<i>%s</i>", sp[i].text);
      break;
    }
  }
}

static void paragraph(struct report_sink *s, const struct report_span *sp,
                      int n)
{
  fputs("<p>", s->f);
  spans(s->f, sp, n);
  fputs("</p>\n", s->f);
}

static void table_begin(struct report_sink *s, const char *const *titles, int n)
{
  fputs("<table><tr>", s->f);
  for (int i = 0; i < n; i++)
    tagged(s->f, "th", titles[i]);
  fputs("</tr>\n", s->f);
}

static void table_row(struct report_sink *s, const struct report_cell *c, int n)
{
  FILE *f = s->f;

  fputs("<tr>", f);
  for (int i = 0; i < n; i++) {
    switch (c[i].kind) {
    case REPORT_CELL_HEAD:
    case REPORT_CELL_TEXT:
      tagged(f, c[i].kind == REPORT_CELL_HEAD ? "th" : "td", c[i].text);
      break;
    case REPORT_CELL_NUMBER:
      fprintf(f, "<td class=\"n\">%s", c[i].text);
      if (c[i].detail) {
        fputs(" ", f);
        report_html_escape(f, c[i].detail);
      }
      fputs("</td>", f);
      break;
    case REPORT_CELL_LANE:
      report_html_lane_td(f, c[i].lane);
      break;
    case REPORT_CELL_EMPTY:
      fputs("<td></td>", f);
      break;
    }
  }
  fputs("</tr>\n", f);
}

static void table_end(struct report_sink *s)
{
  fputs("</table>\n", s->f);
}

static void list_begin(struct report_sink *s, enum report_list_style style)
{
  fputs(style == REPORT_LIST_FAILURES ? "<ul class=\"fails\">\n" : "<ul>\n",
        s->f);
}

static void list_item(struct report_sink *s, const char *term, const char *text)
{
  fputs("<li>", s->f);
  tagged(s->f, "b", term);
  fputs(": ", s->f);
  report_html_escape(s->f, text);
  fputs("</li>\n", s->f);
}

static void list_end(struct report_sink *s, enum report_list_style style)
{
  fputs("</ul>\n", s->f);
}

static void note(struct report_sink *s, enum report_note_tone tone,
                 const char *lead, const char *text)
{
  if (tone == REPORT_NOTE_WARNING) {
    fprintf(s->f,
            "<div class=\"banner\" role=\"note\"><strong>%s</strong><br>%s"
            "</div>\n",
            lead, text);
    return;
  }
  fprintf(s->f, "<p class=\"%s\">%s %s</p>\n",
          tone == REPORT_NOTE_BAD ? "bad" : "muted", lead, text);
}

/* ---- failures: an item a lane, a line a sample ---- */

static void failure_begin(struct report_sink *s, const struct report_lane *l,
                          const char *why)
{
  fputs("<li>", s->f);
  tagged(s->f, "b", l->name);
  fputs(": ", s->f);
  report_html_status_span(s->f, l->status);
  if (why) {
    fputs(": ", s->f);
    report_html_escape(s->f, why);
  }
}

static void failure_line(struct report_sink *s, const struct report_lane *l,
                         const struct report_span *sp, int n)
{
  fputs("<br>", s->f);
  spans(s->f, sp, n);
}

static void failure_reproduce(struct report_sink *s, const char *directory,
                              const char *command)
{
  if (directory != NULL) {
    fputs("<br>reproduce from <code>", s->f);
    report_xml_text(s->f, directory, 0);
    fputs(strcmp(directory, ".") == 0 ? "</code> (the checkout's root):"
                                      : "</code>:",
          s->f);
  }
  fputs("<pre>", s->f);
  report_xml_text(s->f, command, 1);
  fputs("</pre>", s->f);
}

/* What a peer wrote to stderr, folded away. */
static void failure_stderr(struct report_sink *s, const char *server,
                           const char *client)
{
  const char *text[2] = {server, client}, *role[2] = {"server", "client"};

  fputs("<details><summary>stderr</summary>", s->f);
  for (int i = 0; i < 2; i++) {
    if (text[i] == NULL)
      continue;
    fprintf(s->f, "<div class=\"muted\">%s</div><pre>", role[i]);
    report_xml_text(s->f, text[i], 1);
    fputs("</pre>", s->f);
  }
  fputs("</details>", s->f);
}

static void failure_end(struct report_sink *s)
{
  fputs("</li>\n", s->f);
}

static const struct report_sink_ops html_ops = {
    .document = {document_begin, document_outline, document_end},
    .section = {section_begin, section_end},
    .paragraph = paragraph,
    .note = note,
    .chart = report_html_chart,
    .table = {table_begin, table_row, table_end},
    .list = {list_begin, list_item, list_end},
    .failure = {failure_begin, failure_line, failure_reproduce, failure_stderr,
                failure_end},
    .package = {report_html_package_begin, report_html_package_row,
                report_html_package_end},
};

int report_html(const struct report *r, FILE *f)
{
  return report_html_baseline(r, NULL, NULL, NULL, f);
}

int report_html_baseline(const struct report *r, const struct diff *d,
                         const char *old_name, const char *new_name, FILE *f)
{
  struct report_sink s = {&html_ops, f, r, 1, d, {old_name, new_name}};
  return report_sections_write(&s);
}
