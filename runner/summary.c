#include "runner/summary.h"

#include <inttypes.h>
#include <string.h>

#include "evidence/write/compare.h"
#include "evidence/write/stats.h"

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

/* How a lane's peaks were obtained: "exact" when every one is the OS's
 * lifetime figure, else "since exec" (see platforms/). */
static const char *rss_source(const struct evidence_lane *lane, int server)
{
  int any = 0;
  for (int i = 0; i < lane->nsamples; i++) {
    const struct model_peer *p = server ? &lane->samples[i].result.server
                                        : &lane->samples[i].result.client;
    if (p->peak_rss_source == NULL)
      continue;
    any = 1;
    if (strcmp(p->peak_rss_source, "sampled_peak_since_exec") == 0)
      return "sampled";
  }
  return any ? "exact" : "";
}

#define BASELINE_LANE "baseline-baseline"

/* When the raw loopback baseline ran, each lane's median against its. */
static void print_baseline_ratios(FILE *f, const struct evidence_run *run)
{
  struct stats_lane base, st;
  int found = 0;

  for (int l = 0; l < run->nlanes; l++) {
    if (strcmp(run->lanes[l].name, BASELINE_LANE) == 0) {
      stats_lane_compute(run->lanes[l].samples, run->lanes[l].nsamples, &base);
      found = base.timed > 0;
    }
  }
  if (!found)
    return;
  fprintf(f,
          "\nratio of medians to the raw loopback baseline (%.1f ns/round "
          "trip):\n",
          base.ns_per_rt.median);
  for (int l = 0; l < run->nlanes; l++) {
    if (strcmp(run->lanes[l].name, BASELINE_LANE) == 0)
      continue;
    stats_lane_compute(run->lanes[l].samples, run->lanes[l].nsamples, &st);
    if (st.timed > 0)
      fprintf(f, "  %-16s %.2fx  (min-max %.2fx-%.2fx)\n", run->lanes[l].name,
              st.ns_per_rt.median / base.ns_per_rt.median,
              st.ns_per_rt.min / base.ns_per_rt.median,
              st.ns_per_rt.max / base.ns_per_rt.median);
  }
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
  int cells = 0;

  for (int l = 0; l < run->nlanes; l++)
    cells +=
        strcmp(run->lanes[l].client_runtime, run->lanes[l].server_runtime) != 0;
  if (cells == 0 || run->nruntimes < 2)
    return;
  fprintf(f, "\nmedian ns per round trip (also ms per million round "
             "trips), [min-max]:\n\n| client \\ server |");
  for (int s = 0; s < run->nruntimes; s++)
    if (!run->runtimes[s].hidden)
      fprintf(f, " %s |", run->runtimes[s].name);
  fprintf(f, "\n| --- |");
  for (int s = 0; s < run->nruntimes; s++)
    if (!run->runtimes[s].hidden)
      fprintf(f, " --- |");
  fprintf(f, "\n");
  /* Hidden runtimes (the baseline) only meet themselves: not a cell. */
  for (int c = 0; c < run->nruntimes; c++) {
    if (run->runtimes[c].hidden)
      continue;
    fprintf(f, "| %s |", run->runtimes[c].name);
    for (int s = 0; s < run->nruntimes; s++) {
      if (run->runtimes[s].hidden)
        continue;
      const struct evidence_lane *lane =
          lane_of(run, run->runtimes[c].name, run->runtimes[s].name);
      struct stats_lane st;
      if (lane == NULL) {
        fprintf(f, " |");
        continue;
      }
      stats_lane_compute(lane->samples, lane->nsamples, &st);
      if (st.timed > 0 && st.failed == 0)
        fprintf(f, " %.0f [%.0f-%.0f] |", st.ns_per_rt.median, st.ns_per_rt.min,
                st.ns_per_rt.max);
      else
        fprintf(f, " %s |", stats_lane_status(lane, &st));
    }
    fprintf(f, "\n");
  }
}

/* Same-runtime lanes: what the client and the server of one runtime
 * cost when they talk to each other. */
static void print_memory_table(FILE *f, const struct evidence_run *run)
{
  int header = 0;

  for (int r = 0; r < run->nruntimes; r++) {
    const char *name = run->runtimes[r].name;
    const struct evidence_lane *lane = lane_of(run, name, name);
    struct stats_lane st;
    char c[32], s[32], cc[32], sc[32];
    if (lane == NULL)
      continue;
    stats_lane_compute(lane->samples, lane->nsamples, &st);
    if (st.client_rss.n == 0)
      continue;
    if (!header++)
      fprintf(f, "\nsame-runtime lanes, median peak RSS and CPU, client / "
                 "server:\n\n| runtime | peak RSS | CPU |\n"
                 "| --- | --- | --- |\n");
    mib(c, sizeof(c), st.client_rss.median, st.client_rss.n);
    mib(s, sizeof(s), st.server_rss.median, st.server_rss.n);
    ms(cc, sizeof(cc), st.client_cpu.median, st.client_cpu.n);
    ms(sc, sizeof(sc), st.server_cpu.median, st.server_cpu.n);
    fprintf(f, "| %s | %s / %s | %s / %s |\n", name, c, s, cc, sc);
  }
}

static void print_packages_table(FILE *f, const struct evidence_run *run)
{
  if (run->npackages == 0 && !run->packages_skipped)
    return;
  if (run->packages_skipped) {
    fprintf(f, "\npackages: not measured (--no-packages)\n");
    return;
  }
  fprintf(f, "\npackages:\n\n| runtime | artifact | packed | unpacked | "
             "files | sha256 | reproducible |\n| --- | --- | --- | --- | "
             "--- | --- | --- |\n");
  for (int i = 0; i < run->npackages; i++) {
    const struct model_package *p = &run->packages[i];
    char packed[32], unpacked[32];
    if (!p->measured) {
      fprintf(f, "| %s | failed: %s | | | | | |\n", p->runtime, p->error);
      continue;
    }
    size_text(packed, sizeof(packed), p->package.packed_bytes);
    size_text(unpacked, sizeof(unpacked), p->package.unpacked_bytes);
    fprintf(f, "| %s | %s | %s | %s | %d | %.12s | %s |\n", p->runtime,
            p->package.file_name, packed, unpacked, p->package.file_count,
            p->package.sha256,
            p->reproducible < 0 ? "unknown"
            : p->reproducible   ? "yes"
                                : "no: a second pack differs");
  }
}

static void print_comparisons(FILE *f, const struct evidence_run *run)
{
  const struct evidence_lane *ref = NULL;
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
    if (lane == ref || compare_lanes(lane, ref, &r) != 0)
      continue;
    fprintf(f, "  %-17s %6.2fx  %-6s U=%g p=%.3f\n", lane->name, r.ratio,
            r.verdict, r.u, r.p);
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
      fprintf(f, "  %-17s %6.2fx  %-6s U=%g p=%.3f  (against %s)\n", lb->name,
              r.ratio, r.verdict, r.u, r.p, la->name);
    }
  }
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
  struct evidence_cleanliness c;
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
  fprintf(f, "\n%-17s %-11s %-6s %-24s %-18s %-18s %-10s %-10s\n", "lane",
          "status", "passed", "ns/round trip [min-max]", "client peak RSS",
          "server peak RSS", "client CPU", "server CPU");
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    struct stats_lane st;
    char time[64], crss[32], srss[32], ccpu[32], scpu[32], passed[16];
    char cr[48], sr[48];

    stats_lane_compute(lane->samples, lane->nsamples, &st);
    if (st.timed > 0)
      snprintf(time, sizeof(time), "%.1f [%.1f-%.1f]", st.ns_per_rt.median,
               st.ns_per_rt.min, st.ns_per_rt.max);
    else
      snprintf(time, sizeof(time), "-");
    mib(crss, sizeof(crss), st.client_rss.median, st.client_rss.n);
    mib(srss, sizeof(srss), st.server_rss.median, st.server_rss.n);
    snprintf(cr, sizeof(cr), "%s %s", crss,
             st.client_rss.n ? rss_source(lane, 0) : "");
    snprintf(sr, sizeof(sr), "%s %s", srss,
             st.server_rss.n ? rss_source(lane, 1) : "");
    ms(ccpu, sizeof(ccpu), st.client_cpu.median, st.client_cpu.n);
    ms(scpu, sizeof(scpu), st.server_cpu.median, st.server_cpu.n);
    snprintf(passed, sizeof(passed), "%d/%d", st.passed, lane->nsamples);
    fprintf(f, "%-17s %-11s %-6s %-24s %-18s %-18s %-10s %-10s\n", lane->name,
            stats_lane_status(lane, &st), passed, time, cr, sr, ccpu, scpu);
    if (lane->unavailable_reason)
      unavailable++;
  }
  fprintf(f, "peak RSS: exact = the peer's own peak as it exited; sampled = "
             "the last reading while it ran (a lower bound)\n");
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    if (lane->error_reason)
      fprintf(f, "\n%s: error: %s\n", lane->name, lane->error_reason);
    else if (lane->unavailable_reason)
      fprintf(f, "\n%s: unavailable: %s\n", lane->name,
              lane->unavailable_reason);
    for (int i = 0; i < lane->nsamples; i++) {
      const struct model_sample *r = &lane->samples[i].result;
      char repro[1024];
      if (r->status == MODEL_PASSED)
        continue;
      if (failures++ == 0)
        fprintf(f, "\n");
      evidence_reproduce(run, lane, repro, sizeof(repro));
      fprintf(f, "%s round %d: %s at %s: %s: %s\n  reproduce: %s\n", lane->name,
              lane->samples[i].round, model_status_name(r->status),
              r->failure_stage ? r->failure_stage : "runner",
              r->failure_reason ? r->failure_reason : "error", r->message,
              repro);
    }
  }
  print_matrix_table(f, run);
  print_memory_table(f, run);
  print_packages_table(f, run);
  print_comparisons(f, run);
  print_baseline_ratios(f, run);
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
