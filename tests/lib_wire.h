/* The test's own end of a connection to a lane's peer, over tcp or tls, so
 * that one test plays a session byte for byte over either transport.
 * Plain: the socket of tests/lib_sockets.h. Over tls: OpenSSL on that
 * blocking socket (its deadlines included), TLS 1.3 with ALPN crossrun/1
 * unless a test asks for another, trusting one CA file (client) or
 * presenting a certificate and key (server). */
#ifndef CROSSRUN_TESTS_LIB_WIRE_H
#define CROSSRUN_TESTS_LIB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "tests/lib_peers.h"

struct ssl_ctx_st;
struct ssl_st;

struct wire {
  int fd;             /* -1 when not connected */
  struct ssl_st *ssl; /* NULL over tcp */
  /* Over tls: application-data records received so far. */
  unsigned long records_in;
  /* Why the test's handshake failed, for a diagnostic. */
  char why[128];
};

/* The settings of the test's side over tls, or NULL (tcp). */
struct wire_tls {
  struct ssl_ctx_st *ctx;
};

/* A client side trusting ca_file, offering alpn (a wire-form list, e.g.
 * "\x0a" "crossrun/1"; NULL: no ALPN at all). Returns 0, or -1 with a
 * diagnostic printed. */
int wire_tls_client(struct wire_tls *t, const char *ca_file, const char *alpn,
                    size_t alpn_len);

/* A server side presenting cert_file and key_file; select_alpn 1 selects
 * crossrun/1 when offered (and fails the handshake otherwise), 0 selects
 * nothing. Returns 0, or -1 with a diagnostic printed. */
int wire_tls_server(struct wire_tls *t, const char *cert_file,
                    const char *key_file, int select_alpn);

void wire_tls_release(struct wire_tls *t);

/* Connects to 127.0.0.1:port, over tls when t is not NULL (handshake
 * done). Returns 0, or -1 (w->why set when the handshake failed; call
 * wire_close() all the same). */
int wire_connect(struct wire *w, int port, const struct wire_tls *t);

/* Accepts the client's connection on lfd (sockets_accept_from), over tls
 * when t is not NULL. Returns 0 or -1. */
int wire_accept(struct wire *w, int lfd, struct peers_proc *client,
                const struct wire_tls *t);

/* sockets_send_bytes over w: over tls one record per call, or one record
 * per byte when bytewise. */
int wire_send(struct wire *w, const uint8_t *p, size_t n, int bytewise);

/* sockets_read_exact over w. */
int wire_read_exact(struct wire *w, uint8_t *buf, size_t n);

/* The end of the test's stream: over tls close_notify, then (both) the
 * TCP write side shut down. */
void wire_end(struct wire *w);

/* 1 when the peer ended its stream cleanly before sending more: over tls
 * a close_notify, over tcp the end of stream. */
int wire_peer_ended(struct wire *w);

/* Reads until the peer closes, fails or goes quiet past the deadline. */
void wire_drain(struct wire *w);

/* Closes w (over tls after close_notify, when none was sent yet). */
void wire_close(struct wire *w);

#endif
