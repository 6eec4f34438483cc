#include "lanes/c/lane.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum lane_flag {
  FLAG_LISTEN,
  FLAG_CONNECT,
  FLAG_WARMUP,
  FLAG_ROUND_TRIPS,
  FLAG_PAYLOAD_BYTES,
  FLAG_MAX_IN_FLIGHT,
  FLAG_COUNT
};

static const struct {
  const char *name;
  enum lane_role role;
} lane_flags[FLAG_COUNT] = {
    [FLAG_LISTEN] = {"--listen", LANE_SERVER},
    [FLAG_CONNECT] = {"--connect", LANE_CLIENT},
    [FLAG_WARMUP] = {"--warmup", LANE_CLIENT},
    [FLAG_ROUND_TRIPS] = {"--round-trips", LANE_CLIENT},
    [FLAG_PAYLOAD_BYTES] = {"--payload-bytes", LANE_CLIENT},
    [FLAG_MAX_IN_FLIGHT] = {"--max-in-flight", LANE_CLIENT},
};

static int lane_errorf(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int lane_errorf(char *err, size_t err_size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
  return -1;
}

/* Decimal digits only: no sign, no spaces, no hex, no overflow. */
static int lane_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
  uint64_t v = 0;
  if (*s == '\0')
    return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return -1;
    unsigned d = (unsigned)(*s - '0');
    if (v > (max - d) / 10)
      return -1;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

/* HOST:PORT with a numeric IPv4 host, or [HOST]:PORT with a numeric IPv6
 * one (lanes/README.md): "::1:0" is refused, since without the brackets
 * the port cannot be told from the address. */
static int lane_parse_addr(const char *text, enum lane_role role,
                           struct sockaddr_storage *addr)
{
  char host[64];
  const char *colon = strrchr(text, ':');
  const char *h = text;
  size_t hlen;
  uint64_t port;
  int ipv6 = 0;

  if (colon == NULL)
    return -1;
  hlen = (size_t)(colon - text);
  if (hlen >= 2 && text[0] == '[' && text[hlen - 1] == ']') {
    h = text + 1;
    hlen -= 2;
    ipv6 = 1;
  }
  if (hlen == 0 || hlen >= sizeof host)
    return -1;
  memcpy(host, h, hlen);
  host[hlen] = '\0';
  if (lane_parse_u64(colon + 1, 65535, &port) != 0)
    return -1;
  if (role == LANE_CLIENT && port == 0)
    return -1;
  memset(addr, 0, sizeof *addr);
  if (ipv6)
    return uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)addr) ? -1 : 0;
  return uv_ip4_addr(host, (int)port, (struct sockaddr_in *)addr) ? -1 : 0;
}

int lane_args_parse(struct lane_args *args, enum lane_role role, int argc,
                    char **argv, char *err, size_t err_size)
{
  const char *values[FLAG_COUNT] = {0};
  uint64_t n[FLAG_COUNT] = {0};
  int i, f;

  memset(args, 0, sizeof *args);
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *eq = strchr(arg, '=');
    size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *value;

    for (f = 0; f < FLAG_COUNT; f++)
      if (lane_flags[f].role == role &&
          strlen(lane_flags[f].name) == name_len &&
          memcmp(lane_flags[f].name, arg, name_len) == 0)
        break;
    if (f == FLAG_COUNT)
      return lane_errorf(err, err_size, "unknown argument '%s'", arg);
    if (eq) {
      value = eq + 1;
    } else {
      if (i + 1 >= argc)
        return lane_errorf(err, err_size, "'%s' needs a value", arg);
      value = argv[++i];
    }
    if (values[f])
      return lane_errorf(err, err_size, "'%s' given twice", lane_flags[f].name);
    values[f] = value;
  }

  for (f = 0; f < FLAG_COUNT; f++) {
    if (lane_flags[f].role != role)
      continue;
    if (values[f] == NULL)
      return lane_errorf(err, err_size, "missing '%s'", lane_flags[f].name);
    if (f == FLAG_LISTEN || f == FLAG_CONNECT) {
      if (lane_parse_addr(values[f], role, &args->addr) != 0)
        return lane_errorf(err, err_size, "%s: bad address '%s' (expected %s)",
                           lane_flags[f].name, values[f],
                           role == LANE_SERVER
                               ? "127.0.0.1:0 or [::1]:0"
                               : "127.0.0.1:PORT or [::1]:PORT");
      snprintf(args->addr_text, sizeof args->addr_text, "%s", values[f]);
    } else if (lane_parse_u64(values[f], UINT64_MAX, &n[f]) != 0) {
      return lane_errorf(err, err_size, "%s: bad number '%s'",
                         lane_flags[f].name, values[f]);
    }
  }

  if (role == LANE_CLIENT) {
    struct proto_workload *w = &args->workload;
    if (n[FLAG_PAYLOAD_BYTES] > PROTO_MAX_PAYLOAD_BYTES)
      return lane_errorf(err, err_size, "--payload-bytes: %s is over %u",
                         values[FLAG_PAYLOAD_BYTES], PROTO_MAX_PAYLOAD_BYTES);
    if (n[FLAG_MAX_IN_FLIGHT] < 1 ||
        n[FLAG_MAX_IN_FLIGHT] > PROTO_MAX_IN_FLIGHT)
      return lane_errorf(err, err_size, "--max-in-flight: %s is not in 1..%u",
                         values[FLAG_MAX_IN_FLIGHT], PROTO_MAX_IN_FLIGHT);
    w->warmup = n[FLAG_WARMUP];
    w->round_trips = n[FLAG_ROUND_TRIPS];
    w->payload_bytes = (uint32_t)n[FLAG_PAYLOAD_BYTES];
    w->max_in_flight = (uint32_t)n[FLAG_MAX_IN_FLIGHT];
    if (proto_workload_check(w) != 0)
      return lane_errorf(err, err_size,
                         "bad workload: --round-trips must be 1 or more and "
                         "--warmup plus --round-trips below 2^62");
  }
  return 0;
}

int lane_addr_port(const struct sockaddr_storage *addr)
{
  if (addr->ss_family == AF_INET6)
    return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
  return ntohs(((const struct sockaddr_in *)addr)->sin_port);
}

void lane_ignore_sigpipe(void)
{
  /* A feature test, not a platform test: SIGPIPE exists wherever a write
   * to a closed socket can raise it. */
#ifdef SIGPIPE
  signal(SIGPIPE, SIG_IGN);
#endif
}
