/* Blocking TCP on 127.0.0.1 for the tests (see tests/lib_sockets.h). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tests/lib_sockets.h"
#include "tests/tap.h"

/* The port can be bound again at once: the client closed first. */
int sockets_port_free(int port)
{
  struct sockaddr_in a = {0};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int ok;

  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
  if (fd >= 0)
    close(fd);
  return ok;
}

int sockets_port_free6(int port)
{
  struct sockaddr_in6 a;
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  int ok;

  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_port = htons((uint16_t)port);
  a.sin6_addr = in6addr_loopback;
  ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
  if (fd >= 0)
    close(fd);
  return ok;
}

static void sock_deadlines(int fd)
{
  double t = tap_timeout_s(PEERS_READY_TIMEOUT_S);
  struct timeval tv = {(time_t)t, (suseconds_t)((t - (double)(time_t)t) * 1e6)};
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int sockets_connect(int port)
{
  struct sockaddr_in a = {0};
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    if (fd >= 0)
      close(fd);
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
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(fd, 1) != 0 || getsockname(fd, (struct sockaddr *)&a, &len)) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

/* Accepts the client's connection unless it exits or the deadline passes
 * first. */
int sockets_accept_from(int lfd, struct peers_proc *client)
{
  struct peers_proc *one[1] = {client};
  double deadline = peers_now_s() + tap_timeout_s(PEERS_READY_TIMEOUT_S);

  while (peers_now_s() < deadline && !client->reaped) {
    struct pollfd pfd = {lfd, POLLIN, 0};
    if (poll(&pfd, 1, 20) == 1) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0)
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
    ssize_t r = recv(fd, buf, n, 0);
    if (r < 0 && errno == EINTR)
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
    ssize_t r = send(fd, p, bytewise ? 1 : n, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

/* Reads until the peer closes, fails or goes quiet past the deadline. */
void sockets_drain(int fd)
{
  uint8_t scratch[4096];
  while (recv(fd, scratch, sizeof scratch, 0) > 0)
    ;
}
