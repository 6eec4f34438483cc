/* Blocking TCP on 127.0.0.1 for the tests (see tests/lib_sockets.h). */
#include <errno.h>
#include <limits.h>
#include <string.h>

#ifdef _WIN32
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* WSA_FLAG_NO_HANDLE_INHERIT */
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#endif

#include "tests/lib_sockets.h"
#include "tests/tap.h"

/* ---- what differs between POSIX sockets and Winsock ---- */

#ifdef _WIN32
/* A SOCKET is a kernel handle, and handles keep to 32 bits (Windows
 * shares them with 32-bit processes), so an int holds it; INVALID_SOCKET
 * becomes -1. Winsock starts on first use; a socket is not inherited by
 * the children the test starts (libuv's CreateProcess inherits handles). */
static int os_socket(int family)
{
  static int started;
  SOCKET s;

  if (!started) {
    WSADATA wsa;
    if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
      return -1;
    started = 1;
  }
  s = WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, NULL, 0,
                 WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET)
    return -1;
  SetHandleInformation((HANDLE)s, HANDLE_FLAG_INHERIT, 0);
  return (int)s;
}

/* A connection waiting on lfd, or -1 at once when none is. Not WSAPoll
 * and a blocking accept: under wine that accept could block with the
 * connection waiting in the backlog. The connection is made blocking
 * again (it inherits the listener's mode). */
static int os_accept_waiting(int lfd)
{
  u_long on = 1, off = 0;
  SOCKET s;

  ioctlsocket((SOCKET)lfd, FIONBIO, &on);
  s = accept((SOCKET)lfd, NULL, NULL);
  ioctlsocket((SOCKET)lfd, FIONBIO, &off);
  if (s == INVALID_SOCKET)
    return -1;
  ioctlsocket(s, FIONBIO, &off);
  SetHandleInformation((HANDLE)s, HANDLE_FLAG_INHERIT, 0);
  return (int)s;
}

/* Winsock takes its deadlines as a DWORD of milliseconds. */
static void os_deadlines(int fd, double t)
{
  DWORD ms = (DWORD)(t * 1000);
  setsockopt((SOCKET)fd, SOL_SOCKET, SO_RCVTIMEO, (const char *)&ms, sizeof ms);
  setsockopt((SOCKET)fd, SOL_SOCKET, SO_SNDTIMEO, (const char *)&ms, sizeof ms);
}

#define OS_NOSIGNAL 0 /* Windows has no SIGPIPE */
#define OS_EINTR(r) 0

void sockets_close(int fd)
{
  closesocket((SOCKET)fd);
}

void sockets_shutdown_write(int fd)
{
  shutdown((SOCKET)fd, SD_SEND);
}

#else

static int os_socket(int family)
{
  return socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static int os_accept_waiting(int lfd)
{
  struct pollfd pfd = {lfd, POLLIN, 0};
  if (poll(&pfd, 1, 20) != 1)
    return -1;
  return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

static void os_deadlines(int fd, double t)
{
  struct timeval tv = {(time_t)t, (suseconds_t)((t - (double)(time_t)t) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

#define OS_NOSIGNAL MSG_NOSIGNAL
#define OS_EINTR(r) ((r) < 0 && errno == EINTR)

void sockets_close(int fd)
{
  close(fd);
}

void sockets_shutdown_write(int fd)
{
  shutdown(fd, SHUT_WR);
}

#endif

/* ---- the same on both ---- */

static int bind_loopback(int fd, int family, int port)
{
  struct sockaddr_in a4;
  struct sockaddr_in6 a6;

  if (family == AF_INET) {
    memset(&a4, 0, sizeof a4);
    a4.sin_family = AF_INET;
    a4.sin_port = htons((uint16_t)port);
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return bind(fd, (struct sockaddr *)&a4, sizeof a4);
  }
  memset(&a6, 0, sizeof a6);
  a6.sin6_family = AF_INET6;
  a6.sin6_port = htons((uint16_t)port);
  a6.sin6_addr = in6addr_loopback;
  return bind(fd, (struct sockaddr *)&a6, sizeof a6);
}

/* The port can be bound again at once: the client closed first. */
static int port_free(int family, int port)
{
  int fd = os_socket(family);
  int ok = fd >= 0 && bind_loopback(fd, family, port) == 0;

  if (fd >= 0)
    sockets_close(fd);
  return ok;
}

int sockets_port_free(int port)
{
  return port_free(AF_INET, port);
}

int sockets_port_free6(int port)
{
  return port_free(AF_INET6, port);
}

static void sock_deadlines(int fd)
{
  int one = 1;
  os_deadlines(fd, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, (const void *)&one, sizeof one);
}

int sockets_connect(int port)
{
  struct sockaddr_in a = {0};
  int fd = os_socket(AF_INET);

  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    if (fd >= 0)
      sockets_close(fd);
    return -1;
  }
  sock_deadlines(fd);
  return fd;
}

/* A listening socket on 127.0.0.1 with an OS-chosen port. */
int sockets_listen_any(int *port)
{
  struct sockaddr_in a = {0};
  socklen_t len = sizeof a;
  int fd = os_socket(AF_INET);

  if (fd < 0 || bind_loopback(fd, AF_INET, 0) != 0 || listen(fd, 1) != 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len)) {
    if (fd >= 0)
      sockets_close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

int sockets_time_wait(int *port)
{
  struct sockaddr_in a = {0};
  socklen_t len = sizeof a;
  int one = 1, lfd = os_socket(AF_INET), c = -1, s = -1, rc = -1;
  uint8_t byte;

  if (lfd < 0 ||
      setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, (const void *)&one,
                 sizeof one) != 0 ||
      bind_loopback(lfd, AF_INET, 0) != 0 || listen(lfd, 1) != 0 ||
      getsockname(lfd, (struct sockaddr *)&a, &len) != 0)
    goto out;
  *port = ntohs(a.sin_port);
  c = sockets_connect(*port);
  for (double end = peers_now_s() + tap_timeout_s(PEERS_READY_TIMEOUT_S);
       c >= 0 && s < 0 && peers_now_s() < end;)
    s = os_accept_waiting(lfd);
  if (s < 0)
    goto out;
  sockets_close(s); /* the accepted end's FIN first */
  s = -1;
  if (sockets_recv_some(c, &byte, 1) == 0)
    rc = 0;
out:
  if (c >= 0)
    sockets_close(c);
  if (lfd >= 0)
    sockets_close(lfd);
  return rc;
}

/* Accepts the client's connection unless it exits or the deadline passes
 * first. */
int sockets_accept_from(int lfd, struct peers_proc *client)
{
  struct peers_proc *one[1] = {client};
  double deadline = peers_now_s() + tap_timeout_s(PEERS_READY_TIMEOUT_S);

  while (peers_now_s() < deadline && !client->reaped) {
    int fd = os_accept_waiting(lfd);
    if (fd >= 0) {
      sock_deadlines(fd);
      return fd;
    }
    peers_poll(one, 1);
  }
  return -1;
}

int sockets_read_exact(int fd, uint8_t *buf, size_t n)
{
  while (n > 0) {
    int r = (int)recv(fd, (char *)buf, n > INT_MAX ? INT_MAX : (int)n, 0);
    if (OS_EINTR(r))
      continue;
    if (r <= 0)
      return -1;
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

/* Sends all of p, one byte per send() when bytewise. */
int sockets_send_bytes(int fd, const uint8_t *p, size_t n, int bytewise)
{
  while (n > 0) {
    size_t chunk = bytewise ? 1 : n > INT_MAX ? INT_MAX : n;
    int r = (int)send(fd, (const char *)p, (int)chunk, OS_NOSIGNAL);
    if (OS_EINTR(r))
      continue;
    if (r <= 0)
      return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

int sockets_recv_some(int fd, uint8_t *buf, size_t n)
{
  int r;
  do
    r = (int)recv(fd, (char *)buf, n > INT_MAX ? INT_MAX : (int)n, 0);
  while (OS_EINTR(r));
  return r < 0 ? -1 : r;
}

/* Reads until the peer closes, fails or goes quiet past the deadline. */
void sockets_drain(int fd)
{
  uint8_t scratch[4096];
  while (sockets_recv_some(fd, scratch, sizeof scratch) > 0)
    ;
}
