/* The HTML page's charts (drawn by evidence/report/report_html_chart.c) with
 * the rows and legends they are drawn from, and the blocks HTML lays out its
 * own way: a platform's machine and toolchains, shown beside its heat map,
 * and the packages table, whose artifact and SHA-256 share a cell. */
#include "evidence/report/report_html.h"

#include <stdlib.h>
#include <string.h>

/* ---- charts ---- */

static void legend(FILE *f, const struct report *r, int whiskers)
{
  fputs("<div class=\"legend\">", f);
  for (int i = 0; i < r->nplatforms; i++) {
    fprintf(f,
            "<span><span class=\"swatch\" style=\"background:%s\">"
            "</span>",
            report_html_platform_color(r, i));
    report_html_escape(f, r->platforms[i].os);
    fputs("</span>", f);
  }
  if (!whiskers) {
    fputs("</div>\n", f);
    return;
  }
  fputs("<span><svg width=\"30\" height=\"12\" style=\"display:inline;"
        "vertical-align:-1px\" aria-hidden=\"true\"><line class=\"whisker\" "
        "x1=\"2\" y1=\"6\" x2=\"28\" y2=\"6\"/><line class=\"whisker\" "
        "x1=\"2\" y1=\"2\" x2=\"2\" y2=\"10\"/><line class=\"whisker\" "
        "x1=\"28\" y1=\"2\" x2=\"28\" y2=\"10\"/></svg> min\xe2\x80\x93max "
        "of the samples</span></div>\n",
        f);
}

/* Bars of time per round trip, a row a lane name. */
static void time_chart(FILE *f, const struct report *r,
                       const struct report_chart *c)
{
  struct report_html_bar_row *rows =
      calloc(c->nnames > 0 ? (size_t)c->nnames : 1, sizeof(*rows));

  if (rows == NULL)
    return;
  for (int i = 0; i < c->nnames; i++) {
    rows[i].label = c->names[i];
    for (int p = 0; p < r->nplatforms; p++) {
      const struct report_lane *l =
          report_find_lane(&r->platforms[p], c->names[i]);
      rows[i].bars[p].fig = l ? &l->ns_per_rt : NULL;
      rows[i].bars[p].note = l ? l->status : "not in this evidence";
    }
  }
  report_html_bar_chart(f, r, "median ns per round trip by lane and platform",
                        rows, c->nnames, REPORT_NS,
                        "ns per round trip (median, min\xe2\x80\x93max)");
  free(rows);
}

/* Bars of peak RSS, two rows (client, server) a runtime. */
static void memory_chart(FILE *f, const struct report *r,
                         const struct report_chart *c)
{
  struct report_html_bar_row rows[2 * REPORT_MAX_MATRIX];
  /* Each bar's label with what its figure covers, kept until drawn. */
  char(*labels)[REPORT_MAX_PLATFORMS][256] =
      calloc(2 * REPORT_MAX_MATRIX, sizeof(*labels));
  int n = c->nnames < REPORT_MAX_MATRIX ? c->nnames : REPORT_MAX_MATRIX;

  if (labels == NULL)
    return;
  memset(rows, 0, sizeof(rows));
  for (int k = 0; k < n; k++) {
    for (int side = 0; side < 2; side++) {
      struct report_html_bar_row *row = &rows[2 * k + side];
      char(*label)[256] = labels[2 * k + side];
      row->label = c->names[k];
      row->detail = side ? "server" : "client";
      for (int p = 0; p < r->nplatforms; p++) {
        const struct report_lane *l =
            report_lane_of(&r->platforms[p], c->names[k], c->names[k]);
        row->bars[p].fig = l ? side ? &l->server_rss : &l->client_rss : NULL;
        row->bars[p].note = l ? l->status : "not in this evidence";
        row->bars[p].label =
            !l ? NULL
            : side
                ? report_memory_label(label[p], sizeof(label[p]),
                                      l->server_rss_label, l->server_rss_covers)
                : report_memory_label(label[p], sizeof(label[p]),
                                      l->client_rss_label,
                                      l->client_rss_covers);
      }
    }
  }
  report_html_bar_chart(f, r, "peak RSS of same-runtime lanes", rows, 2 * n,
                        REPORT_BYTES,
                        "peak RSS (median, min\xe2\x80\x93max; exact or "
                        "sampled, see the table)");
  free(labels);
}

/* Bars of package sizes, two rows (packed, unpacked) a runtime. */
static void package_chart(FILE *f, const struct report *r,
                          const struct report_chart *c)
{
  struct report_html_bar_row rows[2 * REPORT_MAX_MATRIX];
  struct report_figure figs[2 * REPORT_MAX_MATRIX][REPORT_MAX_PLATFORMS];
  int n = c->nnames < REPORT_MAX_MATRIX ? c->nnames : REPORT_MAX_MATRIX;

  memset(rows, 0, sizeof(rows));
  memset(figs, 0, sizeof(figs));
  for (int k = 0; k < n; k++) {
    for (int side = 0; side < 2; side++) {
      struct report_html_bar_row *row = &rows[2 * k + side];
      row->label = c->names[k];
      row->detail = side ? "unpacked" : "packed";
      for (int p = 0; p < r->nplatforms; p++) {
        const struct report_package *pk =
            report_package_of(&r->platforms[p], c->names[k]);
        int64_t v = pk == NULL      ? -1
                    : !pk->measured ? -1
                    : side          ? pk->unpacked_bytes
                                    : pk->packed_bytes;
        row->bars[p].note = pk == NULL ? "no package" : "not measured";
        if (v < 0)
          continue;
        figs[2 * k + side][p] =
            (struct report_figure){1, 0, (double)v, (double)v, (double)v};
        row->bars[p].fig = &figs[2 * k + side][p];
      }
    }
  }
  report_html_bar_chart(f, r, "package sizes", rows, 2 * n, REPORT_BYTES,
                        "bytes");
}

static void machine_panel(FILE *f, const struct report_platform *p);

void report_html_chart(struct report_sink *s, const struct report_chart *c)
{
  FILE *f = s->f;

  if (c->kind == REPORT_CHART_HEAT_MAP) {
    fputs("<div class=\"two\"><div class=\"card heat\">", f);
    report_html_heat_map(f, &s->r->platforms[c->platform], c->platform);
    fputs("</div>\n<div class=\"side\">", f);
    machine_panel(f, &s->r->platforms[c->platform]);
    fputs("</div></div>\n", f);
    return;
  }
  if (c->kind == REPORT_CHART_LATENCY) {
    const struct report_platform *p = &s->r->platforms[c->platform];
    fputs("<div class=\"lat\">", f);
    for (int i = 0; i < c->nnames; i++) {
      const struct report_lane *l = report_find_lane(p, c->names[i]);
      if (l == NULL)
        continue;
      fputs("<div class=\"card\">", f);
      report_html_latency_chart(f, l);
      fputs("</div>", f);
    }
    fputs("</div>\n", f);
    return;
  }
  fputs("<div class=\"card\">", f);
  legend(f, s->r, c->kind != REPORT_CHART_PACKAGES);
  if (c->kind == REPORT_CHART_TIME)
    time_chart(f, s->r, c);
  else if (c->kind == REPORT_CHART_MEMORY)
    memory_chart(f, s->r, c);
  else
    package_chart(f, s->r, c);
  fputs("</div>\n", f);
}

/* ---- a platform's machine and toolchains ---- */

static void row(FILE *f, const char *key, const char *value)
{
  if (value == NULL)
    return;
  fprintf(f, "<tr><th>%s</th><td>", key);
  report_html_escape(f, value);
  fputs("</td></tr>\n", f);
}

static void machine_panel(FILE *f, const struct report_platform *p)
{
  char buf[512];

  fputs("<div><h3>Machine</h3><table>\n", f);
  row(f, "system", p->os);
  row(f, "arch", p->machine.arch);
  row(f, "kernel", p->machine.kernel);
  row(f, "CPU", p->machine.cpu_model);
  if (p->machine.logical_cpus > 0) {
    snprintf(buf, sizeof(buf), "%d", p->machine.logical_cpus);
    row(f, "logical CPUs", buf);
  }
  if (p->machine.memory_bytes >= 0) {
    report_format_value(buf, sizeof(buf), (double)p->machine.memory_bytes,
                        REPORT_BYTES);
    row(f, "memory", buf);
  }
  snprintf(buf, sizeof(buf), "%s%s%s", p->mode,
           p->performance_claims ? "" : " (smoke check)",
           p->official ? ", official" : "");
  row(f, "mode", buf);
  if (p->workload.round_trips >= 0) {
    snprintf(buf, sizeof(buf),
             "%d sample%s per lane, %lld + %lld round "
             "trips, %lld-byte payloads, %lld in flight",
             p->workload.samples_per_lane,
             p->workload.samples_per_lane == 1 ? "" : "s",
             (long long)p->workload.warmup_round_trips,
             (long long)p->workload.round_trips,
             (long long)p->workload.payload_bytes,
             (long long)p->workload.max_in_flight);
    row(f, "workload", buf);
  }
  row(f, "coordinator", report_coordinator_text(buf, sizeof(buf), p));
  row(f, "started", p->started_at);
  row(f, "commit", p->provenance.commit);
  row(f, "branch", p->provenance.branch);
  if (p->provenance.ci_provider) {
    snprintf(buf, sizeof(buf), "%s%s%s%s%s", p->provenance.ci_provider,
             p->provenance.ci_workflow ? ", " : "",
             p->provenance.ci_workflow ? p->provenance.ci_workflow : "",
             p->provenance.ci_run_id ? ", run " : "",
             p->provenance.ci_run_id ? p->provenance.ci_run_id : "");
    row(f, "CI", buf);
  }
  if (p->shard_count > 0) {
    snprintf(buf, sizeof(buf), "%d of %d", p->shard_index, p->shard_count);
    row(f, "shard", buf);
  }
  if (!p->complete)
    row(f, "incomplete",
        p->incomplete_reason ? p->incomplete_reason : "interrupted");
  fputs("</table></div>\n", f);
  if (p->nruntimes == 0)
    return;
  fputs("<div><h3>Toolchains</h3><table><tr><th>runtime</th><th>toolchain"
        "</th><th>status</th></tr>\n",
        f);
  for (int i = 0; i < p->nruntimes; i++) {
    const struct report_runtime *rt = &p->runtimes[i];
    fputs("<tr><th>", f);
    report_html_escape(f, rt->name);
    fputs("</th><td>", f);
    report_html_escape(f, rt->toolchain_version ? rt->toolchain_version : "-");
    fputs("</td><td>", f);
    if (rt->status) {
      fprintf(f, "<span class=\"%s\">",
              strcmp(rt->status, "available") == 0 ? "passed" : "bad");
      report_html_escape(f, rt->status);
      fputs("</span>", f);
    }
    if (rt->reason) {
      fputs(": ", f);
      report_html_escape(f, rt->reason);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</table></div>\n", f);
}

/* ---- packages ---- */

void report_html_package_begin(struct report_sink *s, int across)
{
  fprintf(s->f,
          "<div class=\"wide\"><table><tr>%s<th>runtime</th><th>artifact "
          "and its SHA-256</th><th>packed</th><th>unpacked</th><th>files"
          "</th><th>reproducible</th></tr>\n",
          across ? "<th>platform</th>" : "");
}

void report_html_package_row(struct report_sink *s,
                             const struct report_package_row *row)
{
  FILE *f = s->f;

  fputs("<tr>", f);
  if (row->platform) {
    fputs("<td>", f);
    report_html_escape(f, row->platform);
    fputs("</td>", f);
  }
  fputs("<th>", f);
  report_html_escape(f, row->runtime);
  fputs("</th>", f);
  if (row->missing) {
    fputs("<td colspan=\"5\" class=\"muted\">not measured: ", f);
    report_html_escape(f, row->missing);
    fputs("</td></tr>\n", f);
    return;
  }
  fputs("<td class=\"nw\">", f);
  report_html_escape(f, row->file_name);
  fputs("<br><code class=\"sha\">", f);
  report_html_escape(f, row->sha256);
  fprintf(f,
          "</code></td><td class=\"n\">%s</td><td class=\"n\">%s</td><td "
          "class=\"n\">%s</td><td>%s</td></tr>\n",
          row->packed, row->unpacked, row->files,
          row->reproducible < 0 ? "unknown"
          : row->reproducible   ? "<span class=\"passed\">yes</span>"
                                : "<span class=\"bad\">no</span>: a second "
                                  "pack differs");
}

void report_html_package_end(struct report_sink *s)
{
  fputs("</table></div>\n", s->f);
}
