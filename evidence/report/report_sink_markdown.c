/* The Markdown sink (GitHub-flavoured: tables, one alert) of the report's
 * sections (evidence/report/report_sections.c). */
#include "evidence/report/report_sink.h"

#include <stdlib.h>
#include <string.h>

#include "evidence/base/dynbuf.h"

/* ---- Markdown text ---- */

static int is_alnum(uint32_t c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Where Markdown text goes: the stream, or (b not NULL) a table cell
 * being built, since a table is written only once every cell is known. */
struct md_out {
  FILE *f;
  struct dynbuf *b;
};

static void out_str(struct md_out *o, const char *s)
{
  if (o->b)
    dynbuf_add(o->b, s, strlen(s)); /* a cell too long is cut */
  else
    fputs(s, o->f);
}

static void out_utf8(struct md_out *o, uint32_t c)
{
  char u[5] = {0};

  if (o->b == NULL) {
    report_put_utf8(o->f, c);
    return;
  }
  if (c < 0x80) {
    u[0] = (char)c;
  } else if (c < 0x800) {
    u[0] = (char)(0xc0 | (c >> 6));
    u[1] = (char)(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    u[0] = (char)(0xe0 | (c >> 12));
    u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    u[2] = (char)(0x80 | (c & 0x3f));
  } else {
    u[0] = (char)(0xf0 | (c >> 18));
    u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
    u[3] = (char)(0x80 | (c & 0x3f));
  }
  out_str(o, u);
}

/* Text from the file, safe in a table cell or a paragraph: on one line,
 * '<' and '&' as entities (so no tag can form), Markdown's punctuation escaped.
 * '_' inside a word cannot start emphasis and is left alone for legibility. */
static void md_to(struct md_out *o, const char *s)
{
  uint32_t prev = ' ';

  if (s == NULL) {
    out_str(o, "-");
    return;
  }
  while (*s) {
    uint32_t c, next;
    char esc[3] = {'\\', 0, 0};
    s += report_utf8_next(s, &c);
    next = ' ';
    if (*s)
      report_utf8_next(s, &next);
    if (c == '\n' || c == '\r' || c == '\t')
      out_str(o, " ");
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
      ; /* control characters are dropped */
    else if (c == '&')
      out_str(o, "&amp;");
    else if (c == '<')
      out_str(o, "&lt;");
    else if (c < 0x80 && strchr("\\`*[]|~#!", (int)c) != NULL) {
      esc[1] = (char)c;
      out_str(o, esc);
    } else if (c == '_' && (!is_alnum(prev) || !is_alnum(next)))
      out_str(o, "\\_");
    else
      out_utf8(o, c);
    prev = c;
  }
}

static void md(FILE *f, const char *s)
{
  struct md_out o = {f, NULL};
  md_to(&o, s);
}

/* A command as inline code: a fence longer than any run of backticks in
 * it, so nothing inside can end it; one line. */
static void md_code(FILE *f, const char *s)
{
  int run = 0, longest = 0;

  for (const char *p = s; *p; p++) {
    run = *p == '`' ? run + 1 : 0;
    if (run > longest)
      longest = run;
  }
  for (int i = 0; i <= longest; i++)
    fputc('`', f);
  fputc(' ', f);
  while (*s) {
    uint32_t c;
    s += report_utf8_next(s, &c);
    if (c == '\n' || c == '\r' || c == '\t')
      fputc(' ', f);
    else if (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c < 0xa0))
      report_put_utf8(f, c);
  }
  fputc(' ', f);
  for (int i = 0; i <= longest; i++)
    fputc('`', f);
}

static void spans(FILE *f, const struct report_span *sp, int n)
{
  for (int i = 0; i < n; i++) {
    if (sp[i].kind == REPORT_SPAN_TEXT || sp[i].kind == REPORT_SPAN_CAUSE)
      md(f, sp[i].text);
    else if (sp[i].kind == REPORT_SPAN_EMPH)
      fprintf(f, "*%s*", sp[i].text);
    else
      fputs(sp[i].text, f);
  }
}

/* ---- tables: every cell kept until the table ends, then each column
 * written as wide as its widest cell, so the pipes line up in the text
 * whatever the names (a lane's may have 63 characters) ---- */

#define MD_CELL_MAX 65536

struct md_table {
  int ncols;
  int nrows;
  int cap;              /* rows */
  struct dynbuf *cells; /* nrows * ncols; row 0 the heading */
};

/* The Markdown sink: the sink the sections write to, and its table. */
struct md_sink {
  struct report_sink sink; /* first: the operations get it */
  struct md_table table;
};

static struct md_table *table_of(struct report_sink *s)
{
  return &((struct md_sink *)s)->table;
}

/* A new row of empty cells; 0, or -1 when out of memory. */
static int md_table_row(struct md_table *t)
{
  if (t->nrows == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    struct dynbuf *c =
        realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof(*c));
    if (c == NULL)
      return -1;
    t->cells = c;
    t->cap = cap;
  }
  for (int i = 0; i < t->ncols; i++)
    dynbuf_init(&t->cells[t->nrows * t->ncols + i], MD_CELL_MAX);
  t->nrows++;
  return 0;
}

/* Cell i of the last row, to write into. */
static struct md_out md_cell(struct md_table *t, int i)
{
  struct md_out o = {NULL, &t->cells[(t->nrows - 1) * t->ncols + i]};
  return o;
}

static void md_table_begin(struct report_sink *s, int ncols)
{
  struct md_table *t = table_of(s);
  t->ncols = ncols > 0 ? ncols : 1;
  t->nrows = 0;
}

/* Columns as a reader of the raw text sees them: UTF-8 continuation
 * bytes take none. */
static int md_width(const struct dynbuf *b)
{
  const char *p = dynbuf_ptr(b);
  int w = 0;
  for (; *p; p++)
    w += ((unsigned char)*p & 0xc0) != 0x80;
  return w;
}

static void md_table_end(struct report_sink *s)
{
  struct md_table *t = table_of(s);
  int *width = calloc((size_t)t->ncols, sizeof(*width));

  for (int c = 0; width && c < t->ncols; c++) {
    width[c] = 3; /* the rule's "---" */
    for (int r = 0; r < t->nrows; r++) {
      int w = md_width(&t->cells[r * t->ncols + c]);
      if (w > width[c])
        width[c] = w;
    }
  }
  for (int r = 0; width && r < t->nrows; r++) {
    fputs("|", s->f);
    for (int c = 0; c < t->ncols; c++) {
      const struct dynbuf *b = &t->cells[r * t->ncols + c];
      fputs(" ", s->f);
      fputs(dynbuf_ptr(b), s->f);
      for (int w = md_width(b); w < width[c]; w++)
        fputc(' ', s->f);
      fputs(" |", s->f);
    }
    fputs("\n", s->f);
    if (r == 0) {
      fputs("|", s->f);
      for (int c = 0; c < t->ncols; c++) {
        fputs(" ", s->f);
        for (int w = 0; w < width[c]; w++)
          fputc('-', s->f);
        fputs(" |", s->f);
      }
      fputs("\n", s->f);
    }
  }
  for (int i = 0; i < t->nrows * t->ncols; i++)
    dynbuf_release(&t->cells[i]);
  free(t->cells);
  free(width);
  t->cells = NULL;
  t->nrows = t->cap = 0;
}

/* A row of plain cells: each NULL-terminated list item md-escaped. */
static void md_table_texts(struct report_sink *s, const char *const *texts)
{
  struct md_table *t = table_of(s);
  if (md_table_row(t) != 0)
    return;
  for (int i = 0; i < t->ncols && texts[i]; i++) {
    struct md_out o = md_cell(t, i);
    md_to(&o, texts[i]);
  }
}

/* ---- the opening lines ---- */

static void document_begin(struct report_sink *s)
{
  fputs("# crossrun report\n\n", s->f);
}

static void document_outline(struct report_sink *s,
                             const struct report_outline *o)
{
  const struct report *r = s->r;
  FILE *f = s->f;

  if (o->bad == 0)
    fprintf(f, "**Result: every lane that ran passed** (%s on %s).\n\n",
            o->lanes_text, o->platforms_text);
  else
    fprintf(f, "**Result: %d of %s did not pass** (see Failures).\n\n", o->bad,
            o->lanes_text);
  md_table_begin(s, 2);
  md_table_texts(s, (const char *const[]){"", "", NULL});
  md_table_texts(s, (const char *const[]){"evidence", r->source, NULL});
  md_table_texts(s, (const char *const[]){"mode", r->mode, NULL});
  if (md_table_row(table_of(s)) == 0) {
    struct md_out k = md_cell(table_of(s), 0), v = md_cell(table_of(s), 1);
    out_str(&k, "platforms");
    for (int p = 0; p < r->nplatforms; p++) {
      out_str(&v, p ? ", " : "");
      md_to(&v, r->platforms[p].os);
      if (r->platforms[p].machine.arch) {
        out_str(&v, " ");
        md_to(&v, r->platforms[p].machine.arch);
      }
    }
  }
  md_table_texts(s, (const char *const[]){
                        "official",
                        r->official ? "yes" : "no (not an official record)",
                        NULL});
  if (r->commit)
    md_table_texts(s, (const char *const[]){"commit", r->commit, NULL});
  if (r->tool_version && md_table_row(table_of(s)) == 0) {
    struct md_out k = md_cell(table_of(s), 0), v = md_cell(table_of(s), 1);
    out_str(&k, "tool");
    out_str(&v, "crossrun ");
    md_to(&v, r->tool_version);
  }
  md_table_end(s);
  fputs("\n", f);
}

static void document_end(struct report_sink *s)
{
}

/* ---- the sections' parts ---- */

static void section_begin(struct report_sink *s, int level, const char *title,
                          const char *detail, const char *anchor, int platform)
{
  fputs(level == 2 ? "## " : "### ", s->f);
  md(s->f, title);
  if (detail) {
    fputs(" ", s->f);
    md(s->f, detail);
  }
  fputs("\n\n", s->f);
}

static void section_end(struct report_sink *s, int level)
{
}

static void paragraph(struct report_sink *s, const struct report_span *sp,
                      int n)
{
  spans(s->f, sp, n);
  fputs("\n\n", s->f);
}

static void table_begin(struct report_sink *s, const char *const *titles, int n)
{
  struct md_table *t = table_of(s);

  md_table_begin(s, n);
  if (md_table_row(t) != 0)
    return;
  for (int i = 0; i < n; i++) {
    struct md_out o = md_cell(t, i);
    md_to(&o, titles[i]);
  }
}

/* A lane's time, or its status when it has none; a status other than
 * passed is always shown. */
static void lane_cell(struct md_out *o, const struct report_lane *l)
{
  char buf[128];

  if (l == NULL) {
    out_str(o, "not in this evidence");
    return;
  }
  if (strcmp(l->status, "passed") != 0) {
    out_str(o, "**");
    md_to(o, l->status);
    snprintf(buf, sizeof(buf), "** %d/%d", l->passed, l->nsamples);
    out_str(o, buf);
    if (l->ns_per_rt.n > 0)
      out_str(o, ": ");
  }
  if (l->ns_per_rt.n > 0) {
    report_format_figure(buf, sizeof(buf), &l->ns_per_rt, REPORT_NS);
    out_str(o, buf);
  }
}

static void table_row(struct report_sink *s, const struct report_cell *c, int n)
{
  struct md_table *t = table_of(s);

  if (md_table_row(t) != 0)
    return;
  for (int i = 0; i < n && i < t->ncols; i++) {
    struct md_out o = md_cell(t, i);
    switch (c[i].kind) {
    case REPORT_CELL_HEAD:
    case REPORT_CELL_TEXT:
      out_str(&o, c[i].strong ? "**" : "");
      md_to(&o, c[i].text);
      out_str(&o, c[i].strong ? "**" : "");
      break;
    case REPORT_CELL_NUMBER:
      out_str(&o, c[i].text);
      if (c[i].detail) {
        out_str(&o, " ");
        md_to(&o, c[i].detail);
      }
      break;
    case REPORT_CELL_LANE:
      lane_cell(&o, c[i].lane);
      break;
    case REPORT_CELL_EMPTY:
      break;
    }
  }
}

static void table_end(struct report_sink *s)
{
  md_table_end(s);
  fputs("\n", s->f);
}

static void list_begin(struct report_sink *s, enum report_list_style style)
{
}

static void list_item(struct report_sink *s, const char *term, const char *text)
{
  fputs("- ", s->f);
  md(s->f, term);
  fputs(": ", s->f);
  md(s->f, text);
  fputs("\n", s->f);
}

static void list_end(struct report_sink *s, enum report_list_style style)
{
  fputs("\n", s->f);
}

/* A summary needs no word that all is well; a warning is GitHub's alert. */
static void note(struct report_sink *s, enum report_note_tone tone,
                 const char *lead, const char *text)
{
  if (tone == REPORT_NOTE_QUIET)
    return;
  fprintf(s->f, "%s**%s** %s\n\n",
          tone == REPORT_NOTE_WARNING ? "> [!WARNING]\n> " : "", lead, text);
}

/* ---- failures: a line a sample, each naming its lane ---- */

static void failure_begin(struct report_sink *s, const struct report_lane *l,
                          const char *why)
{
  if (why == NULL)
    return;
  fputs("- **", s->f);
  md(s->f, l->name);
  fputs("**: ", s->f);
  md(s->f, l->status);
  fputs(": ", s->f);
  md(s->f, why);
  fputs("\n", s->f);
}

static void failure_line(struct report_sink *s, const struct report_lane *l,
                         const struct report_span *sp, int n)
{
  fputs("- **", s->f);
  md(s->f, l->name);
  fputs("** ", s->f);
  spans(s->f, sp, n);
  fputs("\n", s->f);
}

static void failure_reproduce(struct report_sink *s, const char *directory,
                              const char *command)
{
  fputs("  - reproduce: ", s->f);
  md_code(s->f, command);
  if (directory != NULL) {
    fputs(" from ", s->f);
    md_code(s->f, directory);
    if (strcmp(directory, ".") == 0)
      fputs(" (the checkout's root)", s->f);
  }
  fputs("\n", s->f);
}

static void failure_end(struct report_sink *s)
{
}

/* ---- the blocks Markdown words its own way ---- */

static void package_begin(struct report_sink *s, int across)
{
  static const char *const cols[] = {"platform", "runtime",     "artifact",
                                     "packed",   "unpacked",    "files",
                                     "SHA-256",  "reproducible"};
  table_begin(s, cols + !across, 8 - !across);
}

static void package_row(struct report_sink *s,
                        const struct report_package_row *row)
{
  struct md_table *t = table_of(s);
  int c = 0;
  struct md_out o;

  if (md_table_row(t) != 0)
    return;
  if (row->platform) {
    o = md_cell(t, c++);
    md_to(&o, row->platform);
  }
  o = md_cell(t, c++);
  md_to(&o, row->runtime);
  o = md_cell(t, c++);
  if (row->missing) {
    out_str(&o, "not measured: ");
    md_to(&o, row->missing);
    return;
  }
  md_to(&o, row->file_name);
  o = md_cell(t, c++);
  out_str(&o, row->packed);
  o = md_cell(t, c++);
  out_str(&o, row->unpacked);
  o = md_cell(t, c++);
  out_str(&o, row->files);
  o = md_cell(t, c++);
  md_to(&o, row->sha256);
  o = md_cell(t, c++);
  out_str(&o, row->reproducible < 0 ? "unknown"
              : row->reproducible   ? "yes"
                                    : "**no**: a second pack differs");
}

/* A row of the key / value table: its key, and its value cell to write. */
static struct md_out key_row(struct report_sink *s, const char *key)
{
  static struct dynbuf lost = DYNBUF_INIT(0); /* holds nothing */
  struct md_table *t = table_of(s);
  struct md_out k, nowhere = {NULL, &lost};

  if (md_table_row(t) != 0)
    return nowhere; /* out of memory: the row is left out */
  k = md_cell(t, 0);
  out_str(&k, key);
  return md_cell(t, 1);
}

static void machine(struct report_sink *s, int platform)
{
  const struct report_platform *p = &s->r->platforms[platform];
  FILE *f = s->f;
  char text[256];
  struct md_out v;

  fputs("### Machine and toolchains\n\n", f);
  md_table_begin(s, 2);
  md_table_texts(s, (const char *const[]){"", "", NULL});
  v = key_row(s, "system");
  md_to(&v, p->os);
  if (p->machine.arch) {
    out_str(&v, " ");
    md_to(&v, p->machine.arch);
  }
  if (p->machine.kernel) {
    out_str(&v, ", kernel ");
    md_to(&v, p->machine.kernel);
  }
  v = key_row(s, "CPU");
  md_to(&v, p->machine.cpu_model);
  if (p->machine.logical_cpus > 0) {
    snprintf(text, sizeof(text), ", %d logical CPUs", p->machine.logical_cpus);
    out_str(&v, text);
  }
  if (p->machine.memory_bytes >= 0) {
    report_format_value(text, sizeof(text), (double)p->machine.memory_bytes,
                        REPORT_BYTES);
    v = key_row(s, "memory");
    out_str(&v, text);
  }
  v = key_row(s, "mode");
  md_to(&v, p->mode);
  out_str(&v,
          p->performance_claims ? "" : " (smoke check: no performance claims)");
  out_str(&v, p->official ? ", official" : "");
  if (p->workload.round_trips >= 0) {
    v = key_row(s, "workload");
    md_to(&v, p->workload.name);
    snprintf(text, sizeof(text),
             ": %d sample%s per lane, %lld warm-up and %lld measured "
             "round trips of %lld bytes, %lld in flight",
             p->workload.samples_per_lane,
             p->workload.samples_per_lane == 1 ? "" : "s",
             (long long)p->workload.warmup_round_trips,
             (long long)p->workload.round_trips,
             (long long)p->workload.payload_bytes,
             (long long)p->workload.max_in_flight);
    out_str(&v, text);
  }
  if (report_coordinator_text(text, sizeof(text), p)) {
    v = key_row(s, "coordinator");
    md_to(&v, text);
  }
  if (p->started_at) {
    v = key_row(s, "started");
    md_to(&v, p->started_at);
  }
  if (p->provenance.commit) {
    v = key_row(s, "commit");
    md_to(&v, p->provenance.commit);
    if (p->provenance.branch) {
      out_str(&v, " on ");
      md_to(&v, p->provenance.branch);
    }
  }
  if (p->provenance.ci_provider) {
    v = key_row(s, "CI");
    md_to(&v, p->provenance.ci_provider);
    if (p->provenance.ci_workflow) {
      out_str(&v, ", ");
      md_to(&v, p->provenance.ci_workflow);
    }
    if (p->provenance.ci_run_id) {
      out_str(&v, ", run ");
      md_to(&v, p->provenance.ci_run_id);
    }
  }
  if (p->shard_count > 0) {
    snprintf(text, sizeof(text), "%d of %d", p->shard_index, p->shard_count);
    v = key_row(s, "shard");
    out_str(&v, text);
  }
  if (!p->complete) {
    v = key_row(s, "**incomplete**");
    md_to(&v, p->incomplete_reason ? p->incomplete_reason : "interrupted");
  }
  md_table_end(s);
  if (p->nruntimes > 0) {
    static const char *const cols[] = {"runtime", "toolchain", "status"};
    fputs("\n", f);
    table_begin(s, cols, 3);
    for (int i = 0; i < p->nruntimes; i++) {
      const struct report_runtime *rt = &p->runtimes[i];
      struct md_table *t = table_of(s);
      struct md_out o;
      if (md_table_row(t) != 0)
        break;
      o = md_cell(t, 0);
      md_to(&o, rt->name);
      o = md_cell(t, 1);
      md_to(&o, rt->toolchain_version);
      o = md_cell(t, 2);
      md_to(&o, rt->status);
      if (rt->reason) {
        out_str(&o, ": ");
        md_to(&o, rt->reason);
      }
    }
    md_table_end(s);
  }
  fputs("\n", f);
}

static const struct report_sink_ops markdown_ops = {
    .document = {document_begin, document_outline, document_end},
    .section = {section_begin, section_end},
    .paragraph = paragraph,
    .note = note,
    .table = {table_begin, table_row, table_end},
    .list = {list_begin, list_item, list_end},
    .failure = {failure_begin, failure_line, failure_reproduce, NULL,
                failure_end},
    .package = {package_begin, package_row, table_end},
    .machine = machine,
};

int report_markdown(const struct report *r, FILE *f)
{
  struct md_sink s = {{&markdown_ops, f, r, 0, NULL, {NULL, NULL}},
                      {0, 0, 0, NULL}};
  int rc = report_sections_write(&s.sink);

  md_table_end(&s.sink); /* frees a table the sections left open */
  return rc;
}
