/* What the libFuzzer harnesses of tests/fuzz share: the entry point's
 * declaration, a check that aborts (so libFuzzer keeps the input) when a
 * property of the code under test does not hold, and a scratch file for
 * the parsers that read a path. */
#ifndef CROSSRUN_TESTS_FUZZ_FUZZ_H
#define CROSSRUN_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with "file:line: what" on stderr when cond is false. */
#define FUZZ_CHECK(cond, what)                                                 \
  do {                                                                         \
    if (!(cond))                                                               \
      fuzz_fail(__FILE__, __LINE__, what);                                     \
  } while (0)

_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/* Writes data to a file of this process, in a folder of its own under
 * $TMPDIR (or /tmp), named name (no '/'), replacing what the last call
 * wrote there, and returns its path (static storage). The folder is
 * removed at exit. Aborts when the file cannot be written. */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

/* 1 when s[0..len) is valid UTF-8 (no overlong forms, surrogates or code
 * points above U+10FFFF). */
int fuzz_utf8_valid(const char *s, size_t len);

#endif
