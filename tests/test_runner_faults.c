/* The sample executor against peers that break the contract in ways whose
 * verdict used to depend on luck or on trust: a client timer that cannot
 * be true, bytes on the server's stdout after READY, the fault that came
 * first in time, and a server that closes its connection first. Each case
 * runs a misbehaving fixture peer (tests/fixture.c) against the C lane and
 * asserts the status, the stage, the reason, the failed check and that
 * nothing is left behind. */
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "runner/sample.h"
#include "tests/lib_env.h"
#include "tests/lib_samples.h"
#include "tests/lib_sockets.h"
#include "tests/tap.h"

static char fixture[1024], c_server[1024], c_client[1024];

struct peer_cmd {
  const char *argv[4];
};

static struct peer_cmd fixture_peer(const char *role, const char *mode)
{
  struct peer_cmd p = {{fixture, role, mode, NULL}};
  return p;
}

static struct peer_cmd c_peer(int server)
{
  struct peer_cmd p = {{server ? c_server : c_client, NULL, NULL, NULL}};
  return p;
}

static struct model_limits test_limits(void)
{
  struct model_limits l = MODEL_LIMITS_DEFAULT;
  l.ready_timeout_ms = (uint64_t)(tap_timeout_s(3) * 1000);
  l.client_timeout_ms = (uint64_t)(tap_timeout_s(2) * 1000);
  l.exit_timeout_ms = (uint64_t)(tap_timeout_s(2) * 1000);
  l.kill_grace_ms = 500;
  return l;
}

#define CLOSE_FIRST_RUNS 6

static const struct proto_workload small = {10, 200, 64, 8};

/* The ports of this test's samples, as a run keeps them: the states of a
 * port are then read at READY only when an earlier sample used it. */
static struct closers_history ports;

static int run_sample(struct model_sample *r, struct peer_cmd server,
                      struct peer_cmd client)
{
  char err[256];
  struct sample_spec spec = {
      "test", server.argv, client.argv, "127.0.0.1", small, test_limits(),
      NULL,   NULL,        NULL,        0,           &ports};
  int rc = sample_run(&spec, r, err, sizeof(err));
  if (rc != 0)
    tap_diag("sample_run: %s", err);
  return rc;
}

struct fault_case {
  const char *name;
  struct peer_cmd server;
  struct peer_cmd client;
  const char *stage;
  const char *reason;
  enum model_check failing;
  const char *message_has; /* in the failure message */
};

/* Runs the case; the sample is left in *r (released by the caller) when
 * it returns 1. */
static int run_fault(const struct fault_case *fc, struct model_sample *r)
{
  if (run_sample(r, fc->server, fc->client) != 0) {
    TAP_OK(0, "%s: the sample ran", fc->name);
    return 0;
  }
  TAP_OK(r->status == MODEL_FAILED, "%s: failed (%s)", fc->name,
         model_status_name(r->status));
  TAP_EQ_STR(r->failure_stage, fc->stage, "%s: stage", fc->name);
  TAP_EQ_STR(r->failure_reason, fc->reason, "%s: reason (%s)", fc->name,
             r->message);
  TAP_OK(r->checks[fc->failing].ran && !r->checks[fc->failing].passed,
         "%s: check %s fails: %s", fc->name, model_check_name(fc->failing),
         r->checks[fc->failing].reason);
  if (fc->message_has)
    TAP_HAS_STR(r->message, fc->message_has, "%s: the message", fc->name);
  samples_nothing_left(fc->name, r);
  return 1;
}

static void run_faults(const struct fault_case *cases, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    struct model_sample r;
    if (run_fault(&cases[i], &r))
      model_sample_release(&r);
  }
}

/* A client's elapsed_ns lies within its own lifetime as the runner
 * measured it, and above a floor per round trip. */
static void test_elapsed_bounds(void)
{
  const struct fault_case cases[] = {
      {"elapsed_ns 1", c_peer(1), fixture_peer("client", "elapsed-1"), "result",
       "result_mismatch", MODEL_CHECK_CLIENT_RESULT,
       "'elapsed_ns' is 1, below the plausibility floor of 200 round trips"},
      {"elapsed_ns 0", c_peer(1), fixture_peer("client", "elapsed-0"), "result",
       "result_mismatch", MODEL_CHECK_CLIENT_RESULT,
       "'elapsed_ns' is 0, expected a positive time"},
      {"elapsed_ns of an hour", c_peer(1),
       fixture_peer("client", "elapsed-long"), "result", "result_mismatch",
       MODEL_CHECK_CLIENT_RESULT,
       "'elapsed_ns' is 3600000000000, more than the client's lifetime"},
  };
  struct model_sample r;

  run_faults(cases, sizeof(cases) / sizeof(cases[0]));
  if (run_sample(&r, c_peer(1), fixture_peer("client", "ok")) == 0) {
    TAP_OK(r.status == MODEL_PASSED && r.have_result &&
               r.result.elapsed_ns > 0 &&
               (uint64_t)r.result.elapsed_ns <= r.client.wall_ns,
           "a true timer passes, within the client's lifetime (%lld of %llu "
           "ns: %s)",
           (long long)r.result.elapsed_ns, (unsigned long long)r.client.wall_ns,
           r.message);
    model_sample_release(&r);
  }
}

/* The cost fields of a result line must be right when they are there
 * (lanes/README.md), the server's result line too; without them the
 * figures are not reported and the sample passes. */
static void test_cost_fields(void)
{
  const struct fault_case cases[] = {
      {"latency buckets that do not add up", c_peer(1),
       fixture_peer("client", "latency-sum"), "result", "result_mismatch",
       MODEL_CHECK_CLIENT_RESULT,
       "result 'latency.buckets' counts add up to 201, expected "
       "round_trips 200"},
      {"a p99 the buckets do not give", c_peer(1),
       fixture_peer("client", "latency-p99"), "result", "result_mismatch",
       MODEL_CHECK_CLIENT_RESULT, "result 'latency.p99' is "},
      {"a max above elapsed_ns", c_peer(1),
       fixture_peer("client", "latency-max"), "result", "result_mismatch",
       MODEL_CHECK_CLIENT_RESULT, "result 'latency.max' is "},
      {"a server whose result line lies", fixture_peer("server", "result-lie"),
       c_peer(0), "result", "result_mismatch", MODEL_CHECK_SERVER_RESULT,
       "server result 'frames_received' is 213, expected 212"},
  };
  struct model_sample r;

  run_faults(cases, sizeof(cases) / sizeof(cases[0]));
  if (run_sample(&r, fixture_peer("server", "result"),
                 fixture_peer("client", "latency")) == 0) {
    TAP_OK(r.status == MODEL_PASSED && r.have_server_result &&
               r.result.has_latency && r.result.latency.count == 200 &&
               r.result.cpu_user_us >= 0 &&
               r.server_result.frames_received == r.result.frames_sent &&
               r.checks[MODEL_CHECK_SERVER_RESULT].passed,
           "true cost fields from both peers pass, kept (%s: %s)", r.message,
           r.checks[MODEL_CHECK_SERVER_RESULT].reason);
    model_sample_release(&r);
  }
  if (run_sample(&r, fixture_peer("server", "ok"),
                 fixture_peer("client", "ok")) == 0) {
    TAP_OK(r.status == MODEL_PASSED && !r.have_server_result &&
               !r.result.has_latency &&
               r.result.cpu_user_us == MODEL_NOT_REPORTED &&
               r.checks[MODEL_CHECK_SERVER_RESULT].passed,
           "peers without the cost fields pass, their figures not reported "
           "(%s)",
           r.checks[MODEL_CHECK_SERVER_RESULT].reason);
    model_sample_release(&r);
  }
}

/* A server's whole stdout is its READY line and, after the session, at
 * most one result line holding one JSON object (lanes/README.md). */
static void test_server_stdout(void)
{
  const struct fault_case cases[] = {
      {"a second line after READY", fixture_peer("server", "second-line"),
       c_peer(0), "server", "server_stdout", MODEL_CHECK_SERVER_READY,
       "server printed 10 more bytes on stdout after the READY line: "
       "'listening?'"},
      {"bytes without a newline at the end",
       fixture_peer("server", "stdout-later"), c_peer(0), "server",
       "server_stdout", MODEL_CHECK_SERVER_READY,
       "server printed 3 more bytes on stdout after the READY line: 'bye' "
       "(no newline at the end)"},
      {"a line after the result line", fixture_peer("server", "result-twice"),
       c_peer(0), "server", "server_stdout", MODEL_CHECK_SERVER_READY,
       "more bytes on stdout after the server's result line: "
       "'{\"round_trips\":200}?'"},
  };
  const char *alone[] = {"ok", "result"};
  struct model_sample r;

  run_faults(cases, sizeof(cases) / sizeof(cases[0]));
  for (size_t i = 0; i < sizeof(alone) / sizeof(alone[0]); i++) {
    if (run_sample(&r, fixture_peer("server", alone[i]), c_peer(0)) != 0)
      continue;
    TAP_OK(r.status == MODEL_PASSED &&
               r.checks[MODEL_CHECK_SERVER_READY].passed,
           "a server printing %s passes (%s)",
           i == 0 ? "its READY line alone" : "READY and its result line",
           r.message);
    model_sample_release(&r);
  }
}

/* The reason is the earliest fault; what the runner's own terminations
 * cause afterwards is a consequence, noted in the other peer's check. */
static void test_earliest_fault(void)
{
  const struct fault_case stall = {"client hangs mid-session",
                                   c_peer(1),
                                   fixture_peer("client", "stall"),
                                   "client",
                                   "timeout_client",
                                   MODEL_CHECK_CLIENT_EXIT,
                                   "still running at its deadline"};
  const struct fault_case wrong_port = {
      "server announces a port where nothing listens",
      fixture_peer("server", "wrong-port"),
      c_peer(0),
      "client",
      "client_exit",
      MODEL_CHECK_CLIENT_EXIT,
      "connection refused"};
  struct model_sample r;

  if (run_fault(&stall, &r)) {
    const struct model_check_outcome *ck = &r.checks[MODEL_CHECK_SERVER_EXIT];
    TAP_OK(r.server.exited && r.server.exit_code != 0 && !r.server.forced,
           "client hangs: the server failed after the kill (%s)", ck->reason);
    TAP_HAS_STR(ck->reason, "(after the runner terminated the client)",
                "client hangs: the server's failure is noted as a consequence");
    model_sample_release(&r);
  }
  if (run_fault(&wrong_port, &r)) {
    TAP_OK(r.server.timed_out, "wrong port: the server then timed out too");
    TAP_OK(r.checks[MODEL_CHECK_SERVER_EXIT].ran &&
               !r.checks[MODEL_CHECK_SERVER_EXIT].passed,
           "wrong port: server_exit fails as well: %s",
           r.checks[MODEL_CHECK_SERVER_EXIT].reason);
    model_sample_release(&r);
  }
}

/* A server that closes before its client fails as server_closed_first
 * every time, from the TCP states, not from how a bind raced the close;
 * the lanes, whose clients close first, pass. */
static void test_server_closes_first(void)
{
  const struct fault_case close_first = {
      "server closes first",
      fixture_peer("server", "close-first"),
      c_peer(0),
      "cleanup",
      "server_closed_first",
      MODEL_CHECK_PORT_FREE,
      "the server closed its connection first: its socket 127.0.0.1:"};
  struct peer_cmd lanes[][2] = {
      {c_peer(1), c_peer(0)},
      {fixture_peer("server", "ok"), fixture_peer("client", "ok")},
  };
  int failed_alike = 0;
  char why[200];
  int states = samples_port_states(why, sizeof why);

  if (!states)
    TAP_OK(1,
           "server closes first # SKIP the runner cannot tell who closed "
           "first here: %s",
           why);
  for (int i = 0; i < CLOSE_FIRST_RUNS && states; i++) {
    struct model_sample r;
    if (!run_fault(&close_first, &r))
      continue;
    failed_alike +=
        r.failure_reason != NULL &&
        strcmp(r.failure_reason, "server_closed_first") == 0 &&
        strstr(r.checks[MODEL_CHECK_PORT_FREE].reason, "TIME_WAIT") != NULL;
    model_sample_release(&r);
  }
  if (states)
    TAP_EQ_INT(failed_alike, CLOSE_FIRST_RUNS,
               "server closes first: the same reason and state in every run");
  for (int i = 0; i < CLOSE_FIRST_RUNS; i++) {
    struct model_sample r;
    struct peer_cmd *lane = lanes[i % 2];
    if (run_sample(&r, lane[0], lane[1]) != 0)
      continue;
    TAP_OK(r.status == MODEL_PASSED && r.checks[MODEL_CHECK_PORT_FREE].passed,
           "a client that closes first passes, run %d (%s: %s)", i + 1,
           r.checks[MODEL_CHECK_PORT_FREE].reason, r.message);
    model_sample_release(&r);
  }
}

/* A socket of an earlier connection that still holds the server's port
 * (a server that binds a fixed port, with address reuse, after a session
 * whose server closed first) is not this session's: the sample fails as
 * port_not_free, never as server_closed_first. The runner tells it by its
 * age, or, for a port an earlier sample of the run used, from the states
 * read at READY; each way is tried. */
static void test_earlier_closer(void)
{
  static const char *const ways[] = {"older than READY",
                                     "on a port the run used"};
  char why[200];
  int states = samples_port_states(why, sizeof why);

  for (int way = 0; way < 2; way++) {
    struct model_sample r;
    char port_text[16];
    int port = 0;

    if (!states) {
      TAP_OK(1, "an earlier closer %s # SKIP %s", ways[way], why);
      continue;
    }
    if (!TAP_OK(sockets_time_wait(&port) == 0,
                "an earlier closer %s: a TIME_WAIT socket", ways[way]))
      continue;
    if (way == 0)
      uv_sleep(1500); /* past the age margin of closers_note */
    else
      closers_history_mark(&ports, port);
    snprintf(port_text, sizeof port_text, "%d", port);
    env_set("CROSSRUN_FIXTURE_PORT", port_text);
    if (run_sample(&r, fixture_peer("server", "port-from-env"), c_peer(0)) ==
        0) {
      TAP_EQ_INT(r.port, port, "an earlier closer %s: the server's port",
                 ways[way]);
      TAP_EQ_STR(r.failure_reason, "port_not_free",
                 "an earlier closer %s: the reason (%s)", ways[way], r.message);
      TAP_OK(r.checks[MODEL_CHECK_PORT_FREE].ran &&
                 strstr(r.checks[MODEL_CHECK_PORT_FREE].reason,
                        "closed its connection first") == NULL,
             "an earlier closer %s: not taken for the server's: %s", ways[way],
             r.checks[MODEL_CHECK_PORT_FREE].reason);
      model_sample_release(&r);
    }
    env_set("CROSSRUN_FIXTURE_PORT", NULL);
  }
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char err[256] = "";

  snprintf(fixture, sizeof(fixture), "%s/tests/fixture", build);
  snprintf(c_server, sizeof(c_server), "%s/lanes/c/server", build);
  snprintf(c_client, sizeof(c_client), "%s/lanes/c/client", build);
  if (!TAP_OK(platform_init(err, sizeof(err)) == 0, "platform_init: %s", err))
    return tap_done();
  test_elapsed_bounds();
  test_server_stdout();
  test_cost_fields();
  test_earliest_fault();
  test_server_closes_first();
  test_earlier_closer();
  return tap_done();
}
