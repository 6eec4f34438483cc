#include "runner/summary.h"

#include <inttypes.h>
#include <string.h>

#include "evidence/stats.h"

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
    const struct peer_report *p = server ? &lane->samples[i].result.server
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
      stats_lane_compute(run->lanes[l].samples, run->lanes[l].nsamples,
                         &base);
      found = base.timed > 0;
    }
  }
  if (!found)
    return;
  fprintf(f, "\nratio of medians to the raw loopback baseline (%.1f ns/round "
             "trip):\n", base.ns_per_rt.median);
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

int summary_all_passed(const struct evidence_run *run)
{
  struct evidence_cleanliness c;

  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    if (lane->error_reason != NULL)
      return 0;
    for (int i = 0; i < lane->nsamples; i++)
      if (lane->samples[i].result.status != SAMPLE_PASSED)
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

  fprintf(f, "\ncrossrun %s: %d lane%s, %d sample%s each, %" PRIu64
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
    snprintf(cr, sizeof(cr), "%s %s", crss, st.client_rss.n ?
             rss_source(lane, 0) : "");
    snprintf(sr, sizeof(sr), "%s %s", srss, st.server_rss.n ?
             rss_source(lane, 1) : "");
    ms(ccpu, sizeof(ccpu), st.client_cpu.median, st.client_cpu.n);
    ms(scpu, sizeof(scpu), st.server_cpu.median, st.server_cpu.n);
    snprintf(passed, sizeof(passed), "%d/%d", st.passed, lane->nsamples);
    fprintf(f, "%-17s %-11s %-6s %-24s %-18s %-18s %-10s %-10s\n", lane->name,
            stats_lane_status(lane, &st), passed, time, cr, sr, ccpu, scpu);
    if (lane->unavailable_reason)
      unavailable++;
  }
  print_baseline_ratios(f, run);
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
      const struct sample_result *r = &lane->samples[i].result;
      char repro[1024];
      if (r->status == SAMPLE_PASSED)
        continue;
      if (failures++ == 0)
        fprintf(f, "\n");
      evidence_reproduce(run, lane, repro, sizeof(repro));
      fprintf(f, "%s round %d: %s at %s: %s: %s\n  reproduce: %s\n",
              lane->name, lane->samples[i].round,
              sample_status_name(r->status),
              r->failure_stage ? r->failure_stage : "runner",
              r->failure_reason ? r->failure_reason : "error", r->message,
              repro);
    }
  }
  if (unavailable)
    fprintf(f, "\n%d lane%s unavailable (not run; see above)\n", unavailable,
            unavailable == 1 ? "" : "s");
  evidence_cleanliness(run, &c);
  fprintf(f, "\ncleanliness: %d pairs started, %d natural exits, %d "
             "processes left, %d sockets left, %d forced terminations, %d "
             "temp entries left\n",
          c.pairs_started, c.natural_exits, c.processes_left, c.sockets_left,
          c.forced_terminations, c.temp_entries_left);
}
