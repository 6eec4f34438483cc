/* Linux implementation of platforms/platform.h.
 *
 * Peak memory. The exact figure is the peer's RSS high-water mark as the
 * kernel's exit accounting reports it: the coordinator listens to taskstats
 * (generic netlink, TASKSTATS) exit records, which do_exit() sends before
 * the address space is released, with hiwater_rss of that address space:
 * the peer's peak since exec, untouched by the coordinator and with no
 * effect on the peer (no tracing). Listening needs CAP_NET_ADMIN; without
 * it, or when a record was lost, the figures below are the fallback.
 *
 * A child's ru_maxrss is not its own peak: the kernel folds
 * the high-water mark of the address space that exec replaces into the
 * new image's figure (exec_mmap -> setmax_mm_hiwater_rss), and with
 * posix_spawn (CLONE_VM|CLONE_VFORK) that address space is the
 * coordinator's. So ru_maxrss = max(coordinator's peak at spawn, peer's
 * peak). When it exceeds the coordinator's peak it is the peer's exact
 * lifetime peak; otherwise the only figure that belongs to the peer is
 * VmHWM from /proc/PID/status (peak since exec), read while it lives.
 *
 * Peers are therefore started through the spawn helper (linux_tree.c,
 * platforms/spawner/crossrun-spawn.c): the image their exec replaces is
 * the helper's tiny one, and ru_maxrss is their own for any user. The
 * figures above remain for commands and for a missing helper.
 *
 * Escaped descendants. The coordinator is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so a grandchild that left its group with
 * setsid() is reparented to the coordinator when its parent dies, and is
 * found by scanning /proc for processes whose parent is the coordinator. */
#include "platforms/linux_internal.h"
#include "platforms/platform.h"
#include "platforms/posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_ENV 4096

/* ---- taskstats exit records ---- */

#define WATCH_MAX 64
#define NL_BUF_BYTES 65536

static int taskstats_fd = -1;
static uint16_t taskstats_family;
static char taskstats_why[160] = "not opened";
static struct platform_proc *watched[WATCH_MAX];

static void watch_add(struct platform_proc *proc)
{
  for (int i = 0; i < WATCH_MAX; i++) {
    if (watched[i] == NULL) {
      watched[i] = proc;
      return;
    }
  }
}

static void watch_remove(struct platform_proc *proc)
{
  for (int i = 0; i < WATCH_MAX; i++)
    if (watched[i] == proc)
      watched[i] = NULL;
}

/* Sends one generic netlink request with one attribute. */
static int genl_send(int fd, uint16_t family, uint8_t cmd, uint16_t attr,
                     const void *data, uint16_t len, int ack)
{
  char buf[256] __attribute__((aligned(NLMSG_ALIGNTO)));
  struct nlmsghdr *nh = (struct nlmsghdr *)buf;
  struct genlmsghdr *gh = NLMSG_DATA(nh);
  struct nlattr *na = (struct nlattr *)((char *)gh + GENL_HDRLEN);
  struct sockaddr_nl to = {.nl_family = AF_NETLINK};

  if (NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(buf))
    return -1;
  memset(buf, 0, sizeof(buf));
  na->nla_type = attr;
  na->nla_len = (uint16_t)(NLA_HDRLEN + len);
  memcpy((char *)na + NLA_HDRLEN, data, len);
  nh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
  nh->nlmsg_type = family;
  nh->nlmsg_flags = NLM_F_REQUEST | (ack ? NLM_F_ACK : 0);
  nh->nlmsg_seq = 1;
  gh->cmd = cmd;
  gh->version = 1;
  return sendto(fd, buf, nh->nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) <
                 0
             ? -1
             : 0;
}

/* Waits for the answer to a request: fills *family when asked for it.
 * Returns 0, or a negative errno from the kernel's error message. */
static int genl_answer(int fd, uint16_t *family)
{
  char buf[NL_BUF_BYTES] __attribute__((aligned(NLMSG_ALIGNTO)));
  struct pollfd pfd = {fd, POLLIN, 0};
  ssize_t n;

  if (poll(&pfd, 1, 2000) != 1)
    return -ETIMEDOUT;
  n = recv(fd, buf, sizeof(buf), 0);
  if (n < 0)
    return -errno;
  for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
       nh = NLMSG_NEXT(nh, n)) {
    if (nh->nlmsg_type == NLMSG_ERROR) {
      struct nlmsgerr *e = NLMSG_DATA(nh);
      return e->error;
    }
    if (family != NULL && nh->nlmsg_type == GENL_ID_CTRL) {
      struct genlmsghdr *gh = NLMSG_DATA(nh);
      struct nlattr *na = (struct nlattr *)((char *)gh + GENL_HDRLEN);
      int left = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
      while (left >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
             na->nla_len <= left) {
        if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
          memcpy(family, (char *)na + NLA_HDRLEN, sizeof(*family));
          return 0;
        }
        left -= NLA_ALIGN(na->nla_len);
        na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
      }
    }
  }
  return -ENOENT;
}

static void taskstats_open(void)
{
  struct sockaddr_nl self = {.nl_family = AF_NETLINK};
  char cpus[256] = "";
  int fd, rc, size = 4 << 20;
  FILE *f;

  fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  if (fd < 0 || bind(fd, (struct sockaddr *)&self, sizeof(self)) != 0) {
    snprintf(taskstats_why, sizeof(taskstats_why), "no generic netlink: %s",
             strerror(errno));
    goto fail;
  }
  /* Exit records of every process on the machine pass through here. */
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
  if (genl_send(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
                TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), 0) != 0 ||
      (rc = genl_answer(fd, &taskstats_family)) != 0) {
    snprintf(taskstats_why, sizeof(taskstats_why),
             "no taskstats in this kernel");
    goto fail;
  }
  f = fopen("/sys/devices/system/cpu/possible", "re");
  if (f == NULL || fgets(cpus, sizeof(cpus), f) == NULL) {
    if (f)
      fclose(f);
    snprintf(taskstats_why, sizeof(taskstats_why), "cannot read the CPU list");
    goto fail;
  }
  fclose(f);
  cpus[strcspn(cpus, "\n")] = '\0';
  if (genl_send(fd, taskstats_family, TASKSTATS_CMD_GET,
                TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus,
                (uint16_t)(strlen(cpus) + 1), 1) != 0 ||
      (rc = genl_answer(fd, NULL)) != 0) {
    snprintf(taskstats_why, sizeof(taskstats_why),
             "taskstats listening refused (%s; it needs CAP_NET_ADMIN)",
             strerror(rc < 0 ? -rc : EIO));
    goto fail;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  taskstats_fd = fd;
  return;
fail:
  if (fd >= 0)
    close(fd);
}

static void taskstats_record(const struct nlattr *aggr)
{
  const struct nlattr *na =
      (const struct nlattr *)((const char *)aggr + NLA_HDRLEN);
  int left = aggr->nla_len - NLA_HDRLEN;
  struct taskstats ts;
  uint32_t pid = 0;
  int have_stats = 0;

  memset(&ts, 0, sizeof(ts));
  while (left >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
         na->nla_len <= left) {
    size_t len = na->nla_len - NLA_HDRLEN;
    if (na->nla_type == TASKSTATS_TYPE_PID && len >= sizeof(pid))
      memcpy(&pid, (const char *)na + NLA_HDRLEN, sizeof(pid));
    if (na->nla_type == TASKSTATS_TYPE_STATS) {
      /* Older kernels send a shorter struct: the rest stays zero. */
      memcpy(&ts, (const char *)na + NLA_HDRLEN,
             len < sizeof(ts) ? len : sizeof(ts));
      have_stats = 1;
    }
    left -= NLA_ALIGN(na->nla_len);
    na = (const struct nlattr *)((const char *)na + NLA_ALIGN(na->nla_len));
  }
  if (!have_stats)
    return;
  {
    char comm[TS_COMM_LEN + 1];
    memcpy(comm, ts.ac_comm, TS_COMM_LEN);
    comm[TS_COMM_LEN] = '\0';
    linux_tree_exit_record((long)ts.ac_tgid, (long)ts.ac_ppid, comm,
                           (int64_t)ts.hiwater_rss * 1024);
  }
  for (int i = 0; i < WATCH_MAX; i++) {
    struct platform_proc *p = watched[i];
    /* Every thread's record carries the shared address space's mark;
     * the thread group's own record is the main thread's. */
    if (p != NULL && (pid == (uint32_t)p->pid || ts.ac_tgid == p->pid)) {
      int64_t hwm = (int64_t)ts.hiwater_rss * 1024;
      if (hwm > p->exit_peak_rss_bytes)
        p->exit_peak_rss_bytes = hwm;
    }
  }
}

void linux_taskstats_drain(void)
{
  char buf[NL_BUF_BYTES] __attribute__((aligned(NLMSG_ALIGNTO)));
  ssize_t n;

  if (taskstats_fd < 0)
    return;
  while ((n = recv(taskstats_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0 ||
         (n < 0 && (errno == EINTR || errno == ENOBUFS))) {
    /* ENOBUFS: records were dropped under load; those peers fall back. */
    for (struct nlmsghdr *nh = (struct nlmsghdr *)buf;
         n > 0 && NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
      struct genlmsghdr *gh = NLMSG_DATA(nh);
      struct nlattr *na = (struct nlattr *)((char *)gh + GENL_HDRLEN);
      int left = (int)nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
      if (nh->nlmsg_type != taskstats_family)
        continue;
      while (left >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
             na->nla_len <= left) {
        if (na->nla_type == TASKSTATS_TYPE_AGGR_PID)
          taskstats_record(na);
        left -= NLA_ALIGN(na->nla_len);
        na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
      }
    }
  }
}

int platform_init(char *err, size_t errlen)
{
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    posix_set_err(err, errlen, errno, "cannot become a child subreaper");
    return -errno;
  }
  if (taskstats_fd < 0)
    taskstats_open();
  return 0;
}

int64_t linux_status_bytes(long pid, const char *key)
{
  char path[64], line[256];
  size_t klen = strlen(key);
  int64_t value = -1;
  FILE *f;

  if (pid > 0)
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
  else
    snprintf(path, sizeof(path), "/proc/self/status");
  f = fopen(path, "re");
  if (f == NULL)
    return -1;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
      long long kb = 0;
      if (sscanf(line + klen + 1, "%lld", &kb) == 1)
        value = (int64_t)kb * 1024;
      break;
    }
  }
  fclose(f);
  return value;
}

const char *platform_signal_name(int sig)
{
  static char buf[32];
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev != NULL)
    snprintf(buf, sizeof(buf), "SIG%s", abbrev);
  else
    snprintf(buf, sizeof(buf), "signal %d", sig);
  return buf;
}

int64_t platform_self_peak_rss_bytes(void)
{
  return linux_status_bytes(0, "VmHWM");
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

  rc =
      posix_spawn_prepare(proc, opts->env, environ, envp, MAX_ENV, err, errlen);
  if (rc != 0)
    return rc;
  proc->event_fd = -1;
  if (opts->tree) {
    const char *why, *helper = linux_helper_path(&why);
    if (helper != NULL) {
      rc = linux_tree_spawn(helper, opts, envp, proc, err, errlen);
      if (rc == 0)
        watch_add(proc);
      return rc;
    }
  }
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    rc = -errno;
    posix_set_err(err, errlen, errno, "cannot create pipes");
    goto fail_pipes;
  }
  posix_spawn_file_actions_init(&fa);
  if (opts->cwd != NULL)
    posix_spawn_file_actions_addchdir_np(&fa, opts->cwd);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawnattr_init(&attr);
  posix_spawn_set_attrs(&attr, 0);
  proc->spawner_peak_rss_bytes = platform_self_peak_rss_bytes();
  rc = posix_spawnp(&pid, opts->argv[0], &fa, &attr, (char *const *)opts->argv,
                    (char *const *)envp);
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
  fcntl(out_pipe[0], F_SETFL, fcntl(out_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, fcntl(err_pipe[0], F_GETFL) | O_NONBLOCK);
  proc->pid = pid;
  proc->group = pid;
  proc->exit_peak_rss_bytes = -1;
  watch_add(proc);
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
  int rc;

  if (proc->os != NULL) {
    rc = linux_tree_try_reap(proc, ex, err, errlen);
    if (rc != 0)
      watch_remove(proc);
    return rc;
  }
  rc = posix_reap(proc->pid, ex, &ru, err, errlen);
  if (rc == 0)
    return 0;
  /* The exit record was queued before the peer became a zombie. */
  linux_taskstats_drain();
  watch_remove(proc);
  if (rc < 0)
    return rc;
  ex->os_peak_rss_bytes = (int64_t)ru.ru_maxrss * 1024;
  if (proc->exit_peak_rss_bytes > 0)
    ex->exact_peak_rss_bytes = proc->exit_peak_rss_bytes;
  else if (proc->spawner_peak_rss_bytes >= 0 &&
           ex->os_peak_rss_bytes > proc->spawner_peak_rss_bytes)
    ex->exact_peak_rss_bytes = ex->os_peak_rss_bytes;
  else
    ex->exact_peak_rss_bytes = -1;
  ex->peak_source = ex->exact_peak_rss_bytes < 0    ? NULL
                    : proc->exit_peak_rss_bytes > 0 ? "exit_accounting_peak"
                                                    : "os_lifetime_peak";
  return 1;
}

int platform_tree_running(struct platform_proc *proc)
{
  return proc->os != NULL ? linux_tree_running(proc) : 0;
}

int platform_proc_settle(struct platform_proc *proc, struct platform_exit *ex,
                         struct model_tree *tree, uint64_t wait_ms)
{
  if (proc->os != NULL)
    return linux_tree_settle(proc, ex, tree, wait_ms);
  memset(tree, 0, sizeof(*tree));
  return 0;
}

int platform_sample_memory(const struct platform_proc *proc,
                           struct platform_memory *mem)
{
  if (proc->os != NULL)
    return linux_tree_sample(proc, mem);
  mem->rss_bytes = linux_status_bytes(proc->pid, "VmRSS");
  mem->peak_rss_bytes = linux_status_bytes(proc->pid, "VmHWM");
  /* A zombie has no address space left: no Vm lines. */
  return mem->peak_rss_bytes < 0 ? -1 : 0;
}

/* Parses /proc/PID/stat: the name sits in parentheses and may itself hold
 * spaces or parentheses, so the fields are read after the last ')'. */
static int read_stat(long pid, char *name, size_t namelen, char *state,
                     long *ppid, long *pgrp)
{
  char path[64], buf[1024];
  char *lp, *rp;
  ssize_t n;
  int fd;

  snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  lp = strchr(buf, '(');
  rp = strrchr(buf, ')');
  if (lp == NULL || rp == NULL || rp < lp)
    return -1;
  snprintf(name, namelen, "%.*s", (int)(rp - lp - 1), lp + 1);
  if (sscanf(rp + 1, " %c %ld %ld", state, ppid, pgrp) != 3)
    return -1;
  return 0;
}

static void reap_quietly(pid_t pid)
{
  struct timespec step = {0, 1000000};
  for (int i = 0; i < 2000; i++) {
    pid_t r = waitpid(pid, NULL, WNOHANG);
    if (r != 0)
      return; /* reaped, or not our child (ECHILD) */
    nanosleep(&step, NULL);
  }
}

/* Lists in out[] (at most cap) the children of every thread of pid, from
 * /proc/PID/task/TID/children. Returns how many. */
static int children_of(long pid, long *out, int cap)
{
  char path[64], buf[4096];
  struct dirent *de;
  int n = 0;
  DIR *dir;

  snprintf(path, sizeof(path), "/proc/%ld/task", pid);
  dir = opendir(path);
  if (dir == NULL)
    return 0;
  while ((de = readdir(dir)) != NULL && n < cap) {
    ssize_t len;
    int fd;

    if (de->d_name[0] < '0' || de->d_name[0] > '9')
      continue;
    snprintf(path, sizeof(path), "/proc/%ld/task/%s/children", pid, de->d_name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    len = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (len <= 0)
      continue;
    buf[len] = '\0';
    for (char *p = buf, *end; n < cap; p = end) {
      long child = strtol(p, &end, 10);
      if (end == p)
        break;
      out[n++] = child;
    }
  }
  closedir(dir);
  return n;
}

/* When every peer's tree has ended under its spawn helper, nothing of it
 * can be alive: a descendant orphaned inside the tree is reparented to the
 * helper (a subreaper), which ends only when it has reaped the last one.
 * What can remain is a child of the coordinator itself; those are read
 * from its own task list instead of scanning every process of the
 * machine (some 3 ms of its CPU per sample on a busy machine). */
static int trees_ended(const long *groups, int ngroups)
{
  for (int i = 0; i < ngroups; i++)
    if (groups[i] > 0 && !linux_tree_group_ended(groups[i]))
      return 0;
  return 1;
}

static void collect_own_children(long self, struct model_orphans *out)
{
  long kids[256];
  int n = children_of(self, kids, 256);

  for (int i = 0; i < n; i++) {
    char name[32], state;
    long ppid, pgrp;

    if (linux_tree_is_helper(kids[i]) ||
        read_stat(kids[i], name, sizeof(name), &state, &ppid, &pgrp) != 0 ||
        ppid != self)
      continue;
    if (state != 'Z') {
      if (out->count < MODEL_MAX_ORPHANS) {
        out->list[out->count].pid = kids[i];
        snprintf(out->list[out->count].name, sizeof(out->list[0].name), "%s",
                 name);
      }
      out->count++;
      kill((pid_t)kids[i], SIGKILL);
    }
    reap_quietly((pid_t)kids[i]);
  }
}

int platform_collect_orphans(const long *groups, int ngroups,
                             struct model_orphans *out, char *err,
                             size_t errlen)
{
  long self = (long)getpid();
  struct dirent *de;
  DIR *proc_dir;

  memset(out, 0, sizeof(*out));
  if (trees_ended(groups, ngroups)) {
    collect_own_children(self, out);
    return 0;
  }
  proc_dir = opendir("/proc");
  if (proc_dir == NULL) {
    posix_set_err(err, errlen, errno, "cannot scan /proc");
    return -errno;
  }
  while ((de = readdir(proc_dir)) != NULL) {
    char name[32], state;
    long pid, ppid, pgrp;
    int ours = 0;
    char *end;

    pid = strtol(de->d_name, &end, 10);
    /* A peer's spawn helper is no orphan: it reaps what is killed here
     * and reports it; what it was left (ppid) is of the peer's tree. */
    if (*end != '\0' || pid <= 0 || pid == self || linux_tree_is_helper(pid))
      continue;
    if (read_stat(pid, name, sizeof(name), &state, &ppid, &pgrp) != 0)
      continue;
    for (int i = 0; i < ngroups; i++)
      if (groups[i] > 0 && pgrp == groups[i])
        ours = 1;
    if (ppid == self || linux_tree_is_helper(ppid))
      ours = 1;
    if (!ours)
      continue;
    if (state == 'Z') {
      /* Dead already: nothing is left running, only the entry to reap. */
      if (ppid == self)
        reap_quietly((pid_t)pid);
      continue;
    }
    if (out->count < MODEL_MAX_ORPHANS) {
      out->list[out->count].pid = pid;
      snprintf(out->list[out->count].name, sizeof(out->list[0].name), "%s",
               name);
    }
    out->count++;
    kill((pid_t)pid, SIGKILL);
    if (ppid == self)
      reap_quietly((pid_t)pid);
  }
  closedir(proc_dir);
  return 0;
}

void platform_proc_release(struct platform_proc *proc)
{
  watch_remove(proc);
  linux_tree_release(proc);
  proc->os = NULL;
}

static void read_cpu_model(char *out, size_t len)
{
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "re");

  snprintf(out, len, "unknown");
  if (f == NULL)
    return;
  while (fgets(line, sizeof(line), f) != NULL) {
    /* x86 says "model name", arm64 may only say "CPU part". */
    if (strncmp(line, "model name", 10) == 0 ||
        strncmp(line, "Model", 5) == 0) {
      char *colon = strchr(line, ':');
      if (colon != NULL) {
        colon++;
        while (*colon == ' ' || *colon == '\t')
          colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, len, "%s", colon);
        break;
      }
    }
  }
  fclose(f);
}

void platform_machine_describe(struct model_machine *m)
{
  struct utsname u;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

  memset(m, 0, sizeof(*m));
  snprintf(m->os, sizeof(m->os), "linux");
  if (uname(&u) == 0) {
    snprintf(m->arch, sizeof(m->arch), "%.31s", u.machine);
    snprintf(m->kernel, sizeof(m->kernel), "%.95s", u.release);
  }
  read_cpu_model(m->cpu_model, sizeof(m->cpu_model));
  m->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
  m->memory_bytes = (pages > 0 && page > 0) ? (int64_t)pages * page : -1;
  m->load_average_1m = -1;
  {
    double load[1];
    FILE *f =
        fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "re");
    if (f != NULL) {
      if (fgets(m->cpu_governor, sizeof(m->cpu_governor), f) != NULL)
        m->cpu_governor[strcspn(m->cpu_governor, "\n")] = '\0';
      fclose(f);
    }
    if (getloadavg(load, 1) == 1)
      m->load_average_1m = load[0];
  }
  linux_cgroup_describe(m);
}

const char *platform_peak_rss_method(void)
{
  static char method[768];
  const char *why, *helper = linux_helper_path(&why);

  snprintf(method, sizeof(method),
           "linux: %s; a peer's own peak is hiwater_rss from the kernel's "
           "taskstats exit record (%s), else wait4 ru_maxrss of the peer as "
           "the helper reaped it when above the helper's own peak (the "
           "image its exec replaced), else the last VmHWM read from "
           "/proc/PID/status while it ran; a tree of several processes sums "
           "their exit records, or the figures of the processes the helper "
           "reaped (each holding the children it waited for); no cgroup v2 "
           "is used (a per-peer cgroup needs the memory and cpu controllers "
           "delegated to this user)",
           helper != NULL
               ? "peers started by the spawn helper crossrun-spawn, a child "
                 "subreaper that reaps every process of their tree"
               : why,
           taskstats_fd >= 0 ? "listening" : taskstats_why);
  return method;
}

const char *platform_sampled_rss_method(void)
{
  return "linux: maximum of VmRSS read from /proc/PID/status on the "
         "runner's sampling timer";
}
