/* The comparison for a person: plain columns on the terminal, as the run
 * summary prints them (runner/summary.c), or a Markdown table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/diff/diff_internal.h"

#define NCOLS DIFF_COLUMNS

const char *const diff_headings[DIFF_COLUMNS] = {"platform",
                                                 "lane",
                                                 "figure",
                                                 "old median [min-max]",
                                                 "new median [min-max]",
                                                 "change",
                                                 "verdict",
                                                 "test (n old/new, p, Holm p)"};

/* A table kept until every cell is known, so each column is as wide as
 * its widest cell. */
struct table {
  char (*cells)[NCOLS][DIFF_TEXT_MAX];
  int nrows, cap;
};

static void table_add(struct table *t, char row[NCOLS][DIFF_TEXT_MAX])
{
  void *bigger = diff_grow(t->cells, t->nrows, &t->cap, sizeof(*t->cells));
  if (bigger == NULL)
    return; /* out of memory: the row is left out */
  t->cells = bigger;
  memcpy(t->cells[t->nrows++], row, sizeof(*t->cells));
}

/* Columns as a terminal counts them: UTF-8 continuation bytes take none. */
static int width_of(const char *s)
{
  int w = 0;
  for (; *s; s++)
    w += ((unsigned char)*s & 0xc0) != 0x80;
  return w;
}

static void cell(FILE *f, const char *text, int width, int markdown)
{
  int w = 0;
  for (const char *s = text; *s; s++) {
    if (markdown && *s == '|')
      fputc('\\', f), w++;
    fputc(*s, f);
    w += ((unsigned char)*s & 0xc0) != 0x80;
  }
  for (; w < width; w++)
    fputc(' ', f);
}

static void table_print(const struct table *t, int markdown, FILE *f)
{
  int width[NCOLS] = {0};

  for (int r = 0; r < t->nrows; r++)
    for (int c = 0; c < NCOLS; c++) {
      int w = width_of(t->cells[r][c]);
      for (const char *s = t->cells[r][c]; markdown && *s; s++)
        w += *s == '|';
      if (w > width[c])
        width[c] = w;
    }
  for (int r = 0; r < t->nrows; r++) {
    int last = NCOLS - 1;
    while (!markdown && last > 0 && t->cells[r][last][0] == '\0')
      last--;
    if (markdown)
      fputs("|", f);
    for (int c = 0; c <= last; c++) {
      if (markdown) {
        fputc(' ', f);
        cell(f, t->cells[r][c], width[c] < 3 ? 3 : width[c], 1);
        fputs(" |", f);
      } else {
        cell(f, t->cells[r][c], c == last ? 0 : width[c], 0);
        if (c < last)
          fputs("  ", f);
      }
    }
    fputc('\n', f);
    if (markdown && r == 0) {
      fputs("|", f);
      for (int c = 0; c < NCOLS; c++) {
        fputc(' ', f);
        for (int k = 0; k < (width[c] < 3 ? 3 : width[c]); k++)
          fputc('-', f);
        fputs(" |", f);
      }
      fputc('\n', f);
    }
  }
}

/* The scale a unit is shown in for a value of about v. */
static void scale_of(const char *unit, double v, double *div, const char **name,
                     int *decimals)
{
  double a = fabs(v);
  *div = 1;
  *decimals = 0;
  *name = unit;
  if (strcmp(unit, "ns") == 0) {
    if (a >= 1e6)
      *div = 1e6, *name = "ms", *decimals = 2;
    else if (a >= 1e4)
      *div = 1e3, *name = "µs", *decimals = 1;
  } else if (strcmp(unit, "us") == 0) {
    *name = "µs";
    *decimals = a >= 100 ? 1 : 3;
  } else if (strcmp(unit, "bytes") == 0) {
    if (a >= 1048576)
      *div = 1048576, *name = "MiB", *decimals = 1;
    else if (a >= 10240)
      *div = 1024, *name = "KiB", *decimals = 1;
    else
      *name = "B";
  } else if (strcmp(unit, "files") == 0) {
    *name = "";
  }
}

void diff_value_text(const char *unit, double v, char *out, size_t outlen)
{
  double div;
  const char *name;
  int dec;

  scale_of(unit, v, &div, &name, &dec);
  snprintf(out, outlen, "%.*f%s%s", dec, v / div, name[0] ? " " : "", name);
}

/* "1.6 µs [1.6-1.7]" for a sampled side (median and range in the
 * median's unit), the exact value for a package's, the text of a status
 * or a hash (its first 12 bytes, as the run summary shows it). */
static void side_text(const struct diff_row *r, int old, char *out, size_t len)
{
  const struct diff_side *s = old ? &r->old_side : &r->new_side;
  const char *text = old ? r->old_text : r->new_text;
  double div;
  const char *name;
  int dec;

  if (text[0] != '\0') {
    /* Cut between characters: a hash's text comes from the document and
     * may hold any character where its 12th byte falls. */
    size_t cap = strcmp(r->figure, "sha256") == 0 ? 13 : 301;
    diff_text(out, len < cap ? len : cap, text);
    return;
  }
  if (s->n == 0) {
    snprintf(out, len, "-");
    return;
  }
  if (r->kind == DIFF_ROW_PACKAGE) {
    snprintf(out, len, "%.0f%s", s->median,
             strcmp(r->unit, "bytes") == 0 ? " B" : "");
    return;
  }
  scale_of(r->unit, s->median, &div, &name, &dec);
  if (r->kind == DIFF_ROW_GEOMEAN || s->n == 1)
    snprintf(out, len, "%.*f %s", dec, s->median / div, name);
  else
    snprintf(out, len, "%.*f %s [%.*f-%.*f]", dec, s->median / div, name, dec,
             s->min / div, dec, s->max / div);
}

static void change_text(const struct diff_row *r, char *out, size_t len)
{
  out[0] = '\0';
  if (r->kind == DIFF_ROW_PACKAGE && r->old_side.n && r->new_side.n &&
      r->new_side.median != r->old_side.median) {
    double delta = r->new_side.median - r->old_side.median;
    snprintf(out, len, "%+.0f%s", delta,
             strcmp(r->unit, "bytes") == 0 ? " B" : "");
    if (r->have_change)
      snprintf(out + strlen(out), len - strlen(out), " (%+.1f%%)",
               r->change_pct);
  } else if (r->have_change && r->kind != DIFF_ROW_PACKAGE) {
    snprintf(out, len, "%+.1f%%", r->change_pct);
  }
}

static void test_text(const struct diff_row *r, char *out, size_t len)
{
  out[0] = '\0';
  if (r->tested)
    snprintf(out, len, "n %d/%d, p %.2g%s, Holm %.2g", r->old_side.n,
             r->new_side.n, r->p, r->p_exact ? "" : " (normal approx.)",
             r->p_holm);
  else if (r->reason[0] != '\0')
    snprintf(out, len, "%s", r->reason);
  else if (r->kind == DIFF_ROW_GEOMEAN)
    snprintf(out, len, "over %d lanes", r->old_side.n);
}

void diff_row_cells(const struct diff_row *r,
                    char cells[DIFF_COLUMNS][DIFF_TEXT_MAX])
{
  snprintf(cells[0], DIFF_TEXT_MAX, "%s", r->platform);
  snprintf(cells[1], DIFF_TEXT_MAX, "%s", r->subject);
  snprintf(cells[2], DIFF_TEXT_MAX, "%s", r->figure);
  side_text(r, 1, cells[3], DIFF_TEXT_MAX);
  side_text(r, 0, cells[4], DIFF_TEXT_MAX);
  change_text(r, cells[5], DIFF_TEXT_MAX);
  snprintf(cells[6], DIFF_TEXT_MAX, "%s", r->verdict);
  test_text(r, cells[7], DIFF_TEXT_MAX);
}

int diff_row_order(const struct diff *d, int **order)
{
  int n = 0;

  *order = malloc((size_t)(d->nrows ? d->nrows : 1) * sizeof(**order));
  if (*order == NULL)
    return -1;
  /* Each platform's rows together, in the order of their first row. */
  for (int i = 0; i < d->nrows; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = strcmp(d->rows[j].platform, d->rows[i].platform) == 0;
    if (seen)
      continue;
    for (int k = i; k < d->nrows; k++)
      if (strcmp(d->rows[k].platform, d->rows[i].platform) == 0)
        (*order)[n++] = k;
  }
  return n;
}

static void build(const struct diff *d, struct table *t)
{
  char row[NCOLS][DIFF_TEXT_MAX];
  int *order, n = diff_row_order(d, &order);

  for (int c = 0; c < NCOLS; c++)
    snprintf(row[c], sizeof(row[c]), "%s", diff_headings[c]);
  table_add(t, row);
  for (int i = 0; i < n; i++) {
    diff_row_cells(&d->rows[order[i]], row);
    table_add(t, row);
  }
  free(order);
}

static void header(const struct diff *d, const char *old_name,
                   const char *new_name, int markdown, FILE *f)
{
  fprintf(f, "OLD %s (%s) against NEW %s (%s)\n\n", old_name, d->old_file.mode,
          new_name, d->new_file.mode);
  for (int i = 0; i < d->nnotes; i++)
    fprintf(f, "%s%s: sampled figures not compared: %s\n", markdown ? "- " : "",
            d->notes[i].platform, d->notes[i].text);
  fprintf(f,
          "%s%d sampled comparison%s (exact Mann-Whitney U, two-sided), "
          "Holm-Bonferroni over them at alpha %g; a significant change "
          "within %g%% is a tie\n\n",
          d->nnotes && markdown ? "\n" : "", d->tested,
          d->tested == 1 ? "" : "s", d->opts.alpha, d->opts.threshold_pct);
}

static void entries_print(const struct diff *d, int markdown, FILE *f)
{
  if (d->nentries == 0)
    return;
  fputs("\npackage entries added, removed, grown or shrunk:\n\n", f);
  if (markdown)
    fputs("| platform | runtime | entry | change | old | new |\n"
          "| --- | --- | --- | --- | --- | --- |\n",
          f);
  for (int i = 0; i < d->nentries; i++) {
    const struct diff_entry *e = &d->entries[i];
    char o[32] = "-", n[32] = "-";
    if (e->old_bytes >= 0)
      snprintf(o, sizeof(o), "%lld B", e->old_bytes);
    if (e->new_bytes >= 0)
      snprintf(n, sizeof(n), "%lld B", e->new_bytes);
    if (markdown) {
      fprintf(f, "| %s | %s | `", e->platform, e->runtime);
      cell(f, e->path, 0, 1);
      fprintf(f, "` | %s | %s | %s |\n", e->change, o, n);
    } else {
      fprintf(f, "  %s %s %s: %s (%s -> %s)\n", e->platform, e->runtime,
              e->path, e->change, o, n);
    }
  }
}

static void footer(const struct diff *d, int markdown, FILE *f)
{
  int shown = 0;
  fputc('\n', f);
  if (d->regressions == 0) {
    fputs(markdown ? "**No regression.**\n" : "no regression\n", f);
    return;
  }
  fprintf(f, "%s%d regression%s:%s", markdown ? "**" : "", d->regressions,
          d->regressions == 1 ? "" : "s", markdown ? "**" : "");
  for (int i = 0; i < d->nrows; i++) {
    const struct diff_row *r = &d->rows[i];
    if (!r->regression)
      continue;
    fprintf(f, "%s%s %s %s %s", shown++ ? ", " : " ", r->platform, r->subject,
            r->figure, r->verdict);
  }
  fputc('\n', f);
}

static int render(const struct diff *d, const char *old_name,
                  const char *new_name, int markdown, FILE *f)
{
  struct table t = {NULL, 0, 0};

  if (markdown)
    fputs("## crossrun compare\n\n", f);
  header(d, old_name, new_name, markdown, f);
  build(d, &t);
  table_print(&t, markdown, f);
  free(t.cells);
  entries_print(d, markdown, f);
  footer(d, markdown, f);
  return ferror(f) ? -1 : 0;
}

int diff_print(const struct diff *d, const char *old_name, const char *new_name,
               FILE *f)
{
  return render(d, old_name, new_name, 0, f);
}

int diff_markdown(const struct diff *d, const char *old_name,
                  const char *new_name, FILE *f)
{
  return render(d, old_name, new_name, 1, f);
}
