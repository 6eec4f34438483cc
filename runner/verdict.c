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
                              ck->reason, sizeof(ck->reason)) == 0;
  if (ck->passed)
    snprintf(ck->reason, sizeof(ck->reason),
             "counts and wire bytes match the workload");
  else if (!ck->ran)
    snprintf(ck->reason, sizeof(ck->reason),
             "no result: the client did not exit with 0");
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

/* How a peer itself failed, client first: a protocol rejection it named,
 * a signal it died of, its deadline. Returns 1 when one decided. */
static int decide_peer_failure(struct model_sample *res)
{
  const struct model_peer *s = &res->server, *c = &res->client;
  const struct model_check_outcome *ck = res->checks;
  char line[256];

  if (c->reaped && !c->forced && !clean_exit(c) &&
      names_rejection(c, line, sizeof(line)))
    fail(res, "client", "protocol_violation", "client: %s%s", line, "");
  else if (s->reaped && !s->forced && !clean_exit(s) &&
           names_rejection(s, line, sizeof(line)))
    fail(res, "server", "protocol_violation", "server: %s%s", line, "");
  else if (died_alone(c))
    fail(res, "client", "signal", "client %s%s",
         ck[MODEL_CHECK_CLIENT_EXIT].reason, "");
  else if (died_alone(s))
    fail(res, "server", "signal", "server %s%s",
         ck[MODEL_CHECK_SERVER_EXIT].reason, "");
  else if (c->timed_out)
    fail(res, "client", "timeout_client", "client %s%s",
         ck[MODEL_CHECK_CLIENT_EXIT].reason, "");
  else if (s->timed_out)
    fail(res, "server", "timeout_server",
         "server %s (no exit after the client ended)%s",
         ck[MODEL_CHECK_SERVER_EXIT].reason, "");
  else
    return 0;
  return 1;
}

/* The remaining checks in rank order: the first that failed decides. */
static const struct {
  enum model_check check;
  const char *stage;
  const char *reason;
  const char *prefix; /* of the message, before the check's reason */
} ranked_checks[] = {
    {MODEL_CHECK_CLIENT_EXIT, "client", "client_exit", "client "},
    {MODEL_CHECK_SERVER_EXIT, "server", "server_exit", "server "},
    {MODEL_CHECK_CLIENT_RESULT, "result", "result_mismatch", ""},
    {MODEL_CHECK_NO_ORPHANS, "cleanup", "orphan_process", ""},
    {MODEL_CHECK_PORT_FREE, "cleanup", "port_not_free", ""},
    {MODEL_CHECK_TEMP_CLEAN, "cleanup", "temp_not_clean", ""},
};

static void decide_failed_check(struct model_sample *res)
{
  for (size_t i = 0; i < sizeof(ranked_checks) / sizeof(ranked_checks[0]);
       i++) {
    const struct model_check_outcome *ck = &res->checks[ranked_checks[i].check];
    if (!ck->passed) {
      fail(res, ranked_checks[i].stage, ranked_checks[i].reason, "%s%s",
           ranked_checks[i].prefix, ck->reason);
      return;
    }
  }
}

void verdict_decide(const struct verdict_input *in, struct model_sample *res)
{
  check_ready(in, res);
  fill_exit_check(&res->checks[MODEL_CHECK_CLIENT_EXIT], &res->client);
  fill_exit_check(&res->checks[MODEL_CHECK_SERVER_EXIT], &res->server);
  check_result(in, res);

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
  if (decide_peer_failure(res))
    return;
  if (in->stdout_extra) {
    fail(res, "server", "server_stdout", "server printed %s%s", in->stdout_msg,
         "");
    return;
  }
  decide_failed_check(res);
}
