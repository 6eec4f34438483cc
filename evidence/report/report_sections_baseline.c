/* The report's section on what changed against a baseline (`crossrun
 * report --baseline OLD`): the rows of `crossrun compare OLD FILE`, with
 * the change and the verdict of every lane's figures, the refusals, the
 * package entries that differ and the regressions, as
 * evidence/diff/diff_render.c words them for the terminal and Markdown.
 * Apart from report_sections.c, which holds the other sections. */
#include "evidence/report/report_sink.h"

#include <stdlib.h>
#include <string.h>

#include "evidence/diff/diff.h"

/* Old, new and change are figures unless they are text from the file (a
 * status, a hash, why a package was not measured). */
static enum report_cell_kind kind_of(const struct diff_row *r, int column)
{
  if ((column == 3 && r->old_text[0]) || (column == 4 && r->new_text[0]))
    return REPORT_CELL_TEXT;
  return column >= 3 && column <= 5 ? REPORT_CELL_NUMBER : REPORT_CELL_TEXT;
}

static void rows(struct report_sink *s, const struct diff *d)
{
  static char cells[DIFF_COLUMNS][DIFF_TEXT_MAX];
  struct report_cell c[DIFF_COLUMNS];
  int *order, n = diff_row_order(d, &order);

  if (n <= 0) {
    free(order);
    return;
  }
  s->ops->table.begin(s, diff_headings, DIFF_COLUMNS);
  for (int i = 0; i < n; i++) {
    const struct diff_row *r = &d->rows[order[i]];
    diff_row_cells(r, cells);
    for (int k = 0; k < DIFF_COLUMNS; k++)
      c[k] = (struct report_cell){k == 1 ? REPORT_CELL_HEAD : kind_of(r, k),
                                  cells[k], NULL, 0, NULL};
    s->ops->table.row(s, c, DIFF_COLUMNS);
  }
  s->ops->table.end(s);
  free(order);
}

static void entries(struct report_sink *s, const struct diff *d)
{
  static const char *const cols[] = {"platform", "runtime", "entry",
                                     "change",   "old",     "new"};

  if (d->nentries == 0)
    return;
  s->ops->section.begin(s, 3, "Package entries added, removed, grown or shrunk",
                        NULL, NULL, -1);
  s->ops->table.begin(s, cols, 6);
  for (int i = 0; i < d->nentries; i++) {
    const struct diff_entry *e = &d->entries[i];
    char o[32] = "-", n[32] = "-";
    struct report_cell c[6];
    if (e->old_bytes >= 0)
      snprintf(o, sizeof(o), "%lld B", e->old_bytes);
    if (e->new_bytes >= 0)
      snprintf(n, sizeof(n), "%lld B", e->new_bytes);
    c[0] = (struct report_cell){REPORT_CELL_TEXT, e->platform, NULL, 0, NULL};
    c[1] = (struct report_cell){REPORT_CELL_TEXT, e->runtime, NULL, 0, NULL};
    c[2] = (struct report_cell){REPORT_CELL_HEAD, e->path, NULL, 0, NULL};
    c[3] = (struct report_cell){REPORT_CELL_TEXT, e->change, NULL, 0, NULL};
    c[4] = (struct report_cell){REPORT_CELL_NUMBER, o, NULL, 0, NULL};
    c[5] = (struct report_cell){REPORT_CELL_NUMBER, n, NULL, 0, NULL};
    s->ops->table.row(s, c, 6);
  }
  s->ops->table.end(s);
  s->ops->section.end(s, 3);
}

/* "3 regressions: linux c-c ns_per_round_trip slower, ..." (the rows'
 * texts are one line each, diff_text). */
static void regressions(struct report_sink *s, const struct diff *d)
{
  char lead[64], text[1024];

  if (d->regressions == 0) {
    s->ops->note(s, REPORT_NOTE_QUIET, "No regression.",
                 "No lane is slower or bigger beyond the threshold, no "
                 "package grew, and no lane stopped passing.");
    return;
  }
  snprintf(lead, sizeof(lead), "%d regression%s:", d->regressions,
           d->regressions == 1 ? "" : "s");
  s->ops->paragraph(s, (struct report_span[]){{REPORT_SPAN_CAUSE, lead}}, 1);
  s->ops->list.begin(s, REPORT_LIST_PLAIN);
  for (int i = 0; i < d->nrows; i++) {
    const struct diff_row *r = &d->rows[i];
    if (!r->regression)
      continue;
    snprintf(text, sizeof(text), "%s %s %s", r->platform, r->figure,
             r->verdict);
    s->ops->list.item(s, r->subject, text);
  }
  s->ops->list.end(s, REPORT_LIST_PLAIN);
}

void report_baseline_section(struct report_sink *s)
{
  const struct diff *d = s->baseline;
  char tests[256];

  if (d == NULL)
    return;
  s->ops->section.begin(s, 2, "Change against the baseline", NULL, "baseline",
                        -1);
  s->ops->paragraph(
      s,
      (struct report_span[]){{REPORT_SPAN_PROSE, "Baseline "},
                             {REPORT_SPAN_TEXT, s->baseline_names[0]},
                             {REPORT_SPAN_PROSE, " ("},
                             {REPORT_SPAN_TEXT, d->old_file.mode},
                             {REPORT_SPAN_PROSE, ") against this evidence, "},
                             {REPORT_SPAN_TEXT, s->baseline_names[1]},
                             {REPORT_SPAN_PROSE, " ("},
                             {REPORT_SPAN_TEXT, d->new_file.mode},
                             {REPORT_SPAN_PROSE, ")."}},
      9);
  for (int i = 0; i < d->nnotes; i++)
    s->ops->paragraph(
        s,
        (struct report_span[]){
            {REPORT_SPAN_TEXT, d->notes[i].platform},
            {REPORT_SPAN_PROSE, ": sampled figures not compared: "},
            {REPORT_SPAN_TEXT, d->notes[i].text}},
        3);
  snprintf(tests, sizeof(tests),
           "%d sampled comparison%s (exact Mann-Whitney U, two-sided), "
           "Holm-Bonferroni over them at alpha %g; a significant change "
           "within %g%% is a tie, an insignificant one ~.",
           d->tested, d->tested == 1 ? "" : "s", d->opts.alpha,
           d->opts.threshold_pct);
  s->ops->paragraph(s, (struct report_span[]){{REPORT_SPAN_PROSE, tests}}, 1);
  rows(s, d);
  entries(s, d);
  regressions(s, d);
  s->ops->section.end(s, 2);
}
