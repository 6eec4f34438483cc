/* platform_port_closers on Linux: the kernel's TCP socket tables,
 * /proc/net/tcp and /proc/net/tcp6, which any process may read for its
 * own network namespace. Part of the Linux implementation of
 * platforms/platform.h. */
#include "platforms/linux_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* The kernel holds a socket in TIME_WAIT for TCP_TIMEWAIT_LEN, a
 * constant of 60 s, and tells how much of it is left. */
#define TIME_WAIT_MS 60000

/* A TIME_WAIT socket's age from the time its timer has left, else -1. */
static int64_t closer_age_ms(const char *state, int64_t left_ms)
{
  if (strcmp(state, "TIME_WAIT") != 0 || left_ms < 0 || left_ms > TIME_WAIT_MS)
    return -1;
  return TIME_WAIT_MS - left_ms;
}

static void add_closer(struct platform_closers *out, const uint8_t raddr[16],
                       int rport, const char *state, int64_t left_ms)
{
  if (out->count < PLATFORM_CLOSERS_MAX) {
    memcpy(out->list[out->count].remote_addr, raddr, 16);
    out->list[out->count].remote_port = rport;
    out->list[out->count].state = state;
    out->list[out->count].age_ms = closer_age_ms(state, left_ms);
  }
  out->count++;
}

static int scan_table(const char *path, const uint8_t host[16], int port,
                      struct platform_closers *out, char *err, size_t errlen)
{
  char line[512], local[64], remote[64];
  FILE *f = fopen(path, "r");
  long ticks = sysconf(_SC_CLK_TCK);
  unsigned st, timer;
  unsigned long when;

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

    int64_t left_ms = -1;

    if (sscanf(line, " %*[0-9]: %63s %63s %x", local, remote, &st) != 3 ||
        parse_end(local, laddr, &lport) != 0 || lport != port ||
        memcmp(laddr, host, 16) != 0 || (state = closer_state(st)) == NULL ||
        parse_end(remote, raddr, &rport) != 0)
      continue;
    /* "tr:tm->when": timer 3 is TIME_WAIT's, its time left in clock ticks. */
    if (sscanf(line, " %*[0-9]: %*s %*s %*x %*x:%*x %x:%lx", &timer, &when) ==
            2 &&
        timer == 3 && ticks > 0 && when < 1000000000ul)
      left_ms = (int64_t)when * 1000 / ticks;
    add_closer(out, raddr, rport, state, left_ms);
  }
  fclose(f);
  return 0;
}

int linux_tcp_table_closers(const char *path, const char *host, int port,
                            struct platform_closers *out, char *err,
                            size_t errlen)
{
  uint8_t bytes[16];

  memset(out, 0, sizeof(*out));
  if (host_bytes(host, bytes) != 0) {
    snprintf(err, errlen, "'%s' is not a numeric address", host);
    return -EINVAL;
  }
  return scan_table(path, bytes, port, out, err, errlen);
}

/* A sock_diag address as 16 bytes, IPv4 mapped into IPv6. */
static void diag_addr(int family, const __be32 *words, uint8_t out[16])
{
  if (family == AF_INET) {
    memset(out, 0, 10);
    out[10] = out[11] = 0xff;
    memcpy(out + 12, words, 4);
  } else {
    memcpy(out, words, 16);
  }
}

/* The same table through the kernel's socket diagnostics, asking for the
 * closers' states of port only: its walk of the hash skips empty buckets
 * without the per-bucket reschedule point of /proc/net/tcp's, an order of
 * magnitude less of the coordinator's CPU, and nothing is formatted or
 * parsed as text. family AF_UNSPEC is both families in one walk: the
 * older TCPDIAG_GETSOCK request, which the kernel answers for every
 * socket of the hash whatever its family, where SOCK_DIAG_BY_FAMILY walks
 * the same hash (some 1.5 ms of CPU with 2^18 buckets) once per family.
 * Returns 0, or -1 when the request cannot be used (the caller then asks
 * another way). */
static int diag_scan(int family, const uint8_t host[16], int port,
                     struct platform_closers *out)
{
  union {
    struct {
      struct nlmsghdr nh;
      struct inet_diag_req_v2 req;
    } v2;
    struct {
      struct nlmsghdr nh;
      struct inet_diag_req req;
    } both;
  } msg;
  struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
  char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  /* closer_state's four */
  const uint32_t states =
      (1u << 0x04) | (1u << 0x05) | (1u << 0x06) | (1u << 0x0B);
  const int type = family == AF_UNSPEC ? TCPDIAG_GETSOCK : SOCK_DIAG_BY_FAMILY;
  size_t len;
  int rc = -1;

  if (fd < 0)
    return -1;
  memset(&msg, 0, sizeof(msg));
  if (family == AF_UNSPEC) {
    len = sizeof(msg.both);
    msg.both.req.idiag_family = AF_INET;
    msg.both.req.idiag_states = states;
    msg.both.req.id.idiag_sport = htons((uint16_t)port);
  } else {
    len = sizeof(msg.v2);
    msg.v2.req.sdiag_family = (uint8_t)family;
    msg.v2.req.sdiag_protocol = IPPROTO_TCP;
    msg.v2.req.idiag_states = states;
    msg.v2.req.id.idiag_sport = htons((uint16_t)port);
  }
  msg.v2.nh.nlmsg_len = (uint32_t)len;
  msg.v2.nh.nlmsg_type = (uint16_t)type;
  msg.v2.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  msg.v2.nh.nlmsg_seq = 1;
  if (sendto(fd, &msg, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
    goto out;
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      goto out;
    for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n);
         nh = NLMSG_NEXT(nh, n)) {
      const struct inet_diag_msg *d = NLMSG_DATA(nh);
      uint8_t laddr[16], raddr[16];
      const char *state;

      if (nh->nlmsg_type == NLMSG_DONE) {
        rc = 0;
        goto out;
      }
      if (nh->nlmsg_type == NLMSG_ERROR)
        goto out;
      if (nh->nlmsg_type != type || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*d)))
        continue;
      state = closer_state(d->idiag_state);
      if (state == NULL || ntohs(d->id.idiag_sport) != port)
        continue;
      diag_addr(d->idiag_family, d->id.idiag_src, laddr);
      if (memcmp(laddr, host, 16) != 0)
        continue;
      diag_addr(d->idiag_family, d->id.idiag_dst, raddr);
      add_closer(out, raddr, ntohs(d->id.idiag_dport), state,
                 (int64_t)d->idiag_expires);
    }
  }
out:
  close(fd);
  return rc;
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
  /* Reading the tables walks every bucket of the kernel's TCP hash (some
   * 5 ms of the coordinator's CPU per table on a machine with 2^18
   * buckets). A socket in any state whose local end is host:port keeps
   * that address from being bound again (the bind test is a lookup by
   * port), so where the bind succeeds there is no closer to look for. */
  {
    char bind_err[160];
    if (platform_port_free(host, port, bind_err, sizeof(bind_err)) == 1)
      return 0;
  }
  if (diag_scan(AF_UNSPEC, bytes, port, out) == 0)
    return 0;
  memset(out, 0, sizeof(*out));
  if (diag_scan(AF_INET, bytes, port, out) == 0 &&
      diag_scan(AF_INET6, bytes, port, out) == 0)
    return 0;
  memset(out, 0, sizeof(*out));
  rc = scan_table("/proc/net/tcp", bytes, port, out, err, errlen);
  if (rc == 0)
    rc = scan_table("/proc/net/tcp6", bytes, port, out, err, errlen);
  return rc;
}
