/* The C lane's client (lanes/README.md): runs one session (SPEC.md
 * section 3) with the workload of its command line, keeping up to M
 * requests outstanding, and prints the result as one JSON line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "lanes/c/conn.h"
#include "lanes/c/lane.h"
#include "lanes/c/result.h"
#include "lanes/c/tls.h"
#include "protocol/codec.h"
#include "protocol/histogram.h"

/* The payloads of outstanding requests are kept, when the window's worth
 * fits in this many bytes, so that a response is checked against its
 * request with a XOR compare instead of generating gen(s, P) a second
 * time; larger windows fall back to proto_response_check(). */
#define CLIENT_KEEP_BYTES (8u * 1024u * 1024u)

enum client_state {
  CLIENT_CONNECTING,
  CLIENT_HELLO_ACK, /* HELLO sent */
  CLIENT_SESSION,   /* requests and responses */
  CLIENT_BYE_ACK,   /* BYE sent */
  CLIENT_DONE       /* BYE_ACK validated */
};

struct client {
  struct conn conn; /* first: the callbacks cast struct conn * back */
  struct lane_args args;
  struct tls_context *tls; /* NULL over tcp */
  uv_connect_t connect_req;
  enum client_state state;
  uint8_t hello[PROTO_WORKLOAD_BYTES];
  uint64_t total;     /* W + N */
  uint64_t next_send; /* the sequence of the next request to send */
  uint64_t next_recv; /* the oldest outstanding request */
  int timing;         /* the measured phase has started */
  uint64_t start_ns, end_ns;
  struct lane_cpu cpu_start, cpu_end;
  /* The latency of each measured round trip (SPEC.md section 7). The
   * send time of request s is in slot (s - 1) mod M of sent_ns, like its
   * kept payload; recv_ns is the clock read once per read, on its first
   * measured response (recv_stamped until the batch ends). */
  struct hist latency;
  uint64_t *sent_ns;
  uint64_t recv_ns;
  int recv_stamped;
  uint64_t frames_sent, frames_received;
  struct proto_counts counts; /* requests, responses, bytes both ways */
  /* M slots of P bytes: request s's payload in slot (s - 1) mod M, or
   * NULL. The window guarantees a slot is free again when reused. */
  uint8_t *kept;
  size_t slot_send, slot_recv; /* slot indexes of next_send, next_recv */
};

/* 1 when response is request with every byte XORed with 0x5A. No early
 * exit, so that the loop vectorises. */
static int client_response_matches(const uint8_t *response,
                                   const uint8_t *request, size_t len)
{
  const uint64_t mask = 0x0101010101010101u * PROTO_RESPONSE_MASK;
  uint64_t diff = 0;
  size_t i = 0;

  for (; len - i >= 8; i += 8) {
    uint64_t a, b;
    memcpy(&a, response + i, 8);
    memcpy(&b, request + i, 8);
    diff |= a ^ b ^ mask;
  }
  for (; i < len; i++)
    diff |= (uint8_t)(response[i] ^ request[i] ^ PROTO_RESPONSE_MASK);
  return diff == 0;
}

static int client_header(struct conn *c, const struct proto_header *h)
{
  struct client *cl = (struct client *)c;
  const struct proto_workload *w = &cl->args.workload;

  /* An ERROR frame never gets here: conn reports it as peer_error. The
   * type comes before the sequence (SPEC.md section 3): a RESPONSE is
   * allowed only while a request is outstanding, whatever its sequence.
   * Requests are refilled at the end of each read batch, so within one
   * batch the window may drain: an answer to a request not yet written is
   * a frame not allowed here. */
  if (h->type == PROTO_RESPONSE && cl->state != CLIENT_DONE) {
    if (cl->state != CLIENT_SESSION || cl->next_recv == cl->next_send) {
      conn_why(c, "RESPONSE %" PRIu64 " %s", h->sequence,
               cl->state == CLIENT_HELLO_ACK ? "before HELLO_ACK"
               : cl->next_recv > cl->total
                   ? "after every response (no request is outstanding)"
                   : "with no request outstanding (the window is refilled "
                     "after the read)");
      return PROTO_E_UNEXPECTED_TYPE;
    }
    if (h->sequence != cl->next_recv) {
      conn_why(c, "RESPONSE with sequence %" PRIu64 " (expected %" PRIu64 ")",
               h->sequence, cl->next_recv);
      return PROTO_E_WRONG_SEQUENCE;
    }
    if (h->payload_length != w->payload_bytes) {
      conn_why(c,
               "RESPONSE %" PRIu64 " with a %" PRIu32
               "-byte payload (expected %" PRIu32 ")",
               h->sequence, h->payload_length, w->payload_bytes);
      return PROTO_E_BAD_LENGTH;
    }
    return 0;
  }

  switch (cl->state) {
  case CLIENT_HELLO_ACK:
    if (h->type != PROTO_HELLO_ACK)
      break;
    if (h->sequence != 0) {
      conn_why(c, "HELLO_ACK with sequence %" PRIu64 " (expected 0)",
               h->sequence);
      return PROTO_E_WRONG_SEQUENCE;
    }
    return 0;

  case CLIENT_SESSION:
    break;

  case CLIENT_BYE_ACK:
    if (h->type != PROTO_BYE_ACK)
      break;
    if (h->sequence != cl->total + 1) {
      conn_why(c, "BYE_ACK with sequence %" PRIu64 " (expected %" PRIu64 ")",
               h->sequence, cl->total + 1);
      return PROTO_E_WRONG_SEQUENCE;
    }
    return 0;

  case CLIENT_CONNECTING:
  case CLIENT_DONE:
    break;
  }
  conn_why(c, "frame type %u not allowed here (%s)", h->type,
           cl->state == CLIENT_HELLO_ACK ? "expected HELLO_ACK"
           : cl->state == CLIENT_BYE_ACK ? "expected BYE_ACK"
           : cl->state == CLIENT_DONE    ? "after BYE_ACK"
                                         : "expected RESPONSE");
  return PROTO_E_UNEXPECTED_TYPE;
}

static int client_frame(struct conn *c, const struct proto_header *h,
                        const uint8_t *payload)
{
  struct client *cl = (struct client *)c;
  size_t size = PROTO_HEADER_BYTES + (size_t)h->payload_length;

  if (h->type == PROTO_RESPONSE) {
    size_t slot = cl->slot_recv;
    int bad;
    if (cl->timing && !cl->recv_stamped) {
      cl->recv_ns = uv_hrtime();
      cl->recv_stamped = 1;
    }
    if (++cl->slot_recv == cl->args.workload.max_in_flight)
      cl->slot_recv = 0;
    if (cl->kept != NULL) {
      size_t p = h->payload_length;
      bad = !client_response_matches(payload, cl->kept + slot * p, p);
    } else {
      bad = proto_response_check(payload, h->payload_length, h->sequence);
    }
    if (bad) {
      conn_why(c,
               "RESPONSE %" PRIu64 " payload differs from respond(gen(%" PRIu64
               ", %" PRIu32 "))",
               h->sequence, h->sequence, h->payload_length);
      return PROTO_E_WRONG_PAYLOAD;
    }
    /* Every response after the first timed pump is a measured one. */
    if (cl->timing)
      hist_record(&cl->latency, (int64_t)(cl->recv_ns - cl->sent_ns[slot]));
    if (h->sequence == cl->total) {
      cl->end_ns = cl->recv_ns;
      lane_cpu_read(&cl->cpu_end);
    }
    cl->next_recv++;
    cl->counts.responses++;
    cl->counts.bytes_received += size;
    cl->frames_received++;
    return 0;
  }

  if (h->type == PROTO_HELLO_ACK) {
    if (memcmp(payload, cl->hello, PROTO_WORKLOAD_BYTES) != 0) {
      struct proto_workload echo;
      proto_workload_decode(payload, &echo);
      conn_why(c,
               "HELLO_ACK echoes warmup %" PRIu64 ", round_trips %" PRIu64
               ", payload_bytes %" PRIu32 ", max_in_flight %" PRIu32
               " instead of the HELLO's",
               echo.warmup, echo.round_trips, echo.payload_bytes,
               echo.max_in_flight);
      return PROTO_E_BAD_WORKLOAD;
    }
    cl->counts.bytes_received += size;
    cl->frames_received++;
    cl->state = CLIENT_SESSION;
    return 0;
  }

  {
    struct proto_counts ack;
    const struct proto_counts *own = &cl->counts;
    proto_counts_decode(payload, &ack);
    /* The server's view mirrors ours: its bytes sent are our bytes
     * received (BYE_ACK not yet included), and the other way round. */
    if (ack.requests != own->requests || ack.responses != own->responses ||
        ack.bytes_sent != own->bytes_received ||
        ack.bytes_received != own->bytes_sent) {
      conn_why(c,
               "BYE_ACK counts requests %" PRIu64 ", responses %" PRIu64
               ", bytes_sent %" PRIu64 ", bytes_received %" PRIu64
               " (expected %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
               ack.requests, ack.responses, ack.bytes_sent, ack.bytes_received,
               own->requests, own->responses, own->bytes_received,
               own->bytes_sent);
      return PROTO_E_COUNT_MISMATCH;
    }
    cl->counts.bytes_received += size;
    cl->frames_received++;
    /* The rest of this read is still checked (a frame after BYE_ACK is
     * rejected); the batch then closes, the client first (SPEC.md
     * section 3). */
    cl->state = CLIENT_DONE;
    return 0;
  }
}

/* Appends as many requests as the window, the phase and the write buffer
 * allow, then the BYE once every response is in, and writes them; loops
 * while the kernel takes everything at once. */
static void client_pump(struct conn *c)
{
  struct client *cl = (struct client *)c;
  const struct proto_workload *w = &cl->args.workload;
  const uint32_t payload = w->payload_bytes;
  const size_t frame = PROTO_HEADER_BYTES + (size_t)payload;

  cl->recv_stamped = 0; /* the read (if any) that called us has ended */
  if (cl->state == CLIENT_DONE) {
    /* The session ends with this read: a frame begun after BYE_ACK in it
     * is cut short (whole headers were rejected as they came). */
    if (c->rlen > 0) {
      conn_why(c, "%zu bytes of a frame after BYE_ACK", c->rlen);
      conn_fail(c, PROTO_E_TRUNCATED);
      return;
    }
    conn_close(c);
    return;
  }
  while (cl->state == CLIENT_SESSION && !c->writing && !c->stopped) {
    /* Warm-up requests 1..W first; the measured ones only once every
     * warm-up response has arrived, so none is in flight at the start. */
    uint64_t limit = cl->next_recv <= w->warmup ? w->warmup : cl->total;
    uint64_t window_end = cl->next_recv + w->max_in_flight; /* exclusive */
    uint8_t *out = c->wbuf + c->wlen;
    uint8_t *end = c->wbuf + c->wcap;
    size_t first_slot = cl->slot_send;

    if (!cl->timing && cl->next_recv == w->warmup + 1) {
      cl->timing = 1;
      lane_cpu_read(&cl->cpu_start);
      cl->start_ns = uv_hrtime();
    }
    if (window_end > limit + 1)
      window_end = limit + 1;
    while (cl->next_send < window_end && (size_t)(end - out) >= frame) {
      struct proto_header h = {PROTO_VERSION, PROTO_REQUEST, 0, payload,
                               cl->next_send};
      proto_header_encode(out, &h);
      proto_payload_fill(out + PROTO_HEADER_BYTES, payload, cl->next_send);
      if (cl->kept != NULL)
        memcpy(cl->kept + cl->slot_send * payload, out + PROTO_HEADER_BYTES,
               payload);
      if (++cl->slot_send == w->max_in_flight)
        cl->slot_send = 0;
      out += frame;
      cl->next_send++;
    }
    {
      uint64_t added = (uint64_t)(out - (c->wbuf + c->wlen)) / frame;
      cl->counts.requests += added;
      cl->counts.bytes_sent += added * frame;
      cl->frames_sent += added;
      c->wlen = (size_t)(out - c->wbuf);
      /* One clock reading, just before the write, for every request in
       * it; a batch is all warm-up or all measured (see limit). */
      if (cl->timing && added > 0) {
        uint64_t now = uv_hrtime();
        size_t slot = first_slot;
        for (uint64_t i = 0; i < added; i++) {
          cl->sent_ns[slot] = now;
          if (++slot == w->max_in_flight)
            slot = 0;
        }
      }
    }
    if (cl->next_recv > cl->total) {
      uint8_t counts[PROTO_COUNTS_BYTES];
      proto_counts_encode(counts, &cl->counts);
      c->wlen += proto_frame_encode(c->wbuf + c->wlen, PROTO_BYE, cl->total + 1,
                                    counts, PROTO_COUNTS_BYTES);
      cl->counts.bytes_sent += PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES;
      cl->frames_sent++;
      cl->state = CLIENT_BYE_ACK;
    }
    if (c->wlen == 0 || conn_flush(c) != 1)
      return;
  }
}

static int client_eof(struct conn *c)
{
  struct client *cl = (struct client *)c;

  switch (cl->state) {
  case CLIENT_HELLO_ACK:
    conn_why(c, "end of stream before HELLO_ACK");
    break;
  case CLIENT_SESSION:
    conn_why(c,
             "end of stream with %" PRIu64 " of %" PRIu64 " responses received",
             cl->next_recv - 1, cl->total);
    break;
  default:
    conn_why(c, "end of stream before BYE_ACK");
    break;
  }
  return PROTO_E_UNEXPECTED_EOF;
}

/* HELLO, once the connection carries frames (over tls: after the
 * handshake). */
static void client_ready(struct conn *c)
{
  struct client *cl = (struct client *)c;

  c->wlen = proto_frame_encode(c->wbuf, PROTO_HELLO, 0, cl->hello,
                               PROTO_WORKLOAD_BYTES);
  cl->counts.bytes_sent += c->wlen;
  cl->frames_sent++;
  cl->state = CLIENT_HELLO_ACK;
  conn_flush(c);
}

static const struct conn_ops client_ops = {
    client_header, client_frame, client_pump,
    client_pump,   client_eof,   client_ready,
};

static void client_on_connect(uv_connect_t *req, int status)
{
  struct client *cl = req->data;
  struct conn *c = &cl->conn;
  int err;

  if (status < 0) {
    char what[96];
    snprintf(what, sizeof what, "connect %s", cl->args.addr_text);
    conn_fail_io(c, what, status);
    return;
  }
  err = conn_start(c);
  if (err)
    conn_fail_io(c, "read", err);
}

static int client_print_result(const struct client *cl)
{
  const struct proto_workload *w = &cl->args.workload;
  uint64_t elapsed = cl->end_ns - cl->start_ns;
  int n =
      printf("{\"runtime\":\"c\",\"round_trips\":%" PRIu64
             ",\"warmup_round_trips\":%" PRIu64 ",\"payload_bytes\":%" PRIu32
             ",\"max_in_flight\":%" PRIu32 ",\"frames_sent\":%" PRIu64
             ",\"frames_received\":%" PRIu64 ",\"bytes_sent\":%" PRIu64
             ",\"bytes_received\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64,
             w->round_trips, w->warmup, w->payload_bytes, w->max_in_flight,
             cl->frames_sent, cl->frames_received, cl->counts.bytes_sent,
             cl->counts.bytes_received, elapsed);
  if (n < 0 || lane_cpu_print(stdout, &cl->cpu_start, &cl->cpu_end) != 0 ||
      lane_latency_print(stdout, &cl->latency) != 0 ||
      tls_print(stdout, cl->tls) != 0 || puts("}") < 0 || fflush(stdout) != 0) {
    fprintf(stderr, "client: cannot write the result to stdout\n");
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  static struct client cl; /* large, and zeroed */
  struct conn *c = &cl.conn;
  char err[256];
  uv_loop_t loop;
  int rc;

  struct tls_args tls_args;

  if (tls_args_take(&tls_args, LANE_CLIENT, &argc, argv, err, sizeof err) ||
      lane_args_parse(&cl.args, LANE_CLIENT, argc, argv, err, sizeof err)) {
    fprintf(stderr,
            "client: %s (usage: client --connect 127.0.0.1:PORT|[::1]:PORT "
            "--warmup N "
            "--round-trips N --payload-bytes N --max-in-flight N "
            "[--transport tcp|tls] [--ca FILE])\n",
            err);
    return LANE_EXIT_USAGE;
  }
  cl.tls =
      tls_context_new(&tls_args, LANE_CLIENT, &cl.args.addr, err, sizeof err);
  if (tls_args.on && cl.tls == NULL) {
    fprintf(stderr, "client: %s\n", err);
    return LANE_EXIT_USAGE;
  }
  lane_ignore_sigpipe();

  cl.total = cl.args.workload.warmup + cl.args.workload.round_trips;
  cl.next_send = cl.next_recv = 1;
  proto_workload_encode(cl.hello, &cl.args.workload);
  hist_init(&cl.latency);

  rc = uv_loop_init(&loop);
  if (rc == 0)
    rc = conn_setup(c, &loop, &client_ops, "client");
  if (rc == 0)
    rc = tls_attach(c, cl.tls);
  if (rc == 0)
    rc = conn_reserve(c, PROTO_HEADER_BYTES +
                             (size_t)cl.args.workload.payload_bytes);
  if (rc == 0) {
    cl.sent_ns = malloc(cl.args.workload.max_in_flight * sizeof *cl.sent_ns);
    if (cl.sent_ns == NULL)
      rc = UV_ENOMEM;
  }
  if (rc == 0) {
    uint64_t keep = (uint64_t)cl.args.workload.max_in_flight *
                    cl.args.workload.payload_bytes;
    if (keep > 0 && keep <= CLIENT_KEEP_BYTES)
      cl.kept = malloc((size_t)keep); /* NULL: check by generating */
  }
  if (rc == 0) {
    cl.connect_req.data = &cl;
    rc = uv_tcp_connect(&cl.connect_req, &c->tcp,
                        (const struct sockaddr *)&cl.args.addr,
                        client_on_connect);
  }
  if (rc) {
    fprintf(stderr, "client: connect %s: %s\n", cl.args.addr_text,
            uv_strerror(rc));
    if (c->rbuf != NULL)
      uv_close((uv_handle_t *)&c->tcp, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    conn_release(c);
    free(cl.kept);
    free(cl.sent_ns);
    tls_context_free(cl.tls);
    return 1;
  }

  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  conn_release(c);
  free(cl.kept);
  free(cl.sent_ns);
  if (c->exit_code != 0)
    rc = c->exit_code;
  else if (cl.state != CLIENT_DONE) {
    fprintf(stderr, "client: the session ended before BYE_ACK\n");
    rc = 1;
  } else
    rc = client_print_result(&cl);
  tls_context_free(cl.tls);
  return rc;
}
