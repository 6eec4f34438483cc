#include "evidence/write/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/evidence_json.h"
#include "evidence/write/stats.h"

/* Times of the passed samples of a lane, in round order. */
static int lane_times(const struct evidence_lane *lane, double *out, int max)
{
  int n = 0;
  for (int i = 0; i < lane->nsamples && n < max; i++) {
    const struct model_sample *r = &lane->samples[i].result;
    if (r->status == MODEL_PASSED && r->have_result &&
        r->result.round_trips > 0)
      out[n++] = (double)r->result.elapsed_ns / (double)r->result.round_trips;
  }
  return n;
}

/* P(U1 <= u_obs) when all arrangements of na a's and nb b's are equally
 * likely. N(m, n, u), the arrangements of m a's and n b's with U1 = u,
 * follows from where the largest value falls: an a beats all n b's, a b
 * adds nothing, so N(m, n, u) = N(m-1, n, u-n) + N(m, n-1, u). Returns -1
 * when out of memory. */
static double u_cdf(int na, int nb, double u_obs)
{
  int umax = na * nb, w = umax + 1;
  double *prev = calloc((size_t)(nb + 1) * (size_t)w, sizeof(double));
  double *cur = calloc((size_t)(nb + 1) * (size_t)w, sizeof(double));
  double total = 0, below = 0, *t;

  if (prev == NULL || cur == NULL) {
    free(prev);
    free(cur);
    return -1;
  }
  for (int n = 0; n <= nb; n++)
    prev[n * w] = 1; /* m = 0: one arrangement, U1 = 0 */
  for (int m = 1; m <= na; m++) {
    for (int n = 0; n <= nb; n++) {
      for (int u = 0; u <= umax; u++) {
        double v = u >= n ? prev[n * w + u - n] : 0;
        if (n > 0)
          v += cur[(n - 1) * w + u];
        cur[n * w + u] = v;
      }
    }
    t = prev;
    prev = cur;
    cur = t;
  }
  for (int u = 0; u <= umax; u++) {
    total += prev[nb * w + u];
    if (u <= u_obs + 1e-9)
      below += prev[nb * w + u];
  }
  free(prev);
  free(cur);
  return total > 0 ? below / total : 1;
}

int compare_mann_whitney(const double *a, int na, const double *b, int nb,
                         double *u, double *p)
{
  double u1 = 0;

  if (na < 1 || nb < 1 || na > COMPARE_MAX_SAMPLES || nb > COMPARE_MAX_SAMPLES)
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
  double a[COMPARE_MAX_SAMPLES], b[COMPARE_MAX_SAMPLES];
  struct stats_figure fa, fb;

  memset(r, 0, sizeof(*r));
  if (na < 1 || nb < 1 || na > COMPARE_MAX_SAMPLES || nb > COMPARE_MAX_SAMPLES)
    return -1;
  memcpy(a, a_in, (size_t)na * sizeof(double));
  memcpy(b, b_in, (size_t)nb * sizeof(double));
  if (compare_mann_whitney(a, na, b, nb, &r->u, &r->p) != 0)
    return -1;
  stats_figure_of(a, na, &fa);
  stats_figure_of(b, nb, &fb);
  if (!(fb.median > 0))
    return -1; /* no ratio to a zero time: no comparison, not a 0 */
  r->ratio = fa.median / fb.median;
  if (fabs(r->ratio - 1.0) <= COMPARE_TIE_RATIO)
    r->verdict = "tie";
  else if (r->p < COMPARE_ALPHA)
    r->verdict = r->ratio < 1 ? "faster" : "slower";
  else
    r->verdict = "~";
  return 0;
}

int compare_lanes(const struct evidence_lane *lane,
                  const struct evidence_lane *ref, struct compare_result *r)
{
  double a[COMPARE_MAX_SAMPLES], b[COMPARE_MAX_SAMPLES];
  int na = lane_times(lane, a, COMPARE_MAX_SAMPLES);
  int nb = lane_times(ref, b, COMPARE_MAX_SAMPLES);

  return compare_times(a, na, b, nb, r);
}

int compare_stable(const struct evidence_lane *lane, char *why, size_t whylen)
{
  double t[COMPARE_MAX_SAMPLES], first;
  struct stats_figure f;
  int n = lane_times(lane, t, COMPARE_MAX_SAMPLES), stable = 1;
  size_t used = 0;

  why[0] = '\0';
  if (n < 2)
    return -1;
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
  return stable;
}

void compare_lane_of(const struct evidence_lane *lane, struct compare_lane *out)
{
  out->name = lane->name;
  out->same_runtime = strcmp(lane->client_runtime, lane->server_runtime) == 0;
  out->ntimes = lane_times(lane, out->times, COMPARE_MAX_SAMPLES);
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
