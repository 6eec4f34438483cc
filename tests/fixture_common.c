/* What both roles of tests/fixture share: the fault in force, failing
 * with a message, sending, draining, the rejections of SPEC.md section 6,
 * and the stderr flood. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fixture.h"

#define DRAIN_SECONDS 10 /* how long a faulty peer waits for the close */
#define FLOOD_BYTES (64u << 20)
#define FLOOD_CHUNK_BYTES (64u << 10)

enum fixture_fault fixture_mode_fault;
const char *fixture_prog = "fixture";
char fixture_why[FIXTURE_WHY_BYTES];

void fixture_die(int status, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", fixture_prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(status);
}

/* Sets the reason of a rejection and returns err. */
int fixture_why_set(int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(fixture_why, sizeof fixture_why, fmt, ap);
  va_end(ap);
  return err;
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

int fixture_send_all(int fd, const void *data, size_t len)
{
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = fixture_os_send(fd, p, len, 0);
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
void fixture_drain_and_exit(int fd)
{
  uint64_t deadline =
      fixture_os_now_ns() + (uint64_t)DRAIN_SECONDS * 1000000000u;
  uint8_t scratch[4096];

  for (;;) {
    uint64_t now = fixture_os_now_ns();
    struct pollfd pfd = {fd, POLLIN, 0};
    int r;
    ssize_t n;

    if (now >= deadline)
      break;
    r = fixture_os_poll(&pfd, (int)((deadline - now) / 1000000u) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    n = fixture_os_recv(fd, scratch, sizeof scratch, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
  }
  fixture_os_close(fd);
  exit(0);
}

/* A rejection of SPEC.md section 6: one stderr line, an ERROR frame,
 * close, exit 1. */
void fixture_reject(int fd, int err)
{
  uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
  size_t n;

  fprintf(stderr, "%s: %s: %s\n", fixture_prog, proto_error_name(err),
          fixture_why);
  if (err != PROTO_E_PEER_ERROR && fd >= 0 &&
      fixture_mode_fault != FAULT_NO_ERROR) {
    char reason[FIXTURE_WHY_BYTES + 32];
    /* The reason starts with the rejection's name (issue 13's D3). */
    snprintf(reason, sizeof(reason), "%s: %s", proto_error_name(err),
             fixture_why);
    n = proto_error_encode(frame, proto_error_code_for(err), reason);
    (void)fixture_os_send(fd, frame, n, 1);
  }
  if (fd >= 0)
    fixture_os_close(fd);
  exit(1);
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_length(const uint8_t *p, size_t n)
{
  size_t len = p[0] < 0x80                    ? 1
               : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
               : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                              : 0;

  if (len == 0 || len > n)
    return 0;
  for (size_t i = 1; i < len; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  /* Overlong forms, surrogates and code points past U+10FFFF. */
  if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
      (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
    return 0;
  return len;
}

/* A peer's reason as one line of valid UTF-8 (SPEC.md section 6): every
 * invalid sequence U+FFFD, every control character \xNN; cut at a
 * character boundary when out is full. */
static void reason_text(const uint8_t *p, size_t n, char *out, size_t size)
{
  size_t used = 0;

  for (size_t i = 0; i < n;) {
    size_t len = utf8_length(p + i, n - i);
    char piece[8];
    size_t plen;

    if (len == 1 && (p[i] < 0x20 || p[i] == 0x7f))
      plen = (size_t)snprintf(piece, sizeof piece, "\\x%02x", p[i]);
    else if (len == 0)
      plen = (size_t)snprintf(piece, sizeof piece, "\xef\xbf\xbd");
    else {
      memcpy(piece, p + i, len);
      plen = len;
    }
    if (used + plen + 1 > size)
      break;
    memcpy(out + used, piece, plen);
    used += plen;
    i += len ? len : 1;
  }
  out[used] = '\0';
}

/* How many payload bytes of h's frame are among the avail bytes that
 * begin with its header. */
static uint32_t arrived(const struct proto_header *h, size_t avail)
{
  size_t got = avail - PROTO_HEADER_BYTES;
  return got < h->payload_length ? (uint32_t)got : h->payload_length;
}

/* The reason for an ERROR frame, of which len payload bytes arrived
 * (fewer than it holds, when it is cut short). */
static int peer_error(const uint8_t *payload, uint32_t len)
{
  char reason[FIXTURE_WHY_BYTES / 2];

  if (len < 2)
    return fixture_why_set(PROTO_E_PEER_ERROR,
                           "ERROR frame (its code did not arrive)");
  reason_text(payload + 2, len - 2, reason, sizeof reason);
  return fixture_why_set(PROTO_E_PEER_ERROR, "ERROR code %u: %s",
                         (unsigned)payload[0] << 8 | payload[1], reason);
}

int fixture_header_check(int fd, long size, const struct proto_header *h,
                         const uint8_t *frame, size_t avail)
{
  if (size < 0) {
    fixture_why_set((int)size, "header version %u type %u length %" PRIu32,
                    h->version, h->type, h->payload_length);
    fixture_reject(fd, (int)size);
  }
  if (avail < PROTO_HEADER_BYTES)
    return 0;
  if (h->type == PROTO_ERROR)
    fixture_reject(fd,
                   peer_error(frame + PROTO_HEADER_BYTES, arrived(h, avail)));
  return 1;
}

/* Rejects end of stream (or a failed read) with `pending` bytes left. */
void fixture_reject_eof(int fd, ssize_t n, size_t pending, const char *where)
{
  const char *how = n < 0 ? fixture_os_error() : "end of stream";
  if (pending > 0)
    fixture_why_set(PROTO_E_TRUNCATED, "%s after %zu bytes of a frame", how,
                    pending);
  else
    fixture_why_set(PROTO_E_UNEXPECTED_EOF, "%s %s", how, where);
  fixture_reject(n < 0 ? -1 : fd,
                 pending > 0 ? PROTO_E_TRUNCATED : PROTO_E_UNEXPECTED_EOF);
}

void fixture_flood_stderr(void)
{
  static char chunk[FLOOD_CHUNK_BYTES];
  size_t done;

  memset(chunk, 'x', sizeof chunk);
  chunk[sizeof chunk - 1] = '\n';
  for (done = 0; done < FLOOD_BYTES; done += sizeof chunk)
    if (write_all(STDERR_FILENO, chunk, sizeof chunk) != 0)
      fixture_die(1, "flood-stderr: write failed");
}
