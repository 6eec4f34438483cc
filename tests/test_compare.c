/* evidence/compare: the exact Mann-Whitney U test, the ratio of medians
 * and its verdict, a lane's times taken from its samples, and whether a
 * lane is stable enough to compare, with their edges: empty and one-sample
 * sides, ties, too many samples, a zero or NaN reference. */
#include <math.h>
#include <string.h>

#include "evidence/write/compare.h"
#include "evidence/write/evidence.h"
#include "tests/tap.h"

#define NSAMPLES 8

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
  double a[COMPARE_MAX_SAMPLES + 1], b[COMPARE_MAX_SAMPLES + 1];
  double x[] = {1, 2, 3}, y[] = {4, 5, 6};
  double t1[] = {1, 1, 1}, t2[] = {1, 1, 1};
  double p1[] = {1, 2, 2}, p2[] = {2, 3, 3};
  double u = -1, p = -1, u2 = -1, q = -1;

  TAP_EQ_INT(compare_mann_whitney(x, 0, y, 3, &u, &p), -1, "empty a");
  TAP_EQ_INT(compare_mann_whitney(x, 3, y, 0, &u, &p), -1, "empty b");
  for (int i = 0; i <= COMPARE_MAX_SAMPLES; i++) {
    a[i] = i;
    b[i] = i + 0.5;
  }
  TAP_EQ_INT(compare_mann_whitney(a, COMPARE_MAX_SAMPLES + 1, b, 3, &u, &p), -1,
             "one sample more than COMPARE_MAX_SAMPLES is refused");
  if (TAP_EQ_INT(compare_mann_whitney(a, COMPARE_MAX_SAMPLES, b,
                                      COMPARE_MAX_SAMPLES, &u, &p),
                 0, "COMPARE_MAX_SAMPLES on each side"))
    TAP_OK(p > 0.05 && p <= 1,
           "64 against 64 interleaved: not significant "
           "(p=%g)",
           p);

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
  test_times();
  test_lanes();
  test_stable();
  test_coverage();
  return tap_done();
}
