/* Linux: a measured peer is started through the spawn helper
 * (platforms/spawner/crossrun-spawn.c, whose comment says why), and its
 * process tree is followed from three sources:
 *  - the helper's report: every process it reaped (the peer, and each
 *    descendant orphaned to it, the helper being a child subreaper) with
 *    its wait4 rusage; their CPU summed is the CPU of the whole tree, as
 *    each one's rusage includes the children it waited for;
 *  - the taskstats exit records (root only, linux.c listens): each
 *    process's own exact peak, joined to the tree by its parent's pid;
 *  - readings while it runs: the members found through
 *    /proc/PID/task/PID/children from the peer down, with their VmHWM (a
 *    lower bound), which name the processes the helper does not reap
 *    itself (a shell's child that the shell waits for).
 *
 * A delegated cgroup v2 would give the tree's exact simultaneous peak
 * (memory.peak) and CPU (cpu.stat) and kill it at once (cgroup.kill); it
 * needs the memory and cpu controllers enabled for a subtree this user
 * may write. Hosts with the v1 hierarchy (the v2 one mounted at
 * /sys/fs/cgroup/unified without controllers) and unprivileged users
 * without a delegated subtree have none, and the method here works for
 * every user on every kernel; platform_peak_rss_method says which was
 * used. macOS has no subreaper and no exit records: it keeps the readings
 * of descendants seen while the peer ran (macos.c). Windows: a job object
 * holds the tree, and JOBOBJECT_EXTENDED_LIMIT_INFORMATION gives the
 * job's PeakJobMemoryUsed and its total CPU (windows_jobs.c). */
#include "platforms/linux_internal.h"
#include "platforms/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HELPER_NAME "crossrun-spawn"
#define HELPER_ANSWER_MS 10000
#define TREE_PEERS_MAX 64
#define MEMBERS_MAX 64
#define REPORT_FD 3
#define ARGV_MAX 256

struct member {
  long pid, ppid;
  char comm[32];
  int64_t sampled_hwm;   /* last VmHWM reading, -1 */
  int64_t reaped_maxrss; /* the helper's wait4, -1 */
  int64_t acct_hwm;      /* taskstats, -1 */
  int64_t utime_us, stime_us;
  int reaped; /* by the helper */
  int gone;   /* no longer readable in /proc */
};

struct tree_peer {
  long helper_pid;
  int report_fd;
  int eof;
  int helper_reaped;
  int64_t floor_bytes;
  char line[256];
  size_t line_len;
  int got_exit, got_end, alive_after_exit, dropped;
  int have_peer_status, peer_status;
  struct member m[MEMBERS_MAX];
  int n, seen;
};

static struct tree_peer *peers[TREE_PEERS_MAX];

static void registry_add(struct tree_peer *t)
{
  for (int i = 0; i < TREE_PEERS_MAX; i++)
    if (peers[i] == NULL) {
      peers[i] = t;
      return;
    }
}

static void registry_remove(struct tree_peer *t)
{
  for (int i = 0; i < TREE_PEERS_MAX; i++)
    if (peers[i] == t)
      peers[i] = NULL;
}

int linux_tree_is_helper(long pid)
{
  for (int i = 0; i < TREE_PEERS_MAX; i++)
    if (peers[i] != NULL && peers[i]->helper_pid == pid &&
        !peers[i]->helper_reaped)
      return 1;
  return 0;
}

static int executable(const char *path)
{
  return access(path, X_OK) == 0;
}

const char *linux_helper_path(const char **why)
{
  static char path[PATH_MAX];
  static int looked;
  static const char *reason = "";
  char exe[PATH_MAX];
  const char *env = getenv("CROSSRUN_SPAWN_HELPER");
  ssize_t n;
  char *slash;

  if (looked) {
    *why = reason;
    return path[0] ? path : NULL;
  }
  looked = 1;
  if (env != NULL && env[0] == '/') {
    snprintf(path, sizeof(path), "%s", env);
    if (executable(path))
      return path;
    reason = "CROSSRUN_SPAWN_HELPER is not an executable file";
    path[0] = '\0';
    *why = reason;
    return NULL;
  }
  n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash != NULL) {
      *slash = '\0';
      /* build/crossrun, and the tests in build/tests/. */
      snprintf(path, sizeof(path), "%s/" HELPER_NAME, exe);
      if (executable(path))
        return path;
      snprintf(path, sizeof(path), "%s/../" HELPER_NAME, exe);
      if (executable(path))
        return path;
    }
  }
  path[0] = '\0';
  reason = "no " HELPER_NAME " beside the runner";
  *why = reason;
  return NULL;
}

static struct member *member_find(struct tree_peer *t, long pid)
{
  for (int i = 0; i < t->n; i++)
    if (t->m[i].pid == pid)
      return &t->m[i];
  return NULL;
}

static struct member *member_add(struct tree_peer *t, long pid, long ppid,
                                 const char *comm)
{
  struct member *m = member_find(t, pid);

  if (m != NULL)
    return m;
  t->seen++;
  if (t->n >= MEMBERS_MAX)
    return NULL;
  m = &t->m[t->n++];
  memset(m, 0, sizeof(*m));
  m->pid = pid;
  m->ppid = ppid;
  snprintf(m->comm, sizeof(m->comm), "%s", comm);
  m->sampled_hwm = m->reaped_maxrss = m->acct_hwm = -1;
  m->utime_us = m->stime_us = -1;
  return m;
}

static void read_comm(long pid, char *out, size_t len)
{
  char path[64];
  ssize_t n;
  int fd;

  snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  n = fd < 0 ? -1 : read(fd, out, len - 1);
  if (fd >= 0)
    close(fd);
  if (n <= 0)
    n = 0;
  out[n] = '\0';
  out[strcspn(out, "\n")] = '\0';
}

/* One line of the helper's report (crossrun-spawn.c lists them). */
static void report_line(struct tree_peer *t, long peer, char *line)
{
  long long a, b, c, d, e;
  char comm[32];

  if (sscanf(line, "proc %lld %lld %lld %lld %lld %31s", &a, &b, &c, &d, &e,
             comm) == 6) {
    struct member *m = member_add(t, (long)a, t->helper_pid, comm);
    if ((long)a == peer) {
      t->have_peer_status = 1;
      t->peer_status = (int)b;
    }
    if (m == NULL)
      return;
    snprintf(m->comm, sizeof(m->comm), "%s", comm);
    m->reaped = 1;
    m->reaped_maxrss = (int64_t)c * 1024;
    m->utime_us = d;
    m->stime_us = e;
  } else if (sscanf(line, "exit %lld %lld", &a, &b) == 2) {
    t->got_exit = 1;
    t->alive_after_exit = b != 0;
  } else if (sscanf(line, "end %lld", &a) == 1) {
    t->got_end = 1;
    t->dropped = (int)a;
  }
}

/* Reads what the helper wrote. Returns 1 at its end of file. */
static int report_read(struct tree_peer *t, long peer)
{
  char buf[4096];
  ssize_t n;

  while (!t->eof) {
    n = read(t->report_fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return 0; /* EAGAIN: nothing more now */
    if (n == 0) {
      t->eof = 1;
      break;
    }
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] == '\n') {
        t->line[t->line_len] = '\0';
        report_line(t, peer, t->line);
        t->line_len = 0;
      } else if (t->line_len + 1 < sizeof(t->line)) {
        t->line[t->line_len++] = buf[i];
      }
    }
  }
  return 1;
}

/* Waits at most ms for the first line: "started PID FLOOR" or
 * "failed ERRNO". Returns the pid, -errno for failed, or -ETIMEDOUT. */
static long first_answer(int fd, int ms, int64_t *floor_bytes)
{
  char line[128];
  size_t len = 0;
  struct pollfd pfd = {fd, POLLIN, 0};
  long long a, b;

  while (len + 1 < sizeof(line)) {
    ssize_t n;
    if (poll(&pfd, 1, ms) != 1)
      return -ETIMEDOUT;
    n = read(fd, line + len, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -EPIPE;
    if (line[len] == '\n')
      break;
    len++;
  }
  line[len] = '\0';
  if (sscanf(line, "started %lld %lld", &a, &b) == 2 && a > 0) {
    *floor_bytes = (int64_t)b * 1024;
    return (long)a;
  }
  if (sscanf(line, "failed %lld", &a) == 1 && a > 0)
    return -(long)a;
  return -EPROTO;
}

/* Moves fd to 10 or above, so that no dup2 onto 0-3 in the child can
 * overwrite it. */
static int fd_high(int fd)
{
  int high;

  if (fd >= 10)
    return fd;
  high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (high < 0)
    return fd;
  close(fd);
  return high;
}

int linux_tree_spawn(const char *helper_path,
                     const struct platform_spawn_opts *opts, const char **envp,
                     struct platform_proc *proc, char *err, size_t errlen)
{
  const char *argv[ARGV_MAX];
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, rep[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  struct tree_peer *t;
  char fd_text[8];
  pid_t hpid;
  long peer;
  int rc, n = 0;

  snprintf(fd_text, sizeof(fd_text), "%d", REPORT_FD);
  argv[n++] = helper_path;
  argv[n++] = fd_text;
  for (int i = 0; opts->argv[i] != NULL; i++) {
    if (n >= ARGV_MAX - 1) {
      snprintf(err, errlen, "too many arguments for '%s'", opts->argv[0]);
      return -E2BIG;
    }
    argv[n++] = opts->argv[i];
  }
  argv[n] = NULL;
  t = calloc(1, sizeof(*t));
  if (t == NULL) {
    snprintf(err, errlen, "out of memory");
    return -ENOMEM;
  }
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(rep, O_CLOEXEC) != 0) {
    rc = -errno;
    posix_set_err(err, errlen, errno, "cannot create pipes");
    posix_close_pipes(out_pipe, err_pipe);
    if (rep[0] >= 0) {
      close(rep[0]);
      close(rep[1]);
    }
    free(t);
    return rc;
  }
  rep[1] = fd_high(rep[1]);
  posix_spawn_file_actions_init(&fa);
  if (opts->cwd != NULL)
    posix_spawn_file_actions_addchdir_np(&fa, opts->cwd);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_adddup2(&fa, rep[1], REPORT_FD);
  posix_spawnattr_init(&attr);
  posix_spawn_set_attrs(&attr, 0);
  proc->spawner_peak_rss_bytes = platform_self_peak_rss_bytes();
  rc = posix_spawn(&hpid, helper_path, &fa, &attr, (char *const *)argv,
                   (char *const *)envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(rep[1]);
  if (rc != 0) {
    posix_set_err(err, errlen, rc, "cannot start the spawn helper '%s'",
                  helper_path);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(rep[0]);
    free(t);
    return -rc;
  }
  peer = first_answer(rep[0], HELPER_ANSWER_MS, &t->floor_bytes);
  if (peer < 0) {
    if (peer == -ETIMEDOUT || peer == -EPIPE || peer == -EPROTO)
      kill(hpid, SIGKILL);
    while (waitpid(hpid, NULL, 0) < 0 && errno == EINTR)
      ;
    if (peer == -ETIMEDOUT || peer == -EPIPE || peer == -EPROTO)
      posix_set_err(err, errlen, (int)-peer,
                    "the spawn helper did not start '%s'", opts->argv[0]);
    else
      posix_set_err(err, errlen, (int)-peer, "cannot start '%s'",
                    opts->argv[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(rep[0]);
    free(t);
    return (int)peer;
  }
  fcntl(out_pipe[0], F_SETFL, fcntl(out_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, fcntl(err_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(rep[0], F_SETFL, fcntl(rep[0], F_GETFL) | O_NONBLOCK);
  t->helper_pid = hpid;
  t->report_fd = rep[0];
  {
    const char *base = strrchr(opts->argv[0], '/');
    member_add(t, peer, hpid, base ? base + 1 : opts->argv[0]);
  }
  registry_add(t);
  proc->pid = peer;
  proc->group = peer;
  proc->exit_peak_rss_bytes = -1;
  proc->stdout_fd = out_pipe[0];
  proc->stderr_fd = err_pipe[0];
  proc->event_fd = rep[0];
  proc->os = t;
  return 0;
}

static void reap_helper(struct tree_peer *t, int block_ms)
{
  struct timespec step = {0, 1000000};

  for (int i = 0; !t->helper_reaped; i++) {
    pid_t r = waitpid((pid_t)t->helper_pid, NULL, WNOHANG);
    if (r == (pid_t)t->helper_pid || (r < 0 && errno != EINTR))
      t->helper_reaped = 1;
    else if (i >= block_ms)
      return;
    else
      nanosleep(&step, NULL);
  }
}

/* The peer's own wait status as the helper reaped it, into ex. */
static void fill_status(struct platform_exit *ex, int status)
{
  if (WIFEXITED(status)) {
    ex->exited = 1;
    ex->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    ex->signal = WTERMSIG(status);
  }
}

/* The exact figure of one member, and its source, or -1. */
static int64_t member_exact(const struct tree_peer *t, const struct member *m,
                            const char **source)
{
  if (m->acct_hwm > 0) {
    *source = "exit_accounting_peak";
    return m->acct_hwm;
  }
  /* At or below the floor it may be the helper's image, not the peer's. */
  if (m->reaped && m->reaped_maxrss > t->floor_bytes) {
    *source = "os_lifetime_peak";
    return m->reaped_maxrss;
  }
  *source = NULL;
  return -1;
}

int linux_tree_try_reap(struct platform_proc *proc, struct platform_exit *ex,
                        char *err, size_t errlen)
{
  struct tree_peer *t = proc->os;
  struct member *m;
  const char *source;

  report_read(t, proc->pid);
  if (!t->got_exit) {
    if (!t->eof)
      return 0;
    /* The helper ended without telling how the peer did. */
    reap_helper(t, 1000);
    memset(ex, 0, sizeof(*ex));
    ex->signal = SIGKILL;
    ex->user_cpu_ns = ex->system_cpu_ns = -1;
    ex->os_peak_rss_bytes = ex->exact_peak_rss_bytes = -1;
    snprintf(err, errlen, "the spawn helper ended before the peer's exit");
    return 1;
  }
  linux_taskstats_drain();
  memset(ex, 0, sizeof(*ex));
  fill_status(ex, t->peer_status);
  m = member_find(t, proc->pid);
  ex->user_cpu_ns = m && m->utime_us >= 0 ? m->utime_us * 1000 : -1;
  ex->system_cpu_ns = m && m->stime_us >= 0 ? m->stime_us * 1000 : -1;
  ex->os_peak_rss_bytes = m ? m->reaped_maxrss : -1;
  if (m != NULL && proc->exit_peak_rss_bytes > m->acct_hwm)
    m->acct_hwm = proc->exit_peak_rss_bytes;
  ex->exact_peak_rss_bytes = m ? member_exact(t, m, &source) : -1;
  ex->peak_source = ex->exact_peak_rss_bytes >= 0 ? source : NULL;
  ex->exited_before_its_tree = t->alive_after_exit;
  if (t->got_end)
    reap_helper(t, 0);
  return 1;
}

int linux_tree_sample(const struct platform_proc *proc,
                      struct platform_memory *mem)
{
  struct tree_peer *t = proc->os;

  mem->rss_bytes = linux_status_bytes(proc->pid, "VmRSS");
  mem->peak_rss_bytes = linux_status_bytes(proc->pid, "VmHWM");
  /* The tree as it is now: each member's children, and each one's peak
   * since exec. */
  for (int i = 0; i < t->n; i++) {
    struct member *m = &t->m[i];
    char path[64], buf[1024];
    int64_t hwm;
    ssize_t n;
    int fd;

    if (m->gone || m->reaped)
      continue;
    hwm = m->pid == proc->pid ? mem->peak_rss_bytes
                              : linux_status_bytes(m->pid, "VmHWM");
    if (hwm < 0) {
      m->gone = 1;
      continue;
    }
    if (hwm > m->sampled_hwm)
      m->sampled_hwm = hwm;
    if (i > 0) {
      /* Read again: a child seen between fork and exec had its parent's
       * name. */
      char comm[32];
      read_comm(m->pid, comm, sizeof(comm));
      if (comm[0] != '\0')
        snprintf(m->comm, sizeof(m->comm), "%s", comm);
    }
    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", m->pid, m->pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
      continue;
    buf[n] = '\0';
    for (char *p = buf, *end; *p != '\0'; p = end) {
      long child = strtol(p, &end, 10);
      char comm[32];
      if (end == p)
        break;
      if (child <= 0 || member_find(t, child) != NULL)
        continue;
      read_comm(child, comm, sizeof(comm));
      member_add(t, child, m->pid, comm[0] ? comm : "?");
    }
  }
  return mem->peak_rss_bytes < 0 ? -1 : 0;
}

void linux_tree_exit_record(long tgid, long ppid, const char *comm,
                            int64_t hiwater_bytes)
{
  for (int i = 0; i < TREE_PEERS_MAX; i++) {
    struct tree_peer *t = peers[i];
    struct member *m;

    if (t == NULL || tgid == t->helper_pid)
      continue;
    m = member_find(t, tgid);
    if (m == NULL && (ppid == t->helper_pid || member_find(t, ppid) != NULL))
      m = member_add(t, tgid, ppid, comm);
    if (m == NULL)
      continue;
    if (hiwater_bytes > m->acct_hwm)
      m->acct_hwm = hiwater_bytes;
    /* Its name at its end: a child seen between fork and exec had its
     * parent's. */
    if (!m->reaped && comm[0] != '\0')
      snprintf(m->comm, sizeof(m->comm), "%s", comm);
  }
}

/* "a, b, c" of the members' distinct names, cut to fit. */
static void names_text(const struct tree_peer *t, char *out, size_t len)
{
  size_t used = 0;
  int shown = 0;

  out[0] = '\0';
  for (int i = 0; i < t->n; i++) {
    int dup = 0;
    for (int j = 0; j < i; j++)
      dup |= strcmp(t->m[i].comm, t->m[j].comm) == 0;
    if (dup)
      continue;
    if (used + strlen(t->m[i].comm) + 6 >= len) {
      snprintf(out + used, len - used, ", ...");
      return;
    }
    used += (size_t)snprintf(out + used, len - used, "%s%s", shown ? ", " : "",
                             t->m[i].comm);
    shown++;
  }
}

int linux_tree_settle(struct platform_proc *proc, struct platform_exit *ex,
                      struct model_tree *tree, uint64_t wait_ms)
{
  struct tree_peer *t = proc->os;
  struct timespec start, now;
  int64_t sum_acct = 0, sum_reaped = 0, sum_sampled = 0;
  int64_t cpu_user = 0, cpu_system = 0;
  int all_acct = 1, reaped_ok = 1;
  const char *kind;
  char names[64];

  clock_gettime(CLOCK_MONOTONIC, &start);
  while (!t->got_end && !t->eof) {
    struct pollfd pfd = {t->report_fd, POLLIN, 0};
    int64_t left;
    clock_gettime(CLOCK_MONOTONIC, &now);
    left = (int64_t)wait_ms - ((now.tv_sec - start.tv_sec) * 1000 +
                               (now.tv_nsec - start.tv_nsec) / 1000000);
    if (left <= 0 || poll(&pfd, 1, (int)left) == 0)
      break;
    report_read(t, proc->pid);
  }
  report_read(t, proc->pid);
  if (t->got_end)
    reap_helper(t, 1000);
  linux_taskstats_drain();

  memset(tree, 0, sizeof(*tree));
  tree->method = "spawn_helper_subreaper";
  tree->complete = t->got_end && t->dropped == 0 && t->seen <= MEMBERS_MAX;
  tree->count = t->seen;
  for (int i = 0; i < t->n; i++) {
    const struct member *m = &t->m[i];
    const char *source;
    int64_t exact = member_exact(t, m, &source);

    if (m->acct_hwm <= 0)
      all_acct = 0;
    else
      sum_acct += m->acct_hwm;
    if (m->reaped) {
      if (m->reaped_maxrss > t->floor_bytes)
        sum_reaped += m->reaped_maxrss;
      else
        reaped_ok = 0;
      cpu_user += m->utime_us * 1000;
      cpu_system += m->stime_us * 1000;
    }
    if (m->sampled_hwm > 0)
      sum_sampled += m->sampled_hwm;
    if (i < MODEL_TREE_MAX) {
      struct model_tree_process *p = &tree->list[i];
      p->pid = m->pid;
      snprintf(p->program, sizeof(p->program), "%s", m->comm);
      if (exact < 0 && m->sampled_hwm > 0) {
        exact = m->sampled_hwm;
        source = "sampled_peak_since_exec";
      }
      p->peak_rss_bytes = exact;
      p->source = exact >= 0 ? source : NULL;
    }
  }
  ex->exited_before_its_tree = t->alive_after_exit;
  if (!t->got_end)
    return -ETIMEDOUT;
  ex->cpu_covers_tree = 1;
  ex->user_cpu_ns = cpu_user;
  ex->system_cpu_ns = cpu_system;
  names_text(t, names, sizeof(names));
  if (t->n == 1 && ex->exact_peak_rss_bytes >= 0) {
    kind = "exact";
    ex->memory_covers_tree = 1;
  } else if (t->n > 1 && all_acct && tree->complete) {
    /* Each process's own exact peak; their sum bounds the tree's
     * simultaneous peak from above (equal when they live side by side,
     * as a wrapper and its child do). */
    kind = "exact per process, summed";
    ex->exact_peak_rss_bytes = sum_acct;
    ex->peak_source = "sum_of_exit_accounting_peaks";
    ex->memory_covers_tree = 1;
  } else if (t->n > 1 && reaped_ok && sum_reaped > 0) {
    /* Every process is in one of the reaped figures (wait4 folds the
     * children a process waited for into its own by max). */
    kind = "reaped peaks, summed";
    ex->exact_peak_rss_bytes = sum_reaped;
    ex->peak_source = "sum_of_reaped_peaks";
    ex->memory_covers_tree = 1;
  } else {
    kind = ex->exact_peak_rss_bytes >= 0 ? "exact, the peer alone"
           : sum_sampled > 0             ? "sampled lower bound"
                                         : "not measured";
  }
  snprintf(ex->label, sizeof(ex->label), "%s, tree of %d: %s", kind, t->seen,
           names);
  return 0;
}

int linux_tree_group_ended(long group)
{
  for (int i = 0; i < TREE_PEERS_MAX; i++) {
    struct tree_peer *t = peers[i];
    if (t != NULL && t->n > 0 && t->m[0].pid == group) {
      report_read(t, group);
      return t->got_end;
    }
  }
  return 0;
}

int linux_tree_running(struct platform_proc *proc)
{
  struct tree_peer *t = proc->os;

  report_read(t, proc->pid);
  return t->got_exit && !t->got_end && !t->eof;
}

void linux_tree_release(struct platform_proc *proc)
{
  struct tree_peer *t = proc->os;

  if (t == NULL)
    return;
  if (!t->helper_reaped) {
    /* An early exit of the runner's own: nothing of the tree may stay. */
    if (proc->group > 0)
      kill(-(pid_t)proc->group, SIGKILL);
    reap_helper(t, 200);
    if (!t->helper_reaped) {
      kill((pid_t)t->helper_pid, SIGKILL);
      reap_helper(t, 2000);
    }
  }
  registry_remove(t);
  close(t->report_fd);
  free(t);
  proc->os = NULL;
  proc->event_fd = -1;
}
