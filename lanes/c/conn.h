/* One framed TCP connection of the C lane on libuv: a bounded read buffer
 * that frames arriving bytes (split or batched at any byte), one write
 * buffer that the role fills and sends with one write per read batch, and
 * the rejection path of SPEC.md section 6 (one stderr line, an ERROR frame
 * when the connection is still writable, close).
 *
 * The role (client or server) embeds struct conn as its first member and
 * supplies struct conn_ops. Every callback runs on the loop's thread. */
#ifndef CROSSRUN_LANES_C_CONN_H
#define CROSSRUN_LANES_C_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "protocol/codec.h"

/* The size of each buffer unless a larger frame needs more. */
#define CONN_BUFFER_BYTES (256u * 1024u)

struct conn;

struct conn_ops {
  /* A frame's 16 header bytes have arrived and passed the codec's checks,
   * and it is not an ERROR frame (conn rejects those as peer_error from
   * the header on): decides, before the payload arrives, whether this
   * type, sequence and length are allowed here. Must not change the
   * session's state: it runs again for the same frame when the payload
   * comes in a later read. Returns 0, or a negative proto_error with
   * conn_why() called. The length it accepts must fit conn_reserve()'s
   * size. */
  int (*header)(struct conn *c, const struct proto_header *h);
  /* A whole frame whose header passed header(); payload is valid only
   * during the call. Returns 0, or a negative proto_error with conn_why()
   * called. */
  int (*frame)(struct conn *c, const struct proto_header *h,
               const uint8_t *payload);
  /* Every complete frame of one read was handled: time to write. */
  void (*batch)(struct conn *c);
  /* A write that had to wait completed; the write buffer is empty. May
   * be NULL. */
  void (*writable)(struct conn *c);
  /* The peer ended the stream between two frames: returns 0 when the
   * session allows it here (the connection is then closed), or
   * PROTO_E_UNEXPECTED_EOF with conn_why() called. */
  int (*eof)(struct conn *c);
  /* The connection carries frames from now on: at once in conn_start()
   * over tcp, once the handshake completed over tls. May be NULL. */
  void (*ready)(struct conn *c);
};

struct tls;

struct conn {
  uv_tcp_t tcp;
  const struct conn_ops *ops;
  /* NULL over tcp; set by tls_attach() (lanes/c/tls.h), freed by
   * conn_release(). */
  struct tls *tls;
  /* "client" or "server": the first word of every stderr line. */
  const char *prog;

  uint8_t *rbuf; /* rlen bytes of unparsed input, capacity rcap */
  size_t rlen, rcap;

  /* The role appends whole frames at wbuf + wlen (wcap - wlen bytes of
   * room) while `writing` is 0, then calls conn_flush(). */
  uint8_t *wbuf;
  size_t wlen, wcap;
  int writing;
  uv_write_t wreq;

  /* Stop reading while a write waits (the server: its answers to the
   * next read could not be buffered), or keep reading (the client, which
   * must drain responses for the server's write to complete). */
  int pause_reads_while_writing;

  int started;    /* reading was started */
  int stopped;    /* conn_close() or conn_fail() was called */
  int write_dead; /* a write failed: the peer is gone; keep reading */
  int write_error;
  int exit_code; /* 0 until a failure */
  char why[256];
};

/* Initialises c's TCP handle on loop and allocates both buffers
 * (CONN_BUFFER_BYTES each). Returns 0 or a negative libuv error. The
 * buffers belong to c until conn_release(). */
int conn_setup(struct conn *c, uv_loop_t *loop, const struct conn_ops *ops,
               const char *prog);

/* Frees the buffers; call after the loop has ended (the handle closed). */
void conn_release(struct conn *c);

/* Grows both buffers so that one frame of frame_bytes fits, keeping their
 * contents. Not while a write waits. Returns 0 or UV_ENOMEM. */
int conn_reserve(struct conn *c, size_t frame_bytes);

/* Sets TCP_NODELAY and starts reading (over tls: the handshake). Returns
 * 0 or a libuv error. */
int conn_start(struct conn *c);

/* Sends wbuf[0..wlen): one uv_try_write, and when the kernel takes only
 * part, one uv_write of the rest (writing = 1 until it completes and
 * ops->writable runs). Returns 1 when the buffer is free again at once,
 * 0 when a write waits or the connection has stopped. After a write
 * failure the bytes are dropped and reading goes on, so that what the
 * peer sent before it went away (an ERROR frame, an end of stream) is
 * what gets reported. */
int conn_flush(struct conn *c);

/* Writes the reason of a rejection (printf format) for conn_fail(). */
void conn_why(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Rejects the session with err (a proto_error): prints "<prog>: <name>:
 * <why>" on stderr, tries to send an ERROR frame with the matching code
 * when the connection is still writable, closes it and sets exit_code to
 * 1. Does nothing when already stopped. */
void conn_fail(struct conn *c, int err);

/* A failure that is not a rejection (connect, read, write): prints
 * "<prog>: <what>: <libuv error>" and closes with exit_code 1. */
void conn_fail_io(struct conn *c, const char *what, int uv_err);

/* Ends the session: stops reading and closes the handle (over tls a
 * client that ended cleanly sends close_notify first). */
void conn_close(struct conn *c);

/* For the transport under conn (lanes/c/tls.c). */

/* Frames every complete frame of rbuf[0..rlen), calls ops->batch once
 * after them, and keeps the partial frame that is left. */
void conn_process(struct conn *c);

/* The stream ended between reads: cleanly (failure NULL) or with the
 * reason failure; reports truncated or asks ops->eof, as a read of end of
 * stream does. */
void conn_end(struct conn *c, const char *failure);

/* A write that had to wait completed with status (a libuv status). */
void conn_wrote(struct conn *c, int status);

#endif
