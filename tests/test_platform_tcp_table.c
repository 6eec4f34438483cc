/* platforms/linux_net.c: the fallback reader of /proc/net/tcp and
 * /proc/net/tcp6 that platform_port_closers uses where socket diagnostics
 * are refused, fed tables of the kernel's format that this test writes:
 * only closing states of the asked host and port count, a TIME_WAIT
 * socket's age comes from its timer, and lines that do not parse, other
 * hosts, ports and states are passed over. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib_scratch.h"
#include "tests/tap.h"

#ifdef __linux__
#include "platforms/linux_internal.h"

#define HEAD                                                                   \
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "        \
  "retrnsmt   uid  timeout inode\n"

/* A table line: the local and remote ends, the state, the timer and its
 * time left in clock ticks (hexadecimal, as the kernel prints them). */
static void row(char *out, size_t len, int sl, const char *local,
                const char *remote, const char *state, const char *timer)
{
  snprintf(out, len,
           "%4d: %s %s %s 00000000:00000000 %s 00000000     0        0 "
           "4242 1 0000000000000000 20 4 30 10 -1\n",
           sl, local, remote, state, timer);
}

static int table(const char *name, const char *rows, char *path)
{
  char text[4096];

  snprintf(text, sizeof(text), "%s%s", HEAD, rows);
  scratch_path(path, name);
  return scratch_write(path, text, strlen(text));
}

static void ipv4(void)
{
  char rows[3000], r[300], path[SCRATCH_PATH_CAP], err[200];
  struct platform_closers c;
  long ticks = sysconf(_SC_CLK_TCK);
  size_t n = 0;
  int rc;

  /* 127.0.0.1:8080, its listener, and what its sessions left. */
  const char *const lines[][4] = {
      {"0100007F:1F90", "00000000:0000", "0A", "00:00000000"},
      /* TIME_WAIT to 127.0.0.1:50000, 3000 ticks of its 60 s left */
      {"0100007F:1F90", "0100007F:C350", "06", "03:00000BB8"},
      /* FIN_WAIT2 to 127.0.0.1:50001: no TIME_WAIT timer */
      {"0100007F:1F90", "0100007F:C351", "05", "02:00000064"},
      /* TIME_WAIT with more left than TIME_WAIT lasts: age unknown */
      {"0100007F:1F90", "0100007F:C352", "06", "03:000FFFFF"},
      /* ESTABLISHED, not a closer */
      {"0100007F:1F90", "0100007F:C353", "01", "00:00000000"},
      /* another port, another host */
      {"0100007F:1F91", "0100007F:C354", "06", "03:00000BB8"},
      {"0200007F:1F90", "0100007F:C355", "06", "03:00000BB8"},
      /* not an address */
      {"0100007G:1F90", "0100007F:C356", "06", "03:00000BB8"},
  };
  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
    row(r, sizeof(r), (int)i, lines[i][0], lines[i][1], lines[i][2],
        lines[i][3]);
    n += (size_t)snprintf(rows + n, sizeof(rows) - n, "%s", r);
  }
  n += (size_t)snprintf(rows + n, sizeof(rows) - n, "garbage\n   9:\n");
  if (!TAP_OK(table("tcp", rows, path) == 0, "tcp table: written"))
    return;
  rc = linux_tcp_table_closers(path, "127.0.0.1", 8080, &c, err, sizeof(err));
  TAP_EQ_INT(rc, 0, "tcp table: read (%s)", rc ? err : "");
  if (!TAP_EQ_INT(c.count, 3, "tcp table: the three closers of the port"))
    return;
  TAP_EQ_STR(c.list[0].state, "TIME_WAIT", "tcp table: the first's state");
  TAP_EQ_INT(c.list[0].remote_port, 50000, "tcp table: the first's peer port");
  TAP_OK(memcmp(c.list[0].remote_addr,
                "\0\0\0\0\0\0\0\0\0\0\xff\xff\x7f\0\0\x01", 16) == 0,
         "tcp table: the first's peer address, IPv4 mapped");
  TAP_EQ_INT(c.list[0].age_ms, 60000 - 3000 * 1000 / ticks,
             "tcp table: a TIME_WAIT socket's age from its timer");
  TAP_EQ_STR(c.list[1].state, "FIN_WAIT2", "tcp table: the second's state");
  TAP_EQ_INT(c.list[1].age_ms, -1, "tcp table: no age outside TIME_WAIT");
  TAP_EQ_INT(c.list[2].age_ms, -1,
             "tcp table: no age from a timer longer than TIME_WAIT");
  rc = linux_tcp_table_closers(path, "127.0.0.2", 8080, &c, err, sizeof(err));
  TAP_OK(rc == 0 && c.count == 1 && c.list[0].remote_port == 0xC355,
         "tcp table: another host's sockets are its own");
}

static void ipv6(void)
{
  char rows[1000], r[300], path[SCRATCH_PATH_CAP], err[200];
  struct platform_closers c;
  int rc;

  /* ::1 as four 32-bit words in the machine's order, then an IPv4-mapped
   * 127.0.0.1, the way an IPv6 listener holds an IPv4 session. */
  row(rows, sizeof(rows), 0, "00000000000000000000000001000000:1F90",
      "00000000000000000000000001000000:C350", "0B", "00:00000000");
  row(r, sizeof(r), 1, "0000000000000000FFFF00000100007F:1F90",
      "0000000000000000FFFF00000100007F:C351", "06", "03:00000001");
  snprintf(rows + strlen(rows), sizeof(rows) - strlen(rows), "%s", r);
  if (!TAP_OK(table("tcp6", rows, path) == 0, "tcp6 table: written"))
    return;
  rc = linux_tcp_table_closers(path, "::1", 8080, &c, err, sizeof(err));
  TAP_OK(rc == 0 && c.count == 1 && strcmp(c.list[0].state, "CLOSING") == 0 &&
             c.list[0].remote_port == 50000,
         "tcp6 table: ::1's CLOSING socket");
  rc = linux_tcp_table_closers(path, "127.0.0.1", 8080, &c, err, sizeof(err));
  TAP_OK(rc == 0 && c.count == 1 && c.list[0].remote_port == 50001,
         "tcp6 table: an IPv4-mapped end is the IPv4 host's");
}

static void errors(void)
{
  char path[SCRATCH_PATH_CAP], err[200];
  struct platform_closers c;
  int rc;

  scratch_path(path, "no-such-table");
  rc = linux_tcp_table_closers(path, "127.0.0.1", 8080, &c, err, sizeof(err));
  TAP_OK(rc == 0 && c.count == 0, "a missing table is empty (no IPv6)");
  rc = linux_tcp_table_closers(path, "localhost", 8080, &c, err, sizeof(err));
  TAP_OK(rc < 0 && strstr(err, "not a numeric address") != NULL,
         "a host name is refused: %s", err);
}
#endif

int main(void)
{
#ifdef __linux__
  if (scratch_create() != 0)
    return tap_done();
  ipv4();
  ipv6();
  errors();
  scratch_remove();
#else
  TAP_OK(1, "the tables of /proc/net/tcp # SKIP Linux only");
#endif
  return tap_done();
}
