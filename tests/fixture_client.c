/* The client role of tests/fixture: a correct client with a window of
 * requests in flight, the client's faults, and its result line. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/histogram.h"
#include "tests/fixture.h"

enum client_state { EXPECT_HELLO_ACK, IN_SESSION, EXPECT_BYE_ACK, DONE };

struct client {
  int fd;
  enum client_state state;
  struct proto_workload w;
  uint8_t hello[PROTO_WORKLOAD_BYTES];
  uint64_t total, next_send, next_recv;
  uint64_t frames_sent, frames_received;
  struct proto_counts own;
  uint64_t start_ns, end_ns;
  int timing;
  int faulted; /* the fault went into the output: stop after sending it */
  uint8_t *out;
  size_t out_len, out_sent, out_cap;
};

static void client_queue(struct client *c, uint8_t type, uint64_t sequence,
                         const uint8_t *payload, uint32_t len)
{
  c->out_len +=
      proto_frame_encode(c->out + c->out_len, type, sequence, payload, len);
  c->own.bytes_sent += PROTO_HEADER_BYTES + (uint64_t)len;
  c->frames_sent++;
}

/* Queues as many requests as the window and the phase allow, or the BYE;
 * only when the previous output has gone out. */
static void client_fill(struct client *c)
{
  uint32_t p = c->w.payload_bytes;
  size_t frame = PROTO_HEADER_BYTES + (size_t)p;

  if (c->out_len > 0 || c->faulted || c->state != IN_SESSION)
    return;
  c->out_sent = 0;
  for (;;) {
    uint64_t limit = c->next_recv <= c->w.warmup ? c->w.warmup : c->total;
    uint64_t seq = c->next_send;
    struct proto_header h = {PROTO_VERSION, PROTO_REQUEST, 0, p, seq};
    uint8_t *dst = c->out + c->out_len;

    if (!c->timing && c->next_recv == c->w.warmup + 1) {
      c->timing = 1;
      c->start_ns = fixture_os_now_ns();
    }
    if (seq > limit || seq - c->next_recv >= c->w.max_in_flight ||
        c->out_cap - c->out_len < frame)
      break;
    c->next_send++;
    c->own.requests++;
    c->own.bytes_sent += frame;
    c->frames_sent++;
    c->out_len += frame;
    if (seq == FIXTURE_FAULT_SEQUENCE &&
        fixture_mode_fault == FAULT_OVERSIZED) {
      h.payload_length = PROTO_MAX_PAYLOAD_BYTES + 1;
      proto_header_encode(dst, &h);
      c->out_len -= frame - PROTO_HEADER_BYTES;
      c->faulted = 1;
      return;
    }
    if (seq == FIXTURE_FAULT_SEQUENCE &&
        fixture_mode_fault == FAULT_WRONG_SEQUENCE) {
      h.sequence = seq + 1;
      c->faulted = 1;
    }
    proto_header_encode(dst, &h);
    proto_payload_fill(dst + PROTO_HEADER_BYTES, p, h.sequence);
    if (seq == FIXTURE_FAULT_SEQUENCE &&
        fixture_mode_fault == FAULT_WRONG_PAYLOAD && p > 0) {
      dst[PROTO_HEADER_BYTES] ^= 0x01;
      c->faulted = 1;
    }
    if (c->faulted)
      return;
  }
  if (c->next_recv > c->total) {
    uint8_t counts[PROTO_COUNTS_BYTES];
    struct proto_counts bye = c->own;
    if (fixture_mode_fault == FAULT_WRONG_COUNTS) {
      bye.requests++;
      c->faulted = 1;
    }
    proto_counts_encode(counts, &bye);
    client_queue(c, PROTO_BYE, c->total + 1, counts, PROTO_COUNTS_BYTES);
    c->state = EXPECT_BYE_ACK;
  }
}

/* Checks a complete header against the session; 0 or a proto_error. */
static int client_check(const struct client *c, const struct proto_header *h)
{
  if (c->state == EXPECT_HELLO_ACK && h->type == PROTO_HELLO_ACK)
    return h->sequence == 0
               ? 0
               : fixture_why_set(PROTO_E_WRONG_SEQUENCE,
                                 "HELLO_ACK sequence %" PRIu64, h->sequence);
  if (c->state == IN_SESSION && h->type == PROTO_RESPONSE &&
      c->next_recv <= c->total) {
    /* With none outstanding, the type is wrong whatever the sequence
     * (SPEC.md section 3). */
    if (c->next_recv == c->next_send)
      return fixture_why_set(PROTO_E_UNEXPECTED_TYPE,
                             "RESPONSE %" PRIu64 " with no request outstanding",
                             h->sequence);
    if (h->sequence != c->next_recv)
      return fixture_why_set(PROTO_E_WRONG_SEQUENCE,
                             "RESPONSE %" PRIu64 " (expected %" PRIu64 ")",
                             h->sequence, c->next_recv);
    if (h->payload_length != c->w.payload_bytes)
      return fixture_why_set(PROTO_E_BAD_LENGTH,
                             "RESPONSE of %" PRIu32 " bytes",
                             h->payload_length);
    return 0;
  }
  if (c->state == EXPECT_BYE_ACK && h->type == PROTO_BYE_ACK)
    return h->sequence == c->total + 1
               ? 0
               : fixture_why_set(PROTO_E_WRONG_SEQUENCE,
                                 "BYE_ACK sequence %" PRIu64, h->sequence);
  return fixture_why_set(PROTO_E_UNEXPECTED_TYPE, "type %u not allowed here",
                         h->type);
}

static int client_frame(struct client *c, const struct proto_header *h,
                        const uint8_t *payload)
{
  uint64_t size = PROTO_HEADER_BYTES + (uint64_t)h->payload_length;

  c->own.bytes_received += size;
  c->frames_received++;
  if (h->type == PROTO_HELLO_ACK) {
    if (memcmp(payload, c->hello, PROTO_WORKLOAD_BYTES) != 0)
      return fixture_why_set(PROTO_E_BAD_WORKLOAD,
                             "HELLO_ACK differs from HELLO");
    c->state = IN_SESSION;
    return 0;
  }
  if (h->type == PROTO_RESPONSE) {
    if (fixture_mode_fault != FAULT_LAX_RESPONSE &&
        proto_response_check(payload, h->payload_length, h->sequence) != 0)
      return fixture_why_set(PROTO_E_WRONG_PAYLOAD, "RESPONSE %" PRIu64,
                             h->sequence);
    if (h->sequence == c->total)
      c->end_ns = fixture_os_now_ns();
    c->next_recv++;
    c->own.responses++;
    return 0;
  }
  {
    struct proto_counts ack;
    const struct proto_counts *own = &c->own;
    proto_counts_decode(payload, &ack);
    if (ack.requests != own->requests || ack.responses != own->responses ||
        ack.bytes_sent != own->bytes_received - size ||
        ack.bytes_received != own->bytes_sent)
      return fixture_why_set(PROTO_E_COUNT_MISMATCH, "BYE_ACK counts differ");
    c->state = DONE;
    return 0;
  }
}

/* The rest of the read that delivered BYE_ACK (SPEC.md section 3, step
 * 6): the session is over, so a whole header is rejected by its rules,
 * and fewer bytes are a frame cut short. */
static void client_after_bye_ack(struct client *c, const uint8_t *p, size_t n)
{
  struct proto_header h;
  long size = proto_frame_peek(p, n, &h);

  if (n < PROTO_HEADER_BYTES) {
    fixture_why_set(PROTO_E_TRUNCATED, "%zu bytes after BYE_ACK", n);
    fixture_reject(c->fd, PROTO_E_TRUNCATED);
  }
  fixture_header_check(c->fd, size, &h, p, n);
  fixture_why_set(PROTO_E_UNEXPECTED_TYPE, "type %u after BYE_ACK", h.type);
  fixture_reject(c->fd, PROTO_E_UNEXPECTED_TYPE);
}

static void client_session(struct client *c)
{
  size_t cap = PROTO_HEADER_BYTES + (size_t)c->w.payload_bytes + 1024;
  uint8_t *buf;
  size_t len = 0;

  if (cap < 65536)
    cap = 65536;
  buf = malloc(cap);
  c->out_cap = cap;
  c->out = malloc(cap);
  if (buf == NULL || c->out == NULL)
    fixture_die(1, "out of memory");

  client_queue(c, PROTO_HELLO, 0, c->hello, PROTO_WORKLOAD_BYTES);
  if (fixture_mode_fault == FAULT_BAD_VERSION) {
    c->out[0] = 2;
    c->faulted = 1;
  }
  while (c->state != DONE) {
    struct pollfd pfd = {c->fd, POLLIN, 0};
    size_t off = 0;
    ssize_t n;

    client_fill(c);
    if (c->out_len > c->out_sent)
      pfd.events |= POLLOUT;
    if (fixture_os_poll(&pfd, -1) < 0) {
      if (errno == EINTR)
        continue;
      fixture_die(1, "poll: %s", fixture_os_error());
    }
    if (pfd.revents & POLLOUT) {
      n = fixture_os_send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent,
                          1);
      if (n > 0)
        c->out_sent += (size_t)n;
      if (c->out_sent == c->out_len) {
        c->out_len = c->out_sent = 0;
        if (c->faulted)
          fixture_drain_and_exit(c->fd);
      }
    }
    if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    n = fixture_os_recv(c->fd, buf + len, cap - len, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      fixture_reject_eof(c->fd, n, len,
                         c->state == EXPECT_HELLO_ACK ? "before HELLO_ACK"
                         : c->state == IN_SESSION ? "before the last RESPONSE"
                                                  : "before BYE_ACK");
    len += (size_t)n;
    while (c->state != DONE) {
      struct proto_header h;
      long size = proto_frame_peek(buf + off, len - off, &h);
      int err;
      if (!fixture_header_check(c->fd, size, &h, buf + off, len - off))
        break;
      err = client_check(c, &h);
      if (err)
        fixture_reject(c->fd, err);
      if (size == 0)
        break;
      err = client_frame(c, &h, buf + off + PROTO_HEADER_BYTES);
      if (err)
        fixture_reject(c->fd, err);
      off += (size_t)size;
      if (fixture_mode_fault == FAULT_EARLY_EOF && h.type == PROTO_RESPONSE &&
          h.sequence == 2) {
        shutdown(c->fd, SHUT_WR);
        fixture_drain_and_exit(c->fd);
      }
    }
    if (c->state == DONE && len > off)
      client_after_bye_ack(c, buf + off, len - off);
    memmove(buf, buf + off, len - off);
    len -= off;
  }
  free(buf);
  free(c->out);
}

static struct hist latency; /* 58 KiB: not on the stack */

/* The cost fields of the latency modes: CPU as the OS gives it and a
 * histogram of N made-up latencies within elapsed_ns, true to SPEC.md
 * section 7's scheme, then broken as the mode says. */
static void print_cost(uint64_t round_trips, uint64_t elapsed_ns)
{
  uint64_t per = round_trips ? elapsed_ns / round_trips : 0;
  long user_us, system_us;
  int first = 1;

  hist_init(&latency);
  for (uint64_t i = 0; i < round_trips; i++)
    hist_record(&latency, (int64_t)(per / 2 + per * (i % 10) / 20));
  if (fixture_mode_fault == FAULT_LATENCY_MAX && round_trips > 0) {
    /* One latency longer than the whole measured window. */
    latency.buckets[hist_index(latency.max)]--;
    latency.count--;
    hist_record(&latency, (int64_t)elapsed_ns + 1);
  }
  fixture_os_cpu_us(&user_us, &system_us);
  printf(",\"cpu_user_us\":%ld,\"cpu_system_us\":%ld", user_us, system_us);
  if (latency.count == 0) {
    printf(",\"latency\":{\"count\":0,\"min\":null,\"max\":null,"
           "\"p50\":null,\"p90\":null,\"p99\":null,\"p99_9\":null,"
           "\"buckets\":[]}");
    return;
  }
  printf(",\"latency\":{\"count\":%" PRIu64 ",\"min\":%" PRId64
         ",\"max\":%" PRId64 ",\"p50\":%" PRId64 ",\"p90\":%" PRId64
         ",\"p99\":%" PRId64 ",\"p99_9\":%" PRId64 ",\"buckets\":[",
         latency.count, latency.min, latency.max,
         hist_percentile(&latency, HIST_P50),
         hist_percentile(&latency, HIST_P90),
         hist_percentile(&latency, HIST_P99) +
             (fixture_mode_fault == FAULT_LATENCY_P99
                  ? hist_width(hist_index(hist_percentile(&latency, HIST_P99)))
                  : 0),
         hist_percentile(&latency, HIST_P99_9));
  for (int i = 0; i < HIST_BUCKETS; i++) {
    uint64_t n = latency.buckets[i];
    if (n == 0)
      continue;
    if (first && fixture_mode_fault == FAULT_LATENCY_SUM)
      n++;
    printf("%s[%d,%" PRIu64 "]", first ? "" : ",", i, n);
    first = 0;
  }
  printf("]}");
}

int fixture_run_client(struct fixture_args *a)
{
  struct client c;
  uint64_t started_ns = fixture_os_now_ns();

  memset(&c, 0, sizeof c);
  if (fixture_mode_fault == FAULT_FLOOD_STDERR)
    fixture_flood_stderr();
  c.w = a->w;
  c.total = c.w.warmup + c.w.round_trips;
  c.next_send = c.next_recv = 1;
  proto_workload_encode(c.hello, &c.w);

  c.fd = socket(AF_INET, SOCK_STREAM, 0);
  if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&a->addr, sizeof a->addr))
    fixture_die(1, "connect: %s", fixture_os_error());
  fixture_os_nodelay(c.fd);
  if (fixture_mode_fault == FAULT_STALL) {
    /* HELLO_ACK then stays unread: the kill at the deadline resets the
     * connection under the server. */
    uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
    size_t n = proto_frame_encode(hello, PROTO_HELLO, 0, c.hello,
                                  PROTO_WORKLOAD_BYTES);
    if (fixture_send_all(c.fd, hello, n) != 0)
      fixture_die(1, "stall: send: %s", fixture_os_error());
    fixture_os_sleep_forever();
  }
  client_session(&c);
  fixture_os_close(c.fd); /* the client closes first */

  switch (fixture_mode_fault) {
  case FAULT_HANG:
    fixture_os_sleep_forever();
    break;
  case FAULT_EXIT3:
    return 3;
  case FAULT_SHORT_PATHS:
    fprintf(stderr, "%s: %s\n", fixture_prog, FIXTURE_SHORT_PATHS_LINE);
    return 3;
  case FAULT_NO_RESULT:
    return 0;
  case FAULT_BAD_JSON:
    printf("not json\n");
    return 0;
  case FAULT_ELAPSED_1:
    c.start_ns = 0;
    c.end_ns = 1;
    break;
  case FAULT_ELAPSED_0:
    c.start_ns = c.end_ns = 0;
    break;
  case FAULT_ELAPSED_LONG:
    c.start_ns = 0;
    c.end_ns = 3600 * 1000000000ull;
    break;
  default:
    break;
  }
  printf("{%s\"runtime\":\"fixture\",\"round_trips\":%" PRIu64
         ",\"warmup_round_trips\":%" PRIu64 ",\"payload_bytes\":%" PRIu32
         ",\"max_in_flight\":%" PRIu32 ",\"frames_sent\":%" PRIu64
         ",\"frames_received\":%" PRIu64 ",\"bytes_sent\":%" PRIu64
         ",\"bytes_received\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64,
         fixture_mode_fault == FAULT_KEY_TWICE ? "\"round_trips\":1," : "",
         c.w.round_trips - (fixture_mode_fault == FAULT_WRONG_COUNT),
         c.w.warmup, c.w.payload_bytes, c.w.max_in_flight, c.frames_sent,
         c.frames_received, c.own.bytes_sent, c.own.bytes_received,
         c.end_ns - c.start_ns);
  if (fixture_mode_fault >= FAULT_LATENCY &&
      fixture_mode_fault <= FAULT_LATENCY_MAX)
    print_cost(c.w.round_trips, c.end_ns - c.start_ns);
  if (fixture_tls_mode(FIXTURE_CLIENT))
    fixture_tls_print(FIXTURE_CLIENT, fixture_os_now_ns() - started_ns);
  printf("%s}\n", fixture_mode_fault == FAULT_LAX_JSON ? "," : "");
  return fflush(stdout) == 0 ? 0 : 1;
}
