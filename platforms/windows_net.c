/* Winsock's start-up and platform_port_free. Part of the Windows
 * implementation of platforms/platform.h. */
#include "platforms/windows_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static BOOL CALLBACK winsock_start(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
  WSADATA wsa;
  return WSAStartup(MAKEWORD(2, 2), &wsa) == 0;
}

int win_winsock_ready(void)
{
  static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
  return InitOnceExecuteOnce(&once, winsock_start, NULL, NULL) ? 0 : -1;
}

int platform_port_free(const char *host, int port, char *err, size_t errlen)
{
  struct sockaddr_storage addr;
  int addrlen, e;
  BOOL on = TRUE;
  SOCKET s;

  if (win_winsock_ready() != 0) {
    snprintf(err, errlen, "cannot start winsock");
    return -EIO;
  }
  memset(&addr, 0, sizeof(addr));
  if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&addr)->sin_addr) == 1) {
    struct sockaddr_in *a4 = (struct sockaddr_in *)&addr;
    a4->sin_family = AF_INET;
    a4->sin_port = htons((u_short)port);
    addrlen = (int)sizeof(*a4);
  } else if (inet_pton(AF_INET6, host,
                       &((struct sockaddr_in6 *)&addr)->sin6_addr) == 1) {
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&addr;
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((u_short)port);
    addrlen = (int)sizeof(*a6);
  } else {
    snprintf(err, errlen, "'%s' is not a numeric address", host);
    return -EINVAL;
  }
  s = WSASocketW(addr.ss_family, SOCK_STREAM, IPPROTO_TCP, NULL, 0,
                 WSA_FLAG_NO_HANDLE_INHERIT);
  if (s == INVALID_SOCKET) {
    win_set_err(err, errlen, "cannot create a socket",
                (DWORD)WSAGetLastError());
    return -EIO;
  }
  /* Windows lets a socket bind beside another one in several cases that
   * Unix refuses (a wildcard next to a specific address, for one), unless
   * the binding socket asks for exclusive use. With SO_EXCLUSIVEADDRUSE,
   * and without SO_REUSEADDR, any socket still on the port makes this
   * fail, which is what is checked. */
  if (setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&on,
                 sizeof(on)) != 0) {
    win_set_err(err, errlen, "cannot ask for exclusive use of the port",
                (DWORD)WSAGetLastError());
    closesocket(s);
    return -EIO;
  }
  if (bind(s, (struct sockaddr *)&addr, addrlen) != 0) {
    char what[64];
    e = WSAGetLastError();
    closesocket(s);
    snprintf(what, sizeof(what), "port %d cannot be bound again", port);
    win_set_err(err, errlen, what, (DWORD)e);
    /* WSAEACCES: another socket holds the port exclusively. */
    return (e == WSAEADDRINUSE || e == WSAEACCES) ? 0 : -EIO;
  }
  closesocket(s);
  return 1;
}

/* GetExtendedTcpTable (iphlpapi) lists TCP states, TIME_WAIT included;
 * it is not read yet, so the runner cannot tell who closed first here and
 * falls back on binding the port. */
int platform_port_closers(const char *host, int port,
                          struct platform_closers *out, char *err,
                          size_t errlen)
{
  memset(out, 0, sizeof(*out));
  snprintf(err, errlen, "Windows does not tell crossrun a socket's TCP state");
  return PLATFORM_CANNOT_TELL;
}
