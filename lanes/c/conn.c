#include "lanes/c/conn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes/c/tls.h"

static void conn_on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf);
static void conn_on_read(uv_stream_t *stream, ssize_t nread,
                         const uv_buf_t *buf);
static void conn_on_write(uv_write_t *req, int status);

int conn_setup(struct conn *c, uv_loop_t *loop, const struct conn_ops *ops,
               const char *prog)
{
  int err;

  memset(c, 0, sizeof *c);
  c->ops = ops;
  c->prog = prog;
  c->rbuf = malloc(CONN_BUFFER_BYTES);
  c->wbuf = malloc(CONN_BUFFER_BYTES);
  if (c->rbuf == NULL || c->wbuf == NULL) {
    conn_release(c);
    return UV_ENOMEM;
  }
  c->rcap = CONN_BUFFER_BYTES;
  c->wcap = CONN_BUFFER_BYTES;
  err = uv_tcp_init(loop, &c->tcp);
  if (err) {
    conn_release(c);
    return err;
  }
  c->tcp.data = c;
  c->wreq.data = c;
  return 0;
}

void conn_release(struct conn *c)
{
  tls_free(c->tls);
  c->tls = NULL;
  free(c->rbuf);
  free(c->wbuf);
  c->rbuf = c->wbuf = NULL;
  c->rcap = c->wcap = c->rlen = c->wlen = 0;
}

static int conn_grow(uint8_t **buf, size_t *cap, size_t want)
{
  uint8_t *p;
  if (*cap >= want)
    return 0;
  p = realloc(*buf, want);
  if (p == NULL)
    return UV_ENOMEM;
  *buf = p;
  *cap = want;
  return 0;
}

int conn_reserve(struct conn *c, size_t frame_bytes)
{
  /* The read buffer holds at least one whole frame, so that a frame that
   * passed its header check always completes; sized to the frame (not
   * more) so that reads of large frames end on frame boundaries and the
   * partial frame left to move down stays small. */
  int err = conn_grow(&c->rbuf, &c->rcap, frame_bytes);
  if (err == 0)
    err = conn_grow(&c->wbuf, &c->wcap, frame_bytes);
  return err;
}

int conn_start(struct conn *c)
{
  int err = uv_tcp_nodelay(&c->tcp, 1);
  if (err == 0)
    err = uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read);
  if (err)
    return err;
  c->started = 1;
  if (c->tls != NULL)
    tls_conn_start(c);
  else if (c->ops->ready)
    c->ops->ready(c);
  return 0;
}

void conn_why(struct conn *c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, sizeof c->why, fmt, ap);
  va_end(ap);
}

void conn_close(struct conn *c)
{
  if (c->stopped)
    return;
  c->stopped = 1;
  if (c->tls != NULL && tls_conn_close(c))
    return;
  if (c->started)
    uv_read_stop((uv_stream_t *)&c->tcp);
  if (!uv_is_closing((uv_handle_t *)&c->tcp))
    uv_close((uv_handle_t *)&c->tcp, NULL);
}

static void conn_send_error(struct conn *c, int err)
{
  uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
  char reason[PROTO_MAX_REASON_BYTES + 1];
  size_t n;
  uv_buf_t b;

  /* Only when nothing else waits to be written: a frame must not land in
   * the middle of another, and a rejection never waits for a peer that
   * does not read. */
  if (!c->started || c->writing || c->write_dead)
    return;
  snprintf(reason, sizeof reason, "%s: %s", proto_error_name(err), c->why);
  n = proto_error_encode(frame, proto_error_code_for(err), reason);
  if (c->tls != NULL) {
    tls_conn_send_now(c, frame, n);
    return;
  }
  b = uv_buf_init((char *)frame, (unsigned)n);
  (void)uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
}

void conn_fail(struct conn *c, int err)
{
  if (c->stopped)
    return;
  fprintf(stderr, "%s: %s: %s\n", c->prog, proto_error_name(err), c->why);
  fflush(stderr);
  c->exit_code = 1;
  c->wlen = 0; /* answers to frames before the rejected one are dropped */
  if (err != PROTO_E_PEER_ERROR)
    conn_send_error(c, err);
  conn_close(c);
}

void conn_fail_io(struct conn *c, const char *what, int uv_err)
{
  if (c->stopped)
    return;
  fprintf(stderr, "%s: %s: %s\n", c->prog, what, uv_strerror(uv_err));
  fflush(stderr);
  c->exit_code = 1;
  conn_close(c);
}

static void conn_write_failed(struct conn *c, int uv_err)
{
  c->write_dead = 1;
  c->write_error = uv_err;
  c->writing = 0;
  c->wlen = 0;
  if (c->pause_reads_while_writing && c->started && !c->stopped)
    uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read);
}

int conn_flush(struct conn *c)
{
  uv_buf_t b;
  int n, err;

  if (c->stopped || c->write_dead) {
    c->wlen = 0;
    return 0;
  }
  if (c->writing)
    return 0;
  if (c->wlen == 0)
    return 1;
  if (c->tls != NULL)
    return tls_conn_flush(c);
  b = uv_buf_init((char *)c->wbuf, (unsigned)c->wlen);
  n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
  if (n >= 0 && (size_t)n == c->wlen) {
    c->wlen = 0;
    return 1;
  }
  if (n < 0 && n != UV_EAGAIN && n != UV_ENOSYS) {
    conn_write_failed(c, n);
    return 0;
  }
  if (n < 0)
    n = 0;
  b = uv_buf_init((char *)c->wbuf + n, (unsigned)(c->wlen - (size_t)n));
  err = uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, conn_on_write);
  if (err) {
    conn_write_failed(c, err);
    return 0;
  }
  c->writing = 1;
  if (c->pause_reads_while_writing)
    uv_read_stop((uv_stream_t *)&c->tcp);
  return 0;
}

static void conn_on_write(uv_write_t *req, int status)
{
  conn_wrote(req->data, status);
}

void conn_wrote(struct conn *c, int status)
{
  if (status == UV_ECANCELED || c->stopped)
    return;
  if (status < 0) {
    conn_write_failed(c, status);
    return;
  }
  c->writing = 0;
  c->wlen = 0;
  if (c->pause_reads_while_writing)
    uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read);
  if (c->ops->writable)
    c->ops->writable(c);
}

static void conn_on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
  struct conn *c = handle->data;
  if (c->tls != NULL) {
    tls_conn_alloc(c, buf);
    return;
  }
  *buf = uv_buf_init((char *)c->rbuf + c->rlen, (unsigned)(c->rcap - c->rlen));
}

/* A header the codec rejected: its raw fields, for the stderr line. */
static void conn_why_header(struct conn *c, const uint8_t *p)
{
  unsigned long length = ((unsigned long)p[4] << 24) |
                         ((unsigned long)p[5] << 16) |
                         ((unsigned long)p[6] << 8) | (unsigned long)p[7];
  conn_why(c, "frame header version %u, type %u, flags %u, length %lu", p[0],
           p[1], (unsigned)((p[2] << 8) | p[3]), length);
}

/* The length of the valid UTF-8 sequence at p (n bytes available), or 0
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
static size_t conn_utf8_length(const uint8_t *p, size_t n)
{
  uint8_t lo = 0x80, hi = 0xbf;
  size_t len, i;

  if (p[0] < 0x80)
    return 1;
  if (p[0] >= 0xc2 && p[0] <= 0xdf)
    len = 2;
  else if (p[0] >= 0xe0 && p[0] <= 0xef)
    len = 3;
  else if (p[0] >= 0xf0 && p[0] <= 0xf4)
    len = 4;
  else
    return 0;
  if (p[0] == 0xe0)
    lo = 0xa0;
  else if (p[0] == 0xed)
    hi = 0x9f;
  else if (p[0] == 0xf0)
    lo = 0x90;
  else if (p[0] == 0xf4)
    hi = 0x8f;
  if (n < len || p[1] < lo || p[1] > hi)
    return 0;
  for (i = 2; i < len; i++)
    if (p[i] < 0x80 || p[i] > 0xbf)
      return 0;
  return len;
}

/* A peer's reason made safe for the one stderr line (SPEC.md section 6):
 * valid UTF-8 without control characters, each C0 control and DEL as
 * \xHH and each invalid byte as U+FFFD, cut with "..." at a character
 * boundary to fit out_size. */
static void conn_reason_text(const uint8_t *p, size_t n, char *out,
                             size_t out_size)
{
  size_t used = 0, i = 0;

  while (i < n) {
    char piece[8];
    size_t len = conn_utf8_length(p + i, n - i), plen;
    if (len == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
      snprintf(piece, sizeof piece, "\\x%02x", p[i]);
      plen = 4;
    } else if (len == 0) {
      memcpy(piece, "\xef\xbf\xbd", 3);
      plen = 3;
      len = 1;
    } else {
      memcpy(piece, p + i, len);
      plen = len;
    }
    if (used + plen + 4 > out_size) {
      memcpy(out + used, "...", 3);
      used += 3;
      break;
    }
    memcpy(out + used, piece, plen);
    used += plen;
    i += len;
  }
  out[used] = '\0';
}

/* An ERROR frame is peer_error from its header on (SPEC.md section 3):
 * the code and as much of the reason as has arrived (avail bytes of the
 * frame at p). */
static void conn_why_peer_error(struct conn *c, const uint8_t *p, size_t avail,
                                const struct proto_header *h)
{
  const char *peer = strcmp(c->prog, "client") == 0 ? "server" : "client";
  size_t have = avail - PROTO_HEADER_BYTES;
  uint16_t code;
  /* Room for the rest of the line within why[]. */
  char reason[sizeof c->why - 96];

  if (have > h->payload_length)
    have = h->payload_length;
  if (have < 2) {
    conn_why(c, "the %s sent an ERROR frame (its code did not arrive)", peer);
    return;
  }
  code = (uint16_t)((p[PROTO_HEADER_BYTES] << 8) | p[PROTO_HEADER_BYTES + 1]);
  conn_reason_text(p + PROTO_HEADER_BYTES + 2, have - 2, reason, sizeof reason);
  conn_why(c, "the %s sent ERROR code %u: %s%s", peer, code, reason,
           have < h->payload_length ? " (the rest did not arrive)" : "");
}

/* Frames every complete frame in the read buffer, then hands the batch to
 * the role so that it answers all of them with one write. Every check
 * but the payload's is made as soon as a frame's header is in. */
void conn_process(struct conn *c)
{
  size_t off = 0;

  while (!c->stopped) {
    /* Re-read rbuf each time: ops->frame may grow (move) it. */
    const uint8_t *p = c->rbuf + off;
    size_t avail = c->rlen - off;
    struct proto_header h;
    long n = proto_frame_peek(p, avail, &h);
    int err;

    if (n < 0) {
      conn_why_header(c, p);
      conn_fail(c, (int)n);
      return;
    }
    if (avail < PROTO_HEADER_BYTES)
      break;
    if (h.type == PROTO_ERROR) {
      conn_why_peer_error(c, p, avail, &h);
      conn_fail(c, PROTO_E_PEER_ERROR);
      return;
    }
    err = c->ops->header(c, &h);
    if (err) {
      conn_fail(c, err);
      return;
    }
    if (n == 0) {
      if (PROTO_HEADER_BYTES + (size_t)h.payload_length > c->rcap) {
        conn_why(c, "a frame of %zu bytes does not fit the %zu-byte buffer",
                 PROTO_HEADER_BYTES + (size_t)h.payload_length, c->rcap);
        conn_fail(c, PROTO_E_BAD_LENGTH);
        return;
      }
      break;
    }
    err = c->ops->frame(c, &h, p + PROTO_HEADER_BYTES);
    if (err) {
      conn_fail(c, err);
      return;
    }
    off += (size_t)n;
  }
  if (c->stopped)
    return;
  if (off > 0) {
    c->rlen -= off;
    if (c->rlen > 0)
      memmove(c->rbuf, c->rbuf + off, c->rlen);
    c->ops->batch(c);
  }
}

static void conn_on_read(uv_stream_t *stream, ssize_t nread,
                         const uv_buf_t *buf)
{
  struct conn *c = stream->data;

  if (c->tls != NULL) {
    tls_conn_read(c, nread, buf);
    return;
  }
  if (nread > 0) {
    c->rlen += (size_t)nread;
    conn_process(c);
    return;
  }
  if (nread == 0 || c->stopped)
    return;
  conn_end(c, nread == UV_EOF ? NULL : uv_strerror((int)nread));
}

void conn_end(struct conn *c, const char *failure)
{
  int err;

  if (c->stopped)
    return;
  err = proto_eof_check(c->rlen);
  if (err) {
    conn_why(c, "end of stream after %zu bytes of a frame", c->rlen);
  } else {
    err = c->ops->eof(c);
    if (err == 0 && failure != NULL) {
      conn_why(c, "the connection failed instead of ending");
      err = PROTO_E_UNEXPECTED_EOF;
    }
  }
  if (err == 0) {
    conn_close(c);
    return;
  }
  /* Say why the stream ended when it was not a plain end of stream, and
   * whether an earlier write had failed. */
  if (failure != NULL || c->write_dead) {
    size_t len = strlen(c->why);
    snprintf(c->why + len, sizeof c->why - len, " (%s%s%s)",
             failure != NULL ? failure : "",
             failure != NULL && c->write_dead ? "; " : "",
             c->write_dead ? "an earlier write failed" : "");
  }
  if (failure != NULL)
    c->write_dead = 1; /* no ERROR frame on a failed connection */
  conn_fail(c, err);
}
