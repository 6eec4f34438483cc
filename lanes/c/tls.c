/* TLS 1.3 under the C lane's connection (lanes/c/tls.h). */
#include "lanes/c/tls.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

/* ALPN's wire form: the length, then the name. */
static const unsigned char tls_alpn_wire[] = "\x0a" TLS_ALPN;
#define TLS_ALPN_WIRE_BYTES (sizeof tls_alpn_wire - 1)

struct tls_context {
  SSL_CTX *ssl_ctx;
  enum lane_role role;
  /* What the result line reports, saved when the handshake completed:
   * the connection's state is gone by the time the line is printed.
   * OpenSSL's version and cipher names are static strings. */
  const char *version, *cipher;
  uint64_t handshake_ns;
};

struct tls {
  struct tls_context *ctx;
  SSL *ssl;
  BIO *rbio; /* ciphertext read from the socket, for OpenSSL */
  BIO *wbio; /* ciphertext OpenSSL wrote, for the socket */
  /* One read of ciphertext, and the ciphertext of the write under way
   * (taken out of wbio, so that OpenSSL may write again meanwhile). */
  uint8_t *in, *out;
  size_t in_cap, out_cap;
  int established;
  int ready_due;   /* established while a write waited: ops->ready after */
  int peer_closed; /* close_notify came */
  int lingering;   /* server: closed cleanly, waiting for the end of stream */
  int no_alpn;     /* server: the ClientHello carried no ALPN */
  uint64_t handshake_start_ns;
};

static int tls_errorf(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int tls_errorf(char *err, size_t err_size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- the command line ---- */

static int tls_flag_is(const char *arg, size_t len, const char *name)
{
  return strlen(name) == len && memcmp(arg, name, len) == 0;
}

int tls_args_take(struct tls_args *args, enum lane_role role, int *argc,
                  char **argv, char *err, size_t err_size)
{
  const char *transport = NULL;
  int i, kept = 1;

  memset(args, 0, sizeof *args);
  for (i = 1; i < *argc; i++) {
    const char *arg = argv[i];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char **slot = NULL;
    const char *value;

    if (tls_flag_is(arg, len, "--transport"))
      slot = &transport;
    else if (role == LANE_SERVER && tls_flag_is(arg, len, "--cert"))
      slot = &args->cert;
    else if (role == LANE_SERVER && tls_flag_is(arg, len, "--key"))
      slot = &args->key;
    else if (role == LANE_CLIENT && tls_flag_is(arg, len, "--ca"))
      slot = &args->ca;
    if (slot == NULL) {
      /* Every other flag takes a value: it stays with its flag, even when
       * it is spelled like one of these. */
      argv[kept++] = argv[i];
      if (eq == NULL && strncmp(arg, "--", 2) == 0 && i + 1 < *argc)
        argv[kept++] = argv[++i];
      continue;
    }
    if (eq) {
      value = eq + 1;
    } else {
      if (i + 1 >= *argc)
        return tls_errorf(err, err_size, "'%s' needs a value", arg);
      value = argv[++i];
    }
    if (*slot)
      return tls_errorf(err, err_size, "'%.*s' given twice", (int)len, arg);
    if (*value == '\0')
      return tls_errorf(err, err_size, "'%.*s' needs a value", (int)len, arg);
    *slot = value;
  }
  *argc = kept;
  argv[kept] = NULL;

  if (transport == NULL || strcmp(transport, "tcp") == 0) {
    const char *file_flag = args->cert  ? "--cert"
                            : args->key ? "--key"
                            : args->ca  ? "--ca"
                                        : NULL;
    if (file_flag)
      return tls_errorf(err, err_size, "'%s' needs --transport tls", file_flag);
    return 0;
  }
  if (strcmp(transport, "tls") != 0)
    return tls_errorf(err, err_size,
                      "--transport: unknown transport '%s' (expected tcp or "
                      "tls)",
                      transport);
  args->on = 1;
  if (role == LANE_SERVER && args->cert == NULL)
    return tls_errorf(err, err_size, "--transport tls needs --cert FILE");
  if (role == LANE_SERVER && args->key == NULL)
    return tls_errorf(err, err_size, "--transport tls needs --key FILE");
  if (role == LANE_CLIENT && args->ca == NULL)
    return tls_errorf(err, err_size, "--transport tls needs --ca FILE");
  return 0;
}

/* ---- the context ---- */

/* OpenSSL's reason for its oldest queued error, the queue then emptied;
 * fallback when there is none. */
static const char *tls_lib_reason(char *buf, size_t size, const char *fallback)
{
  unsigned long e = ERR_peek_error();
  const char *reason = e ? ERR_reason_error_string(e) : NULL;

  if (e && reason == NULL) {
    ERR_error_string_n(e, buf, size);
    reason = buf;
  } else if (reason != NULL) {
    snprintf(buf, size, "%s", reason);
    reason = buf;
  }
  ERR_clear_error();
  return reason ? reason : fallback;
}

/* The file of flag can be opened: the OS's reason is clearer than
 * OpenSSL's when it cannot. */
static int tls_file_readable(const char *flag, const char *path, char *err,
                             size_t err_size)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return tls_errorf(err, err_size, "%s '%s': %s", flag, path,
                      strerror(errno));
  fclose(f);
  return 0;
}

/* Server: a ClientHello without ALPN fails the handshake (the selection
 * callback below only runs when the extension is there). */
static int tls_on_client_hello(SSL *ssl, int *alert, void *arg)
{
  const unsigned char *ext;
  size_t len;
  struct conn *c = SSL_get_app_data(ssl);

  if (SSL_client_hello_get0_ext(
          ssl, TLSEXT_TYPE_application_layer_protocol_negotiation, &ext, &len))
    return SSL_CLIENT_HELLO_SUCCESS;
  c->tls->no_alpn = 1;
  *alert = SSL_AD_NO_APPLICATION_PROTOCOL;
  return SSL_CLIENT_HELLO_ERROR;
}

/* Server: crossrun/1 or a fatal no_application_protocol alert. */
static int tls_on_alpn(SSL *ssl, const unsigned char **out,
                       unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg)
{
  unsigned char *selected;

  if (SSL_select_next_proto(&selected, outlen, tls_alpn_wire,
                            TLS_ALPN_WIRE_BYTES, in,
                            inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

static int tls_context_server(SSL_CTX *ssl_ctx, const struct tls_args *args,
                              char *err, size_t err_size)
{
  char reason[256];

  if (tls_file_readable("--cert", args->cert, err, err_size) != 0 ||
      tls_file_readable("--key", args->key, err, err_size) != 0)
    return -1;
  if (SSL_CTX_use_certificate_chain_file(ssl_ctx, args->cert) != 1)
    return tls_errorf(err, err_size, "--cert '%s': not a PEM certificate (%s)",
                      args->cert,
                      tls_lib_reason(reason, sizeof reason, "unreadable"));
  /* OpenSSL checks the key against the certificate as it loads it. */
  if (SSL_CTX_use_PrivateKey_file(ssl_ctx, args->key, SSL_FILETYPE_PEM) != 1)
    return tls_errorf(err, err_size,
                      "--key '%s': not the PEM private key of --cert '%s' (%s)",
                      args->key, args->cert,
                      tls_lib_reason(reason, sizeof reason, "unreadable"));
  if (SSL_CTX_check_private_key(ssl_ctx) != 1)
    return tls_errorf(err, err_size,
                      "--key '%s' is not the key of --cert '%s' (%s)",
                      args->key, args->cert,
                      tls_lib_reason(reason, sizeof reason, "mismatch"));
  /* Every sample is a fresh connection: nothing to resume. */
  if (SSL_CTX_set_num_tickets(ssl_ctx, 0) != 1)
    return tls_errorf(err, err_size, "tls: cannot turn session tickets off");
  SSL_CTX_set_client_hello_cb(ssl_ctx, tls_on_client_hello, NULL);
  SSL_CTX_set_alpn_select_cb(ssl_ctx, tls_on_alpn, NULL);
  return 0;
}

static int tls_context_client(SSL_CTX *ssl_ctx, const struct tls_args *args,
                              const struct sockaddr_storage *addr, char *err,
                              size_t err_size)
{
  char reason[256], host[64];
  int rc;

  if (tls_file_readable("--ca", args->ca, err, err_size) != 0)
    return -1;
  /* The CA of --ca and nothing else: never the system's store. */
  if (SSL_CTX_load_verify_locations(ssl_ctx, args->ca, NULL) != 1)
    return tls_errorf(err, err_size, "--ca '%s': not a PEM certificate (%s)",
                      args->ca,
                      tls_lib_reason(reason, sizeof reason, "unreadable"));
  SSL_CTX_set_verify(ssl_ctx, SSL_VERIFY_PEER, NULL);
  if (addr->ss_family == AF_INET6)
    rc = uv_ip6_name((const struct sockaddr_in6 *)addr, host, sizeof host);
  else
    rc = uv_ip4_name((const struct sockaddr_in *)addr, host, sizeof host);
  /* The server is named by its address (an IP SAN), so no SNI is sent. */
  if (rc != 0 ||
      X509_VERIFY_PARAM_set1_ip_asc(SSL_CTX_get0_param(ssl_ctx), host) != 1)
    return tls_errorf(err, err_size, "tls: cannot check the address '%s'",
                      host);
  if (SSL_CTX_set_alpn_protos(ssl_ctx, tls_alpn_wire, TLS_ALPN_WIRE_BYTES) != 0)
    return tls_errorf(err, err_size, "tls: cannot offer ALPN");
  SSL_CTX_set_session_cache_mode(ssl_ctx, SSL_SESS_CACHE_OFF);
  return 0;
}

struct tls_context *tls_context_new(const struct tls_args *args,
                                    enum lane_role role,
                                    const struct sockaddr_storage *addr,
                                    char *err, size_t err_size)
{
  struct tls_context *ctx;
  char reason[256];
  int rc;

  if (!args->on)
    return NULL;
  /* The system's openssl.cnf could change protocols or ciphers: the lane's
   * settings are its own. */
  if (OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1) {
    tls_errorf(err, err_size, "tls: OpenSSL does not start (%s)",
               tls_lib_reason(reason, sizeof reason, "unknown"));
    return NULL;
  }
  ctx = calloc(1, sizeof *ctx);
  if (ctx == NULL) {
    tls_errorf(err, err_size, "tls: out of memory");
    return NULL;
  }
  ctx->role = role;
  ctx->ssl_ctx = SSL_CTX_new(role == LANE_SERVER ? TLS_server_method()
                                                 : TLS_client_method());
  if (ctx->ssl_ctx == NULL ||
      SSL_CTX_set_min_proto_version(ctx->ssl_ctx, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx->ssl_ctx, TLS1_3_VERSION) != 1) {
    tls_errorf(err, err_size, "tls: no TLS 1.3 context (%s)",
               tls_lib_reason(reason, sizeof reason, "unknown"));
    tls_context_free(ctx);
    return NULL;
  }
  rc = role == LANE_SERVER
           ? tls_context_server(ctx->ssl_ctx, args, err, err_size)
           : tls_context_client(ctx->ssl_ctx, args, addr, err, err_size);
  if (rc != 0) {
    tls_context_free(ctx);
    return NULL;
  }
  return ctx;
}

void tls_context_free(struct tls_context *ctx)
{
  if (ctx == NULL)
    return;
  SSL_CTX_free(ctx->ssl_ctx);
  free(ctx);
}

int tls_attach(struct conn *c, struct tls_context *ctx)
{
  struct tls *t;

  if (ctx == NULL)
    return 0;
  t = calloc(1, sizeof *t);
  if (t == NULL)
    return UV_ENOMEM;
  c->tls = t; /* conn_release() frees whatever got made */
  t->ctx = ctx;
  t->in_cap = CONN_BUFFER_BYTES;
  t->in = malloc(t->in_cap);
  t->ssl = SSL_new(ctx->ssl_ctx);
  t->rbio = BIO_new(BIO_s_mem());
  t->wbio = BIO_new(BIO_s_mem());
  if (t->in == NULL || t->ssl == NULL || t->rbio == NULL || t->wbio == NULL)
    return UV_ENOMEM;
  /* An empty memory BIO means "no data yet", not end of file. */
  BIO_set_mem_eof_return(t->rbio, -1);
  SSL_set_bio(t->ssl, t->rbio, t->wbio); /* the SSL owns both now */
  SSL_set_app_data(t->ssl, c);
  if (ctx->role == LANE_SERVER)
    SSL_set_accept_state(t->ssl);
  else
    SSL_set_connect_state(t->ssl);
  return 0;
}

void tls_free(struct tls *t)
{
  if (t == NULL)
    return;
  if (t->ssl != NULL) {
    SSL_free(t->ssl);
  } else {
    BIO_free(t->rbio);
    BIO_free(t->wbio);
  }
  free(t->in);
  free(t->out);
  free(t);
}

int tls_print(FILE *out, const struct tls_context *ctx)
{
  int n;

  if (ctx == NULL || ctx->version == NULL)
    return 0;
  n = fprintf(out,
              ",\"transport\":\"tls\",\"tls\":{\"version\":\"%s\","
              "\"cipher\":\"%s\",\"alpn\":\"%s\"",
              ctx->version, ctx->cipher, TLS_ALPN);
  if (n >= 0 && ctx->role == LANE_CLIENT)
    n = fprintf(out, ",\"handshake_ns\":%" PRIu64, ctx->handshake_ns);
  if (n >= 0)
    n = fputs("}", out);
  return n < 0 ? -1 : 0;
}

/* ---- the connection ---- */

static void tls_on_write(uv_write_t *req, int status);

/* Sends what OpenSSL wrote into wbio: one uv_try_write, and when the
 * kernel takes only part and may_wait, one uv_write of the rest (writing
 * = 1 until tls_on_write). Returns 1 when everything went at once, else
 * 0; a failed write is conn's (reading goes on). With a write already
 * waiting, the bytes stay in wbio until it completes. */
static int tls_transmit(struct conn *c, int may_wait)
{
  struct tls *t = c->tls;
  size_t n = BIO_ctrl_pending(t->wbio);
  uv_buf_t b;
  int sent, err;

  if (n == 0)
    return 1;
  if (c->writing)
    return 0;
  if (c->write_dead) {
    (void)BIO_reset(t->wbio);
    return 0;
  }
  if (n > t->out_cap) {
    uint8_t *p = realloc(t->out, n);
    if (p == NULL) {
      (void)BIO_reset(t->wbio);
      conn_wrote(c, UV_ENOMEM);
      return 0;
    }
    t->out = p;
    t->out_cap = n;
  }
  if (n > INT_MAX || BIO_read(t->wbio, t->out, (int)n) != (int)n) {
    (void)BIO_reset(t->wbio);
    conn_wrote(c, UV_EIO);
    return 0;
  }
  b = uv_buf_init((char *)t->out, (unsigned)n);
  sent = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
  if (sent >= 0 && (size_t)sent == n)
    return 1;
  if (sent < 0 && sent != UV_EAGAIN && sent != UV_ENOSYS) {
    conn_wrote(c, sent);
    return 0;
  }
  if (!may_wait)
    return 0;
  if (sent < 0)
    sent = 0;
  b = uv_buf_init((char *)t->out + sent, (unsigned)(n - (size_t)sent));
  err = uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, tls_on_write);
  if (err) {
    conn_wrote(c, err);
    return 0;
  }
  c->writing = 1;
  if (c->pause_reads_while_writing)
    uv_read_stop((uv_stream_t *)&c->tcp);
  return 0;
}

/* "<prog>: tls_handshake: <reason>" and exit 1 (SPEC.md "Transports"),
 * after any alert OpenSSL has for the peer. */
static void tls_handshake_failed(struct conn *c, const char *reason)
{
  if (c->stopped)
    return;
  (void)tls_transmit(c, 0);
  fprintf(stderr, "%s: tls_handshake: %s\n", c->prog, reason);
  fflush(stderr);
  c->exit_code = 1;
  ERR_clear_error();
  conn_close(c);
}

/* Why SSL_do_handshake() failed with r. */
static void tls_handshake_reason(struct conn *c, int r, char *buf, size_t size)
{
  struct tls *t = c->tls;
  char lib[200];
  long verify = SSL_get_verify_result(t->ssl);
  int e = SSL_get_error(t->ssl, r);

  if (t->no_alpn) {
    snprintf(buf, size,
             "the client offered no ALPN protocol (expected " TLS_ALPN ")");
    ERR_clear_error();
    return;
  }
  snprintf(buf, size, "%s",
           tls_lib_reason(lib, sizeof lib, "the handshake failed"));
  if (e != SSL_ERROR_SSL && strcmp(buf, "the handshake failed") == 0)
    snprintf(buf, size, "the handshake failed (SSL error %d)", e);
  /* Name what the certificate check found, as openssl s_client does. */
  if (t->ctx->role == LANE_CLIENT && verify != X509_V_OK) {
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, ": %s",
             X509_verify_cert_error_string(verify));
  }
}

/* Steps the handshake with what rbio holds. Returns 1 once it completed
 * (ops->ready has run, or will once a waiting write ends), 0 while it
 * needs more from the peer, -1 when it failed (reported, closed). */
static int tls_handshake(struct conn *c)
{
  struct tls *t = c->tls;
  int r = SSL_do_handshake(t->ssl);
  uint64_t done_ns = uv_hrtime();
  const unsigned char *alpn;
  unsigned int alpn_len;
  char reason[400];

  if (r != 1) {
    if (SSL_get_error(t->ssl, r) == SSL_ERROR_WANT_READ) {
      (void)tls_transmit(c, 1); /* this side's flight */
      return 0;
    }
    tls_handshake_reason(c, r, reason, sizeof reason);
    tls_handshake_failed(c, reason);
    return -1;
  }
  /* The server refuses anything but crossrun/1 in its callbacks; a server
   * that selected nothing is the client's to refuse. */
  SSL_get0_alpn_selected(t->ssl, &alpn, &alpn_len);
  if (alpn_len != TLS_ALPN_WIRE_BYTES - 1 ||
      memcmp(alpn, TLS_ALPN, alpn_len) != 0) {
    snprintf(reason, sizeof reason,
             "the server selected %s ALPN protocol (expected " TLS_ALPN ")",
             alpn_len ? "another" : "no");
    tls_handshake_failed(c, reason);
    return -1;
  }
  t->established = 1;
  t->ctx->version = SSL_get_version(t->ssl);
  t->ctx->cipher = SSL_CIPHER_standard_name(SSL_get_current_cipher(t->ssl));
  t->ctx->handshake_ns = done_ns - t->handshake_start_ns;
  (void)tls_transmit(c, 1); /* the client's Finished */
  if (c->stopped)
    return -1;
  if (c->writing) {
    t->ready_due = 1;
  } else if (c->ops->ready) {
    c->ops->ready(c);
  }
  return c->stopped ? -1 : 1;
}

void tls_conn_start(struct conn *c)
{
  struct tls *t = c->tls;

  if (t->ctx->role == LANE_CLIENT) {
    t->handshake_start_ns = uv_hrtime();
    (void)tls_handshake(c);
  }
}

void tls_conn_alloc(struct conn *c, uv_buf_t *buf)
{
  *buf = uv_buf_init((char *)c->tls->in, (unsigned)c->tls->in_cap);
}

/* Decrypts what rbio holds into the read buffer and frames it, as long as
 * the connection may take more (a server stops while its answers wait to
 * be written: tls_on_write resumes). */
static void tls_pump(struct conn *c)
{
  struct tls *t = c->tls;
  char lib[200], reason[240];

  if (!t->established && tls_handshake(c) != 1)
    return;
  while (!c->stopped && !t->peer_closed) {
    int r = 0, e, got = 0;

    if (c->writing && c->pause_reads_while_writing)
      return;
    /* conn_process() leaves less than one frame, and the buffer holds
     * one, so there is always room here. */
    while (c->rlen < c->rcap) {
      size_t room = c->rcap - c->rlen;
      r = SSL_read(t->ssl, c->rbuf + c->rlen,
                   room > INT_MAX ? INT_MAX : (int)room);
      if (r <= 0)
        break;
      c->rlen += (size_t)r;
      got = 1;
    }
    e = r > 0 ? SSL_ERROR_NONE : SSL_get_error(t->ssl, r);
    if (got)
      conn_process(c);
    if (c->stopped)
      return;
    if (e == SSL_ERROR_NONE && got)
      continue; /* the buffer filled up: the rest after these frames */
    if (e == SSL_ERROR_NONE || e == SSL_ERROR_WANT_READ)
      break;
    if (e == SSL_ERROR_ZERO_RETURN) {
      t->peer_closed = 1; /* close_notify: an end of stream like TCP's */
      conn_end(c, NULL);
      return;
    }
    (void)tls_transmit(c, 0); /* OpenSSL's alert, if it has one */
    snprintf(reason, sizeof reason, "tls: %s",
             tls_lib_reason(lib, sizeof lib, "the record layer failed"));
    conn_end(c, reason);
    return;
  }
  if (!c->stopped)
    (void)tls_transmit(c, 1); /* anything OpenSSL answered while reading */
}

void tls_conn_read(struct conn *c, ssize_t nread, const uv_buf_t *buf)
{
  struct tls *t = c->tls;

  if (c->stopped) {
    if (t->lingering && nread < 0) {
      t->lingering = 0;
      uv_read_stop((uv_stream_t *)&c->tcp);
      uv_close((uv_handle_t *)&c->tcp, NULL);
    }
    return;
  }
  if (nread > 0) {
    if (BIO_write(t->rbio, buf->base, (int)nread) != (int)nread) {
      conn_fail_io(c, "read", UV_ENOMEM);
      return;
    }
    tls_pump(c);
    return;
  }
  if (nread == 0)
    return;
  if (!t->established) {
    tls_handshake_failed(c, nread == UV_EOF
                                ? "the connection ended during the handshake"
                                : uv_strerror((int)nread));
    return;
  }
  conn_end(c, nread == UV_EOF ? NULL : uv_strerror((int)nread));
}

static void tls_on_write(uv_write_t *req, int status)
{
  struct conn *c = req->data;
  struct tls *t = c->tls;

  conn_wrote(c, status);
  if (c->stopped || status == UV_ECANCELED)
    return;
  if (t->ready_due && !c->writing) {
    t->ready_due = 0;
    if (c->ops->ready)
      c->ops->ready(c);
    if (c->stopped)
      return;
  }
  (void)tls_transmit(c, 1);
  tls_pump(c);
}

int tls_conn_flush(struct conn *c)
{
  struct tls *t = c->tls;
  int r;

  /* One SSL_write for the whole batch: OpenSSL cuts it into records of
   * 16 KiB, never one per frame. */
  r = SSL_write(t->ssl, c->wbuf, (int)c->wlen);
  c->wlen = 0;
  if (r <= 0) {
    ERR_clear_error();
    conn_wrote(c, UV_EIO);
    return 0;
  }
  return tls_transmit(c, 1);
}

void tls_conn_send_now(struct conn *c, const uint8_t *p, size_t n)
{
  struct tls *t = c->tls;

  if (!t->established || c->writing)
    return;
  if (SSL_write(t->ssl, p, (int)n) <= 0) {
    ERR_clear_error();
    return;
  }
  (void)tls_transmit(c, 0);
}

int tls_conn_close(struct conn *c)
{
  struct tls *t = c->tls;

  if (c->exit_code != 0 || !t->established)
    return 0;
  if (t->ctx->role == LANE_SERVER) {
    /* The client closes TCP right after its close_notify: closing before
     * that end of stream arrives would make the server the side that
     * closed first (its port left in TIME_WAIT). */
    t->lingering = t->peer_closed && c->started && !c->writing;
    return t->lingering;
  }
  if (c->writing || c->write_dead)
    return 0;
  /* The first call sends close_notify; the server's is not awaited. */
  if (SSL_shutdown(t->ssl) < 0) {
    ERR_clear_error();
    return 0;
  }
  (void)tls_transmit(c, 0);
  return 0;
}
