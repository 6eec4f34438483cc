#include "evidence/diff/diff_u.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/compare.h"

struct pooled {
  double value;
  int from_a;
};

static int by_value(const void *x, const void *y)
{
  double a = ((const struct pooled *)x)->value;
  double b = ((const struct pooled *)y)->value;
  return (a > b) - (a < b);
}

/* A run of equal values in the sorted pool: its size, how many came from
 * the chosen side, and twice its midrank (an integer: first + last). */
struct group {
  int size;
  int chosen;
  int64_t rank2;
};

/* The exact distribution of S = 2 U of the chosen side (m of N values)
 * over every split, by adding one tie group at a time: dp[k][s] counts the
 * ways to choose k values so far whose doubled rank sum is
 * s + k (k + 1) (the offset keeps every row starting at 0 and at most
 * 2 m (N - m) wide). Counts are doubles: only additions, so each keeps its
 * relative precision, and C(N, m) fits for every size the cell bound lets
 * through. Returns P(|S - m n| >= |s_obs - m n|), or -1 when out of
 * memory. */
static double exact_p(const struct group *g, int ngroups, int m, int n,
                      int64_t s_obs)
{
  int64_t width = 2 * (int64_t)m * n + 1, far = s_obs - (int64_t)m * n;
  double *dp = calloc((size_t)(m + 1) * (size_t)width, sizeof(double));
  int64_t *top = calloc((size_t)(m + 1), sizeof(int64_t));
  double total = 0, tail = 0;
  int placed = 0;

  if (dp == NULL || top == NULL) {
    free(dp);
    free(top);
    return -1;
  }
  if (far < 0)
    far = -far;
  dp[0] = 1;
  for (int j = 0; j < ngroups; j++) {
    int t = g[j].size, kmax = placed + t < m ? placed + t : m;
    for (int k = kmax; k >= 1; k--) {
      double binom = 1; /* C(t, c), built up as c grows */
      for (int c = 1; c <= t && c <= k; c++) {
        const double *from = dp + (size_t)(k - c) * (size_t)width;
        double *to = dp + (size_t)k * (size_t)width;
        int64_t shift = c * g[j].rank2 -
                        ((int64_t)k * (k + 1) - (int64_t)(k - c) * (k - c + 1));
        binom = binom * (double)(t - c + 1) / (double)c;
        if (k - c > placed)
          continue; /* no way to have chosen k - c yet */
        for (int64_t s = 0; s <= top[k - c]; s++)
          if (from[s] != 0 && s + shift >= 0 && s + shift < width) {
            to[s + shift] += binom * from[s];
            if (s + shift > top[k])
              top[k] = s + shift;
          }
      }
    }
    placed += t;
  }
  for (int64_t s = 0; s < width; s++) {
    double w = dp[(size_t)m * (size_t)width + (size_t)s];
    int64_t d = s - (int64_t)m * n;
    total += w;
    if ((d < 0 ? -d : d) >= far)
      tail += w;
  }
  free(dp);
  free(top);
  return total > 0 ? fmin(1.0, tail / total) : 1.0;
}

/* The normal approximation with continuity and tie corrections, where the
 * exact distribution would not fit DIFF_U_EXACT_MAX_CELLS. */
static double normal_p(int na, int nb, double u1, double tie_sum)
{
  double n = (double)na + nb, mu = (double)na * nb / 2.0;
  double var = (double)na * nb / 12.0 * ((n + 1) - tie_sum / (n * (n - 1)));
  double z;

  if (!(var > 0))
    return 1.0; /* every value tied: no evidence either way */
  z = (fabs(u1 - mu) - 0.5) / sqrt(var);
  if (z <= 0)
    return 1.0;
  return fmin(1.0, erfc(z / sqrt(2.0)));
}

int diff_u_test(const double *a, int na, const double *b, int nb,
                struct diff_u *r)
{
  int n = na + nb, m = na < nb ? na : nb, other = na < nb ? nb : na;
  int chosen_is_a = na <= nb, ngroups = 0;
  struct pooled *pool;
  struct group *g;
  int64_t rank2_sum = 0; /* of the chosen side */
  double tie_sum = 0, p;

  if (na < 1 || nb < 1)
    return -1;
  pool = malloc((size_t)n * sizeof(*pool));
  g = malloc((size_t)n * sizeof(*g));
  if (pool == NULL || g == NULL) {
    free(pool);
    free(g);
    return -1;
  }
  for (int i = 0; i < na; i++)
    pool[i] = (struct pooled){a[i], 1};
  for (int i = 0; i < nb; i++)
    pool[na + i] = (struct pooled){b[i], 0};
  qsort(pool, (size_t)n, sizeof(*pool), by_value);
  for (int i = 0; i < n;) {
    int j = i, chosen = 0;
    while (j < n && pool[j].value == pool[i].value)
      chosen += pool[j++].from_a == chosen_is_a;
    g[ngroups].size = j - i;
    g[ngroups].chosen = chosen;
    g[ngroups].rank2 = (int64_t)(i + 1) + j; /* first + last, 1-based */
    rank2_sum += chosen * g[ngroups].rank2;
    tie_sum += pow(j - i, 3) - (j - i);
    ngroups++;
    i = j;
  }
  free(pool);
  {
    /* 2 U of the chosen side; U1 is a's. */
    int64_t s_obs = rank2_sum - (int64_t)m * (m + 1);
    double u_chosen = (double)s_obs / 2.0;
    double u1 = chosen_is_a ? u_chosen : (double)na * nb - u_chosen;
    double cells = (double)(m + 1) * (2.0 * m * other + 1);

    r->u1 = u1;
    r->u = fmin(u1, (double)na * nb - u1);
    r->ties = ngroups < n;
    if (cells <= DIFF_U_EXACT_MAX_CELLS) {
      p = exact_p(g, ngroups, m, other, s_obs);
      r->exact = 1;
    } else if (!r->ties) {
      double u, pw;
      /* Without ties evidence/write/compare.c's test is the same test,
       * exact further (to 150 on the smaller side). */
      if (compare_mann_whitney(a, na, b, nb, &u, &pw) != 0)
        p = -1;
      else
        p = pw;
      r->exact = compare_p_is_exact(na, nb);
    } else {
      p = normal_p(na, nb, u1, tie_sum);
      r->exact = 0;
    }
  }
  free(g);
  if (p < 0)
    return -1;
  r->p = p;
  return 0;
}
