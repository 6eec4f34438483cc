/* Windows implementation of platforms/platform.h: starting, reaping,
 * measuring and stopping peers. The rest of the implementation is in
 * windows_cmdline.c (what CreateProcessW is given), windows_jobs.c (the
 * job registry and orphan collection), windows_net.c (Winsock and the port
 * probe), windows_machine.c (the machine's description) and
 * windows_text.c (UTF-16 and error messages); windows_internal.h is what
 * they share.
 *
 * Processes. A peer is created suspended, in a new console process group
 * (so that CTRL_BREAK can be aimed at it), put in a job object of its own,
 * and only then resumed: everything it starts is born inside the job and
 * cannot leave it (the job does not allow breakaway). The job therefore
 * plays the part of both the process group and the Linux subreaper, and
 * without the macOS gap: a descendant is found whatever became of its
 * parent. KILL_ON_JOB_CLOSE ends whatever is left when the job handle is
 * closed, including when the coordinator itself dies. Jobs nest from
 * Windows 8 on, so this works when the coordinator already runs in a job
 * (CI services do that). Not covered: processes a peer has started
 * through another service (WMI, the task scheduler, COM servers), which
 * are not its descendants in any sense Windows tracks.
 *
 * Peak memory. A new process starts with a working set of its own, and
 * its PeakWorkingSetSize stays readable after it ended as long as a
 * handle to it is open: that is the peer's exact lifetime peak.
 *
 * Pipes. The peer's stdout and stderr are anonymous pipes, which are
 * synchronous. The coordinator's read ends become C runtime descriptors
 * (_open_osfhandle) because uv_pipe_open takes one; libuv sees that the
 * handle is not overlapped and reads it from a thread of its own, so no
 * non-blocking mode is needed (none exists for anonymous pipes), and
 * closing the uv_pipe_t closes the descriptor and the handle. The
 * descriptor belongs to the C runtime this program links, which must be
 * the one libuv links (true of ordinary MSVC and MinGW builds).
 *
 * Signals. Windows has none. A peer always "exits": its exit code is what
 * it returned, the exception code when it crashed (0xC0000005 and so on,
 * negative as an int), STATUS_CONTROL_C_EXIT when CTRL_BREAK ended it, and
 * 1 when platform_terminate forced it (the caller knows it did that). */
#include "platforms/windows_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int platform_init(char *err, size_t errlen)
{
  if (win_winsock_ready() != 0) {
    snprintf(err, errlen, "cannot start winsock");
    return -EIO;
  }
  /* Inherited by the peers: a crash ends the process instead of waiting
   * on an error dialog nobody will close. */
  SetErrorMode(SetErrorMode(0) | SEM_FAILCRITICALERRORS |
               SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  return 0;
}

const char *platform_signal_name(int sig)
{
  static char buf[32];
  snprintf(buf, sizeof(buf), "signal %d", sig);
  return buf;
}

int64_t platform_self_peak_rss_bytes(void)
{
  PROCESS_MEMORY_COUNTERS pmc;

  if (!GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof(pmc)))
    return -1;
  return (int64_t)pmc.PeakWorkingSetSize;
}

int platform_spawn(const struct platform_spawn_opts *opts,
                   struct platform_proc *proc, char *err, size_t errlen)
{
  SECURITY_ATTRIBUTES inheritable = {sizeof(inheritable), NULL, TRUE};
  HANDLE null_in = INVALID_HANDLE_VALUE, out_r = NULL, out_w = NULL;
  HANDLE err_r = NULL, err_w = NULL, job = NULL;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
  LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
  PROCESS_INFORMATION pi = {NULL, NULL, 0, 0};
  wchar_t *app = NULL, *cmdline = NULL, *envblock = NULL, *cwd = NULL;
  struct win_proc *wp = NULL;
  int out_fd = -1, err_fd = -1, rc = 0, attrs_ready = 0;
  STARTUPINFOEXW si;
  HANDLE inherited[3];
  char what[300];
  SIZE_T attrs_size = 0;
  DWORD code, flags;

  memset(proc, 0, sizeof(*proc));
  proc->pid = -1;
  proc->stdout_fd = proc->stderr_fd = proc->event_fd = -1;
  if (opts->argv == NULL || opts->argv[0] == NULL) {
    snprintf(err, errlen, "no program to start");
    return -EINVAL;
  }
  snprintf(what, sizeof(what), "cannot start '%s'", opts->argv[0]);
  rc = win_build_command_line(opts->argv, &cmdline, err, errlen);
  if (rc == 0)
    rc = win_build_env_block(opts->env, &envblock, err, errlen);
  if (rc != 0)
    goto out;
  if (opts->cwd != NULL && (cwd = win_utf8_to_wide(opts->cwd)) == NULL) {
    snprintf(err, errlen, "'%s' is not a valid folder name", opts->cwd);
    rc = -EINVAL;
    goto out;
  }
  app = win_resolve_program(opts->argv[0], cwd);
  if (app == NULL) {
    code = GetLastError();
    win_set_err(err, errlen, what, code);
    rc = win_neg_errno(code);
    goto out;
  }
  wp = calloc(1, sizeof(*wp));
  if (wp == NULL) {
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
    goto out;
  }

  /* The pipes are created uninheritable; only the peer's ends are then
   * made inheritable, and PROC_THREAD_ATTRIBUTE_HANDLE_LIST restricts
   * inheritance to exactly those three handles, so the peer receives
   * nothing else the coordinator holds (the Windows close-on-exec). */
  if (!CreatePipe(&out_r, &out_w, NULL, 0) ||
      !CreatePipe(&err_r, &err_w, NULL, 0) ||
      !SetHandleInformation(out_w, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT) ||
      !SetHandleInformation(err_w, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)) {
    win_set_err(err, errlen, "cannot create pipes", code = GetLastError());
    rc = win_neg_errno(code);
    goto out;
  }
  out_fd = _open_osfhandle((intptr_t)out_r, _O_RDONLY);
  if (out_fd < 0) {
    snprintf(err, errlen, "cannot make a descriptor of a pipe");
    rc = -EMFILE;
    goto out;
  }
  out_r = NULL; /* owned by out_fd now */
  err_fd = _open_osfhandle((intptr_t)err_r, _O_RDONLY);
  if (err_fd < 0) {
    snprintf(err, errlen, "cannot make a descriptor of a pipe");
    rc = -EMFILE;
    goto out;
  }
  err_r = NULL;
  null_in =
      CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                  &inheritable, OPEN_EXISTING, 0, NULL);
  if (null_in == INVALID_HANDLE_VALUE) {
    win_set_err(err, errlen, "cannot open NUL", code = GetLastError());
    rc = win_neg_errno(code);
    goto out;
  }

  /* KILL_ON_JOB_CLOSE: see the top of this file. DIE_ON_UNHANDLED_EXCEPTION:
   * a crashing peer ends at once with its exception code instead of
   * waiting on Windows Error Reporting. */
  job = CreateJobObjectW(NULL, NULL);
  memset(&limits, 0, sizeof(limits));
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
      JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (job == NULL ||
      !SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits,
                               sizeof(limits))) {
    win_set_err(err, errlen, "cannot create a job object",
                code = GetLastError());
    rc = win_neg_errno(code);
    goto out;
  }

  InitializeProcThreadAttributeList(NULL, 1, 0, &attrs_size);
  attrs = malloc(attrs_size);
  if (attrs == NULL) {
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
    goto out;
  }
  if (!InitializeProcThreadAttributeList(attrs, 1, 0, &attrs_size)) {
    win_set_err(err, errlen, what, code = GetLastError());
    rc = win_neg_errno(code);
    goto out;
  }
  attrs_ready = 1;
  inherited[0] = null_in;
  inherited[1] = out_w;
  inherited[2] = err_w;
  if (!UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
                                 inherited, sizeof(inherited), NULL, NULL)) {
    win_set_err(err, errlen, what, code = GetLastError());
    rc = win_neg_errno(code);
    goto out;
  }
  memset(&si, 0, sizeof(si));
  si.StartupInfo.cb = sizeof(si);
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = null_in;
  si.StartupInfo.hStdOutput = out_w;
  si.StartupInfo.hStdError = err_w;
  si.lpAttributeList = attrs;

  /* The peer shares the coordinator's console, which CTRL_BREAK needs. A
   * coordinator without one (a service, a GUI parent) would make Windows
   * open a console window per peer: it gets a hidden one instead, and only
   * the forced termination reaches it. */
  flags = CREATE_UNICODE_ENVIRONMENT | CREATE_NEW_PROCESS_GROUP |
          CREATE_SUSPENDED | EXTENDED_STARTUPINFO_PRESENT;
  if (GetConsoleWindow() == NULL)
    flags |= CREATE_NO_WINDOW;
  proc->spawner_peak_rss_bytes = platform_self_peak_rss_bytes();
  if (!CreateProcessW(app, cmdline, NULL, NULL, TRUE, flags, envblock, cwd,
                      &si.StartupInfo, &pi)) {
    win_set_err(err, errlen, what, code = GetLastError());
    rc = win_neg_errno(code);
    goto out;
  }
  /* Still suspended: it has run no code, so it has started nothing that
   * could be outside the job. */
  if (!AssignProcessToJobObject(job, pi.hProcess)) {
    code = GetLastError();
    snprintf(what, sizeof(what), "cannot put '%s' in a job object",
             opts->argv[0]);
    win_set_err(err, errlen, what, code);
    rc = win_neg_errno(code);
    goto out;
  }
  if (win_jobs_add((long)pi.dwProcessId, job) != 0) {
    snprintf(err, errlen, "too many peers at once (%d)", WIN_MAX_JOBS);
    rc = -EAGAIN;
    goto out;
  }
  if (ResumeThread(pi.hThread) == (DWORD)-1) {
    code = GetLastError();
    win_jobs_remove((long)pi.dwProcessId);
    win_set_err(err, errlen, what, code);
    rc = win_neg_errno(code);
    goto out;
  }
  wp->process = pi.hProcess;
  wp->job = job;
  proc->pid = (long)GetProcessId(pi.hProcess);
  proc->group = proc->pid;
  proc->stdout_fd = out_fd;
  proc->stderr_fd = err_fd;
  proc->os = wp;
  pi.hProcess = NULL;
  job = NULL;
  wp = NULL;
  out_fd = err_fd = -1;

out:
  if (pi.hProcess != NULL) {
    /* Created but not handed over: it never ran. */
    TerminateProcess(pi.hProcess, 1);
    CloseHandle(pi.hProcess);
  }
  if (pi.hThread != NULL)
    CloseHandle(pi.hThread);
  /* The peer's ends are the peer's now (or nobody's). */
  if (null_in != INVALID_HANDLE_VALUE)
    CloseHandle(null_in);
  if (out_w != NULL)
    CloseHandle(out_w);
  if (err_w != NULL)
    CloseHandle(err_w);
  if (out_r != NULL)
    CloseHandle(out_r);
  if (err_r != NULL)
    CloseHandle(err_r);
  if (out_fd >= 0)
    _close(out_fd);
  if (err_fd >= 0)
    _close(err_fd);
  if (job != NULL)
    CloseHandle(job);
  if (attrs_ready)
    DeleteProcThreadAttributeList(attrs);
  free(attrs);
  free(wp);
  free(app);
  free(cmdline);
  free(cwd);
  free(envblock);
  return rc;
}

static int64_t filetime_ns(FILETIME ft)
{
  ULARGE_INTEGER u;
  u.LowPart = ft.dwLowDateTime;
  u.HighPart = ft.dwHighDateTime;
  return (int64_t)u.QuadPart * 100; /* 100 ns units */
}

int platform_try_reap(struct platform_proc *proc, struct platform_exit *ex,
                      char *err, size_t errlen)
{
  struct win_proc *wp = proc->os;
  PROCESS_MEMORY_COUNTERS pmc;
  FILETIME created, ended, kernel, user;
  DWORD w, code;

  if (wp == NULL || wp->process == NULL) {
    snprintf(err, errlen, "no peer to reap");
    return -EINVAL;
  }
  w = WaitForSingleObject(wp->process, 0);
  if (w == WAIT_TIMEOUT)
    return 0;
  if (w != WAIT_OBJECT_0) {
    win_set_err(err, errlen, "cannot wait for peer", code = GetLastError());
    return win_neg_errno(code);
  }
  memset(ex, 0, sizeof(*ex));
  ex->user_cpu_ns = ex->system_cpu_ns = -1;
  ex->os_peak_rss_bytes = ex->exact_peak_rss_bytes = -1;
  ex->exited = 1;
  ex->exit_code = -1;
  if (GetExitCodeProcess(wp->process, &code))
    ex->exit_code = (int)code;
  /* The process's own times, as for a Unix child that waited for none of
   * its children. */
  if (GetProcessTimes(wp->process, &created, &ended, &kernel, &user)) {
    ex->user_cpu_ns = filetime_ns(user);
    ex->system_cpu_ns = filetime_ns(kernel);
  }
  /* A process that ran code had a working set: a peak of 0 (wine gives
   * that for every other process) is a figure the OS does not have, not
   * an exact one. */
  if (GetProcessMemoryInfo(wp->process, &pmc, sizeof(pmc)) &&
      pmc.PeakWorkingSetSize > 0) {
    ex->os_peak_rss_bytes = (int64_t)pmc.PeakWorkingSetSize;
    ex->exact_peak_rss_bytes = ex->os_peak_rss_bytes;
  }
  return 1;
}

/* The peer's job object holds its whole tree: a tree figure would be
 * JOBOBJECT_EXTENDED_LIMIT_INFORMATION.PeakJobMemoryUsed (commit, not
 * working set) and JOBOBJECT_BASIC_ACCOUNTING_INFORMATION's
 * TotalUserTime/TotalKernelTime (every process the job ever held). The
 * figures here stay the tracked process's until they are read from the
 * job; the tree is not listed. */
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
  struct win_proc *wp = proc->os;
  PROCESS_MEMORY_COUNTERS pmc;

  mem->rss_bytes = mem->peak_rss_bytes = -1;
  /* An ended process counts as gone, as a zombie does on Linux. */
  if (wp == NULL || wp->process == NULL ||
      WaitForSingleObject(wp->process, 0) != WAIT_TIMEOUT)
    return -1;
  if (!GetProcessMemoryInfo(wp->process, &pmc, sizeof(pmc)))
    return -1;
  /* 0 is no reading (see platform_try_reap). */
  mem->rss_bytes = pmc.WorkingSetSize > 0 ? (int64_t)pmc.WorkingSetSize : -1;
  mem->peak_rss_bytes =
      pmc.PeakWorkingSetSize > 0 ? (int64_t)pmc.PeakWorkingSetSize : -1;
  return 0;
}

/* Whether CTRL_BREAK can reach a peer: it needs the console the peer
 * shares with the coordinator, and wine (8.0) delivers it to none, with
 * or without a console. */
static int gentle_stop_works(void)
{
  return GetConsoleWindow() != NULL && win_wine_version() == NULL;
}

const char *platform_stop_method(void)
{
  if (!gentle_stop_works())
    return "forced only: TerminateJobObject on the peer's job (the peer and "
           "every descendant); CTRL_BREAK cannot reach a peer here (no "
           "console shared with the runner, or wine)";
  return "CTRL_BREAK to the peer's console process group, then "
         "TerminateJobObject on its job after the grace period";
}

int platform_terminate(const struct platform_proc *proc, int force)
{
  struct win_proc *wp = proc->os;

  if (proc->group <= 0 || wp == NULL)
    return -EINVAL;
  /* Where no gentle request can arrive, waiting the grace period for an
   * answer to it would only delay the forced stop. */
  if (force || !gentle_stop_works()) {
    /* The whole job: the peer and every descendant, whoever their
     * parent. */
    if (!TerminateJobObject(wp->job, 1))
      return win_neg_errno(GetLastError());
    return 0;
  }
  /* CTRL_BREAK reaches the processes of the peer's console process group
   * (CREATE_NEW_PROCESS_GROUP made its pid the group id) that share the
   * coordinator's console; it is the only gentle request a console
   * program can be sent. It is sent only while the peer itself lives:
   * once it has ended, its pid, and so the group id, may be reused by an
   * unrelated process. The caller's escalation (force) ends the rest. If
   * the coordinator has no console the call fails and only force works. */
  if (WaitForSingleObject(wp->process, 0) != WAIT_TIMEOUT)
    return -ESRCH;
  if (!GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, (DWORD)proc->group))
    return win_neg_errno(GetLastError());
  return 0;
}

void platform_proc_release(struct platform_proc *proc)
{
  struct win_proc *wp = proc->os;

  if (wp == NULL)
    return;
  win_jobs_remove(proc->group);
  /* Closing the last handle of the job ends anything still in it
   * (KILL_ON_JOB_CLOSE). */
  if (wp->job != NULL)
    CloseHandle(wp->job);
  if (wp->process != NULL)
    CloseHandle(wp->process);
  free(wp);
  proc->os = NULL;
}

const char *platform_peak_rss_method(void)
{
  if (win_wine_version() != NULL)
    return "windows under wine: PeakWorkingSetSize from GetProcessMemoryInfo "
           "on the peer's process handle, which wine gives as 0 for another "
           "process: not measured (null)";
  return "windows: PeakWorkingSetSize from GetProcessMemoryInfo on the "
         "peer's process handle once it ended (a new process has a working "
         "set of its own, so it is the peer's exact lifetime peak)";
}

const char *platform_sampled_rss_method(void)
{
  return "windows: maximum of WorkingSetSize from GetProcessMemoryInfo read "
         "on the runner's sampling timer; the sampled peak is "
         "PeakWorkingSetSize";
}

long platform_lock(const char *path, char *err, size_t errlen)
{
  OVERLAPPED whole = {0};
  wchar_t *wpath = win_utf8_to_wide(path);
  char what[600];
  HANDLE h;

  if (wpath == NULL) {
    snprintf(err, errlen, "cannot lock '%s': out of memory", path);
    return -1;
  }
  h = CreateFileW(wpath, GENERIC_READ,
                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                  OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  free(wpath);
  if (h == INVALID_HANDLE_VALUE) {
    snprintf(what, sizeof(what), "cannot open '%s' to lock it", path);
    win_set_err(err, errlen, what, GetLastError());
    return -1;
  }
  /* Without LOCKFILE_FAIL_IMMEDIATELY it waits for the other holder. */
  if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &whole)) {
    snprintf(what, sizeof(what), "cannot lock '%s'", path);
    win_set_err(err, errlen, what, GetLastError());
    CloseHandle(h);
    return -1;
  }
  return (long)(intptr_t)h;
}

void platform_unlock(long handle)
{
  if (handle >= 0)
    CloseHandle((HANDLE)(intptr_t)handle); /* the lock goes with it */
}
