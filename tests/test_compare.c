/* evidence/compare: the exact Mann-Whitney U test, the ratio of medians
 * and its verdict, a lane's times taken from its samples, and whether a
 * lane is stable enough to compare, with their edges: empty and one-sample
 * sides, ties, a zero or NaN reference, and lanes of far more than 64
 * samples, every one of which counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/compare.h"
#include "evidence/write/evidence.h"
#include "tests/tap.h"

#define NSAMPLES 8
#define BIG 300 /* samples a side, far beyond 64 */

/* A lane whose passed samples took ns[i] per round trip over 1000 round
 * trips (ns[i] < 0: a failed sample, no time). */
struct lane_fixture {
  struct evidence_lane lane;
  struct evidence_sample samples[NSAMPLES];
};

static void lane_of(struct lane_fixture *f, const double *ns, int n)
{
  memset(f, 0, sizeof(*f));
  f->lane.name = "c-c";
  f->lane.samples = f->samples;
  f->lane.nsamples = n;
  for (int i = 0; i < n; i++) {
    struct model_sample *r = &f->samples[i].result;
    f->samples[i].round = i + 1;
    r->status = ns[i] < 0 ? MODEL_FAILED : MODEL_PASSED;
    r->have_result = ns[i] >= 0;
    r->result.round_trips = 1000;
    r->result.elapsed_ns = ns[i] < 0 ? 0 : (int64_t)(ns[i] * 1000);
  }
}

static void test_mann_whitney_edges(void)
{
  double a[BIG], b[BIG];
  double x[] = {1, 2, 3}, y[] = {4, 5, 6};
  double t1[] = {1, 1, 1}, t2[] = {1, 1, 1};
  double p1[] = {1, 2, 2}, p2[] = {2, 3, 3};
  double u = -1, p = -1, u2 = -1, q = -1;

  TAP_EQ_INT(compare_mann_whitney(x, 0, y, 3, &u, &p), -1, "empty a");
  TAP_EQ_INT(compare_mann_whitney(x, 3, y, 0, &u, &p), -1, "empty b");
  for (int i = 0; i < BIG; i++) {
    a[i] = i;
    b[i] = i + 0.5;
  }
  if (TAP_EQ_INT(compare_mann_whitney(a, 64, b, 64, &u, &p), 0,
                 "64 on each side"))
    TAP_OK(p > 0.05 && p <= 1,
           "64 against 64 interleaved: not significant "
           "(p=%g)",
           p);
  if (TAP_EQ_INT(compare_mann_whitney(a, BIG, b, BIG, &u, &p), 0,
                 "%d on each side: no limit at 64", BIG))
    TAP_OK(p > 0.05 && p <= 1,
           "%d against %d interleaved: not significant "
           "(p=%g)",
           BIG, BIG, p);

  TAP_EQ_INT(compare_mann_whitney(x, 1, y, 1, &u, &p), 0, "one against one");
  TAP_EQ_DBL(u, 0, 0, "1 vs 1: U=0");
  TAP_EQ_DBL(p, 1, 1e-12, "1 vs 1: p=1, nothing can be significant");

  TAP_EQ_INT(compare_mann_whitney(x, 3, y, 3, &u, &p), 0, "3 against 3");
  TAP_EQ_DBL(u, 0, 0, "3 vs 3 apart: U=0");
  TAP_EQ_DBL(p, 0.1, 1e-12, "3 vs 3 apart: p=2/20");
  compare_mann_whitney(y, 3, x, 3, &u2, &q);
  TAP_EQ_DBL(u2, u, 0, "U is the same with the sides swapped");
  TAP_EQ_DBL(q, p, 1e-12, "p is the same with the sides swapped");

  TAP_EQ_INT(compare_mann_whitney(t1, 3, t2, 3, &u, &p), 0, "all tied");
  TAP_EQ_DBL(u, 4.5, 0, "all tied: every pair counts one half");
  TAP_EQ_DBL(p, 1, 1e-12, "all tied: p=1");

  /* Pairs: (1,2) 0, (1,3) 0 twice; (2,2) 0.5 twice, (2,3) 0 four times:
   * U1 = 1, U2 = 8. */
  compare_mann_whitney(p1, 3, p2, 3, &u, &p);
  TAP_EQ_DBL(u, 1, 0, "partial ties: U is the smaller of U1 and U2");
  TAP_EQ_DBL(p, 0.2, 1e-12, "partial ties: p=2*P(U<=1)=4/20");

  compare_mann_whitney(x, 3, y, 2, &u, &p);
  TAP_EQ_DBL(u, 0, 0, "3 vs 2 apart: U=0");
  TAP_EQ_DBL(p, 0.2, 1e-12, "3 vs 2 apart: p=2/10");
}

/* P(U1 <= u) for na against nb without ties, by counting every way of
 * placing the a's among the na + nb ranks. */
static double cdf_by_enumeration(int na, int nb, double u)
{
  long below = 0, total = 0;
  int n = na + nb;

  for (long set = 0; set < (1L << n); set++) {
    int k = 0;
    double u1 = 0;
    for (int r = 0; r < n; r++)
      if (set & (1L << r))
        u1 += r - k++; /* the b's ranked below this a */
    if (k != na)
      continue;
    total++;
    below += u1 <= u;
  }
  return (double)below / (double)total;
}

static void test_exact_p(void)
{
  static const int sizes[][2] = {{5, 6}, {7, 4}, {8, 8}, {1, 9}, {10, 6}};
  unsigned seed = 12345;
  double a[BIG], b[BIG], u, p, mu, sigma, want;
  int worst = 1;

  /* Distinct values in a scrambled order, so every U of each size turns
   * up somewhere across the trials. */
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    int na = sizes[s][0], nb = sizes[s][1];
    for (int trial = 0; trial < 20; trial++) {
      for (int i = 0; i < na + nb; i++) {
        seed = seed * 1103515245u + 12345u;
        double v = (double)(seed >> 8) + i * 1e-3;
        if (i < na)
          a[i] = v;
        else
          b[i - na] = v;
      }
      compare_mann_whitney(a, na, b, nb, &u, &p);
      want = fmin(1.0, 2 * cdf_by_enumeration(na, nb, u));
      if (fabs(p - want) > 1e-12 * want) {
        worst = 0;
        tap_diag("%d vs %d, U=%g: p=%.17g, counted %.17g", na, nb, u, p, want);
      }
    }
  }
  TAP_OK(worst, "the exact p equals the count of arrangements (5 sizes)");

  /* 70 against 70 apart: only one arrangement of 140 ranks on each side
   * is as extreme, p = 2 / C(140, 70), a number near 1e-41. */
  for (int i = 0; i < 70; i++) {
    a[i] = i;
    b[i] = 100 + i;
  }
  compare_mann_whitney(a, 70, b, 70, &u, &p);
  want = 2 / exp(lgamma(141) - 2 * lgamma(71));
  TAP_EQ_DBL(u, 0, 0, "70 vs 70 apart: U=0");
  TAP_OK(fabs(p - want) <= 1e-9 * want,
         "70 vs 70 apart: p=2/C(140,70) "
         "(%.6g, want %.6g)",
         p, want);

  /* 150 against 150 shifted by 25.5, the largest exact size: U = 7750,
   * and 2 P(U <= 7750) from the 2-D recursion of the probabilities over
   * (m, n), which only adds (2.55e-6). */
  for (int i = 0; i < 150; i++) {
    a[i] = i;
    b[i] = i + 25.5;
  }
  TAP_OK(compare_p_is_exact(150, 150) && compare_p_is_exact(150, 1000) &&
             !compare_p_is_exact(151, 151),
         "exact while the smaller side has at most 150 samples");
  compare_mann_whitney(a, 150, b, 150, &u, &p);
  TAP_EQ_DBL(u, 7750, 0, "150 vs 150 shifted: U=7750");
  want = 2 * 1.2773190073682576e-06;
  TAP_OK(fabs(p - want) <= 1e-10 * want,
         "150 vs 150 shifted: exact p=%.17g "
         "(want %.17g)",
         p, want);

  /* 300 against 300 shifted by 25: the normal approximation with
   * continuity correction. */
  for (int i = 0; i < BIG; i++) {
    a[i] = i;
    b[i] = i + 25.5;
  }
  compare_mann_whitney(a, BIG, b, BIG, &u, &p);
  mu = BIG * BIG / 2.0;
  sigma = sqrt(BIG * BIG * (2.0 * BIG + 1) / 12.0);
  want = erfc(-((u + 0.5 - mu) / sigma) / sqrt(2.0));
  TAP_OK(p > 0 && fabs(p - want) <= 1e-12 * want,
         "300 vs 300: p=%g, the normal approximation's %g", p, want);
}

/* A lane of n samples on the heap, ns(i) per round trip each. */
static struct evidence_lane *big_lane(const char *name, int n,
                                      double (*ns)(int))
{
  struct evidence_lane *l = calloc(1, sizeof(*l));
  l->name = name;
  l->client_runtime = "c";
  l->server_runtime = "c";
  l->samples = calloc((size_t)n, sizeof(*l->samples));
  l->nsamples = n;
  for (int i = 0; i < n; i++) {
    struct model_sample *r = &l->samples[i].result;
    l->samples[i].round = i + 1;
    r->status = MODEL_PASSED;
    r->have_result = 1;
    r->result.round_trips = 1000;
    r->result.elapsed_ns = (int64_t)(ns(i) * 1000);
  }
  return l;
}

static void big_lane_free(struct evidence_lane *l)
{
  free(l->samples);
  free(l);
}

static double ref_ns(int i)
{
  return 100 + i % 10;
}
/* The reference's times for the first 64 rounds, then twice as fast. */
static double later_fast_ns(int i)
{
  return i < 64 ? ref_ns(i) : 50;
}
/* Steady, but for one sample 3 times slower after round 64. */
static double late_outlier_ns(int i)
{
  return i == 150 ? 300 : ref_ns(i);
}

static void test_beyond_64(void)
{
  struct evidence_lane *ref = big_lane("c-c", 200, ref_ns);
  struct evidence_lane *lane = big_lane("c-node", 200, later_fast_ns);
  struct evidence_lane *odd = big_lane("c-c", 200, late_outlier_ns);
  struct compare_lane cl[2];
  struct compare_result r;
  json_object *all, *pair;
  char why[256];

  if (TAP_EQ_INT(compare_lanes(lane, ref, &r), 0, "200 samples a side"))
    TAP_EQ_STR(r.verdict, "faster",
               "every sample counts: the 136 after round 64 make it faster");
  TAP_EQ_DBL(r.ratio, 50 / 104.5, 1e-12, "the median of all 200 samples");

  TAP_EQ_INT(compare_lane_of(ref, &cl[0]), 0, "the reference's times");
  TAP_EQ_INT(compare_lane_of(lane, &cl[1]), 0, "the lane's times");
  TAP_EQ_INT(cl[1].ntimes, 200, "compare_lane_of keeps all 200 times");
  all = compare_run_json(cl, 2);
  pair = json_object_object_get(all, "c-node vs c-c");
  TAP_EQ_STR(json_object_get_string(json_object_object_get(pair, "verdict")),
             "faster", "the evidence's comparison uses every sample");
  TAP_EQ_DBL(
      json_object_get_double(json_object_object_get(pair, "ratio_of_medians")),
      50 / 104.5, 1e-12, "the evidence's ratio of all the medians");
  json_object_put(all);
  compare_lane_release(&cl[0]);
  compare_lane_release(&cl[1]);
  TAP_NULL(cl[0].times, "compare_lane_release clears the times");

  TAP_EQ_INT(compare_stable(odd, why, sizeof(why)), 0,
             "an outlier at round 151 makes a lane unstable");
  TAP_EQ_STR(why, "max/min 3.00 > 1.2", "the outlier's spread");
  big_lane_free(ref);
  big_lane_free(lane);
  big_lane_free(odd);
}

static void test_times(void)
{
  double fast[] = {100, 101, 99, 100, 102}, slow[] = {200, 201, 199, 202, 198};
  double near[] = {104, 103, 105, 104, 104};
  double three_a[] = {1, 2, 3}, three_b[] = {10, 11, 12};
  double zero[] = {0, 0, 0}, nan[] = {NAN}, one[] = {5};
  double copy[5];
  struct compare_result r;

  memcpy(copy, fast, sizeof(copy));
  TAP_EQ_INT(compare_times(fast, 5, slow, 5, &r), 0, "fast against slow");
  TAP_EQ_DBL(r.ratio, 0.5, 1e-12, "the ratio of the medians, a over b");
  TAP_EQ_STR(r.verdict, "faster", "apart and 2 times faster: faster");
  TAP_OK(!memcmp(copy, fast, sizeof(copy)), "the times are not reordered");
  compare_times(slow, 5, fast, 5, &r);
  TAP_EQ_DBL(r.ratio, 2, 1e-12, "slow over fast: 2");
  TAP_EQ_STR(r.verdict, "slower", "and slower");

  /* Apart (p < 0.05) but within 5%: a tie all the same. */
  compare_times(near, 5, fast, 5, &r);
  TAP_OK(r.p < COMPARE_ALPHA, "4%% apart is significant (p=%g)", r.p);
  TAP_EQ_STR(r.verdict, "tie", "medians within 5%% are a tie");
  compare_times(fast, 5, fast, 5, &r);
  TAP_EQ_DBL(r.ratio, 1, 0, "a lane against itself: ratio 1");
  TAP_EQ_STR(r.verdict, "tie", "a lane against itself: a tie");

  /* Ten times faster but too few samples for the test to say so. */
  compare_times(three_a, 3, three_b, 3, &r);
  TAP_EQ_DBL(r.ratio, 2.0 / 11, 1e-12, "3 vs 3: the ratio");
  TAP_EQ_STR(r.verdict, "~", "3 vs 3 cannot reach p < 0.05: '~'");

  TAP_EQ_INT(compare_times(one, 1, one, 1, &r), 0, "one sample each");
  TAP_EQ_STR(r.verdict, "tie", "one sample each, the same: a tie");

  TAP_EQ_INT(compare_times(fast, 5, zero, 3, &r), -1,
             "a reference median of 0 is no comparison");
  TAP_EQ_INT(compare_times(fast, 5, nan, 1, &r), -1,
             "a NaN reference median is no comparison");
  TAP_EQ_INT(compare_times(fast, 0, slow, 5, &r), -1, "no times: refused");
  TAP_NULL(r.verdict, "a refused comparison has no verdict");
}

static void test_lanes(void)
{
  static const double a_ns[] = {100, 101, -1, 99, 100, 102};
  static const double b_ns[] = {200, 201, 199, 202, 198};
  static const double failed[] = {-1, -1};
  static const double zero[] = {0, 0, 0};
  struct lane_fixture a, b, c;
  struct compare_result r;

  lane_of(&a, a_ns, 6);
  lane_of(&b, b_ns, 5);
  TAP_EQ_INT(compare_lanes(&a.lane, &b.lane, &r), 0, "two timed lanes");
  TAP_EQ_DBL(r.ratio, 0.5, 1e-12, "a failed sample gives no time");
  TAP_EQ_STR(r.verdict, "faster", "lanes: faster");

  a.samples[0].result.status = MODEL_UNSUPPORTED;
  a.samples[1].result.have_result = 0;
  a.samples[3].result.result.round_trips = 0;
  compare_lanes(&a.lane, &b.lane, &r);
  TAP_EQ_DBL(r.u, 0, 0, "only passed samples with a result and round trips");

  lane_of(&c, failed, 2);
  TAP_EQ_INT(compare_lanes(&c.lane, &b.lane, &r), -1,
             "a lane without a timed sample is not compared");
  TAP_EQ_INT(compare_lanes(&b.lane, &c.lane, &r), -1,
             "nor against a reference without one");
  lane_of(&c, zero, 3);
  TAP_EQ_INT(compare_lanes(&b.lane, &c.lane, &r), -1,
             "nor against a reference of 0 ns");
  lane_of(&c, zero, 0);
  TAP_EQ_INT(compare_lanes(&c.lane, &b.lane, &r), -1,
             "nor a lane with no samples");
}

static void test_stable(void)
{
  static const double steady[] = {100, 101, 99, 102, 100};
  static const double spread[] = {100, 131};
  static const double first_slow[] = {115, 100, 101, 102};
  static const double both[] = {150, 100, 101, 102};
  static const double last_slow[] = {100, 101, 102, 115};
  static const double one[] = {100, -1, -1};
  struct lane_fixture f;
  char why[256];

  lane_of(&f, steady, 5);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), 1, "steady: stable");
  TAP_EQ_STR(why, "", "steady: no reason");

  lane_of(&f, spread, 2);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), 0, "spread: unstable");
  TAP_EQ_STR(why, "max/min 1.31 > 1.2", "spread: the ratio");

  lane_of(&f, first_slow, 4);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), 0,
             "the first sample the slowest: unstable");
  TAP_EQ_STR(why, "the first sample is the slowest, 13% over the median",
             "first slowest: by how much");

  lane_of(&f, both, 4);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), 0, "both: unstable");
  TAP_EQ_STR(why,
             "max/min 1.50 > 1.2; the first sample is the slowest, 48% over "
             "the median",
             "both reasons, joined");
  TAP_EQ_INT(compare_stable(&f.lane, why, 12), 0, "a short buffer");
  TAP_EQ_STR(why, "max/min 1.5", "a short buffer: the reason cut");

  lane_of(&f, last_slow, 4);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), 1,
             "a slow last sample is no warm-up effect");

  lane_of(&f, one, 3);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), -1,
             "one timed sample: no answer");
  lane_of(&f, one, 0);
  TAP_EQ_INT(compare_stable(&f.lane, why, sizeof(why)), -1,
             "no samples: no answer");
}

static void test_coverage(void)
{
  TAP_EQ_DBL(compare_minmax_coverage(0), 0, 0, "no samples: no interval");
  TAP_EQ_DBL(compare_minmax_coverage(1), 0, 0, "one sample: 0");
  TAP_EQ_DBL(compare_minmax_coverage(2), 0.5, 1e-15, "two samples: 50%%");
  TAP_EQ_DBL(compare_minmax_coverage(5), 0.9375, 1e-15, "five: 93.75%%");
  TAP_EQ_DBL(compare_minmax_coverage(10), 1 - 2.0 / 1024, 1e-15, "ten");
}

int main(void)
{
  test_mann_whitney_edges();
  test_exact_p();
  test_beyond_64();
  test_times();
  test_lanes();
  test_stable();
  test_coverage();
  return tap_done();
}
