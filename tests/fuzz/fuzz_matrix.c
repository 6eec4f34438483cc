/* The matrix file (runner/matrix.c), read from a file as `--matrix FILE`
 * reads it, then read a second time into the same lanes (a runtime of the
 * same name replaces the one loaded first), and its lanes selected.
 *
 * Properties: a refused file leaves the lanes as they were and says why in
 * one line that starts with the file's name; a loaded one holds at most
 * its limits, and loading it again changes no count. */
#include <stdlib.h>
#include <string.h>

#include "runner/lanes.h"
#include "runner/matrix.h"
#include "tests/fuzz/fuzz.h"

static void check_error(const char *err, const char *path)
{
  FUZZ_CHECK(memchr(err, '\0', 512) != NULL, "the error is not ended");
  FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0,
             "the error does not start with the file's name");
  FUZZ_CHECK(strchr(err, '\n') == NULL, "the error is not one line");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct lane selected[LANES_MAX];
  const char *path = fuzz_file("matrix.yaml", data, size);
  struct lanes *l = calloc(1, sizeof(*l));
  char err[512];
  int nruntimes, nworkloads, n;

  if (l == NULL)
    return 0;
  memset(err, 'x', sizeof(err));
  if (matrix_load(l, path, err, sizeof(err)) != 0) {
    check_error(err, path);
    FUZZ_CHECK(l->nruntimes == 0 && l->nworkloads == 0,
               "a refused file changed the lanes");
    free(l);
    return 0;
  }
  FUZZ_CHECK(l->nruntimes >= 0 && l->nruntimes <= LANES_MAX_RUNTIMES &&
                 l->nworkloads >= 0 && l->nworkloads <= LANES_MAX_WORKLOADS,
             "more runtimes or workloads than the limits");
  nruntimes = l->nruntimes;
  nworkloads = l->nworkloads;
  FUZZ_CHECK(matrix_load(l, path, err, sizeof(err)) == 0,
             "a file loaded once is refused the second time");
  FUZZ_CHECK(l->nruntimes == nruntimes && l->nworkloads == nworkloads,
             "loading the same file again changed the counts");
  n = lanes_select(l, NULL, selected, LANES_MAX, err, sizeof(err));
  FUZZ_CHECK(n >= 0 && n <= LANES_MAX, "selecting every lane failed");
  (void)lanes_select(l, "*-*,x", selected, LANES_MAX, err, sizeof(err));
  lanes_release(l);
  free(l);
  return 0;
}
