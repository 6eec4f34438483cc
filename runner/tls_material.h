/* The TLS material of one sample (protocol/SPEC.md section 9), made with
 * OpenSSL's API: a fresh CA and a leaf it signs, written as ca.pem,
 * cert.pem and key.pem (mode 0600) into a folder the caller owns and
 * removes. The CA's private key never leaves memory. */
#ifndef CROSSRUN_RUNNER_TLS_MATERIAL_H
#define CROSSRUN_RUNNER_TLS_MATERIAL_H

#include <stddef.h>

#define TLS_MATERIAL_PATH_MAX 4200

/* The leaf is valid from this many seconds before it is made to this many
 * after: a minute of slack for a clock that steps back during a sample,
 * an hour for the longest sample. */
#define TLS_MATERIAL_NOT_BEFORE_S 60
#define TLS_MATERIAL_NOT_AFTER_S 3600

struct tls_material {
  char ca[TLS_MATERIAL_PATH_MAX];   /* the CA certificate (PEM) */
  char cert[TLS_MATERIAL_PATH_MAX]; /* the leaf certificate (PEM) */
  char key[TLS_MATERIAL_PATH_MAX];  /* the leaf's key (PEM, PKCS#8) */
};

/* Makes a CA (self-signed, ECDSA P-256, CA:TRUE, keyCertSign and cRLSign)
 * and a leaf signed by it (ECDSA P-256, CA:FALSE, digitalSignature, EKU
 * serverAuth, SAN IP:127.0.0.1 and IP:::1, valid from
 * TLS_MATERIAL_NOT_BEFORE_S before now to TLS_MATERIAL_NOT_AFTER_S after),
 * and writes the three files into dir, which must exist; key.pem is
 * created with mode 0600 and never through a wider mode. Fills m with the
 * files' paths. Returns 0, or -1 with the problem (OpenSSL's reason
 * included) in err; then no file of it is left in dir. */
int tls_material_make(const char *dir, struct tls_material *m, char *err,
                      size_t errlen);

#endif
