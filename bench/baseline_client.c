/* The baseline's client: max_in_flight requests kept outstanding, one
 * write per batch, each response checked with one memcmp (see
 * bench/baseline.c). */
#include "bench/baseline.h"

#include "protocol/codec.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Frames up to this size are copied into one contiguous send buffer; larger
 * ones are sent with an iovec per header and per payload, without copying
 * the payload. */
#define COALESCE_MAX_FRAME 16384u
#define STAGE_BYTES (1024u * 1024)
/* Two iovecs per frame; 1024 is IOV_MAX on Linux and macOS. */
#define BATCH_MAX_IOV_FRAMES 512u

static uint64_t monotonic_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void store_be64(uint8_t *p, uint64_t v)
{
  int i;
  for (i = 7; i >= 0; i--, v >>= 8)
    p[i] = (uint8_t)v;
}

static uint64_t load_be64(const uint8_t *p)
{
  uint64_t v = 0;
  int i;
  for (i = 0; i < 8; i++)
    v = v << 8 | p[i];
  return v;
}

struct client {
  int fd;
  struct baseline_conn conn; /* its ssl when over tls */
  uint64_t max_in_flight;
  uint32_t payload_bytes;
  size_t frame_bytes;

  /* Receive side. */
  uint8_t *in;
  size_t in_cap, in_start, in_fill;

  /* Send side: a queue of iovecs drained by sendmsg. */
  int coalesce;
  uint8_t *stage;
  size_t stage_frames;
  uint8_t (*headers)[PROTO_HEADER_BYTES];
  struct iovec *iov;
  int iov_count, iov_next;

  uint8_t *payload;  /* gen(0, P), sent in every request */
  uint8_t *expected; /* respond(gen(0, P)), every response's payload */
  uint8_t request_header[PROTO_HEADER_BYTES];
  uint8_t response_prefix[8]; /* version, type, flags, length */

  uint64_t next_send, next_receive;
  uint64_t frames_sent, frames_received, bytes_sent, bytes_received;
};

/* Fills the send queue with requests up to `last`, keeping at most
 * max_in_flight outstanding. Called only when the queue is empty. */
static void client_refill(struct client *c, uint64_t last)
{
  size_t k = 0, limit = c->coalesce ? c->stage_frames : BATCH_MAX_IOV_FRAMES;

  c->iov_count = c->iov_next = 0;
  while (c->next_send <= last &&
         c->next_send - c->next_receive < c->max_in_flight && k < limit) {
    if (c->coalesce) {
      uint8_t *f = c->stage + k * c->frame_bytes;
      memcpy(f, c->request_header, PROTO_HEADER_BYTES);
      store_be64(f + 8, c->next_send);
      memcpy(f + PROTO_HEADER_BYTES, c->payload, c->payload_bytes);
    } else {
      memcpy(c->headers[k], c->request_header, PROTO_HEADER_BYTES);
      store_be64(c->headers[k] + 8, c->next_send);
      c->iov[c->iov_count].iov_base = c->headers[k];
      c->iov[c->iov_count++].iov_len = PROTO_HEADER_BYTES;
      c->iov[c->iov_count].iov_base = c->payload;
      c->iov[c->iov_count++].iov_len = c->payload_bytes;
    }
    c->next_send++;
    k++;
  }
  if (c->coalesce && k) {
    c->iov[0].iov_base = c->stage;
    c->iov[0].iov_len = k * c->frame_bytes;
    c->iov_count = 1;
  }
  c->frames_sent += k;
  c->bytes_sent += k * c->frame_bytes;
}

/* One non-blocking sendmsg of what is queued. */
static void client_send_some(struct client *c)
{
  struct msghdr m;
  ssize_t n;

  memset(&m, 0, sizeof(m));
  m.msg_iov = c->iov + c->iov_next;
  m.msg_iovlen = c->iov_count - c->iov_next;
  /* Over tls one iovec a write: a record holds at most 16 KiB anyway. */
  if (c->conn.ssl != NULL)
    n = (ssize_t)baseline_conn_send_some(&c->conn, m.msg_iov[0].iov_base,
                                         m.msg_iov[0].iov_len);
  else
    n = sendmsg(c->fd, &m, MSG_DONTWAIT);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      return;
    baseline_die(1, "send: %s", strerror(errno));
  }
  while (n > 0 && c->iov_next < c->iov_count) {
    struct iovec *v = &c->iov[c->iov_next];
    if ((size_t)n >= v->iov_len) {
      n -= (ssize_t)v->iov_len;
      c->iov_next++;
    } else {
      v->iov_base = (uint8_t *)v->iov_base + n;
      v->iov_len -= (size_t)n;
      n = 0;
    }
  }
  /* Skip the empty payload iovecs of P = 0. */
  while (c->iov_next < c->iov_count && c->iov[c->iov_next].iov_len == 0)
    c->iov_next++;
}

/* One recv (blocking unless flags say otherwise) into the receive buffer.
 * Returns 0 when the read would block. */
static size_t client_recv(struct client *c, int flags)
{
  ssize_t n;

  if (c->in_start == c->in_fill) {
    c->in_start = c->in_fill = 0;
  } else if (c->in_cap - c->in_fill < PROTO_MAX_FRAME_BYTES) {
    memmove(c->in, c->in + c->in_start, c->in_fill - c->in_start);
    c->in_fill -= c->in_start;
    c->in_start = 0;
  }
  n = baseline_conn_recv(&c->conn, c->in + c->in_fill, c->in_cap - c->in_fill,
                         flags & MSG_DONTWAIT);
  if (n < 0)
    return 0;
  if (n == 0)
    baseline_die(1, "%s: server closed the connection",
                 c->in_start == c->in_fill ? "unexpected_eof" : "truncated");
  c->in_fill += (size_t)n;
  return (size_t)n;
}

/* Validates every whole response in the receive buffer. */
static void client_take_responses(struct client *c)
{
  size_t f = c->frame_bytes;

  while (c->in_fill - c->in_start >= PROTO_HEADER_BYTES) {
    const uint8_t *frame = c->in + c->in_start;
    if (memcmp(frame, c->response_prefix, sizeof(c->response_prefix))) {
      struct proto_header h;
      /* Wait for the whole of an ERROR frame, to print its reason. */
      if (proto_frame_peek(frame, c->in_fill - c->in_start, &h) == 0 &&
          h.type == PROTO_ERROR)
        break;
      baseline_die_frame(frame, c->in_fill - c->in_start, "RESPONSE");
    }
    if (c->in_fill - c->in_start < f)
      break;
    if (load_be64(frame + 8) != c->next_receive ||
        c->next_receive >= c->next_send)
      baseline_die(1,
                   "wrong_sequence: response %" PRIu64 " where %" PRIu64
                   " was expected",
                   load_be64(frame + 8), c->next_receive);
    if (memcmp(frame + PROTO_HEADER_BYTES, c->expected, c->payload_bytes))
      baseline_die(1, "wrong_payload: response %" PRIu64 " differs",
                   c->next_receive);
    c->next_receive++;
    c->in_start += f;
    c->frames_received++;
    c->bytes_received += f;
  }
}

/* Runs requests next_send .. last and returns once the response to `last`
 * has been validated. */
static void client_run(struct client *c, uint64_t last)
{
  while (c->next_receive <= last) {
    if (c->iov_next == c->iov_count)
      client_refill(c, last);
    if (c->iov_next < c->iov_count)
      client_send_some(c);
    if (c->iov_next < c->iov_count) {
      /* The socket is full: wait for room, and read responses meanwhile
       * so that the server, blocked writing them, can go on reading. */
      struct pollfd p = {c->fd, POLLIN | POLLOUT, 0};
      /* What OpenSSL has read already is not on the socket to poll. */
      if (baseline_conn_pending(&c->conn)) {
        if (client_recv(c, MSG_DONTWAIT))
          client_take_responses(c);
        continue;
      }
      if (poll(&p, 1, -1) < 0 && errno != EINTR)
        baseline_die(1, "poll: %s", strerror(errno));
      if (p.revents & (POLLIN | POLLHUP | POLLERR) &&
          client_recv(c, MSG_DONTWAIT))
        client_take_responses(c);
      continue;
    }
    client_recv(c, 0);
    client_take_responses(c);
  }
}

/* Reads the next frame, which must be of `type` and `len` bytes; returns
 * it in the receive buffer (in_start is not advanced). */
static const uint8_t *client_expect(struct client *c, uint8_t type, size_t len,
                                    const char *name)
{
  struct proto_header h;
  long size;

  while ((size = proto_frame_peek(c->in + c->in_start, c->in_fill - c->in_start,
                                  &h)) == 0)
    client_recv(c, 0);
  if (size < 0 || h.type != type || (size_t)size != len)
    baseline_die_frame(c->in + c->in_start, c->in_fill - c->in_start, name);
  return c->in + c->in_start;
}

int baseline_run_client(const struct baseline_options *o)
{
  struct addrinfo *ai = baseline_resolve(o->address, 0);
  struct proto_workload w;
  struct proto_header h;
  struct proto_counts counts;
  struct client c;
  uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
  uint8_t bye[PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES];
  uint8_t want[PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES];
  uint8_t body[PROTO_COUNTS_BYTES];
  const uint8_t *frame;
  uint64_t total, t0, t1;
  size_t iov_cap;

  w.warmup = o->warmup;
  w.round_trips = o->round_trips;
  w.payload_bytes = (uint32_t)o->payload_bytes;
  w.max_in_flight = (uint32_t)o->max_in_flight;
  if (proto_workload_check(&w))
    baseline_die(2, "bad workload: warmup + round_trips must be below 2^62");
  total = w.warmup + w.round_trips;

  memset(&c, 0, sizeof(c));
  c.max_in_flight = w.max_in_flight;
  c.payload_bytes = w.payload_bytes;
  c.frame_bytes = PROTO_HEADER_BYTES + (size_t)w.payload_bytes;
  c.in_cap = PROTO_MAX_FRAME_BYTES + RECV_SLACK_BYTES;
  c.in = baseline_xmalloc(c.in_cap);
  c.coalesce = c.frame_bytes <= COALESCE_MAX_FRAME;
  if (c.coalesce) {
    c.stage_frames = STAGE_BYTES / c.frame_bytes;
    c.stage = baseline_xmalloc(c.stage_frames * c.frame_bytes);
    iov_cap = 1;
  } else {
    c.headers = baseline_xmalloc(BATCH_MAX_IOV_FRAMES * sizeof(*c.headers));
    iov_cap = 2 * BATCH_MAX_IOV_FRAMES;
  }
  c.iov = baseline_xmalloc(iov_cap * sizeof(*c.iov));
  c.payload = baseline_xmalloc(w.payload_bytes);
  c.expected = baseline_xmalloc(w.payload_bytes);
  proto_payload_fill(c.payload, w.payload_bytes, 0);
  proto_response_fill(c.expected, c.payload, w.payload_bytes);
  h.version = PROTO_VERSION;
  h.type = PROTO_REQUEST;
  h.flags = 0;
  h.payload_length = w.payload_bytes;
  h.sequence = 0;
  proto_header_encode(c.request_header, &h);
  h.type = PROTO_RESPONSE;
  proto_header_encode(hello, &h);
  memcpy(c.response_prefix, hello, sizeof(c.response_prefix));

  c.fd = socket(ai->ai_family, SOCK_STREAM, 0);
  if (c.fd < 0)
    baseline_die(1, "socket: %s", strerror(errno));
  if (connect(c.fd, ai->ai_addr, ai->ai_addrlen))
    baseline_die(1, "connect '%s': %s", o->address, strerror(errno));
  freeaddrinfo(ai);
  baseline_set_nodelay(c.fd);
  c.conn.fd = c.fd;
  if (o->tls)
    baseline_tls_connect(&c.conn, o);

  /* HELLO, and a HELLO_ACK that must echo it byte for byte but the type. */
  proto_workload_encode(body, &w);
  proto_frame_encode(hello, PROTO_HELLO, 0, body, PROTO_WORKLOAD_BYTES);
  baseline_conn_send_all(&c.conn, hello, sizeof(hello));
  c.frames_sent = 1;
  c.bytes_sent = sizeof(hello);
  frame = client_expect(&c, PROTO_HELLO_ACK, sizeof(hello), "HELLO_ACK");
  hello[1] = PROTO_HELLO_ACK;
  if (memcmp(frame, hello, sizeof(hello)))
    baseline_die(1, "bad_workload: HELLO_ACK differs from the HELLO");
  c.in_start += sizeof(hello);
  c.frames_received = 1;
  c.bytes_received = sizeof(hello);

  c.next_send = c.next_receive = 1;
  client_run(&c, w.warmup);
  t0 = monotonic_ns();
  client_run(&c, total);
  t1 = monotonic_ns();

  counts.requests = total;
  counts.responses = c.next_receive - 1;
  counts.bytes_sent = c.bytes_sent;
  counts.bytes_received = c.bytes_received;
  proto_counts_encode(body, &counts);
  proto_frame_encode(bye, PROTO_BYE, total + 1, body, PROTO_COUNTS_BYTES);
  baseline_conn_send_all(&c.conn, bye, sizeof(bye));
  c.frames_sent++;
  c.bytes_sent += sizeof(bye);

  /* BYE_ACK: the server saw what this client sent and received. */
  counts.bytes_sent = c.bytes_received;
  counts.bytes_received = c.bytes_sent;
  proto_counts_encode(body, &counts);
  proto_frame_encode(want, PROTO_BYE_ACK, total + 1, body, PROTO_COUNTS_BYTES);
  frame = client_expect(&c, PROTO_BYE_ACK, sizeof(want), "BYE_ACK");
  if (memcmp(frame, want, PROTO_HEADER_BYTES))
    baseline_die(1, "wrong_sequence: BYE_ACK header differs");
  if (memcmp(frame, want, sizeof(want)))
    baseline_die(1, "count_mismatch: BYE_ACK counts differ from the client's");
  c.in_start += sizeof(want);
  c.frames_received++;
  c.bytes_received += sizeof(want);
  if (c.in_start != c.in_fill)
    baseline_die(1, "unexpected_type: bytes after BYE_ACK");
  /* The result's tls object is read before the session is freed. */
  printf("{\"round_trips\":%" PRIu64 ",\"warmup_round_trips\":%" PRIu64
         ",\"payload_bytes\":%" PRIu32 ",\"max_in_flight\":%" PRIu32
         ",\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
         ",\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%" PRIu64
         ",\"elapsed_ns\":%" PRIu64 ",\"runtime\":\"baseline\"",
         w.round_trips, w.warmup, w.payload_bytes, w.max_in_flight,
         c.frames_sent, c.frames_received, c.bytes_sent, c.bytes_received,
         t1 - t0);
  baseline_tls_print(&c.conn, 1);
  printf("}\n");
  baseline_conn_close(&c.conn, 1);

  fflush(stdout);
  free(c.in);
  free(c.stage);
  free(c.headers);
  free(c.iov);
  free(c.payload);
  free(c.expected);
  return 0;
}
