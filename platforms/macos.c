/* macOS implementation of platforms/platform.h.
 *
 * Peak memory. posix_spawn on Darwin gives the peer a new task with an
 * address space of its own, so the ru_maxrss that wait4 returns (in bytes
 * on macOS, not kilobytes) is the peer's own lifetime peak resident size:
 * nothing of the coordinator is folded into it, unlike on Linux. Like
 * every rusage of a child it is the larger of the peer's own peak and
 * those of the descendants it waited for itself.
 *
 * Live memory. proc_pid_rusage gives another process's current resident
 * size, but no peak resident size: the only lifetime peak macOS reports
 * for another process is the peak physical footprint (dirty and compressed
 * memory the task owns, which is what Activity Monitor shows; clean file
 * pages such as shared library text are left out). It is reported as the
 * sampled peak and said so in platform_sampled_rss_method(); the exact
 * figure from wait4 is the one the runner uses.
 *
 * Escaped descendants. macOS has no child subreaper: when a process dies
 * its children are reparented to launchd (pid 1), not to the coordinator.
 * Leftovers are therefore found three ways:
 *  - members of the peers' process groups (proc_listpgrppids), whoever
 *    their parent is now;
 *  - live descendants of the coordinator (proc_listchildpids, walked down);
 *  - descendants of a peer seen while it ran: every platform_sample_memory
 *    call walks the peer's process tree and records each descendant's pid
 *    and start time, so one that later left the group with setsid() and
 *    was reparented to launchd is still recognised (the start time tells
 *    it from an unrelated process that reused the pid).
 * What macOS does not let us see: a descendant that leaves the peer's
 * process group (setsid or setpgid) and whose parent dies before a sample
 * notices it (samples are a few milliseconds apart) belongs to launchd in
 * a group of its own, and nothing links it to the peer any more. It
 * escapes the no_orphans check; only a subreaper (Linux) or a job object
 * (Windows) closes that gap. */
#ifndef _DARWIN_C_SOURCE
#define _DARWIN_C_SOURCE
#endif

#include "platforms/platform.h"
#include "platforms/posix.h"

#include <arpa/inet.h>
#include <crt_externs.h>
#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc_info.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SZOMB
#define SZOMB 5 /* process status "zombie", from <sys/proc.h> */
#endif

#define MAX_ENV 4096
#define MAX_LISTED 1024 /* pids per proc_list* call */
#define MAX_TREE 128    /* processes visited per tree walk */
#define MAX_TRACKED 256 /* descendants remembered across samples */
#define MAX_CANDIDATES 512

int platform_init(char *err, size_t errlen)
{
  /* Nothing to prepare: there is no subreaper to become (see the top of
   * this file for what that costs). */
  return 0;
}

const char *platform_signal_name(int sig)
{
  static const struct {
    int sig;
    const char *name;
  } names[] = {
      {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
      {SIGILL, "SIGILL"},       {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
#ifdef SIGEMT
      {SIGEMT, "SIGEMT"},
#endif
      {SIGFPE, "SIGFPE"},       {SIGKILL, "SIGKILL"}, {SIGBUS, "SIGBUS"},
      {SIGSEGV, "SIGSEGV"},     {SIGSYS, "SIGSYS"},   {SIGPIPE, "SIGPIPE"},
      {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"}, {SIGURG, "SIGURG"},
      {SIGSTOP, "SIGSTOP"},     {SIGTSTP, "SIGTSTP"}, {SIGCONT, "SIGCONT"},
      {SIGCHLD, "SIGCHLD"},     {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},
      {SIGIO, "SIGIO"},         {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
      {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
#ifdef SIGINFO
      {SIGINFO, "SIGINFO"},
#endif
      {SIGUSR1, "SIGUSR1"},     {SIGUSR2, "SIGUSR2"},
  };
  static char buf[32];

  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (names[i].sig == sig)
      return names[i].name;
  snprintf(buf, sizeof(buf), "signal %d", sig);
  return buf;
}

int64_t platform_self_peak_rss_bytes(void)
{
  struct rusage ru;

  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return -1;
  return (int64_t)ru.ru_maxrss; /* bytes on macOS */
}

/* pipe() with both ends close-on-exec and numbered 3 or more. macOS has no
 * pipe2, so close-on-exec is set afterwards; POSIX_SPAWN_CLOEXEC_DEFAULT
 * keeps the window harmless for our own spawns. Keeping the ends off 0-2
 * matters because a dup2 of a descriptor onto its own number does not
 * clear close-on-exec, and because stdout's pipe must not sit where
 * stderr's dup2 would overwrite it. */
static int make_pipe(int fds[2])
{
  if (pipe(fds) != 0)
    return -errno;
  for (int i = 0; i < 2; i++) {
    if (fds[i] <= 2) {
      int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
      if (moved < 0)
        goto fail;
      close(fds[i]);
      fds[i] = moved;
    } else if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
      goto fail;
    }
  }
  return 0;

fail : {
  int e = errno;
  close(fds[0]);
  close(fds[1]);
  fds[0] = fds[1] = -1;
  return -e;
}
}

static void set_nonblocking(int fd)
{
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int platform_spawn(const struct platform_spawn_opts *opts,
                   struct platform_proc *proc, char *err, size_t errlen)
{
  const char *envp[MAX_ENV];
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  pid_t pid;
  int rc;

  rc = posix_spawn_prepare(proc, opts->env, *_NSGetEnviron(), envp, MAX_ENV,
                           err, errlen);
  if (rc != 0)
    return rc;
  rc = make_pipe(out_pipe);
  if (rc == 0)
    rc = make_pipe(err_pipe);
  if (rc != 0) {
    posix_set_err(err, errlen, -rc, "cannot create pipes");
    goto fail_pipes;
  }
  rc = posix_spawn_file_actions_init(&fa);
  if (rc != 0) {
    posix_set_err(err, errlen, rc, "cannot prepare '%s'", opts->argv[0]);
    rc = -rc;
    goto fail_pipes;
  }
  rc = posix_spawnattr_init(&attr);
  if (rc != 0) {
    posix_spawn_file_actions_destroy(&fa);
    posix_set_err(err, errlen, rc, "cannot prepare '%s'", opts->argv[0]);
    rc = -rc;
    goto fail_pipes;
  }
  /* posix_spawn_file_actions_addchdir_np: macOS 10.15 and later. */
  if (rc == 0 && opts->cwd != NULL)
    rc = posix_spawn_file_actions_addchdir_np(&fa, opts->cwd);
  if (rc == 0)
    rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  /* POSIX_SPAWN_CLOEXEC_DEFAULT (a Darwin extension) closes in the peer
   * every descriptor the file actions do not name, so it gets 0, 1 and 2
   * and nothing else the coordinator holds, close-on-exec or not. */
  if (rc == 0)
    rc = posix_spawn_set_attrs(&attr, POSIX_SPAWN_CLOEXEC_DEFAULT);
  proc->spawner_peak_rss_bytes = platform_self_peak_rss_bytes();
  if (rc == 0)
    rc = posix_spawnp(&pid, opts->argv[0], &fa, &attr,
                      (char *const *)opts->argv, (char *const *)envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    posix_set_err(err, errlen, rc, "cannot start '%s'", opts->argv[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return -rc;
  }
  set_nonblocking(out_pipe[0]);
  set_nonblocking(err_pipe[0]);
  proc->pid = pid;
  proc->group = pid;
  proc->stdout_fd = out_pipe[0];
  proc->stderr_fd = err_pipe[0];
  return 0;

fail_pipes:
  posix_close_pipes(out_pipe, err_pipe);
  return rc;
}

int platform_try_reap(struct platform_proc *proc, struct platform_exit *ex,
                      char *err, size_t errlen)
{
  struct rusage ru;
  int rc = posix_reap(proc->pid, ex, &ru, err, errlen);

  if (rc != 1)
    return rc;
  /* Bytes already on macOS; the task was new, so the figure is the
   * peer's own (see the top of this file). */
  ex->os_peak_rss_bytes = (int64_t)ru.ru_maxrss;
  ex->exact_peak_rss_bytes =
      ex->os_peak_rss_bytes > 0 ? ex->os_peak_rss_bytes : -1;
  return 1;
}

/* The BSD view of a process, zombies included. Returns 0 or -1 (gone). */
static int bsd_info(pid_t pid, struct proc_bsdinfo *bi)
{
  int n = proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, bi, (int)sizeof(*bi));
  return n == (int)sizeof(*bi) ? 0 : -1;
}

/* Descendants seen while a peer ran (see the top of this file). */
struct tracked {
  pid_t pid;
  long group; /* the peer's group it descends from; 0: free slot */
  uint64_t start_sec;
  uint64_t start_usec;
};

static struct tracked tracked[MAX_TRACKED];

static void remember(pid_t pid, long group)
{
  struct proc_bsdinfo bi;
  int free_slot = -1;

  for (int i = 0; i < MAX_TRACKED; i++) {
    if (tracked[i].group != 0 && tracked[i].pid == pid)
      return;
    if (tracked[i].group == 0 && free_slot < 0)
      free_slot = i;
  }
  /* A full table drops newcomers: they can still be found by group. */
  if (free_slot < 0 || bsd_info(pid, &bi) != 0 || bi.pbi_status == SZOMB)
    return;
  tracked[free_slot].pid = pid;
  tracked[free_slot].group = group;
  tracked[free_slot].start_sec = bi.pbi_start_tvsec;
  tracked[free_slot].start_usec = bi.pbi_start_tvusec;
}

static void forget_group(long group)
{
  for (int i = 0; i < MAX_TRACKED; i++)
    if (tracked[i].group == group)
      memset(&tracked[i], 0, sizeof(tracked[i]));
}

/* Collects the descendants of root (breadth first, at most MAX_TREE) into
 * out. Returns how many were found. */
static int walk_tree(pid_t root, pid_t *out, int cap)
{
  pid_t listed[MAX_LISTED];
  int found = 0, next = -1;
  pid_t parent = root;

  for (;;) {
    int n = proc_listchildpids(parent, listed, (int)sizeof(listed));
    for (int i = 0; i < n && i < MAX_LISTED && found < cap; i++)
      if (listed[i] > 1)
        out[found++] = listed[i];
    if (++next >= found)
      break;
    parent = out[next];
  }
  return found;
}

static void track_descendants(const struct platform_proc *proc)
{
  pid_t tree[MAX_TREE];
  int n = walk_tree((pid_t)proc->pid, tree, MAX_TREE);

  for (int i = 0; i < n; i++)
    remember(tree[i], proc->group);
}

/* macOS has no subreaper and no exit records of grandchildren: the
 * figures stay the tracked process's (wait4's rusage includes the
 * children it waited for); descendants are seen through the readings
 * while it runs (proc_listchildpids). */
int platform_tree_running(struct platform_proc *proc)
{
  (void)proc;
  return 0;
}

int platform_proc_settle(struct platform_proc *proc, struct platform_exit *ex,
                         struct model_tree *tree, uint64_t wait_ms)
{
  (void)proc;
  (void)ex;
  (void)wait_ms;
  memset(tree, 0, sizeof(*tree));
  return 0;
}

int platform_sample_memory(const struct platform_proc *proc,
                           struct platform_memory *mem)
{
  struct rusage_info_v4 ri;

  mem->rss_bytes = mem->peak_rss_bytes = -1;
  if (proc->pid <= 0)
    return -1;
  memset(&ri, 0, sizeof(ri));
  if (proc_pid_rusage((int)proc->pid, RUSAGE_INFO_V4, (rusage_info_t *)&ri) ==
      0) {
    /* A zombie still answers, with its exit time set and its memory
     * released: it counts as gone, as on Linux. */
    if (ri.ri_proc_exit_abstime != 0)
      return -1;
    mem->rss_bytes = (int64_t)ri.ri_resident_size;
    mem->peak_rss_bytes = (int64_t)ri.ri_lifetime_max_phys_footprint;
  } else {
    /* Systems older than RUSAGE_INFO_V4 (macOS 10.14): current size
     * only. */
    struct rusage_info_v2 ri2;
    if (errno == ESRCH)
      return -1;
    memset(&ri2, 0, sizeof(ri2));
    if (proc_pid_rusage((int)proc->pid, RUSAGE_INFO_V2,
                        (rusage_info_t *)&ri2) != 0 ||
        ri2.ri_proc_exit_abstime != 0)
      return -1;
    mem->rss_bytes = (int64_t)ri2.ri_resident_size;
  }
  track_descendants(proc);
  return 0;
}

/* How a process came to be suspected; decides how it is confirmed. */
enum origin { FROM_GROUP, FROM_TREE, FROM_RECORD };

struct candidate {
  pid_t pid;
  enum origin origin;
  uint64_t start_sec, start_usec; /* FROM_RECORD only */
};

static int add_candidate(struct candidate *c, int n, pid_t pid,
                         enum origin origin, const struct tracked *t)
{
  if (pid <= 1 || pid == getpid())
    return n;
  for (int i = 0; i < n; i++) {
    if (c[i].pid == pid) {
      /* A live relation (group, tree) needs no start-time check. */
      if (origin != FROM_RECORD)
        c[i].origin = origin;
      return n;
    }
  }
  if (n >= MAX_CANDIDATES)
    return n;
  c[n].pid = pid;
  c[n].origin = origin;
  c[n].start_sec = t != NULL ? t->start_sec : 0;
  c[n].start_usec = t != NULL ? t->start_usec : 0;
  return n + 1;
}

static int in_groups(long pgid, const long *groups, int ngroups)
{
  for (int i = 0; i < ngroups; i++)
    if (groups[i] > 0 && pgid == groups[i])
      return 1;
  return 0;
}

/* Waits until pid is gone: reaped when it is the coordinator's child,
 * otherwise until it is a zombie or has vanished (launchd reaps it). */
static void wait_gone(pid_t pid, int child)
{
  struct timespec step = {0, 1000000};

  for (int i = 0; i < 2000; i++) {
    struct proc_bsdinfo bi;
    if (child) {
      pid_t r = waitpid(pid, NULL, WNOHANG);
      if (r != 0)
        return; /* reaped, or not our child after all (ECHILD) */
    } else if (bsd_info(pid, &bi) != 0 || bi.pbi_status == SZOMB) {
      return;
    }
    nanosleep(&step, NULL);
  }
}

int platform_collect_orphans(const long *groups, int ngroups,
                             struct model_orphans *out, char *err,
                             size_t errlen)
{
  struct candidate cand[MAX_CANDIDATES];
  pid_t listed[MAX_LISTED];
  pid_t kill_list[MAX_CANDIDATES];
  int kill_child[MAX_CANDIDATES];
  pid_t self = getpid();
  int ncand = 0, nkill = 0;

  memset(out, 0, sizeof(*out));
  for (int g = 0; g < ngroups; g++) {
    int n;
    if (groups[g] <= 0)
      continue;
    n = proc_listpgrppids((pid_t)groups[g], listed, (int)sizeof(listed));
    for (int i = 0; i < n && i < MAX_LISTED; i++)
      ncand = add_candidate(cand, ncand, listed[i], FROM_GROUP, NULL);
  }
  {
    pid_t tree[MAX_TREE];
    int n = walk_tree(self, tree, MAX_TREE);
    for (int i = 0; i < n; i++)
      ncand = add_candidate(cand, ncand, tree[i], FROM_TREE, NULL);
  }
  for (int i = 0; i < MAX_TRACKED; i++)
    if (tracked[i].group != 0 && in_groups(tracked[i].group, groups, ngroups))
      ncand =
          add_candidate(cand, ncand, tracked[i].pid, FROM_RECORD, &tracked[i]);

  for (int i = 0; i < ncand; i++) {
    struct candidate *c = &cand[i];
    struct proc_bsdinfo bi;
    int child;

    if (bsd_info(c->pid, &bi) != 0)
      continue; /* gone */
    /* Confirm against what the process is now: its pid may have been
     * reused since it was listed or recorded. */
    if (c->origin == FROM_GROUP &&
        !in_groups((long)bi.pbi_pgid, groups, ngroups))
      continue;
    if (c->origin == FROM_RECORD && (bi.pbi_start_tvsec != c->start_sec ||
                                     bi.pbi_start_tvusec != c->start_usec))
      continue;
    child = (pid_t)bi.pbi_ppid == self;
    if (bi.pbi_status == SZOMB) {
      /* Dead already: nothing is left running, only the entry to reap. */
      if (child)
        wait_gone(c->pid, 1);
      continue;
    }
    if (out->count < MODEL_MAX_ORPHANS) {
      const char *name = bi.pbi_name[0] != '\0' ? bi.pbi_name : bi.pbi_comm;
      size_t cap =
          bi.pbi_name[0] != '\0' ? sizeof(bi.pbi_name) : sizeof(bi.pbi_comm);
      out->list[out->count].pid = (long)c->pid;
      snprintf(out->list[out->count].name, sizeof(out->list[0].name), "%.*s",
               (int)strnlen(name, cap), name);
    }
    out->count++;
    kill_list[nkill] = c->pid;
    kill_child[nkill] = child;
    nkill++;
  }
  /* Everything is signalled before anything is waited for, so a process
   * cannot outrun the collection by forking while another is awaited. */
  for (int i = 0; i < nkill; i++)
    kill(kill_list[i], SIGKILL);
  for (int i = 0; i < nkill; i++)
    wait_gone(kill_list[i], kill_child[i]);
  for (int g = 0; g < ngroups; g++)
    if (groups[g] > 0)
      forget_group(groups[g]);
  return 0;
}

void platform_proc_release(struct platform_proc *proc)
{
  if (proc->group > 0)
    forget_group(proc->group);
  proc->os = NULL;
}

void platform_machine_describe(struct model_machine *m)
{
  struct utsname u;
  uint64_t memsize = 0;
  int ncpu = 0;
  size_t len;

  memset(m, 0, sizeof(*m));
  snprintf(m->os, sizeof(m->os), "macos");
  if (uname(&u) == 0) {
    snprintf(m->arch, sizeof(m->arch), "%.31s", u.machine);
    snprintf(m->kernel, sizeof(m->kernel), "%.95s", u.release);
  }
  len = sizeof(m->cpu_model) - 1;
  if (sysctlbyname("machdep.cpu.brand_string", m->cpu_model, &len, NULL, 0) !=
          0 ||
      m->cpu_model[0] == '\0')
    snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
  m->cpu_model[sizeof(m->cpu_model) - 1] = '\0';
  len = sizeof(ncpu);
  if (sysctlbyname("hw.logicalcpu", &ncpu, &len, NULL, 0) != 0 || ncpu <= 0)
    ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
  m->logical_cpus = ncpu;
  len = sizeof(memsize);
  m->memory_bytes =
      (sysctlbyname("hw.memsize", &memsize, &len, NULL, 0) == 0 && memsize > 0)
          ? (int64_t)memsize
          : -1;
  {
    double load[1];
    m->load_average_1m = getloadavg(load, 1) == 1 ? load[0] : -1;
  }
}

const char *platform_peak_rss_method(void)
{
  return "macos: wait4 ru_maxrss, in bytes (posix_spawn gives the peer a "
         "new task, so it is the peer's own exact lifetime peak resident "
         "size, nothing of the coordinator folded in)";
}

const char *platform_sampled_rss_method(void)
{
  return "macos: maximum of ri_resident_size from proc_pid_rusage "
         "(RUSAGE_INFO_V4) read on the runner's sampling timer; the sampled "
         "peak is ri_lifetime_max_phys_footprint, the peak physical "
         "footprint, as macOS reports no peak resident size for another "
         "process";
}

/* The TCP states are in the net.inet.tcp.pcblist_n sysctl, whose records
 * (struct xtcpcb_n) are private to the kernel release; not read, so the
 * runner cannot tell who closed first here and falls back on binding the
 * port. */
int platform_port_closers(const char *host, int port,
                          struct platform_closers *out, char *err,
                          size_t errlen)
{
  memset(out, 0, sizeof(*out));
  snprintf(err, errlen, "macOS does not tell crossrun a socket's TCP state");
  return PLATFORM_CANNOT_TELL;
}
