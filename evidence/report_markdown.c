/* The Markdown report (GitHub-flavoured: tables, one alert). */
#include "evidence/report.h"

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

static void figure_cell(FILE *f, const struct report_figure *fig,
                        enum report_unit unit)
{
  char buf[128];
  report_format_figure(buf, sizeof(buf), fig, unit);
  fputs(buf, f);
}

/* A lane's time, or its status when it has none; a status other than
 * passed is always shown. */
static void lane_cell(FILE *f, const struct report_lane *l)
{
  int passed = strcmp(l->status, "passed") == 0;

  if (!passed) {
    fputs("**", f);
    md(f, l->status);
    fprintf(f, "** %d/%d", l->passed, l->nsamples);
    if (l->ns_per_rt.n > 0)
      fputs(": ", f);
  }
  if (l->ns_per_rt.n > 0)
    figure_cell(f, &l->ns_per_rt, REPORT_NS);
}

static void print_header(FILE *f, const struct report *r)
{
  int runs = 0, bad = 0;

  fputs("# crossrun report\n\n", f);
  if (!r->performance_claims)
    fputs("> [!WARNING]\n> **Smoke check: no performance claims.** This "
          "evidence comes from a quick run: its workload is too small for "
          "its timings to mean anything. They only show that each lane "
          "ran; no comparisons or ratios are made from them.\n\n",
          f);
  for (int p = 0; p < r->nplatforms; p++) {
    for (int l = 0; l < r->platforms[p].nlanes; l++) {
      const char *st = r->platforms[p].lanes[l].status;
      runs++;
      bad += strcmp(st, "passed") != 0 && strcmp(st, "unavailable") != 0 &&
             strcmp(st, "unsupported") != 0 &&
             strcmp(st, "expected_failure") != 0;
    }
  }
  if (bad == 0)
    fprintf(f,
            "**Result: every lane that ran passed** (%d lane%s on %d "
            "platform%s).\n\n",
            runs, runs == 1 ? "" : "s", r->nplatforms,
            r->nplatforms == 1 ? "" : "s");
  else
    fprintf(f,
            "**Result: %d of %d lane%s did not pass** (see "
            "Failures).\n\n",
            bad, runs, runs == 1 ? "" : "s");
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

/* Lane x platform: the figure everyone looks for first. */
static void print_times(FILE *f, const struct report *r)
{
  const char *const *names = r->lane_names;
  int n = r->nlane_names;

  fputs("## Time per round trip\n\nMedian nanoseconds per round trip (the "
        "same number is milliseconds per million round trips), "
        "[min\xe2\x80\x93max] over the passed samples. With many requests "
        "in flight this is throughput, not latency.\n\n| lane |",
        f);
  for (int p = 0; p < r->nplatforms; p++) {
    fputs(" ", f);
    md(f, r->platforms[p].os);
    fputs(" |", f);
  }
  fputs("\n| --- |", f);
  for (int p = 0; p < r->nplatforms; p++)
    fputs(" --- |", f);
  fputs("\n", f);
  for (int i = 0; i < n; i++) {
    fputs("| ", f);
    md(f, names[i]);
    fputs(" |", f);
    for (int p = 0; p < r->nplatforms; p++) {
      const struct report_lane *l =
          report_find_lane(&r->platforms[p], names[i]);
      fputs(" ", f);
      if (l)
        lane_cell(f, l);
      else
        fputs("not in this evidence", f);
      fputs(" |", f);
    }
    fputs("\n", f);
  }
  fputs("\n", f);
}

static void print_machine(FILE *f, const struct report_platform *p)
{
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

static void print_matrix(FILE *f, const struct report_platform *p)
{
  const char *const *rts = p->pair_runtimes;
  int n = p->npair_runtimes < REPORT_MAX_MATRIX ? p->npair_runtimes
                                                : REPORT_MAX_MATRIX;

  if (n == 0)
    return;
  fputs("### Client \xc3\x97 server\n\nMedian ns per round trip "
        "[min\xe2\x80\x93max]; rows are clients, columns servers.",
        f);
  if (n < p->npair_runtimes)
    fprintf(f, " The first %d of %d runtimes.", n, p->npair_runtimes);
  fputs("\n\n"
        "| client \\\\ server |",
        f);
  for (int s = 0; s < n; s++) {
    fputs(" ", f);
    md(f, rts[s]);
    fputs(" |", f);
  }
  fputs("\n| --- |", f);
  for (int s = 0; s < n; s++)
    fputs(" --- |", f);
  fputs("\n", f);
  for (int c = 0; c < n; c++) {
    fputs("| **", f);
    md(f, rts[c]);
    fputs("** |", f);
    for (int s = 0; s < n; s++) {
      const struct report_lane *l = report_lane_of(p, rts[c], rts[s]);
      fputs(" ", f);
      if (l)
        lane_cell(f, l);
      fputs(" |", f);
    }
    fputs("\n", f);
  }
  fputs("\n", f);
}

static void print_memory(FILE *f, const struct report_platform *p)
{
  int header = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    if (strcmp(l->client, l->server) != 0 ||
        (l->client_rss.n == 0 && l->server_rss.n == 0))
      continue;
    if (!header++)
      fputs("### Same-runtime lanes: peak RSS and CPU\n\nMedian "
            "[min\xe2\x80\x93max] over the passed samples, client / "
            "server.\n\n| runtime | client peak RSS | server peak RSS | "
            "client CPU | server CPU |\n| --- | --- | --- | --- | --- |\n",
            f);
    fputs("| ", f);
    md(f, l->client);
    fputs(" | ", f);
    figure_cell(f, &l->client_rss, REPORT_BYTES);
    fputs(" | ", f);
    figure_cell(f, &l->server_rss, REPORT_BYTES);
    fputs(" | ", f);
    figure_cell(f, &l->client_cpu, REPORT_CPU_NS);
    fputs(" | ", f);
    figure_cell(f, &l->server_cpu, REPORT_CPU_NS);
    fputs(" |\n", f);
  }
  if (header)
    fputs("\n", f);
}

static void print_packages(FILE *f, const struct report_platform *p)
{
  int header = 0;

  for (int i = 0; i < p->nruntimes; i++) {
    const struct report_runtime *rt = &p->runtimes[i];
    const struct report_package *pk = &rt->package;
    char packed[32], unpacked[32];
    if (!pk->present)
      continue;
    if (!header++)
      fputs("### Packages\n\n| runtime | artifact | packed | unpacked | "
            "files | SHA-256 | reproducible |\n| --- | --- | --- | --- | "
            "--- | --- | --- |\n",
            f);
    fputs("| ", f);
    md(f, rt->name);
    if (!pk->measured) {
      fputs(" | not measured: ", f);
      md(f, pk->error ? pk->error : "no artifact");
      fputs(" | | | | | |\n", f);
      continue;
    }
    fputs(" | ", f);
    md(f, pk->file_name);
    report_format_value(packed, sizeof(packed), (double)pk->packed_bytes,
                        REPORT_BYTES);
    report_format_value(unpacked, sizeof(unpacked), (double)pk->unpacked_bytes,
                        REPORT_BYTES);
    fprintf(f, " | %s | %s | %d | ", pk->packed_bytes >= 0 ? packed : "-",
            pk->unpacked_bytes >= 0 ? unpacked : "-", pk->file_count);
    md(f, pk->sha256);
    fprintf(f, " | %s |\n",
            pk->reproducible < 0 ? "unknown"
            : pk->reproducible   ? "yes"
                                 : "**no**: a second pack "
                                   "differs");
  }
  if (header)
    fputs("\n", f);
}

static void print_cleanliness(FILE *f, const struct report_platform *p)
{
  const struct report_cleanliness *c = &p->cleanliness;

  if (!c->present)
    return;
  fprintf(f,
          "### Cleanliness\n\n| pairs started | natural exits | "
          "processes left | sockets left | forced terminations | temp "
          "entries left |\n| --- | --- | --- | --- | --- | --- |\n| %d | "
          "%d | %d | %d | %d | %d |\n\n",
          c->pairs_started, c->natural_exits, c->processes_left,
          c->sockets_left, c->forced_terminations, c->temp_entries_left);
  if (c->processes_left || c->sockets_left || c->forced_terminations ||
      c->temp_entries_left)
    fputs("**Not clean:** every count but the first two must be 0.\n\n", f);
}

/* Only for evidence that allows performance claims. */
static void print_comparisons(FILE *f, const struct report_platform *p)
{
  int unstable = 0;

  if (!p->performance_claims)
    return;
  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    if (l->stable != 0)
      continue;
    if (!unstable++)
      fputs("### Stability\n\nLanes whose samples disagree; compare them "
            "with care.\n\n",
            f);
    fputs("- ", f);
    md(f, l->name);
    fputs(": ", f);
    md(f, l->unstable_reasons ? l->unstable_reasons : "not stable");
    fputs("\n", f);
  }
  if (unstable)
    fputs("\n", f);
  if (p->ncomparisons == 0)
    return;
  fputs("### Comparisons\n\nRatio of medians; exact two-sided Mann-Whitney "
        "U at 0.05; within 5% is a tie; ~ is not significant.\n\n| lane | "
        "against | ratio of medians | U | p | verdict |\n| --- | --- | --- "
        "| --- | --- | --- |\n",
        f);
  for (int i = 0; i < p->ncomparisons; i++) {
    const struct report_comparison *c = &p->comparisons[i];
    fputs("| ", f);
    md(f, c->lane);
    fputs(" | ", f);
    md(f, c->reference);
    fprintf(f, " | %.2f\xc3\x97 | ", c->ratio);
    if (c->u >= 0)
      fprintf(f, "%g", c->u);
    fputs(" | ", f);
    if (c->p >= 0)
      fprintf(f, "%.3f", c->p);
    fputs(" | ", f);
    md(f, c->verdict);
    fputs(" |\n", f);
  }
  fputs("\n", f);
}

/* ": at client: protocol_violation: message" of a first attempt. */
static void retry_cause(FILE *f, const struct report_sample *sm)
{
  if (sm->first_stage) {
    fputs(" at ", f);
    md(f, sm->first_stage);
  }
  if (sm->first_reason) {
    fputs(": ", f);
    md(f, sm->first_reason);
  }
  if (sm->first_message) {
    fputs(": ", f);
    md(f, sm->first_message);
  }
}

static void print_failures(FILE *f, const struct report_platform *p)
{
  int header = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    const char *why = l->error_reason ? l->error_reason : l->unavailable_reason;
    if (why != NULL) {
      if (!header++)
        fputs("### Failures and lanes not run\n\n", f);
      fputs("- **", f);
      md(f, l->name);
      fputs("**: ", f);
      md(f, l->status);
      fputs(": ", f);
      md(f, why);
      fputs("\n", f);
    }
    for (int s = 0; s < l->nsamples; s++) {
      const struct report_sample *sm = &l->samples[s];
      if (strcmp(sm->status, "passed") == 0 && !sm->retried)
        continue;
      if (!header++)
        fputs("### Failures and lanes not run\n\n", f);
      if (strcmp(sm->status, "passed") == 0) {
        fputs("- **", f);
        md(f, l->name);
        fprintf(f,
                "** round %d: passed on a retry; the first attempt "
                "failed",
                sm->round);
        retry_cause(f, sm);
        fputs("\n", f);
        continue;
      }
      fputs("- **", f);
      md(f, l->name);
      fprintf(f, "** round %d: ", sm->round);
      md(f, sm->status);
      if (sm->stage) {
        fputs(" at ", f);
        md(f, sm->stage);
      }
      if (sm->reason) {
        fputs(": ", f);
        md(f, sm->reason);
      }
      if (sm->message) {
        fputs(": ", f);
        md(f, sm->message);
      }
      fputs("\n", f);
      if (sm->reproduce) {
        fputs("  - reproduce: ", f);
        md_code(f, sm->reproduce);
        fputs("\n", f);
      }
    }
  }
  if (header)
    fputs("\n", f);
}

int report_markdown(const struct report *r, FILE *f)
{
  print_header(f, r);
  print_times(f, r);
  for (int i = 0; i < r->nplatforms; i++) {
    const struct report_platform *p = &r->platforms[i];
    fputs("## ", f);
    md(f, p->os);
    if (p->machine.arch) {
      fputs(" ", f);
      md(f, p->machine.arch);
    }
    fputs("\n\n", f);
    print_failures(f, p);
    print_matrix(f, p);
    print_memory(f, p);
    print_packages(f, p);
    print_cleanliness(f, p);
    print_comparisons(f, p);
    print_machine(f, p);
  }
  fflush(f);
  return ferror(f) ? -1 : 0;
}
