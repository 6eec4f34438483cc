#include "runner/closers.h"

#include <stdio.h>
#include <string.h>

void closers_baseline(struct closers_watch *w, const char *host, int port)
{
  char err[160];

  memset(w, 0, sizeof(*w));
  w->known =
      platform_port_closers(host, port, &w->before, err, sizeof(err)) == 0;
}

/* The index of the socket to addr:port in set, or -1. */
static int listed(const struct platform_closers *set, const uint8_t *addr,
                  int port)
{
  int n = set->count < PLATFORM_CLOSERS_MAX ? set->count : PLATFORM_CLOSERS_MAX;

  for (int i = 0; i < n; i++)
    if (set->list[i].remote_port == port &&
        memcmp(set->list[i].remote_addr, addr, 16) == 0)
      return i;
  return -1;
}

void closers_note(struct closers_watch *w, const char *host, int port)
{
  struct platform_closers now;
  char err[160];

  if (!w->known ||
      platform_port_closers(host, port, &now, err, sizeof(err)) != 0)
    return;
  for (int i = 0; i < now.count && i < PLATFORM_CLOSERS_MAX; i++) {
    const uint8_t *addr = now.list[i].remote_addr;
    int rport = now.list[i].remote_port;
    int known = listed(&w->found, addr, rport);
    if (known >= 0)
      w->found.list[known].state = now.list[i].state; /* the latest */
    else if (listed(&w->before, addr, rport) < 0 &&
             w->found.count < PLATFORM_CLOSERS_MAX)
      w->found.list[w->found.count++] = now.list[i];
  }
}

int closers_describe(const struct closers_watch *w, const char *host, int port,
                     char *out, size_t outlen)
{
  int v6 = strchr(host, ':') != NULL;

  if (!w->known || w->found.count == 0)
    return 0;
  snprintf(out, outlen,
           "the server closed its connection first: its socket %s%s%s:%d to "
           "port %d is in %s (protocol/SPEC.md: the client closes first)",
           v6 ? "[" : "", host, v6 ? "]" : "", port,
           w->found.list[0].remote_port, w->found.list[0].state);
  return 1;
}
