/* The scripted peer on the connection: an honest client (when a server is
 * tested) or server (when a client is) up to the case's state, then the
 * case's input and what follows it. Every frame the peer sends before the
 * input is checked with the codec as a lane would; after the input only
 * its ERROR frame is looked for, since the frames before the offending
 * one are valid and may be answered (SPEC.md section 6). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/conform_internal.h"

struct conform_write {
  uv_write_t req;
  struct conform_run *r;
  size_t len;
  uint8_t data[];
};

static void flush(struct conform_run *r);

void conform_wire_fault(struct conform_run *r, const char *fmt, ...)
{
  va_list ap;

  if (r->fault[0] != '\0')
    return;
  va_start(ap, fmt);
  vsnprintf(r->fault, sizeof(r->fault), fmt, ap);
  va_end(ap);
}

int conform_wire_open(const struct conform_run *r)
{
  return r->conn_open || r->listener_open;
}

static void on_closed(uv_handle_t *h)
{
  (void)h;
}

void conform_wire_close(struct conform_run *r)
{
  if (r->listener_open) {
    r->listener_open = 0;
    uv_close((uv_handle_t *)&r->listener, on_closed);
  }
  if (!r->conn_open)
    return;
  r->conn_open = 0;
  r->phase = CONFORM_PHASE_CLOSED;
  if (!r->connected || !r->reset_at_end ||
      uv_tcp_close_reset(&r->conn, on_closed) != 0)
    uv_close((uv_handle_t *)&r->conn, on_closed);
}

static void keep_sent(struct conform_run *r, const uint8_t *p, size_t len)
{
  static const char hex[] = "0123456789abcdef";
  struct conform_outcome *o = r->out;

  for (size_t i = 0; i < len && o->sent_bytes + i < CONFORM_SENT_KEPT; i++) {
    size_t at = (size_t)(o->sent_bytes + i) * 2;
    o->sent_hex[at] = hex[p[i] >> 4];
    o->sent_hex[at + 1] = hex[p[i] & 15];
    o->sent_hex[at + 2] = '\0';
  }
  o->sent_bytes += len;
}

static void send_bytes(struct conform_run *r, const uint8_t *p, size_t len)
{
  if (len == 0 || !r->conn_open)
    return;
  if (r->tx_len + len > r->tx_cap) {
    size_t cap = r->tx_cap ? r->tx_cap : 4096;
    uint8_t *grown;
    while (cap < r->tx_len + len)
      cap *= 2;
    grown = realloc(r->tx, cap);
    if (grown == NULL) {
      snprintf(r->runner_error, sizeof(r->runner_error), "out of memory");
      conform_wire_close(r);
      return;
    }
    r->tx = grown;
    r->tx_cap = cap;
  }
  memcpy(r->tx + r->tx_len, p, len);
  r->tx_len += len;
  keep_sent(r, p, len);
  flush(r);
}

static void send_frame(struct conform_run *r, uint8_t type, uint64_t seq,
                       const uint8_t *payload, uint32_t len)
{
  uint8_t *frame = malloc(PROTO_HEADER_BYTES + (size_t)len);

  if (frame == NULL) {
    snprintf(r->runner_error, sizeof(r->runner_error), "out of memory");
    conform_wire_close(r);
    return;
  }
  send_bytes(r, frame, proto_frame_encode(frame, type, seq, payload, len));
  free(frame);
}

/* After the input: the end of stream or the reset, and the deadline for
 * the peer's reaction. */
static void input_done(struct conform_run *r)
{
  r->phase = CONFORM_PHASE_AFTER;
  r->deadline_ns = uv_hrtime() + r->t->case_timeout_ms * 1000000ull;
  if (r->c->end == CONFORM_END_EOF) {
    if (uv_shutdown(&r->shutdown_req, (uv_stream_t *)&r->conn, NULL) != 0)
      conform_wire_close(r);
  } else if (r->c->end == CONFORM_END_RESET) {
    r->reset_at_end = 1;
    conform_wire_close(r);
  }
}

static void maybe_input_done(struct conform_run *r)
{
  if (r->phase == CONFORM_PHASE_INPUT && r->tx_len == 0 && !r->writing)
    input_done(r);
}

static void begin_input(struct conform_run *r)
{
  r->phase = CONFORM_PHASE_INPUT;
  send_bytes(r, r->c->input, r->c->input_len);
  maybe_input_done(r);
}

static void on_trickle(uv_timer_t *t)
{
  flush(t->data);
}

static void on_write(uv_write_t *req, int status)
{
  struct conform_write *w = (struct conform_write *)req;
  struct conform_run *r = w->r;

  free(w);
  r->writing = 0;
  if (status < 0 || !r->conn_open)
    return; /* the peer went away: its end is read, or its exit seen */
  if (r->c->trickle && r->tx_len > 0)
    uv_timer_start(&r->trickle, on_trickle, 1, 0);
  else
    flush(r);
  maybe_input_done(r);
}

static void flush(struct conform_run *r)
{
  struct conform_write *w;
  size_t n;
  uv_buf_t buf;

  if (r->writing || !r->conn_open || !r->connected || r->tx_len == 0 ||
      uv_is_active((uv_handle_t *)&r->trickle))
    return;
  n = r->c->trickle ? 1 : r->tx_len;
  w = malloc(sizeof(*w) + n);
  if (w == NULL) {
    snprintf(r->runner_error, sizeof(r->runner_error), "out of memory");
    conform_wire_close(r);
    return;
  }
  w->r = r;
  w->len = n;
  memcpy(w->data, r->tx, n);
  memmove(r->tx, r->tx + n, r->tx_len - n);
  r->tx_len -= n;
  buf = uv_buf_init((char *)w->data, (unsigned)n);
  if (uv_write(&w->req, (uv_stream_t *)&r->conn, &buf, 1, on_write) != 0) {
    free(w);
    return;
  }
  r->writing = 1;
}

/* ---- the server under test: the scripted peer is its client ---- */

static uint64_t request_limit(const struct conform_run *r)
{
  return r->c->state == CONFORM_AT_SEQUENCE ? r->c->sequence - 1 : r->total;
}

static void client_pump(struct conform_run *r)
{
  const struct proto_workload *w = &r->c->w;
  uint64_t limit = request_limit(r);
  uint8_t *payload = NULL;

  if (w->payload_bytes > 0 && (payload = malloc(w->payload_bytes)) == NULL) {
    snprintf(r->runner_error, sizeof(r->runner_error), "out of memory");
    conform_wire_close(r);
    return;
  }
  /* The window, and no measured request before the warm-up's answers. */
  while (r->requests < limit && r->requests - r->responses < w->max_in_flight &&
         !(r->requests + 1 > w->warmup && r->responses < w->warmup)) {
    uint64_t seq = ++r->requests;
    proto_payload_fill(payload, w->payload_bytes, seq);
    send_frame(r, PROTO_REQUEST, seq, payload, w->payload_bytes);
  }
  free(payload);
  if (r->responses < limit || r->bye_done)
    return;
  if (r->c->state == CONFORM_AT_SEQUENCE) {
    begin_input(r);
  } else if (r->requests == r->total && !r->bye_done && r->hello_done == 1) {
    struct proto_counts bye;
    uint8_t p[PROTO_COUNTS_BYTES];
    proto_counts_expected(w, 0, &bye);
    proto_counts_encode(p, &bye);
    send_frame(r, PROTO_BYE, r->total + 1, p, sizeof(p));
    r->hello_done = 2; /* BYE sent */
  }
}

static void client_frame(struct conform_run *r, const struct proto_header *h,
                         const uint8_t *payload)
{
  const struct proto_workload *w = &r->c->w;

  if (!r->hello_done) {
    uint8_t want[PROTO_WORKLOAD_BYTES];
    proto_workload_encode(want, w);
    if (h->type != PROTO_HELLO_ACK || h->sequence != 0 ||
        memcmp(payload, want, sizeof(want)) != 0) {
      conform_wire_fault(r,
                         "answered a valid HELLO with type %u sequence %llu "
                         "instead of its HELLO_ACK",
                         h->type, (unsigned long long)h->sequence);
      return;
    }
    r->hello_done = 1;
    client_pump(r);
    return;
  }
  if (h->type == PROTO_RESPONSE && r->responses < r->requests) {
    uint64_t seq = r->responses + 1;
    if (h->sequence != seq || h->payload_length != w->payload_bytes ||
        proto_response_check(payload, h->payload_length, seq) != 0) {
      conform_wire_fault(r,
                         "answered valid REQUEST %llu with a wrong RESPONSE "
                         "(sequence %llu, %u bytes)",
                         (unsigned long long)seq,
                         (unsigned long long)h->sequence, h->payload_length);
      return;
    }
    r->responses++;
    client_pump(r);
    return;
  }
  if (h->type == PROTO_BYE_ACK && r->hello_done == 2) {
    struct proto_counts got, want;
    proto_counts_decode(payload, &got);
    proto_counts_expected(w, 1, &want);
    if (h->sequence != r->total + 1 || memcmp(&got, &want, sizeof(got)) != 0) {
      conform_wire_fault(r, "answered a valid BYE with wrong BYE_ACK counts");
      return;
    }
    r->bye_done = 1;
    if (r->c->state == CONFORM_AFTER_BYE) {
      begin_input(r);
    } else {
      /* The whole session: the client closes first (SPEC.md section 3). */
      r->reset_at_end = 0;
      conform_wire_close(r);
    }
    return;
  }
  conform_wire_fault(r, "sent type %u sequence %llu during a valid session",
                     h->type, (unsigned long long)h->sequence);
}

/* ---- the client under test: the scripted peer is its server ---- */

static void server_ready_for_input(struct conform_run *r)
{
  const struct proto_workload *w = &r->c->w;
  uint64_t s = r->c->sequence, limit, want;

  if (r->c->state != CONFORM_AT_SEQUENCE || r->phase != CONFORM_PHASE_PREFIX)
    return;
  limit = s <= w->warmup ? w->warmup : r->total;
  want = s - 1 + w->max_in_flight < limit ? s - 1 + w->max_in_flight : limit;
  if (r->responses == s - 1 && r->requests == want)
    begin_input(r);
}

static void server_request(struct conform_run *r, const struct proto_header *h,
                           const uint8_t *payload)
{
  const struct proto_workload *w = &r->c->w;
  uint64_t seq = r->requests + 1;
  uint64_t answer =
      r->c->state == CONFORM_AT_SEQUENCE ? r->c->sequence - 1 : r->total;

  if (h->sequence != seq || seq > r->total ||
      h->payload_length != w->payload_bytes ||
      proto_payload_check(payload, h->payload_length, seq) != 0) {
    conform_wire_fault(r, "sent a wrong REQUEST (sequence %llu, expected %llu)",
                       (unsigned long long)h->sequence,
                       (unsigned long long)seq);
    return;
  }
  if (seq > r->responses + w->max_in_flight) {
    conform_wire_fault(r, "sent REQUEST %llu beyond its window of %u",
                       (unsigned long long)seq, w->max_in_flight);
    return;
  }
  if (seq > w->warmup && r->responses < w->warmup) {
    conform_wire_fault(r,
                       "sent measured REQUEST %llu before the warm-up's "
                       "responses",
                       (unsigned long long)seq);
    return;
  }
  r->requests++;
  if (seq <= answer) {
    uint8_t *resp = malloc(w->payload_bytes ? w->payload_bytes : 1);
    if (resp == NULL) {
      snprintf(r->runner_error, sizeof(r->runner_error), "out of memory");
      conform_wire_close(r);
      return;
    }
    proto_response_fill(resp, payload, w->payload_bytes);
    send_frame(r, PROTO_RESPONSE, seq, resp, w->payload_bytes);
    free(resp);
    r->responses++;
  }
  server_ready_for_input(r);
}

static void server_frame(struct conform_run *r, const struct proto_header *h,
                         const uint8_t *payload)
{
  const struct proto_workload *w = &r->c->w;

  if (!r->hello_done) {
    uint8_t want[PROTO_WORKLOAD_BYTES];
    proto_workload_encode(want, w);
    if (h->type != PROTO_HELLO || h->sequence != 0 ||
        memcmp(payload, want, sizeof(want)) != 0) {
      conform_wire_fault(r,
                         "began with type %u instead of the HELLO of its "
                         "workload",
                         h->type);
      return;
    }
    r->hello_done = 1;
    if (r->c->state == CONFORM_AT_START) {
      begin_input(r);
      return;
    }
    send_frame(r, PROTO_HELLO_ACK, 0, payload, PROTO_WORKLOAD_BYTES);
    return;
  }
  if (h->type == PROTO_REQUEST) {
    server_request(r, h, payload);
    return;
  }
  if (h->type == PROTO_BYE && r->requests == r->total &&
      r->responses == r->total && !r->bye_done) {
    struct proto_counts got, want;
    uint8_t p[PROTO_COUNTS_BYTES];
    proto_counts_decode(payload, &got);
    proto_counts_expected(w, 0, &want);
    if (h->sequence != r->total + 1 || memcmp(&got, &want, sizeof(got)) != 0) {
      conform_wire_fault(r, "sent BYE with wrong counts");
      return;
    }
    r->bye_done = 1;
    if (r->c->state == CONFORM_AFTER_BYE) {
      begin_input(r);
      return;
    }
    proto_counts_expected(w, 1, &want);
    proto_counts_encode(p, &want);
    send_frame(r, PROTO_BYE_ACK, r->total + 1, p, sizeof(p));
    /* The session is over: the client's end of stream comes next. */
    r->phase = CONFORM_PHASE_AFTER;
    return;
  }
  conform_wire_fault(r, "sent type %u sequence %llu during a valid session",
                     h->type, (unsigned long long)h->sequence);
}

/* ---- reading ---- */

static void after_fault(struct conform_run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void after_fault(struct conform_run *r, const char *fmt, ...)
{
  va_list ap;

  if (r->after_fault[0] != '\0' || r->phase == CONFORM_PHASE_PREFIX)
    return;
  va_start(ap, fmt);
  vsnprintf(r->after_fault, sizeof(r->after_fault), fmt, ap);
  va_end(ap);
}

static void note_error(struct conform_run *r, const struct proto_header *h,
                       const uint8_t *payload)
{
  struct conform_outcome *o = r->out;
  uint16_t code = 0;
  char reason[PROTO_MAX_REASON_BYTES + 1];

  proto_error_decode(payload, h->payload_length, &code, reason, sizeof(reason));
  if (o->error_received)
    after_fault(r, "a second ERROR frame");
  if (!o->error_received) {
    o->error_received = 1;
    o->error_received_code = code;
    snprintf(r->error_reason, sizeof(r->error_reason), "%s", reason);
  }
  if (r->phase == CONFORM_PHASE_PREFIX)
    conform_wire_fault(r, "sent ERROR code %u during a valid session: %.80s",
                       code, reason);
}

/* What the peer may send after the input (SPEC.md section 6): answers
 * that continue the session correctly, then at most one ERROR frame, then
 * its end. */
static void after_frame(struct conform_run *r, const struct proto_header *h,
                        const uint8_t *payload)
{
  const struct proto_workload *w = &r->c->w;
  uint64_t next =
      (r->c->role == CONFORM_SERVER ? r->responses : r->requests) + 1;
  struct proto_counts got, want;

  if (r->out->error_received) {
    after_fault(r, "a frame after its ERROR frame");
    return;
  }
  if (h->type == PROTO_BYE_ACK || h->type == PROTO_BYE) {
    proto_counts_decode(payload, &got);
    proto_counts_expected(w, h->type == PROTO_BYE_ACK, &want);
    if (next == r->total + 1 && h->sequence == next &&
        h->type == (r->c->role == CONFORM_SERVER ? PROTO_BYE_ACK : PROTO_BYE) &&
        memcmp(&got, &want, sizeof(got)) == 0)
      return;
  } else if (h->type == (r->c->role == CONFORM_SERVER ? PROTO_RESPONSE
                                                      : PROTO_REQUEST) &&
             h->sequence == next && next <= r->total &&
             h->payload_length == w->payload_bytes &&
             (r->c->role == CONFORM_SERVER
                  ? proto_response_check(payload, h->payload_length, next)
                  : proto_payload_check(payload, h->payload_length, next)) ==
                 0) {
    if (r->c->role == CONFORM_SERVER)
      r->responses++;
    else
      r->requests++;
    return;
  }
  after_fault(r, "type %u sequence %llu, not the next frame of a valid session",
              h->type, (unsigned long long)h->sequence);
}

static void process(struct conform_run *r)
{
  size_t off = 0;

  while (r->fault[0] == '\0' && r->conn_open) {
    struct proto_header h;
    long size = proto_frame_peek(r->rx + off, r->rx_len - off, &h);

    if (size < 0) {
      if (r->phase == CONFORM_PHASE_PREFIX)
        conform_wire_fault(r, "sent a frame whose header is %s",
                           proto_error_name((int)size));
      else
        after_fault(r, "bytes that are not a frame (%s)",
                    proto_error_name((int)size));
      off = r->rx_len; /* no framing left to follow */
      break;
    }
    if (size == 0)
      break;
    if (h.type == PROTO_ERROR)
      note_error(r, &h, r->rx + off + PROTO_HEADER_BYTES);
    else if (r->phase == CONFORM_PHASE_PREFIX)
      (r->c->role == CONFORM_SERVER ? client_frame : server_frame)(
          r, &h, r->rx + off + PROTO_HEADER_BYTES);
    else if (r->c->rejection != NULL)
      after_frame(r, &h, r->rx + off + PROTO_HEADER_BYTES);
    off += (size_t)size;
  }
  if (r->fault[0] != '\0') {
    r->reset_at_end = 1;
    conform_wire_close(r);
    return;
  }
  memmove(r->rx, r->rx + off, r->rx_len - off);
  r->rx_len -= off;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  struct conform_run *r = h->data;
  buf->base = r->chunk;
  buf->len = sizeof(r->chunk);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  struct conform_run *r = s->data;

  if (n > 0) {
    r->out->received_bytes += (uint64_t)n;
    if (r->rx_len + (size_t)n > CONFORM_RX_MAX) {
      r->rx_len = 0; /* past any frame: only its end matters now */
      return;
    }
    memcpy(r->rx + r->rx_len, buf->base, (size_t)n);
    r->rx_len += (size_t)n;
    process(r);
    return;
  }
  if (n == 0)
    return;
  r->peer_closed = 1;
  if (r->phase == CONFORM_PHASE_PREFIX)
    conform_wire_fault(r, "ended the connection (%s) during a valid session",
                       n == UV_EOF ? "end of stream" : uv_err_name((int)n));
  /* After a rejection: a reset, so that neither side keeps TIME_WAIT; the
   * client of a valid session closes first, and is answered in kind. */
  r->reset_at_end = r->c->rejection != NULL;
  conform_wire_close(r);
}

static void connected(struct conform_run *r)
{
  r->connected = 1;
  uv_tcp_nodelay(&r->conn, 1);
  r->deadline_ns = uv_hrtime() + r->t->case_timeout_ms * 1000000ull;
  if (uv_read_start((uv_stream_t *)&r->conn, on_alloc, on_read) != 0) {
    conform_wire_fault(r, "connection could not be read");
    conform_wire_close(r);
    return;
  }
  if (r->c->role == CONFORM_CLIENT)
    return; /* its HELLO comes first */
  if (r->c->state == CONFORM_AT_START) {
    begin_input(r);
  } else {
    uint8_t p[PROTO_WORKLOAD_BYTES];
    proto_workload_encode(p, &r->c->w);
    send_frame(r, PROTO_HELLO, 0, p, sizeof(p));
  }
}

static void on_connect(uv_connect_t *req, int status)
{
  struct conform_run *r = req->data;

  if (status < 0) {
    conform_wire_fault(r, "refused the connection to its READY port: %s",
                       uv_strerror(status));
    conform_wire_close(r);
    return;
  }
  if (r->conn_open)
    connected(r);
}

static int address(const struct conform_run *r, int port,
                   struct sockaddr_storage *sa)
{
  if (strchr(r->t->host, ':') != NULL)
    return uv_ip6_addr(r->t->host, port, (struct sockaddr_in6 *)sa);
  return uv_ip4_addr(r->t->host, port, (struct sockaddr_in *)sa);
}

int conform_wire_init(struct conform_run *r)
{
  uv_timer_init(&r->loop, &r->trickle);
  r->trickle.data = r;
  r->rx = malloc(CONFORM_RX_MAX);
  if (r->rx == NULL) {
    snprintf(r->runner_error, sizeof(r->runner_error), "out of memory");
    return UV_ENOMEM;
  }
  r->total = r->c->w.warmup + r->c->w.round_trips;
  return 0;
}

int conform_wire_connect(struct conform_run *r)
{
  struct sockaddr_storage sa;
  int rc = address(r, r->port, &sa);

  if (rc == 0)
    rc = uv_tcp_init(&r->loop, &r->conn);
  if (rc != 0) {
    snprintf(r->runner_error, sizeof(r->runner_error),
             "cannot make a socket: %s", uv_strerror(rc));
    return rc;
  }
  r->conn_open = 1;
  r->conn.data = r;
  r->connect_req.data = r;
  rc = uv_tcp_connect(&r->connect_req, &r->conn, (struct sockaddr *)&sa,
                      on_connect);
  if (rc != 0) {
    conform_wire_fault(r, "cannot be connected to: %s", uv_strerror(rc));
    conform_wire_close(r);
  }
  return 0;
}

static void on_connection(uv_stream_t *l, int status)
{
  struct conform_run *r = l->data;

  if (status < 0 || r->conn_open || r->phase == CONFORM_PHASE_CLOSED)
    return;
  if (uv_tcp_init(&r->loop, &r->conn) != 0)
    return;
  r->conn_open = 1;
  r->conn.data = r;
  if (uv_accept(l, (uv_stream_t *)&r->conn) != 0) {
    conform_wire_close(r);
    return;
  }
  /* One connection per session: nothing more is accepted. */
  r->listener_open = 0;
  uv_close((uv_handle_t *)&r->listener, on_closed);
  connected(r);
}

int conform_wire_listen(struct conform_run *r)
{
  struct sockaddr_storage sa, bound;
  int len = sizeof(bound);
  int rc = address(r, 0, &sa);

  if (rc == 0 && (rc = uv_tcp_init(&r->loop, &r->listener)) == 0) {
    r->listener_open = 1;
    r->listener.data = r;
    rc = uv_tcp_bind(&r->listener, (struct sockaddr *)&sa, 0);
    if (rc == 0)
      rc = uv_listen((uv_stream_t *)&r->listener, 1, on_connection);
    if (rc == 0)
      rc = uv_tcp_getsockname(&r->listener, (struct sockaddr *)&bound, &len);
  }
  if (rc != 0) {
    snprintf(r->runner_error, sizeof(r->runner_error),
             "cannot listen on %s: %s", r->t->host, uv_strerror(rc));
    return rc;
  }
  r->port = ntohs(bound.ss_family == AF_INET6
                      ? ((struct sockaddr_in6 *)&bound)->sin6_port
                      : ((struct sockaddr_in *)&bound)->sin_port);
  return 0;
}
