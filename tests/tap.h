/* Minimal TAP helpers for crossrun's C tests. Assertions cannot be compiled
 * out. Each test program prints "ok N - name" / "not ok N - name" lines and
 * ends with "1..N" and a "N passed, N failed" line; exit status is 1 when
 * anything failed. */
#ifndef CROSSRUN_TESTS_TAP_H
#define CROSSRUN_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;

/* Records one check. Returns cond so callers can skip dependent checks. */
static inline int tap_check(int cond, const char *file, int line,
                            const char *fmt, ...)
{
  va_list ap;
  tap_count++;
  if (!cond)
    tap_failed++;
  printf("%sok %d - ", cond ? "" : "not ", tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  if (!cond)
    printf("#   failed at %s:%d\n", file, line);
  fflush(stdout);
  return cond;
}

#define TAP_OK(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* A diagnostic line, shown by TAP consumers. */
static inline void tap_diag(const char *fmt, ...)
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

/* Makes a fresh folder "crossrun-test-XXXXXX" under $TMPDIR (or /tmp) into
 * buf, so that tests/run can give every run a TMPDIR of its own and find
 * what a test left there. Returns buf, or NULL with errno set. */
static inline char *tap_mkdtemp(char *buf, size_t len)
{
  const char *base = getenv("TMPDIR");

  snprintf(buf, len, "%s/crossrun-test-XXXXXX",
           base && *base ? base : "/tmp");
  return mkdtemp(buf);
}

#endif
