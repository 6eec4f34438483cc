/* The report's section on what a round trip costs, per lane of one
 * platform (evidence/report/report_sink.h): time per round trip, the
 * latency percentiles, each peer's CPU per round trip and peak memory with
 * its label; in a sink that draws charts, a latency chart per lane. A
 * figure the evidence leaves null shows why, never a zero. Apart from
 * report_sections.c, which holds the other sections. */
#include "evidence/report/report_sink.h"

#include <stdlib.h>
#include <string.h>

#define COST_COLUMNS 9

/* A paragraph of the report's own words. */
static void prose(struct report_sink *s, const char *text)
{
  struct report_span span = {REPORT_SPAN_PROSE, text};
  s->ops->paragraph(s, &span, 1);
}
#define CELL_MAX 640

/* The cells of one lane's row, each with room for its text. */
struct cost_row {
  struct report_cell cells[COST_COLUMNS];
  char text[COST_COLUMNS][CELL_MAX];
  char label[2][512];
};

/* A lane whose figures are all missing only because the evidence is older
 * than them (or nothing passed). */
static int older(const struct report_lane *l)
{
  const char *m[3] = {l->latency_missing, l->client_cpu_per_rt_missing,
                      l->server_cpu_per_rt_missing};

  if (l->latency.present || l->client_cpu_per_rt.n > 0 ||
      l->server_cpu_per_rt.n > 0)
    return 0;
  for (int i = 0; i < 3; i++)
    if (m[i] != NULL && strcmp(m[i], REPORT_OLDER_EVIDENCE) != 0)
      return 0;
  return 1;
}

/* Cell i: "not reported: why" (text from the file), or "-" when the lane
 * has nothing that passed, or the old evidence is said once for all. */
static void missing_cell(struct cost_row *row, int i, const char *why,
                         int quiet)
{
  if (why == NULL || quiet) {
    row->cells[i] =
        (struct report_cell){REPORT_CELL_NUMBER, "-", NULL, 0, NULL};
    return;
  }
  snprintf(row->text[i], CELL_MAX, "%s%s",
           strncmp(why, "not ", 4) == 0 ? "" : "not reported: ", why);
  row->cells[i] =
      (struct report_cell){REPORT_CELL_TEXT, row->text[i], NULL, 0, NULL};
}

static void figure_cell(struct cost_row *row, int i,
                        const struct report_figure *f, enum report_unit unit,
                        const char *why, int quiet, const char *detail)
{
  if (f->n == 0) {
    missing_cell(row, i, why, quiet);
    return;
  }
  report_format_figure(row->text[i], CELL_MAX, f, unit);
  row->cells[i] =
      (struct report_cell){REPORT_CELL_NUMBER, row->text[i], NULL, 0, detail};
}

/* A percentile of the merged latency: null (no round trip measured) says
 * so. */
static void latency_cell(struct cost_row *row, int i,
                         const struct report_lane *l, int64_t v, int quiet)
{
  if (!l->latency.present) {
    missing_cell(row, i, l->latency_missing, quiet);
    return;
  }
  if (v < 0)
    snprintf(row->text[i], CELL_MAX, "none measured");
  else
    report_format_value(row->text[i], CELL_MAX, (double)v, REPORT_LATENCY_NS);
  row->cells[i] =
      (struct report_cell){REPORT_CELL_NUMBER, row->text[i], NULL, 0, NULL};
}

static void lane_row(struct cost_row *row, const struct report_lane *l,
                     int quiet)
{
  memset(row, 0, sizeof(*row));
  row->cells[0] =
      (struct report_cell){REPORT_CELL_HEAD, l->name, NULL, 0, NULL};
  figure_cell(row, 1, &l->ns_per_rt, REPORT_NS, NULL, 0, NULL);
  latency_cell(row, 2, l, l->latency.p50, quiet);
  latency_cell(row, 3, l, l->latency.p99, quiet);
  latency_cell(row, 4, l, l->latency.p99_9, quiet);
  figure_cell(row, 5, &l->client_cpu_per_rt, REPORT_CPU_US,
              l->client_cpu_per_rt_missing, quiet, NULL);
  figure_cell(row, 6, &l->server_cpu_per_rt, REPORT_CPU_US,
              l->server_cpu_per_rt_missing, quiet, NULL);
  figure_cell(row, 7, &l->client_rss, REPORT_BYTES, NULL, 0,
              report_memory_label(row->label[0], sizeof(row->label[0]),
                                  l->client_rss_label, l->client_rss_covers));
  figure_cell(row, 8, &l->server_rss, REPORT_BYTES, NULL, 0,
              report_memory_label(row->label[1], sizeof(row->label[1]),
                                  l->server_rss_label, l->server_rss_covers));
}

void report_cost_section(struct report_sink *s, int platform)
{
  static const char *const cols[COST_COLUMNS] = {"lane",
                                                 "ns per round trip",
                                                 "p50 latency",
                                                 "p99",
                                                 "p99.9",
                                                 "client CPU/rt",
                                                 "server CPU/rt",
                                                 "client peak memory",
                                                 "server peak memory"};
  const struct report_platform *p = &s->r->platforms[platform];
  struct cost_row *row = malloc(sizeof(*row));
  const char **names =
      calloc(p->nlanes > 0 ? (size_t)p->nlanes : 1, sizeof(*names));
  int passed = 0, all_older = 1;

  for (int i = 0; i < p->nlanes; i++) {
    if (p->lanes[i].passed == 0)
      continue;
    passed++;
    all_older &= older(&p->lanes[i]);
  }
  if (passed == 0 || row == NULL || names == NULL) {
    free(row);
    free(names);
    return;
  }
  s->ops->section.begin(s, 3, "Cost per round trip", NULL, NULL, -1);
  prose(s, "Over each lane's passed samples: the median time per round trip "
           "[min\xe2\x80\x93max] (throughput with many requests in flight); "
           "the latency of a round trip, from the write of its request to "
           "the read of its response, as percentiles of every measured round "
           "trip of those samples merged (each the lower bound of its "
           "histogram bucket, low by less than 0.79%); each peer's own CPU "
           "over its measured window per round trip (CPU/rt), median "
           "[min\xe2\x80\x93max]; each peer's peak memory, median, with how "
           "it was taken and what it covers. A figure that was not reported "
           "says why.");
  if (all_older)
    prose(s, "This evidence has no latency and no CPU per round trip: the "
             "crossrun that wrote it did not record them.");
  if (s->charts && !all_older) {
    int n = 0;
    for (int i = 0; i < p->nlanes; i++)
      if (p->lanes[i].passed > 0)
        names[n++] = p->lanes[i].name;
    s->ops->chart(
        s, &(struct report_chart){REPORT_CHART_LATENCY, names, n, platform});
  }
  s->ops->table.begin(s, cols, COST_COLUMNS);
  for (int i = 0; i < p->nlanes; i++) {
    if (p->lanes[i].passed == 0)
      continue;
    lane_row(row, &p->lanes[i], all_older);
    s->ops->table.row(s, row->cells, COST_COLUMNS);
  }
  s->ops->table.end(s);
  s->ops->section.end(s, 3);
  free(row);
  free(names);
}
