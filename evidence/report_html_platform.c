/* One platform's section of the HTML report: its failures, its heat map
 * beside its machine and toolchains, the client x server table,
 * cleanliness, stability and comparisons. */
#include "evidence/report_html.h"

#include <stdio.h>
#include <string.h>

static void matrix_table(FILE *f, const struct report_platform *p)
{
  const char *const *rts = p->pair_runtimes;
  int n = p->npair_runtimes < REPORT_MAX_MATRIX ? p->npair_runtimes
                                                : REPORT_MAX_MATRIX;

  fputs("<table><tr><th>client \\ server</th>", f);
  for (int s = 0; s < n; s++) {
    fputs("<th>", f);
    report_html_escape(f, rts[s]);
    fputs("</th>", f);
  }
  fputs("</tr>\n", f);
  for (int c = 0; c < n; c++) {
    fputs("<tr><th>", f);
    report_html_escape(f, rts[c]);
    fputs("</th>", f);
    for (int s = 0; s < n; s++) {
      const struct report_lane *l = report_lane_of(p, rts[c], rts[s]);
      if (l)
        report_html_lane_td(f, l);
      else
        fputs("<td></td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void failures(FILE *f, const struct report_platform *p)
{
  int header = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    const char *why = l->error_reason ? l->error_reason : l->unavailable_reason;
    int bad = why != NULL;
    for (int s = 0; s < l->nsamples; s++)
      bad |= !report_html_passed(l->samples[s].status) || l->samples[s].retried;
    if (!bad)
      continue;
    if (!header++)
      fputs("<h3>Failures and lanes not run</h3><ul class=\"fails\">\n", f);
    fputs("<li><b>", f);
    report_html_escape(f, l->name);
    fputs("</b>: ", f);
    report_html_status_span(f, l->status);
    if (why) {
      fputs(": ", f);
      report_html_escape(f, why);
    }
    for (int s = 0; s < l->nsamples; s++) {
      const struct report_sample *sm = &l->samples[s];
      if (report_html_passed(sm->status) && sm->retried) {
        fprintf(f,
                "<br>round %d: passed on a retry; the first attempt "
                "failed",
                sm->round);
        if (sm->first_stage) {
          fputs(" at ", f);
          report_html_escape(f, sm->first_stage);
        }
        if (sm->first_reason) {
          fputs(": <b>", f);
          report_html_escape(f, sm->first_reason);
          fputs("</b>", f);
        }
        if (sm->first_message) {
          fputs(": ", f);
          report_html_escape(f, sm->first_message);
        }
        continue;
      }
      if (report_html_passed(sm->status))
        continue;
      fprintf(f, "<br>round %d: ", sm->round);
      report_html_escape(f, sm->status);
      if (sm->stage) {
        fputs(" at ", f);
        report_html_escape(f, sm->stage);
      }
      if (sm->reason) {
        fputs(": <b>", f);
        report_html_escape(f, sm->reason);
        fputs("</b>", f);
      }
      if (sm->message) {
        fputs(": ", f);
        report_html_escape(f, sm->message);
      }
      if (sm->reproduce) {
        fputs("<pre>", f);
        report_xml_text(f, sm->reproduce, 1);
        fputs("</pre>", f);
      }
      if (sm->server_stderr || sm->client_stderr) {
        fputs("<details><summary>stderr</summary>", f);
        if (sm->server_stderr) {
          fputs("<div class=\"muted\">server</div><pre>", f);
          report_xml_text(f, sm->server_stderr, 1);
          fputs("</pre>", f);
        }
        if (sm->client_stderr) {
          fputs("<div class=\"muted\">client</div><pre>", f);
          report_xml_text(f, sm->client_stderr, 1);
          fputs("</pre>", f);
        }
        fputs("</details>", f);
      }
    }
    fputs("</li>\n", f);
  }
  if (header)
    fputs("</ul>\n", f);
}

static void row(FILE *f, const char *key, const char *value)
{
  if (value == NULL)
    return;
  fprintf(f, "<tr><th>%s</th><td>", key);
  report_html_escape(f, value);
  fputs("</td></tr>\n", f);
}

static void machine_table(FILE *f, const struct report_platform *p)
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

static void cleanliness(FILE *f, const struct report_platform *p)
{
  const struct report_cleanliness *c = &p->cleanliness;
  int dirty;

  if (!c->present)
    return;
  dirty = c->processes_left || c->sockets_left || c->forced_terminations ||
          c->temp_entries_left;
  fprintf(f,
          "<h3>Cleanliness</h3><table><tr><th>pairs started</th><th>"
          "natural exits</th><th>processes left</th><th>sockets left"
          "</th><th>forced terminations</th><th>temp entries left</th>"
          "</tr><tr><td class=\"n\">%d</td><td class=\"n\">%d</td><td "
          "class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d"
          "</td><td class=\"n\">%d</td></tr></table><p class=\"%s\">%s"
          "</p>\n",
          c->pairs_started, c->natural_exits, c->processes_left,
          c->sockets_left, c->forced_terminations, c->temp_entries_left,
          dirty ? "bad" : "muted",
          dirty ? "Not clean: every count but the first two must be 0."
                : "Clean: nothing left behind.");
}

static void comparisons(FILE *f, const struct report_platform *p)
{
  int unstable = 0;

  if (!p->performance_claims)
    return;
  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    if (l->stable != 0)
      continue;
    if (!unstable++)
      fputs("<h3>Stability</h3><p>Lanes whose samples disagree; compare "
            "them with care.</p><ul>\n",
            f);
    fputs("<li><b>", f);
    report_html_escape(f, l->name);
    fputs("</b>: ", f);
    report_html_escape(f, l->unstable_reasons ? l->unstable_reasons
                                              : "not stable");
    fputs("</li>\n", f);
  }
  if (unstable)
    fputs("</ul>\n", f);
  if (p->ncomparisons == 0)
    return;
  fputs("<h3>Comparisons</h3><p>Ratio of medians; exact two-sided "
        "Mann-Whitney U at 0.05; within 5% is a tie; ~ is not "
        "significant.</p><table><tr><th>lane</th><th>against</th><th>ratio "
        "of medians</th><th>U</th><th>p</th><th>verdict</th></tr>\n",
        f);
  for (int i = 0; i < p->ncomparisons; i++) {
    const struct report_comparison *c = &p->comparisons[i];
    fputs("<tr><th>", f);
    report_html_escape(f, c->lane);
    fputs("</th><td>", f);
    report_html_escape(f, c->reference);
    fprintf(f, "</td><td class=\"n\">%.2f\xc3\x97</td><td class=\"n\">",
            c->ratio);
    if (c->u >= 0)
      fprintf(f, "%g", c->u);
    fputs("</td><td class=\"n\">", f);
    if (c->p >= 0)
      fprintf(f, "%.3f", c->p);
    fputs("</td><td>", f);
    report_html_escape(f, c->verdict);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

void report_html_platform_section(FILE *f, const struct report *r, int i)
{
  const struct report_platform *p = &r->platforms[i];

  fprintf(f,
          "<section id=\"p%d\"><h2><span class=\"swatch\" "
          "style=\"background:%s\"></span>",
          i, report_html_platform_color(r, i));
  report_html_escape(f, p->os);
  if (p->machine.arch) {
    fputs(" <span class=\"muted\">", f);
    report_html_escape(f, p->machine.arch);
    fputs("</span>", f);
  }
  fputs("</h2>\n", f);
  failures(f, p);
  fputs("<h3>Client \xc3\x97 server</h3><p>Median ns per round trip of each "
        "client (rows) against each server (columns), with "
        "[min\xe2\x80\x93max]; green is fastest on this platform, red "
        "slowest.</p><div class=\"two\"><div class=\"card heat\">",
        f);
  report_html_heat_map(f, p, i);
  fputs("</div>\n<div class=\"side\">", f);
  machine_table(f, p);
  fputs("</div></div>\n", f);
  matrix_table(f, p);
  cleanliness(f, p);
  comparisons(f, p);
  fputs("</section>\n", f);
}
