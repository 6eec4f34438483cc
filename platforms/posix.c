/* What Linux and macOS share of platforms/platform.h: POSIX spawning
 * helpers, signalling a process group, the port probe and the PATH
 * search. Linked beside platforms/linux.c or platforms/macos.c. */
#include "platforms/posix.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

void posix_set_err(char *err, size_t errlen, int e, const char *fmt, ...)
{
  va_list ap;
  int used;

  if (err == NULL || errlen == 0)
    return;
  va_start(ap, fmt);
  used = vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  if (used >= 0 && (size_t)used < errlen)
    snprintf(err + used, errlen - (size_t)used, ": %s", strerror(e));
}

int64_t posix_timeval_ns(struct timeval tv)
{
  return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* Builds the child's environment: the coordinator's, minus names that
 * opts->env overrides, plus opts->env. Pointers only; nothing copied. */
int posix_build_env(const char *const *extra, char **environ_now,
                    const char **out, size_t cap)
{
  size_t n = 0;
  for (char **e = environ_now; e != NULL && *e != NULL; e++) {
    int overridden = 0;
    const char *eq = strchr(*e, '=');
    size_t nlen = eq ? (size_t)(eq - *e) : strlen(*e);
    for (const char *const *x = extra; x && *x; x++) {
      if (strncmp(*x, *e, nlen) == 0 && (*x)[nlen] == '=') {
        overridden = 1;
        break;
      }
    }
    if (overridden)
      continue;
    if (n + 1 >= cap)
      return -E2BIG;
    out[n++] = *e;
  }
  for (const char *const *x = extra; x && *x; x++) {
    if (n + 1 >= cap)
      return -E2BIG;
    out[n++] = *x;
  }
  out[n] = NULL;
  return 0;
}

int posix_spawn_prepare(struct platform_proc *proc, const char *const *extra,
                        char **environ_now, const char **envp, size_t cap,
                        char *err, size_t errlen)
{
  memset(proc, 0, sizeof(*proc));
  proc->pid = -1;
  proc->stdout_fd = proc->stderr_fd = proc->event_fd = -1;
  if (posix_build_env(extra, environ_now, envp, cap) != 0) {
    posix_set_err(err, errlen, E2BIG, "environment too large");
    return -E2BIG;
  }
  return 0;
}

/* The peer must not inherit libuv's or the runner's signal mask or
 * dispositions. */
int posix_spawn_set_attrs(posix_spawnattr_t *attr, short extra_flags)
{
  sigset_t none, defaults;
  int rc;

  sigemptyset(&none);
  sigfillset(&defaults);
  rc = posix_spawnattr_setpgroup(attr, 0);
  if (rc == 0)
    rc = posix_spawnattr_setsigmask(attr, &none);
  if (rc == 0)
    rc = posix_spawnattr_setsigdefault(attr, &defaults);
  if (rc == 0)
    rc = posix_spawnattr_setflags(
        attr, (short)(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                      POSIX_SPAWN_SETSIGDEF | extra_flags));
  return rc;
}

int platform_port_free(const char *host, int port, char *err, size_t errlen)
{
  struct sockaddr_storage addr;
  socklen_t addrlen;
  int fd, rc;

  memset(&addr, 0, sizeof(addr));
  if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&addr)->sin_addr) == 1) {
    struct sockaddr_in *a4 = (struct sockaddr_in *)&addr;
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
    addrlen = sizeof(*a4);
  } else if (inet_pton(AF_INET6, host,
                       &((struct sockaddr_in6 *)&addr)->sin6_addr) == 1) {
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&addr;
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    addrlen = sizeof(*a6);
  } else {
    snprintf(err, errlen, "'%s' is not a numeric address", host);
    return -EINVAL;
  }
  /* bind() fills in sa_len from addrlen, so it is not set here. */
  fd = socket(addr.ss_family, SOCK_STREAM, 0);
  if (fd < 0) {
    posix_set_err(err, errlen, errno, "cannot create a socket");
    return -errno;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  /* No SO_REUSEADDR on purpose: a socket left listening, connected or in
   * TIME_WAIT on the port makes this fail, which is what is checked. */
  rc = bind(fd, (struct sockaddr *)&addr, addrlen);
  if (rc != 0) {
    int e = errno;
    close(fd);
    snprintf(err, errlen, "port %d cannot be bound again: %s", port,
             strerror(e));
    return e == EADDRINUSE ? 0 : -e;
  }
  close(fd);
  return 1;
}

int platform_terminate(const struct platform_proc *proc, int force)
{
  if (proc->group <= 0)
    return -EINVAL;
  if (kill(-(pid_t)proc->group, force ? SIGKILL : SIGTERM) != 0 &&
      errno != ESRCH)
    return -errno;
  return 0;
}

const char *platform_stop_method(void)
{
  return "SIGTERM to the peer's process group, SIGKILL to it after the "
         "grace period";
}

int platform_find_program(const char *name, const char *cwd, char *out,
                          size_t outlen)
{
  const char *path, *p;
  int found_file = 0;

  if (strchr(name, '/') != NULL) {
    if (name[0] == '/' || cwd == NULL)
      snprintf(out, outlen, "%s", name);
    else
      snprintf(out, outlen, "%s/%s", cwd, name);
    return access(out, X_OK) == 0 ? 1 : access(out, F_OK) == 0 ? -1 : 0;
  }
  path = getenv("PATH");
  if (path == NULL || *path == '\0')
    path = "/usr/bin:/bin";
  for (p = path; *p != '\0';) {
    size_t len = strcspn(p, ":");
    /* An empty PATH entry means the current folder. */
    if (len == 0)
      snprintf(out, outlen, "%s/%s", cwd ? cwd : ".", name);
    else
      snprintf(out, outlen, "%.*s/%s", (int)len, p, name);
    if (access(out, X_OK) == 0)
      return 1;
    found_file |= access(out, F_OK) == 0;
    p += len;
    if (*p == ':')
      p++;
  }
  return found_file ? -1 : 0;
}

int posix_reap(long pid, struct platform_exit *ex, struct rusage *ru, char *err,
               size_t errlen)
{
  int status = 0;
  pid_t r;

  do
    r = wait4((pid_t)pid, &status, WNOHANG, ru);
  while (r < 0 && errno == EINTR);
  if (r == 0)
    return 0;
  if (r < 0) {
    posix_set_err(err, errlen, errno, "cannot reap peer");
    return -errno;
  }
  memset(ex, 0, sizeof(*ex));
  if (WIFEXITED(status)) {
    ex->exited = 1;
    ex->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    ex->signal = WTERMSIG(status);
  }
  ex->user_cpu_ns = posix_timeval_ns(ru->ru_utime);
  ex->system_cpu_ns = posix_timeval_ns(ru->ru_stime);
  return 1;
}

void posix_close_pipes(int out_pipe[2], int err_pipe[2])
{
  for (int i = 0; i < 2; i++) {
    if (out_pipe[i] >= 0)
      close(out_pipe[i]);
    if (err_pipe[i] >= 0)
      close(err_pipe[i]);
  }
}

long platform_lock(const char *path, char *err, size_t errlen)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);

  if (fd < 0) {
    posix_set_err(err, errlen, errno, "cannot open '%s' to lock it", path);
    return -1;
  }
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR)
      continue;
    posix_set_err(err, errlen, errno, "cannot lock '%s'", path);
    close(fd);
    return -1;
  }
  return fd;
}

void platform_unlock(long handle)
{
  if (handle >= 0)
    close((int)handle); /* the lock goes with the descriptor */
}
