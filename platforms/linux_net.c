/* platform_port_closers on Linux: the kernel's TCP socket tables,
 * /proc/net/tcp and /proc/net/tcp6, which any process may read for its
 * own network namespace. Part of the Linux implementation of
 * platforms/platform.h. */
#include "platforms/platform.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The states of include/net/tcp_states.h in which this end sent its FIN
 * first. */
static const char *closer_state(unsigned st)
{
  switch (st) {
  case 0x04:
    return "FIN_WAIT1";
  case 0x05:
    return "FIN_WAIT2";
  case 0x06:
    return "TIME_WAIT";
  case 0x0B:
    return "CLOSING";
  default:
    return NULL;
  }
}

/* The host as 16 bytes, IPv4 mapped into IPv6. Returns 0 or -1. */
static int host_bytes(const char *host, uint8_t out[16])
{
  struct in_addr a4;

  if (host == NULL)
    return -1;
  if (inet_pton(AF_INET6, host, out) == 1)
    return 0;
  if (inet_pton(AF_INET, host, &a4) != 1)
    return -1;
  memset(out, 0, 10);
  out[10] = out[11] = 0xff;
  memcpy(out + 12, &a4, 4);
  return 0;
}

/* An address as the kernel prints it: 8 or 32 hex digits, each group of
 * 8 one 32-bit word in the machine's byte order. Returns 0 or -1. */
static int parse_addr(const char *hex, size_t len, uint8_t out[16])
{
  uint32_t words[4];
  size_t n = len / 8;

  if ((len != 8 && len != 32) || strspn(hex, "0123456789abcdefABCDEF") < len)
    return -1;
  for (size_t i = 0; i < n; i++) {
    char part[9];
    memcpy(part, hex + 8 * i, 8);
    part[8] = '\0';
    words[i] = (uint32_t)strtoul(part, NULL, 16);
  }
  if (n == 1) {
    memset(out, 0, 10);
    out[10] = out[11] = 0xff;
    memcpy(out + 12, &words[0], 4);
  } else {
    memcpy(out, words, 16);
  }
  return 0;
}

/* "ADDR:PORT" at s. Returns 0 or -1. */
static int parse_end(const char *s, uint8_t addr[16], int *port)
{
  const char *colon = strchr(s, ':');
  unsigned p;

  if (colon == NULL || parse_addr(s, (size_t)(colon - s), addr) != 0 ||
      sscanf(colon + 1, "%4x", &p) != 1)
    return -1;
  *port = (int)p;
  return 0;
}

static int scan_table(const char *path, const uint8_t host[16], int port,
                      struct platform_closers *out, char *err, size_t errlen)
{
  char line[512], local[64], remote[64];
  FILE *f = fopen(path, "r");
  unsigned st;

  if (f == NULL) {
    if (errno == ENOENT)
      return 0; /* no IPv6 in this kernel */
    snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    return -errno;
  }
  while (fgets(line, sizeof(line), f) != NULL) {
    uint8_t laddr[16], raddr[16];
    int lport, rport;
    const char *state;

    if (sscanf(line, " %*[0-9]: %63s %63s %x", local, remote, &st) != 3 ||
        parse_end(local, laddr, &lport) != 0 || lport != port ||
        memcmp(laddr, host, 16) != 0 || (state = closer_state(st)) == NULL ||
        parse_end(remote, raddr, &rport) != 0)
      continue;
    if (out->count < PLATFORM_CLOSERS_MAX) {
      memcpy(out->list[out->count].remote_addr, raddr, 16);
      out->list[out->count].remote_port = rport;
      out->list[out->count].state = state;
    }
    out->count++;
  }
  fclose(f);
  return 0;
}

int platform_port_closers(const char *host, int port,
                          struct platform_closers *out, char *err,
                          size_t errlen)
{
  uint8_t bytes[16];
  int rc;

  memset(out, 0, sizeof(*out));
  if (host_bytes(host, bytes) != 0) {
    snprintf(err, errlen, "'%s' is not a numeric address", host);
    return -EINVAL;
  }
  rc = scan_table("/proc/net/tcp", bytes, port, out, err, errlen);
  if (rc == 0)
    rc = scan_table("/proc/net/tcp6", bytes, port, out, err, errlen);
  return rc;
}
