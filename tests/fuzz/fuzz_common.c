/* Helpers linked into every harness (tests/fuzz/fuzz.h). */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char folder[4096];

_Noreturn void fuzz_fail(const char *file, int line, const char *what)
{
  fprintf(stderr, "%s:%d: property does not hold: %s\n", file, line, what);
  abort();
}

static void remove_folder(void)
{
  char cmd[4200];

  if (folder[0] == '\0')
    return;
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", folder);
  if (system(cmd) != 0)
    fprintf(stderr, "fuzz: could not remove %s\n", folder);
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
  static char path[4200];
  int fd;

  if (folder[0] == '\0') {
    const char *tmp = getenv("TMPDIR");
    snprintf(folder, sizeof(folder), "%s/crossrun-fuzz-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(folder) == NULL) {
      fprintf(stderr, "fuzz: mkdtemp %s: %s\n", folder, strerror(errno));
      abort();
    }
    atexit(remove_folder);
  }
  snprintf(path, sizeof(path), "%s/%s", folder, name);
  /* A new file each time: ext4 writes a file truncated and written again
   * back to disk at its close, which would make the harness wait on the
   * disk for every input. */
  unlink(path);
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
    abort();
  }
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, "fuzz: write %s: %s\n", path, strerror(errno));
      abort();
    }
    data += n;
    size -= (size_t)n;
  }
  close(fd);
  return path;
}

int fuzz_utf8_valid(const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *)s, *end = p + len;

  while (p < end) {
    unsigned c = *p;
    size_t need;
    unsigned cp, min;

    if (c < 0x80) {
      p++;
      continue;
    }
    if ((c & 0xE0) == 0xC0)
      need = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
      need = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
      need = 3, cp = c & 0x07, min = 0x10000;
    else
      return 0;
    if ((size_t)(end - p) <= need)
      return 0;
    for (size_t i = 1; i <= need; i++) {
      if ((p[i] & 0xC0) != 0x80)
        return 0;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
    p += need + 1;
  }
  return 1;
}
