#include "runner/closers.h"

#include <stdio.h>
#include <string.h>

/* How much older than READY a socket must be to be an earlier one: the
 * kernel counts a TIME_WAIT socket's time in ticks of up to 10 ms, and the
 * runner sees READY after the server bound its port. */
#define CLOSERS_AGE_MARGIN_MS 1000

int closers_history_has(const struct closers_history *h, int port)
{
  unsigned bit = (unsigned)port & 0xFFFF;

  return (h->used[bit / 8] >> (bit % 8)) & 1u;
}

void closers_history_mark(struct closers_history *h, int port)
{
  unsigned bit = (unsigned)port & 0xFFFF;

  h->used[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

void closers_baseline(struct closers_watch *w, struct closers_history *h,
                      const char *host, int port, uint64_t now_ns)
{
  char err[160];

  memset(w, 0, sizeof(*w));
  w->ready_ns = now_ns;
  if (h != NULL && !closers_history_has(h, port)) {
    closers_history_mark(h, port);
    w->known = 1; /* closers_note finds out whether the OS tells */
    return;
  }
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

void closers_note(struct closers_watch *w, const char *host, int port,
                  uint64_t now_ns)
{
  struct platform_closers now;
  char err[160];
  int64_t since_ready_ms = (int64_t)((now_ns - w->ready_ns) / 1000000u);

  if (!w->known ||
      platform_port_closers(host, port, &now, err, sizeof(err)) != 0)
    return;
  for (int i = 0; i < now.count && i < PLATFORM_CLOSERS_MAX; i++) {
    const uint8_t *addr = now.list[i].remote_addr;
    int rport = now.list[i].remote_port;
    int known = listed(&w->found, addr, rport);
    if (now.list[i].age_ms > since_ready_ms + CLOSERS_AGE_MARGIN_MS)
      continue;
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
