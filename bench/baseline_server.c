/* The baseline's server: answers each request in place in its receive
 * buffer and writes that buffer back (see bench/baseline.c). */
#include "bench/baseline.h"

#include "protocol/codec.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Writes an ERROR frame (best effort over tcp; over tls blocking, as a
 * TLS record cannot be cut short) and exits with the rejection. */
static void fail_with_error(struct baseline_conn *c, int err, const char *what)
{
  uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
  char reason[PROTO_MAX_REASON_BYTES + 1];
  size_t n;

  snprintf(reason, sizeof(reason), "%s: %s", proto_error_name(err), what);
  n = proto_error_encode(frame, proto_error_code_for(err), reason);
  if (c->ssl != NULL)
    baseline_conn_send_all(c, frame, n);
  else
    (void)!send(c->fd, frame, n, MSG_DONTWAIT);
  baseline_die(1, "%s", reason);
}

int baseline_run_server(const struct baseline_options *o)
{
  struct addrinfo *ai = baseline_resolve(o->address, 1);
  struct sockaddr_storage bound;
  socklen_t bound_len = sizeof(bound);
  size_t cap = PROTO_MAX_FRAME_BYTES + RECV_SLACK_BYTES;
  uint8_t *buf = baseline_xmalloc(cap);
  size_t start = 0, fill = 0;
  struct proto_workload w = {0};
  struct proto_counts own = {0};
  int lfd, one = 1, port;
  struct baseline_conn conn = {-1, NULL, 0}, *c = &conn;
  enum { WANT_HELLO, WANT_REQUEST, DONE } phase = WANT_HELLO;

  lfd = socket(ai->ai_family, SOCK_STREAM, 0);
  if (lfd < 0)
    baseline_die(1, "socket: %s", strerror(errno));
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(lfd, ai->ai_addr, ai->ai_addrlen))
    baseline_die(1, "bind '%s': %s", o->address, strerror(errno));
  if (listen(lfd, 1))
    baseline_die(1, "listen: %s", strerror(errno));
  if (getsockname(lfd, (struct sockaddr *)&bound, &bound_len))
    baseline_die(1, "getsockname: %s", strerror(errno));
  port = bound.ss_family == AF_INET6
             ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
             : ntohs(((struct sockaddr_in *)&bound)->sin_port);
  freeaddrinfo(ai);
  printf("READY %d\n", port);
  fflush(stdout);

  do
    conn.fd = accept(lfd, NULL, NULL);
  while (conn.fd < 0 && errno == EINTR);
  if (conn.fd < 0)
    baseline_die(1, "accept: %s", strerror(errno));
  close(lfd);
  baseline_set_nodelay(conn.fd);
  if (o->tls)
    baseline_tls_accept(c, o);

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
    n = baseline_conn_recv(c, buf + fill, cap - fill, 0);
    if (n == 0) {
      if (start != fill)
        baseline_die(1, "truncated: end of stream inside a frame");
      if (phase != DONE)
        baseline_die(1, "unexpected_eof: end of stream before BYE");
      /* The client's close_notify is not answered: it has closed. */
      baseline_conn_close(c, 0);
      free(buf);
      return 0;
    }
    if (phase == DONE)
      fail_with_error(c, PROTO_E_UNEXPECTED_TYPE, "bytes after BYE");
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
        fail_with_error(c, (int)size, "bad header");
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
          fail_with_error(c, PROTO_E_BAD_WORKLOAD, "workload out of range");
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
          fail_with_error(c, PROTO_E_COUNT_MISMATCH,
                          "BYE counts differ from the server's");
        own.bytes_received += (uint64_t)size;
        frame[1] = PROTO_BYE_ACK;
        proto_counts_encode(payload, &own);
        phase = DONE;
      } else if (h.type == PROTO_ERROR) {
        baseline_die_frame(frame, fill - pos, "a client frame");
      } else {
        fail_with_error(c, PROTO_E_UNEXPECTED_TYPE, "frame out of order");
      }
      if (phase == DONE && pos + (size_t)size != fill)
        fail_with_error(c, PROTO_E_UNEXPECTED_TYPE, "bytes after BYE");
    }
    if (pos > start) {
      baseline_conn_send_all(c, buf + start, pos - start);
      start = pos;
    }
  }
}
