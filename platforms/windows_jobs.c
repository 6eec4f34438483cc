/* The job objects that stand for the peers' process groups: a registry
 * from group id to job, and platform_collect_orphans, which lists and
 * ends what is still alive in a job. Part of the Windows implementation
 * of platforms/platform.h (see windows.c for why jobs). */
#include "platforms/windows_internal.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define MAX_JOB_PIDS 256           /* processes listed per job */
#define CONSOLE_HOST_GRACE_MS 2000 /* for a console host to end */

/* platform_collect_orphans is given group ids, not procs: each group's job
 * is found here. An entry lives from the spawn to platform_proc_release;
 * the job handle belongs to the win_proc, and users of the registry take
 * a duplicate so that a release cannot pull it from under them. */
static struct {
  long group; /* 0: free slot */
  HANDLE job;
} jobs[WIN_MAX_JOBS];
static SRWLOCK jobs_lock = SRWLOCK_INIT;

int win_jobs_add(long group, HANDLE job)
{
  int rc = -1;

  AcquireSRWLockExclusive(&jobs_lock);
  for (int i = 0; i < WIN_MAX_JOBS; i++) {
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

void win_jobs_remove(long group)
{
  AcquireSRWLockExclusive(&jobs_lock);
  for (int i = 0; i < WIN_MAX_JOBS; i++) {
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
  for (int i = 0; i < WIN_MAX_JOBS; i++) {
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
  win_wide_to_utf8(base != NULL ? base + 1 : path, -1, out, outlen);
}

/* Lists the live processes of one job into out, then ends them all and
 * waits (bounded) until they are gone. */
static void collect_job(HANDLE job, struct model_orphans *out)
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
      char name[sizeof(out->list[0].name)];
      /* PROCESS_QUERY_INFORMATION: IsProcessInJob on a handle with only
       * the limited right fails with access denied, and a check that
       * skipped every process it could not ask about would find none. */
      HANDLE h =
          OpenProcess(PROCESS_QUERY_INFORMATION | SYNCHRONIZE, FALSE, pid);
      BOOL in_job = TRUE;
      if (h == NULL)
        h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE,
                        pid);
      if (h == NULL) {
        if (GetLastError() == ERROR_INVALID_PARAMETER)
          continue; /* no such process any more */
      } else if (WaitForSingleObject(h, 0) != WAIT_TIMEOUT ||
                 (IsProcessInJob(h, job, &in_job) && !in_job)) {
        /* Ended (a peer already reaped, kept by its handle), or the pid
         * now names another process. One the job listed a moment ago and
         * that cannot be asked counts as still in it. */
        CloseHandle(h);
        continue;
      }
      process_name(h, name, sizeof(name));
      /* A peer started without the runner's console gets a console host
       * of its own (conhost.exe, in the peer's job), which ends once the
       * last process of its console has: not a process the peer left
       * behind, unless it is still there after the grace period. */
      if (h != NULL && _stricmp(name, "conhost.exe") == 0 &&
          WaitForSingleObject(h, CONSOLE_HOST_GRACE_MS) != WAIT_TIMEOUT) {
        CloseHandle(h);
        continue;
      }
      if (out->count < MODEL_MAX_ORPHANS) {
        out->list[out->count].pid = (long)pid;
        snprintf(out->list[out->count].name, sizeof(out->list[0].name), "%s",
                 name);
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
                             struct model_orphans *out, char *err,
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
