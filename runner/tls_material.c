#include "runner/tls_material.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* err gets "what: OpenSSL's reason" and OpenSSL's queue is emptied, so
 * that a later failure is not told with this one's reason. */
static int ossl_fail(const char *what, char *err, size_t errlen)
{
  unsigned long e = ERR_get_error();
  char reason[256] = "no reason given";

  if (e != 0)
    ERR_error_string_n(e, reason, sizeof(reason));
  ERR_clear_error();
  snprintf(err, errlen, "tls material: %s: %s", what, reason);
  return -1;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value,
                   char *err, size_t errlen)
{
  X509V3_CTX ctx;
  X509_EXTENSION *ext;
  int ok;

  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
  ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
  if (ext == NULL)
    return ossl_fail(OBJ_nid2sn(nid), err, errlen);
  ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return ok ? 0 : ossl_fail(OBJ_nid2sn(nid), err, errlen);
}

/* A certificate for key, named cn, signed by issuer_key as issuer (itself
 * when issuer is NULL), with the extensions ext (pairs of nid and value,
 * ending with 0). Returns it, or NULL with err. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer,
                       EVP_PKEY *issuer_key, const int *nids,
                       const char *const *values, char *err, size_t errlen)
{
  X509 *x = X509_new();
  BIGNUM *serial = BN_new();
  X509_NAME *name;

  if (x == NULL || serial == NULL)
    goto fail;
  /* A random positive serial of 127 bits (RFC 5280: at most 20 octets). */
  if (!X509_set_version(x, 2) || !BN_rand(serial, 127, BN_RAND_TOP_ANY, 0) ||
      BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) == NULL)
    goto fail;
  if (X509_gmtime_adj(X509_getm_notBefore(x), -TLS_MATERIAL_NOT_BEFORE_S) ==
          NULL ||
      X509_gmtime_adj(X509_getm_notAfter(x), TLS_MATERIAL_NOT_AFTER_S) == NULL)
    goto fail;
  name = X509_get_subject_name(x);
  if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                  (const unsigned char *)cn, -1, -1, 0) ||
      !X509_set_issuer_name(x, issuer != NULL ? X509_get_subject_name(issuer)
                                              : name) ||
      !X509_set_pubkey(x, key))
    goto fail;
  for (int i = 0; nids[i] != 0; i++)
    if (add_ext(x, issuer != NULL ? issuer : x, nids[i], values[i], err,
                errlen) != 0) {
      BN_free(serial);
      X509_free(x);
      return NULL;
    }
  if (X509_sign(x, issuer_key, EVP_sha256()) <= 0)
    goto fail;
  BN_free(serial);
  return x;
fail:
  ossl_fail(cn, err, errlen);
  BN_free(serial);
  X509_free(x);
  return NULL;
}

/* Writes what bio holds to path, created anew (never over a file that is
 * there) with mode: a key is 0600 from its first byte. */
static int write_file(const char *path, BIO *bio, int mode, char *err,
                      size_t errlen)
{
  char *data;
  long len = BIO_get_mem_data(bio, &data);
  uv_fs_t req;
  uv_file fd;
  int rc;

  fd = uv_fs_open(NULL, &req, path, O_WRONLY | O_CREAT | O_EXCL, mode, NULL);
  uv_fs_req_cleanup(&req);
  if (fd < 0) {
    snprintf(err, errlen, "tls material: cannot create '%s': %s", path,
             uv_strerror(fd));
    return -1;
  }
  for (long done = 0; done < len;) {
    uv_buf_t buf = uv_buf_init(data + done, (unsigned)(len - done));
    rc = uv_fs_write(NULL, &req, fd, &buf, 1, -1, NULL);
    uv_fs_req_cleanup(&req);
    if (rc <= 0) {
      snprintf(err, errlen, "tls material: cannot write '%s': %s", path,
               uv_strerror(rc < 0 ? rc : UV_EIO));
      uv_fs_close(NULL, &req, fd, NULL);
      uv_fs_req_cleanup(&req);
      return -1;
    }
    done += rc;
  }
  rc = uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
  if (rc < 0) {
    snprintf(err, errlen, "tls material: cannot write '%s': %s", path,
             uv_strerror(rc));
    return -1;
  }
  return 0;
}

static void unlink_quietly(const char *path)
{
  uv_fs_t req;
  uv_fs_unlink(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
}

int tls_material_make(const char *dir, struct tls_material *m, char *err,
                      size_t errlen)
{
  static const int ca_nids[] = {NID_basic_constraints, NID_key_usage,
                                NID_subject_key_identifier, 0};
  static const char *const ca_values[] = {
      "critical,CA:TRUE", "critical,keyCertSign,cRLSign", "hash"};
  static const int leaf_nids[] = {NID_basic_constraints,
                                  NID_key_usage,
                                  NID_ext_key_usage,
                                  NID_subject_alt_name,
                                  NID_subject_key_identifier,
                                  NID_authority_key_identifier,
                                  0};
  static const char *const leaf_values[] = {"critical,CA:FALSE",
                                            "critical,digitalSignature",
                                            "serverAuth",
                                            "IP:127.0.0.1,IP:::1",
                                            "hash",
                                            "keyid:always"};
  EVP_PKEY *ca_key = NULL, *leaf_key = NULL;
  X509 *ca = NULL, *leaf = NULL;
  BIO *bio[3] = {NULL, NULL, NULL};
  int rc = -1, written = 0;

  memset(m, 0, sizeof(*m));
  if ((size_t)snprintf(m->ca, sizeof(m->ca), "%s/ca.pem", dir) >=
          sizeof(m->ca) ||
      (size_t)snprintf(m->cert, sizeof(m->cert), "%s/cert.pem", dir) >=
          sizeof(m->cert) ||
      (size_t)snprintf(m->key, sizeof(m->key), "%s/key.pem", dir) >=
          sizeof(m->key)) {
    snprintf(err, errlen, "tls material: the folder's path is too long");
    return -1;
  }
  ERR_clear_error();
  ca_key = EVP_EC_gen("P-256");
  leaf_key = EVP_EC_gen("P-256");
  if (ca_key == NULL || leaf_key == NULL) {
    ossl_fail("an ECDSA P-256 key", err, errlen);
    goto out;
  }
  ca = make_cert(ca_key, "crossrun sample CA", NULL, ca_key, ca_nids, ca_values,
                 err, errlen);
  if (ca == NULL)
    goto out;
  leaf = make_cert(leaf_key, "crossrun sample server", ca, ca_key, leaf_nids,
                   leaf_values, err, errlen);
  if (leaf == NULL)
    goto out;
  for (int i = 0; i < 3; i++)
    if ((bio[i] = BIO_new(BIO_s_mem())) == NULL) {
      ossl_fail("a memory buffer", err, errlen);
      goto out;
    }
  if (!PEM_write_bio_X509(bio[0], ca) || !PEM_write_bio_X509(bio[1], leaf) ||
      !PEM_write_bio_PKCS8PrivateKey(bio[2], leaf_key, NULL, NULL, 0, NULL,
                                     NULL)) {
    ossl_fail("PEM", err, errlen);
    goto out;
  }
  /* The key first: a failure after it removes it with the rest. */
  if (write_file(m->key, bio[2], 0600, err, errlen) != 0)
    goto out;
  written = 1;
  if (write_file(m->cert, bio[1], 0644, err, errlen) != 0)
    goto out;
  written = 2;
  if (write_file(m->ca, bio[0], 0644, err, errlen) != 0)
    goto out;
  rc = 0;
out:
  if (rc != 0) {
    if (written >= 1)
      unlink_quietly(m->key);
    if (written >= 2)
      unlink_quietly(m->cert);
  }
  for (int i = 0; i < 3; i++)
    BIO_free(bio[i]);
  X509_free(leaf);
  X509_free(ca);
  EVP_PKEY_free(leaf_key);
  /* The CA's key is freed here, never written: nothing outside this
   * process can sign with it. */
  EVP_PKEY_free(ca_key);
  return rc;
}
