/* evidence/stats: medians with min and max, a lane's summary from its
 * samples (what counts as passed, failed, unsupported and timed; which
 * figures are left out when unknown) and a lane's one status, with their
 * ranking. */
#include <string.h>

#include "evidence/write/evidence.h"
#include "evidence/write/stats.h"
#include "tests/tap.h"

#define NSAMPLES 8

struct lane_fixture {
  struct evidence_lane lane;
  struct evidence_sample samples[NSAMPLES];
};

/* A passed sample of 1000 round trips at ns each, with known memory and
 * CPU figures. */
static void sample_passed(struct evidence_sample *s, double ns)
{
  struct model_sample *r = &s->result;

  memset(s, 0, sizeof(*s));
  r->status = MODEL_PASSED;
  r->have_result = 1;
  r->result.round_trips = 1000;
  r->result.elapsed_ns = (int64_t)(ns * 1000);
  r->client.peak_rss_bytes = 1000000;
  r->server.peak_rss_bytes = 2000000;
  r->client.user_cpu_ns = 300;
  r->client.system_cpu_ns = 100;
  r->server.user_cpu_ns = 500;
  r->server.system_cpu_ns = 50;
}

static void lane_init(struct lane_fixture *f, int n)
{
  memset(f, 0, sizeof(*f));
  f->lane.name = "c-c";
  f->lane.samples = f->samples;
  f->lane.nsamples = n;
  for (int i = 0; i < n; i++)
    sample_passed(&f->samples[i], 100 + i);
}

static void test_figures(void)
{
  double none[1] = {7};
  double one[] = {42};
  double odd[] = {5, 1, 4, 2, 3};
  double even[] = {4, 1, 3, 2};
  double ties[] = {2, 2, 1, 2};
  double negative[] = {-3, 0, -1};
  struct stats_figure f;

  memset(&f, 0xff, sizeof(f));
  stats_figure_of(none, 0, &f);
  TAP_OK(f.n == 0 && f.median == 0 && f.min == 0 && f.max == 0,
         "no values: every field 0");
  TAP_EQ_DBL(none[0], 7, 0, "no values: nothing touched");

  stats_figure_of(one, 1, &f);
  TAP_EQ_INT(f.n, 1, "one value: n");
  TAP_OK(f.median == 42 && f.min == 42 && f.max == 42,
         "one value is its median, min and max");

  stats_figure_of(odd, 5, &f);
  TAP_EQ_DBL(f.median, 3, 0, "odd count: the middle value");
  TAP_EQ_DBL(f.min, 1, 0, "odd count: min");
  TAP_EQ_DBL(f.max, 5, 0, "odd count: max");
  TAP_OK(odd[0] == 1 && odd[1] == 2 && odd[2] == 3 && odd[3] == 4 &&
             odd[4] == 5,
         "the values are sorted in place");

  stats_figure_of(even, 4, &f);
  TAP_EQ_DBL(f.median, 2.5, 0, "even count: the mean of the middle two");
  stats_figure_of(ties, 4, &f);
  TAP_EQ_DBL(f.median, 2, 0, "ties: the median is the tied value");
  TAP_EQ_DBL(f.min, 1, 0, "ties: min");
  stats_figure_of(negative, 3, &f);
  TAP_EQ_DBL(f.median, -1, 0, "negative values sort too");
  TAP_EQ_DBL(f.min, -3, 0, "negative values: min");
}

static void test_lane_compute(void)
{
  struct lane_fixture f;
  struct stats_lane st;

  memset(&st, 0xff, sizeof(st));
  stats_lane_compute(NULL, 0, &st);
  TAP_OK(st.passed == 0 && st.failed == 0 && st.unsupported == 0 &&
             st.timed == 0 && st.ns_per_rt.n == 0 && st.client_rss.n == 0,
         "no samples: an empty summary");

  lane_init(&f, 5);
  stats_lane_compute(f.samples, 5, &st);
  TAP_EQ_INT(st.passed, 5, "five passed");
  TAP_EQ_INT(st.timed, 5, "five timed");
  TAP_EQ_DBL(st.ns_per_rt.median, 102, 1e-9, "ns per round trip: median");
  TAP_EQ_DBL(st.ns_per_rt.min, 100, 1e-9, "ns per round trip: min");
  TAP_EQ_DBL(st.ns_per_rt.max, 104, 1e-9, "ns per round trip: max");
  TAP_EQ_DBL(st.client_rss.median, 1000000, 0, "client rss");
  TAP_EQ_DBL(st.server_rss.median, 2000000, 0, "server rss");
  TAP_EQ_DBL(st.client_cpu.median, 400, 0, "client cpu is user + system");
  TAP_EQ_DBL(st.server_cpu.median, 550, 0, "server cpu is user + system");

  f.samples[0].result.status = MODEL_FAILED;
  f.samples[1].result.status = MODEL_ERROR;
  f.samples[2].result.status = MODEL_UNSUPPORTED;
  f.samples[3].result.status = MODEL_UNAVAILABLE;
  stats_lane_compute(f.samples, 5, &st);
  TAP_EQ_INT(st.passed, 1, "only one passed");
  TAP_EQ_INT(st.failed, 2, "failed and error both count as failed");
  TAP_EQ_INT(st.unsupported, 1, "unsupported counted apart");
  TAP_EQ_INT(st.timed, 1, "only passed samples are timed");
  TAP_EQ_DBL(st.ns_per_rt.median, 104, 1e-9, "the time of the passed one");
  TAP_EQ_INT(st.client_rss.n, 1, "nor are failed samples' figures kept");

  lane_init(&f, 4);
  f.samples[0].result.have_result = 0;
  f.samples[1].result.result.round_trips = 0;
  f.samples[2].result.client.peak_rss_bytes = -1;
  f.samples[3].result.server.user_cpu_ns = -1;
  stats_lane_compute(f.samples, 4, &st);
  TAP_EQ_INT(st.passed, 4, "passed without a time is still passed");
  TAP_EQ_INT(st.timed, 2, "no result or no round trips: not timed");
  TAP_EQ_INT(st.ns_per_rt.n, 2, "the time figure has two values");
  TAP_EQ_INT(st.client_rss.n, 3, "an unknown rss (-1) is left out");
  TAP_EQ_INT(st.server_rss.n, 4, "the other side's rss is kept");
  TAP_EQ_INT(st.server_cpu.n, 3, "an unknown cpu (-1) is left out");
  TAP_EQ_INT(st.client_cpu.n, 4, "the other side's cpu is kept");

  lane_init(&f, 1);
  f.samples[0].result.client.peak_rss_bytes = 0;
  stats_lane_compute(f.samples, 1, &st);
  TAP_EQ_INT(st.client_rss.n, 1, "an rss of 0 is a figure, not unknown");
}

static const char *status_of(struct lane_fixture *f)
{
  struct stats_lane st;
  stats_lane_compute(f->samples, f->lane.nsamples, &st);
  return stats_lane_status(&f->lane, &st);
}

static void test_lane_status(void)
{
  struct lane_fixture f;

  lane_init(&f, 3);
  TAP_EQ_STR(status_of(&f), "passed", "every sample passed");
  lane_init(&f, 0);
  TAP_EQ_STR(status_of(&f), "not_run", "no samples: not_run");

  lane_init(&f, 3);
  f.lane.error_reason = "the build failed";
  f.lane.unavailable_reason = "no node";
  f.samples[0].result.status = MODEL_FAILED;
  TAP_EQ_STR(status_of(&f), "error", "a broken runtime outranks everything");
  f.lane.error_reason = NULL;
  TAP_EQ_STR(status_of(&f), "unavailable", "then an unavailable one");
  f.lane.unavailable_reason = NULL;
  f.lane.nsamples = 0;
  f.lane.error_reason = NULL;
  TAP_EQ_STR(status_of(&f), "not_run", "then no samples");

  lane_init(&f, 3);
  f.samples[1].result.status = MODEL_ERROR;
  f.samples[2].retried = 1;
  f.samples[0].result.status = MODEL_UNSUPPORTED;
  TAP_EQ_STR(status_of(&f), "failed", "a failure outranks a retry");
  f.lane.expected_failure = "known bug";
  TAP_EQ_STR(status_of(&f), "expected_failure", "unless --expect said so");

  lane_init(&f, 3);
  f.lane.expected_failure = "known bug";
  TAP_EQ_STR(status_of(&f), "passed", "an expected failure that passed");
  f.lane.expected_failure = NULL;
  f.samples[2].retried = 1;
  f.samples[0].result.status = MODEL_UNSUPPORTED;
  TAP_EQ_STR(status_of(&f), "flaky", "a pass on a retry outranks unsupported");
  f.samples[2].retried = 0;
  TAP_EQ_STR(status_of(&f), "unsupported", "one unsupported sample");
}

int main(void)
{
  test_figures();
  test_lane_compute();
  test_lane_status();
  return tap_done();
}
