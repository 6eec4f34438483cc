/* The POSIX side of tests/fixture_os.h: blocking sockets, poll, fork and
 * setsid for the orphan, SIGABRT for the signal death. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tests/fixture.h"
#include "tests/fixture_os.h"

void fixture_os_init(void)
{
  signal(SIGPIPE, SIG_IGN);
}

void fixture_os_close(int fd)
{
  close(fd);
}

ssize_t fixture_os_send(int fd, const void *data, size_t len, int nowait)
{
  return send(fd, data, len, MSG_NOSIGNAL | (nowait ? MSG_DONTWAIT : 0));
}

ssize_t fixture_os_recv(int fd, void *buf, size_t len, int nowait)
{
  return recv(fd, buf, len, nowait ? MSG_DONTWAIT : 0);
}

int fixture_os_poll(struct pollfd *pfd, int timeout_ms)
{
  return poll(pfd, 1, timeout_ms);
}

void fixture_os_nodelay(int fd)
{
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

int fixture_os_cork(int fd)
{
  int on = 1;
  return setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

const char *fixture_os_error(void)
{
  return strerror(errno);
}

uint64_t fixture_os_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void fixture_os_sleep_forever(void)
{
  for (;;)
    pause();
}

void fixture_os_cpu_us(long *user_us, long *system_us)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *user_us = (long)ru.ru_utime.tv_sec * 1000000 + (long)ru.ru_utime.tv_usec;
  *system_us = (long)ru.ru_stime.tv_sec * 1000000 + (long)ru.ru_stime.tv_usec;
}

void fixture_os_orphan(int lfd, unsigned seconds)
{
  pid_t pid = fork();

  (void)lfd; /* the child holds it by inheriting it */
  if (pid < 0)
    fixture_die(1, "fork: %s", strerror(errno));
  if (pid == 0) {
    /* Escapes the process group, keeps the port, lets go of the
     * runner's pipes so that only the port and the process remain. */
    int null = open("/dev/null", O_RDWR);
    setsid();
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
      if (null > 2)
        close(null);
    }
    sleep(seconds);
    _exit(0);
  }
}

void fixture_os_orphan_main(unsigned seconds)
{
  sleep(seconds);
  exit(0);
}

void fixture_os_die_abnormally(void)
{
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  raise(SIGABRT);
  _exit(1);
}
