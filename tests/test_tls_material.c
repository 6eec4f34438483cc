/* runner/tls_material: the files a sample's TLS peers get, read back with
 * OpenSSL and checked against protocol/SPEC.md section 9: a self-signed
 * CA, a leaf it signed with the right extensions, IP SANs and validity,
 * ECDSA P-256 keys, the key file 0600 and PKCS#8, and OpenSSL's own
 * verifier accepting the leaf for 127.0.0.1 and ::1 and nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "runner/tls_material.h"
#include "tests/tap.h"

static X509 *read_cert(const char *path)
{
  BIO *b = BIO_new_file(path, "r");
  X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
  BIO_free(b);
  return x;
}

static int file_has(const char *path, const char *text)
{
  char buf[8192];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = '\0';
  return strstr(buf, text) != NULL;
}

static int is_p256(EVP_PKEY *k)
{
  char group[64] = "";
  size_t len = 0;
  return k != NULL && EVP_PKEY_is_a(k, "EC") &&
         EVP_PKEY_get_utf8_string_param(k, "group", group, sizeof(group),
                                        &len) == 1 &&
         strcmp(group, "prime256v1") == 0;
}

/* The IP SANs of x as text, "127.0.0.1,::1", and whether there is any
 * other kind of name. */
static void ip_sans(X509 *x, char *out, size_t len, int *other)
{
  GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
  out[0] = '\0';
  *other = 0;
  for (int i = 0; names != NULL && i < sk_GENERAL_NAME_num(names); i++) {
    GENERAL_NAME *g = sk_GENERAL_NAME_value(names, i);
    char *text;
    if (g->type != GEN_IPADD) {
      *other = 1;
      continue;
    }
    text = OPENSSL_buf2hexstr(g->d.ip->data, g->d.ip->length);
    snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? "," : "",
             text ? text : "?");
    OPENSSL_free(text);
  }
  GENERAL_NAMES_free(names);
}

/* Whether OpenSSL's verifier accepts leaf under ca for the address ip. */
static int verifies(X509 *ca, X509 *leaf, const char *ip, char *why,
                    size_t whylen)
{
  X509_STORE *store = X509_STORE_new();
  X509_STORE_CTX *ctx = X509_STORE_CTX_new();
  int ok = 0;

  snprintf(why, whylen, "no context");
  if (store && ctx && X509_STORE_add_cert(store, ca) &&
      X509_STORE_CTX_init(ctx, store, leaf, NULL)) {
    X509_VERIFY_PARAM *p = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_purpose(p, X509_PURPOSE_SSL_SERVER);
    X509_VERIFY_PARAM_set1_ip_asc(p, ip);
    ok = X509_verify_cert(ctx) == 1;
    snprintf(why, whylen, "%s",
             X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
  }
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return ok;
}

static void test_material(const char *dir)
{
  struct tls_material m;
  char err[512] = "", sans[128], why[256];
  struct stat st;
  X509 *ca, *leaf, *other_ca;
  EVP_PKEY *key;
  BIO *b;
  int other;
  time_t now = time(NULL);

  if (!TAP_EQ_INT(tls_material_make(dir, &m, err, sizeof(err)), 0, "made: %s",
                  err))
    return;
  memset(&st, 0, sizeof(st));
  if (stat(m.key, &st) != 0)
    st.st_mode = 0;
#ifdef _WIN32
  /* Windows' files have no permission bits: the C runtime reports 0666
   * (0444 when read-only) for every file. */
  TAP_OK(1, "key.pem is mode 0600 # SKIP Windows' files have no mode bits");
#else
  TAP_OK((st.st_mode & 0777) == 0600, "key.pem is mode 0600 (%o)",
         (unsigned)(st.st_mode & 0777));
#endif
  TAP_OK(stat(m.cert, &st) == 0 && stat(m.ca, &st) == 0,
         "cert.pem and ca.pem are there");
  TAP_OK(file_has(m.key, "-----BEGIN PRIVATE KEY-----"),
         "key.pem is PKCS#8 PEM");
  ca = read_cert(m.ca);
  leaf = read_cert(m.cert);
  b = BIO_new_file(m.key, "r");
  key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
  BIO_free(b);
  if (!TAP_OK(ca && leaf && key, "the three files parse"))
    goto out;

  TAP_OK(is_p256(X509_get0_pubkey(ca)), "the CA's key is ECDSA P-256");
  TAP_OK(is_p256(X509_get0_pubkey(leaf)) && is_p256(key),
         "the leaf's key is ECDSA P-256");
  TAP_OK(X509_check_private_key(leaf, key) == 1,
         "key.pem is the leaf's private key");
  TAP_OK(X509_check_private_key(ca, key) != 1,
         "key.pem is not the CA's private key");
  ERR_clear_error();
  TAP_OK(X509_check_issued(ca, ca) == X509_V_OK, "the CA is self-signed");
  TAP_OK(X509_check_ca(ca) >= 1 && (X509_get_key_usage(ca) & KU_KEY_CERT_SIGN),
         "the CA is CA:TRUE with keyCertSign");
  TAP_OK(X509_check_ca(leaf) == 0, "the leaf is CA:FALSE");
  TAP_OK(X509_get_key_usage(leaf) == KU_DIGITAL_SIGNATURE,
         "the leaf's key usage is digitalSignature alone (%x)",
         (unsigned)X509_get_key_usage(leaf));
  TAP_OK(X509_get_extended_key_usage(leaf) == XKU_SSL_SERVER,
         "the leaf's extended key usage is serverAuth alone");
  ip_sans(leaf, sans, sizeof(sans), &other);
  TAP_EQ_STR(sans,
             "7F:00:00:01,00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01",
             "the leaf's SANs are IP:127.0.0.1 and IP:::1");
  TAP_OK(!other, "and nothing but IP addresses");
  {
    int days, secs;
    ASN1_TIME *t = ASN1_TIME_new();
    ASN1_TIME_set(t, now);
    ASN1_TIME_diff(&days, &secs, t, X509_get0_notBefore(leaf));
    TAP_OK(days == 0 && secs >= -TLS_MATERIAL_NOT_BEFORE_S - 5 &&
               secs <= -TLS_MATERIAL_NOT_BEFORE_S + 5,
           "the leaf is valid from a minute ago (%d s)", secs);
    ASN1_TIME_diff(&days, &secs, t, X509_get0_notAfter(leaf));
    TAP_OK(days == 0 && secs >= TLS_MATERIAL_NOT_AFTER_S - 5 &&
               secs <= TLS_MATERIAL_NOT_AFTER_S + 5,
           "to an hour from now (%d s)", secs);
    ASN1_TIME_free(t);
  }
  TAP_OK(verifies(ca, leaf, "127.0.0.1", why, sizeof(why)),
         "OpenSSL verifies the leaf for 127.0.0.1: %s", why);
  TAP_OK(verifies(ca, leaf, "::1", why, sizeof(why)), "and for ::1: %s", why);
  TAP_OK(!verifies(ca, leaf, "127.0.0.2", why, sizeof(why)),
         "not for 127.0.0.2: %s", why);
  TAP_OK(!verifies(leaf, leaf, "127.0.0.1", why, sizeof(why)),
         "nor under another root: %s", why);

  /* A second material is another CA: its leaf does not verify under the
   * first one's CA (what the wrong-CA test relies on). */
  {
    char dir2[4200];
    struct tls_material m2;
    X509 *leaf2;
    snprintf(dir2, sizeof(dir2), "%s/other", dir);
    if (TAP_EQ_INT(tap_mkdir(dir2), 0, "a second folder") &&
        TAP_EQ_INT(tls_material_make(dir2, &m2, err, sizeof(err)), 0,
                   "a second material: %s", err)) {
      other_ca = read_cert(m2.ca);
      leaf2 = read_cert(m2.cert);
      TAP_OK(other_ca && leaf2 && X509_cmp(other_ca, ca) != 0,
             "with another CA");
      TAP_OK(leaf2 && !verifies(ca, leaf2, "127.0.0.1", why, sizeof(why)),
             "whose leaf the first CA rejects: %s", why);
      X509_free(other_ca);
      X509_free(leaf2);
      unlink(m2.ca);
      unlink(m2.cert);
      unlink(m2.key);
    }
    rmdir(dir2);
  }

  /* Made again over the same files: refused, nothing overwritten. */
  {
    struct tls_material again;
    TAP_OK(tls_material_make(dir, &again, err, sizeof(err)) != 0 &&
               strstr(err, "key.pem") != NULL,
           "files that are there are not overwritten: %s", err);
    TAP_OK(X509_check_private_key(leaf, key) == 1 &&
               file_has(m.key, "PRIVATE KEY"),
           "and the first key is still the leaf's");
  }
out:
  X509_free(ca);
  X509_free(leaf);
  EVP_PKEY_free(key);
  unlink(m.ca);
  unlink(m.cert);
  unlink(m.key);
}

static void test_failure_leaves_nothing(const char *dir)
{
  struct tls_material m;
  char err[512] = "", missing[4200];
  snprintf(missing, sizeof(missing), "%s/not-there", dir);
  TAP_OK(tls_material_make(missing, &m, err, sizeof(err)) != 0 &&
             strstr(err, "not-there") != NULL,
         "a folder that is not there: %s", err);
}

int main(void)
{
  char dir[4096];

  if (tap_mkdtemp(dir, sizeof(dir)) == NULL) {
    TAP_OK(0, "a scratch folder");
    return tap_done();
  }
  test_material(dir);
  test_failure_leaves_nothing(dir);
  TAP_OK(rmdir(dir) == 0, "the scratch folder is empty and removed");
  return tap_done();
}
