#include "evidence/base/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <openssl/evp.h>

void sha256_hex(const unsigned char md[32], char hex[65])
{
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = digits[md[i] >> 4];
    hex[2 * i + 1] = digits[md[i] & 15];
  }
  hex[64] = '\0';
}

int sha256_bytes(const void *data, size_t len, char hex[65])
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;

  if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
    return -1;
  sha256_hex(md, hex);
  return 0;
}

int sha256_file(const char *path, char hex[65], char *err, size_t errlen)
{
  unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
  unsigned int mdlen = 0;
  EVP_MD_CTX *ctx;
  FILE *f;
  size_t n;
  int rc = -1;

  f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  ctx = EVP_MD_CTX_new();
  if (ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1) {
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
      EVP_DigestUpdate(ctx, buf, n);
    if (!ferror(f) && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32) {
      sha256_hex(md, hex);
      rc = 0;
    }
  }
  if (rc != 0)
    snprintf(err, errlen, "%s: cannot hash", path);
  EVP_MD_CTX_free(ctx);
  fclose(f);
  return rc;
}
