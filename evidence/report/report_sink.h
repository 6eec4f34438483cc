/* Where a report's sections are written: a small table of operations
 * (headings, prose, tables, lists, notes, charts) that one output format
 * implements, so that each section of the report (evidence/
 * report_sections.c) is written once and every format shows it. The
 * Markdown sink is in evidence/report/report_sink_markdown.c, the HTML sink in
 * evidence/report/report_sink_html.c. Not for other callers: report_markdown
 * and report_html (evidence/report/report.h) are the renderers.
 *
 * Every string a section hands over is either the report's own words
 * (REPORT_SPAN_PROSE, figures: written as they are) or
 * text from the evidence (escaped by the sink for its language). A sink
 * keeps no pointer past the call it was given it in. */
#ifndef CROSSRUN_EVIDENCE_REPORT_SINK_H
#define CROSSRUN_EVIDENCE_REPORT_SINK_H

#include <stdio.h>

#include "evidence/report/report.h"

/* What the sections found before writing, for a sink's opening lines. */
struct report_outline {
  int lanes;               /* over every platform */
  int bad;                 /* lanes whose status is a failure of the lane
                              itself */
  char lanes_text[32];     /* "1 lane", "28 lanes" */
  char platforms_text[32]; /* "1 platform", "3 platforms" */
  int memory;              /* a same-runtime lane exists somewhere */
  int packages;            /* a runtime declares a package somewhere */
};

/* A piece of running text. */
enum report_span_kind {
  REPORT_SPAN_PROSE, /* the report's own words, written as they are */
  REPORT_SPAN_TEXT,  /* text from the evidence */
  REPORT_SPAN_CAUSE, /* a failure's reason: bold where the format's lines
                        do not already start in bold (HTML) */
  REPORT_SPAN_EMPH,  /* the report's own words, in italics */
};

struct report_span {
  enum report_span_kind kind;
  const char *text; /* NULL: the span is left out */
};

enum report_cell_kind {
  REPORT_CELL_HEAD,   /* a row's heading, text from the evidence */
  REPORT_CELL_TEXT,   /* text from the evidence */
  REPORT_CELL_NUMBER, /* a figure or a count as the report words it,
                         aligned right */
  REPORT_CELL_LANE,   /* a lane's time, and its status when it did not
                         pass; NULL lane: "not in this evidence" */
  REPORT_CELL_EMPTY,
};

struct report_cell {
  enum report_cell_kind kind;
  const char *text;
  const struct report_lane *lane; /* REPORT_CELL_LANE */
  int strong;                     /* a heading in bold where headings are
                                     not bold already (Markdown) */
  const char *detail; /* REPORT_CELL_NUMBER: text from the evidence after
                         the figure (a memory label), escaped; may be
                         NULL */
};

enum report_list_style {
  REPORT_LIST_PLAIN,
  REPORT_LIST_FAILURES, /* spaced out: each item is several lines */
};

enum report_note_tone {
  REPORT_NOTE_QUIET,   /* all is well: a format may leave it out */
  REPORT_NOTE_BAD,     /* something went wrong */
  REPORT_NOTE_WARNING, /* how to read the whole report: a banner */
};

enum report_chart_kind {
  REPORT_CHART_TIME,     /* bars: time per round trip by lane name */
  REPORT_CHART_MEMORY,   /* bars: peak RSS of names' same-runtime lanes */
  REPORT_CHART_PACKAGES, /* bars: package sizes of runtimes names */
  REPORT_CHART_HEAT_MAP, /* client x server of one platform */
  REPORT_CHART_LATENCY,  /* a latency histogram per lane names of one
                            platform */
};

struct report_chart {
  enum report_chart_kind kind;
  const char *const *names; /* lanes or runtimes, one a row */
  int nnames;
  int platform; /* REPORT_CHART_HEAT_MAP and REPORT_CHART_LATENCY: its
                   index in the report */
};

/* A runtime's package as the report words it. */
struct report_package_row {
  const char *platform; /* the platform's name in a table across platforms,
                           else NULL */
  const char *runtime;
  const char *missing; /* not measured: why, else NULL and the rest set */
  const char *file_name;
  const char *sha256; /* "-" when the file does not say */
  const char *packed; /* sizes as text, "-" when unknown */
  const char *unpacked;
  const char *files;
  int reproducible; /* 1, 0, -1 unknown */
};

struct report_sink;

/* Every operation writes to sink->f. chart, failure.peer_stderr and
 * machine may be NULL (then nothing is shown); the others are required.
 * The operations come in groups, each a begin, its contents, an end. */
struct report_sink_ops {
  /* The opening lines: begin the title and what the evidence is, then
   * (after the sections' banner) outline the result and what follows;
   * end the closing lines. */
  struct {
    void (*begin)(struct report_sink *s);
    void (*outline)(struct report_sink *s, const struct report_outline *o);
    void (*end)(struct report_sink *s);
  } document;
  /* A section at level 2 (a part of the report, with anchor and, for a
   * platform, platform >= 0) or 3 (within one); detail follows the title
   * in a lighter face (a platform's architecture). */
  struct {
    void (*begin)(struct report_sink *s, int level, const char *title,
                  const char *detail, const char *anchor, int platform);
    void (*end)(struct report_sink *s, int level);
  } section;
  void (*paragraph)(struct report_sink *s, const struct report_span *spans,
                    int nspans);
  /* A line that stands out: lead in bold, then text (both the report's
   * words). */
  void (*note)(struct report_sink *s, enum report_note_tone tone,
               const char *lead, const char *text);
  /* Only sinks with charts implement it. */
  void (*chart)(struct report_sink *s, const struct report_chart *chart);
  struct {
    /* titles: text from the evidence or the report's words */
    void (*begin)(struct report_sink *s, const char *const *titles,
                  int ntitles);
    void (*row)(struct report_sink *s, const struct report_cell *cells,
                int ncells);
    void (*end)(struct report_sink *s);
  } table;
  /* Items "term: text". */
  struct {
    void (*begin)(struct report_sink *s, enum report_list_style style);
    void (*item)(struct report_sink *s, const char *term, const char *text);
    void (*end)(struct report_sink *s, enum report_list_style style);
  } list;
  /* A lane in the failures list (a REPORT_LIST_FAILURES list): its
   * status and why it did not run (may be NULL), then a line a sample,
   * each followed by the command that reproduces it and what the peers
   * wrote to stderr (either may be NULL) when the file has them. */
  struct {
    void (*begin)(struct report_sink *s, const struct report_lane *l,
                  const char *why);
    void (*line)(struct report_sink *s, const struct report_lane *l,
                 const struct report_span *spans, int nspans);
    /* directory: where the command runs ("." the checkout's root), or
     * NULL when the file does not say. */
    void (*reproduce)(struct report_sink *s, const char *directory,
                      const char *command);
    void (*peer_stderr)(struct report_sink *s, const char *server,
                        const char *client);
    void (*end)(struct report_sink *s);
  } failure;
  /* The packages table, whose columns the formats lay out their own way;
   * across platforms, with a platform column. */
  struct {
    void (*begin)(struct report_sink *s, int across);
    void (*row)(struct report_sink *s, const struct report_package_row *row);
    void (*end)(struct report_sink *s);
  } package;
  /* One platform's machine and toolchains, which the formats word
   * differently (a sink that shows them beside the heat map leaves it
   * NULL). */
  void (*machine)(struct report_sink *s, int platform);
};

struct diff;

struct report_sink {
  const struct report_sink_ops *ops;
  FILE *f;
  const struct report *r;
  /* The sink draws charts: the sections then word their prose for the
   * charts and show memory and packages across platforms, beside the
   * bars that compare them. */
  int charts;
  /* The comparison of a baseline with r's evidence to show (crossrun
   * report --baseline), or NULL; the names of OLD's and NEW's files. */
  const struct diff *baseline;
  const char *baseline_names[2];
};

/* Writes every section of r to s, which is set up (ops, f, r, charts).
 * Returns 0, or -1 when writing to s->f failed. */
int report_sections_write(struct report_sink *s);

/* The cost per round trip of every lane of platform that has passed
 * samples, a table row each, with a latency chart where s draws charts
 * (evidence/report/report_sections_cost.c); nothing when no lane passed. */
void report_cost_section(struct report_sink *s, int platform);

/* tcp and tls side by side (evidence/report/report_tls.c): for every
 * client-server pair of platform that has a lane over tls, both lanes'
 * time per round trip, their ratio, the handshake and the cipher; nothing
 * when no lane of it is over tls. */
void report_tls_section(struct report_sink *s, int platform);

/* The change of every lane's figures against s->baseline, a section of
 * its own (evidence/report/report_sections_baseline.c); nothing when
 * there is no baseline. */
void report_baseline_section(struct report_sink *s);

/* Statuses that are not a failure of the lane itself: passed,
 * unavailable, unsupported, expected_failure. */
int report_status_benign(const char *status);

#endif
