/* TLS 1.3 for the C lane's connection (protocol/SPEC.md "Transports",
 * lanes/README.md): OpenSSL over libuv through two memory BIOs, so that
 * the lane keeps its batching. One socket read of ciphertext is decrypted
 * into the connection's read buffer as a whole before its frames are
 * parsed, and the answers to them go out as one SSL_write and one write of
 * the ciphertext (records of up to 16 KiB, never one per frame).
 *
 * The contract: TLS 1.3 only, ALPN exactly "crossrun/1" on both sides, the
 * client trusts --ca alone and checks the server's IP SAN against the
 * address it connects to, sends no SNI, completes the handshake before
 * HELLO and sends close_notify at the end; the server sends no session
 * tickets. A handshake failure is one stderr line "<prog>: tls_handshake:
 * <reason>" and exit 1; a TLS failure after it is the rejection the stream
 * state gives (truncated or unexpected_eof) with the TLS reason.
 *
 * struct conn calls the tls_conn_* hooks when its tls member is set; the
 * roles call the rest. */
#ifndef CROSSRUN_LANES_C_TLS_H
#define CROSSRUN_LANES_C_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <uv.h>

#include "lanes/c/conn.h"
#include "lanes/c/lane.h"

#define TLS_ALPN "crossrun/1"

/* The transport flags of a command line: --transport tcp|tls, and with tls
 * the server's --cert FILE --key FILE or the client's --ca FILE. */
struct tls_args {
  int on; /* --transport tls */
  const char *cert, *key, *ca;
};

/* One process's TLS settings and, once a handshake completed, what the
 * result line reports about it. */
struct tls_context;

/* Per-connection state, owned by struct conn (freed by conn_release). */
struct tls;

/* Takes the transport flags of role out of argv (as "--flag value" or
 * "--flag=value"), leaving the other arguments in order for
 * lane_args_parse() and *argc and argv[*argc] = NULL updated; every other
 * flag of the lane takes a value, which stays with it. Returns 0, or -1
 * with a one-line message in err (exit 2): an unknown transport, a flag
 * given twice or without its value, tls without its files, or a file flag
 * without --transport tls. */
int tls_args_take(struct tls_args *args, enum lane_role role, int *argc,
                  char **argv, char *err, size_t err_size);

/* The context for args (NULL when args->on is 0, with nothing in err):
 * TLS 1.3 only, ALPN, and the server's certificate and key or the client's
 * CA and the IP address its server's certificate must name (addr's host).
 * Returns NULL with a one-line message in err when a file cannot be read
 * or is not what its flag says (exit 2), or OpenSSL fails. The caller
 * frees it with tls_context_free() after the result line. */
struct tls_context *tls_context_new(const struct tls_args *args,
                                    enum lane_role role,
                                    const struct sockaddr_storage *addr,
                                    char *err, size_t err_size);

void tls_context_free(struct tls_context *ctx);

/* Puts c (just set up by conn_setup(), not started) over TLS with ctx:
 * c->tls then belongs to c. Nothing when ctx is NULL. Returns 0 or
 * UV_ENOMEM. */
int tls_attach(struct conn *c, struct tls_context *ctx);

/* Frees c's TLS state (NULL: nothing). */
void tls_free(struct tls *t);

/* Prints ",\"transport\":\"tls\",\"tls\":{...}" for the handshake ctx saw
 * (version, IANA cipher name, ALPN, and on the client handshake_ns), or
 * nothing when ctx is NULL or saw no handshake complete. Returns 0, or -1
 * when out failed. */
int tls_print(FILE *out, const struct tls_context *ctx);

/* ---- hooks of struct conn ---- */

/* Reading has started: the client begins the handshake (its clock starts
 * here); the server waits for the ClientHello. ops->ready runs once the
 * handshake completed. */
void tls_conn_start(struct conn *c);

/* The buffer for the next read of ciphertext. */
void tls_conn_alloc(struct conn *c, uv_buf_t *buf);

/* A read of ciphertext, an end of stream or a read error: decrypts into
 * c's read buffer and lets conn_process() frame it, as far as the buffer
 * and (on the server) a waiting write allow; the rest waits in the TLS
 * state until the write completes. */
void tls_conn_read(struct conn *c, ssize_t nread, const uv_buf_t *buf);

/* conn_flush() over TLS: one SSL_write of wbuf[0..wlen) (emptied), then
 * its ciphertext as conn_flush() sends bytes. Same return value. */
int tls_conn_flush(struct conn *c);

/* Encrypts and tries once to send the n bytes at p (an ERROR frame);
 * nothing when the handshake has not completed or a write waits. */
void tls_conn_send_now(struct conn *c, const uint8_t *p, size_t n);

/* conn_close() is closing c: a client whose session ended cleanly
 * (exit_code 0) sends close_notify first (tried once). Returns 1 when c
 * stays open for now: a server that ended cleanly on close_notify keeps
 * reading until the end of stream that follows, then closes. */
int tls_conn_close(struct conn *c);

#endif
