/* Who closed the session's connection first, from the TCP states the OS
 * tells (platform_port_closers): the client must (protocol/SPEC.md,
 * section 3, step 6), so a socket of the server's port that sent its FIN
 * first means the server did not wait for the client's end of stream.
 * The states outlive the peers, so this is decided after the fact and
 * does not depend on when the runner looked. */
#ifndef CROSSRUN_RUNNER_CLOSERS_H
#define CROSSRUN_RUNNER_CLOSERS_H

#include <stddef.h>
#include <stdint.h>

#include "platforms/platform.h"

struct closers_watch {
  int known; /* the OS tells the states, and the baseline was taken */
  struct platform_closers before; /* already there at READY */
  struct platform_closers found;  /* there since, by their remote end */
  uint64_t ready_ns;              /* when the server listened (uv_hrtime) */
};

/* The ports the run's samples listened on. Reading the states walks the
 * kernel's whole TCP hash (most of the coordinator's own CPU in a sample),
 * and at READY it finds nothing but the listener unless an earlier
 * connection's socket still holds the port: the kernel hands a server that
 * binds port 0 a port no socket is bound to, so that happens only to a
 * port used before. The baseline is read for those; an older socket of a
 * port new to the run (a server that binds a fixed port, an earlier run)
 * is told by its age instead (closers_note). */
struct closers_history {
  uint8_t used[65536 / 8];
};

/* Whether h holds port. */
int closers_history_has(const struct closers_history *h, int port);

/* Puts port into h. */
void closers_history_mark(struct closers_history *h, int port);

/* Takes the baseline once the server listens on host:port: sockets of a
 * port the OS handed out again while earlier ones were still closing are
 * not this session's. With a history, only for a port it holds; the port
 * goes into it. Sets w->known. */
void closers_baseline(struct closers_watch *w, struct closers_history *h,
                      const char *host, int port, uint64_t now_ns);

/* Reads the states again and keeps the sockets not in the baseline and
 * not older than the server's READY (by more than a second: the kernel
 * tells a TIME_WAIT socket's age to the tick). Call when the server is
 * reaped (a reset from the client can clear a FIN_WAIT state later) and
 * before the port is checked. */
void closers_note(struct closers_watch *w, const char *host, int port,
                  uint64_t now_ns);

/* 1 with a one-line description of the first socket found in out when the
 * server closed first, else 0 (nothing found, or the OS cannot tell). */
int closers_describe(const struct closers_watch *w, const char *host, int port,
                     char *out, size_t outlen);

#endif
