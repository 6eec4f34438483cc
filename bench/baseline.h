/* What the raw loopback baseline's two roles share: the options, the
 * errors, the socket helpers and the frame checks (bench/baseline.c), and
 * each role's session (bench/baseline_server.c, bench/baseline_client.c). */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Receive buffers hold this much beyond one maximum frame, so one read can
 * deliver thousands of small frames. */
#define RECV_SLACK_BYTES (4u * 1024 * 1024)

struct baseline_options {
  const char *address;
  int tls; /* --transport tls */
  const char *cert, *key, *ca;
  uint64_t warmup;
  uint64_t round_trips;
  uint64_t payload_bytes;
  uint64_t max_in_flight;
  int have_warmup, have_round_trips, have_payload, have_in_flight;
};

/* Prints "<role>: <message>" on stderr and exits with `status`. */
void baseline_die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* malloc that exits on failure; never returns NULL, even for 0 bytes. */
void *baseline_xmalloc(size_t n);
/* Resolves "host:port" (numeric only; "[v6]:port" too); exits on a bad
 * address. The caller frees the result with freeaddrinfo. */
struct addrinfo *baseline_resolve(const char *address, int passive);
/* Sets TCP_NODELAY on `fd`; exits on failure. */
void baseline_set_nodelay(int fd);
/* Sends all `len` bytes, blocking; exits on failure. */
void baseline_send_all(int fd, const uint8_t *p, size_t len);
/* Exits saying why a frame that is not the expected one was refused: an
 * ERROR from the peer, a bad header, or a frame of the wrong type. */
void baseline_die_frame(const uint8_t *buf, size_t len, const char *expected)
    __attribute__((noreturn));

/* One connection (bench/baseline_tls.c): over tcp the socket alone, over
 * tls an OpenSSL session on it. */
struct baseline_conn {
  int fd;
  void *ssl;             /* SSL *, NULL over tcp */
  uint64_t handshake_ns; /* the client's, over tls */
};

/* The TLS handshake on c->fd as the server (--cert, --key) or the client
 * (--ca, the address's IP checked; then the socket is non-blocking).
 * Exits with "tls_handshake: <OpenSSL's reason>" when it fails. */
void baseline_tls_accept(struct baseline_conn *c,
                         const struct baseline_options *o);
void baseline_tls_connect(struct baseline_conn *c,
                          const struct baseline_options *o);
/* Over tls: what one SSL_write takes of p, 0 when it would block. */
size_t baseline_conn_send_some(struct baseline_conn *c, const uint8_t *p,
                               size_t len);
/* Sends all of p, blocking. */
void baseline_conn_send_all(struct baseline_conn *c, const uint8_t *p,
                            size_t len);
/* Up to len bytes: their count, 0 at the end of stream (over tls also
 * close_notify), -1 when nonblock and nothing is there. Exits on errors. */
ssize_t baseline_conn_recv(struct baseline_conn *c, uint8_t *p, size_t len,
                           int nonblock);
/* Whether OpenSSL holds bytes already read from the socket. */
int baseline_conn_pending(const struct baseline_conn *c);
/* Sends close_notify when notify (over tls) and closes the socket. */
void baseline_conn_close(struct baseline_conn *c, int notify);
/* Over tls: ,"transport":"tls","tls":{...} for the result line. */
void baseline_tls_print(const struct baseline_conn *c, int client);

/* Each role's whole session, from the listen or connect to the close;
 * they return 0 or exit with the error. */
int baseline_run_server(const struct baseline_options *o);
int baseline_run_client(const struct baseline_options *o);

#endif
