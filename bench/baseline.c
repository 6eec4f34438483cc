/* The raw loopback baseline: the floor the benchmark compares the lanes to.
 *
 *   baseline server --listen 127.0.0.1:0 [--transport tls --cert F --key F]
 *   baseline client --connect 127.0.0.1:PORT --warmup N --round-trips N
 *                   --payload-bytes N --max-in-flight N
 *                   [--transport tls --ca F]
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
 *   in place in its receive buffer and writes that buffer back.
 * Over tls (bench/baseline_tls.c) the same bytes go through OpenSSL: the
 * TLS floor the lanes over tls are compared with. */
#include "bench/baseline.h"

#include "protocol/codec.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static const char *role = "baseline";

void baseline_die(int status, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", role);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(status);
}

void *baseline_xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p)
    baseline_die(1, "out of memory (%zu bytes)", n);
  return p;
}

/* ------------------------------------------------------------ options */

static uint64_t parse_number(const char *flag, const char *text)
{
  char *end;
  unsigned long long v;

  if (!text || !*text || *text < '0' || *text > '9')
    baseline_die(2, "bad number for %s: '%s'", flag, text ? text : "");
  errno = 0;
  v = strtoull(text, &end, 10);
  if (errno || *end)
    baseline_die(2, "bad number for %s: '%s'", flag, text);
  return v;
}

static void parse_options(int argc, char **argv, int server,
                          struct baseline_options *o)
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
      baseline_die(2, "missing value for '%s'", arg);

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
    } else if (IS("--transport")) {
      if (strcmp(value, "tls") != 0 && strcmp(value, "tcp") != 0)
        baseline_die(2, "--transport: expected tcp or tls, got '%s'", value);
      o->tls = strcmp(value, "tls") == 0;
    } else if (server && IS("--cert")) {
      o->cert = value;
    } else if (server && IS("--key")) {
      o->key = value;
    } else if (!server && IS("--ca")) {
      o->ca = value;
    } else {
      baseline_die(2, "unknown flag '%.*s'", (int)name_len, arg);
    }
#undef IS
  }
  if (!o->address)
    baseline_die(2, "missing %s", server ? "--listen" : "--connect");
  if (!o->tls && (o->cert || o->key || o->ca))
    baseline_die(2, "--cert, --key and --ca go with --transport tls");
  if (o->tls && (server ? !o->cert || !o->key : !o->ca))
    baseline_die(2, "--transport tls needs %s",
                 server ? "--cert and --key" : "--ca");
  if (server)
    return;
  if (!o->have_warmup || !o->have_round_trips || !o->have_payload ||
      !o->have_in_flight)
    baseline_die(2, "missing one of --warmup, --round-trips, --payload-bytes, "
                    "--max-in-flight");
  if (o->payload_bytes > PROTO_MAX_PAYLOAD_BYTES)
    baseline_die(2, "bad number for --payload-bytes: %" PRIu64 " (at most %u)",
                 o->payload_bytes, PROTO_MAX_PAYLOAD_BYTES);
  if (o->max_in_flight < 1 || o->max_in_flight > PROTO_MAX_IN_FLIGHT)
    baseline_die(2, "bad number for --max-in-flight: %" PRIu64 " (1 to %u)",
                 o->max_in_flight, PROTO_MAX_IN_FLIGHT);
  if (o->round_trips < 1)
    baseline_die(2, "bad number for --round-trips: 0 (at least 1)");
}

/* Resolves "host:port" (numeric only; "[v6]:port" too). */
struct addrinfo *baseline_resolve(const char *address, int passive)
{
  char host[256];
  const char *colon = strrchr(address, ':');
  const char *start = address;
  size_t len;
  struct addrinfo hints, *res = NULL;
  int rc;

  if (!colon || !colon[1])
    baseline_die(2, "bad address '%s' (expected host:port)", address);
  len = (size_t)(colon - address);
  if (len >= 2 && address[0] == '[' && address[len - 1] == ']') {
    start++;
    len -= 2;
  }
  if (len == 0 || len >= sizeof(host))
    baseline_die(2, "bad address '%s' (expected host:port)", address);
  memcpy(host, start, len);
  host[len] = '\0';
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  rc = getaddrinfo(host, colon + 1, &hints, &res);
  if (rc)
    baseline_die(2, "bad address '%s': %s", address, gai_strerror(rc));
  return res;
}

void baseline_set_nodelay(int fd)
{
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
    baseline_die(1, "setsockopt TCP_NODELAY: %s", strerror(errno));
}

void baseline_send_all(int fd, const uint8_t *p, size_t len)
{
  while (len) {
    ssize_t n = send(fd, p, len, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      baseline_die(1, "send: %s", strerror(errno));
    }
    p += n;
    len -= (size_t)n;
  }
}

/* Says why a frame that is not the expected one was refused: an ERROR
 * from the peer, a bad header, or a frame of the wrong type. */
void baseline_die_frame(const uint8_t *buf, size_t len, const char *expected)
{
  struct proto_header h;
  long size = proto_frame_peek(buf, len, &h);
  uint16_t code = 0;
  char reason[PROTO_MAX_REASON_BYTES + 1] = "";

  if (size < 0)
    baseline_die(1, "%s: header %02x %02x flags %u length %" PRIu32,
                 proto_error_name((int)size), buf[0], buf[1], (unsigned)h.flags,
                 h.payload_length);
  if (size > 0 && h.type == PROTO_ERROR &&
      !proto_error_decode(buf + PROTO_HEADER_BYTES, h.payload_length, &code,
                          reason, sizeof(reason)))
    baseline_die(1, "peer_error: code %u: %s", (unsigned)code, reason);
  baseline_die(1, "unexpected_type: frame type %u where %s was expected",
               (unsigned)buf[1], expected);
}

int main(int argc, char **argv)
{
  struct baseline_options o;

  /* A peer that vanishes must give EPIPE, not kill us silently. */
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 2 && !strcmp(argv[1], "server")) {
    role = "baseline server";
    parse_options(argc, argv, 1, &o);
    return baseline_run_server(&o);
  }
  if (argc >= 2 && !strcmp(argv[1], "client")) {
    role = "baseline client";
    parse_options(argc, argv, 0, &o);
    return baseline_run_client(&o);
  }
  baseline_die(
      2, "usage: baseline server --listen HOST:PORT | baseline client "
         "--connect HOST:PORT --warmup N --round-trips N --payload-bytes N "
         "--max-in-flight N");
  return 2;
}
