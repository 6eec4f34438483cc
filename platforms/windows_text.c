/* Text and errors at the edge of the Win32 API: UTF-8 <-> UTF-16
 * conversion, system error codes as negative errno values, and system
 * messages. Part of the Windows implementation of platforms/platform.h. */
#include "platforms/windows_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int win_neg_errno(DWORD code)
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
void win_wide_to_utf8(const wchar_t *w, int n, char *out, size_t outlen)
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
void win_set_err(char *err, size_t errlen, const char *what, DWORD code)
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
    win_wide_to_utf8(wmsg, (int)n, msg, sizeof(msg));
  else
    snprintf(msg, sizeof(msg), "system error");
  snprintf(err, errlen, "%s: %s (error %lu)", what, msg, (unsigned long)code);
}

/* A malloc'd UTF-16 copy of s, or NULL when s is not valid UTF-8 or memory
 * runs out. */
wchar_t *win_utf8_to_wide(const char *s)
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
