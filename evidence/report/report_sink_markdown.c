/* The Markdown sink (GitHub-flavoured: tables, one alert) of the report's
 * sections (evidence/report/report_sections.c). */
#include "evidence/report/report_sink.h"

#include <string.h>

/* ---- Markdown text ---- */

static int is_alnum(uint32_t c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Text from the file, safe in a table cell or a paragraph: on one line,
 * '<' and '&' as entities (so no tag can form), Markdown's punctuation escaped.
 * '_' inside a word cannot start emphasis and is left alone for legibility. */
static void md(FILE *f, const char *s)
{
  uint32_t prev = ' ';

  if (s == NULL) {
    fputs("-", f);
    return;
  }
  while (*s) {
    uint32_t c, next;
    s += report_utf8_next(s, &c);
    next = ' ';
    if (*s)
      report_utf8_next(s, &next);
    if (c == '\n' || c == '\r' || c == '\t')
      fputc(' ', f);
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
      ; /* control characters are dropped */
    else if (c == '&')
      fputs("&amp;", f);
    else if (c == '<')
      fputs("&lt;", f);
    else if (c < 0x80 && strchr("\\`*[]|~#!", (int)c) != NULL)
      fprintf(f, "\\%c", (int)c);
    else if (c == '_' && (!is_alnum(prev) || !is_alnum(next)))
      fputs("\\_", f);
    else
      report_put_utf8(f, c);
    prev = c;
  }
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
  fputs("| | |\n| --- | --- |\n| evidence | ", f);
  md(f, r->source);
  fputs(" |\n| mode | ", f);
  md(f, r->mode);
  fputs(" |\n| platforms | ", f);
  for (int p = 0; p < r->nplatforms; p++) {
    fputs(p ? ", " : "", f);
    md(f, r->platforms[p].os);
    if (r->platforms[p].machine.arch) {
      fputs(" ", f);
      md(f, r->platforms[p].machine.arch);
    }
  }
  fprintf(f, " |\n| official | %s |\n",
          r->official ? "yes" : "no (not an official record)");
  if (r->commit) {
    fputs("| commit | ", f);
    md(f, r->commit);
    fputs(" |\n", f);
  }
  if (r->tool_version) {
    fputs("| tool | crossrun ", f);
    md(f, r->tool_version);
    fputs(" |\n", f);
  }
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
  fputs("|", s->f);
  for (int i = 0; i < n; i++) {
    fputs(" ", s->f);
    md(s->f, titles[i]);
    fputs(" |", s->f);
  }
  fputs("\n|", s->f);
  for (int i = 0; i < n; i++)
    fputs(" --- |", s->f);
  fputs("\n", s->f);
}

/* A lane's time, or its status when it has none; a status other than
 * passed is always shown. */
static void lane_cell(FILE *f, const struct report_lane *l)
{
  char buf[128];

  if (l == NULL) {
    fputs("not in this evidence", f);
    return;
  }
  if (strcmp(l->status, "passed") != 0) {
    fputs("**", f);
    md(f, l->status);
    fprintf(f, "** %d/%d", l->passed, l->nsamples);
    if (l->ns_per_rt.n > 0)
      fputs(": ", f);
  }
  if (l->ns_per_rt.n > 0) {
    report_format_figure(buf, sizeof(buf), &l->ns_per_rt, REPORT_NS);
    fputs(buf, f);
  }
}

static void table_row(struct report_sink *s, const struct report_cell *c, int n)
{
  fputs("|", s->f);
  for (int i = 0; i < n; i++) {
    fputs(" ", s->f);
    switch (c[i].kind) {
    case REPORT_CELL_HEAD:
    case REPORT_CELL_TEXT:
      fputs(c[i].strong ? "**" : "", s->f);
      md(s->f, c[i].text);
      fputs(c[i].strong ? "**" : "", s->f);
      break;
    case REPORT_CELL_NUMBER:
      fputs(c[i].text, s->f);
      break;
    case REPORT_CELL_LANE:
      lane_cell(s->f, c[i].lane);
      break;
    case REPORT_CELL_EMPTY:
      break;
    }
    fputs(" |", s->f);
  }
  fputs("\n", s->f);
}

static void table_end(struct report_sink *s)
{
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

static void failure_reproduce(struct report_sink *s, const char *command)
{
  fputs("  - reproduce: ", s->f);
  md_code(s->f, command);
  fputs("\n", s->f);
}

static void failure_end(struct report_sink *s)
{
}

/* ---- the blocks Markdown words its own way ---- */

static void package_begin(struct report_sink *s, int across)
{
  fprintf(s->f,
          "|%s runtime | artifact | packed | unpacked | files | SHA-256 | "
          "reproducible |\n|%s --- | --- | --- | --- | --- | --- | --- |\n",
          across ? " platform |" : "", across ? " --- |" : "");
}

static void package_row(struct report_sink *s,
                        const struct report_package_row *row)
{
  FILE *f = s->f;

  fputs("| ", f);
  if (row->platform) {
    md(f, row->platform);
    fputs(" | ", f);
  }
  md(f, row->runtime);
  if (row->missing) {
    fputs(" | not measured: ", f);
    md(f, row->missing);
    fputs(" | | | | | |\n", f);
    return;
  }
  fputs(" | ", f);
  md(f, row->file_name);
  fprintf(f, " | %s | %s | %s | ", row->packed, row->unpacked, row->files);
  md(f, row->sha256);
  fprintf(f, " | %s |\n",
          row->reproducible < 0 ? "unknown"
          : row->reproducible   ? "yes"
                                : "**no**: a second pack differs");
}

static void machine(struct report_sink *s, int platform)
{
  const struct report_platform *p = &s->r->platforms[platform];
  FILE *f = s->f;
  char mem[64];

  fputs("### Machine and toolchains\n\n| | |\n| --- | --- |\n| system | ", f);
  md(f, p->os);
  if (p->machine.arch) {
    fputs(" ", f);
    md(f, p->machine.arch);
  }
  if (p->machine.kernel) {
    fputs(", kernel ", f);
    md(f, p->machine.kernel);
  }
  fputs(" |\n| CPU | ", f);
  md(f, p->machine.cpu_model);
  if (p->machine.logical_cpus > 0)
    fprintf(f, ", %d logical CPUs", p->machine.logical_cpus);
  fputs(" |\n", f);
  if (p->machine.memory_bytes >= 0) {
    report_format_value(mem, sizeof(mem), (double)p->machine.memory_bytes,
                        REPORT_BYTES);
    fprintf(f, "| memory | %s |\n", mem);
  }
  fputs("| mode | ", f);
  md(f, p->mode);
  fputs(p->performance_claims ? "" : " (smoke check: no performance claims)",
        f);
  fputs(p->official ? ", official" : "", f);
  fputs(" |\n", f);
  if (p->workload.round_trips >= 0) {
    fputs("| workload | ", f);
    md(f, p->workload.name);
    fprintf(f,
            ": %d sample%s per lane, %lld warm-up and %lld measured "
            "round trips of %lld bytes, %lld in flight |\n",
            p->workload.samples_per_lane,
            p->workload.samples_per_lane == 1 ? "" : "s",
            (long long)p->workload.warmup_round_trips,
            (long long)p->workload.round_trips,
            (long long)p->workload.payload_bytes,
            (long long)p->workload.max_in_flight);
  }
  if (p->started_at) {
    fputs("| started | ", f);
    md(f, p->started_at);
    fputs(" |\n", f);
  }
  if (p->provenance.commit) {
    fputs("| commit | ", f);
    md(f, p->provenance.commit);
    if (p->provenance.branch) {
      fputs(" on ", f);
      md(f, p->provenance.branch);
    }
    fputs(" |\n", f);
  }
  if (p->provenance.ci_provider) {
    fputs("| CI | ", f);
    md(f, p->provenance.ci_provider);
    if (p->provenance.ci_workflow) {
      fputs(", ", f);
      md(f, p->provenance.ci_workflow);
    }
    if (p->provenance.ci_run_id) {
      fputs(", run ", f);
      md(f, p->provenance.ci_run_id);
    }
    fputs(" |\n", f);
  }
  if (p->shard_count > 0)
    fprintf(f, "| shard | %d of %d |\n", p->shard_index, p->shard_count);
  if (!p->complete) {
    fputs("| **incomplete** | ", f);
    md(f, p->incomplete_reason ? p->incomplete_reason : "interrupted");
    fputs(" |\n", f);
  }
  if (p->nruntimes > 0) {
    fputs("\n| runtime | toolchain | status |\n| --- | --- | --- |\n", f);
    for (int i = 0; i < p->nruntimes; i++) {
      const struct report_runtime *rt = &p->runtimes[i];
      fputs("| ", f);
      md(f, rt->name);
      fputs(" | ", f);
      md(f, rt->toolchain_version);
      fputs(" | ", f);
      md(f, rt->status);
      if (rt->reason) {
        fputs(": ", f);
        md(f, rt->reason);
      }
      fputs(" |\n", f);
    }
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
  struct report_sink s = {&markdown_ops, f, r, 0};
  return report_sections_write(&s);
}
