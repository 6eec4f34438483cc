/* The C lane's server (lanes/README.md): binds --listen, prints
 * "READY <port>", serves exactly one connection and one session
 * (SPEC.md section 3), and on the end of stream after BYE_ACK prints its
 * result line and exits 0. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <uv.h>

#include "lanes/c/conn.h"
#include "lanes/c/lane.h"
#include "lanes/c/result.h"
#include "lanes/c/tls.h"
#include "protocol/codec.h"

enum server_state {
  SERVER_HELLO,   /* waiting for HELLO */
  SERVER_SESSION, /* requests 1..W+N, then BYE */
  SERVER_CLOSING  /* BYE_ACK sent: only the end of stream may come */
};

struct server {
  struct conn conn; /* first: the callbacks cast struct conn * back */
  uv_tcp_t listener;
  struct tls_context *tls; /* NULL over tcp */
  int exit_code;           /* failures outside the connection */
  enum server_state state;
  struct proto_workload workload;
  uint64_t total;        /* W + N */
  uint64_t next_request; /* the sequence the next REQUEST must carry */
  struct proto_counts counts;
  uint64_t frames_sent, frames_received;
  /* The measured window (SPEC.md section 7): from request W + 1's read
   * to BYE. */
  int cpu_started;
  struct lane_cpu cpu_start, cpu_end;
};

static int server_header(struct conn *c, const struct proto_header *h)
{
  struct server *s = (struct server *)c;

  /* An ERROR frame never gets here: conn reports it as peer_error. */
  switch (s->state) {
  case SERVER_HELLO:
    if (h->type != PROTO_HELLO) {
      conn_why(c, "frame type %u where HELLO was expected", h->type);
      return PROTO_E_UNEXPECTED_TYPE;
    }
    if (h->sequence != 0) {
      conn_why(c, "HELLO with sequence %" PRIu64 " (expected 0)", h->sequence);
      return PROTO_E_WRONG_SEQUENCE;
    }
    return 0;

  case SERVER_SESSION:
    /* The first header of W + 1 is seen in the read that starts to
     * deliver it, before anything of that read is answered (no warm-up
     * frame shares it: the client waits for every warm-up response).
     * header() runs again when the payload comes later, hence the flag. */
    if (h->type == PROTO_REQUEST && !s->cpu_started &&
        h->sequence == s->workload.warmup + 1) {
      s->cpu_started = 1;
      lane_cpu_read(&s->cpu_start);
    }
    if (h->type == PROTO_REQUEST) {
      /* The type before the sequence: after W + N requests only BYE. */
      if (s->next_request > s->total) {
        conn_why(c,
                 "REQUEST with sequence %" PRIu64 " after all %" PRIu64
                 " requests (expected BYE)",
                 h->sequence, s->total);
        return PROTO_E_UNEXPECTED_TYPE;
      }
      if (h->sequence != s->next_request) {
        conn_why(c, "REQUEST with sequence %" PRIu64 " (expected %" PRIu64 ")",
                 h->sequence, s->next_request);
        return PROTO_E_WRONG_SEQUENCE;
      }
      if (h->payload_length != s->workload.payload_bytes) {
        conn_why(c,
                 "REQUEST %" PRIu64 " with a %" PRIu32
                 "-byte payload (expected %" PRIu32 ")",
                 h->sequence, h->payload_length, s->workload.payload_bytes);
        return PROTO_E_BAD_LENGTH;
      }
      return 0;
    }
    if (h->type == PROTO_BYE && s->next_request > s->total) {
      if (h->sequence != s->total + 1) {
        conn_why(c, "BYE with sequence %" PRIu64 " (expected %" PRIu64 ")",
                 h->sequence, s->total + 1);
        return PROTO_E_WRONG_SEQUENCE;
      }
      return 0;
    }
    if (h->type == PROTO_BYE)
      conn_why(c, "BYE after %" PRIu64 " of %" PRIu64 " requests",
               s->next_request - 1, s->total);
    else
      conn_why(c, "frame type %u where REQUEST %" PRIu64 " was expected",
               h->type, s->next_request);
    return PROTO_E_UNEXPECTED_TYPE;

  case SERVER_CLOSING:
    break;
  }
  /* A frame after BYE, from its header on; fewer than 16 bytes and then
   * the end of stream are truncated (conn's end-of-stream check). */
  conn_why(c, "frame type %u after BYE (expected the end of stream)", h->type);
  return PROTO_E_UNEXPECTED_TYPE;
}

static int server_hello(struct server *s, const uint8_t *payload)
{
  struct conn *c = &s->conn;
  struct proto_workload *w = &s->workload;
  uint8_t echo[PROTO_WORKLOAD_BYTES];

  /* conn_reserve() may move the read buffer that payload points into. */
  memcpy(echo, payload, sizeof echo);
  proto_workload_decode(echo, w);
  if (proto_workload_check(w) != 0) {
    conn_why(c,
             "HELLO workload warmup %" PRIu64 ", round_trips %" PRIu64
             ", payload_bytes %" PRIu32 ", max_in_flight %" PRIu32,
             w->warmup, w->round_trips, w->payload_bytes, w->max_in_flight);
    return PROTO_E_BAD_WORKLOAD;
  }
  if (conn_reserve(c, PROTO_HEADER_BYTES + (size_t)w->payload_bytes) != 0) {
    conn_why(c, "out of memory for %" PRIu32 "-byte payloads",
             w->payload_bytes);
    return PROTO_E_BAD_WORKLOAD;
  }
  s->total = w->warmup + w->round_trips;
  s->next_request = 1;
  s->frames_received++;
  s->frames_sent++;
  s->counts.bytes_received += PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES;
  s->counts.bytes_sent += proto_frame_encode(c->wbuf + c->wlen, PROTO_HELLO_ACK,
                                             0, echo, PROTO_WORKLOAD_BYTES);
  c->wlen += PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES;
  s->state = SERVER_SESSION;
  return 0;
}

static int server_bye(struct server *s, const uint8_t *payload)
{
  struct conn *c = &s->conn;
  struct proto_counts bye, *own = &s->counts;

  lane_cpu_read(&s->cpu_end);
  proto_counts_decode(payload, &bye);
  /* The client's view mirrors ours: its bytes sent are our bytes
   * received (BYE not yet included), and the other way round. */
  if (bye.requests != own->requests || bye.responses != own->responses ||
      bye.bytes_sent != own->bytes_received ||
      bye.bytes_received != own->bytes_sent) {
    conn_why(c,
             "BYE counts requests %" PRIu64 ", responses %" PRIu64
             ", bytes_sent %" PRIu64 ", bytes_received %" PRIu64
             " (expected %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
             bye.requests, bye.responses, bye.bytes_sent, bye.bytes_received,
             own->requests, own->responses, own->bytes_received,
             own->bytes_sent);
    return PROTO_E_COUNT_MISMATCH;
  }
  own->bytes_received += PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES;
  {
    uint8_t counts[PROTO_COUNTS_BYTES];
    proto_counts_encode(counts, own);
    c->wlen += proto_frame_encode(c->wbuf + c->wlen, PROTO_BYE_ACK,
                                  s->total + 1, counts, PROTO_COUNTS_BYTES);
  }
  own->bytes_sent += PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES;
  s->frames_received++;
  s->frames_sent++;
  s->state = SERVER_CLOSING;
  return 0;
}

static int server_frame(struct conn *c, const struct proto_header *h,
                        const uint8_t *payload)
{
  struct server *s = (struct server *)c;
  size_t size = PROTO_HEADER_BYTES + (size_t)h->payload_length;

  if (h->type == PROTO_REQUEST) {
    struct proto_header rh = {PROTO_VERSION, PROTO_RESPONSE, 0,
                              h->payload_length, h->sequence};
    uint8_t *out = c->wbuf + c->wlen;

    if (proto_payload_check(payload, h->payload_length, h->sequence) != 0) {
      conn_why(c,
               "REQUEST %" PRIu64 " payload differs from gen(%" PRIu64
               ", %" PRIu32 ")",
               h->sequence, h->sequence, h->payload_length);
      return PROTO_E_WRONG_PAYLOAD;
    }
    /* The answers to one read take at most the bytes of that read, and
     * the write buffer is as large as the read buffer. */
    if (c->wcap - c->wlen < size) {
      conn_why(c, "no room to answer REQUEST %" PRIu64, h->sequence);
      return PROTO_E_BAD_LENGTH;
    }
    proto_header_encode(out, &rh);
    proto_response_fill(out + PROTO_HEADER_BYTES, payload, h->payload_length);
    c->wlen += size;
    s->next_request++;
    s->counts.requests++;
    s->counts.responses++;
    s->counts.bytes_received += size;
    s->counts.bytes_sent += size;
    s->frames_received++;
    s->frames_sent++;
    return 0;
  }
  if (h->type == PROTO_HELLO)
    return server_hello(s, payload);
  /* header() let nothing else through. */
  return server_bye(s, payload);
}

static void server_batch(struct conn *c)
{
  conn_flush(c);
}

static int server_eof(struct conn *c)
{
  struct server *s = (struct server *)c;

  if (s->state == SERVER_CLOSING)
    return 0;
  if (s->state == SERVER_HELLO)
    conn_why(c, "end of stream before HELLO");
  else if (s->next_request <= s->total)
    conn_why(c, "end of stream after %" PRIu64 " of %" PRIu64 " requests",
             s->next_request - 1, s->total);
  else
    conn_why(c, "end of stream before BYE");
  return PROTO_E_UNEXPECTED_EOF;
}

static const struct conn_ops server_ops = {
    server_header, server_frame, server_batch, NULL, server_eof, NULL,
};

/* The result line of lanes/README.md, from what was answered. */
static int server_print_result(const struct server *s)
{
  const struct proto_workload *w = &s->workload;
  uint64_t answered = s->counts.requests;
  uint64_t warmup = answered < w->warmup ? answered : w->warmup;
  int n = printf("{\"runtime\":\"c\",\"round_trips\":%" PRIu64
                 ",\"warmup_round_trips\":%" PRIu64
                 ",\"payload_bytes\":%" PRIu32 ",\"max_in_flight\":%" PRIu32
                 ",\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
                 ",\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%" PRIu64,
                 answered - warmup, warmup, w->payload_bytes, w->max_in_flight,
                 s->frames_sent, s->frames_received, s->counts.bytes_sent,
                 s->counts.bytes_received);

  if (n < 0 || lane_cpu_print(stdout, &s->cpu_start, &s->cpu_end) != 0 ||
      tls_print(stdout, s->tls) != 0 || puts("}") < 0 || fflush(stdout) != 0) {
    fprintf(stderr, "server: cannot write the result to stdout\n");
    return 1;
  }
  return 0;
}

static void server_on_connection(uv_stream_t *listener, int status)
{
  struct server *s = listener->data;
  int err;

  if (s->conn.started || uv_is_closing((uv_handle_t *)listener))
    return;
  if (status < 0) {
    fprintf(stderr, "server: accept: %s\n", uv_strerror(status));
    s->exit_code = 1;
    uv_close((uv_handle_t *)listener, NULL);
    return;
  }
  err = conn_setup(&s->conn, listener->loop, &server_ops, "server");
  if (err == 0)
    err = tls_attach(&s->conn, s->tls);
  if (err == 0)
    err = uv_accept(listener, (uv_stream_t *)&s->conn.tcp);
  /* Exactly one connection: nobody else can connect from here on. */
  uv_close((uv_handle_t *)listener, NULL);
  if (err == 0) {
    s->conn.pause_reads_while_writing = 1;
    err = conn_start(&s->conn);
  }
  if (err) {
    if (s->conn.rbuf != NULL)
      conn_fail_io(&s->conn, "accept", err);
    else
      fprintf(stderr, "server: accept: %s\n", uv_strerror(err));
    s->exit_code = 1;
  }
}

int main(int argc, char **argv)
{
  static struct server s; /* large, and zeroed */
  struct lane_args args;
  struct sockaddr_storage bound;
  int bound_len = sizeof bound;
  char err[256];
  uv_loop_t loop;
  int rc;

  struct tls_args tls_args;

  if (tls_args_take(&tls_args, LANE_SERVER, &argc, argv, err, sizeof err) ||
      lane_args_parse(&args, LANE_SERVER, argc, argv, err, sizeof err) != 0) {
    fprintf(stderr,
            "server: %s (usage: server --listen 127.0.0.1:0|[::1]:0 "
            "[--transport tcp|tls] [--cert FILE --key FILE])\n",
            err);
    return LANE_EXIT_USAGE;
  }
  /* Before READY: a certificate that cannot be used is a usage error. */
  s.tls = tls_context_new(&tls_args, LANE_SERVER, &args.addr, err, sizeof err);
  if (tls_args.on && s.tls == NULL) {
    fprintf(stderr, "server: %s\n", err);
    return LANE_EXIT_USAGE;
  }
  lane_ignore_sigpipe();

  rc = uv_loop_init(&loop);
  if (rc == 0)
    rc = uv_tcp_init(&loop, &s.listener);
  if (rc) {
    fprintf(stderr, "server: libuv: %s\n", uv_strerror(rc));
    tls_context_free(s.tls);
    return 1;
  }
  s.listener.data = &s;
  rc = uv_tcp_bind(&s.listener, (const struct sockaddr *)&args.addr, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *)&s.listener, 8, server_on_connection);
  if (rc == 0)
    rc = uv_tcp_getsockname(&s.listener, (struct sockaddr *)&bound, &bound_len);
  if (rc) {
    fprintf(stderr, "server: listen %s: %s\n", args.addr_text, uv_strerror(rc));
    uv_close((uv_handle_t *)&s.listener, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    tls_context_free(s.tls);
    return 1;
  }
  if (printf("READY %d\n", lane_addr_port(&bound)) < 0 || fflush(stdout)) {
    fprintf(stderr, "server: cannot write READY to stdout\n");
    tls_context_free(s.tls);
    return 1;
  }

  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  conn_release(&s.conn);
  if (s.exit_code)
    rc = s.exit_code;
  else if (s.conn.exit_code)
    rc = s.conn.exit_code;
  else if (s.state != SERVER_CLOSING) {
    fprintf(stderr, "server: the session ended before BYE\n");
    rc = 1;
  } else
    rc = server_print_result(&s);
  tls_context_free(s.tls);
  return rc;
}
