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
static int names_rejection(const struct model_peer *p, char *line,
                           size_t len)
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
    snprintf(out, len, "exited with %d%s%s", p->exit_code,
             first[0] ? ": " : "", first);
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

void verdict_decide(const struct verdict_input *in, struct model_sample *res)
{
  struct model_peer *s = &res->server, *c = &res->client;
  struct model_check_outcome *ck = res->checks;
  char line[256];

  ck[MODEL_CHECK_SERVER_READY].ran = s->started;
  ck[MODEL_CHECK_SERVER_READY].passed = in->ready;
  if (in->ready)
    snprintf(ck[MODEL_CHECK_SERVER_READY].reason, sizeof(ck[0].reason),
             "READY %d after %" PRIu64 " ms", res->port,
             res->ready_ns / 1000000);
  else
    snprintf(ck[MODEL_CHECK_SERVER_READY].reason, sizeof(ck[0].reason), "%s",
             in->ready_failed ? in->ready_msg : "server not started");
  fill_exit_check(&ck[MODEL_CHECK_CLIENT_EXIT], c);
  fill_exit_check(&ck[MODEL_CHECK_SERVER_EXIT], s);

  ck[MODEL_CHECK_CLIENT_RESULT].ran = exited_with(c, 0);
  if (ck[MODEL_CHECK_CLIENT_RESULT].ran && res->have_result)
    ck[MODEL_CHECK_CLIENT_RESULT].passed =
        result_check(&res->result, in->workload, ck[MODEL_CHECK_CLIENT_RESULT].reason,
                     sizeof(ck[0].reason)) == 0;
  if (ck[MODEL_CHECK_CLIENT_RESULT].passed)
    snprintf(ck[MODEL_CHECK_CLIENT_RESULT].reason, sizeof(ck[0].reason),
             "counts and wire bytes match the workload");
  else if (!ck[MODEL_CHECK_CLIENT_RESULT].ran)
    snprintf(ck[MODEL_CHECK_CLIENT_RESULT].reason, sizeof(ck[0].reason),
             "no result: the client did not exit with 0");

  res->status = MODEL_PASSED;
  res->failure_stage = res->failure_reason = NULL;
  res->message[0] = '\0';

  if (in->interrupted) {
    res->status = MODEL_ERROR;
    res->failure_stage = "runner";
    res->failure_reason = "interrupted";
    snprintf(res->message, sizeof(res->message), "interrupted by a signal");
    return;
  }
  if (!s->started || (in->spawn_failed && !c->started && in->ready)) {
    res->status = MODEL_ERROR;
    res->failure_stage = s->started ? "client_start" : "server_start";
    res->failure_reason = "spawn_failed";
    snprintf(res->message, sizeof(res->message), "%s", in->spawn_msg);
    return;
  }
  if ((!in->ready && exited_with(s, EXIT_UNSUPPORTED)) ||
      exited_with(c, EXIT_UNSUPPORTED)) {
    res->status = MODEL_UNSUPPORTED;
    res->failure_stage = exited_with(c, EXIT_UNSUPPORTED) ? "client"
                                                          : "server_ready";
    res->failure_reason = "unsupported";
    snprintf(res->message, sizeof(res->message),
             "the %s exited with 127: not supported",
             exited_with(c, EXIT_UNSUPPORTED) ? "client" : "server");
    return;
  }
  if (!in->ready)
    return fail(res, "server_ready", "server_not_ready", "%s%s",
                ck[MODEL_CHECK_SERVER_READY].reason, "");
  if (c->reaped && !c->forced && !clean_exit(c) && names_rejection(c, line,
                                                                   sizeof(line)))
    return fail(res, "client", "protocol_violation", "client: %s%s", line,
                "");
  if (s->reaped && !s->forced && !clean_exit(s) &&
      names_rejection(s, line, sizeof(line)))
    return fail(res, "server", "protocol_violation", "server: %s%s", line,
                "");
  if (died_alone(c))
    return fail(res, "client", "signal", "client %s%s",
                ck[MODEL_CHECK_CLIENT_EXIT].reason, "");
  if (died_alone(s))
    return fail(res, "server", "signal", "server %s%s",
                ck[MODEL_CHECK_SERVER_EXIT].reason, "");
  if (c->timed_out)
    return fail(res, "client", "timeout_client", "client %s%s",
                ck[MODEL_CHECK_CLIENT_EXIT].reason, "");
  if (s->timed_out)
    return fail(res, "server", "timeout_server",
                "server %s (no exit after the client ended)%s",
                ck[MODEL_CHECK_SERVER_EXIT].reason, "");
  if (!ck[MODEL_CHECK_CLIENT_EXIT].passed)
    return fail(res, "client", "client_exit", "client %s%s",
                ck[MODEL_CHECK_CLIENT_EXIT].reason, "");
  if (!ck[MODEL_CHECK_SERVER_EXIT].passed)
    return fail(res, "server", "server_exit", "server %s%s",
                ck[MODEL_CHECK_SERVER_EXIT].reason, "");
  if (!ck[MODEL_CHECK_CLIENT_RESULT].passed)
    return fail(res, "result", "result_mismatch", "%s%s",
                ck[MODEL_CHECK_CLIENT_RESULT].reason, "");
  if (!ck[MODEL_CHECK_NO_ORPHANS].passed)
    return fail(res, "cleanup", "orphan_process", "%s%s",
                ck[MODEL_CHECK_NO_ORPHANS].reason, "");
  if (!ck[MODEL_CHECK_PORT_FREE].passed)
    return fail(res, "cleanup", "port_not_free", "%s%s",
                ck[MODEL_CHECK_PORT_FREE].reason, "");
  if (!ck[MODEL_CHECK_TEMP_CLEAN].passed)
    return fail(res, "cleanup", "temp_not_clean", "%s%s",
                ck[MODEL_CHECK_TEMP_CLEAN].reason, "");
}
