/* Blocking TCP on 127.0.0.1 for tests that play one side of a session
 * themselves: every socket these return has send and receive deadlines
 * (PEERS_READY_TIMEOUT_S, scaled by tap_timeout_s()) and TCP_NODELAY, and
 * is not inherited by the children the test starts (close-on-exec).
 * POSIX sockets or Winsock; a socket is an int on both (a Winsock SOCKET
 * fits), -1 when there is none. */
#ifndef CROSSRUN_TESTS_LIB_SOCKETS_H
#define CROSSRUN_TESTS_LIB_SOCKETS_H

#include <stddef.h>
#include <stdint.h>

#include "tests/lib_peers.h"

/* 1 when 127.0.0.1:port can be bound again at once (after a session: the
 * client closed first), else 0. */
int sockets_port_free(int port);

/* The same on ::1: 1 when [::1]:port can be bound again, and (port 0)
 * whether the machine has an IPv6 loopback at all. */
int sockets_port_free6(int port);

/* A connection to 127.0.0.1:port, or -1. The caller closes it. */
int sockets_connect(int port);

/* A listening socket on 127.0.0.1 with an OS-chosen port (in *port), or
 * -1. The caller closes it. */
int sockets_listen_any(int *port);

/* Leaves a socket of 127.0.0.1:*port (an OS-chosen port) in TIME_WAIT:
 * a listener with address reuse, a connection to it, and the accepted end
 * closed before the connecting one. A server that binds that port with
 * address reuse may listen on it at once. Returns 0 or -1. */
int sockets_time_wait(int *port);
/* Accepts the client's connection on lfd unless the client exits or the
 * deadline passes first (polling the client meanwhile). Returns the
 * connection, or -1. */
int sockets_accept_from(int lfd, struct peers_proc *client);

/* Receives exactly n bytes. Returns 0, or -1 at end of stream, on error or
 * at the deadline. */
int sockets_read_exact(int fd, uint8_t *buf, size_t n);

/* Sends all of p, one byte per send() when bytewise. Returns 0 or -1. */
int sockets_send_bytes(int fd, const uint8_t *p, size_t n, int bytewise);

/* One recv of at most n bytes: the bytes read, 0 at end of stream, or -1
 * on error or at the deadline. */
int sockets_recv_some(int fd, uint8_t *buf, size_t n);

/* Ends the sending side (shutdown for writing). */
void sockets_shutdown_write(int fd);

/* Closes a socket these returned. */
void sockets_close(int fd);

/* Reads until the peer closes, fails or goes quiet past the deadline. */
void sockets_drain(int fd);

#endif
