/* What tests/fixture needs of its OS, in one place: sockets, poll, time,
 * CPU times, and the faults that are the OS's own (the escaping orphan,
 * the death by a signal). tests/fixture_os_posix.c is the POSIX side,
 * tests/fixture_os_windows.c the Windows one (Winsock, CreateProcess);
 * everything else of the fixture is the same on both.
 *
 * A socket is an int on both: a Winsock SOCKET is a kernel handle, and
 * handles keep to 32 bits (Windows shares them with 32-bit processes), so
 * the int holds it, and INVALID_SOCKET becomes -1. */
#ifndef CROSSRUN_TESTS_FIXTURE_OS_H
#define CROSSRUN_TESTS_FIXTURE_OS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef _WIN32
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* WSAPoll and struct pollfd */
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#define SHUT_WR SD_SEND
/* What fixture_os_die_abnormally does, for the mode table. */
#define FIXTURE_OS_ABNORMAL_END                                                \
  "an unhandled EXCEPTION_ACCESS_VIOLATION (Windows has no signals)"
/* Whether a key's file mode can be checked: Windows' files have no
 * permission bits. */
#define FIXTURE_OS_FILE_MODES 0
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#define FIXTURE_OS_ABNORMAL_END "SIGABRT (core dumps off)"
#define FIXTURE_OS_FILE_MODES 1
#endif

/* The argument that makes the fixture the orphan fixture_os_orphan starts
 * on Windows (fixture.c's main hands it to fixture_os_orphan_main). */
#define FIXTURE_ORPHAN_ARG "orphan-child"

/* Once, first: no SIGPIPE (POSIX), or Winsock started and no crash
 * dialog (Windows). Exits 1 with a message when it cannot. */
void fixture_os_init(void);

/* Closes a socket. */
void fixture_os_close(int fd);

/* send and recv; nowait: without blocking (MSG_DONTWAIT). Return the
 * bytes moved, 0 at end of stream (recv), or -1 with errno EINTR, EAGAIN
 * or another value (fixture_os_error says what failed). send never
 * raises SIGPIPE. */
ssize_t fixture_os_send(int fd, const void *data, size_t len, int nowait);
ssize_t fixture_os_recv(int fd, void *buf, size_t len, int nowait);

/* poll on one socket (WSAPoll on Windows); the return and errno of
 * poll. */
int fixture_os_poll(struct pollfd *pfd, int timeout_ms);

/* TCP_NODELAY on a connected socket. */
void fixture_os_nodelay(int fd);

/* Makes what is sent next on fd and the FIN of a shutdown that follows
 * leave in one segment (TCP_CORK). Returns 0, or -1 where the OS has no
 * such option (Windows): the FIN then follows the data at once. */
int fixture_os_cork(int fd);

/* What the last failed socket call or errno-setting call said, as text
 * (strerror(errno) on POSIX, the Winsock error's message on Windows). */
const char *fixture_os_error(void);

/* A monotonic clock in nanoseconds. */
uint64_t fixture_os_now_ns(void);

_Noreturn void fixture_os_sleep_forever(void);

/* CPU time used so far by this process, in microseconds. */
void fixture_os_cpu_us(long *user_us, long *system_us);

/* The orphan fault: starts a process that escapes this one's process
 * group (fork and setsid on POSIX; on Windows this program again with
 * FIXTURE_ORPHAN_ARG, detached from the console and its process group),
 * holds the listening socket lfd, lets go of stdin, stdout and stderr,
 * and sleeps for at most seconds. Exits 1 with a message when it cannot
 * be started. */
void fixture_os_orphan(int lfd, unsigned seconds);

/* The orphan's own life on Windows (main, given FIXTURE_ORPHAN_ARG):
 * sleeps for the seconds fixture_os_orphan gave, then exits 0. */
_Noreturn void fixture_os_orphan_main(unsigned seconds);

/* The signal fault: the end a program dies by. SIGABRT with core dumps
 * off on POSIX; on Windows, which has no signals, an unhandled exception
 * (EXCEPTION_ACCESS_VIOLATION), whose code the process exits with. */
_Noreturn void fixture_os_die_abnormally(void);

#endif
