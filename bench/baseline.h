/* What the raw loopback baseline's two roles share: the options, the
 * errors, the socket helpers and the frame checks (bench/baseline.c), and
 * each role's session (bench/baseline_server.c, bench/baseline_client.c). */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <netdb.h>
#include <stddef.h>
#include <stdint.h>

/* Receive buffers hold this much beyond one maximum frame, so one read can
 * deliver thousands of small frames. */
#define RECV_SLACK_BYTES (4u * 1024 * 1024)

struct baseline_options {
  const char *address;
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

/* Each role's whole session, from the listen or connect to the close;
 * they return 0 or exit with the error. */
int baseline_run_server(const struct baseline_options *o);
int baseline_run_client(const struct baseline_options *o);

#endif
