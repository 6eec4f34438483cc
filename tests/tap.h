/* Minimal TAP helpers for crossrun's C tests. Assertions cannot be compiled
 * out. Each test program prints "ok N - name" / "not ok N - name" lines and
 * ends with "1..N" and a "N passed, N failed" line; exit status is 1 when
 * anything failed. */
#ifndef CROSSRUN_TESTS_TAP_H
#define CROSSRUN_TESTS_TAP_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <direct.h> /* _mkdir: Windows has no mkdtemp */
#include <io.h>
#else
#include <sys/stat.h>
#endif

/* The program's counts, defined once in tests/lib_tap.c so that the
 * helpers of tests/lib_*.c record their checks in the same stream. */
extern int tap_count;
extern int tap_failed;

#if defined(__GNUC__)
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TAP_PRINTF(f, a)
#endif

static inline TAP_PRINTF(4, 0) int tap_vcheck(int cond, const char *file,
                                              int line, const char *fmt,
                                              va_list ap)
{
  tap_count++;
  if (!cond)
    tap_failed++;
  printf("%sok %d - ", cond ? "" : "not ", tap_count);
  vprintf(fmt, ap);
  printf("\n");
  if (!cond)
    printf("#   failed at %s:%d\n", file, line);
  fflush(stdout);
  return cond;
}

/* Records one check. Returns cond so callers can skip dependent checks. */
static inline TAP_PRINTF(4, 5) int tap_check(int cond, const char *file,
                                             int line, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  cond = tap_vcheck(cond, file, line, fmt, ap);
  va_end(ap);
  return cond;
}

#define TAP_OK(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Typed checks: like TAP_OK (recorded, never aborting, returning whether
 * they passed), and on failure they print what was got and what was
 * expected, as "#   got X, expected Y":
 *   TAP_EQ_INT(got, want, name...)     signed integers (as intmax_t)
 *   TAP_EQ_UINT(got, want, name...)    unsigned integers (as uintmax_t)
 *   TAP_EQ_DBL(got, want, tol, name...) |got - want| <= tol; two NaNs are
 *                                       equal, so NaN can be expected
 *   TAP_EQ_STR(got, want, name...)     strcmp, where NULL equals only NULL
 *   TAP_HAS_STR(got, part, name...)    got is a string holding part
 *   TAP_NONNULL(p, name...), TAP_NULL(p, name...)
 * Strings are shown quoted and escaped, cut after TAP_STR_SHOWN bytes, so
 * that a diagnostic stays one line. */
#define TAP_EQ_INT(got, want, ...)                                             \
  tap_eq_int((intmax_t)(got), (intmax_t)(want), __FILE__, __LINE__, __VA_ARGS__)
#define TAP_EQ_UINT(got, want, ...)                                            \
  tap_eq_uint((uintmax_t)(got), (uintmax_t)(want), __FILE__, __LINE__,         \
              __VA_ARGS__)
#define TAP_EQ_DBL(got, want, tol, ...)                                        \
  tap_eq_dbl((double)(got), (double)(want), (double)(tol), __FILE__, __LINE__, \
             __VA_ARGS__)
#define TAP_EQ_STR(got, want, ...)                                             \
  tap_eq_str((got), (want), 0, __FILE__, __LINE__, __VA_ARGS__)
#define TAP_HAS_STR(got, part, ...)                                            \
  tap_eq_str((got), (part), 1, __FILE__, __LINE__, __VA_ARGS__)
#define TAP_NONNULL(p, ...)                                                    \
  tap_null((const void *)(p), 0, __FILE__, __LINE__, __VA_ARGS__)
#define TAP_NULL(p, ...)                                                       \
  tap_null((const void *)(p), 1, __FILE__, __LINE__, __VA_ARGS__)

#define TAP_STR_SHOWN 400

static inline void tap_print_str(const char *s)
{
  size_t i, n;

  if (!s) {
    printf("NULL");
    return;
  }
  n = strlen(s);
  putchar('"');
  for (i = 0; i < n && i < TAP_STR_SHOWN; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c == '\n')
      printf("\\n");
    else if (c == '\t')
      printf("\\t");
    else if (c < 0x20 || c == 0x7f)
      printf("\\x%02x", c);
    else
      putchar(c);
  }
  putchar('"');
  if (n > TAP_STR_SHOWN)
    printf("... (%zu bytes)", n);
}

static inline TAP_PRINTF(5, 6) int tap_eq_int(intmax_t got, intmax_t want,
                                              const char *file, int line,
                                              const char *fmt, ...)
{
  va_list ap;
  int ok = got == want;
  va_start(ap, fmt);
  tap_vcheck(ok, file, line, fmt, ap);
  va_end(ap);
  if (!ok)
    printf("#   got %" PRIdMAX ", expected %" PRIdMAX "\n", got, want);
  fflush(stdout);
  return ok;
}

static inline TAP_PRINTF(5, 6) int tap_eq_uint(uintmax_t got, uintmax_t want,
                                               const char *file, int line,
                                               const char *fmt, ...)
{
  va_list ap;
  int ok = got == want;
  va_start(ap, fmt);
  tap_vcheck(ok, file, line, fmt, ap);
  va_end(ap);
  if (!ok)
    printf("#   got %" PRIuMAX ", expected %" PRIuMAX "\n", got, want);
  fflush(stdout);
  return ok;
}

static inline TAP_PRINTF(6, 7) int tap_eq_dbl(double got, double want,
                                              double tol, const char *file,
                                              int line, const char *fmt, ...)
{
  va_list ap;
  int ok =
      (isnan(got) && isnan(want)) || got == want || fabs(got - want) <= tol;
  va_start(ap, fmt);
  tap_vcheck(ok, file, line, fmt, ap);
  va_end(ap);
  if (!ok)
    printf("#   got %.17g, expected %.17g (within %g)\n", got, want, tol);
  fflush(stdout);
  return ok;
}

/* part: whether want need only be part of got. */
static inline TAP_PRINTF(6, 7) int tap_eq_str(const char *got, const char *want,
                                              int part, const char *file,
                                              int line, const char *fmt, ...)
{
  va_list ap;
  int ok;

  if (part)
    ok = got && want && strstr(got, want);
  else
    ok = got && want ? !strcmp(got, want) : got == want;
  va_start(ap, fmt);
  tap_vcheck(ok, file, line, fmt, ap);
  va_end(ap);
  if (!ok) {
    printf("#   got ");
    tap_print_str(got);
    printf(part ? ", expected a string holding " : ", expected ");
    tap_print_str(want);
    printf("\n");
  }
  fflush(stdout);
  return ok;
}

/* null: whether p is expected to be NULL. */
static inline TAP_PRINTF(5, 6) int tap_null(const void *p, int null,
                                            const char *file, int line,
                                            const char *fmt, ...)
{
  va_list ap;
  int ok = null ? p == NULL : p != NULL;
  va_start(ap, fmt);
  tap_vcheck(ok, file, line, fmt, ap);
  va_end(ap);
  if (!ok) {
    if (null)
      printf("#   got %p, expected NULL\n", p);
    else
      printf("#   got NULL, expected non-NULL\n");
  }
  fflush(stdout);
  return ok;
}

/* A diagnostic line, shown by TAP consumers. */
static inline TAP_PRINTF(1, 2) void tap_diag(const char *fmt, ...)
{
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* Prints the plan and the closing line; returns the exit status. */
static inline int tap_done(void)
{
  printf("1..%d\n", tap_count);
  printf("%d passed, %d failed\n", tap_count - tap_failed, tap_failed);
  fflush(stdout);
  return tap_failed ? 1 : 0;
}

/* Seconds for a test that starts processes, scaled by
 * CROSSRUN_TEST_TIMEOUT_MULTIPLIER on slow machines. */
static inline double tap_timeout_s(double base)
{
  const char *m = getenv("CROSSRUN_TEST_TIMEOUT_MULTIPLIER");
  double k = m ? atof(m) : 1.0;
  return base * (k > 0 ? k : 1.0);
}

/* mkdir(path, 0700); Windows' mkdir takes no mode. */
static inline int tap_mkdir(const char *path)
{
#ifdef _WIN32
  return _mkdir(path);
#else
  return mkdir(path, 0700);
#endif
}

/* Makes a fresh folder "crossrun-test-XXXXXX" under $TMPDIR (or /tmp) into
 * buf, so that tests/run can give every run a TMPDIR of its own and find
 * what a test left there. Returns buf, or NULL with errno set. */
static inline char *tap_mkdtemp(char *buf, size_t len)
{
  const char *base = getenv("TMPDIR");

  snprintf(buf, len, "%s/crossrun-test-XXXXXX", base && *base ? base : "/tmp");
#ifdef _WIN32
  /* _mkdir fails when the name is taken, as mkdtemp's own attempt does. */
  if (_mktemp_s(buf, strlen(buf) + 1) != 0 || _mkdir(buf) != 0)
    return NULL;
  return buf;
#else
  return mkdtemp(buf);
#endif
}

#endif
