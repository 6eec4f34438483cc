/* The Windows side of tests/fixture_os.h: Winsock, WSAPoll, the orphan as
 * this program started again outside the console's process group, and an
 * unhandled exception for the signal death.
 *
 * The orphan cannot leave the runner's job object (platforms/windows.c
 * allows no breakaway), as a setsid() child cannot leave a Linux
 * subreaper's tree: it escapes what a process group would reach (the
 * console's CTRL_BREAK) and outlives its parent, and the runner's orphan
 * check must find it in the job. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture.h"
#include "tests/fixture_os.h"

#include <windows.h>

void fixture_os_init(void)
{
  WSADATA wsa;

  /* A crash ends the process with its exception code instead of waiting
   * on an error dialog nobody will close. */
  SetErrorMode(SetErrorMode(0) | SEM_FAILCRITICALERRORS |
               SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
    fixture_die(1, "cannot start winsock");
  /* The bytes a mode writes are the bytes the runner reads: no "\r\n"
   * for "\n". */
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
}

void fixture_os_close(int fd)
{
  closesocket((SOCKET)fd);
}

/* errno for the Winsock error of the call that just failed, which stays
 * the thread's last error for fixture_os_error. */
static int failed(int code)
{
  errno = code == WSAEWOULDBLOCK ? EAGAIN : code == WSAEINTR ? EINTR : EIO;
  WSASetLastError(code);
  return -1;
}

/* send (out) or recv: Winsock has no MSG_DONTWAIT, so for nowait the
 * socket is made non-blocking for the one call. */
static ssize_t transfer(int fd, void *buf, size_t len, int nowait, int out)
{
  int n, code, chunk = len > INT_MAX ? INT_MAX : (int)len;
  u_long on = 1, off = 0;

  if (nowait)
    ioctlsocket((SOCKET)fd, FIONBIO, &on);
  n = out ? send((SOCKET)fd, buf, chunk, 0) : recv((SOCKET)fd, buf, chunk, 0);
  code = n == SOCKET_ERROR ? WSAGetLastError() : 0;
  if (nowait)
    ioctlsocket((SOCKET)fd, FIONBIO, &off);
  return n == SOCKET_ERROR ? failed(code) : n;
}

ssize_t fixture_os_send(int fd, const void *data, size_t len, int nowait)
{
  return transfer(fd, (void *)data, len, nowait, 1);
}

ssize_t fixture_os_recv(int fd, void *buf, size_t len, int nowait)
{
  return transfer(fd, buf, len, nowait, 0);
}

int fixture_os_poll(struct pollfd *pfd, int timeout_ms)
{
  int r = WSAPoll(pfd, 1, timeout_ms);
  return r == SOCKET_ERROR ? failed(WSAGetLastError()) : r;
}

void fixture_os_nodelay(int fd)
{
  BOOL on = TRUE;
  setsockopt((SOCKET)fd, IPPROTO_TCP, TCP_NODELAY, (const char *)&on,
             sizeof on);
}

int fixture_os_cork(int fd)
{
  (void)fd;
  return -1;
}

const char *fixture_os_error(void)
{
  static char text[256];
  DWORD code = (DWORD)WSAGetLastError();
  DWORD n;

  if (code == 0)
    return strerror(errno);
  n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                     NULL, code, 0, text, sizeof text, NULL);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
                   text[n - 1] == '.' || text[n - 1] == ' '))
    text[--n] = '\0';
  if (n == 0)
    snprintf(text, sizeof text, "Winsock error %lu", (unsigned long)code);
  return text;
}

uint64_t fixture_os_now_ns(void)
{
  static LARGE_INTEGER freq;
  LARGE_INTEGER now;

  if (freq.QuadPart == 0)
    QueryPerformanceFrequency(&freq);
  QueryPerformanceCounter(&now);
  return (uint64_t)(now.QuadPart / freq.QuadPart) * 1000000000u +
         (uint64_t)(now.QuadPart % freq.QuadPart) * 1000000000u /
             (uint64_t)freq.QuadPart;
}

void fixture_os_sleep_forever(void)
{
  for (;;)
    Sleep(INFINITE);
}

/* FILETIME's 100 ns units as microseconds. */
static long filetime_us(FILETIME ft)
{
  ULARGE_INTEGER u;
  u.LowPart = ft.dwLowDateTime;
  u.HighPart = ft.dwHighDateTime;
  return (long)(u.QuadPart / 10);
}

void fixture_os_cpu_us(long *user_us, long *system_us)
{
  FILETIME created, ended, kernel, user;

  *user_us = *system_us = 0;
  if (GetProcessTimes(GetCurrentProcess(), &created, &ended, &kernel, &user)) {
    *user_us = filetime_us(user);
    *system_us = filetime_us(kernel);
  }
}

void fixture_os_orphan(int lfd, unsigned seconds)
{
  SECURITY_ATTRIBUTES inheritable = {sizeof inheritable, NULL, TRUE};
  PROCESS_INFORMATION pi;
  STARTUPINFOEXW si;
  LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
  SIZE_T attrs_size = 0;
  HANDLE null, inherited[2];
  wchar_t self[MAX_PATH + 1], cmdline[MAX_PATH + 64];
  DWORD len = GetModuleFileNameW(NULL, self, MAX_PATH + 1);
  BOOL started;

  if (len == 0 || len > MAX_PATH)
    fixture_die(1, "orphan: cannot tell this program's path");
  _snwprintf(cmdline, sizeof cmdline / sizeof cmdline[0], L"\"%ls\" %hs %u",
             self, FIXTURE_ORPHAN_ARG, seconds);
  cmdline[sizeof cmdline / sizeof cmdline[0] - 1] = L'\0';
  /* NUL for its stdin, stdout and stderr: it lets go of the runner's
   * pipes, so that only the port and the process remain. */
  null = CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE,
                     FILE_SHARE_READ | FILE_SHARE_WRITE, &inheritable,
                     OPEN_EXISTING, 0, NULL);
  if (null == INVALID_HANDLE_VALUE)
    fixture_die(1, "orphan: cannot open NUL (error %lu)",
                (unsigned long)GetLastError());
  SetHandleInformation((HANDLE)(SOCKET)lfd, HANDLE_FLAG_INHERIT,
                       HANDLE_FLAG_INHERIT);
  /* It inherits exactly the listening socket and NUL: it keeps the port,
   * and none of the runner's pipes this process was given. */
  inherited[0] = null;
  inherited[1] = (HANDLE)(SOCKET)lfd;
  InitializeProcThreadAttributeList(NULL, 1, 0, &attrs_size);
  attrs = malloc(attrs_size);
  if (attrs == NULL ||
      !InitializeProcThreadAttributeList(attrs, 1, 0, &attrs_size) ||
      !UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
                                 inherited, sizeof inherited, NULL, NULL))
    fixture_die(1, "orphan: cannot list the handles to inherit (error %lu)",
                (unsigned long)GetLastError());
  memset(&si, 0, sizeof si);
  si.StartupInfo.cb = sizeof si;
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = si.StartupInfo.hStdOutput =
      si.StartupInfo.hStdError = null;
  si.lpAttributeList = attrs;
  /* Detached from the console and in a process group of its own: what
   * setsid() is to a POSIX process group. */
  started = CreateProcessW(self, cmdline, NULL, NULL, TRUE,
                           DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP |
                               EXTENDED_STARTUPINFO_PRESENT,
                           NULL, NULL, &si.StartupInfo, &pi);
  if (!started)
    fixture_die(1, "orphan: cannot start it (error %lu)",
                (unsigned long)GetLastError());
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  CloseHandle(null);
  DeleteProcThreadAttributeList(attrs);
  free(attrs);
}

void fixture_os_orphan_main(unsigned seconds)
{
  Sleep(seconds * 1000u);
  exit(0);
}

/* Ends the process with the exception's code, as Windows does for an
 * unhandled exception when no debugger or error report takes it. */
static LONG WINAPI end_at_once(EXCEPTION_POINTERS *e)
{
  (void)e;
  return EXCEPTION_EXECUTE_HANDLER;
}

void fixture_os_die_abnormally(void)
{
  /* Wine starts its debugger for an unhandled exception whatever the
   * error mode says (SEM_NOGPFAULTERRORBOX), and the debugger would be a
   * process of the runner's job: the filter ends the process first. */
  SetUnhandledExceptionFilter(end_at_once);
  RaiseException(EXCEPTION_ACCESS_VIOLATION, EXCEPTION_NONCONTINUABLE, 0, NULL);
  _exit(1);
}
