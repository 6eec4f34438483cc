/* The server role of tests/fixture: a correct, blocking, one-session
 * server, and the server's faults. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture.h"

#define TINY_BUFFER_BYTES 65536
#define RSS_BYTES (64u << 20)
#define ORPHAN_SECONDS 3600

static volatile uint8_t *volatile rss_keep; /* rss64's memory */

enum server_state { EXPECT_HELLO, EXPECT_REQUEST, EXPECT_END };

struct server {
  int fd;
  enum server_state state;
  struct proto_workload w;
  uint64_t total, next;
  struct proto_counts own;
};

/* The session checks a header gets as soon as it is complete. */
static int server_check(const struct server *s, const struct proto_header *h)
{
  if (s->state == EXPECT_HELLO) {
    if (h->type != PROTO_HELLO)
      return fixture_why_set(PROTO_E_UNEXPECTED_TYPE, "type %u before HELLO",
                             h->type);
    if (h->sequence != 0)
      return fixture_why_set(PROTO_E_WRONG_SEQUENCE, "HELLO sequence %" PRIu64,
                             h->sequence);
    return 0;
  }
  if (s->state == EXPECT_REQUEST && h->type == PROTO_REQUEST) {
    /* lax-sequence takes a REQUEST past a gap as the next one. */
    if (fixture_mode_fault == FAULT_LAX_SEQUENCE && h->sequence > s->next &&
        h->sequence <= s->total)
      return 0;
    /* Once every request arrived, a REQUEST is the wrong type whatever
     * its sequence (SPEC.md section 3). */
    if (s->next > s->total)
      return fixture_why_set(PROTO_E_UNEXPECTED_TYPE,
                             "REQUEST %" PRIu64 " after all %" PRIu64,
                             h->sequence, s->total);
    if (h->sequence != s->next)
      return fixture_why_set(PROTO_E_WRONG_SEQUENCE,
                             "REQUEST %" PRIu64 " (expected %" PRIu64 ")",
                             h->sequence, s->next);
    if (h->payload_length != s->w.payload_bytes)
      return fixture_why_set(PROTO_E_BAD_LENGTH, "REQUEST of %" PRIu32 " bytes",
                             h->payload_length);
    return 0;
  }
  if (s->state == EXPECT_REQUEST && h->type == PROTO_BYE &&
      s->next > s->total) {
    if (h->sequence != s->total + 1)
      return fixture_why_set(PROTO_E_WRONG_SEQUENCE, "BYE sequence %" PRIu64,
                             h->sequence);
    return 0;
  }
  return fixture_why_set(PROTO_E_UNEXPECTED_TYPE, "type %u not allowed here",
                         h->type);
}

/* Answers the frame at p in place (every answer has its request's size):
 * returns 0, a negative proto_error, or 1 when the fault fires: the caller
 * then sends the answers before p and the first *include bytes at p, and
 * stops. */
static int server_answer(struct server *s, uint8_t *p,
                         const struct proto_header *h, size_t cap,
                         size_t *include)
{
  size_t size = PROTO_HEADER_BYTES + (size_t)h->payload_length;
  uint8_t *payload = p + PROTO_HEADER_BYTES;

  *include = size;

  if (h->type == PROTO_HELLO) {
    proto_workload_decode(payload, &s->w);
    if (proto_workload_check(&s->w) != 0)
      return fixture_why_set(PROTO_E_BAD_WORKLOAD,
                             "HELLO workload out of range");
    if (PROTO_HEADER_BYTES + (size_t)s->w.payload_bytes > cap) {
      fixture_why_set(PROTO_E_BAD_WORKLOAD,
                      "tiny supports payloads up to %zu bytes",
                      cap - PROTO_HEADER_BYTES);
      fprintf(stderr, "%s: unsupported: %s\n", fixture_prog, fixture_why);
      {
        uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
        size_t n =
            proto_error_encode(frame, PROTO_CODE_BAD_WORKLOAD, fixture_why);
        (void)fixture_send_all(s->fd, frame, n);
      }
      fixture_os_close(s->fd);
      exit(127);
    }
    s->total = s->w.warmup + s->w.round_trips;
    s->next = 1;
    s->state = EXPECT_REQUEST;
    s->own.bytes_received += size;
    s->own.bytes_sent += size;
    p[1] = PROTO_HELLO_ACK;
    if (fixture_mode_fault == FAULT_BAD_VERSION) {
      p[0] = 2;
      return 1;
    }
    return 0;
  }

  if (h->type == PROTO_REQUEST) {
    struct proto_header rh = *h;
    if (fixture_mode_fault != FAULT_LAX_PAYLOAD &&
        proto_payload_check(payload, h->payload_length, h->sequence) != 0)
      return fixture_why_set(PROTO_E_WRONG_PAYLOAD, "REQUEST %" PRIu64,
                             h->sequence);
    s->next = h->sequence + 1;
    s->own.requests++;
    s->own.bytes_received += size;
    rh.type = PROTO_RESPONSE;
    if (h->sequence == FIXTURE_FAULT_SEQUENCE) {
      switch (fixture_mode_fault) {
      case FAULT_OVERSIZED:
        rh.payload_length = PROTO_MAX_PAYLOAD_BYTES + 1;
        proto_header_encode(p, &rh); /* the header alone, no payload */
        *include = PROTO_HEADER_BYTES;
        return 1;
      case FAULT_EARLY_EOF:
        *include = 0;
        return 1;
      case FAULT_WRONG_SEQUENCE:
        rh.sequence++;
        break;
      default:
        break;
      }
    }
    proto_header_encode(p, &rh);
    proto_response_fill(payload, payload, h->payload_length);
    s->own.responses++;
    s->own.bytes_sent += size;
    if (h->sequence == FIXTURE_FAULT_SEQUENCE &&
        fixture_mode_fault == FAULT_WRONG_PAYLOAD && h->payload_length > 0) {
      payload[0] ^= 0x01;
      return 1;
    }
    return h->sequence == FIXTURE_FAULT_SEQUENCE &&
           fixture_mode_fault == FAULT_WRONG_SEQUENCE;
  }

  /* BYE */
  {
    struct proto_counts bye;
    struct proto_counts ack;
    proto_counts_decode(payload, &bye);
    if (bye.requests != s->own.requests || bye.responses != s->own.responses ||
        bye.bytes_sent != s->own.bytes_received ||
        bye.bytes_received != s->own.bytes_sent)
      return fixture_why_set(PROTO_E_COUNT_MISMATCH, "BYE counts differ");
    s->own.bytes_received += size;
    ack = s->own;
    if (fixture_mode_fault == FAULT_WRONG_COUNTS)
      ack.bytes_sent++;
    p[1] = PROTO_BYE_ACK;
    proto_counts_encode(payload, &ack);
    s->own.bytes_sent += size;
    s->state = EXPECT_END;
    return fixture_mode_fault == FAULT_WRONG_COUNTS  ? 1
           : fixture_mode_fault == FAULT_CLOSE_FIRST ? 2
                                                     : 0;
  }
}

/* Serves one session on fd with a read buffer of cap bytes; returns after
 * the end of stream that follows BYE_ACK. */
static void server_session(int fd, uint8_t *buf, size_t cap,
                           struct server *done)
{
  struct server s = {fd, EXPECT_HELLO, {0}, 0, 0, {0}};
  size_t len = 0;

  for (;;) {
    size_t off = 0;
    ssize_t n = fixture_os_recv(fd, buf + len, cap - len, 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0 && len == 0 && s.state == EXPECT_END) {
        *done = s;
        return;
      }
      fixture_reject_eof(
          fd, n, len, s.state == EXPECT_HELLO ? "before HELLO" : "before BYE");
    }
    len += (size_t)n;

    for (;;) {
      struct proto_header h;
      long size = proto_frame_peek(buf + off, len - off, &h);
      size_t include;
      int err;

      if (!fixture_header_check(fd, size, &h, buf + off, len - off))
        break;
      err = server_check(&s, &h);
      if (err)
        fixture_reject(fd, err);
      if (size == 0) {
        if (PROTO_HEADER_BYTES + (size_t)h.payload_length > cap) {
          fixture_why_set(PROTO_E_BAD_LENGTH, "a %" PRIu32 "-byte payload",
                          h.payload_length);
          fixture_reject(fd, PROTO_E_BAD_LENGTH);
        }
        break;
      }
      err = server_answer(&s, buf + off, &h, cap, &include);
      if (err < 0)
        fixture_reject(fd, err);
      if (err == 1) {
        (void)fixture_send_all(fd, buf, off + include);
        if (fixture_mode_fault == FAULT_EARLY_EOF)
          shutdown(fd, SHUT_WR);
        fixture_drain_and_exit(fd);
      }
      if (err == 2) {
        /* The active close: this side of the connection, and so the
         * server's port, goes through TIME_WAIT. Corked, BYE_ACK and the
         * FIN leave in one segment, so the client cannot close first
         * (where there is no cork, the FIN follows at once). */
        (void)fixture_os_cork(fd);
        (void)fixture_send_all(fd, buf, off + include);
        shutdown(fd, SHUT_WR);
        fixture_os_close(fd);
        *done = s;
        return;
      }
      off += (size_t)size;
    }
    if (off > 0 && fixture_send_all(fd, buf, off) != 0) {
      fixture_why_set(PROTO_E_UNEXPECTED_EOF, "send: %s", fixture_os_error());
      fixture_reject(-1, PROTO_E_UNEXPECTED_EOF);
    }
    memmove(buf, buf + off, len - off);
    len -= off;
  }
}

/* The server's result line (lanes/README.md) after a session, as the
 * result modes print it: true, twice, with one count off, or cut short. */
static void server_result_line(const struct server *s)
{
  uint64_t frames_received = s->own.requests + 2;
  long user_us, system_us;

  if (fixture_mode_fault == FAULT_RESULT_LIE)
    frames_received++;
  fixture_os_cpu_us(&user_us, &system_us);
  printf("{\"round_trips\":%" PRIu64 ",\"warmup_round_trips\":%" PRIu64
         ",\"payload_bytes\":%" PRIu32 ",\"max_in_flight\":%" PRIu32
         ",\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
         ",\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%" PRIu64
         ",\"cpu_user_us\":%ld,\"cpu_system_us\":%ld"
         ",\"runtime\":\"fixture\"",
         s->w.round_trips, s->w.warmup, s->w.payload_bytes, s->w.max_in_flight,
         s->own.responses + 2, frames_received, s->own.bytes_sent,
         s->own.bytes_received, user_us, system_us);
  if (fixture_tls_mode(FIXTURE_SERVER))
    fixture_tls_print(FIXTURE_SERVER, 0);
  printf("}\n");
  if (fixture_mode_fault == FAULT_RESULT_TWICE)
    printf("{\"round_trips\":%" PRIu64 "}\n", s->w.round_trips);
  fflush(stdout);
}

int fixture_run_server(struct fixture_args *a)
{
  struct server done = {0};
  static uint8_t tiny_buffer[TINY_BUFFER_BYTES];
  struct sockaddr_in bound;
  socklen_t bound_len = sizeof bound;
  uint8_t *buf;
  size_t cap;
  int lfd, fd;

  if (fixture_mode_fault == FAULT_FLOOD_STDERR)
    fixture_flood_stderr();
  if (fixture_mode_fault == FAULT_RSS64) {
    /* Every page written, and kept until the session is over. */
    size_t i;
    rss_keep = malloc(RSS_BYTES);
    if (rss_keep == NULL)
      fixture_die(1, "rss64: out of memory");
    for (i = 0; i < RSS_BYTES; i += 4096)
      rss_keep[i] = (uint8_t)i | 1;
  }

  lfd = socket(AF_INET, SOCK_STREAM, 0);
  if (fixture_mode_fault == FAULT_PORT_FROM_ENV) {
    const char *port = getenv("CROSSRUN_FIXTURE_PORT");
    int one = 1;
    if (port == NULL || atoi(port) <= 0 || atoi(port) > 65535)
      fixture_die(1, "port-from-env: CROSSRUN_FIXTURE_PORT is not a port");
    a->addr.sin_port = htons((uint16_t)atoi(port));
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, (const void *)&one, sizeof one);
  }
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&a->addr, sizeof a->addr) ||
      listen(lfd, 8) || getsockname(lfd, (struct sockaddr *)&bound, &bound_len))
    fixture_die(1, "listen: %s", fixture_os_error());
  if (fixture_mode_fault == FAULT_NEVER_READY)
    fixture_os_sleep_forever();
  if (fixture_mode_fault == FAULT_SHORT_PATHS) {
    fprintf(stderr, "%s: %s\n", fixture_prog, FIXTURE_SHORT_PATHS_LINE);
    printf("READY /a/b\n");
    return 1;
  }
  if (fixture_mode_fault == FAULT_ORPHAN)
    fixture_os_orphan(lfd, ORPHAN_SECONDS);

  if (fixture_mode_fault == FAULT_WRONG_PORT) {
    /* A port that was free a moment ago and has no listener now: the
     * client's connect is refused. */
    struct sockaddr_in other = a->addr;
    socklen_t other_len = sizeof other;
    int ofd = socket(AF_INET, SOCK_STREAM, 0);
    other.sin_port = 0;
    if (ofd < 0 || bind(ofd, (struct sockaddr *)&other, sizeof other) ||
        getsockname(ofd, (struct sockaddr *)&other, &other_len))
      fixture_die(1, "wrong-port: %s", fixture_os_error());
    fixture_os_close(ofd);
    printf("READY %u\n", (unsigned)ntohs(other.sin_port));
    fflush(stdout);
    fixture_os_sleep_forever();
  }
  if (fixture_mode_fault == FAULT_READY_NUL)
    printf("READY %u%c and more\n", (unsigned)ntohs(bound.sin_port), '\0');
  else
    printf("READY %u\n", (unsigned)ntohs(bound.sin_port));
  fflush(stdout);
  if (fixture_mode_fault == FAULT_SECOND_LINE) {
    printf("listening\n");
    fflush(stdout);
  }

  fd = accept(lfd, NULL, NULL);
  if (fd < 0)
    fixture_die(1, "accept: %s", fixture_os_error());
  fixture_os_close(lfd);
  fixture_os_nodelay(fd);

  if (fixture_mode_fault == FAULT_TINY) {
    buf = tiny_buffer;
    cap = sizeof tiny_buffer;
  } else {
    cap = PROTO_MAX_FRAME_BYTES;
    buf = malloc(cap);
    if (buf == NULL)
      fixture_die(1, "out of memory");
  }
  server_session(fd, buf, cap, &done);
  if (fixture_mode_fault != FAULT_CLOSE_FIRST)
    fixture_os_close(fd);
  if (buf != tiny_buffer)
    free(buf);
  free((void *)rss_keep);

  switch (fixture_mode_fault) {
  case FAULT_EXIT3:
    return 3;
  case FAULT_SIGNAL:
    fixture_os_die_abnormally();
  case FAULT_HANG:
    fixture_os_sleep_forever();
    break;
  case FAULT_STDOUT_LATER:
    printf("bye");
    fflush(stdout);
    break;
  case FAULT_RESULT:
  case FAULT_RESULT_LIE:
  case FAULT_RESULT_TWICE:
  case FAULT_TLS_RESULT:
  case FAULT_TLS_SERVER_VERSION:
  case FAULT_TLS_SERVER_ALPN:
  case FAULT_TLS_ON_TCP:
    server_result_line(&done);
    break;
  case FAULT_LEAVE_FILE: {
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    FILE *f;
    if (tmp == NULL || *tmp == '\0')
      fixture_die(1, "leave-file: TMPDIR is not set");
    snprintf(path, sizeof path, "%s/leftover.txt", tmp);
    f = fopen(path, "w");
    if (f == NULL)
      fixture_die(1, "leave-file: %s: %s", path, strerror(errno));
    fputs("left behind by the leave-file fixture\n", f);
    fclose(f);
    break;
  }
  default:
    break;
  }
  return 0;
}
