/* Windows implementation of platforms/platform.h.
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
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#ifndef PSAPI_VERSION
#define PSAPI_VERSION 2 /* GetProcessMemoryInfo from kernel32 */
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <psapi.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "platforms/platform.h"

#define MAX_JOBS 64       /* peers alive or not yet released */
#define MAX_JOB_PIDS 256  /* processes listed per job */
#define CMDLINE_MAX 32767 /* CreateProcessW's limit, in UTF-16 units */

/* What platform_spawn keeps in proc->os. */
struct win_proc {
  HANDLE process;
  HANDLE job;
};

/* platform_collect_orphans is given group ids, not procs: each group's job
 * is found here. An entry lives from the spawn to platform_proc_release;
 * the job handle belongs to the win_proc, and users of the registry take
 * a duplicate so that a release cannot pull it from under them. */
static struct {
  long group; /* 0: free slot */
  HANDLE job;
} jobs[MAX_JOBS];
static SRWLOCK jobs_lock = SRWLOCK_INIT;

static int jobs_add(long group, HANDLE job)
{
  int rc = -1;

  AcquireSRWLockExclusive(&jobs_lock);
  for (int i = 0; i < MAX_JOBS; i++) {
    if (jobs[i].group == 0) {
      jobs[i].group = group;
      jobs[i].job = job;
      rc = 0;
      break;
    }
  }
  ReleaseSRWLockExclusive(&jobs_lock);
  return rc;
}

static void jobs_remove(long group)
{
  AcquireSRWLockExclusive(&jobs_lock);
  for (int i = 0; i < MAX_JOBS; i++) {
    if (jobs[i].group == group) {
      jobs[i].group = 0;
      jobs[i].job = NULL;
    }
  }
  ReleaseSRWLockExclusive(&jobs_lock);
}

/* A duplicate of group's job handle (the caller closes it), or NULL. */
static HANDLE jobs_dup(long group)
{
  HANDLE dup = NULL;

  AcquireSRWLockShared(&jobs_lock);
  for (int i = 0; i < MAX_JOBS; i++) {
    if (jobs[i].group == group) {
      if (!DuplicateHandle(GetCurrentProcess(), jobs[i].job,
                           GetCurrentProcess(), &dup, 0, FALSE,
                           DUPLICATE_SAME_ACCESS))
        dup = NULL;
      break;
    }
  }
  ReleaseSRWLockShared(&jobs_lock);
  return dup;
}

static int neg_errno(DWORD code)
{
  switch (code) {
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_NAME:
    return -ENOENT;
  case ERROR_ACCESS_DENIED:
    return -EACCES;
  case ERROR_NOT_ENOUGH_MEMORY:
  case ERROR_OUTOFMEMORY:
    return -ENOMEM;
  case ERROR_INVALID_PARAMETER:
  case ERROR_INVALID_HANDLE:
    return -EINVAL;
  case ERROR_BAD_EXE_FORMAT:
    return -ENOEXEC;
  default:
    return -EIO;
  }
}

/* Converts n UTF-16 units (or up to the NUL when n is -1) to UTF-8 in
 * out, cut on a character boundary when it does not fit. */
static void wide_to_utf8(const wchar_t *w, int n, char *out, size_t outlen)
{
  char tmp[1024];
  int len;

  if (outlen == 0)
    return;
  len = WideCharToMultiByte(CP_UTF8, 0, w, n, tmp, (int)sizeof(tmp) - 1, NULL,
                            NULL);
  if (len <= 0) {
    out[0] = '\0';
    return;
  }
  tmp[len] = '\0';
  len = (int)strlen(tmp);
  if ((size_t)len >= outlen) {
    len = (int)outlen - 1;
    while (len > 0 && ((unsigned char)tmp[len] & 0xC0) == 0x80)
      len--; /* do not split a multi-byte character */
  }
  memcpy(out, tmp, (size_t)len);
  out[len] = '\0';
}

/* Writes "<what>: <system message>" into err. */
static void set_win_err(char *err, size_t errlen, const char *what, DWORD code)
{
  wchar_t wmsg[512];
  char msg[512];
  DWORD n;

  if (err == NULL || errlen == 0)
    return;
  n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                     NULL, code, 0, wmsg, sizeof(wmsg) / sizeof(wmsg[0]), NULL);
  while (n > 0 && (wmsg[n - 1] == L'\r' || wmsg[n - 1] == L'\n' ||
                   wmsg[n - 1] == L' ' || wmsg[n - 1] == L'.'))
    n--;
  if (n > 0)
    wide_to_utf8(wmsg, (int)n, msg, sizeof(msg));
  else
    snprintf(msg, sizeof(msg), "system error");
  snprintf(err, errlen, "%s: %s (error %lu)", what, msg, (unsigned long)code);
}

/* A malloc'd UTF-16 copy of s, or NULL when s is not valid UTF-8 or memory
 * runs out. */
static wchar_t *utf8_to_wide(const char *s)
{
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  wchar_t *w;

  if (n <= 0)
    return NULL;
  w = malloc((size_t)n * sizeof(wchar_t));
  if (w == NULL)
    return NULL;
  if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
    free(w);
    return NULL;
  }
  return w;
}

static BOOL CALLBACK winsock_start(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
  WSADATA wsa;
  return WSAStartup(MAKEWORD(2, 2), &wsa) == 0;
}

static int winsock_ready(void)
{
  static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
  return InitOnceExecuteOnce(&once, winsock_start, NULL, NULL) ? 0 : -1;
}

int platform_init(char *err, size_t errlen)
{
  if (winsock_ready() != 0) {
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

/* A growing UTF-16 string. */
struct wbuf {
  wchar_t *p;
  size_t len, cap;
  int failed;
};

static void wbuf_grow(struct wbuf *b, size_t more)
{
  size_t want = b->len + more + 1;
  wchar_t *p;

  if (b->failed || want <= b->cap)
    return;
  if (want < 2 * b->cap)
    want = 2 * b->cap;
  p = realloc(b->p, want * sizeof(wchar_t));
  if (p == NULL) {
    b->failed = 1;
    return;
  }
  b->p = p;
  b->cap = want;
}

static void wbuf_add(struct wbuf *b, const wchar_t *s, size_t n)
{
  wbuf_grow(b, n);
  if (b->failed)
    return;
  memcpy(b->p + b->len, s, n * sizeof(wchar_t));
  b->len += n;
  b->p[b->len] = L'\0';
}

static void wbuf_addc(struct wbuf *b, wchar_t c, size_t times)
{
  wbuf_grow(b, times);
  if (b->failed)
    return;
  for (size_t i = 0; i < times; i++)
    b->p[b->len++] = c;
  b->p[b->len] = L'\0';
}

/* Appends one argument so that the Microsoft C runtime's parser (and
 * CommandLineToArgvW) gives it back unchanged. An argument that is not
 * empty and holds no space, tab, newline, vertical tab or quote goes as it
 * is. Otherwise it goes in quotes, inside which backslashes are literal
 * except before a quote: n backslashes followed by a quote are written as
 * 2n+1 backslashes and the quote, and n backslashes at the end as 2n, so
 * that the closing quote is not escaped. No "" pair is ever produced, so
 * the older and newer runtimes read it alike. */
static void quote_arg(struct wbuf *b, const wchar_t *arg)
{
  if (*arg != L'\0' && wcspbrk(arg, L" \t\n\v\"") == NULL) {
    wbuf_add(b, arg, wcslen(arg));
    return;
  }
  wbuf_addc(b, L'"', 1);
  for (const wchar_t *p = arg;; p++) {
    size_t slashes = 0;
    while (*p == L'\\') {
      slashes++;
      p++;
    }
    if (*p == L'\0') {
      wbuf_addc(b, L'\\', slashes * 2);
      break;
    }
    if (*p == L'"') {
      wbuf_addc(b, L'\\', slashes * 2 + 1);
      wbuf_addc(b, L'"', 1);
    } else {
      wbuf_addc(b, L'\\', slashes);
      wbuf_addc(b, *p, 1);
    }
  }
  wbuf_addc(b, L'"', 1);
}

/* The runtime reads the program name (argv[0]) by other rules: up to the
 * first space or tab, or between quotes, with no backslash escapes at all.
 * A name holding a quote therefore cannot be passed; -1. */
static int quote_program(struct wbuf *b, const wchar_t *arg0)
{
  if (wcschr(arg0, L'"') != NULL)
    return -1;
  if (*arg0 != L'\0' && wcspbrk(arg0, L" \t") == NULL) {
    wbuf_add(b, arg0, wcslen(arg0));
  } else {
    wbuf_addc(b, L'"', 1);
    wbuf_add(b, arg0, wcslen(arg0));
    wbuf_addc(b, L'"', 1);
  }
  return 0;
}

/* Builds the command line from UTF-8 argv into *out (malloc'd). */
static int build_command_line(const char *const *argv, wchar_t **out, char *err,
                              size_t errlen)
{
  struct wbuf b = {NULL, 0, 0, 0};

  *out = NULL;
  for (int i = 0; argv[i] != NULL; i++) {
    wchar_t *w = utf8_to_wide(argv[i]);
    if (w == NULL) {
      snprintf(err, errlen, "argument %d of '%s' is not valid UTF-8", i,
               argv[0]);
      free(b.p);
      return -EINVAL;
    }
    if (i > 0) {
      wbuf_addc(&b, L' ', 1);
      quote_arg(&b, w);
    } else if (quote_program(&b, w) != 0) {
      snprintf(err, errlen,
               "program '%s' holds a quote, which Windows "
               "cannot pass",
               argv[0]);
      free(w);
      free(b.p);
      return -EINVAL;
    }
    free(w);
  }
  if (b.failed) {
    snprintf(err, errlen, "out of memory");
    free(b.p);
    return -ENOMEM;
  }
  if (b.len >= CMDLINE_MAX) {
    snprintf(err, errlen,
             "command line of '%s' too long (%zu of %d "
             "characters)",
             argv[0], b.len, CMDLINE_MAX - 1);
    free(b.p);
    return -E2BIG;
  }
  *out = b.p;
  return 0;
}

/* Length of the name in "NAME=value". Names of the hidden per-drive
 * variables start with '=' ("=C:=C:\dir"), so the search starts at 1. */
static size_t env_name_len(const wchar_t *e)
{
  const wchar_t *eq = e[0] != L'\0' ? wcschr(e + 1, L'=') : NULL;
  return eq != NULL ? (size_t)(eq - e) : wcslen(e);
}

/* Environment names are case-insensitive; CompareStringOrdinal is the
 * locale-independent comparison Windows itself uses for them. */
static int env_name_cmp(const wchar_t *a, const wchar_t *b)
{
  int r = CompareStringOrdinal(a, (int)env_name_len(a), b, (int)env_name_len(b),
                               TRUE);
  return r == 0 ? 0 : r - CSTR_EQUAL;
}

static int env_sort_cmp(const void *a, const void *b)
{
  return env_name_cmp(*(const wchar_t *const *)a, *(const wchar_t *const *)b);
}

/* Builds a CREATE_UNICODE_ENVIRONMENT block into *out (malloc'd): the
 * coordinator's variables minus those that extra names, plus extra,
 * sorted by name as CreateProcess documents that a block must be. */
static int build_env_block(const char *const *extra, wchar_t **out, char *err,
                           size_t errlen)
{
  wchar_t *current = GetEnvironmentStringsW();
  wchar_t **vars = NULL, **own = NULL;
  size_t nvars = 0, nextra = 0, ncurrent = 0, total = 1;
  int rc = 0;

  *out = NULL;
  if (current == NULL) {
    set_win_err(err, errlen, "cannot read the environment", GetLastError());
    return -ENOMEM;
  }
  for (const char *const *x = extra; x != NULL && *x != NULL; x++)
    nextra++;
  for (const wchar_t *e = current; *e != L'\0'; e += wcslen(e) + 1)
    ncurrent++;
  vars = calloc(ncurrent + nextra + 1, sizeof(*vars));
  own = calloc(nextra + 1, sizeof(*own));
  if (vars == NULL || own == NULL) {
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
    goto out;
  }
  for (size_t i = 0; i < nextra; i++) {
    own[i] = utf8_to_wide(extra[i]);
    if (own[i] == NULL || strchr(extra[i], '=') == NULL || extra[i][0] == '=') {
      snprintf(err, errlen,
               "environment entry '%s' is not NAME=value in "
               "UTF-8",
               extra[i]);
      rc = -EINVAL;
      goto out;
    }
  }
  for (wchar_t *e = current; *e != L'\0'; e += wcslen(e) + 1) {
    int overridden = 0;
    for (size_t i = 0; i < nextra && !overridden; i++)
      overridden = env_name_cmp(e, own[i]) == 0;
    if (!overridden)
      vars[nvars++] = e;
  }
  for (size_t i = 0; i < nextra; i++)
    vars[nvars++] = own[i];
  qsort(vars, nvars, sizeof(*vars), env_sort_cmp);
  for (size_t i = 0; i < nvars; i++)
    total += wcslen(vars[i]) + 1;
  *out = malloc(total * sizeof(wchar_t));
  if (*out == NULL) {
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
    goto out;
  }
  {
    wchar_t *w = *out;
    for (size_t i = 0; i < nvars; i++) {
      size_t n = wcslen(vars[i]) + 1;
      memcpy(w, vars[i], n * sizeof(wchar_t));
      w += n;
    }
    *w = L'\0';
  }
out:
  if (own != NULL)
    for (size_t i = 0; i < nextra; i++)
      free(own[i]);
  free(own);
  free(vars);
  FreeEnvironmentStringsW(current);
  return rc;
}

static int is_file(const wchar_t *path)
{
  DWORD a = GetFileAttributesW(path);
  return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

/* argv[0] is a path, as posix_spawn takes it on Unix (no PATH search);
 * slashes become backslashes, and ".exe" is added when the name has no
 * extension and does not exist as given. Returns a malloc'd path or
 * NULL. */
/* argv[0] as posix_spawnp treats it: a bare name is searched on PATH (with
 * ".exe" added when it has no extension); a relative path resolves from
 * cwd when one is given. Returns a malloc'd wide path or NULL with
 * GetLastError set. */
static wchar_t *resolve_program(const char *arg0, const wchar_t *cwd)
{
  wchar_t *w = utf8_to_wide(arg0), *path, *base;
  size_t n, dir = cwd ? wcslen(cwd) + 1 : 0;
  int relative;

  if (w == NULL)
    return NULL;
  n = wcslen(w);
  if (wcschr(w, L'/') == NULL && wcschr(w, L'\\') == NULL) {
    DWORD need = SearchPathW(NULL, w, L".exe", 0, NULL, NULL);
    path = need ? malloc(need * sizeof(wchar_t)) : NULL;
    if (path == NULL || SearchPathW(NULL, w, L".exe", need, path, NULL) == 0) {
      free(path);
      free(w);
      SetLastError(ERROR_FILE_NOT_FOUND);
      return NULL;
    }
    free(w);
    return path;
  }
  relative = !(w[0] == L'/' || w[0] == L'\\' || (n > 1 && w[1] == L':'));
  if (!relative)
    dir = 0;
  path = malloc((dir + n + 5) * sizeof(wchar_t));
  if (path == NULL) {
    free(w);
    SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return NULL;
  }
  if (dir > 0) {
    wcscpy(path, cwd);
    path[dir - 1] = L'\\';
  }
  for (size_t i = 0; i <= n; i++)
    path[dir + i] = w[i] == L'/' ? L'\\' : w[i];
  free(w);
  if (is_file(path))
    return path;
  base = wcsrchr(path, L'\\');
  base = base != NULL ? base + 1 : path;
  if (wcschr(base, L'.') == NULL) {
    wcscat(path, L".exe");
    if (is_file(path))
      return path;
  }
  free(path);
  SetLastError(ERROR_FILE_NOT_FOUND);
  return NULL;
}

int platform_find_program(const char *name, const char *cwd, char *out,
                          size_t outlen)
{
  wchar_t *wcwd = cwd ? utf8_to_wide(cwd) : NULL;
  wchar_t *found = resolve_program(name, wcwd);
  int ok = found != NULL &&
           WideCharToMultiByte(CP_UTF8, 0, found, -1, out, (int)outlen, NULL,
                               NULL) > 0;
  free(wcwd);
  free(found);
  return ok;
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
  proc->stdout_fd = proc->stderr_fd = -1;
  if (opts->argv == NULL || opts->argv[0] == NULL) {
    snprintf(err, errlen, "no program to start");
    return -EINVAL;
  }
  snprintf(what, sizeof(what), "cannot start '%s'", opts->argv[0]);
  rc = build_command_line(opts->argv, &cmdline, err, errlen);
  if (rc == 0)
    rc = build_env_block(opts->env, &envblock, err, errlen);
  if (rc != 0)
    goto out;
  if (opts->cwd != NULL && (cwd = utf8_to_wide(opts->cwd)) == NULL) {
    snprintf(err, errlen, "'%s' is not a valid folder name", opts->cwd);
    rc = -EINVAL;
    goto out;
  }
  app = resolve_program(opts->argv[0], cwd);
  if (app == NULL) {
    code = GetLastError();
    set_win_err(err, errlen, what, code);
    rc = neg_errno(code);
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
    set_win_err(err, errlen, "cannot create pipes", code = GetLastError());
    rc = neg_errno(code);
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
    set_win_err(err, errlen, "cannot open NUL", code = GetLastError());
    rc = neg_errno(code);
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
    set_win_err(err, errlen, "cannot create a job object",
                code = GetLastError());
    rc = neg_errno(code);
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
    set_win_err(err, errlen, what, code = GetLastError());
    rc = neg_errno(code);
    goto out;
  }
  attrs_ready = 1;
  inherited[0] = null_in;
  inherited[1] = out_w;
  inherited[2] = err_w;
  if (!UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
                                 inherited, sizeof(inherited), NULL, NULL)) {
    set_win_err(err, errlen, what, code = GetLastError());
    rc = neg_errno(code);
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
    set_win_err(err, errlen, what, code = GetLastError());
    rc = neg_errno(code);
    goto out;
  }
  /* Still suspended: it has run no code, so it has started nothing that
   * could be outside the job. */
  if (!AssignProcessToJobObject(job, pi.hProcess)) {
    code = GetLastError();
    snprintf(what, sizeof(what), "cannot put '%s' in a job object",
             opts->argv[0]);
    set_win_err(err, errlen, what, code);
    rc = neg_errno(code);
    goto out;
  }
  if (jobs_add((long)pi.dwProcessId, job) != 0) {
    snprintf(err, errlen, "too many peers at once (%d)", MAX_JOBS);
    rc = -EAGAIN;
    goto out;
  }
  if (ResumeThread(pi.hThread) == (DWORD)-1) {
    code = GetLastError();
    jobs_remove((long)pi.dwProcessId);
    set_win_err(err, errlen, what, code);
    rc = neg_errno(code);
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
    set_win_err(err, errlen, "cannot wait for peer", code = GetLastError());
    return neg_errno(code);
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
  if (GetProcessMemoryInfo(wp->process, &pmc, sizeof(pmc))) {
    ex->os_peak_rss_bytes = (int64_t)pmc.PeakWorkingSetSize;
    ex->exact_peak_rss_bytes = ex->os_peak_rss_bytes;
  }
  return 1;
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
  mem->rss_bytes = (int64_t)pmc.WorkingSetSize;
  mem->peak_rss_bytes = (int64_t)pmc.PeakWorkingSetSize;
  return 0;
}

int platform_terminate(const struct platform_proc *proc, int force)
{
  struct win_proc *wp = proc->os;

  if (proc->group <= 0 || wp == NULL)
    return -EINVAL;
  if (force) {
    /* The whole job: the peer and every descendant, whoever their
     * parent. */
    if (!TerminateJobObject(wp->job, 1))
      return neg_errno(GetLastError());
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
    return neg_errno(GetLastError());
  return 0;
}

/* The base name of a process's image, in UTF-8. */
static void process_name(HANDLE h, char *out, size_t outlen)
{
  wchar_t path[MAX_PATH * 2];
  DWORD size = sizeof(path) / sizeof(path[0]);
  const wchar_t *base;

  snprintf(out, outlen, "unknown");
  if (h == NULL || !QueryFullProcessImageNameW(h, 0, path, &size))
    return;
  path[size < sizeof(path) / sizeof(path[0]) ? size : size - 1] = L'\0';
  base = wcsrchr(path, L'\\');
  wide_to_utf8(base != NULL ? base + 1 : path, -1, out, outlen);
}

/* Lists the live processes of one job into out, then ends them all and
 * waits (bounded) until they are gone. */
static void collect_job(HANDLE job, struct platform_orphans *out)
{
  union {
    JOBOBJECT_BASIC_PROCESS_ID_LIST list;
    unsigned char bytes[sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) +
                        MAX_JOB_PIDS * sizeof(ULONG_PTR)];
  } ids;
  HANDLE live[MAX_JOB_PIDS];
  int nlive = 0;

  memset(&ids, 0, sizeof(ids));
  /* ERROR_MORE_DATA still fills the list as far as it fits; the rest are
   * ended below all the same. */
  if (QueryInformationJobObject(job, JobObjectBasicProcessIdList, &ids,
                                sizeof(ids), NULL) ||
      GetLastError() == ERROR_MORE_DATA) {
    for (DWORD i = 0; i < ids.list.NumberOfProcessIdsInList && i < MAX_JOB_PIDS;
         i++) {
      DWORD pid = (DWORD)ids.list.ProcessIdList[i];
      HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE,
                             FALSE, pid);
      BOOL in_job = FALSE;
      if (h == NULL) {
        if (GetLastError() == ERROR_INVALID_PARAMETER)
          continue; /* no such process any more */
      } else if (WaitForSingleObject(h, 0) != WAIT_TIMEOUT ||
                 !IsProcessInJob(h, job, &in_job) || !in_job) {
        /* Ended (a peer already reaped, kept by its handle), or the pid
         * now names another process. */
        CloseHandle(h);
        continue;
      }
      if (out->count < PLATFORM_MAX_ORPHANS) {
        out->list[out->count].pid = (long)pid;
        process_name(h, out->list[out->count].name, sizeof(out->list[0].name));
      }
      out->count++;
      if (h != NULL)
        live[nlive++] = h;
    }
  }
  TerminateJobObject(job, 1);
  for (int i = 0; i < nlive; i++) {
    WaitForSingleObject(live[i], 2000);
    CloseHandle(live[i]);
  }
}

int platform_collect_orphans(const long *groups, int ngroups,
                             struct platform_orphans *out, char *err,
                             size_t errlen)
{
  memset(out, 0, sizeof(*out));
  for (int i = 0; i < ngroups; i++) {
    HANDLE job;
    if (groups[i] <= 0)
      continue;
    job = jobs_dup(groups[i]);
    if (job == NULL)
      continue; /* never started, or already released */
    collect_job(job, out);
    CloseHandle(job);
  }
  return 0;
}

void platform_proc_release(struct platform_proc *proc)
{
  struct win_proc *wp = proc->os;

  if (wp == NULL)
    return;
  jobs_remove(proc->group);
  /* Closing the last handle of the job ends anything still in it
   * (KILL_ON_JOB_CLOSE). */
  if (wp->job != NULL)
    CloseHandle(wp->job);
  if (wp->process != NULL)
    CloseHandle(wp->process);
  free(wp);
  proc->os = NULL;
}

int platform_port_free(const char *host, int port, char *err, size_t errlen)
{
  struct sockaddr_storage addr;
  int addrlen, e;
  BOOL on = TRUE;
  SOCKET s;

  if (winsock_ready() != 0) {
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
    set_win_err(err, errlen, "cannot create a socket",
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
    set_win_err(err, errlen, "cannot ask for exclusive use of the port",
                (DWORD)WSAGetLastError());
    closesocket(s);
    return -EIO;
  }
  if (bind(s, (struct sockaddr *)&addr, addrlen) != 0) {
    char what[64];
    e = WSAGetLastError();
    closesocket(s);
    snprintf(what, sizeof(what), "port %d cannot be bound again", port);
    set_win_err(err, errlen, what, (DWORD)e);
    /* WSAEACCES: another socket holds the port exclusively. */
    return (e == WSAEADDRINUSE || e == WSAEACCES) ? 0 : -EIO;
  }
  closesocket(s);
  return 1;
}

/* Calls a kernel32 or ntdll function that older Windows lacks or that the
 * SDK does not declare; through void (*)(void) so that the cast from
 * FARPROC is not a function-type mismatch warning. */
typedef BOOL(WINAPI *is_wow64_process2_fn)(HANDLE, USHORT *, USHORT *);
typedef LONG(WINAPI *rtl_get_version_fn)(RTL_OSVERSIONINFOW *);

static void (*lookup(const wchar_t *module, const char *name))(void)
{
  HMODULE m = GetModuleHandleW(module);
  return m != NULL ? (void (*)(void))GetProcAddress(m, name) : NULL;
}

/* The machine's own architecture, also when this program runs emulated
 * (x64 on arm64), which GetNativeSystemInfo does not reveal. */
static const char *native_arch(void)
{
  is_wow64_process2_fn wow64 =
      (is_wow64_process2_fn)lookup(L"kernel32.dll", "IsWow64Process2");
  USHORT process_machine, native_machine;
  SYSTEM_INFO si;

  if (wow64 != NULL &&
      wow64(GetCurrentProcess(), &process_machine, &native_machine)) {
    switch (native_machine) {
    case IMAGE_FILE_MACHINE_AMD64:
      return "x86_64";
    case IMAGE_FILE_MACHINE_ARM64:
      return "arm64";
    case IMAGE_FILE_MACHINE_I386:
      return "x86";
    case IMAGE_FILE_MACHINE_ARMNT:
      return "arm";
    default:
      break;
    }
  }
  GetNativeSystemInfo(&si);
  switch (si.wProcessorArchitecture) {
  case PROCESSOR_ARCHITECTURE_AMD64:
    return "x86_64";
  case PROCESSOR_ARCHITECTURE_ARM64:
    return "arm64";
  case PROCESSOR_ARCHITECTURE_INTEL:
    return "x86";
  case PROCESSOR_ARCHITECTURE_ARM:
    return "arm";
  default:
    return "unknown";
  }
}

/* "major.minor.build.revision". RtlGetVersion, because GetVersionEx
 * reports 6.2 to programs without a compatibility manifest; the revision
 * (UBR) is only in the registry. */
static void kernel_version(char *out, size_t len)
{
  rtl_get_version_fn get =
      (rtl_get_version_fn)lookup(L"ntdll.dll", "RtlGetVersion");
  RTL_OSVERSIONINFOW vi;
  DWORD ubr = 0, size = sizeof(ubr);

  snprintf(out, len, "unknown");
  memset(&vi, 0, sizeof(vi));
  vi.dwOSVersionInfoSize = sizeof(vi);
  if (get == NULL || get(&vi) != 0)
    return;
  if (RegGetValueW(HKEY_LOCAL_MACHINE,
                   L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", L"UBR",
                   RRF_RT_REG_DWORD, NULL, &ubr, &size) == ERROR_SUCCESS)
    snprintf(out, len, "%lu.%lu.%lu.%lu", (unsigned long)vi.dwMajorVersion,
             (unsigned long)vi.dwMinorVersion, (unsigned long)vi.dwBuildNumber,
             (unsigned long)ubr);
  else
    snprintf(out, len, "%lu.%lu.%lu", (unsigned long)vi.dwMajorVersion,
             (unsigned long)vi.dwMinorVersion, (unsigned long)vi.dwBuildNumber);
}

/* The processor's name as Windows records it (the CPUID brand string on
 * x86, the vendor's name on arm64). */
static void cpu_model(char *out, size_t len)
{
  wchar_t name[128];
  DWORD size = sizeof(name);
  wchar_t *start, *end;

  snprintf(out, len, "unknown");
  if (RegGetValueW(HKEY_LOCAL_MACHINE,
                   L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                   L"ProcessorNameString", RRF_RT_REG_SZ, NULL, name,
                   &size) != ERROR_SUCCESS)
    return;
  name[sizeof(name) / sizeof(name[0]) - 1] = L'\0';
  for (start = name; *start == L' '; start++)
    ;
  end = start + wcslen(start);
  while (end > start && end[-1] == L' ')
    *--end = L'\0';
  if (*start != L'\0')
    wide_to_utf8(start, -1, out, len);
}

void platform_machine_describe(struct platform_machine *m)
{
  MEMORYSTATUSEX ms;
  DWORD cpus;

  memset(m, 0, sizeof(*m));
  snprintf(m->os, sizeof(m->os), "windows");
  snprintf(m->arch, sizeof(m->arch), "%s", native_arch());
  kernel_version(m->kernel, sizeof(m->kernel));
  cpu_model(m->cpu_model, sizeof(m->cpu_model));
  cpus = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
  m->logical_cpus = cpus > 0 ? (int)cpus : -1;
  memset(&ms, 0, sizeof(ms));
  ms.dwLength = sizeof(ms);
  m->memory_bytes = GlobalMemoryStatusEx(&ms) ? (int64_t)ms.ullTotalPhys : -1;
  /* Windows has no load average and no governor in that sense. */
  m->load_average_1m = -1;
}

const char *platform_peak_rss_method(void)
{
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
