/* The two YAML inputs, the matrix file and an --expect file, are read by
 * the one bounded reader under the same text rules as every JSON input:
 * the same bad bytes get the same one-line answer, naming the place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/base/json_read.h"
#include "runner/expect.h"
#include "runner/lanes.h"
#include "runner/matrix.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char dir[512];

static const char *write_bytes(const char *name, const char *bytes, size_t n)
{
  static char path[700];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (f != NULL) {
    fwrite(bytes, 1, n, f);
    fclose(f);
  }
  return path;
}

/* Loads path as a matrix file and as an --expect file; both must refuse
 * it with want after the path. */
static void both_refuse(const char *label, const char *path, const char *want)
{
  struct lanes *l = calloc(1, sizeof(*l));
  static struct expect e;
  char merr[512] = "", eerr[512] = "", full[800];

  snprintf(full, sizeof(full), "%s%s", path, want);
  TAP_OK(l && matrix_load(l, path, merr, sizeof(merr)) == -1,
         "%s: the matrix reader refuses it", label);
  TAP_HAS_STR(merr, full, "%s: the matrix reader says where and why", label);
  TAP_OK(expect_load(&e, path, eerr, sizeof(eerr)) == -1,
         "%s: the --expect reader refuses it", label);
  TAP_HAS_STR(eerr, full, "%s: the --expect reader says the same", label);
  TAP_OK(strchr(merr, '\n') == NULL && strchr(eerr, '\n') == NULL,
         "%s: both on one line", label);
  if (l)
    lanes_release(l);
  free(l);
}

int main(void)
{
  static const char nul[] = "known_failures:\n  - l\0ne: c-c\n";
  static const char bad[] = "known_failures:\n  - lané: \xff\n";
  char path[700];
  FILE *f;

  if (!TAP_NONNULL(tap_mkdtemp(dir, sizeof(dir)), "a scratch folder"))
    return tap_done();
  /* Not "nul.yaml": Windows opens NUL.* as its null device. */
  both_refuse("a NUL byte", write_bytes("zero-byte.yaml", nul, sizeof(nul) - 1),
              ":2:6: a NUL byte");
  both_refuse("not UTF-8", write_bytes("bad.yaml", bad, sizeof(bad) - 1),
              ":2:11: not valid UTF-8");

  /* One byte past each limit, sparse: refused from its size. */
  snprintf(path, sizeof(path), "%s/big.yaml", dir);
  f = fopen(path, "wb");
  TAP_OK(f && fseek(f, (long)JSON_READ_MATRIX_MAX_BYTES, SEEK_SET) == 0 &&
             fputc('\n', f) != EOF && fclose(f) == 0,
         "a file one byte over the matrix limit");
  both_refuse("too large", path, ": too large: more than");

  TAP_EQ_INT(scratch_remove_tree(dir, 0), 0, "the scratch folder is removed");
  return tap_done();
}
