#include "evidence/write/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/evidence_json.h"
#include "evidence/write/stats.h"

/* Times of the passed samples of a lane, in round order, into out (room
 * for lane->nsamples). */
static int lane_times(const struct evidence_lane *lane, double *out)
{
  int n = 0;
  for (int i = 0; i < lane->nsamples; i++) {
    const struct model_sample *r = &lane->samples[i].result;
    if (r->status == MODEL_PASSED && r->have_result &&
        r->result.round_trips > 0)
      out[n++] = (double)r->result.elapsed_ns / (double)r->result.round_trips;
  }
  return n;
}

/* A new array of the times of a lane's passed samples (never NULL when it
 * returns 0: one element at least); -1 when out of memory. */
static int lane_times_new(const struct evidence_lane *lane, double **out,
                          int *n)
{
  *out = malloc((lane->nsamples > 0 ? (size_t)lane->nsamples : 1) *
                sizeof(double));
  if (*out == NULL)
    return -1;
  *n = lane_times(lane, *out);
  return 0;
}

/* P(U1 <= u_obs) when all arrangements of na a's and nb b's are equally
 * likely, for u_obs at most na * nb / 2 (the smaller of U1 and U2). The
 * counts of U1 = u are the coefficients of the Gaussian binomial
 * [na + nb choose k]_q, k = min(na, nb): the product over i = 1..k of
 * (1 - q^(n + i)) / (1 - q^i), n = max(na, nb) (Harding, Applied
 * Statistics 33, 1984). Each factor reads only lower coefficients, so the
 * ones up to u_obs are all that is computed: k steps of O(u_obs), where
 * the 2-D recursion over (m, n) takes O(k^2 n^2). In floating point the
 * subtractions are stable only where every value keeps its own precision:
 * the upper half of each step is therefore copied from the lower (the
 * distribution is symmetric). Even so the rounding errors grow with the
 * number of steps (about 1e-13 of the p at 150 against 150, 1e-9 at 200,
 * the whole at 400, measured against the additions-only 2-D recursion),
 * so the smaller side is held to COMPARE_EXACT_MAX_SIDE. Each step is
 * scaled by i / (n + i), so the array holds probabilities (counts of 150
 * against 1000 overflow a double). Returns -1 when out of memory. */
static double u_cdf_exact(int na, int nb, double u_obs)
{
  int k = na < nb ? na : nb, n = na < nb ? nb : na;
  size_t limit = (size_t)u_obs, umax = (size_t)k * (size_t)n;
  double *f, below = 0;

  if (limit > umax)
    limit = umax;
  f = calloc(limit + 1, sizeof(double));
  if (f == NULL)
    return -1;
  f[0] = 1; /* no a: one arrangement, U1 = 0 */
  for (int i = 1; i <= k; i++) {
    size_t all = (size_t)i * (size_t)n, shift = (size_t)(n + i);
    size_t top = all < limit ? all : limit;
    double scale = (double)i / (double)(n + i);
    /* divided by (1 - q^i), from the bottom up: g[j] = f[j] + g[j - i] */
    for (size_t j = (size_t)i; j <= top; j++)
      f[j] += f[j - (size_t)i];
    /* times (1 - q^(n+i)), from the top down so f[j - shift] is g's */
    for (size_t j = top; j >= shift; j--)
      f[j] -= f[j - shift];
    for (size_t j = 0; j <= top && j <= all / 2; j++)
      f[j] *= scale;
    for (size_t j = all / 2 + 1; j <= top; j++)
      f[j] = f[all - j];
  }
  for (size_t u = 0; u <= limit; u++)
    below += f[u];
  free(f);
  return fmin(1.0, fmax(0.0, below));
}

/* The same from the normal approximation with continuity correction,
 * where the exact one would not be exact: both sides above
 * COMPARE_EXACT_MAX_SIDE, where the approximation is within about 1e-3 of
 * the p around 0.05. */
static double u_cdf_normal(int na, int nb, double u_obs)
{
  double mu = (double)na * nb / 2.0;
  double sigma = sqrt((double)na * nb * ((double)na + nb + 1) / 12.0);

  return 0.5 * erfc(-((u_obs + 0.5 - mu) / sigma) / sqrt(2.0));
}

int compare_p_is_exact(int na, int nb)
{
  return na >= 1 && nb >= 1 && (na < nb ? na : nb) <= COMPARE_EXACT_MAX_SIDE;
}

static double u_cdf(int na, int nb, double u_obs)
{
  return compare_p_is_exact(na, nb) ? u_cdf_exact(na, nb, u_obs)
                                    : u_cdf_normal(na, nb, u_obs);
}

int compare_mann_whitney(const double *a, int na, const double *b, int nb,
                         double *u, double *p)
{
  double u1 = 0;

  if (na < 1 || nb < 1)
    return -1;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      u1 += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
  double cdf;

  *u = fmin(u1, (double)na * nb - u1);
  cdf = u_cdf(na, nb, floor(*u));
  if (cdf < 0)
    return -1;
  *p = fmin(1.0, 2.0 * cdf);
  return 0;
}

int compare_times(const double *a_in, int na, const double *b_in, int nb,
                  struct compare_result *r)
{
  struct stats_figure fa, fb;
  double *a, *b;
  int rc = -1;

  memset(r, 0, sizeof(*r));
  if (na < 1 || nb < 1)
    return -1;
  a = malloc((size_t)na * sizeof(double));
  b = malloc((size_t)nb * sizeof(double));
  if (a == NULL || b == NULL)
    goto out;
  memcpy(a, a_in, (size_t)na * sizeof(double));
  memcpy(b, b_in, (size_t)nb * sizeof(double));
  if (compare_mann_whitney(a, na, b, nb, &r->u, &r->p) != 0)
    goto out;
  stats_figure_of(a, na, &fa);
  stats_figure_of(b, nb, &fb);
  if (!(fb.median > 0))
    goto out; /* no ratio to a zero time: no comparison, not a 0 */
  r->ratio = fa.median / fb.median;
  if (fabs(r->ratio - 1.0) <= COMPARE_TIE_RATIO)
    r->verdict = "tie";
  else if (r->p < COMPARE_ALPHA)
    r->verdict = r->ratio < 1 ? "faster" : "slower";
  else
    r->verdict = "~";
  rc = 0;
out:
  free(a);
  free(b);
  return rc;
}

int compare_lanes(const struct evidence_lane *lane,
                  const struct evidence_lane *ref, struct compare_result *r)
{
  double *a = NULL, *b = NULL;
  int na = 0, nb = 0, rc = -1;

  memset(r, 0, sizeof(*r));
  if (lane_times_new(lane, &a, &na) == 0 && lane_times_new(ref, &b, &nb) == 0)
    rc = compare_times(a, na, b, nb, r);
  free(a);
  free(b);
  return rc;
}

int compare_stable(const struct evidence_lane *lane, char *why, size_t whylen)
{
  double *t, first;
  struct stats_figure f;
  int n = 0, stable = 1;
  size_t used = 0;

  why[0] = '\0';
  if (lane_times_new(lane, &t, &n) != 0)
    return -1;
  if (n < 2) {
    free(t);
    return -1;
  }
  first = t[0]; /* round 1: samples are stored in round order */
  stats_figure_of(t, n, &f);
  if (f.min > 0 && f.max / f.min > COMPARE_MAX_SPREAD) {
    stable = 0;
    used += (size_t)snprintf(why + used, whylen - used, "max/min %.2f > %.1f",
                             f.max / f.min, COMPARE_MAX_SPREAD);
  }
  if (n >= 3 && first == f.max && first > f.median * 1.1) {
    stable = 0;
    if (used < whylen)
      snprintf(why + used, whylen - used,
               "%sthe first sample is the slowest, %.0f%% over the median",
               used ? "; " : "", (first / f.median - 1) * 100);
  }
  free(t);
  return stable;
}

int compare_lane_of(const struct evidence_lane *lane, struct compare_lane *out)
{
  out->name = lane->name;
  out->same_runtime = strcmp(lane->client_runtime, lane->server_runtime) == 0;
  out->ntimes = 0;
  return lane_times_new(lane, &out->times, &out->ntimes);
}

void compare_lane_release(struct compare_lane *lane)
{
  free(lane->times);
  lane->times = NULL;
  lane->ntimes = 0;
}

static void add_pair(json_object *all, const struct compare_lane *a,
                     const struct compare_lane *ref)
{
  struct compare_result r;
  json_object *o;
  char key[300];

  if (compare_times(a->times, a->ntimes, ref->times, ref->ntimes, &r) != 0)
    return;
  snprintf(key, sizeof(key), "%s vs %s", a->name, ref->name);
  o = json_object_new_object();
  evidence_put(o, "lane", json_object_new_string(a->name));
  evidence_put(o, "reference", json_object_new_string(ref->name));
  evidence_put(o, "ratio_of_medians", json_object_new_double(r.ratio));
  evidence_put(o, "mann_whitney_u", json_object_new_double(r.u));
  evidence_put(o, "p_value_exact", json_object_new_double(r.p));
  evidence_put(o, "verdict", json_object_new_string(r.verdict));
  evidence_put(all, key, o);
}

json_object *compare_run_json(const struct compare_lane *lanes, int n)
{
  const struct compare_lane *ref = NULL;
  json_object *all = json_object_new_object();

  for (int i = 0; i < n && ref == NULL; i++)
    if (strcmp(lanes[i].name, EVIDENCE_REFERENCE_LANE) == 0)
      ref = &lanes[i];
  for (int i = 0; i < n && ref != NULL; i++)
    if (&lanes[i] != ref)
      add_pair(all, &lanes[i], ref);
  for (int i = 0; i < n; i++) {
    if (!lanes[i].same_runtime || &lanes[i] == ref)
      continue;
    for (int j = i + 1; j < n; j++)
      if (lanes[j].same_runtime && &lanes[j] != ref)
        add_pair(all, &lanes[j], &lanes[i]);
  }
  return all;
}

double compare_minmax_coverage(int n)
{
  return n < 1 ? 0 : 1.0 - 2.0 * pow(0.5, n);
}
