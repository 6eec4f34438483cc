#include "runner/summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/base/term_text.h"
#include "evidence/report/report_text.h"
#include "evidence/write/compare.h"
#include "evidence/write/cost.h"
#include "evidence/write/stats.h"
#include "protocol/histogram.h"

static void mib(char *out, size_t len, double bytes, int n)
{
  if (n <= 0)
    snprintf(out, len, "-");
  else
    snprintf(out, len, "%.1f MiB", bytes / 1048576.0);
}

static void ms(char *out, size_t len, double ns, int n)
{
  if (n <= 0)
    snprintf(out, len, "-");
  else
    snprintf(out, len, "%.1f ms", ns / 1e6);
}

/* A lane's peak memory label as the reports word it (evidence/report/
 * report_text.h): the memory.label every passed sample gives ("exact, tree
 * of 2: sh, node"), or else the first sampled one (a lower bound), or else
 * the first with "; samples differ"; then what it covers when the label
 * does not say. Written into out; "" when no sample has a label. */
static const char *rss_label(const struct evidence_lane *lane, int server,
                             char *out, size_t len)
{
  const char *label = NULL, *sampled = NULL, *covers = NULL;
  char text[160];
  int differ = 0;

  for (int i = 0; i < lane->nsamples; i++) {
    const struct model_sample *r = &lane->samples[i].result;
    const struct model_peer *p = server ? &r->server : &r->client;
    if (r->status != MODEL_PASSED || p->memory_label[0] == '\0')
      continue;
    if (label == NULL)
      label = p->memory_label;
    else if (strcmp(label, p->memory_label) != 0)
      differ = 1;
    if (sampled == NULL && strstr(p->memory_label, "sampled") != NULL)
      sampled = p->memory_label;
    if (p->memory_covers != NULL &&
        (covers == NULL || strcmp(p->memory_covers, "process") == 0))
      covers = p->memory_covers;
  }
  if (label != NULL && differ)
    snprintf(text, sizeof(text), "%s%s", sampled ? sampled : label,
             sampled ? "" : "; samples differ");
  else
    snprintf(text, sizeof(text), "%s", label ? label : "");
  if (report_memory_label(out, len, label ? text : NULL, covers) == NULL)
    out[0] = '\0';
  return out;
}

/* A table printed once every cell is known, so that each column is as
 * wide as its widest cell whatever the names (a runtime name may have 31
 * characters, a lane's 63): as plain columns two spaces apart, the last
 * one unpadded, or as a Markdown table whose pipes line up. */
struct table {
  int ncols;
  int nrows;
  int cap;
  char **cells; /* nrows * ncols, each owned */
};

/* Characters as a terminal shows them: UTF-8 continuation bytes take no
 * column. In a Markdown table a pipe is written "\|", so that it does not
 * end its cell. */
static int text_width(const char *s, int markdown)
{
  int w = 0;
  for (; *s; s++)
    w += (((unsigned char)*s & 0xc0) != 0x80) + (markdown && *s == '|');
  return w;
}

static void table_add(struct table *t, const char *const *row)
{
  if (t->nrows == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    char **cells =
        realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof(*cells));
    if (cells == NULL)
      return; /* out of memory: the row is left out */
    t->cells = cells;
    t->cap = cap;
  }
  /* A cell may quote what a peer or a command printed (term_text.h). */
  for (int c = 0; c < t->ncols; c++) {
    const char *text = row[c] ? row[c] : "";
    size_t len = strlen(text) + 1;
    char *cell = malloc(len);
    t->cells[t->nrows * t->ncols + c] =
        cell ? term_text(text, cell, len) : NULL;
  }
  t->nrows++;
}

static void pad(FILE *f, const char *text, int width, int markdown)
{
  for (const char *p = text; *p; p++) {
    if (markdown && *p == '|')
      fputc('\\', f);
    fputc(*p, f);
  }
  for (int n = text_width(text, markdown); n < width; n++)
    fputc(' ', f);
}

/* Row 0 is the heading. indent goes before each plain row. */
static void table_print(FILE *f, const struct table *t, int markdown,
                        const char *indent)
{
  int *width = calloc((size_t)t->ncols, sizeof(*width));

  if (width == NULL)
    return;
  for (int r = 0; r < t->nrows; r++)
    for (int c = 0; c < t->ncols; c++) {
      const char *cell = t->cells[r * t->ncols + c];
      int w = cell ? text_width(cell, markdown) : 0;
      if (w > width[c])
        width[c] = w;
    }
  for (int c = 0; markdown && c < t->ncols; c++)
    if (width[c] < 3)
      width[c] = 3; /* the rule's "---" */
  for (int r = 0; r < t->nrows; r++) {
    fputs(markdown ? "|" : indent, f);
    for (int c = 0; c < t->ncols; c++) {
      const char *cell = t->cells[r * t->ncols + c];
      cell = cell ? cell : "";
      if (markdown) {
        fputc(' ', f);
        pad(f, cell, width[c], 1);
        fputs(" |", f);
      } else if (c == t->ncols - 1) {
        fputs(cell, f);
      } else {
        pad(f, cell, width[c], 0);
        fputs("  ", f);
      }
    }
    fputc('\n', f);
    if (markdown && r == 0) {
      fputc('|', f);
      for (int c = 0; c < t->ncols; c++) {
        fputc(' ', f);
        for (int k = 0; k < width[c]; k++)
          fputc('-', f);
        fputs(" |", f);
      }
      fputc('\n', f);
    }
  }
  free(width);
}

static void table_release(struct table *t)
{
  for (int i = 0; i < t->nrows * t->ncols; i++)
    free(t->cells[i]);
  free(t->cells);
  t->cells = NULL;
  t->nrows = t->cap = 0;
}

/* A latency in the unit that keeps three or four digits. */
static void latency_text(char *out, size_t len, int64_t ns)
{
  if (ns < 0)
    snprintf(out, len, "-");
  else if (ns < 10000)
    snprintf(out, len, "%" PRId64 " ns", ns);
  else if (ns < 10000000)
    snprintf(out, len, "%.1f µs", (double)ns / 1e3);
  else
    snprintf(out, len, "%.1f ms", (double)ns / 1e6);
}

static void cpu_text(char *out, size_t len, int n, double us)
{
  if (n <= 0)
    snprintf(out, len, "-");
  else
    snprintf(out, len, "%.2f", us);
}

/* What a round trip costs, per lane: its time, the latency percentiles of
 * the passed samples' merged histograms, and each peer's CPU over its
 * measured window; "-" where a peer did not report it. */
static void print_cost_table(FILE *f, const struct evidence_run *run)
{
  static const char *const heading[] = {"lane",
                                        "ns/round trip",
                                        "p50",
                                        "p99",
                                        "p99.9",
                                        "client CPU µs/rt",
                                        "server CPU µs/rt"};
  struct table t = {7, 0, 0, NULL};

  table_add(&t, heading);
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    struct stats_lane st;
    struct cost_lane c;
    char time[32], p50[32], p99[32], p999[32], ccpu[32], scpu[32];
    const char *row[] = {lane->name, time, p50, p99, p999, ccpu, scpu};

    stats_lane_compute(lane->samples, lane->nsamples, &st);
    if (st.passed == 0)
      continue;
    cost_lane_compute(lane, &c);
    if (st.timed > 0)
      snprintf(time, sizeof(time), "%.1f", st.ns_per_rt.median);
    else
      snprintf(time, sizeof(time), "-");
    latency_text(p50, sizeof(p50),
                 c.latency ? hist_percentile(c.latency, HIST_P50) : -1);
    latency_text(p99, sizeof(p99),
                 c.latency ? hist_percentile(c.latency, HIST_P99) : -1);
    latency_text(p999, sizeof(p999),
                 c.latency ? hist_percentile(c.latency, HIST_P99_9) : -1);
    cpu_text(ccpu, sizeof(ccpu), c.n_client_cpu,
             c.client_cpu_us_per_round_trip_median);
    cpu_text(scpu, sizeof(scpu), c.n_server_cpu,
             c.server_cpu_us_per_round_trip_median);
    table_add(&t, row);
    cost_lane_release(&c);
  }
  if (t.nrows > 1) {
    fprintf(f, "\ncost per round trip (medians over passed samples; "
               "latency from their merged histograms; - not reported):\n\n");
    table_print(f, &t, 0, "");
  }
  table_release(&t);
}

#define BASELINE_LANE "baseline-baseline"

static int over_tls(const struct evidence_lane *lane)
{
  return lane->transport != NULL && strcmp(lane->transport, "tls") == 0;
}

/* When the raw loopback baseline ran, each lane's median against its:
 * over tls (tls set) the lanes over tls against the baseline's over tls. */
static void print_baseline_ratios(FILE *f, const struct evidence_run *run,
                                  int tls)
{
  const char *base_name = tls ? BASELINE_LANE "+tls" : BASELINE_LANE;
  struct stats_lane base, st;
  struct table t = {3, 0, 0, NULL};
  int found = 0;

  for (int l = 0; l < run->nlanes; l++) {
    if (strcmp(run->lanes[l].name, base_name) == 0) {
      stats_lane_compute(run->lanes[l].samples, run->lanes[l].nsamples, &base);
      found = base.timed > 0;
    }
  }
  if (!found)
    return;
  fprintf(f,
          "\nratio of medians to the raw loopback baseline%s (%.1f ns/round "
          "trip):\n",
          tls ? " over tls" : "", base.ns_per_rt.median);
  for (int l = 0; l < run->nlanes; l++) {
    char ratio[32], range[80];
    const char *row[] = {run->lanes[l].name, ratio, range};
    if (strcmp(run->lanes[l].name, base_name) == 0 ||
        over_tls(&run->lanes[l]) != tls)
      continue;
    stats_lane_compute(run->lanes[l].samples, run->lanes[l].nsamples, &st);
    if (st.timed == 0)
      continue;
    snprintf(ratio, sizeof(ratio), "%.2fx",
             st.ns_per_rt.median / base.ns_per_rt.median);
    snprintf(range, sizeof(range), "(min-max %.2fx-%.2fx)",
             st.ns_per_rt.min / base.ns_per_rt.median,
             st.ns_per_rt.max / base.ns_per_rt.median);
    table_add(&t, row);
  }
  table_print(f, &t, 0, "  ");
  table_release(&t);
}

static const struct evidence_lane *
lane_of(const struct evidence_run *run, const char *client, const char *server)
{
  for (int l = 0; l < run->nlanes; l++)
    if (strcmp(run->lanes[l].client_runtime, client) == 0 &&
        strcmp(run->lanes[l].server_runtime, server) == 0)
      return &run->lanes[l];
  return NULL;
}

static void size_text(char *out, size_t len, int64_t bytes)
{
  if (bytes >= 1048576)
    snprintf(out, len, "%.1f MiB", (double)bytes / 1048576.0);
  else
    snprintf(out, len, "%.1f KiB", (double)bytes / 1024.0);
}

/* Client runtime x server runtime, the median time of each lane. */
static void print_matrix_table(FILE *f, const struct evidence_run *run)
{
  struct table t = {1, 0, 0, NULL};
  const char **row;
  char(*text)[64];
  int cells = 0;

  for (int l = 0; l < run->nlanes; l++)
    cells +=
        strcmp(run->lanes[l].client_runtime, run->lanes[l].server_runtime) != 0;
  if (cells == 0 || run->nruntimes < 2)
    return;
  for (int s = 0; s < run->nruntimes; s++)
    t.ncols += !run->runtimes[s].hidden;
  row = calloc((size_t)t.ncols, sizeof(*row));
  text = calloc((size_t)t.ncols, sizeof(*text));
  if (row == NULL || text == NULL)
    goto out;
  fprintf(f, "\nmedian ns per round trip (also ms per million round "
             "trips), [min-max]:\n\n");
  row[0] = "client \\ server";
  for (int s = 0, k = 1; s < run->nruntimes; s++)
    if (!run->runtimes[s].hidden)
      row[k++] = run->runtimes[s].name;
  table_add(&t, row);
  /* Hidden runtimes (the baseline) only meet themselves: not a cell. */
  for (int c = 0; c < run->nruntimes; c++) {
    int k = 1;
    if (run->runtimes[c].hidden)
      continue;
    row[0] = run->runtimes[c].name;
    for (int s = 0; s < run->nruntimes; s++, k++) {
      const struct evidence_lane *lane;
      struct stats_lane st;
      if (run->runtimes[s].hidden) {
        k--;
        continue;
      }
      lane = lane_of(run, run->runtimes[c].name, run->runtimes[s].name);
      row[k] = text[k];
      if (lane == NULL) {
        text[k][0] = '\0';
        continue;
      }
      stats_lane_compute(lane->samples, lane->nsamples, &st);
      if (st.timed > 0 && st.failed == 0)
        snprintf(text[k], sizeof(text[k]), "%.0f [%.0f-%.0f]",
                 st.ns_per_rt.median, st.ns_per_rt.min, st.ns_per_rt.max);
      else
        snprintf(text[k], sizeof(text[k]), "%s", stats_lane_status(lane, &st));
    }
    table_add(&t, row);
  }
  table_print(f, &t, 1, "");
out:
  table_release(&t);
  free(row);
  free(text);
}

/* Same-runtime lanes: what the client and the server of one runtime
 * cost when they talk to each other. */
static void print_memory_table(FILE *f, const struct evidence_run *run)
{
  struct table t = {3, 0, 0, NULL};
  const char *heading[] = {"runtime", "peak RSS", "CPU"};

  for (int r = 0; r < run->nruntimes; r++) {
    const char *name = run->runtimes[r].name;
    const struct evidence_lane *lane = lane_of(run, name, name);
    struct stats_lane st;
    char c[32], s[32], cc[32], sc[32], rss[72], cpu[72];
    const char *row[] = {name, rss, cpu};
    if (lane == NULL)
      continue;
    stats_lane_compute(lane->samples, lane->nsamples, &st);
    if (st.client_rss.n == 0)
      continue;
    if (t.nrows == 0)
      table_add(&t, heading);
    mib(c, sizeof(c), st.client_rss.median, st.client_rss.n);
    mib(s, sizeof(s), st.server_rss.median, st.server_rss.n);
    ms(cc, sizeof(cc), st.client_cpu.median, st.client_cpu.n);
    ms(sc, sizeof(sc), st.server_cpu.median, st.server_cpu.n);
    snprintf(rss, sizeof(rss), "%s / %s", c, s);
    snprintf(cpu, sizeof(cpu), "%s / %s", cc, sc);
    table_add(&t, row);
  }
  if (t.nrows > 0) {
    fprintf(f, "\nsame-runtime lanes, median peak RSS and CPU, client / "
               "server:\n\n");
    table_print(f, &t, 1, "");
  }
  table_release(&t);
}

/* Each runtime's start-up as a server: from its spawn to its READY line,
 * over every sample it served, whatever the client or the transport (it
 * is ready before any connection). A JVM's or an interpreter's start is
 * part of what a sample costs, so it is shown, never hidden by a
 * pre-started server. */
static void print_ready_table(FILE *f, const struct evidence_run *run)
{
  static const char *const heading[] = {"runtime", "time to READY [min-max]",
                                        "samples"};
  struct table t = {3, 0, 0, NULL};

  for (int r = 0; r < run->nruntimes; r++) {
    const char *name = run->runtimes[r].name;
    struct stats_figure fig;
    double *v;
    int n = 0, cap = 0;
    char time[64], count[16];
    const char *row[] = {name, time, count};

    for (int l = 0; l < run->nlanes; l++)
      if (strcmp(run->lanes[l].server_runtime, name) == 0)
        cap += run->lanes[l].nsamples;
    if (cap == 0 || (v = calloc((size_t)cap, sizeof(*v))) == NULL)
      continue;
    for (int l = 0; l < run->nlanes; l++) {
      const struct evidence_lane *lane = &run->lanes[l];
      if (strcmp(lane->server_runtime, name) != 0)
        continue;
      for (int i = 0; i < lane->nsamples; i++) {
        const struct model_sample *s = &lane->samples[i].result;
        if (s->port > 0 && s->ready_ns > 0)
          v[n++] = (double)s->ready_ns;
      }
    }
    stats_figure_of(v, n, &fig);
    free(v);
    if (n == 0)
      continue;
    if (t.nrows == 0)
      table_add(&t, heading);
    snprintf(time, sizeof(time), "%.1f ms [%.1f-%.1f]", fig.median / 1e6,
             fig.min / 1e6, fig.max / 1e6);
    snprintf(count, sizeof(count), "%d", n);
    table_add(&t, row);
  }
  if (t.nrows > 0) {
    fprintf(f, "\nservers, from their start to READY (median over the "
               "samples each served):\n\n");
    table_print(f, &t, 1, "");
  }
  table_release(&t);
}

static void print_packages_table(FILE *f, const struct evidence_run *run)
{
  static const char *const heading[] = {"runtime",     "artifact", "packed",
                                        "unpacked",    "files",    "sha256",
                                        "reproducible"};
  struct table t = {7, 0, 0, NULL};

  if (run->npackages == 0 && !run->packages_skipped)
    return;
  if (run->packages_skipped) {
    fprintf(f, "\npackages: not measured (--no-packages)\n");
    return;
  }
  fprintf(f, "\npackages:\n\n");
  table_add(&t, heading);
  for (int i = 0; i < run->npackages; i++) {
    const struct model_package *p = &run->packages[i];
    char packed[32], unpacked[32], files[16], sha[16], failed[300];
    const char *row[] = {
        p->runtime,
        p->package.file_name,
        packed,
        unpacked,
        files,
        sha,
        p->reproducible < 0
            ? (run->mode != NULL && strcmp(run->mode, "quick") == 0
                   ? "not checked: quick packs once"
                   : "unknown")
        : p->reproducible ? "yes"
                          : "no: a second pack differs"};
    if (!p->measured) {
      const char *none[] = {p->runtime, failed, "", "", "", "", ""};
      snprintf(failed, sizeof(failed), "failed: %s", p->error);
      table_add(&t, none);
      continue;
    }
    size_text(packed, sizeof(packed), p->package.packed_bytes);
    size_text(unpacked, sizeof(unpacked), p->package.unpacked_bytes);
    snprintf(files, sizeof(files), "%d", p->package.file_count);
    snprintf(sha, sizeof(sha), "%.12s", p->package.sha256);
    table_add(&t, row);
  }
  table_print(f, &t, 1, "");
  table_release(&t);
}

/* "c-node  0.52x  faster  U=0 p=0.008  (against node-node)" */
static void comparison_row(struct table *t, const struct evidence_lane *lane,
                           const struct compare_result *r,
                           const struct evidence_lane *against)
{
  char ratio[32], up[64], other[96] = "";
  const char *row[] = {lane->name, ratio, r->verdict, up, other};

  snprintf(ratio, sizeof(ratio), "%.2fx", r->ratio);
  snprintf(up, sizeof(up), "U=%g p=%.3f", r->u, r->p);
  if (against)
    snprintf(other, sizeof(other), "(against %s)", against->name);
  table_add(t, row);
}

static void print_comparisons(FILE *f, const struct evidence_run *run)
{
  const struct evidence_lane *ref = NULL;
  struct table t = {5, 0, 0, NULL};
  struct compare_result r;
  int n = 0, any = 0;

  if (!run->performance_claims)
    return;
  for (int l = 0; l < run->nlanes; l++)
    if (strcmp(run->lanes[l].name, EVIDENCE_REFERENCE_LANE) == 0)
      ref = &run->lanes[l];
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    char why[256];
    if (compare_stable(lane, why, sizeof(why)) == 0)
      fprintf(f, "%s%s: not stable: %s\n", any++ ? "" : "\n", lane->name, why);
  }
  for (int l = 0; l < run->nlanes; l++)
    if (run->lanes[l].nsamples > n)
      n = run->lanes[l].nsamples;
  if (ref == NULL)
    return;
  fprintf(f,
          "\nagainst %s (ratio of medians; Mann-Whitney U over every "
          "sample, exact up to 150 a side, two-sided, 0.05; within 5%%: tie; "
          "~: not significant):\n",
          ref->name);
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    if (lane != ref && compare_lanes(lane, ref, &r) == 0)
      comparison_row(&t, lane, &r, NULL);
  }
  /* The same-runtime lanes against each other: each runtime talking to
   * itself, runtime against runtime. */
  for (int a = 0; a < run->nlanes; a++) {
    const struct evidence_lane *la = &run->lanes[a];
    if (la == ref || strcmp(la->client_runtime, la->server_runtime) != 0)
      continue;
    for (int b = a + 1; b < run->nlanes; b++) {
      const struct evidence_lane *lb = &run->lanes[b];
      if (lb == ref || strcmp(lb->client_runtime, lb->server_runtime) != 0 ||
          compare_lanes(lb, la, &r) != 0)
        continue;
      comparison_row(&t, lb, &r, la);
    }
  }
  table_print(f, &t, 0, "  ");
  table_release(&t);
  if (n > 1)
    fprintf(f,
            "with %d samples, [min, max] is a %.2f%% interval for the "
            "median\n",
            n, compare_minmax_coverage(n) * 100);
}

int summary_all_passed(const struct evidence_run *run)
{
  struct evidence_cleanliness c;

  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    if (lane->error_reason != NULL)
      return 0;
    for (int i = 0; i < lane->nsamples; i++)
      if (lane->samples[i].result.status != MODEL_PASSED)
        return 0;
  }
  evidence_cleanliness(run, &c);
  return c.processes_left == 0 && c.sockets_left == 0 &&
         c.forced_terminations == 0 && c.temp_entries_left == 0;
}

void summary_print(FILE *f, const struct evidence_run *run)
{
  static const char *const heading[] = {"lane",
                                        "status",
                                        "passed",
                                        "ns/round trip [min-max]",
                                        "client peak RSS",
                                        "server peak RSS",
                                        "client CPU",
                                        "server CPU"};
  struct evidence_cleanliness c;
  struct table t = {8, 0, 0, NULL};
  int unavailable = 0, failures = 0;

  fprintf(f,
          "\ncrossrun %s: %d lane%s, %d sample%s each, %" PRIu64
          " round trips of %" PRIu32 " bytes, %" PRIu32 " in flight\n",
          run->mode, run->nlanes, run->nlanes == 1 ? "" : "s",
          run->samples_per_lane, run->samples_per_lane == 1 ? "" : "s",
          run->workload.round_trips, run->workload.payload_bytes,
          run->workload.max_in_flight);
  if (!run->performance_claims)
    fprintf(f, "smoke check: no performance claims; timings below only "
               "show that each lane ran\n");
  fprintf(f, "\n");
  table_add(&t, heading);
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    struct stats_lane st;
    char time[64], crss[32], srss[32], ccpu[32], scpu[32], passed[16];
    char cr[256], sr[256], clabel[200], slabel[200];

    stats_lane_compute(lane->samples, lane->nsamples, &st);
    if (st.timed > 0)
      snprintf(time, sizeof(time), "%.1f [%.1f-%.1f]", st.ns_per_rt.median,
               st.ns_per_rt.min, st.ns_per_rt.max);
    else
      snprintf(time, sizeof(time), "-");
    mib(crss, sizeof(crss), st.client_rss.median, st.client_rss.n);
    mib(srss, sizeof(srss), st.server_rss.median, st.server_rss.n);
    rss_label(lane, 0, clabel, sizeof(clabel));
    rss_label(lane, 1, slabel, sizeof(slabel));
    snprintf(cr, sizeof(cr), "%s%s%s", crss,
             st.client_rss.n && *clabel ? " " : "",
             st.client_rss.n ? clabel : "");
    snprintf(sr, sizeof(sr), "%s%s%s", srss,
             st.server_rss.n && *slabel ? " " : "",
             st.server_rss.n ? slabel : "");
    ms(ccpu, sizeof(ccpu), st.client_cpu.median, st.client_cpu.n);
    ms(scpu, sizeof(scpu), st.server_cpu.median, st.server_cpu.n);
    snprintf(passed, sizeof(passed), "%d/%d", st.passed, lane->nsamples);
    const char *row[] = {
        lane->name, stats_lane_status(lane, &st), passed, time, cr, sr, ccpu,
        scpu};
    table_add(&t, row);
    if (lane->unavailable_reason)
      unavailable++;
  }
  table_print(f, &t, 0, "");
  table_release(&t);
  fprintf(f, "peak RSS: exact = the peer's own peak as it exited; sampled = "
             "the last reading while it ran (a lower bound); a tree's figure "
             "names its programs\n");
  print_cost_table(f, run);
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    const char *why = NULL, *text = NULL;
    if (lane->error_reason) {
      why = "error";
      text = lane->error_reason;
    } else if (lane->unavailable_reason) {
      why = "unavailable";
      text = lane->unavailable_reason;
    } else if (lane->unsupported_reason) {
      why = "unsupported";
      text = lane->unsupported_reason;
    }
    if (why != NULL) {
      fprintf(f, "\n%s: %s: ", lane->name, why);
      term_text_put(f, text);
      fputc('\n', f);
    }
    for (int i = 0; i < lane->nsamples; i++) {
      const struct model_sample *r = &lane->samples[i].result;
      char repro[8192];
      if (r->status == MODEL_PASSED)
        continue;
      if (failures++ == 0)
        fprintf(f, "\n");
      evidence_reproduce(run, lane, repro, sizeof(repro));
      fprintf(f, "%s round %d: %s at %s: %s: ", lane->name,
              lane->samples[i].round, model_status_name(r->status),
              r->failure_stage ? r->failure_stage : "runner",
              r->failure_reason ? r->failure_reason : "error");
      term_text_put(f, r->message);
      fprintf(f, "\n  reproduce (from the checkout's root): ");
      term_text_put(f, repro);
      fputc('\n', f);
    }
  }
  print_matrix_table(f, run);
  print_memory_table(f, run);
  print_ready_table(f, run);
  print_packages_table(f, run);
  print_comparisons(f, run);
  print_baseline_ratios(f, run, 0);
  print_baseline_ratios(f, run, 1);
  if (unavailable)
    fprintf(f, "\n%d lane%s unavailable (not run; see above)\n", unavailable,
            unavailable == 1 ? "" : "s");
  evidence_cleanliness(run, &c);
  fprintf(f,
          "\ncleanliness: %d pairs started, %d natural exits, %d "
          "processes left, %d sockets left, %d forced terminations, %d "
          "temp entries left\n",
          c.pairs_started, c.natural_exits, c.processes_left, c.sockets_left,
          c.forced_terminations, c.temp_entries_left);
}
