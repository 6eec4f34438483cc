#include "evidence/write/stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void stats_figure_of(double *v, int n, struct stats_figure *f)
{
  memset(f, 0, sizeof(*f));
  f->n = n;
  if (n <= 0)
    return;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  f->min = v[0];
  f->max = v[n - 1];
  f->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* A peer's CPU, user and system, in nanoseconds. Summed as doubles: a
 * document read back may hold any int64 in either (exact below 2^53). */
static double cpu_sum(const struct model_peer *p)
{
  return (double)p->user_cpu_ns + (double)p->system_cpu_ns;
}

void stats_lane_compute(const struct evidence_sample *samples, int n,
                        struct stats_lane *st)
{
  double *v[5];
  int k[5] = {0, 0, 0, 0, 0};

  memset(st, 0, sizeof(*st));
  for (int i = 0; i < 5; i++)
    v[i] = calloc(n > 0 ? (size_t)n : 1, sizeof(double));
  if (!v[0] || !v[1] || !v[2] || !v[3] || !v[4])
    goto out; /* no summary rather than a wrong one */
  for (int i = 0; i < n; i++) {
    const struct model_sample *r = &samples[i].result;
    if (r->status == MODEL_UNSUPPORTED)
      st->unsupported++;
    if (r->status != MODEL_PASSED) {
      if (r->status == MODEL_FAILED || r->status == MODEL_ERROR)
        st->failed++;
      continue;
    }
    st->passed++;
    if (r->have_result && r->result.round_trips > 0)
      v[0][k[0]++] =
          (double)r->result.elapsed_ns / (double)r->result.round_trips;
    if (r->client.peak_rss_bytes >= 0)
      v[1][k[1]++] = (double)r->client.peak_rss_bytes;
    if (r->server.peak_rss_bytes >= 0)
      v[2][k[2]++] = (double)r->server.peak_rss_bytes;
    if (r->client.user_cpu_ns >= 0)
      v[3][k[3]++] = cpu_sum(&r->client);
    if (r->server.user_cpu_ns >= 0)
      v[4][k[4]++] = cpu_sum(&r->server);
  }
  st->timed = k[0];
  stats_figure_of(v[0], k[0], &st->ns_per_rt);
  stats_figure_of(v[1], k[1], &st->client_rss);
  stats_figure_of(v[2], k[2], &st->server_rss);
  stats_figure_of(v[3], k[3], &st->client_cpu);
  stats_figure_of(v[4], k[4], &st->server_cpu);
out:
  for (int i = 0; i < 5; i++)
    free(v[i]);
}

const char *stats_lane_status(const struct evidence_lane *lane,
                              const struct stats_lane *st)
{
  if (lane->error_reason != NULL)
    return "error";
  if (lane->unavailable_reason != NULL)
    return "unavailable";
  if (lane->unsupported_reason != NULL)
    return "unsupported";
  if (lane->nsamples == 0)
    return "not_run";
  if (st->failed > 0)
    return lane->expected_failure ? "expected_failure" : "failed";
  for (int i = 0; i < lane->nsamples; i++)
    if (lane->samples[i].retried)
      return "flaky";
  if (st->unsupported > 0)
    return "unsupported";
  return "passed";
}
