/* A runtime's package artifact (runner/package.c), as `crossrun quick`
 * measures what a package command left: any bytes, read as an archive by
 * libarchive.
 *
 * Properties: a refused artifact says why in one line that starts with its
 * path; a measured one has as many entries as files, sizes that add up to
 * the unpacked total, paths within the limit, the file's own size as the
 * packed size, and a 64-digit hash. */
#include <string.h>

#include "runner/package.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct model_package_info info = MODEL_PACKAGE_INFO_INIT;
  const char *path = fuzz_file("artifact.tgz", data, size);
  char err[512];
  int64_t sum = 0;

  memset(err, 'x', sizeof(err));
  if (package_measure(path, &info, err, sizeof(err)) != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the error is not ended");
    FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0,
               "the error does not start with the artifact's path");
    FUZZ_CHECK(strchr(err, '\n') == NULL, "the error is not one line");
    FUZZ_CHECK(info.entries == NULL && info.nentries == 0,
               "a refused artifact left entries");
    return 0;
  }
  FUZZ_CHECK(info.nentries == info.file_count && info.nentries >= 0,
             "entries and files differ");
  FUZZ_CHECK(info.packed_bytes == (int64_t)size,
             "the packed size is not the file's");
  FUZZ_CHECK(strlen(info.sha256) == 64 &&
                 strspn(info.sha256, "0123456789abcdef") == 64,
             "the hash is not 64 lowercase hex digits");
  for (int i = 0; i < info.nentries; i++) {
    FUZZ_CHECK(info.entries[i].path != NULL &&
                   strlen(info.entries[i].path) <= PACKAGE_MAX_PATH,
               "an entry without a path, or a path over the limit");
    FUZZ_CHECK(info.entries[i].size_bytes >= 0, "a negative entry size");
    sum += info.entries[i].size_bytes;
  }
  FUZZ_CHECK(sum == info.unpacked_bytes,
             "the entries' sizes do not add up to the unpacked size");
  FUZZ_CHECK(memchr(info.format, '\0', sizeof(info.format)) != NULL,
             "the format name is not ended");
  model_package_info_release(&info);
  return 0;
}
