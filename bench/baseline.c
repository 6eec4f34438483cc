/* The raw loopback baseline: the floor the benchmark compares the lanes to.
 *
 *   baseline server --listen 127.0.0.1:0
 *   baseline client --connect 127.0.0.1:PORT --warmup N --round-trips N
 *                   --payload-bytes N --max-in-flight N
 *
 * One program, both roles, following the peer contract of lanes/README.md
 * and the frames and session of protocol/SPEC.md (HELLO, HELLO_ACK,
 * requests, responses, BYE, BYE_ACK, the client closes first), written to
 * be the fastest plausible implementation of that traffic: blocking POSIX
 * sockets with TCP_NODELAY, no event loop, big buffers, max_in_flight
 * requests kept outstanding and one write per batch.
 *
 * Deliberate differences from a lane, all on the side of less work:
 * - Every request carries the same payload, gen(0, P), prepared once, and
 *   the client checks each response with one memcmp against respond() of
 *   it. Lane servers validate gen(s, P) and would reject these requests, so
 *   the baseline's client and server only talk to each other.
 * - The server checks headers, frame order and the BYE counts, but not
 *   request sequences or payloads; it turns each request into its response
 *   in place in its receive buffer and writes that buffer back. */
#include "protocol/codec.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Receive buffers hold this much beyond one maximum frame, so one read can
 * deliver thousands of small frames. */
#define RECV_SLACK_BYTES (4u * 1024 * 1024)
/* Frames up to this size are copied into one contiguous send buffer; larger
 * ones are sent with an iovec per header and per payload, without copying
 * the payload. */
#define COALESCE_MAX_FRAME 16384u
#define STAGE_BYTES (1024u * 1024)
/* Two iovecs per frame; 1024 is IOV_MAX on Linux and macOS. */
#define BATCH_MAX_IOV_FRAMES 512u

static const char *role = "baseline";

static void die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void die(int status, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", role);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(status);
}

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p)
    die(1, "out of memory (%zu bytes)", n);
  return p;
}

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

/* ------------------------------------------------------------ options */

struct options {
  const char *address;
  uint64_t warmup;
  uint64_t round_trips;
  uint64_t payload_bytes;
  uint64_t max_in_flight;
  int have_warmup, have_round_trips, have_payload, have_in_flight;
};

static uint64_t parse_number(const char *flag, const char *text)
{
  char *end;
  unsigned long long v;

  if (!text || !*text || *text < '0' || *text > '9')
    die(2, "bad number for %s: '%s'", flag, text ? text : "");
  errno = 0;
  v = strtoull(text, &end, 10);
  if (errno || *end)
    die(2, "bad number for %s: '%s'", flag, text);
  return v;
}

static void parse_options(int argc, char **argv, int server, struct options *o)
{
  int i;

  memset(o, 0, sizeof(*o));
  for (i = 2; i < argc; i++) {
    const char *arg = argv[i];
    const char *value;
    size_t name_len;
    const char *eq = strchr(arg, '=');

    /* --flag value and --flag=value */
    name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (eq)
      value = eq + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else
      die(2, "missing value for '%s'", arg);

#define IS(name) (name_len == strlen(name) && !strncmp(arg, name, name_len))
    if (server && IS("--listen")) {
      o->address = value;
    } else if (!server && IS("--connect")) {
      o->address = value;
    } else if (!server && IS("--warmup")) {
      o->warmup = parse_number("--warmup", value);
      o->have_warmup = 1;
    } else if (!server && IS("--round-trips")) {
      o->round_trips = parse_number("--round-trips", value);
      o->have_round_trips = 1;
    } else if (!server && IS("--payload-bytes")) {
      o->payload_bytes = parse_number("--payload-bytes", value);
      o->have_payload = 1;
    } else if (!server && IS("--max-in-flight")) {
      o->max_in_flight = parse_number("--max-in-flight", value);
      o->have_in_flight = 1;
    } else {
      die(2, "unknown flag '%.*s'", (int)name_len, arg);
    }
#undef IS
  }
  if (!o->address)
    die(2, "missing %s", server ? "--listen" : "--connect");
  if (server)
    return;
  if (!o->have_warmup || !o->have_round_trips || !o->have_payload ||
      !o->have_in_flight)
    die(2, "missing one of --warmup, --round-trips, --payload-bytes, "
           "--max-in-flight");
  if (o->payload_bytes > PROTO_MAX_PAYLOAD_BYTES)
    die(2, "bad number for --payload-bytes: %" PRIu64 " (at most %u)",
        o->payload_bytes, PROTO_MAX_PAYLOAD_BYTES);
  if (o->max_in_flight < 1 || o->max_in_flight > PROTO_MAX_IN_FLIGHT)
    die(2, "bad number for --max-in-flight: %" PRIu64 " (1 to %u)",
        o->max_in_flight, PROTO_MAX_IN_FLIGHT);
  if (o->round_trips < 1)
    die(2, "bad number for --round-trips: 0 (at least 1)");
}

/* Resolves "host:port" (numeric only; "[v6]:port" too). */
static struct addrinfo *resolve(const char *address, int passive)
{
  char host[256];
  const char *colon = strrchr(address, ':');
  const char *start = address;
  size_t len;
  struct addrinfo hints, *res = NULL;
  int rc;

  if (!colon || !colon[1])
    die(2, "bad address '%s' (expected host:port)", address);
  len = (size_t)(colon - address);
  if (len >= 2 && address[0] == '[' && address[len - 1] == ']') {
    start++;
    len -= 2;
  }
  if (len == 0 || len >= sizeof(host))
    die(2, "bad address '%s' (expected host:port)", address);
  memcpy(host, start, len);
  host[len] = '\0';
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  rc = getaddrinfo(host, colon + 1, &hints, &res);
  if (rc)
    die(2, "bad address '%s': %s", address, gai_strerror(rc));
  return res;
}

static void set_nodelay(int fd)
{
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
    die(1, "setsockopt TCP_NODELAY: %s", strerror(errno));
}

static void send_all(int fd, const uint8_t *p, size_t len)
{
  while (len) {
    ssize_t n = send(fd, p, len, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      die(1, "send: %s", strerror(errno));
    }
    p += n;
    len -= (size_t)n;
  }
}

/* Says why a frame that is not the expected one was refused: an ERROR
 * from the peer, a bad header, or a frame of the wrong type. */
static void die_frame(const uint8_t *buf, size_t len, const char *expected)
{
  struct proto_header h;
  long size = proto_frame_peek(buf, len, &h);
  uint16_t code = 0;
  char reason[PROTO_MAX_REASON_BYTES + 1] = "";

  if (size < 0)
    die(1, "%s: header %02x %02x flags %u length %" PRIu32,
        proto_error_name((int)size), buf[0], buf[1], (unsigned)h.flags,
        h.payload_length);
  if (size > 0 && h.type == PROTO_ERROR &&
      !proto_error_decode(buf + PROTO_HEADER_BYTES, h.payload_length, &code,
                          reason, sizeof(reason)))
    die(1, "peer_error: code %u: %s", (unsigned)code, reason);
  die(1, "unexpected_type: frame type %u where %s was expected",
      (unsigned)buf[1], expected);
}

/* Writes an ERROR frame (best effort) and exits with the rejection. */
static void fail_with_error(int fd, int err, const char *what)
{
  uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
  char reason[PROTO_MAX_REASON_BYTES + 1];
  size_t n;

  snprintf(reason, sizeof(reason), "%s: %s", proto_error_name(err), what);
  n = proto_error_encode(frame, proto_error_code_for(err), reason);
  (void)!send(fd, frame, n, MSG_DONTWAIT);
  die(1, "%s", reason);
}

/* ------------------------------------------------------------ server */

static int run_server(const struct options *o)
{
  struct addrinfo *ai = resolve(o->address, 1);
  struct sockaddr_storage bound;
  socklen_t bound_len = sizeof(bound);
  size_t cap = PROTO_MAX_FRAME_BYTES + RECV_SLACK_BYTES;
  uint8_t *buf = xmalloc(cap);
  size_t start = 0, fill = 0;
  struct proto_workload w = {0};
  struct proto_counts own = {0};
  int lfd, fd, one = 1, port;
  enum { WANT_HELLO, WANT_REQUEST, DONE } phase = WANT_HELLO;

  lfd = socket(ai->ai_family, SOCK_STREAM, 0);
  if (lfd < 0)
    die(1, "socket: %s", strerror(errno));
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(lfd, ai->ai_addr, ai->ai_addrlen))
    die(1, "bind '%s': %s", o->address, strerror(errno));
  if (listen(lfd, 1))
    die(1, "listen: %s", strerror(errno));
  if (getsockname(lfd, (struct sockaddr *)&bound, &bound_len))
    die(1, "getsockname: %s", strerror(errno));
  port = bound.ss_family == AF_INET6
             ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
             : ntohs(((struct sockaddr_in *)&bound)->sin_port);
  freeaddrinfo(ai);
  printf("READY %d\n", port);
  fflush(stdout);

  do
    fd = accept(lfd, NULL, NULL);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    die(1, "accept: %s", strerror(errno));
  close(lfd);
  set_nodelay(fd);

  for (;;) {
    size_t pos;
    long size = 0;
    struct proto_header h;
    ssize_t n;

    /* Keep room for at least a whole maximum frame and a big read. */
    if (start == fill) {
      start = fill = 0;
    } else if (cap - fill < PROTO_MAX_FRAME_BYTES) {
      memmove(buf, buf + start, fill - start);
      fill -= start;
      start = 0;
    }
    n = recv(fd, buf + fill, cap - fill, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      die(1, "recv: %s", strerror(errno));
    }
    if (n == 0) {
      if (start != fill)
        die(1, "truncated: end of stream inside a frame");
      if (phase != DONE)
        die(1, "unexpected_eof: end of stream before BYE");
      close(fd);
      free(buf);
      return 0;
    }
    if (phase == DONE)
      fail_with_error(fd, PROTO_E_UNEXPECTED_TYPE, "bytes after BYE");
    fill += (size_t)n;

    /* Each frame becomes its answer in place: every answer has the size
     * of the frame it answers, so the processed prefix of the buffer is
     * exactly the bytes to send back. */
    for (pos = start; pos < fill; pos += (size_t)size) {
      uint8_t *frame = buf + pos;
      uint8_t *payload = frame + PROTO_HEADER_BYTES;

      size = proto_frame_peek(frame, fill - pos, &h);
      if (size == 0)
        break;
      if (size < 0)
        fail_with_error(fd, (int)size, "bad header");
      if (h.type == PROTO_REQUEST && phase == WANT_REQUEST) {
        frame[1] = PROTO_RESPONSE;
        proto_response_fill(payload, payload, h.payload_length);
        own.requests++;
        own.responses++;
        own.bytes_received += (uint64_t)size;
        own.bytes_sent += (uint64_t)size;
      } else if (h.type == PROTO_HELLO && phase == WANT_HELLO) {
        proto_workload_decode(payload, &w);
        if (proto_workload_check(&w))
          fail_with_error(fd, PROTO_E_BAD_WORKLOAD, "workload out of range");
        frame[1] = PROTO_HELLO_ACK;
        own.bytes_received += (uint64_t)size;
        own.bytes_sent += (uint64_t)size;
        phase = WANT_REQUEST;
      } else if (h.type == PROTO_BYE && phase == WANT_REQUEST) {
        struct proto_counts bye;
        proto_counts_decode(payload, &bye);
        if (bye.requests != own.requests || bye.responses != own.responses ||
            bye.bytes_sent != own.bytes_received ||
            bye.bytes_received != own.bytes_sent ||
            own.requests != w.warmup + w.round_trips)
          fail_with_error(fd, PROTO_E_COUNT_MISMATCH,
                          "BYE counts differ from the server's");
        own.bytes_received += (uint64_t)size;
        frame[1] = PROTO_BYE_ACK;
        proto_counts_encode(payload, &own);
        phase = DONE;
      } else if (h.type == PROTO_ERROR) {
        die_frame(frame, fill - pos, "a client frame");
      } else {
        fail_with_error(fd, PROTO_E_UNEXPECTED_TYPE, "frame out of order");
      }
      if (phase == DONE && pos + (size_t)size != fill)
        fail_with_error(fd, PROTO_E_UNEXPECTED_TYPE, "bytes after BYE");
    }
    if (pos > start) {
      send_all(fd, buf + start, pos - start);
      start = pos;
    }
  }
}

/* ------------------------------------------------------------ client */

struct client {
  int fd;
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
  n = sendmsg(c->fd, &m, MSG_DONTWAIT);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      return;
    die(1, "send: %s", strerror(errno));
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
  do
    n = recv(c->fd, c->in + c->in_fill, c->in_cap - c->in_fill, flags);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      return 0;
    die(1, "recv: %s", strerror(errno));
  }
  if (n == 0)
    die(1, "%s: server closed the connection",
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
      die_frame(frame, c->in_fill - c->in_start, "RESPONSE");
    }
    if (c->in_fill - c->in_start < f)
      break;
    if (load_be64(frame + 8) != c->next_receive ||
        c->next_receive >= c->next_send)
      die(1,
          "wrong_sequence: response %" PRIu64 " where %" PRIu64 " was expected",
          load_be64(frame + 8), c->next_receive);
    if (memcmp(frame + PROTO_HEADER_BYTES, c->expected, c->payload_bytes))
      die(1, "wrong_payload: response %" PRIu64 " differs", c->next_receive);
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
      if (poll(&p, 1, -1) < 0 && errno != EINTR)
        die(1, "poll: %s", strerror(errno));
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
    die_frame(c->in + c->in_start, c->in_fill - c->in_start, name);
  return c->in + c->in_start;
}

static int run_client(const struct options *o)
{
  struct addrinfo *ai = resolve(o->address, 0);
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
    die(2, "bad workload: warmup + round_trips must be below 2^62");
  total = w.warmup + w.round_trips;

  memset(&c, 0, sizeof(c));
  c.max_in_flight = w.max_in_flight;
  c.payload_bytes = w.payload_bytes;
  c.frame_bytes = PROTO_HEADER_BYTES + (size_t)w.payload_bytes;
  c.in_cap = PROTO_MAX_FRAME_BYTES + RECV_SLACK_BYTES;
  c.in = xmalloc(c.in_cap);
  c.coalesce = c.frame_bytes <= COALESCE_MAX_FRAME;
  if (c.coalesce) {
    c.stage_frames = STAGE_BYTES / c.frame_bytes;
    c.stage = xmalloc(c.stage_frames * c.frame_bytes);
    iov_cap = 1;
  } else {
    c.headers = xmalloc(BATCH_MAX_IOV_FRAMES * sizeof(*c.headers));
    iov_cap = 2 * BATCH_MAX_IOV_FRAMES;
  }
  c.iov = xmalloc(iov_cap * sizeof(*c.iov));
  c.payload = xmalloc(w.payload_bytes);
  c.expected = xmalloc(w.payload_bytes);
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
    die(1, "socket: %s", strerror(errno));
  if (connect(c.fd, ai->ai_addr, ai->ai_addrlen))
    die(1, "connect '%s': %s", o->address, strerror(errno));
  freeaddrinfo(ai);
  set_nodelay(c.fd);

  /* HELLO, and a HELLO_ACK that must echo it byte for byte but the type. */
  proto_workload_encode(body, &w);
  proto_frame_encode(hello, PROTO_HELLO, 0, body, PROTO_WORKLOAD_BYTES);
  send_all(c.fd, hello, sizeof(hello));
  c.frames_sent = 1;
  c.bytes_sent = sizeof(hello);
  frame = client_expect(&c, PROTO_HELLO_ACK, sizeof(hello), "HELLO_ACK");
  hello[1] = PROTO_HELLO_ACK;
  if (memcmp(frame, hello, sizeof(hello)))
    die(1, "bad_workload: HELLO_ACK differs from the HELLO");
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
  send_all(c.fd, bye, sizeof(bye));
  c.frames_sent++;
  c.bytes_sent += sizeof(bye);

  /* BYE_ACK: the server saw what this client sent and received. */
  counts.bytes_sent = c.bytes_received;
  counts.bytes_received = c.bytes_sent;
  proto_counts_encode(body, &counts);
  proto_frame_encode(want, PROTO_BYE_ACK, total + 1, body, PROTO_COUNTS_BYTES);
  frame = client_expect(&c, PROTO_BYE_ACK, sizeof(want), "BYE_ACK");
  if (memcmp(frame, want, PROTO_HEADER_BYTES))
    die(1, "wrong_sequence: BYE_ACK header differs");
  if (memcmp(frame, want, sizeof(want)))
    die(1, "count_mismatch: BYE_ACK counts differ from the client's");
  c.in_start += sizeof(want);
  c.frames_received++;
  c.bytes_received += sizeof(want);
  if (c.in_start != c.in_fill)
    die(1, "unexpected_type: bytes after BYE_ACK");
  close(c.fd);

  printf("{\"round_trips\":%" PRIu64 ",\"warmup_round_trips\":%" PRIu64
         ",\"payload_bytes\":%" PRIu32 ",\"max_in_flight\":%" PRIu32
         ",\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
         ",\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%" PRIu64
         ",\"elapsed_ns\":%" PRIu64 ",\"runtime\":\"baseline\"}\n",
         w.round_trips, w.warmup, w.payload_bytes, w.max_in_flight,
         c.frames_sent, c.frames_received, c.bytes_sent, c.bytes_received,
         t1 - t0);
  fflush(stdout);
  free(c.in);
  free(c.stage);
  free(c.headers);
  free(c.iov);
  free(c.payload);
  free(c.expected);
  return 0;
}

int main(int argc, char **argv)
{
  struct options o;

  /* A peer that vanishes must give EPIPE, not kill us silently. */
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 2 && !strcmp(argv[1], "server")) {
    role = "baseline server";
    parse_options(argc, argv, 1, &o);
    return run_server(&o);
  }
  if (argc >= 2 && !strcmp(argv[1], "client")) {
    role = "baseline client";
    parse_options(argc, argv, 0, &o);
    return run_client(&o);
  }
  die(2, "usage: baseline server --listen HOST:PORT | baseline client "
         "--connect HOST:PORT --warmup N --round-trips N --payload-bytes N "
         "--max-in-flight N");
  return 2;
}
