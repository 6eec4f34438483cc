/* What the Windows implementation's files (platforms/windows.c and
 * platforms/windows_*.c) share; not part of platform.h's contract. Each
 * of them includes this header first: it sets the Windows version and
 * API options before any Windows header is read. */
#ifndef CROSSRUN_PLATFORMS_WINDOWS_INTERNAL_H
#define CROSSRUN_PLATFORMS_WINDOWS_INTERNAL_H

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

#include <stddef.h>

#include "platforms/platform.h"

#define WIN_MAX_JOBS 64 /* peers alive or not yet released */

/* What platform_spawn keeps in proc->os. */
struct win_proc {
  HANDLE process;
  HANDLE job;
};

/* ---- windows_text.c ---- */

/* A Windows error code as a negative errno value (-EIO when none fits). */
int win_neg_errno(DWORD code);

/* Converts n UTF-16 units (or up to the NUL when n is -1) to UTF-8 in
 * out, cut on a character boundary when it does not fit. */
void win_wide_to_utf8(const wchar_t *w, int n, char *out, size_t outlen);

/* Writes "<what>: <system message> (error <code>)" into err. */
void win_set_err(char *err, size_t errlen, const char *what, DWORD code);

/* A malloc'd UTF-16 copy of s (the caller frees it), or NULL when s is not
 * valid UTF-8 or memory runs out. */
wchar_t *win_utf8_to_wide(const char *s);

/* ---- windows_net.c ---- */

/* Starts Winsock once per process. Returns 0, or -1 when it cannot. */
int win_winsock_ready(void);

/* ---- windows_cmdline.c ---- */

/* Builds the command line from UTF-8 argv into *out (malloc'd, the caller
 * frees it). Returns 0, or a negative errno with a message in err. */
int win_build_command_line(const char *const *argv, wchar_t **out, char *err,
                           size_t errlen);

/* Builds a CREATE_UNICODE_ENVIRONMENT block into *out (malloc'd, the
 * caller frees it): the coordinator's variables minus those that extra
 * names, plus extra, sorted by name. Returns 0, or a negative errno with
 * a message in err. */
int win_build_env_block(const char *const *extra, wchar_t **out, char *err,
                        size_t errlen);

/* argv[0] as posix_spawnp treats it: a bare name is searched on PATH (with
 * ".exe" added when it has no extension); a relative path resolves from
 * cwd when one is given, and without an extension is tried with ".exe"
 * first. Returns a malloc'd wide path (the caller frees
 * it), or NULL with GetLastError set. */
wchar_t *win_resolve_program(const char *arg0, const wchar_t *cwd);

/* ---- windows_machine.c ---- */

/* Wine's version ("8.0") when this runs under wine, else NULL. Static. */
const char *win_wine_version(void);

/* ---- windows_jobs.c ---- */

/* Registers group's job for platform_collect_orphans; the handle stays
 * the caller's. Returns 0, or -1 when WIN_MAX_JOBS are registered. */
int win_jobs_add(long group, HANDLE job);

/* Forgets group's job (from platform_proc_release). */
void win_jobs_remove(long group);

#endif
