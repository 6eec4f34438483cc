/* runner/package: finding a packed artifact in a folder by a pattern
 * (package_find_artifact), in a scratch folder (tests/lib_scratch.h). */
#include <string.h>
#include <uv.h>

#include "runner/package.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static void test_find(void)
{
  char dir[SCRATCH_PATH_CAP], sub[SCRATCH_PATH_CAP], path[SCRATCH_PATH_CAP],
      want[SCRATCH_PATH_CAP];
  char out[SCRATCH_PATH_CAP], err[512];
  int rc;

  scratch_path(dir, "find");
  scratch_mkdir(dir);
  scratch_join(path, dir, "lane-1.0.0.tgz");
  scratch_write(path, "x", 1);
  scratch_join(path, dir, "notes.txt");
  scratch_write(path, "x", 1);
  scratch_join(path, dir, "folder.tgz");
  scratch_mkdir(path); /* matches the pattern but is not a file */
  scratch_join(sub, dir, "package");
  scratch_mkdir(sub);
  scratch_join(path, sub, "lane-0.1.0.crate");
  scratch_write(path, "x", 1);
  scratch_join(path, dir, "two");
  scratch_mkdir(path);
  scratch_join(path, dir, "two/a-1.tgz");
  scratch_write(path, "x", 1);
  scratch_join(path, dir, "two/a-2.tgz");
  scratch_write(path, "x", 1);

  scratch_join(want, dir, "lane-1.0.0.tgz");
  rc = package_find_artifact(dir, "*.tgz", out, sizeof(out), err, sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0,
         "find: one file matches '*.tgz', a folder that matches does not "
         "count (%s)",
         rc ? err : out);
  rc = package_find_artifact(dir, "lane-?.?.?.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0, "find: '?' matches one byte");
  rc = package_find_artifact(dir, "lane-1.0.0.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0, "find: a literal name");
  rc = package_find_artifact(dir, "*.zip", out, sizeof(out), err, sizeof(err));
  TAP_OK(rc == UV_ENOENT && strstr(err, "'*.zip'") &&
             strstr(err, "lane-1.0.0.tgz") && strstr(err, "package/") &&
             out[0] == '\0',
         "find: no match is an error listing the folder: %s", err);
  rc = package_find_artifact(dir, "lane-?.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_EQ_INT(rc, UV_ENOENT, "find: '?' does not match several bytes");
  scratch_join(path, dir, "two");
  rc = package_find_artifact(path, "a-*.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_EEXIST && strstr(err, "'a-*.tgz'") &&
             strstr(err, "a-1.tgz") && strstr(err, "a-2.tgz") &&
             strstr(err, "2 files"),
         "find: two matches are an error naming both: %s", err);
  scratch_join(want, sub, "lane-0.1.0.crate");
  rc = package_find_artifact(dir, "package/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0, "find: in a subfolder (%s)",
         rc ? err : out);
  rc =
      package_find_artifact(dir, "*.crate", out, sizeof(out), err, sizeof(err));
  TAP_EQ_INT(rc, UV_ENOENT, "find: the subfolder is not searched by default");
  rc = package_find_artifact(dir, "nowhere/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_ENOENT && strstr(err, "nowhere"),
         "find: a missing subfolder is an error: %s", err);
  rc = package_find_artifact(dir, "a/b/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_EQ_INT(rc, UV_EINVAL, "find: two '/' are refused: %s", err);
  rc = package_find_artifact(dir, "pack*/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_EINVAL, "find: wildcards in the folder are refused: %s", err);
  rc = package_find_artifact(dir, "", out, sizeof(out), err, sizeof(err));
  TAP_EQ_INT(rc, UV_EINVAL, "find: an empty pattern is refused");
  rc = package_find_artifact(dir, "*.tgz", out, 8, err, sizeof(err));
  TAP_OK(rc == UV_ENAMETOOLONG && out[0] == '\0',
         "find: a result that does not fit is an error: %s", err);
  rc = package_find_artifact(dir, "*l*n*-*1*.*", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strstr(out, "lane-1.0.0.tgz"),
         "find: several '*' backtrack");
}

int main(void)
{
  if (scratch_create() != 0)
    return tap_done();
  test_find();
  scratch_remove();
  return tap_done();
}
