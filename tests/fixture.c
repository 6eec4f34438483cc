/* Deliberately misbehaving peers for crossrun's tests, one program with a
 * mode per fault (git's test-tool, libuv's test helpers):
 *
 *   fixture server MODE --listen 127.0.0.1:0
 *   fixture client MODE --connect 127.0.0.1:PORT --warmup N --round-trips N
 *                       --payload-bytes N --max-in-flight N
 *
 * The flags are those of a real peer (lanes/README.md), so the runner can
 * start a fixture in place of one. Mode "ok" is a correct, simple peer;
 * every other mode does everything correctly except the one thing the
 * table below says. A mode that breaks the protocol then reads until the
 * other side closes or fails (at most 10 s) and exits 0, so that a test
 * sees the other side's rejection. Faults aimed at "the 3rd" request or
 * response need W + N >= 3, and the bit flips need P >= 1; with less the
 * session runs correctly.
 *
 * Blocking POSIX sockets (Linux is enough here); no libuv. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "protocol/codec.h"

enum fault {
  FAULT_NONE,
  /* server only */
  FAULT_NEVER_READY,
  FAULT_SIGNAL,
  FAULT_LEAVE_FILE,
  FAULT_ORPHAN,
  FAULT_RSS64,
  FAULT_TINY,
  /* client only */
  FAULT_WRONG_COUNT,
  FAULT_BAD_JSON,
  FAULT_NO_RESULT,
  /* both */
  FAULT_CLOSE_FIRST,
  FAULT_UNSUPPORTED,
  FAULT_EXIT3,
  FAULT_HANG,
  FAULT_FLOOD_STDERR,
  FAULT_WRONG_SEQUENCE,
  FAULT_WRONG_PAYLOAD,
  FAULT_OVERSIZED,
  FAULT_EARLY_EOF,
  FAULT_BAD_VERSION,
  FAULT_WRONG_COUNTS
};

#define SERVER 1
#define CLIENT 2

static const struct mode {
  const char *name;
  int roles;
  enum fault fault;
  const char *what;
} modes[] = {
    {"ok", SERVER | CLIENT, FAULT_NONE, "a correct peer"},
    {"never-ready", SERVER, FAULT_NEVER_READY,
     "binds and listens but never prints READY; sleeps forever"},
    {"close-first", SERVER, FAULT_CLOSE_FIRST,
     "a correct session, but closes the connection right after BYE_ACK, "
     "before the client does (TIME_WAIT stays on the server's port)"},
    {"unsupported", SERVER | CLIENT, FAULT_UNSUPPORTED,
     "exits 127 at once, as a runtime that does not support the request"},
    {"exit3", SERVER | CLIENT, FAULT_EXIT3,
     "a correct session, then exit 3 (the client prints nothing)"},
    {"signal", SERVER, FAULT_SIGNAL,
     "a correct session, then SIGABRT (core dumps off)"},
    {"hang", SERVER | CLIENT, FAULT_HANG,
     "a correct session, then sleeps forever (the client before printing)"},
    {"leave-file", SERVER, FAULT_LEAVE_FILE,
     "a correct session, then creates $TMPDIR/leftover.txt, exit 0"},
    {"orphan", SERVER, FAULT_ORPHAN,
     "before READY forks a setsid() child that holds the listening socket "
     "and sleeps (an hour at most); the parent serves correctly"},
    {"flood-stderr", SERVER | CLIENT, FAULT_FLOOD_STDERR,
     "64 MiB to stderr in 64 KiB chunks first, then a correct session"},
    {"rss64", SERVER, FAULT_RSS64,
     "touches and keeps 64 MiB of fresh memory, then serves correctly"},
    {"tiny", SERVER, FAULT_TINY,
     "serves with one 64 KiB buffer (payloads up to 65520 bytes; larger: "
     "ERROR bad_workload and exit 127)"},
    {"wrong-count", CLIENT, FAULT_WRONG_COUNT,
     "a correct session, but the result says round_trips N - 1"},
    {"bad-json", CLIENT, FAULT_BAD_JSON,
     "a correct session, then `not json` as the result line, exit 0"},
    {"no-result", CLIENT, FAULT_NO_RESULT,
     "a correct session, then no result line, exit 0"},
    {"wrong-sequence", SERVER | CLIENT, FAULT_WRONG_SEQUENCE,
     "the 3rd request/response carries sequence 4 (request: gen(4, P))"},
    {"wrong-payload", SERVER | CLIENT, FAULT_WRONG_PAYLOAD,
     "one bit of the 3rd request/response payload flipped"},
    {"oversized", SERVER | CLIENT, FAULT_OVERSIZED,
     "a header claiming 1048577 payload bytes instead of the 3rd "
     "request/response"},
    {"early-eof", SERVER | CLIENT, FAULT_EARLY_EOF,
     "closes its sending side instead of the 3rd response (server) or "
     "after the 2nd response (client)"},
    {"bad-version", SERVER | CLIENT, FAULT_BAD_VERSION,
     "HELLO (client) or HELLO_ACK (server) with header version 2"},
    {"wrong-counts", SERVER | CLIENT, FAULT_WRONG_COUNTS,
     "BYE with requests + 1 (client), BYE_ACK with bytes_sent + 1 (server)"},
};

#define FAULT_SEQUENCE 3 /* the request or response that misbehaves */
#define DRAIN_SECONDS 10 /* how long a faulty peer waits for the close */
#define TINY_BUFFER_BYTES 65536
#define FLOOD_BYTES (64u << 20)
#define FLOOD_CHUNK_BYTES (64u << 10)
#define RSS_BYTES (64u << 20)
#define ORPHAN_SECONDS 3600

static enum fault fault;
static volatile uint8_t *volatile rss_keep; /* rss64's memory */
static const char *prog = "fixture";
static char why[320];

/* ---- small helpers ---- */

static void die(int status, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(status);
}

/* Sets the reason of a rejection and returns err. */
static int why_set(int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return err;
}

static void sleep_forever(void)
{
  for (;;)
    pause();
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int write_all(int fd, const void *data, size_t len)
{
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int send_all(int fd, const void *data, size_t len)
{
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Reads and drops everything until the peer closes or fails, at most
 * DRAIN_SECONDS, then exits 0: the end of every protocol fault. */
static void drain_and_exit(int fd)
{
  uint64_t deadline = now_ns() + (uint64_t)DRAIN_SECONDS * 1000000000u;
  uint8_t scratch[4096];

  for (;;) {
    uint64_t now = now_ns();
    struct pollfd pfd = {fd, POLLIN, 0};
    int r;
    ssize_t n;

    if (now >= deadline)
      break;
    r = poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    n = recv(fd, scratch, sizeof scratch, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
  }
  close(fd);
  exit(0);
}

/* A rejection of SPEC.md section 6: one stderr line, an ERROR frame,
 * close, exit 1. */
static void reject(int fd, int err)
{
  uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
  size_t n;

  fprintf(stderr, "%s: %s: %s\n", prog, proto_error_name(err), why);
  if (err != PROTO_E_PEER_ERROR && fd >= 0) {
    n = proto_error_encode(frame, proto_error_code_for(err), why);
    (void)send(fd, frame, n, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  if (fd >= 0)
    close(fd);
  exit(1);
}

static int peer_error(const uint8_t *payload, uint32_t len)
{
  uint16_t code = 0;
  char reason[PROTO_MAX_REASON_BYTES + 1] = "";
  proto_error_decode(payload, len, &code, reason, sizeof reason);
  return why_set(PROTO_E_PEER_ERROR, "ERROR code %u: %s", code, reason);
}

/* Rejects end of stream (or a failed read) with `pending` bytes left. */
static void reject_eof(int fd, ssize_t n, size_t pending, const char *where)
{
  const char *how = n < 0 ? strerror(errno) : "end of stream";
  if (pending > 0)
    why_set(PROTO_E_TRUNCATED, "%s after %zu bytes of a frame", how, pending);
  else
    why_set(PROTO_E_UNEXPECTED_EOF, "%s %s", how, where);
  reject(n < 0 ? -1 : fd,
         pending > 0 ? PROTO_E_TRUNCATED : PROTO_E_UNEXPECTED_EOF);
}

static void flood_stderr(void)
{
  static char chunk[FLOOD_CHUNK_BYTES];
  size_t done;

  memset(chunk, 'x', sizeof chunk);
  chunk[sizeof chunk - 1] = '\n';
  for (done = 0; done < FLOOD_BYTES; done += sizeof chunk)
    if (write_all(STDERR_FILENO, chunk, sizeof chunk) != 0)
      die(1, "flood-stderr: write failed");
}

/* ---- command line ---- */

struct args {
  struct sockaddr_in addr;
  struct proto_workload w;
};

static int parse_u64(const char *s, uint64_t *out)
{
  uint64_t v = 0;
  if (*s == '\0')
    return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
      return -1;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return 0;
}

static int parse_addr(const char *s, struct sockaddr_in *a)
{
  char host[64];
  const char *colon = strrchr(s, ':');
  uint64_t port;

  if (colon == NULL || (size_t)(colon - s) >= sizeof host ||
      parse_u64(colon + 1, &port) != 0 || port > 65535)
    return -1;
  memcpy(host, s, (size_t)(colon - s));
  host[colon - s] = '\0';
  memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_port = htons((uint16_t)port);
  return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

static void parse_args(int role, int argc, char **argv, struct args *a)
{
  static const char *const names[] = {"--listen",        "--connect",
                                      "--warmup",        "--round-trips",
                                      "--payload-bytes", "--max-in-flight"};
  const char *values[6] = {0};
  uint64_t n[6] = {0};
  int i, f;

  for (i = 0; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
    for (f = 0; f < 6; f++)
      if ((f == 0) == (role == SERVER) && strlen(names[f]) == len &&
          strncmp(argv[i], names[f], len) == 0)
        break;
    if (f == 6)
      die(2, "unknown argument '%s'", argv[i]);
    if (values[f])
      die(2, "'%s' given twice", names[f]);
    if (eq)
      values[f] = eq + 1;
    else if (i + 1 < argc)
      values[f] = argv[++i];
    else
      die(2, "'%s' needs a value", names[f]);
  }
  for (f = 0; f < 6; f++) {
    if ((f == 0) != (role == SERVER))
      continue;
    if (values[f] == NULL)
      die(2, "missing '%s'", names[f]);
    if (f < 2 ? parse_addr(values[f], &a->addr) != 0
              : parse_u64(values[f], &n[f]) != 0)
      die(2, "%s: bad value '%s'", names[f], values[f]);
  }
  if (role == CLIENT) {
    if (n[4] > PROTO_MAX_PAYLOAD_BYTES || n[5] > PROTO_MAX_IN_FLIGHT)
      die(2, "workload out of range");
    a->w.warmup = n[2];
    a->w.round_trips = n[3];
    a->w.payload_bytes = (uint32_t)n[4];
    a->w.max_in_flight = (uint32_t)n[5];
    if (proto_workload_check(&a->w) != 0)
      die(2, "bad workload");
  }
}

/* ---- server ---- */

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
  if (h->type == PROTO_ERROR)
    return 0;
  if (s->state == EXPECT_HELLO) {
    if (h->type != PROTO_HELLO)
      return why_set(PROTO_E_UNEXPECTED_TYPE, "type %u before HELLO", h->type);
    if (h->sequence != 0)
      return why_set(PROTO_E_WRONG_SEQUENCE, "HELLO sequence %" PRIu64,
                     h->sequence);
    return 0;
  }
  if (s->state == EXPECT_REQUEST && h->type == PROTO_REQUEST) {
    if (s->next > s->total || h->sequence != s->next)
      return why_set(PROTO_E_WRONG_SEQUENCE,
                     "REQUEST %" PRIu64 " (expected %" PRIu64 ")", h->sequence,
                     s->next);
    if (h->payload_length != s->w.payload_bytes)
      return why_set(PROTO_E_BAD_LENGTH, "REQUEST of %" PRIu32 " bytes",
                     h->payload_length);
    return 0;
  }
  if (s->state == EXPECT_REQUEST && h->type == PROTO_BYE &&
      s->next > s->total) {
    if (h->sequence != s->total + 1)
      return why_set(PROTO_E_WRONG_SEQUENCE, "BYE sequence %" PRIu64,
                     h->sequence);
    return 0;
  }
  return why_set(PROTO_E_UNEXPECTED_TYPE, "type %u not allowed here", h->type);
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
  if (h->type == PROTO_ERROR)
    return peer_error(payload, h->payload_length);

  if (h->type == PROTO_HELLO) {
    proto_workload_decode(payload, &s->w);
    if (proto_workload_check(&s->w) != 0)
      return why_set(PROTO_E_BAD_WORKLOAD, "HELLO workload out of range");
    if (PROTO_HEADER_BYTES + (size_t)s->w.payload_bytes > cap) {
      why_set(PROTO_E_BAD_WORKLOAD, "tiny supports payloads up to %zu bytes",
              cap - PROTO_HEADER_BYTES);
      fprintf(stderr, "%s: unsupported: %s\n", prog, why);
      {
        uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
        size_t n = proto_error_encode(frame, PROTO_CODE_BAD_WORKLOAD, why);
        (void)send_all(s->fd, frame, n);
      }
      close(s->fd);
      exit(127);
    }
    s->total = s->w.warmup + s->w.round_trips;
    s->next = 1;
    s->state = EXPECT_REQUEST;
    s->own.bytes_received += size;
    s->own.bytes_sent += size;
    p[1] = PROTO_HELLO_ACK;
    if (fault == FAULT_BAD_VERSION) {
      p[0] = 2;
      return 1;
    }
    return 0;
  }

  if (h->type == PROTO_REQUEST) {
    struct proto_header rh = *h;
    if (proto_payload_check(payload, h->payload_length, h->sequence) != 0)
      return why_set(PROTO_E_WRONG_PAYLOAD, "REQUEST %" PRIu64, h->sequence);
    s->next++;
    s->own.requests++;
    s->own.bytes_received += size;
    rh.type = PROTO_RESPONSE;
    if (h->sequence == FAULT_SEQUENCE) {
      switch (fault) {
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
    if (h->sequence == FAULT_SEQUENCE && fault == FAULT_WRONG_PAYLOAD &&
        h->payload_length > 0) {
      payload[0] ^= 0x01;
      return 1;
    }
    return h->sequence == FAULT_SEQUENCE && fault == FAULT_WRONG_SEQUENCE;
  }

  /* BYE */
  {
    struct proto_counts bye;
    struct proto_counts ack;
    proto_counts_decode(payload, &bye);
    if (bye.requests != s->own.requests || bye.responses != s->own.responses ||
        bye.bytes_sent != s->own.bytes_received ||
        bye.bytes_received != s->own.bytes_sent)
      return why_set(PROTO_E_COUNT_MISMATCH, "BYE counts differ");
    s->own.bytes_received += size;
    ack = s->own;
    if (fault == FAULT_WRONG_COUNTS)
      ack.bytes_sent++;
    p[1] = PROTO_BYE_ACK;
    proto_counts_encode(payload, &ack);
    s->own.bytes_sent += size;
    s->state = EXPECT_END;
    return fault == FAULT_WRONG_COUNTS ? 1 : fault == FAULT_CLOSE_FIRST ? 2 : 0;
  }
}

/* Serves one session on fd with a read buffer of cap bytes; returns after
 * the end of stream that follows BYE_ACK. */
static void server_session(int fd, uint8_t *buf, size_t cap)
{
  struct server s = {fd, EXPECT_HELLO, {0}, 0, 0, {0}};
  size_t len = 0;

  for (;;) {
    size_t off = 0;
    ssize_t n = recv(fd, buf + len, cap - len, 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0 && len == 0 && s.state == EXPECT_END)
        return;
      reject_eof(fd, n, len,
                 s.state == EXPECT_HELLO ? "before HELLO" : "before BYE");
    }
    len += (size_t)n;

    for (;;) {
      struct proto_header h;
      long size = proto_frame_peek(buf + off, len - off, &h);
      size_t include;
      int err;

      if (size < 0) {
        why_set((int)size, "header version %u type %u length %" PRIu32,
                h.version, h.type, h.payload_length);
        reject(fd, (int)size);
      }
      if (len - off < PROTO_HEADER_BYTES)
        break;
      err = server_check(&s, &h);
      if (err)
        reject(fd, err);
      if (size == 0) {
        if (PROTO_HEADER_BYTES + (size_t)h.payload_length > cap) {
          why_set(PROTO_E_BAD_LENGTH, "a %" PRIu32 "-byte payload",
                  h.payload_length);
          reject(fd, PROTO_E_BAD_LENGTH);
        }
        break;
      }
      err = server_answer(&s, buf + off, &h, cap, &include);
      if (err < 0)
        reject(fd, err);
      if (err == 1) {
        (void)send_all(fd, buf, off + include);
        if (fault == FAULT_EARLY_EOF)
          shutdown(fd, SHUT_WR);
        drain_and_exit(fd);
      }
      if (err == 2) {
        /* The active close: this side of the connection, and so the
         * server's port, goes through TIME_WAIT. Corked, BYE_ACK and the
         * FIN leave in one segment, so the client cannot close first. */
        int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
        (void)send_all(fd, buf, off + include);
        shutdown(fd, SHUT_WR);
        close(fd);
        return;
      }
      off += (size_t)size;
    }
    if (off > 0 && send_all(fd, buf, off) != 0) {
      why_set(PROTO_E_UNEXPECTED_EOF, "send: %s", strerror(errno));
      reject(-1, PROTO_E_UNEXPECTED_EOF);
    }
    memmove(buf, buf + off, len - off);
    len -= off;
  }
}

static int run_server(struct args *a)
{
  static uint8_t tiny_buffer[TINY_BUFFER_BYTES];
  struct sockaddr_in bound;
  socklen_t bound_len = sizeof bound;
  uint8_t *buf;
  size_t cap;
  int lfd, fd, one = 1;

  if (fault == FAULT_FLOOD_STDERR)
    flood_stderr();
  if (fault == FAULT_RSS64) {
    /* Every page written, and kept until the session is over. */
    size_t i;
    rss_keep = malloc(RSS_BYTES);
    if (rss_keep == NULL)
      die(1, "rss64: out of memory");
    for (i = 0; i < RSS_BYTES; i += 4096)
      rss_keep[i] = (uint8_t)i | 1;
  }

  lfd = socket(AF_INET, SOCK_STREAM, 0);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&a->addr, sizeof a->addr) ||
      listen(lfd, 8) || getsockname(lfd, (struct sockaddr *)&bound, &bound_len))
    die(1, "listen: %s", strerror(errno));
  if (fault == FAULT_NEVER_READY)
    sleep_forever();
  if (fault == FAULT_ORPHAN) {
    pid_t pid = fork();
    if (pid < 0)
      die(1, "fork: %s", strerror(errno));
    if (pid == 0) {
      /* Escapes the process group, keeps the port, lets go of the
       * runner's pipes so that only the port and the process remain. */
      int null = open("/dev/null", O_RDWR);
      setsid();
      if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
          close(null);
      }
      sleep(ORPHAN_SECONDS);
      _exit(0);
    }
  }

  printf("READY %u\n", (unsigned)ntohs(bound.sin_port));
  fflush(stdout);

  fd = accept(lfd, NULL, NULL);
  if (fd < 0)
    die(1, "accept: %s", strerror(errno));
  close(lfd);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  if (fault == FAULT_TINY) {
    buf = tiny_buffer;
    cap = sizeof tiny_buffer;
  } else {
    cap = PROTO_MAX_FRAME_BYTES;
    buf = malloc(cap);
    if (buf == NULL)
      die(1, "out of memory");
  }
  server_session(fd, buf, cap);
  if (fault != FAULT_CLOSE_FIRST)
    close(fd);
  if (buf != tiny_buffer)
    free(buf);
  free((void *)rss_keep);

  switch (fault) {
  case FAULT_EXIT3:
    return 3;
  case FAULT_SIGNAL: {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    raise(SIGABRT);
    return 1;
  }
  case FAULT_HANG:
    sleep_forever();
    break;
  case FAULT_LEAVE_FILE: {
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    FILE *f;
    if (tmp == NULL || *tmp == '\0')
      die(1, "leave-file: TMPDIR is not set");
    snprintf(path, sizeof path, "%s/leftover.txt", tmp);
    f = fopen(path, "w");
    if (f == NULL)
      die(1, "leave-file: %s: %s", path, strerror(errno));
    fputs("left behind by the leave-file fixture\n", f);
    fclose(f);
    break;
  }
  default:
    break;
  }
  return 0;
}

/* ---- client ---- */

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
      c->start_ns = now_ns();
    }
    if (seq > limit || seq - c->next_recv >= c->w.max_in_flight ||
        c->out_cap - c->out_len < frame)
      break;
    c->next_send++;
    c->own.requests++;
    c->own.bytes_sent += frame;
    c->frames_sent++;
    c->out_len += frame;
    if (seq == FAULT_SEQUENCE && fault == FAULT_OVERSIZED) {
      h.payload_length = PROTO_MAX_PAYLOAD_BYTES + 1;
      proto_header_encode(dst, &h);
      c->out_len -= frame - PROTO_HEADER_BYTES;
      c->faulted = 1;
      return;
    }
    if (seq == FAULT_SEQUENCE && fault == FAULT_WRONG_SEQUENCE) {
      h.sequence = seq + 1;
      c->faulted = 1;
    }
    proto_header_encode(dst, &h);
    proto_payload_fill(dst + PROTO_HEADER_BYTES, p, h.sequence);
    if (seq == FAULT_SEQUENCE && fault == FAULT_WRONG_PAYLOAD && p > 0) {
      dst[PROTO_HEADER_BYTES] ^= 0x01;
      c->faulted = 1;
    }
    if (c->faulted)
      return;
  }
  if (c->next_recv > c->total) {
    uint8_t counts[PROTO_COUNTS_BYTES];
    struct proto_counts bye = c->own;
    if (fault == FAULT_WRONG_COUNTS) {
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
  if (h->type == PROTO_ERROR)
    return 0;
  if (c->state == EXPECT_HELLO_ACK && h->type == PROTO_HELLO_ACK)
    return h->sequence == 0
               ? 0
               : why_set(PROTO_E_WRONG_SEQUENCE, "HELLO_ACK sequence %" PRIu64,
                         h->sequence);
  if (c->state == IN_SESSION && h->type == PROTO_RESPONSE &&
      c->next_recv <= c->total) {
    if (h->sequence != c->next_recv)
      return why_set(PROTO_E_WRONG_SEQUENCE,
                     "RESPONSE %" PRIu64 " (expected %" PRIu64 ")", h->sequence,
                     c->next_recv);
    if (c->next_recv == c->next_send)
      return why_set(PROTO_E_UNEXPECTED_TYPE,
                     "RESPONSE %" PRIu64 " before its request was sent",
                     h->sequence);
    if (h->payload_length != c->w.payload_bytes)
      return why_set(PROTO_E_BAD_LENGTH, "RESPONSE of %" PRIu32 " bytes",
                     h->payload_length);
    return 0;
  }
  if (c->state == EXPECT_BYE_ACK && h->type == PROTO_BYE_ACK)
    return h->sequence == c->total + 1
               ? 0
               : why_set(PROTO_E_WRONG_SEQUENCE, "BYE_ACK sequence %" PRIu64,
                         h->sequence);
  return why_set(PROTO_E_UNEXPECTED_TYPE, "type %u not allowed here", h->type);
}

static int client_frame(struct client *c, const struct proto_header *h,
                        const uint8_t *payload)
{
  uint64_t size = PROTO_HEADER_BYTES + (uint64_t)h->payload_length;

  if (h->type == PROTO_ERROR)
    return peer_error(payload, h->payload_length);
  c->own.bytes_received += size;
  c->frames_received++;
  if (h->type == PROTO_HELLO_ACK) {
    if (memcmp(payload, c->hello, PROTO_WORKLOAD_BYTES) != 0)
      return why_set(PROTO_E_BAD_WORKLOAD, "HELLO_ACK differs from HELLO");
    c->state = IN_SESSION;
    return 0;
  }
  if (h->type == PROTO_RESPONSE) {
    if (proto_response_check(payload, h->payload_length, h->sequence) != 0)
      return why_set(PROTO_E_WRONG_PAYLOAD, "RESPONSE %" PRIu64, h->sequence);
    if (h->sequence == c->total)
      c->end_ns = now_ns();
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
      return why_set(PROTO_E_COUNT_MISMATCH, "BYE_ACK counts differ");
    c->state = DONE;
    return 0;
  }
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
    die(1, "out of memory");

  client_queue(c, PROTO_HELLO, 0, c->hello, PROTO_WORKLOAD_BYTES);
  if (fault == FAULT_BAD_VERSION) {
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
    if (poll(&pfd, 1, -1) < 0) {
      if (errno == EINTR)
        continue;
      die(1, "poll: %s", strerror(errno));
    }
    if (pfd.revents & POLLOUT) {
      n = send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent,
               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        c->out_sent += (size_t)n;
      if (c->out_sent == c->out_len) {
        c->out_len = c->out_sent = 0;
        if (c->faulted)
          drain_and_exit(c->fd);
      }
    }
    if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    n = recv(c->fd, buf + len, cap - len, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      reject_eof(c->fd, n, len,
                 c->state == EXPECT_HELLO_ACK ? "before HELLO_ACK"
                 : c->state == IN_SESSION     ? "before the last RESPONSE"
                                              : "before BYE_ACK");
    len += (size_t)n;
    while (c->state != DONE) {
      struct proto_header h;
      long size = proto_frame_peek(buf + off, len - off, &h);
      int err;
      if (size < 0) {
        why_set((int)size, "header version %u type %u length %" PRIu32,
                h.version, h.type, h.payload_length);
        reject(c->fd, (int)size);
      }
      if (len - off < PROTO_HEADER_BYTES)
        break;
      err = client_check(c, &h);
      if (err)
        reject(c->fd, err);
      if (size == 0)
        break;
      err = client_frame(c, &h, buf + off + PROTO_HEADER_BYTES);
      if (err)
        reject(c->fd, err);
      off += (size_t)size;
      if (fault == FAULT_EARLY_EOF && h.type == PROTO_RESPONSE &&
          h.sequence == 2) {
        shutdown(c->fd, SHUT_WR);
        drain_and_exit(c->fd);
      }
    }
    memmove(buf, buf + off, len - off);
    len -= off;
  }
  free(buf);
  free(c->out);
}

static int run_client(struct args *a)
{
  struct client c;
  int one = 1;

  memset(&c, 0, sizeof c);
  if (fault == FAULT_FLOOD_STDERR)
    flood_stderr();
  c.w = a->w;
  c.total = c.w.warmup + c.w.round_trips;
  c.next_send = c.next_recv = 1;
  proto_workload_encode(c.hello, &c.w);

  c.fd = socket(AF_INET, SOCK_STREAM, 0);
  if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&a->addr, sizeof a->addr))
    die(1, "connect: %s", strerror(errno));
  setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  client_session(&c);
  close(c.fd); /* the client closes first */

  switch (fault) {
  case FAULT_HANG:
    sleep_forever();
    break;
  case FAULT_EXIT3:
    return 3;
  case FAULT_NO_RESULT:
    return 0;
  case FAULT_BAD_JSON:
    printf("not json\n");
    return 0;
  default:
    break;
  }
  printf("{\"runtime\":\"fixture\",\"round_trips\":%" PRIu64
         ",\"warmup_round_trips\":%" PRIu64 ",\"payload_bytes\":%" PRIu32
         ",\"max_in_flight\":%" PRIu32 ",\"frames_sent\":%" PRIu64
         ",\"frames_received\":%" PRIu64 ",\"bytes_sent\":%" PRIu64
         ",\"bytes_received\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64 "}\n",
         c.w.round_trips - (fault == FAULT_WRONG_COUNT), c.w.warmup,
         c.w.payload_bytes, c.w.max_in_flight, c.frames_sent, c.frames_received,
         c.own.bytes_sent, c.own.bytes_received, c.end_ns - c.start_ns);
  return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
  struct args a;
  int role;
  size_t i;

  if (argc < 3 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
    fprintf(stderr, "usage: fixture server MODE --listen 127.0.0.1:0\n"
                    "       fixture client MODE --connect 127.0.0.1:PORT "
                    "--warmup N --round-trips N --payload-bytes N "
                    "--max-in-flight N\nmodes:\n");
    for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
      fprintf(stderr, "  %-15s %s%s  %s\n", modes[i].name,
              modes[i].roles & SERVER ? "S" : "-",
              modes[i].roles & CLIENT ? "C" : "-", modes[i].what);
    return 2;
  }
  role = strcmp(argv[1], "server") == 0 ? SERVER : CLIENT;
  prog = role == SERVER ? "fixture server" : "fixture client";
  for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (strcmp(modes[i].name, argv[2]) == 0 && (modes[i].roles & role))
      break;
  if (i == sizeof modes / sizeof modes[0])
    die(2, "unknown mode '%s' (run without arguments for the list)", argv[2]);
  fault = modes[i].fault;
  if (fault == FAULT_UNSUPPORTED)
    return 127;
  memset(&a, 0, sizeof a);
  parse_args(role, argc - 3, argv + 3, &a);
  signal(SIGPIPE, SIG_IGN);
  return role == SERVER ? run_server(&a) : run_client(&a);
}
