/* The verdict of one conformance case from what was observed: the peer's
 * exit, its one stderr line naming the rejection, the ERROR frame where
 * SPEC.md requires one, its result line for a valid session, and what it
 * left behind. The first reason found is the one reported. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evidence/base/utf8.h"
#include "runner/conform_internal.h"
#include "runner/result.h"

void conform_judge(struct conform_run *r);

static void fail(struct conform_outcome *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(struct conform_outcome *o, const char *fmt, ...)
{
  va_list ap;

  if (o->verdict == CONFORM_FAILED)
    return;
  o->verdict = CONFORM_FAILED;
  va_start(ap, fmt);
  vsnprintf(o->reason, sizeof(o->reason), fmt, ap);
  va_end(ap);
}

static int word_char(char ch)
{
  return isalnum((unsigned char)ch) || ch == '_';
}

/* Where line holds name as a whole word ("wrong_sequence", not
 * "wrong_sequences"), or NULL. */
static const char *word_at(const char *line, const char *name)
{
  size_t n = strlen(name);

  for (const char *p = strstr(line, name); p != NULL; p = strstr(p + 1, name))
    if ((p == line || !word_char(p[-1])) && !word_char(p[n]))
      return p;
  return NULL;
}

/* The first rejection name of SPEC.md section 6 in line
 * ("peer_error: ... wrong_sequence" reports peer_error), or NULL. */
static const char *first_rejection(const char *line)
{
  const char *first = NULL, *name = NULL;

  for (int e = PROTO_E_UNSUPPORTED_VERSION; e >= PROTO_E_PEER_ERROR; e--) {
    const char *at = word_at(line, proto_error_name(e));
    if (at != NULL && (first == NULL || at < first)) {
      first = at;
      name = proto_error_name(e);
    }
  }
  return name;
}

static void read_stderr(struct conform_run *r)
{
  struct conform_outcome *o = r->out;
  char text[4096];
  size_t len = capture_text(&r->err_cap, text, sizeof(text));

  capture_first_line(&r->err_cap, o->stderr_line, sizeof(o->stderr_line));
  {
    size_t n = strlen(o->stderr_line);
    if (n > 0 && o->stderr_line[n - 1] == '\r')
      o->stderr_line[--n] = '\0';
    r->stderr_not_text = utf8_error_at(o->stderr_line, n) >= 0;
  }
  for (char *p = o->stderr_line; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) {
      *p = '?';
      r->stderr_not_text = 1;
    }
  o->stderr_lines = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n')
      o->stderr_lines++;
  if (len > 0 && text[len - 1] != '\n')
    o->stderr_lines++;
  if (r->err_cap.total > sizeof(text))
    o->stderr_lines++; /* more than one line's worth, whatever it holds */
}

/* A valid session: exit 0 and a result line that the workload bears
 * out (the client's is required; the server's when it printed one). */
static void judge_pass(struct conform_run *r)
{
  struct conform_outcome *o = r->out;
  char line[RESULT_SERVER_LINE_MAX + 1], err[256];
  const char *nl;
  size_t len;

  if (o->error_received)
    fail(o, "sent ERROR code %d in a valid session", o->error_received_code);
  if (!o->exited || o->exit_code != 0) {
    fail(o, "%s a valid session%s%s",
         o->exited ? "exited non-zero after" : "was killed during",
         o->stderr_line[0] ? ": " : "", o->stderr_line);
    return;
  }
  if (r->c->role == CONFORM_CLIENT) {
    struct model_client_result res;
    int bad;
    len = r->out_cap.head_len;
    memset(&res, 0, sizeof(res));
    bad = result_parse(r->out_cap.buf, len, &res, err, sizeof(err)) != 0 ||
          result_check(&res, &r->c->w, o->wall_ns, err, sizeof(err)) != 0;
    model_client_result_release(&res);
    if (bad)
      fail(o, "result line: %s", err);
    return;
  }
  nl = memchr(r->out_cap.buf, '\n', r->out_cap.head_len);
  if (nl == NULL || (size_t)(nl + 1 - r->out_cap.buf) >= r->out_cap.head_len)
    return; /* no result line: its figures are not reported */
  len = r->out_cap.head_len - (size_t)(nl + 1 - r->out_cap.buf);
  snprintf(line, sizeof(line), "%.*s", (int)len, nl + 1);
  {
    struct model_server_result sr;
    if (result_server_parse(line, strlen(line), &sr, err, sizeof(err)) != 0 ||
        result_server_check(&sr, &r->c->w, NULL, err, sizeof(err)) != 0)
      fail(o, "result line: %s", err);
  }
}

static void judge_reject(struct conform_run *r)
{
  struct conform_outcome *o = r->out;
  const struct conform_case *c = r->c;

  if (o->timed_out) {
    fail(o, "no rejection within %llu ms%s%s",
         (unsigned long long)r->t->case_timeout_ms,
         o->stderr_line[0] ? ": " : "", o->stderr_line);
    return;
  }
  if (!o->exited) {
    fail(o, "died by signal %d", o->signal);
    return;
  }
  if (o->exit_code == 0) {
    fail(o, "exited 0: accepted what it must reject as %s", c->rejection);
    return;
  }
  if (o->stderr_lines == 0) {
    fail(o, "exited %d without a line on stderr", o->exit_code);
  } else {
    const char *named = first_rejection(o->stderr_line);
    if (named == NULL || strcmp(named, c->rejection) != 0) {
      if (word_at(o->stderr_line, c->rejection) != NULL)
        fail(o,
             "its stderr line names %s first, not %s (SPEC.md section 6): "
             "'%.120s'",
             named, c->rejection, o->stderr_line);
      else
        fail(o, "its stderr line does not name %s: '%.120s'", c->rejection,
             o->stderr_line);
    } else if (o->stderr_lines > 1) {
      fail(o, "%d lines on stderr, not one", o->stderr_lines);
    } else if (r->stderr_not_text) {
      fail(o,
           "its stderr line is not UTF-8 text without control characters "
           "(SPEC.md section 6): '%.120s'",
           o->stderr_line);
    }
  }
  if (c->error_rule == CONFORM_ERROR_REQUIRED && !o->error_received)
    fail(o, "no ERROR frame (SPEC.md requires code %d)", c->error_code);
  else if (c->error_rule == CONFORM_ERROR_NOT_EXPECTED && o->error_received)
    fail(o, "answered with an ERROR frame (code %d; SPEC.md section 6)",
         o->error_received_code);
  else if (o->error_received && c->error_code != 0 &&
           o->error_received_code != c->error_code)
    fail(o, "ERROR code %d, expected %d", o->error_received_code,
         c->error_code);
  else if (o->error_received &&
           strncmp(r->error_reason, c->rejection, strlen(c->rejection)) != 0)
    fail(o, "its ERROR reason does not start with %s: '%.80s'", c->rejection,
         r->error_reason);
  if (r->after_fault[0] != '\0')
    fail(o, "after the input it sent %s (SPEC.md section 6)", r->after_fault);
}

/* A wrong command line: exit 2 at once, one stderr line, and nothing on
 * the network (lanes/README.md, "Both"). */
static void judge_usage(struct conform_run *r)
{
  struct conform_outcome *o = r->out;

  if (o->timed_out)
    fail(o, "did not exit within the deadline");
  else if (!o->exited || o->exit_code != 2)
    fail(o, "%s %d, not 2, for a wrong command line",
         o->exited ? "exited" : "died by signal",
         o->exited ? o->exit_code : o->signal);
  else if (r->connected)
    fail(o, "connected although its command line is wrong");
  else if (r->ready)
    fail(o, "printed READY although its command line is wrong");
  else if (o->stderr_lines != 1)
    fail(o, "%d lines on stderr, not one", o->stderr_lines);
}

void conform_judge(struct conform_run *r)
{
  struct conform_outcome *o = r->out;

  read_stderr(r);
  o->verdict = CONFORM_PASSED;
  if (r->c->state == CONFORM_COMMAND_LINE)
    judge_usage(r);
  else if (r->c->role == CONFORM_SERVER && !r->ready && r->fault[0] == '\0')
    fail(o, "no READY line%s%s", o->stderr_line[0] ? ": " : "", o->stderr_line);
  else if (r->fault[0] != '\0')
    fail(o, "%s", r->fault);
  else if (r->c->rejection == NULL)
    judge_pass(r);
  else
    judge_reject(r);
  if (o->orphans > 0)
    fail(o, "%d process(es) left behind", o->orphans);
  if (o->temp_entries_left > 0)
    fail(o, "%d entr%s left in its temporary directory", o->temp_entries_left,
         o->temp_entries_left == 1 ? "y" : "ies");
  if (o->port_checked && !o->port_free)
    fail(o, "its port %d could not be bound again", r->port);
  if (o->verdict == CONFORM_PASSED)
    snprintf(o->reason, sizeof(o->reason), "%s",
             r->c->rejection                       ? "rejected as required"
             : r->c->state == CONFORM_COMMAND_LINE ? "refused its command line"
                                                   : "passed the session");
}
