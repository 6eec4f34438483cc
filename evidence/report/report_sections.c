/* The report's sections, each written once against a sink
 * (evidence/report/report_sink.h): what each section shows, in which order, and
 * when it is left out. How it looks is the sink's. */
#include "evidence/report/report_sink.h"

#include <stdlib.h>
#include <string.h>

/* Running text built a span at a time; a span without text is left out. */
struct spans {
  struct report_span v[10];
  int n;
};

static struct spans *add(struct spans *sp, enum report_span_kind kind,
                         const char *text)
{
  if (text != NULL && sp->n < 10)
    sp->v[sp->n++] = (struct report_span){kind, text};
  return sp;
}

/* " at stage: reason: message", each part when known. */
static struct spans *add_cause(struct spans *sp, const char *stage,
                               const char *reason, const char *message)
{
  add(sp, REPORT_SPAN_PROSE, stage ? " at " : NULL);
  add(sp, REPORT_SPAN_TEXT, stage);
  add(sp, REPORT_SPAN_PROSE, reason ? ": " : NULL);
  add(sp, REPORT_SPAN_CAUSE, reason);
  add(sp, REPORT_SPAN_PROSE, message ? ": " : NULL);
  return add(sp, REPORT_SPAN_TEXT, message);
}

static struct report_cell cell(enum report_cell_kind kind, const char *text)
{
  struct report_cell c = {kind, text, NULL, 0, NULL};
  return c;
}

/* A lane's cell, or an empty one when there is no lane and empty is set. */
static struct report_cell lane_cell(const struct report_lane *l, int empty)
{
  struct report_cell c = {l || !empty ? REPORT_CELL_LANE : REPORT_CELL_EMPTY,
                          NULL, l, 0, NULL};
  return c;
}

/* A paragraph of the report's own words. */
static void prose(struct report_sink *s, const char *text)
{
  struct report_span span = {REPORT_SPAN_PROSE, text};
  s->ops->paragraph(s, &span, 1);
}

int report_status_benign(const char *s)
{
  return strcmp(s, "passed") == 0 || strcmp(s, "unavailable") == 0 ||
         strcmp(s, "unsupported") == 0 || strcmp(s, "expected_failure") == 0;
}

static void outline_of(const struct report *r, struct report_outline *o)
{
  memset(o, 0, sizeof(*o));
  for (int p = 0; p < r->nplatforms; p++) {
    const struct report_platform *pl = &r->platforms[p];
    for (int l = 0; l < pl->nlanes; l++) {
      o->lanes++;
      o->bad += !report_status_benign(pl->lanes[l].status);
      o->memory |= strcmp(pl->lanes[l].client, pl->lanes[l].server) == 0;
    }
    for (int i = 0; i < pl->nruntimes; i++)
      o->packages |= pl->runtimes[i].package.present;
  }
  snprintf(o->lanes_text, sizeof(o->lanes_text), "%d lane%s", o->lanes,
           o->lanes == 1 ? "" : "s");
  snprintf(o->platforms_text, sizeof(o->platforms_text), "%d platform%s",
           r->nplatforms, r->nplatforms == 1 ? "" : "s");
}

/* ---- time per round trip, lane by platform ---- */

static void time_section(struct report_sink *s)
{
  const struct report *r = s->r;
  const char *cols[1 + REPORT_MAX_PLATFORMS];
  char titles[REPORT_MAX_PLATFORMS][512];
  struct report_cell cells[1 + REPORT_MAX_PLATFORMS];

  s->ops->section.begin(s, 2, "Time per round trip", NULL, "time", -1);
  if (s->charts) {
    struct spans sp = {0};
    add(&sp, REPORT_SPAN_PROSE,
        "Median nanoseconds per round trip of each lane (the same number is "
        "milliseconds per million round trips); the whiskers span the "
        "fastest and the slowest passed sample. With many requests in "
        "flight this is throughput, not latency. Lanes are ");
    add(&sp, REPORT_SPAN_EMPH, "client-server");
    add(&sp, REPORT_SPAN_PROSE, ".");
    s->ops->paragraph(s, sp.v, sp.n);
    s->ops->chart(s, &(struct report_chart){REPORT_CHART_TIME, r->lane_names,
                                            r->nlane_names, -1});
  } else {
    prose(s, "Median nanoseconds per round trip (the same number is "
             "milliseconds per million round trips), [min\xe2\x80\x93max] "
             "over the passed samples. With many requests in flight this is "
             "throughput, not latency.");
  }
  cols[0] = "lane";
  for (int p = 0; p < r->nplatforms; p++) {
    /* Beside a chart the prose does not say what the figures are. */
    snprintf(titles[p], sizeof(titles[p]), "%s%s", r->platforms[p].os,
             s->charts ? " ns [min\xe2\x80\x93max]" : "");
    cols[1 + p] = titles[p];
  }
  s->ops->table.begin(s, cols, 1 + r->nplatforms);
  for (int i = 0; i < r->nlane_names; i++) {
    cells[0] = cell(REPORT_CELL_HEAD, r->lane_names[i]);
    for (int p = 0; p < r->nplatforms; p++)
      cells[1 + p] =
          lane_cell(report_find_lane(&r->platforms[p], r->lane_names[i]), 0);
    s->ops->table.row(s, cells, 1 + r->nplatforms);
  }
  s->ops->table.end(s);
  s->ops->section.end(s, 2);
}

/* ---- memory and packages, of one platform or of all (-1) ---- */

/* Names of platform (-1: every platform) that pass keep, each once, at
 * most max, into list. */
static int names_of(const struct report *r, int platform, int max,
                    const char **list,
                    const char *(*keep)(const struct report_platform *, int),
                    int (*count)(const struct report_platform *))
{
  int n = 0;

  for (int p = 0; p < r->nplatforms; p++) {
    if (platform >= 0 && p != platform)
      continue;
    for (int i = 0; i < count(&r->platforms[p]); i++) {
      const char *name = keep(&r->platforms[p], i);
      int seen = 0;
      if (name == NULL || n >= max)
        continue;
      for (int k = 0; k < n && !seen; k++)
        seen = strcmp(list[k], name) == 0;
      if (!seen)
        list[n++] = name;
    }
  }
  return n;
}

static int lane_count(const struct report_platform *p)
{
  return p->nlanes;
}

/* The runtime of lane i when its client talks to its own server. */
static const char *same_runtime(const struct report_platform *p, int i)
{
  const struct report_lane *l = &p->lanes[i];
  return strcmp(l->client, l->server) == 0 ? l->client : NULL;
}

static int runtime_count(const struct report_platform *p)
{
  return p->nruntimes;
}

/* Runtime i when it declares a package. */
static const char *packaged(const struct report_platform *p, int i)
{
  return p->runtimes[i].package.present ? p->runtimes[i].name : NULL;
}

/* What the label after a peak RSS figure says, as the terminal summary
 * and the evidence's peak_rss_source say it. */
#define RSS_LABELS                                                             \
  "Exact: the peer's own peak as it exited; sampled: the last reading "        \
  "while it ran (a lower bound)."

static void memory_heading(struct report_sink *s, int across,
                           const char *const *rts, int n)
{
  static const char *const cols[] = {"platform",        "runtime",
                                     "client peak RSS", "server peak RSS",
                                     "client CPU",      "server CPU"};

  if (across) {
    s->ops->section.begin(s, 2, "Memory of same-runtime lanes", NULL, "memory",
                          -1);
    prose(s, "Peak resident memory of each peer as the operating system "
             "reports it, median over the passed samples, when a runtime's "
             "client talks to its own server. " RSS_LABELS);
    if (s->charts)
      s->ops->chart(s, &(struct report_chart){REPORT_CHART_MEMORY, rts, n, -1});
  } else {
    s->ops->section.begin(s, 3, "Same-runtime lanes: peak RSS and CPU", NULL,
                          NULL, -1);
    prose(s, "Median [min\xe2\x80\x93max] over the passed samples, client / "
             "server. " RSS_LABELS);
  }
  s->ops->table.begin(s, cols + !across, 6 - !across);
}

/* Across platforms, a platform column, and every same-runtime lane of the
 * first REPORT_MAX_MATRIX runtimes (the chart's); under one platform,
 * the lanes that measured something. */
static void memory_section(struct report_sink *s, int platform)
{
  const struct report *r = s->r;
  int across = platform < 0;
  int max = across ? REPORT_MAX_MATRIX : REPORT_MAX_LANES;
  const char **rts = calloc((size_t)max, sizeof(*rts));
  int n = rts ? names_of(r, platform, max, rts, same_runtime, lane_count) : 0;
  int rows = 0;

  for (int p = 0; p < r->nplatforms; p++) {
    if (!across && p != platform)
      continue;
    for (int k = 0; k < n; k++) {
      const struct report_lane *l =
          report_lane_of(&r->platforms[p], rts[k], rts[k]);
      const struct report_figure *figs[4];
      enum report_unit units[4] = {REPORT_BYTES, REPORT_BYTES, REPORT_CPU_NS,
                                   REPORT_CPU_NS};
      char text[4][128], labels[2][512];
      struct report_cell cells[6];
      int c = 0;
      if (l == NULL ||
          (!across && l->client_rss.n == 0 && l->server_rss.n == 0))
        continue;
      if (!rows++)
        memory_heading(s, across, rts, n);
      figs[0] = &l->client_rss;
      figs[1] = &l->server_rss;
      figs[2] = &l->client_cpu;
      figs[3] = &l->server_cpu;
      if (across)
        cells[c++] = cell(REPORT_CELL_TEXT, r->platforms[p].os);
      cells[c++] = cell(REPORT_CELL_HEAD, rts[k]);
      for (int i = 0; i < 4; i++) {
        const char *label =
            i == 0
                ? report_memory_label(labels[0], sizeof(labels[0]),
                                      l->client_rss_label, l->client_rss_covers)
            : i == 1
                ? report_memory_label(labels[1], sizeof(labels[1]),
                                      l->server_rss_label, l->server_rss_covers)
                : NULL;
        report_format_figure(text[i], sizeof(text[i]), figs[i], units[i]);
        cells[c] = cell(REPORT_CELL_NUMBER, text[i]);
        cells[c++].detail = figs[i]->n > 0 ? label : NULL;
      }
      s->ops->table.row(s, cells, c);
    }
  }
  if (rows) {
    s->ops->table.end(s);
    s->ops->section.end(s, across ? 2 : 3);
  }
  free(rts);
}

/* The runtimes of platform p that declare a package, a row each. */
static void package_rows(struct report_sink *s, int p, int across)
{
  const struct report_platform *pl = &s->r->platforms[p];

  for (int i = 0; i < pl->nruntimes; i++) {
    const struct report_package *pk = &pl->runtimes[i].package;
    struct report_package_row row = {0};
    char packed[32] = "-", unpacked[32] = "-", files[16];
    if (!pk->present)
      continue;
    row.platform = across ? pl->os : NULL;
    row.runtime = pl->runtimes[i].name;
    if (!pk->measured) {
      row.missing = pk->error ? pk->error : "no artifact";
      s->ops->package.row(s, &row);
      continue;
    }
    if (pk->packed_bytes >= 0)
      report_format_value(packed, sizeof(packed), (double)pk->packed_bytes,
                          REPORT_BYTES);
    if (pk->unpacked_bytes >= 0)
      report_format_value(unpacked, sizeof(unpacked),
                          (double)pk->unpacked_bytes, REPORT_BYTES);
    snprintf(files, sizeof(files), "%d", pk->file_count);
    row.file_name = pk->file_name;
    row.sha256 = pk->sha256 ? pk->sha256 : "-";
    row.packed = packed;
    row.unpacked = unpacked;
    row.files = files;
    row.reproducible = pk->reproducible;
    s->ops->package.row(s, &row);
  }
}

static void package_section(struct report_sink *s, int platform)
{
  const char *rts[REPORT_MAX_MATRIX];
  int across = platform < 0;
  int n =
      names_of(s->r, platform, REPORT_MAX_MATRIX, rts, packaged, runtime_count);

  if (n == 0)
    return;
  s->ops->section.begin(s, across ? 2 : 3, "Packages", NULL, "packages", -1);
  if (across) {
    prose(s, "The artifact each runtime ships: its size packed and "
             "unpacked.");
    if (s->charts)
      s->ops->chart(s,
                    &(struct report_chart){REPORT_CHART_PACKAGES, rts, n, -1});
  }
  s->ops->package.begin(s, across);
  for (int p = 0; p < s->r->nplatforms; p++)
    if (across || p == platform)
      package_rows(s, p, across);
  s->ops->package.end(s);
  s->ops->section.end(s, across ? 2 : 3);
}

/* ---- a platform's own sections ---- */

static int lane_is_bad(const struct report_lane *l, const char *why)
{
  int bad = why != NULL;
  for (int i = 0; i < l->nsamples; i++)
    bad |= strcmp(l->samples[i].status, "passed") != 0 || l->samples[i].retried;
  return bad;
}

/* A lane's failed samples, and those that passed only on a retry. */
static void lane_failures(struct report_sink *s, const struct report_lane *l)
{
  for (int k = 0; k < l->nsamples; k++) {
    const struct report_sample *sm = &l->samples[k];
    struct spans sp = {0};
    char round[64];

    snprintf(round, sizeof(round), "round %d: ", sm->round);
    add(&sp, REPORT_SPAN_PROSE, round);
    if (strcmp(sm->status, "passed") == 0) {
      if (!sm->retried)
        continue;
      add(&sp, REPORT_SPAN_PROSE,
          "passed on a retry; the first attempt failed");
      add_cause(&sp, sm->first_stage, sm->first_reason, sm->first_message);
      s->ops->failure.line(s, l, sp.v, sp.n);
      continue;
    }
    add(&sp, REPORT_SPAN_TEXT, sm->status);
    add_cause(&sp, sm->stage, sm->reason, sm->message);
    s->ops->failure.line(s, l, sp.v, sp.n);
    if (sm->reproduce)
      s->ops->failure.reproduce(s, sm->reproduce_directory, sm->reproduce);
    if ((sm->server_stderr || sm->client_stderr) && s->ops->failure.peer_stderr)
      s->ops->failure.peer_stderr(s, sm->server_stderr, sm->client_stderr);
  }
}

static void failures(struct report_sink *s, const struct report_platform *p)
{
  int header = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    const char *why = l->error_reason ? l->error_reason : l->unavailable_reason;
    if (!lane_is_bad(l, why))
      continue;
    if (!header++) {
      s->ops->section.begin(s, 3, "Failures and lanes not run", NULL, NULL, -1);
      s->ops->list.begin(s, REPORT_LIST_FAILURES);
    }
    s->ops->failure.begin(s, l, why);
    lane_failures(s, l);
    s->ops->failure.end(s);
  }
  if (header) {
    s->ops->list.end(s, REPORT_LIST_FAILURES);
    s->ops->section.end(s, 3);
  }
}

/* Client x server: a heat map where the sink draws one, and the table. */
static void matrix(struct report_sink *s, int i)
{
  const struct report_platform *p = &s->r->platforms[i];
  const char *const *rts = p->pair_runtimes;
  int n = p->npair_runtimes < REPORT_MAX_MATRIX ? p->npair_runtimes
                                                : REPORT_MAX_MATRIX;
  const char *cols[1 + REPORT_MAX_MATRIX];
  struct report_cell cells[1 + REPORT_MAX_MATRIX];

  /* A chart sink keeps the section when it is empty: its machine panel
   * stands beside the heat map. */
  if (n == 0 && !s->charts)
    return;
  s->ops->section.begin(s, 3, "Client \xc3\x97 server", NULL, NULL, -1);
  if (s->charts) {
    prose(s, "Median ns per round trip of each client (rows) against each "
             "server (columns), with [min\xe2\x80\x93max]; green is fastest "
             "on this platform, red slowest.");
    s->ops->chart(s, &(struct report_chart){REPORT_CHART_HEAT_MAP, rts, n, i});
  } else {
    struct spans sp = {0};
    char first[96];
    snprintf(first, sizeof(first), " The first %d of %d runtimes.", n,
             p->npair_runtimes);
    add(&sp, REPORT_SPAN_PROSE,
        "Median ns per round trip "
        "[min\xe2\x80\x93max]; rows are clients, "
        "columns servers.");
    add(&sp, REPORT_SPAN_PROSE, n < p->npair_runtimes ? first : NULL);
    s->ops->paragraph(s, sp.v, sp.n);
  }
  cols[0] = "client \\ server";
  for (int k = 0; k < n; k++)
    cols[1 + k] = rts[k];
  s->ops->table.begin(s, cols, 1 + n);
  for (int c = 0; c < n; c++) {
    cells[0] = cell(REPORT_CELL_HEAD, rts[c]);
    cells[0].strong = 1;
    for (int k = 0; k < n; k++)
      cells[1 + k] = lane_cell(report_lane_of(p, rts[c], rts[k]), 1);
    s->ops->table.row(s, cells, 1 + n);
  }
  s->ops->table.end(s);
  s->ops->section.end(s, 3);
}

static void cleanliness(struct report_sink *s, const struct report_platform *p)
{
  static const char *const cols[] = {
      "pairs started", "natural exits",       "processes left",
      "sockets left",  "forced terminations", "temp entries left"};
  const struct report_cleanliness *c = &p->cleanliness;
  int counts[6] = {c->pairs_started,       c->natural_exits,
                   c->processes_left,      c->sockets_left,
                   c->forced_terminations, c->temp_entries_left};
  char text[6][16];
  struct report_cell cells[6];

  if (!c->present)
    return;
  for (int i = 0; i < 6; i++) {
    snprintf(text[i], sizeof(text[i]), "%d", counts[i]);
    cells[i] = cell(REPORT_CELL_NUMBER, text[i]);
  }
  s->ops->section.begin(s, 3, "Cleanliness", NULL, NULL, -1);
  s->ops->table.begin(s, cols, 6);
  s->ops->table.row(s, cells, 6);
  s->ops->table.end(s);
  if (c->processes_left || c->sockets_left || c->forced_terminations ||
      c->temp_entries_left)
    s->ops->note(s, REPORT_NOTE_BAD,
                 "Not clean:", "every count but the first two must be 0.");
  else
    s->ops->note(s, REPORT_NOTE_QUIET, "Clean:", "nothing left behind.");
  s->ops->section.end(s, 3);
}

static void stability(struct report_sink *s, const struct report_platform *p)
{
  int unstable = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    if (l->stable != 0)
      continue;
    if (!unstable++) {
      s->ops->section.begin(s, 3, "Stability", NULL, NULL, -1);
      prose(s, "Lanes whose samples disagree; compare them with care.");
      s->ops->list.begin(s, REPORT_LIST_PLAIN);
    }
    s->ops->list.item(s, l->name,
                      l->unstable_reasons ? l->unstable_reasons : "not stable");
  }
  if (unstable) {
    s->ops->list.end(s, REPORT_LIST_PLAIN);
    s->ops->section.end(s, 3);
  }
}

static void comparisons(struct report_sink *s, const struct report_platform *p)
{
  static const char *const cols[] = {"lane", "against", "ratio of medians",
                                     "U",    "p",       "verdict"};

  if (p->ncomparisons == 0)
    return;
  s->ops->section.begin(s, 3, "Comparisons", NULL, NULL, -1);
  prose(s, "Ratio of medians; two-sided Mann-Whitney U over every sample "
           "(exact up to 150 a side) at 0.05; within 5% is a tie; ~ is not "
           "significant.");
  s->ops->table.begin(s, cols, 6);
  for (int i = 0; i < p->ncomparisons; i++) {
    const struct report_comparison *c = &p->comparisons[i];
    char ratio[32], u[32] = "", pv[32] = "";
    if (c->ratio >= 0)
      snprintf(ratio, sizeof(ratio), "%.2f\xc3\x97", c->ratio);
    else
      snprintf(ratio, sizeof(ratio), "not compared");
    if (c->u >= 0)
      snprintf(u, sizeof(u), "%g", c->u);
    if (c->p >= 0)
      snprintf(pv, sizeof(pv), "%.3f", c->p);
    struct report_cell cells[6];
    cells[0] = cell(REPORT_CELL_HEAD, c->lane);
    cells[1] = cell(REPORT_CELL_TEXT, c->reference);
    cells[2] = cell(REPORT_CELL_NUMBER, ratio);
    cells[3] = cell(REPORT_CELL_NUMBER, u);
    cells[4] = cell(REPORT_CELL_NUMBER, pv);
    cells[5] = cell(REPORT_CELL_TEXT, c->reason ? c->reason : c->verdict);
    s->ops->table.row(s, cells, 6);
  }
  s->ops->table.end(s);
  s->ops->section.end(s, 3);
}

/* Each input of a merged document and whether its provenance (its
 * artifact attestation) was verified: "official" is a claim anyone can
 * type, an attestation is not. */
static void inputs_section(struct report_sink *s)
{
  static const char *const cols[] = {"input", "platform", "provenance"};
  const struct report *r = s->r;
  int unverified = 0;

  if (r->ninputs == 0)
    return;
  for (int i = 0; i < r->ninputs; i++)
    unverified += !r->inputs[i].verified;
  s->ops->section.begin(s, 3, "Inputs", NULL, NULL, -1);
  prose(s, unverified ? "Not every input's provenance was verified: its "
                        "figures are as the file says, not attested."
                      : "Every input's artifact attestation was verified.");
  s->ops->table.begin(s, cols, 3);
  for (int i = 0; i < r->ninputs; i++) {
    struct report_cell cells[3];
    cells[0] = cell(REPORT_CELL_HEAD, r->inputs[i].name);
    cells[1] = cell(REPORT_CELL_TEXT, r->inputs[i].os);
    cells[2] = cell(REPORT_CELL_TEXT, r->inputs[i].provenance);
    s->ops->table.row(s, cells, 3);
  }
  s->ops->table.end(s);
  s->ops->section.end(s, 3);
}

static void platform_section(struct report_sink *s, int i)
{
  const struct report_platform *p = &s->r->platforms[i];
  char anchor[16];

  snprintf(anchor, sizeof(anchor), "p%d", i);
  s->ops->section.begin(s, 2, p->os, p->machine.arch, anchor, i);
  failures(s, p);
  matrix(s, i);
  report_tls_section(s, i);
  report_cost_section(s, i);
  if (!s->charts) {
    memory_section(s, i);
    package_section(s, i);
  }
  cleanliness(s, p);
  /* Only evidence that allows performance claims is compared. */
  if (p->performance_claims) {
    stability(s, p);
    comparisons(s, p);
  }
  if (s->ops->machine)
    s->ops->machine(s, i);
  s->ops->section.end(s, 2);
}

int report_sections_write(struct report_sink *s)
{
  struct report_outline outline;

  outline_of(s->r, &outline);
  s->ops->document.begin(s);
  if (!s->r->performance_claims)
    s->ops->note(s, REPORT_NOTE_WARNING, "Smoke check: no performance claims.",
                 "This evidence comes from a quick run: its workload is too "
                 "small for its timings to mean anything. They only show that "
                 "each lane ran; no comparisons or ratios are made from them.");
  s->ops->document.outline(s, &outline);
  inputs_section(s);
  /* What a change did is what a report with a baseline is read for. */
  report_baseline_section(s);
  time_section(s);
  /* Charts compare platforms: memory and packages are shown across them,
   * beside their bars; without charts, under each platform. */
  if (s->charts) {
    memory_section(s, -1);
    package_section(s, -1);
  }
  for (int i = 0; i < s->r->nplatforms; i++)
    platform_section(s, i);
  s->ops->document.end(s);
  fflush(s->f);
  return ferror(s->f) ? -1 : 0;
}
