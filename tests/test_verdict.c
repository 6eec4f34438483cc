/* runner/verdict: from what the executor observed to each check's outcome
 * and the sample's one status, stage and reason. Every input is made here
 * by hand (no processes), so each rule of the failure ranking is pinned
 * alone and against the rules below it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "platforms/platform.h"
#include "protocol/codec.h"
#include "evidence/model/capture.h"
#include "runner/verdict.h"
#include "tests/tap.h"

/* The inputs are made by hand, so a signal is only a number here: where
 * the C runtime has no SIGKILL or SIGBUS (Windows), Linux's stand in. */
#ifndef SIGKILL
#define SIGKILL 9
#endif
#ifndef SIGBUS
#define SIGBUS 7
#endif

static const struct proto_workload workload = {10, 100, 64, 8};

/* A peer that exited by itself with code, having written err to stderr. */
static void peer_exited(struct model_peer *p, int code, const char *err)
{
  p->started = 1;
  p->pid = 4242;
  p->reaped = 1;
  p->exited = 1;
  p->exit_code = code;
  if (err)
    capture_append(&p->err, err, strlen(err));
}

/* A sample in which everything went right: both peers exited with 0, the
 * result matches the workload, and the cleanup checks passed. */
static void sample_good(struct model_sample *res, struct verdict_input *in)
{
  struct proto_totals t;

  memset(res, 0, sizeof(*res));
  memset(in, 0, sizeof(*in));
  if (capture_alloc(&res->server.err, 1024) != 0 ||
      capture_alloc(&res->client.err, 1024) != 0)
    TAP_OK(0, "stderr captures allocate");
  in->ready = 1;
  in->workload = &workload;
  res->port = 40123;
  res->ready_ns = 7 * 1000000ull;
  peer_exited(&res->server, 0, NULL);
  peer_exited(&res->client, 0, NULL);
  res->client.wall_ns = 50 * 1000000ull;
  proto_totals_expected(&workload, &t);
  res->have_result = 1;
  res->result.round_trips = (int64_t)workload.round_trips;
  res->result.warmup_round_trips = (int64_t)workload.warmup;
  res->result.payload_bytes = workload.payload_bytes;
  res->result.max_in_flight = workload.max_in_flight;
  res->result.frames_sent = (int64_t)t.frames_sent;
  res->result.frames_received = (int64_t)t.frames_received;
  res->result.bytes_sent = (int64_t)t.bytes_sent;
  res->result.bytes_received = (int64_t)t.bytes_received;
  res->result.elapsed_ns = 123456;
  for (int i = MODEL_CHECK_NO_ORPHANS; i <= MODEL_CHECK_TEMP_CLEAN; i++) {
    res->checks[i].ran = 1;
    res->checks[i].passed = 1;
    snprintf(res->checks[i].reason, sizeof(res->checks[i].reason), "clean");
  }
}

/* A peer that was never started (its stderr capture freed). */
static void peer_not_started(struct model_peer *p)
{
  capture_release(&p->err);
  memset(p, 0, sizeof(*p));
}

static void sample_done(struct model_sample *res)
{
  capture_release(&res->server.err);
  capture_release(&res->client.err);
}

/* A cleanup check that failed with reason. */
static void cleanup_failed(struct model_sample *res, enum model_check id,
                           const char *reason)
{
  res->checks[id].passed = 0;
  snprintf(res->checks[id].reason, sizeof(res->checks[id].reason), "%s",
           reason);
}

/* Decides, then checks the status, stage and reason (NULLs for none). */
static void expect(const char *label, struct model_sample *res,
                   struct verdict_input *in, enum model_status status,
                   const char *stage, const char *reason)
{
  verdict_decide(in, res);
  TAP_EQ_STR(model_status_name(res->status), model_status_name(status),
             "%s: status", label);
  TAP_EQ_STR(res->failure_stage, stage, "%s: stage", label);
  TAP_EQ_STR(res->failure_reason, reason, "%s: reason (%s)", label,
             res->message);
}

static void test_passed(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  expect("all good", &res, &in, MODEL_PASSED, NULL, NULL);
  TAP_EQ_STR(res.message, "", "a pass has no message");
  for (int i = 0; i < MODEL_CHECK_COUNT; i++)
    TAP_OK(res.checks[i].ran && res.checks[i].passed, "%s ran and passed",
           model_check_name((enum model_check)i));
  TAP_EQ_STR(res.checks[MODEL_CHECK_SERVER_READY].reason,
             "READY 40123 after 7 ms",
             "server_ready names the port and the time to READY");
  TAP_EQ_STR(res.checks[MODEL_CHECK_CLIENT_EXIT].reason,
             "exited by itself with 0", "client_exit says how it ended");
  TAP_EQ_STR(res.checks[MODEL_CHECK_CLIENT_RESULT].reason,
             "counts and wire bytes match the workload",
             "client_result says what matched");
  sample_done(&res);

  /* A verdict is decided afresh: a second call on a result that failed
   * before does not keep the old failure. */
  sample_good(&res, &in);
  in.interrupted = 1;
  verdict_decide(&in, &res);
  in.interrupted = 0;
  expect("decided again", &res, &in, MODEL_PASSED, NULL, NULL);
  sample_done(&res);
}

static void test_errors(void)
{
  struct model_sample res;
  struct verdict_input in;

  /* An interruption outranks everything, even a server never started. */
  sample_good(&res, &in);
  in.interrupted = 1;
  res.server.started = 0;
  res.client.exit_code = 3;
  expect("interrupted", &res, &in, MODEL_ERROR, "runner", "interrupted");
  TAP_EQ_STR(res.message, "interrupted by a signal", "interrupted: message");
  sample_done(&res);

  sample_good(&res, &in);
  peer_not_started(&res.server);
  peer_not_started(&res.client);
  in.ready = 0;
  in.spawn_failed = 1;
  in.spawn_msg = "cannot run 'nope': no such file or directory";
  expect("server not started", &res, &in, MODEL_ERROR, "server_start",
         "spawn_failed");
  TAP_EQ_STR(res.message, in.spawn_msg, "spawn failure: the spawn's message");
  TAP_OK(!res.checks[MODEL_CHECK_SERVER_READY].ran &&
             !res.checks[MODEL_CHECK_SERVER_READY].passed,
         "server_ready did not run");
  TAP_EQ_STR(res.checks[MODEL_CHECK_SERVER_READY].reason, "server not started",
             "server_ready: why");
  TAP_EQ_STR(res.checks[MODEL_CHECK_CLIENT_EXIT].reason, "not started",
             "client_exit: not started");
  TAP_OK(!res.checks[MODEL_CHECK_CLIENT_RESULT].ran,
         "client_result did not run without a client");
  sample_done(&res);

  sample_good(&res, &in);
  peer_not_started(&res.client);
  res.have_result = 0;
  in.spawn_failed = 1;
  in.spawn_msg = "cannot run the client";
  expect("client not started", &res, &in, MODEL_ERROR, "client_start",
         "spawn_failed");
  sample_done(&res);
}

static void test_unsupported(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  in.ready = 0;
  res.server.exit_code = 127;
  expect("server exits 127 before READY", &res, &in, MODEL_UNSUPPORTED,
         "server_ready", "unsupported");
  TAP_EQ_STR(res.message, "the server exited with 127: not supported",
             "unsupported server: message");
  sample_done(&res);

  sample_good(&res, &in);
  res.server.exit_code = 127;
  res.client.exit_code = 1;
  expect("server exits 127 after READY", &res, &in, MODEL_FAILED, "client",
         "client_exit");
  sample_done(&res);

  sample_good(&res, &in);
  res.client.exit_code = 127;
  res.server.exit_code = 1;
  expect("client exits 127", &res, &in, MODEL_UNSUPPORTED, "client",
         "unsupported");
  TAP_EQ_STR(res.message, "the client exited with 127: not supported",
             "unsupported client: message");
  sample_done(&res);

  /* A 127 the runner forced out of a peer is no answer of the peer's. */
  sample_good(&res, &in);
  res.client.exit_code = 127;
  res.client.forced = 1;
  expect("client forced to 127", &res, &in, MODEL_FAILED, "client",
         "client_exit");
  sample_done(&res);
}

static void test_not_ready(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  in.ready = 0;
  in.ready_failed = 1;
  in.ready_msg = "no READY line within 10000 ms";
  res.client.exit_code = 1; /* below: not ready comes first */
  expect("not ready", &res, &in, MODEL_FAILED, "server_ready",
         "server_not_ready");
  TAP_EQ_STR(res.message, in.ready_msg, "not ready: the READY wait's message");
  TAP_OK(res.checks[MODEL_CHECK_SERVER_READY].ran &&
             !res.checks[MODEL_CHECK_SERVER_READY].passed,
         "server_ready ran and failed");
  sample_done(&res);
}

static void test_server_stdout(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  in.stdout_extra = 1;
  in.stdout_msg = "6 more bytes on stdout after the READY line: 'hello?'";
  cleanup_failed(&res, MODEL_CHECK_TEMP_CLEAN, "1 entry left");
  expect("more than READY on stdout", &res, &in, MODEL_FAILED, "server",
         "server_stdout");
  TAP_EQ_STR(res.message,
             "server printed 6 more bytes on stdout after the READY line: "
             "'hello?'",
             "server_stdout: what and how much");
  TAP_OK(res.checks[MODEL_CHECK_SERVER_READY].ran &&
             !res.checks[MODEL_CHECK_SERVER_READY].passed,
         "server_ready ran and failed");
  TAP_EQ_STR(res.checks[MODEL_CHECK_SERVER_READY].reason,
             "READY 40123 after 7 ms, but 6 more bytes on stdout after the "
             "READY line: 'hello?'",
             "server_ready: the READY line, then the rest");
  sample_done(&res);
}

static void test_protocol_violations(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  peer_exited(&res.client, 1,
              "client: wrong_sequence: got 3, expected 2\n"
              "more detail\n");
  peer_exited(&res.server, 1, "server: unexpected_eof\n");
  expect("both name a rejection", &res, &in, MODEL_FAILED, "client",
         "protocol_violation");
  TAP_EQ_STR(res.message, "client: wrong_sequence: got 3, expected 2",
             "the client's first stderr line, as it printed it");
  sample_done(&res);

  sample_good(&res, &in);
  res.client.exit_code = 1;
  peer_exited(&res.server, 2, "peer_error: the client sent ERROR\n");
  expect("the server names a rejection", &res, &in, MODEL_FAILED, "server",
         "protocol_violation");
  TAP_EQ_STR(res.message, "peer_error: the client sent ERROR",
             "the server's stderr line, with no prefix added");
  sample_done(&res);

  /* A rejection named by a peer that died alone still ranks first. */
  sample_good(&res, &in);
  res.client.exited = 0;
  res.client.exit_code = 0;
  res.client.signal = SIGABRT;
  capture_append(&res.client.err, "bad_length\n", 11);
  expect("a signal after a rejection", &res, &in, MODEL_FAILED, "client",
         "protocol_violation");
  sample_done(&res);

  /* The text of a rejection from a peer the runner killed is not one. */
  sample_good(&res, &in);
  res.client.forced = 1;
  res.client.timed_out = 1;
  res.client.exited = 0;
  res.client.signal = SIGKILL;
  capture_append(&res.client.err, "truncated\n", 10);
  expect("a killed peer's words", &res, &in, MODEL_FAILED, "client",
         "timeout_client");
  sample_done(&res);

  /* A clean exit is no violation whatever stderr says. */
  sample_good(&res, &in);
  capture_append(&res.client.err, "unknown_type seen in a test\n", 28);
  expect("stderr of a clean client", &res, &in, MODEL_PASSED, NULL, NULL);
  sample_done(&res);
}

static void test_exits(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  res.client.exited = 0;
  res.client.exit_code = 0;
  res.client.signal = SIGSEGV;
  res.server.timed_out = 1;
  expect("the client dies by a signal", &res, &in, MODEL_FAILED, "client",
         "signal");
  TAP_HAS_STR(res.message, platform_signal_name(SIGSEGV),
              "the signal is named");
  sample_done(&res);

  sample_good(&res, &in);
  res.server.exited = 0;
  res.server.signal = SIGBUS;
  res.client.timed_out = 1;
  expect("the server dies by a signal", &res, &in, MODEL_FAILED, "server",
         "signal");
  sample_done(&res);

  sample_good(&res, &in);
  res.client.timed_out = 1;
  res.client.forced = 1;
  res.client.exited = 0;
  res.client.signal = SIGTERM;
  res.server.timed_out = 1;
  expect("the client times out", &res, &in, MODEL_FAILED, "client",
         "timeout_client");
  TAP_HAS_STR(res.message, "still running at its deadline",
              "timeout: how it ended");
  sample_done(&res);

  sample_good(&res, &in);
  res.server.timed_out = 1;
  res.server.forced = 1;
  res.server.exited = 0;
  res.server.signal = SIGKILL;
  expect("the server outlives the client", &res, &in, MODEL_FAILED, "server",
         "timeout_server");
  TAP_HAS_STR(res.message, "no exit after the client ended",
              "server timeout: message");
  TAP_HAS_STR(res.checks[MODEL_CHECK_SERVER_EXIT].reason, "and killed",
              "server_exit says it was killed");
  sample_done(&res);

  sample_good(&res, &in);
  peer_exited(&res.client, 2, "usage: client HOST PORT\n");
  res.server.exit_code = 4;
  expect("the client exits 2", &res, &in, MODEL_FAILED, "client",
         "client_exit");
  TAP_EQ_STR(res.message, "client exited with 2: usage: client HOST PORT",
             "client_exit: code and first line");
  TAP_OK(!res.checks[MODEL_CHECK_CLIENT_RESULT].ran,
         "no result check without 0");
  TAP_EQ_STR(res.checks[MODEL_CHECK_CLIENT_RESULT].reason,
             "no result: the client did not exit with 0",
             "client_result: why it did not run");
  sample_done(&res);

  sample_good(&res, &in);
  res.server.exit_code = 4;
  expect("the server exits 4", &res, &in, MODEL_FAILED, "server",
         "server_exit");
  sample_done(&res);

  sample_good(&res, &in);
  res.server.forced = 1;
  expect("the server needed a signal", &res, &in, MODEL_FAILED, "server",
         "server_exit");
  TAP_EQ_STR(res.checks[MODEL_CHECK_SERVER_EXIT].reason,
             "exited with 0 after the runner signalled it",
             "server_exit: signalled");
  sample_done(&res);

  sample_good(&res, &in);
  res.server.reaped = 0;
  res.server.exited = 0;
  expect("the server is not reaped", &res, &in, MODEL_FAILED, "server",
         "server_exit");
  TAP_EQ_STR(res.checks[MODEL_CHECK_SERVER_EXIT].reason, "not reaped",
             "server_exit: not reaped");
  sample_done(&res);
}

/* The earliest fault is the reason, whatever the rank; the rank breaks
 * ties only. Times are the executor's monotonic nanoseconds. */
static void test_earliest_fault(void)
{
  struct model_sample res;
  struct verdict_input in;

  /* The client is killed at its deadline; the reset that kill causes
   * makes the server name a rejection afterwards. */
  sample_good(&res, &in);
  res.client.exited = 0;
  res.client.timed_out = 1;
  res.client.forced = 1;
  res.client.signal = SIGTERM;
  peer_exited(&res.server, 1, "server: unexpected_eof: connection reset\n");
  in.client_timeout_ns = in.client_terminated_ns = 1000;
  in.client_end_ns = 1010;
  in.server_end_ns = 1015;
  expect("the kill's reset after a timeout", &res, &in, MODEL_FAILED, "client",
         "timeout_client");
  TAP_HAS_STR(res.checks[MODEL_CHECK_SERVER_EXIT].reason,
              "unexpected_eof: connection reset (after the runner terminated "
              "the client)",
              "the server's rejection is noted as a consequence");
  TAP_OK(strstr(res.checks[MODEL_CHECK_CLIENT_EXIT].reason, "after the") ==
             NULL,
         "the cause carries no consequence note");
  sample_done(&res);

  /* The client fails at once; the server waits for a connection until
   * its exit deadline. */
  sample_good(&res, &in);
  peer_exited(&res.client, 1, "client: connect: connection refused\n");
  res.server.exited = 0;
  res.server.timed_out = 1;
  res.server.forced = 1;
  res.server.signal = SIGTERM;
  in.client_end_ns = 500;
  in.server_timeout_ns = in.server_terminated_ns = 2500;
  in.server_end_ns = 2505;
  expect("a client failing before the server's deadline", &res, &in,
         MODEL_FAILED, "client", "client_exit");
  TAP_HAS_STR(res.message, "connection refused", "the client's own words");
  sample_done(&res);

  /* An earlier plain exit outranks a later rejection. */
  sample_good(&res, &in);
  res.server.exit_code = 3;
  peer_exited(&res.client, 1, "client: unexpected_eof: end of stream\n");
  in.server_end_ns = 10;
  in.client_end_ns = 20;
  expect("an exit before a rejection", &res, &in, MODEL_FAILED, "server",
         "server_exit");
  TAP_OK(strstr(res.checks[MODEL_CHECK_CLIENT_EXIT].reason, "after the") ==
             NULL,
         "no note where the runner terminated nothing");
  sample_done(&res);

  /* The same two at the same moment: the rank decides. */
  sample_good(&res, &in);
  res.server.exit_code = 3;
  peer_exited(&res.client, 1, "client: unexpected_eof: end of stream\n");
  in.server_end_ns = in.client_end_ns = 10;
  expect("a tie goes to the rank", &res, &in, MODEL_FAILED, "client",
         "protocol_violation");
  sample_done(&res);

  /* A wrong result, seen as the client exits, before the server fails. */
  sample_good(&res, &in);
  res.result.bytes_sent++;
  res.server.exit_code = 4;
  in.client_end_ns = 10;
  in.server_end_ns = 30;
  expect("a result before a later exit", &res, &in, MODEL_FAILED, "result",
         "result_mismatch");
  sample_done(&res);

  /* A rejection is seen when its words arrive, not when its peer is
   * reaped: a slow exit (a sanitizer's leak check) must not hand the
   * blame to the other peer's reaction. */
  sample_good(&res, &in);
  res.result.bytes_sent++;
  peer_exited(&res.server, 1, "server: wrong_payload: byte 3 differs\n");
  in.server_said_ns = 5;
  in.client_end_ns = 10;
  in.server_end_ns = 30;
  expect("a rejection said before the other peer's fault", &res, &in,
         MODEL_FAILED, "server", "protocol_violation");
  sample_done(&res);

  /* Words that come after the peer's end count at its end. */
  sample_good(&res, &in);
  res.result.bytes_sent++;
  peer_exited(&res.server, 1, "server: wrong_payload: byte 3 differs\n");
  in.server_said_ns = 40;
  in.client_end_ns = 10;
  in.server_end_ns = 30;
  expect("a rejection after the other peer's fault", &res, &in, MODEL_FAILED,
         "result", "result_mismatch");
  sample_done(&res);

  /* More than READY on stdout, before anything else went wrong. */
  sample_good(&res, &in);
  in.stdout_extra = 1;
  in.stdout_msg = "1 more byte on stdout after the READY line: 'x'";
  in.stdout_extra_ns = 5;
  res.client.exit_code = 1;
  in.client_end_ns = 9;
  expect("stdout before an exit", &res, &in, MODEL_FAILED, "server",
         "server_stdout");
  sample_done(&res);

  /* The cleanup checks come after every fault of the session. */
  sample_good(&res, &in);
  res.client.exit_code = 1;
  in.client_end_ns = 1u << 30;
  cleanup_failed(&res, MODEL_CHECK_NO_ORPHANS, "pid 99 left running");
  expect("cleanup after the session", &res, &in, MODEL_FAILED, "client",
         "client_exit");
  sample_done(&res);
}

static void test_result_and_cleanup(void)
{
  struct model_sample res;
  struct verdict_input in;

  sample_good(&res, &in);
  res.result.frames_sent++;
  cleanup_failed(&res, MODEL_CHECK_NO_ORPHANS, "pid 99 left running");
  expect("a wrong count", &res, &in, MODEL_FAILED, "result", "result_mismatch");
  TAP_HAS_STR(res.message, "frames_sent", "the field is named");
  TAP_OK(res.checks[MODEL_CHECK_CLIENT_RESULT].ran &&
             !res.checks[MODEL_CHECK_CLIENT_RESULT].passed,
         "client_result ran and failed");
  sample_done(&res);

  sample_good(&res, &in);
  res.have_result = 0;
  expect("no result line", &res, &in, MODEL_FAILED, "result",
         "result_mismatch");
  sample_done(&res);

  /* elapsed_ns lies within the client's lifetime and above the floor of
   * RESULT_MIN_NS_PER_ROUND_TRIP per round trip (100 x 10 ns here). */
  {
    static const struct {
      int64_t elapsed_ns;
      const char *message; /* NULL: passes */
    } times[] = {
        {0, "'elapsed_ns' is 0, expected a positive time"},
        {1, "'elapsed_ns' is 1, below the plausibility floor of 100 round "
            "trips x 10 ns"},
        {999, "below the plausibility floor"},
        {1000, NULL},
        {50 * 1000000, NULL},
        {50 * 1000000 + 1, "'elapsed_ns' is 50000001, more than the client's "
                           "lifetime of 50000000 ns"},
    };
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
      char label[64];
      snprintf(label, sizeof(label), "elapsed_ns %lld",
               (long long)times[i].elapsed_ns);
      sample_good(&res, &in);
      res.result.elapsed_ns = times[i].elapsed_ns;
      if (times[i].message == NULL) {
        expect(label, &res, &in, MODEL_PASSED, NULL, NULL);
      } else {
        expect(label, &res, &in, MODEL_FAILED, "result", "result_mismatch");
        TAP_HAS_STR(res.message, times[i].message, "%s: field and bound named",
                    label);
      }
      sample_done(&res);
    }
  }

  sample_good(&res, &in);
  cleanup_failed(&res, MODEL_CHECK_NO_ORPHANS, "pid 99 left running");
  cleanup_failed(&res, MODEL_CHECK_PORT_FREE, "port 40123 still bound");
  cleanup_failed(&res, MODEL_CHECK_TEMP_CLEAN, "2 entries left");
  expect("every cleanup check failed", &res, &in, MODEL_FAILED, "cleanup",
         "orphan_process");
  TAP_EQ_STR(res.message, "pid 99 left running", "orphans: the check's reason");
  sample_done(&res);

  sample_good(&res, &in);
  cleanup_failed(&res, MODEL_CHECK_PORT_FREE, "port 40123 still bound");
  cleanup_failed(&res, MODEL_CHECK_TEMP_CLEAN, "2 entries left");
  expect("port and temp failed", &res, &in, MODEL_FAILED, "cleanup",
         "port_not_free");
  sample_done(&res);

  sample_good(&res, &in);
  cleanup_failed(&res, MODEL_CHECK_PORT_FREE,
                 "the server closed its connection first: ... TIME_WAIT");
  cleanup_failed(&res, MODEL_CHECK_TEMP_CLEAN, "2 entries left");
  in.server_closed_first = 1;
  expect("the server closed first", &res, &in, MODEL_FAILED, "cleanup",
         "server_closed_first");
  TAP_HAS_STR(res.message, "closed its connection first",
              "server_closed_first: the port check's reason");
  sample_done(&res);

  sample_good(&res, &in);
  cleanup_failed(&res, MODEL_CHECK_TEMP_CLEAN, "2 entries left: a, b");
  expect("temp failed", &res, &in, MODEL_FAILED, "cleanup", "temp_not_clean");
  TAP_EQ_STR(res.message, "2 entries left: a, b", "temp: the check's reason");
  sample_done(&res);
}

int main(void)
{
  test_passed();
  test_errors();
  test_unsupported();
  test_not_ready();
  test_server_stdout();
  test_protocol_violations();
  test_exits();
  test_earliest_fault();
  test_result_and_cleanup();
  return tap_done();
}
