/* The expected-outcomes file of `record --expect FILE` (runner/expect.c).
 *
 * Properties: a refused file says why in one line that starts with the
 * file's name; a loaded one has at most EXPECT_MAX entries, each with its
 * strings ended within their fields and found again by its lane and OS. */
#include <string.h>

#include "runner/expect.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct expect e;
  const char *path = fuzz_file("expect.yaml", data, size);
  char err[512];

  memset(err, 'x', sizeof(err));
  if (expect_load(&e, path, err, sizeof(err)) != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the error is not ended");
    FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0,
               "the error does not start with the file's name");
    FUZZ_CHECK(strchr(err, '\n') == NULL, "the error is not one line");
    return 0;
  }
  FUZZ_CHECK(e.n >= 0 && e.n <= EXPECT_MAX, "more entries than EXPECT_MAX");
  for (int i = 0; i < e.n; i++) {
    const struct expect_entry *x = &e.entries[i], *found;
    FUZZ_CHECK(memchr(x->lane, '\0', sizeof(x->lane)) &&
                   memchr(x->os, '\0', sizeof(x->os)) &&
                   memchr(x->reason, '\0', sizeof(x->reason)),
               "an entry's field is not ended");
    found = expect_find(&e, x->lane, x->os);
    FUZZ_CHECK(found != NULL && strcmp(found->lane, x->lane) == 0 &&
                   strcmp(found->os, x->os) == 0,
               "an entry is not found by its lane and OS");
  }
  return 0;
}
