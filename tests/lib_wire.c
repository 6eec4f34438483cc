/* The test's end of a connection over tcp or tls (tests/lib_wire.h). */
#include "tests/lib_wire.h"

#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "tests/lib_sockets.h"
#include "tests/tap.h"

static const unsigned char wire_alpn[] = "\x0a"
                                         "crossrun/1";

static int wire_tls_fail(struct wire_tls *t, const char *what)
{
  unsigned long e = ERR_get_error();
  tap_diag("wire: %s (%s)", what, e ? ERR_reason_error_string(e) : "?");
  ERR_clear_error();
  wire_tls_release(t);
  return -1;
}

static int wire_tls_new(struct wire_tls *t, int server)
{
  t->ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  return t->ctx != NULL &&
         SSL_CTX_set_min_proto_version(t->ctx, TLS1_3_VERSION) == 1 &&
         SSL_CTX_set_max_proto_version(t->ctx, TLS1_3_VERSION) == 1;
}

int wire_tls_client(struct wire_tls *t, const char *ca_file, const char *alpn,
                    size_t alpn_len)
{
  if (!wire_tls_new(t, 0) ||
      SSL_CTX_load_verify_locations(t->ctx, ca_file, NULL) != 1)
    return wire_tls_fail(t, "no client context");
  SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
  if (alpn != NULL &&
      SSL_CTX_set_alpn_protos(t->ctx, (const unsigned char *)alpn,
                              (unsigned)alpn_len) != 0)
    return wire_tls_fail(t, "no ALPN");
  return 0;
}

static int wire_on_alpn(SSL *ssl, const unsigned char **out,
                        unsigned char *outlen, const unsigned char *in,
                        unsigned int inlen, void *arg)
{
  unsigned char *selected;
  if (arg == NULL)
    return SSL_TLSEXT_ERR_NOACK;
  if (SSL_select_next_proto(&selected, outlen, wire_alpn, sizeof wire_alpn - 1,
                            in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

int wire_tls_server(struct wire_tls *t, const char *cert_file,
                    const char *key_file, int select_alpn)
{
  if (!wire_tls_new(t, 1) ||
      SSL_CTX_use_certificate_chain_file(t->ctx, cert_file) != 1 ||
      SSL_CTX_use_PrivateKey_file(t->ctx, key_file, SSL_FILETYPE_PEM) != 1)
    return wire_tls_fail(t, "no server context");
  SSL_CTX_set_num_tickets(t->ctx, 0);
  SSL_CTX_set_alpn_select_cb(t->ctx, wire_on_alpn,
                             select_alpn ? (void *)t : NULL);
  return 0;
}

void wire_tls_release(struct wire_tls *t)
{
  SSL_CTX_free(t->ctx);
  t->ctx = NULL;
}

/* Counts the application-data records that arrive (TLS 1.3 reports each
 * record's inner content type). */
static void wire_on_message(int write_p, int version, int content_type,
                            const void *buf, size_t len, SSL *ssl, void *arg)
{
  struct wire *w = SSL_get_app_data(ssl);
  if (!write_p && content_type == SSL3_RT_INNER_CONTENT_TYPE && len == 1 &&
      ((const unsigned char *)buf)[0] == SSL3_RT_APPLICATION_DATA)
    w->records_in++;
}

static int wire_secure(struct wire *w, const struct wire_tls *t, int server)
{
  int r;

  if (t == NULL)
    return 0;
  w->ssl = SSL_new(t->ctx);
  if (w->ssl == NULL || SSL_set_fd(w->ssl, w->fd) != 1)
    return -1;
  SSL_set_app_data(w->ssl, w);
  SSL_set_msg_callback(w->ssl, wire_on_message);
  if (!server &&
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(w->ssl), "127.0.0.1") != 1)
    return -1;
  r = server ? SSL_accept(w->ssl) : SSL_connect(w->ssl);
  if (r != 1) {
    unsigned long e = ERR_get_error();
    snprintf(w->why, sizeof w->why, "%s",
             e && ERR_reason_error_string(e) ? ERR_reason_error_string(e)
                                             : "no reason");
    ERR_clear_error();
    return -1;
  }
  return 0;
}

int wire_connect(struct wire *w, int port, const struct wire_tls *t)
{
  memset(w, 0, sizeof *w);
  w->fd = sockets_connect(port);
  if (w->fd < 0)
    return -1;
  return wire_secure(w, t, 0);
}

int wire_accept(struct wire *w, int lfd, struct peers_proc *client,
                const struct wire_tls *t)
{
  memset(w, 0, sizeof *w);
  w->fd = sockets_accept_from(lfd, client);
  if (w->fd < 0)
    return -1;
  return wire_secure(w, t, 1);
}

int wire_send(struct wire *w, const uint8_t *p, size_t n, int bytewise)
{
  if (w->ssl == NULL)
    return sockets_send_bytes(w->fd, p, n, bytewise);
  while (n > 0) {
    size_t chunk = bytewise ? 1 : n;
    if (SSL_write(w->ssl, p, (int)chunk) != (int)chunk) {
      ERR_clear_error();
      return -1;
    }
    p += chunk;
    n -= chunk;
  }
  return 0;
}

int wire_read_exact(struct wire *w, uint8_t *buf, size_t n)
{
  if (w->ssl == NULL)
    return sockets_read_exact(w->fd, buf, n);
  while (n > 0) {
    int r = SSL_read(w->ssl, buf, n > 65536 ? 65536 : (int)n);
    if (r <= 0) {
      ERR_clear_error();
      return -1;
    }
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

void wire_end(struct wire *w)
{
  if (w->ssl != NULL && !(SSL_get_shutdown(w->ssl) & SSL_SENT_SHUTDOWN))
    (void)SSL_shutdown(w->ssl);
  ERR_clear_error();
  sockets_shutdown_write(w->fd);
}

int wire_peer_ended(struct wire *w)
{
  uint8_t byte;
  int r;

  if (w->ssl == NULL)
    return sockets_recv_some(w->fd, &byte, 1) == 0;
  r = SSL_read(w->ssl, &byte, 1);
  r = r <= 0 && SSL_get_error(w->ssl, r) == SSL_ERROR_ZERO_RETURN;
  ERR_clear_error();
  return r;
}

void wire_drain(struct wire *w)
{
  uint8_t buf[4096];

  if (w->ssl == NULL) {
    sockets_drain(w->fd);
    return;
  }
  while (SSL_read(w->ssl, buf, sizeof buf) > 0)
    ;
  ERR_clear_error();
  /* What follows a TLS failure is not TLS. */
  sockets_drain(w->fd);
}

void wire_close(struct wire *w)
{
  if (w->ssl != NULL) {
    if (!(SSL_get_shutdown(w->ssl) & SSL_SENT_SHUTDOWN))
      (void)SSL_shutdown(w->ssl);
    ERR_clear_error();
    SSL_free(w->ssl);
    w->ssl = NULL;
  }
  if (w->fd >= 0)
    sockets_close(w->fd);
  w->fd = -1;
}
