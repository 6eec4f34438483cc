/* SHA-256 of files and byte strings (OpenSSL), as lowercase hex. */
#ifndef CROSSRUN_EVIDENCE_SHA256_H
#define CROSSRUN_EVIDENCE_SHA256_H

#include <stddef.h>

/* Writes a 32-byte digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(const unsigned char md[32], char hex[65]);

/* Hashes the file at path into hex[65]. Returns 0, or -1 with a message
 * "<path>: <problem>" in err. */
int sha256_file(const char *path, char hex[65], char *err, size_t errlen);

/* Hashes len bytes of data into hex[65]. Returns 0 or -1. */
int sha256_bytes(const void *data, size_t len, char hex[65]);

#endif
