/* The baseline's connection: plain TCP, or TLS 1.3 with OpenSSL over the
 * same socket (protocol/SPEC.md section 9): ALPN crossrun/1, the client
 * trusting only --ca and checking the server's IP address, no SNI, no
 * session tickets. The frames are the same; only the bytes' way differs.
 *
 * The client's socket is made non-blocking after the handshake, as its
 * TCP path uses MSG_DONTWAIT: a blocking read is then a poll for input
 * whenever OpenSSL wants more. The server stays blocking. */
#include "bench/baseline.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

static const unsigned char alpn_wire[] = "\x0a"
                                         "crossrun/1";
#define ALPN_WIRE_BYTES (sizeof(alpn_wire) - 1)

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* OpenSSL's reason for the failure under way, with the certificate
 * verification's when there is one. */
static void die_tls(SSL *ssl, const char *what)
{
  unsigned long e = ERR_peek_last_error();
  const char *reason = e ? ERR_reason_error_string(e) : NULL;
  long verify = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;

  if (verify != X509_V_OK)
    baseline_die(1, "%s: %s: %s", what,
                 reason ? reason : "certificate verify failed",
                 X509_verify_cert_error_string(verify));
  baseline_die(1, "%s: %s", what,
               reason ? reason : (errno ? strerror(errno) : "end of stream"));
}

static SSL_CTX *context(int server)
{
  SSL_CTX *ctx =
      SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());

  if (ctx == NULL || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
      !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION))
    die_tls(NULL, "tls_setup");
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                            SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return ctx;
}

/* The server selects crossrun/1 or fails the handshake. */
static int select_alpn(SSL *ssl, const unsigned char **out,
                       unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg)
{
  unsigned char *sel;

  (void)ssl;
  (void)arg;
  if (SSL_select_next_proto(&sel, outlen, alpn_wire, ALPN_WIRE_BYTES, in,
                            inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = sel;
  return SSL_TLSEXT_ERR_OK;
}

static void check_alpn(SSL *ssl)
{
  const unsigned char *p;
  unsigned int n;

  SSL_get0_alpn_selected(ssl, &p, &n);
  if (n != ALPN_WIRE_BYTES - 1 || memcmp(p, alpn_wire + 1, n) != 0)
    baseline_die(1, "tls_handshake: the server selected no ALPN crossrun/1");
}

void baseline_tls_accept(struct baseline_conn *c,
                         const struct baseline_options *o)
{
  SSL_CTX *ctx = context(1);
  SSL *ssl;

  if (SSL_CTX_use_certificate_chain_file(ctx, o->cert) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, o->key, SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1)
    die_tls(NULL, "tls_setup: --cert/--key");
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
  ssl = SSL_new(ctx);
  SSL_CTX_free(ctx); /* the SSL holds it */
  if (ssl == NULL || !SSL_set_fd(ssl, c->fd))
    die_tls(NULL, "tls_setup");
  if (SSL_accept(ssl) != 1)
    die_tls(ssl, "tls_handshake");
  c->ssl = ssl;
}

/* The host of "host:port" or "[host]:port", for the IP check. */
static void host_of(const char *address, char *out, size_t len)
{
  const char *colon = strrchr(address, ':');
  size_t n = colon ? (size_t)(colon - address) : strlen(address);

  if (n >= 2 && address[0] == '[' && address[n - 1] == ']') {
    address++;
    n -= 2;
  }
  snprintf(out, len, "%.*s", (int)n, address);
}

void baseline_tls_connect(struct baseline_conn *c,
                          const struct baseline_options *o)
{
  SSL_CTX *ctx = context(0);
  char host[256];
  SSL *ssl;
  uint64_t t0;

  if (SSL_CTX_load_verify_locations(ctx, o->ca, NULL) != 1)
    die_tls(NULL, "tls_setup: --ca");
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  ssl = SSL_new(ctx);
  SSL_CTX_free(ctx);
  host_of(o->address, host, sizeof(host));
  /* The name checked is the IP address connected to; no SNI is sent. */
  if (ssl == NULL || !SSL_set_fd(ssl, c->fd) ||
      SSL_set_alpn_protos(ssl, alpn_wire, ALPN_WIRE_BYTES) != 0 ||
      !X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host))
    die_tls(NULL, "tls_setup");
  t0 = now_ns();
  if (SSL_connect(ssl) != 1)
    die_tls(ssl, "tls_handshake");
  c->handshake_ns = now_ns() - t0;
  check_alpn(ssl);
  c->ssl = ssl;
  if (fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) != 0)
    baseline_die(1, "fcntl: %s", strerror(errno));
}

/* Waits until the socket is ready for what OpenSSL asked for. */
static void wait_for(const struct baseline_conn *c, int err)
{
  struct pollfd p = {c->fd, err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, 0};
  if (poll(&p, 1, -1) < 0 && errno != EINTR)
    baseline_die(1, "poll: %s", strerror(errno));
}

size_t baseline_conn_send_some(struct baseline_conn *c, const uint8_t *p,
                               size_t len)
{
  int n, err;

  if (len == 0)
    return 0;
  ERR_clear_error();
  n = SSL_write(c->ssl, p, len > INT32_MAX ? INT32_MAX : (int)len);
  if (n > 0)
    return (size_t)n;
  err = SSL_get_error(c->ssl, n);
  if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ)
    return 0;
  die_tls(NULL, "send");
  return 0;
}

void baseline_conn_send_all(struct baseline_conn *c, const uint8_t *p,
                            size_t len)
{
  if (c->ssl == NULL) {
    baseline_send_all(c->fd, p, len);
    return;
  }
  while (len) {
    size_t n = baseline_conn_send_some(c, p, len);
    if (n == 0) {
      wait_for(c, SSL_ERROR_WANT_WRITE);
      continue;
    }
    p += n;
    len -= n;
  }
}

ssize_t baseline_conn_recv(struct baseline_conn *c, uint8_t *p, size_t len,
                           int nonblock)
{
  if (c->ssl == NULL) {
    ssize_t n;
    do
      n = recv(c->fd, p, len, nonblock ? MSG_DONTWAIT : 0);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return -1;
    if (n < 0)
      baseline_die(1, "recv: %s", strerror(errno));
    return n;
  }
  for (;;) {
    int n, err;
    ERR_clear_error();
    errno = 0;
    n = SSL_read(c->ssl, p, len > INT32_MAX ? INT32_MAX : (int)len);
    if (n > 0)
      return n;
    err = SSL_get_error(c->ssl, n);
    /* close_notify, or the end of stream without it, is the end. */
    if (err == SSL_ERROR_ZERO_RETURN ||
        (err == SSL_ERROR_SYSCALL && errno == 0) ||
        (err == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_last_error()) ==
                                     SSL_R_UNEXPECTED_EOF_WHILE_READING))
      return 0;
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
      die_tls(NULL, "recv");
    if (nonblock)
      return -1;
    wait_for(c, err);
  }
}

int baseline_conn_pending(const struct baseline_conn *c)
{
  return c->ssl != NULL && SSL_pending(c->ssl) > 0;
}

void baseline_conn_close(struct baseline_conn *c, int notify)
{
  /* The server has read close_notify: the client's TCP end of stream
   * follows at once, and closing only after it leaves the client the one
   * that closed first (protocol/SPEC.md sections 3 and 9). */
  if (c->ssl != NULL && !notify) {
    uint8_t scratch[256];
    ssize_t n;
    do
      n = recv(c->fd, scratch, sizeof(scratch), 0);
    while (n > 0 || (n < 0 && errno == EINTR));
  }
  if (c->ssl != NULL) {
    /* close_notify, once: the peer need not answer it. */
    ERR_clear_error();
    if (notify)
      (void)SSL_shutdown(c->ssl);
    SSL_free(c->ssl);
    c->ssl = NULL;
  }
  close(c->fd);
}

void baseline_tls_print(const struct baseline_conn *c, int client)
{
  const unsigned char *alpn;
  unsigned int n;

  if (c->ssl == NULL)
    return;
  SSL_get0_alpn_selected(c->ssl, &alpn, &n);
  printf(",\"transport\":\"tls\",\"tls\":{\"version\":\"%s\",\"cipher\":\"%s\","
         "\"alpn\":\"%.*s\"",
         SSL_get_version(c->ssl),
         SSL_CIPHER_standard_name(SSL_get_current_cipher(c->ssl)), (int)n,
         (const char *)alpn);
  if (client)
    printf(",\"handshake_ns\":%" PRIu64, c->handshake_ns);
  printf("}");
}
