/* A peer's output as the sample executor and the verdict read it: the
 * server's stdout (its READY line), both peers' stderr, the client's
 * stdout (its result line), and how each ended, judged by verdict_decide
 * and scrubbed as the evidence writer scrubs every message.
 *
 * The executor's parsers are static in runner/sample.c, so this harness
 * includes that file and is linked without its object.
 *
 * Input: byte 0 says how the server ended (bits 0-1: exited, died by a
 * signal, still running; bit 2 forced; bit 3 timed out), byte 1 the same
 * for the client, byte 2 the exit code or signal; then the server's
 * stdout, server's stderr and client's stdout, separated by 0xFE bytes
 * (the rest, if any, is the client's stderr). Inside each, a 0xFF byte
 * ends one chunk of what the pipe delivered.
 *
 * Properties: READY accepted means a port in 1..65535 and nothing else on
 * the line; READY and its failure are never both set; a server's stdout
 * is taken only as its READY line and one result line, or fails; every message
 * of the verdict ends within its buffer, and scrubbed, is valid UTF-8. */
#include "runner/sample.c"

#include "evidence/write/evidence_json.h"
#include "evidence/write/sanitize.h"
#include "tests/fuzz/fuzz.h"

static struct sample_exec x;
static struct model_sample res;

static void feed(struct capture *c, const uint8_t *p, size_t len,
                 uint64_t *counter, void (*after)(struct sample_exec *))
{
  size_t start = 0;

  for (size_t i = 0; i <= len; i++) {
    if (i == len || p[i] == 0xFF) {
      size_t end = i < len ? i + 1 : i;
      if (end > start) {
        capture_append(c, (const char *)p + start, end - start);
        if (counter)
          *counter += end - start;
        if (after)
          after(&x);
      }
      start = end;
    }
  }
}

static void ended(struct model_peer *r, uint8_t how, uint8_t code)
{
  r->started = 1;
  r->forced = (how & 4) != 0;
  r->timed_out = (how & 8) != 0;
  switch (how & 3) {
  case 0:
    r->reaped = r->exited = 1;
    r->exit_code = code;
    break;
  case 1:
    r->reaped = 1;
    r->signal = 1 + code % 31;
    break;
  default:
    break; /* still running, never reaped */
  }
}

/* A chunk of the server's stdout as on_read takes it. */
static void server_stdout(struct sample_exec *ex)
{
  parse_ready(ex);
  check_server_stdout(ex, 0);
}

/* The next part of the input up to a 0xFE byte (or its end). */
static const uint8_t *part(const uint8_t **p, const uint8_t *end, size_t *len)
{
  const uint8_t *start = *p, *sep = memchr(start, 0xFE, (size_t)(end - start));

  *len = (size_t)((sep ? sep : end) - start);
  *p = sep ? sep + 1 : end;
  return start;
}

static void scrub(const struct sanitize *s, const char *text, size_t size)
{
  static char out[EVIDENCE_TEXT_MAX];

  FUZZ_CHECK(memchr(text, '\0', size) != NULL, "a message is not ended");
  sanitize_text(s, text, out, sizeof(out));
  FUZZ_CHECK(fuzz_utf8_valid(out, strlen(out)),
             "a scrubbed message is not UTF-8");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const struct proto_workload w = {1000, 20000, 64, 64};
  /* The runner always names the host its peers listen on; READY reads
   * the port's sockets for it. */
  static const struct sample_spec spec = {.limits = MODEL_LIMITS_DEFAULT,
                                          .host = "127.0.0.1"};
  const uint8_t *p, *end = data + size;
  const uint8_t *server_out, *server_err, *client_out;
  size_t server_out_len, server_err_len, client_out_len;
  struct verdict_input in;
  struct sanitize s;

  if (size < 3)
    return 0;
  p = data + 3;
  server_out = part(&p, end, &server_out_len);
  server_err = part(&p, end, &server_err_len);
  client_out = part(&p, end, &client_out_len);

  memset(&x, 0, sizeof(x));
  memset(&res, 0, sizeof(res));
  init_report(&res.server);
  init_report(&res.client);
  x.spec = &spec;
  x.res = &res;
  x.server.x = x.client.x = &x;
  x.server.rep = &res.server;
  x.client.rep = &res.client;
  if (capture_alloc(&x.server.out, STDOUT_SERVER_LIMIT) ||
      capture_alloc(&x.client.out, STDOUT_CLIENT_LIMIT) ||
      capture_alloc(&res.server.err, spec.limits.stderr_limit) ||
      capture_alloc(&res.client.err, spec.limits.stderr_limit))
    goto out;

  res.server.started = 1;
  feed(&x.server.out, server_out, server_out_len, &res.server.stdout_bytes,
       server_stdout);
  check_server_stdout(&x, 1);
  FUZZ_CHECK(!x.stdout_extra || x.ready,
             "more than READY seen without a READY line");
  FUZZ_CHECK(x.stdout_extra || !x.ready ||
                 res.server.stdout_bytes ==
                     x.ready_line_bytes + x.result_line_bytes,
             "a server's stdout taken beyond its READY and result lines");
  FUZZ_CHECK(!(x.ready && x.ready_failed), "READY both taken and refused");
  if (x.ready) {
    /* The line as the server wrote it: "READY ", decimal digits, and the
     * line's end ("\r\n" too). */
    const char *line = x.server.out.buf;
    const char *nl = memchr(line, '\n', x.server.out.head_len);
    size_t len = nl ? (size_t)(nl - line) : 0, digits;

    FUZZ_CHECK(res.port > 0 && res.port < 65536, "a READY port out of range");
    if (len > 0 && line[len - 1] == '\r')
      len--;
    digits = len > 6 ? strspn(line + 6, "0123456789") : 0;
    FUZZ_CHECK(nl != NULL && len > 6 && memcmp(line, "READY ", 6) == 0 &&
                   digits == len - 6,
               "READY taken from a line that is not 'READY <port>'");
  }
  feed(&res.server.err, server_err, server_err_len, NULL, NULL);
  ended(&res.server, data[0], data[2]);
  if (!x.ready && !x.ready_failed)
    server_ended_before_ready(&x);
  FUZZ_CHECK(x.ready || memchr(x.ready_msg, '\0', sizeof(x.ready_msg)),
             "the READY message is not ended");

  if (x.ready) {
    ended(&res.client, data[1], data[2]);
    feed(&x.client.out, client_out, client_out_len, &res.client.stdout_bytes,
         NULL);
    feed(&res.client.err, p, (size_t)(end - p), NULL, NULL);
    parse_client_result(&x);
    parse_server_result(&x);
    FUZZ_CHECK(!res.server_printed_result || x.result_line_bytes > 0,
               "a server result taken from no result line");
  }

  memset(&in, 0, sizeof(in));
  in.ready = x.ready;
  in.ready_failed = x.ready_failed;
  in.ready_msg = x.ready_msg;
  in.stdout_extra = x.stdout_extra;
  in.stdout_msg = x.stdout_msg;
  in.spawn_msg = "";
  in.workload = &w;
  verdict_decide(&in, &res);
  FUZZ_CHECK((res.status == MODEL_PASSED) ==
                 (res.failure_reason == NULL && res.failure_stage == NULL),
             "a status that disagrees with its reason");

  memset(&s, 0, sizeof(s));
  sanitize_add(&s, "/tmp/crossrun-sample", "$TMPDIR");
  scrub(&s, res.message, sizeof(res.message));
  for (int i = 0; i < MODEL_CHECK_COUNT; i++)
    scrub(&s, res.checks[i].reason, sizeof(res.checks[i].reason));
  {
    static char text[EVIDENCE_TEXT_MAX];
    capture_text(&res.server.err, text, sizeof(text));
    scrub(&s, text, sizeof(text));
    capture_text(&res.client.err, text, sizeof(text));
    scrub(&s, text, sizeof(text));
  }
  sanitize_release(&s);
out:
  capture_release(&x.server.out);
  capture_release(&x.client.out);
  model_sample_release(&res);
  return 0;
}
