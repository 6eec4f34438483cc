#include "runner/verdict.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "platforms/platform.h"
#include "runner/result.h"

/* Exit status that the peer contract reserves for "not supported". */
#define EXIT_UNSUPPORTED 127

/* 1 when a peer's stderr names a rejection of SPEC.md section 6, with its
 * first line copied into line; else 0. */
static int names_rejection(const struct model_peer *p, char *line, size_t len)
{
  char text[2048];
  capture_text(&p->err, text, sizeof(text));
  for (int e = PROTO_E_UNSUPPORTED_VERSION; e >= PROTO_E_PEER_ERROR; e--) {
    if (strstr(text, proto_error_name(e)) != NULL) {
      capture_first_line(&p->err, line, len);
      return 1;
    }
  }
  return 0;
}

static void describe_exit(const struct model_peer *p, char *out, size_t len)
{
  char first[160];

  capture_first_line(&p->err, first, sizeof(first));
  if (!p->started)
    snprintf(out, len, "not started");
  else if (p->timed_out)
    snprintf(out, len, "still running at its deadline; terminated%s",
             p->signal ? " and killed" : "");
  else if (!p->reaped)
    snprintf(out, len, "not reaped");
  else if (p->signal)
    snprintf(out, len, "died by %s%s%s%s", platform_signal_name(p->signal),
             p->forced ? " (sent by the runner)" : "", first[0] ? ": " : "",
             first);
  else if (p->exit_code != 0)
    snprintf(out, len, "exited with %d%s%s", p->exit_code, first[0] ? ": " : "",
             first);
  else if (p->forced)
    snprintf(out, len, "exited with 0 after the runner signalled it");
  else
    snprintf(out, len, "exited by itself with 0");
}

static int clean_exit(const struct model_peer *p)
{
  return p->reaped && p->exited && p->exit_code == 0 && !p->timed_out &&
         !p->forced;
}

static void fill_exit_check(struct model_check_outcome *c,
                            const struct model_peer *p)
{
  c->ran = p->started;
  c->passed = clean_exit(p);
  describe_exit(p, c->reason, sizeof(c->reason));
}

static void fail(struct model_sample *res, const char *stage,
                 const char *reason, const char *fmt, const char *a,
                 const char *b)
{
  res->status = MODEL_FAILED;
  res->failure_stage = stage;
  res->failure_reason = reason;
  snprintf(res->message, sizeof(res->message), fmt, a, b);
}

static int exited_with(const struct model_peer *p, int code)
{
  return p->reaped && p->exited && p->exit_code == code && !p->forced;
}

static int died_alone(const struct model_peer *p)
{
  return p->reaped && p->signal != 0 && !p->forced;
}

static void check_ready(const struct verdict_input *in,
                        struct model_sample *res)
{
  struct model_check_outcome *ck = &res->checks[MODEL_CHECK_SERVER_READY];

  ck->ran = res->server.started;
  ck->passed = in->ready && !in->stdout_extra;
  if (in->ready)
    snprintf(ck->reason, sizeof(ck->reason),
             "READY %d after %" PRIu64 " ms%s%s", res->port,
             res->ready_ns / 1000000, in->stdout_extra ? ", but " : "",
             in->stdout_extra ? in->stdout_msg : "");
  else
    snprintf(ck->reason, sizeof(ck->reason), "%s",
             in->ready_failed ? in->ready_msg : "server not started");
}

static void check_result(const struct verdict_input *in,
                         struct model_sample *res)
{
  struct model_check_outcome *ck = &res->checks[MODEL_CHECK_CLIENT_RESULT];

  ck->ran = exited_with(&res->client, 0);
  if (ck->ran && res->have_result)
    ck->passed = result_check(&res->result, in->workload, res->client.wall_ns,
                              ck->reason, sizeof(ck->reason)) == 0 &&
                 model_tls_check(&res->result.tls, "", res->over_tls,
                                 res->client.wall_ns, ck->reason,
                                 sizeof(ck->reason)) == 0;
  if (ck->passed)
    snprintf(ck->reason, sizeof(ck->reason),
             "counts and wire bytes match the workload");
  else if (!ck->ran)
    snprintf(ck->reason, sizeof(ck->reason),
             "no result: the client did not exit with 0");
}

/* The server's result line is optional (lanes/README.md): without one
 * its figures are not reported and the check passes; one that is there
 * must agree with the workload and with the client. */
static void check_server_result(const struct verdict_input *in,
                                struct model_sample *res)
{
  struct model_check_outcome *ck = &res->checks[MODEL_CHECK_SERVER_RESULT];
  const struct model_check_outcome *client =
      &res->checks[MODEL_CHECK_CLIENT_RESULT];

  ck->ran = exited_with(&res->server, 0) && in->ready && !in->stdout_extra;
  ck->passed = 0;
  if (!ck->ran) {
    snprintf(ck->reason, sizeof(ck->reason), "%s",
             in->ready && in->stdout_extra
                 ? "not judged: the server's stdout broke the contract"
                 : "no result: the server did not exit with 0");
  } else if (!res->server_printed_result) {
    ck->passed = 1;
    snprintf(ck->reason, sizeof(ck->reason),
             "no result line: the server's figures are not reported");
  } else if (res->have_server_result &&
             result_server_check(&res->server_result, in->workload,
                                 client->passed ? &res->result : NULL,
                                 ck->reason, sizeof(ck->reason)) == 0 &&
             model_tls_check(&res->server_result.tls, "server's ",
                             res->over_tls, 0, ck->reason,
                             sizeof(ck->reason)) == 0 &&
             (!client->passed ||
              model_tls_check_pair(&res->result.tls, &res->server_result.tls,
                                   ck->reason, sizeof(ck->reason)) == 0)) {
    ck->passed = 1;
    snprintf(ck->reason, sizeof(ck->reason),
             "counts and wire bytes match the workload%s",
             client->passed ? " and the client's" : "");
  }
}

/* The runner's own errors: interrupted, or a peer it could not start.
 * Returns 1 when one decided the sample. */
static int decide_error(const struct verdict_input *in,
                        struct model_sample *res)
{
  const struct model_peer *s = &res->server, *c = &res->client;

  if (in->interrupted) {
    res->status = MODEL_ERROR;
    res->failure_stage = "runner";
    res->failure_reason = "interrupted";
    snprintf(res->message, sizeof(res->message), "interrupted by a signal");
    return 1;
  }
  if (!s->started || (in->spawn_failed && !c->started && in->ready)) {
    res->status = MODEL_ERROR;
    res->failure_stage = s->started ? "client_start" : "server_start";
    res->failure_reason = "spawn_failed";
    snprintf(res->message, sizeof(res->message), "%s", in->spawn_msg);
    return 1;
  }
  return 0;
}

/* A peer that exited with 127. Returns 1 when one decided the sample. */
static int decide_unsupported(const struct verdict_input *in,
                              struct model_sample *res)
{
  int client = exited_with(&res->client, EXIT_UNSUPPORTED);

  if (!client && (in->ready || !exited_with(&res->server, EXIT_UNSUPPORTED)))
    return 0;
  res->status = MODEL_UNSUPPORTED;
  res->failure_stage = client ? "client" : "server_ready";
  res->failure_reason = "unsupported";
  snprintf(res->message, sizeof(res->message),
           "the %s exited with 127: not supported",
           client ? "client" : "server");
  return 1;
}

/* The faults a sample can show, in the order that breaks a tie between
 * faults seen at the same moment (in one tick of the executor): a
 * rejection a peer named, client first, then a signal, a deadline, more
 * than READY on the server's stdout, an exit, the client's result, the
 * server's, and the cleanup checks, which are only seen after everything
 * else. */
enum fault {
  FAULT_CLIENT_REJECTION,
  FAULT_SERVER_REJECTION,
  FAULT_CLIENT_SIGNAL,
  FAULT_SERVER_SIGNAL,
  FAULT_CLIENT_TIMEOUT,
  FAULT_SERVER_TIMEOUT,
  FAULT_SERVER_STDOUT,
  FAULT_CLIENT_EXIT,
  FAULT_SERVER_EXIT,
  FAULT_RESULT,
  FAULT_SERVER_RESULT,
  FAULT_ORPHANS,
  FAULT_PORT,
  FAULT_TEMP,
  FAULT_COUNT
};

#define FAULT_AT_CLEANUP UINT64_MAX

/* What each fault decides, and the check whose reason ends the message
 * (MODEL_CHECK_COUNT: the message is made by the caller). */
static const struct {
  const char *stage;
  const char *reason;
  enum model_check check;
  const char *prefix;
} fault_verdicts[FAULT_COUNT] = {
    /* A rejection's message is the peer's own line as it printed it: the
     * lanes name themselves ("client: wrong_sequence: ..."), and the stage
     * says which peer it was, so no prefix is added. */
    [FAULT_CLIENT_REJECTION] = {"client", "protocol_violation",
                                MODEL_CHECK_COUNT, ""},
    [FAULT_SERVER_REJECTION] = {"server", "protocol_violation",
                                MODEL_CHECK_COUNT, ""},
    [FAULT_CLIENT_SIGNAL] = {"client", "signal", MODEL_CHECK_CLIENT_EXIT,
                             "client "},
    [FAULT_SERVER_SIGNAL] = {"server", "signal", MODEL_CHECK_SERVER_EXIT,
                             "server "},
    [FAULT_CLIENT_TIMEOUT] = {"client", "timeout_client",
                              MODEL_CHECK_CLIENT_EXIT, "client "},
    [FAULT_SERVER_TIMEOUT] = {"server", "timeout_server", MODEL_CHECK_COUNT,
                              "server "},
    [FAULT_SERVER_STDOUT] = {"server", "server_stdout", MODEL_CHECK_COUNT,
                             "server printed "},
    [FAULT_CLIENT_EXIT] = {"client", "client_exit", MODEL_CHECK_CLIENT_EXIT,
                           "client "},
    [FAULT_SERVER_EXIT] = {"server", "server_exit", MODEL_CHECK_SERVER_EXIT,
                           "server "},
    [FAULT_RESULT] = {"result", "result_mismatch", MODEL_CHECK_CLIENT_RESULT,
                      ""},
    [FAULT_SERVER_RESULT] = {"result", "result_mismatch",
                             MODEL_CHECK_SERVER_RESULT, ""},
    [FAULT_ORPHANS] = {"cleanup", "orphan_process", MODEL_CHECK_NO_ORPHANS, ""},
    [FAULT_PORT] = {"cleanup", "port_not_free", MODEL_CHECK_PORT_FREE, ""},
    [FAULT_TEMP] = {"cleanup", "temp_not_clean", MODEL_CHECK_TEMP_CLEAN, ""},
};

/* A peer's own failure, as opposed to what the runner did to it: a forced
 * peer's exit says what the runner's signal did, not what the peer did. */
static int rejected(const struct model_peer *p, char *line, size_t len)
{
  return p->reaped && !p->forced && !clean_exit(p) &&
         names_rejection(p, line, len);
}

/* Notes in a peer's exit check that its fault came after the runner had
 * signalled the other peer: a consequence (a reset, an end of stream),
 * never the cause. */
static void note_consequence(struct model_check_outcome *ck,
                             const struct model_peer *p, uint64_t end_ns,
                             uint64_t other_terminated_ns, const char *other)
{
  size_t len = strlen(ck->reason);

  if (ck->passed || !p->reaped || other_terminated_ns == 0 ||
      end_ns < other_terminated_ns)
    return;
  snprintf(ck->reason + len, sizeof(ck->reason) - len,
           " (after the runner terminated the %s)", other);
}

static uint64_t said_at(uint64_t said_ns, uint64_t end_ns)
{
  return said_ns != 0 && said_ns < end_ns ? said_ns : end_ns;
}

/* The earliest fault decides; a tie goes to the first in enum fault.
 * Returns 1 when one decided. */
static int decide_earliest_fault(const struct verdict_input *in,
                                 struct model_sample *res)
{
  const struct model_peer *s = &res->server, *c = &res->client;
  const struct model_check_outcome *ck = res->checks;
  uint64_t at[FAULT_COUNT];
  int seen[FAULT_COUNT] = {0};
  char lines[2][256];
  int best = -1;

  seen[FAULT_CLIENT_REJECTION] = rejected(c, lines[0], sizeof(lines[0]));
  seen[FAULT_SERVER_REJECTION] = rejected(s, lines[1], sizeof(lines[1]));
  seen[FAULT_CLIENT_SIGNAL] = died_alone(c);
  seen[FAULT_SERVER_SIGNAL] = died_alone(s);
  seen[FAULT_CLIENT_TIMEOUT] = c->timed_out;
  seen[FAULT_SERVER_TIMEOUT] = s->timed_out;
  seen[FAULT_SERVER_STDOUT] = in->stdout_extra;
  seen[FAULT_CLIENT_EXIT] = !ck[MODEL_CHECK_CLIENT_EXIT].passed;
  seen[FAULT_SERVER_EXIT] = !ck[MODEL_CHECK_SERVER_EXIT].passed;
  seen[FAULT_RESULT] = !ck[MODEL_CHECK_CLIENT_RESULT].passed;
  /* Not run, it follows from a fault of the server seen before. */
  seen[FAULT_SERVER_RESULT] = ck[MODEL_CHECK_SERVER_RESULT].ran &&
                              !ck[MODEL_CHECK_SERVER_RESULT].passed;
  seen[FAULT_ORPHANS] = !ck[MODEL_CHECK_NO_ORPHANS].passed;
  seen[FAULT_PORT] = !ck[MODEL_CHECK_PORT_FREE].passed;
  seen[FAULT_TEMP] = !ck[MODEL_CHECK_TEMP_CLEAN].passed;
  at[FAULT_CLIENT_SIGNAL] = at[FAULT_CLIENT_EXIT] = at[FAULT_RESULT] =
      in->client_end_ns;
  at[FAULT_SERVER_SIGNAL] = at[FAULT_SERVER_EXIT] = at[FAULT_SERVER_RESULT] =
      in->server_end_ns;
  at[FAULT_CLIENT_REJECTION] = said_at(in->client_said_ns, in->client_end_ns);
  at[FAULT_SERVER_REJECTION] = said_at(in->server_said_ns, in->server_end_ns);
  at[FAULT_CLIENT_TIMEOUT] = in->client_timeout_ns;
  at[FAULT_SERVER_TIMEOUT] = in->server_timeout_ns;
  at[FAULT_SERVER_STDOUT] = in->stdout_extra_ns;
  at[FAULT_ORPHANS] = at[FAULT_PORT] = at[FAULT_TEMP] = FAULT_AT_CLEANUP;

  for (int f = 0; f < FAULT_COUNT; f++)
    if (seen[f] && (best < 0 || at[f] < at[best]))
      best = f;
  if (best < 0)
    return 0;
  switch (best) {
  case FAULT_CLIENT_REJECTION:
  case FAULT_SERVER_REJECTION:
    fail(res, fault_verdicts[best].stage, fault_verdicts[best].reason, "%s%s",
         fault_verdicts[best].prefix, lines[best - FAULT_CLIENT_REJECTION]);
    break;
  case FAULT_SERVER_TIMEOUT:
    fail(res, "server", "timeout_server",
         "server %s (no exit after the client ended)%s",
         ck[MODEL_CHECK_SERVER_EXIT].reason, "");
    break;
  case FAULT_SERVER_STDOUT:
    fail(res, "server", "server_stdout", "server printed %s%s", in->stdout_msg,
         "");
    break;
  default:
    fail(res, fault_verdicts[best].stage,
         best == FAULT_PORT && in->server_closed_first
             ? "server_closed_first"
             : fault_verdicts[best].reason,
         "%s%s", fault_verdicts[best].prefix,
         ck[fault_verdicts[best].check].reason);
    break;
  }
  return 1;
}

void verdict_decide(const struct verdict_input *in, struct model_sample *res)
{
  check_ready(in, res);
  fill_exit_check(&res->checks[MODEL_CHECK_CLIENT_EXIT], &res->client);
  fill_exit_check(&res->checks[MODEL_CHECK_SERVER_EXIT], &res->server);
  note_consequence(&res->checks[MODEL_CHECK_CLIENT_EXIT], &res->client,
                   in->client_end_ns, in->server_terminated_ns, "server");
  note_consequence(&res->checks[MODEL_CHECK_SERVER_EXIT], &res->server,
                   in->server_end_ns, in->client_terminated_ns, "client");
  check_result(in, res);
  check_server_result(in, res);

  res->status = MODEL_PASSED;
  res->failure_stage = res->failure_reason = NULL;
  res->message[0] = '\0';
  if (decide_error(in, res) || decide_unsupported(in, res))
    return;
  if (!in->ready) {
    fail(res, "server_ready", "server_not_ready", "%s%s",
         res->checks[MODEL_CHECK_SERVER_READY].reason, "");
    return;
  }
  decide_earliest_fault(in, res);
}
