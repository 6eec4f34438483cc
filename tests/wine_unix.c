/* NAME.exe under wine: runs the Linux script NAME.sh beside it and exits
 * with its status. ci/windows-check builds it as the `cc` and `make` that
 * matrix.yaml's C runtime names (the cross compiler and the cross build)
 * and the `git` that record asks for the provenance.
 *
 * Wine starts a Linux program that a Windows program names, but hands back
 * no process handle (it is NULL): no job object can hold the program, and
 * nothing can wait for it or read its exit status. This program is a real
 * Windows process for the runner to hold. Its Linux child writes to a file
 * (wine gives a Linux program no pipe: its pipes have no Linux descriptor),
 * stdout and stderr joined by the script, whose last line is its exit
 * status, "crossrun-wine-exit:N"; the file is read until that line is in.
 *
 * Windows only (mingw-w64); built and used by ci/windows-check alone, with
 * platforms/windows_cmdline.c and windows_text.c, which quote the command
 * line as the runner does. */
#include "platforms/windows_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_MARK "\ncrossrun-wine-exit:"
/* The output kept; a build's is a few KiB. */
#define OUTPUT_MAX (16u << 20)
#define POLL_MS 20

typedef char *(CDECL *unix_name_fn)(LPCWSTR);
typedef WCHAR *(CDECL *dos_name_fn)(LPCSTR);

static const char *self = "wine_unix";

static int fail(const char *what)
{
  fprintf(stderr, "%s: %s (error %lu)\n", self, what,
          (unsigned long)GetLastError());
  return 127;
}

/* The script's Linux path: this program's own path, .sh for .exe (wine's
 * memory, kept to the end). NULL on failure. */
static char *script_path(void)
{
  HMODULE k32 = GetModuleHandleA("kernel32.dll");
  unix_name_fn unix_name = (unix_name_fn)(void (*)(void))GetProcAddress(
      k32, "wine_get_unix_file_name");
  WCHAR path[MAX_PATH];
  DWORD n = GetModuleFileNameW(NULL, path, MAX_PATH);

  if (unix_name == NULL || n < 4 || n >= MAX_PATH - 1 ||
      _wcsicmp(path + n - 4, L".exe") != 0)
    return NULL;
  wcscpy(path + n - 4, L".sh");
  return unix_name(path);
}

/* Reads what the script wrote to f past *len into out, until its exit
 * line is in. Returns the status (0 to 255), or -1 when the output passes
 * OUTPUT_MAX without it or the line is not one. */
static long wait_for_status(HANDLE f, char *out, size_t *len)
{
  for (;;) {
    DWORD got = 0;
    char *mark, *end;
    long status;

    if (!ReadFile(f, out + *len, (DWORD)(OUTPUT_MAX - *len), &got, NULL))
      got = 0;
    *len += got;
    out[*len] = '\0';
    mark = strstr(out, EXIT_MARK);
    if (mark != NULL && strchr(mark + 1, '\n') != NULL) {
      status = strtol(mark + strlen(EXIT_MARK), &end, 10);
      *len = (size_t)(mark - out);
      return *end == '\n' && status >= 0 && status <= 255 ? status : -1;
    }
    if (*len == OUTPUT_MAX)
      return -1;
    if (got == 0)
      Sleep(POLL_MS);
  }
}

int main(int argc, char **argv)
{
  HMODULE k32 = GetModuleHandleA("kernel32.dll");
  dos_name_fn dos_name = (dos_name_fn)(void (*)(void))GetProcAddress(
      k32, "wine_get_dos_file_name");
  SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  HANDLE wr, rd;
  static WCHAR dir[MAX_PATH], file[MAX_PATH];
  char msg[256], *script, *out, **args;
  WCHAR *sh, *wcmd;
  size_t len = 0;
  DWORD wrote;
  long status;

  if (argc > 0)
    self = argv[0];
  script = script_path();
  sh = dos_name ? dos_name("/bin/sh") : NULL;
  if (script == NULL || sh == NULL)
    return fail("runs under wine only, as NAME.exe beside NAME.sh");
  args = calloc((size_t)argc + 2, sizeof(*args));
  if (args == NULL)
    return fail("out of memory");
  args[0] = "sh";
  args[1] = script;
  for (int i = 1; i < argc; i++)
    args[i + 1] = argv[i];
  if (win_build_command_line((const char *const *)args, &wcmd, msg,
                             sizeof(msg)) != 0) {
    fprintf(stderr, "%s: %s\n", self, msg);
    return 127;
  }
  if (GetTempPathW(MAX_PATH, dir) == 0 ||
      GetTempFileNameW(dir, L"cwu", 0, file) == 0)
    return fail("cannot name a temporary file");
  wr = CreateFileW(file, GENERIC_WRITE,
                   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa,
                   CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY, NULL);
  rd = CreateFileW(file, GENERIC_READ,
                   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                   OPEN_EXISTING, FILE_FLAG_DELETE_ON_CLOSE, NULL);
  if (wr == INVALID_HANDLE_VALUE || rd == INVALID_HANDLE_VALUE) {
    DeleteFileW(file);
    return fail("cannot make a temporary file");
  }
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  si.hStdOutput = wr;
  si.hStdError = wr;
  /* Wine 8 hands a Linux program its stdin and stdout only when it is to
   * get no console of its own (detached) and does not ignore CTRL+C, which
   * a child inherits: the runner starts this program in a process group of
   * its own, so it does. */
  SetConsoleCtrlHandler(NULL, FALSE);
  if (!CreateProcessW(sh, wcmd, NULL, NULL, TRUE, DETACHED_PROCESS, NULL, NULL,
                      &si, &pi)) {
    CloseHandle(rd);
    return fail("cannot start /bin/sh");
  }
  /* NULL for a Linux program; closed where wine gives them. */
  if (pi.hProcess != NULL)
    CloseHandle(pi.hProcess);
  if (pi.hThread != NULL)
    CloseHandle(pi.hThread);
  CloseHandle(wr);
  out = malloc(OUTPUT_MAX + 1);
  if (out == NULL)
    return fail("out of memory");
  status = wait_for_status(rd, out, &len);
  CloseHandle(rd);
  if (!WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), out, (DWORD)len, &wrote,
                 NULL) &&
      len > 0)
    return fail("cannot write the output");
  if (status < 0) {
    fprintf(stderr, "%s: %s gave no exit status line within %u bytes\n", self,
            script, OUTPUT_MAX);
    return 127;
  }
  return (int)status;
}
