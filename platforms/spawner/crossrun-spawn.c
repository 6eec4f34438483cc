/* crossrun-spawn: the tiny process between the coordinator and a peer on
 * Linux (platforms/linux.c starts it). Usage: crossrun-spawn FD PROG ARGS...
 *
 * Why it exists. A reaped child's ru_maxrss is max(the peak of the address
 * space its exec replaced, its own peak since exec): the kernel folds the
 * old image's high-water mark into the new one (exec_mmap ->
 * setmax_mm_hiwater_rss). Spawned straight from the coordinator, the old
 * image is the coordinator's, so a small peer's figure is the
 * coordinator's. Spawned from here, the old image is this program's, whose
 * footprint (a static binary with no stdio and no heap: a few hundred KiB)
 * is far below any peer's, so ru_maxrss is the peer's own exact peak,
 * without privileges. The floor is reported so the coordinator can tell.
 *
 * It also makes the peer's tree whole: it is a child subreaper, so a
 * descendant orphaned by the peer (a daemonizing server, a wrapper's child
 * outliving it) is reparented here, not to init, and is reaped here with
 * its rusage. wait4's rusage of a process includes the children it waited
 * for (their CPU summed, their peak folded into ru_maxrss by max), so the
 * records written here cover every process of the tree: the peer with its
 * waited descendants, and each orphan with its own.
 *
 * The peer gets its own process group (pgid = its pid), default signal
 * dispositions and an empty mask, and this program's stdin, stdout, stderr
 * and environment; this program stays outside that group, so the
 * coordinator's SIGTERM and SIGKILL of the group never reach it and it
 * lives to report how the peer ended.
 *
 * Report on FD, one line each, in this order:
 *   started PID FLOOR_KB      or   failed ERRNO   (then exit 127)
 *   proc PID STATUS MAXRSS_KB UTIME_US STIME_US COMM    per reaped child
 *   exit PID ALIVE            after the peer's own proc line; ALIVE is 1
 *                             when other processes of its tree still run
 *   end DROPPED               when no child is left (records not written)
 * Nothing but libc's syscalls wrappers: no stdio, no malloc. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define RECORDS_MAX 512 /* proc lines written; the rest are counted */

static int report_fd = -1;

static void put(const char *s, char **at, char *end)
{
  while (*s != '\0' && *at < end)
    *(*at)++ = *s++;
}

static void put_num(long long v, char **at, char *end)
{
  char digits[24];
  int n = 0;
  unsigned long long u = v < 0 ? (unsigned long long)-v : (unsigned long long)v;

  if (v < 0 && *at < end)
    *(*at)++ = '-';
  do {
    digits[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u != 0);
  while (n > 0 && *at < end)
    *(*at)++ = digits[--n];
}

static void write_all(const char *buf, size_t len)
{
  while (len > 0) {
    ssize_t n = write(report_fd, buf, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; /* the coordinator is gone: nothing to tell */
    buf += n;
    len -= (size_t)n;
  }
}

/* The first number after "key:" in /proc/self/status, or -1. */
static long long self_status_kb(const char *key)
{
  char buf[4096];
  size_t klen = strlen(key);
  ssize_t n;
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  for (char *line = buf; line != NULL && *line != '\0';) {
    if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
      long long v = 0;
      char *p = line + klen + 1;
      while (*p == ' ' || *p == '\t')
        p++;
      while (*p >= '0' && *p <= '9')
        v = v * 10 + (*p++ - '0');
      return v;
    }
    line = strchr(line, '\n');
    if (line != NULL)
      line++;
  }
  return -1;
}

/* A zombie's name, from /proc/PID/comm ("?" when it cannot be read); no
 * spaces, so that the line stays split by spaces. */
static void zombie_comm(pid_t pid, char *out, size_t len)
{
  char path[64], *at = path, *end = path + sizeof(path) - 1;
  ssize_t n;
  int fd;

  put("/proc/", &at, end);
  put_num(pid, &at, end);
  put("/comm", &at, end);
  *at = '\0';
  fd = open(path, O_RDONLY | O_CLOEXEC);
  n = fd < 0 ? -1 : read(fd, out, len - 1);
  if (fd >= 0)
    close(fd);
  if (n <= 0) {
    out[0] = '?';
    n = 1;
  }
  out[n] = '\0';
  for (ssize_t i = 0; i < n; i++)
    if (out[i] == '\n')
      out[i] = '\0';
    else if (out[i] == ' ' || (unsigned char)out[i] < 0x20)
      out[i] = '_';
}

static long long tv_us(struct timeval tv)
{
  return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

static void record(pid_t pid, int status, const struct rusage *ru,
                   const char *comm)
{
  char line[160], *at = line, *end = line + sizeof(line) - 1;

  put("proc ", &at, end);
  put_num(pid, &at, end);
  put(" ", &at, end);
  put_num(status, &at, end);
  put(" ", &at, end);
  put_num(ru->ru_maxrss, &at, end);
  put(" ", &at, end);
  put_num(tv_us(ru->ru_utime), &at, end);
  put(" ", &at, end);
  put_num(tv_us(ru->ru_stime), &at, end);
  put(" ", &at, end);
  put(comm, &at, end);
  *at++ = '\n';
  write_all(line, (size_t)(at - line));
}

static void line2(const char *word, long long a, long long b, int two)
{
  char line[96], *at = line, *end = line + sizeof(line) - 1;

  put(word, &at, end);
  put(" ", &at, end);
  put_num(a, &at, end);
  if (two) {
    put(" ", &at, end);
    put_num(b, &at, end);
  }
  *at++ = '\n';
  write_all(line, (size_t)(at - line));
}

static int records, dropped;

/* Reaps one ended child and writes its record: its pid; 0 when children
 * remain and none has ended (only with nohang); -1 with errno (ECHILD: no
 * child is left). */
static pid_t reap_one(int nohang, pid_t peer)
{
  struct rusage ru;
  siginfo_t si;
  char comm[32];
  int status;
  pid_t pid;

  memset(&si, 0, sizeof(si));
  /* Learn who ended without reaping it: its name is readable only while
   * it is a zombie. */
  if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | (nohang ? WNOHANG : 0)) != 0)
    return -1;
  if (si.si_pid == 0)
    return 0;
  zombie_comm(si.si_pid, comm, sizeof(comm));
  do
    pid = wait4(si.si_pid, &status, 0, &ru);
  while (pid < 0 && errno == EINTR);
  if (pid <= 0)
    return 0;
  if (records < RECORDS_MAX || pid == peer) {
    record(pid, status, &ru, comm);
    records++;
  } else {
    dropped++;
  }
  return pid;
}

int main(int argc, char **argv)
{
  posix_spawnattr_t attr;
  sigset_t none, defaults;
  pid_t peer;
  int rc;

  if (argc < 3)
    return 125;
  report_fd = 0;
  for (const char *p = argv[1]; *p >= '0' && *p <= '9'; p++)
    report_fd = report_fd * 10 + (*p - '0');
  /* The peer must not hold the report pipe open. */
  fcntl(report_fd, F_SETFD, FD_CLOEXEC);
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

  sigemptyset(&none);
  sigfillset(&defaults);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  rc = posix_spawnp(&peer, argv[2], NULL, &attr, argv + 2, environ);
  if (rc != 0) {
    line2("failed", rc, 0, 0);
    return 127;
  }
  /* The floor: this image's peak, which the peer's exec folds into its
   * ru_maxrss (posix_spawn shares this address space until the exec). */
  line2("started", peer, self_status_kb("VmHWM"), 1);

  for (;;) {
    pid_t pid = reap_one(0, peer), more;

    if (pid < 0 && errno == EINTR)
      continue;
    if (pid < 0)
      break; /* ECHILD: the whole tree has ended */
    if (pid != peer)
      continue;
    /* Whatever ended with it is reaped first, so that what is left is
     * what still runs. */
    while ((more = reap_one(1, peer)) > 0)
      ;
    line2("exit", peer, more == 0, 1);
  }
  line2("end", dropped, 0, 0);
  return 0;
}
