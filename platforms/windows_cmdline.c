/* What CreateProcessW is given, built from platform_spawn's UTF-8 options:
 * the command line quoted for the Microsoft C runtime's parser, the
 * sorted UTF-16 environment block, and the program's full path (also
 * platform_find_program). Part of the Windows implementation of
 * platforms/platform.h. */
#include "platforms/windows_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define CMDLINE_MAX 32767 /* CreateProcessW's limit, in UTF-16 units */

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
int win_build_command_line(const char *const *argv, wchar_t **out, char *err,
                           size_t errlen)
{
  struct wbuf b = {NULL, 0, 0, 0};

  *out = NULL;
  for (int i = 0; argv[i] != NULL; i++) {
    wchar_t *w = win_utf8_to_wide(argv[i]);
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
int win_build_env_block(const char *const *extra, wchar_t **out, char *err,
                        size_t errlen)
{
  wchar_t *current = GetEnvironmentStringsW();
  wchar_t **vars = NULL, **own = NULL;
  size_t nvars = 0, nextra = 0, ncurrent = 0, total = 1;
  int rc = 0;

  *out = NULL;
  if (current == NULL) {
    win_set_err(err, errlen, "cannot read the environment", GetLastError());
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
    own[i] = win_utf8_to_wide(extra[i]);
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

/* argv[0] as posix_spawnp treats it: a bare name is searched on PATH (with
 * ".exe" added when it has no extension); a relative path resolves from
 * cwd when one is given. Returns a malloc'd wide path or NULL with
 * GetLastError set. */
wchar_t *win_resolve_program(const char *arg0, const wchar_t *cwd)
{
  wchar_t *w = win_utf8_to_wide(arg0), *path, *base;
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
  /* NAME.exe before NAME, as CreateProcess's own search does: a checkout
   * that holds another OS's build too (build/lanes/c/client beside
   * client.exe, as under wine) runs the Windows program. */
  base = wcsrchr(path, L'\\');
  base = base != NULL ? base + 1 : path;
  if (wcschr(base, L'.') == NULL) {
    wcscat(path, L".exe");
    if (is_file(path))
      return path;
    path[wcslen(path) - 4] = L'\0';
  }
  if (is_file(path))
    return path;
  free(path);
  SetLastError(ERROR_FILE_NOT_FOUND);
  return NULL;
}

int platform_find_program(const char *name, const char *cwd, char *out,
                          size_t outlen)
{
  wchar_t *wcwd = cwd ? win_utf8_to_wide(cwd) : NULL;
  wchar_t *found = win_resolve_program(name, wcwd);
  int ok = found != NULL && WideCharToMultiByte(CP_UTF8, 0, found, -1, out,
                                                (int)outlen, NULL, NULL) > 0;
  free(wcwd);
  free(found);
  return ok;
}
