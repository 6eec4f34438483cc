/* Who closed the session's connection first, from the TCP states the OS
 * tells (platform_port_closers): the client must (protocol/SPEC.md,
 * section 3, step 6), so a socket of the server's port that sent its FIN
 * first means the server did not wait for the client's end of stream.
 * The states outlive the peers, so this is decided after the fact and
 * does not depend on when the runner looked. */
#ifndef CROSSRUN_RUNNER_CLOSERS_H
#define CROSSRUN_RUNNER_CLOSERS_H

#include <stddef.h>

#include "platforms/platform.h"

struct closers_watch {
  int known; /* the OS tells the states, and the baseline was taken */
  struct platform_closers before; /* already there at READY */
  struct platform_closers found;  /* there since, by their remote end */
};

/* Takes the baseline once the server listens on host:port: sockets of a
 * port the OS handed out again while earlier ones were still closing are
 * not this session's. Sets w->known. */
void closers_baseline(struct closers_watch *w, const char *host, int port);

/* Reads the states again and keeps the sockets not in the baseline. Call
 * when the server is reaped (a reset from the client can clear a
 * FIN_WAIT state later) and before the port is checked. */
void closers_note(struct closers_watch *w, const char *host, int port);

/* 1 with a one-line description of the first socket found in out when the
 * server closed first, else 0 (nothing found, or the OS cannot tell). */
int closers_describe(const struct closers_watch *w, const char *host, int port,
                     char *out, size_t outlen);

#endif
