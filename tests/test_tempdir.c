/* runner/tempdir: a sample's private temporary directory is made fresh
 * (mode 0700, under $TMPDIR, TMP on Windows), its leftovers are listed,
 * and it is removed with everything below it; the failures name what
 * failed. Everything is made under this run's temporary folder and
 * removed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "runner/tempdir.h"
#include "tests/lib_env.h"
#include "tests/tap.h"

/* The variable that names the temporary folder, and where a path's parts
 * are joined: on Windows, TMP (GetTempPath reads it first, made a full
 * path with backslashes), elsewhere TMPDIR (or /tmp). */
#ifdef _WIN32
#define TMP_VARIABLE "TMP"
#define PATH_SEP "\\"
#else
#define TMP_VARIABLE "TMPDIR"
#define PATH_SEP "/"
#endif

/* The temporary folder the runner's directories go in, into out. */
static void temporary_folder(char *out, size_t outlen)
{
#ifdef _WIN32
  /* GetTempPath's folder, as libuv gives it (no backslash at the end). */
  if (uv_os_tmpdir(out, &outlen) != 0)
    out[0] = '\0';
#else
  const char *base = getenv("TMPDIR");
  snprintf(out, outlen, "%s", base && *base ? base : "/tmp");
#endif
}

static int exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

static int touch(const char *dir, const char *name)
{
  char path[TEMPDIR_PATH_MAX + 256];
  int fd;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return -1;
  if (write(fd, "x", 1) != 1) {
    close(fd);
    return -1;
  }
  return close(fd);
}

static int make_sub(const char *dir, const char *name)
{
  char path[TEMPDIR_PATH_MAX + 256];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return tap_mkdir(path);
}

static int listed(const struct model_leftovers *l, const char *name)
{
  for (int i = 0; i < l->count && i < MODEL_MAX_LEFTOVERS; i++)
    if (strcmp(l->names[i], name) == 0)
      return 1;
  return 0;
}

static void test_create(void)
{
  struct tempdir a, b;
  char err[512] = "", base[TEMPDIR_PATH_MAX - 32], prefix[TEMPDIR_PATH_MAX];
  struct stat st;

  if (!TAP_EQ_INT(tempdir_create(&a, err, sizeof(err)), 0, "created: %s", err))
    return;
  temporary_folder(base, sizeof(base));
  snprintf(prefix, sizeof(prefix), "%s/crossrun-", base);
  TAP_OK(strncmp(a.path, prefix, strlen(prefix)) == 0 &&
             strlen(a.path) == strlen(prefix) + 6,
         "named crossrun-XXXXXX in the temporary folder (%s)", a.path);
  TAP_OK(stat(a.path, &st) == 0 && S_ISDIR(st.st_mode), "it is a directory");
#ifdef _WIN32
  TAP_OK(1, "private: mode 0700 # SKIP Windows has no POSIX modes");
#else
  TAP_EQ_UINT(st.st_mode & 0777, 0700, "private: mode 0700");
#endif
  if (TAP_EQ_INT(tempdir_create(&b, err, sizeof(err)), 0, "another: %s", err)) {
    TAP_OK(strcmp(a.path, b.path) != 0, "each directory is fresh");
    tempdir_remove(&b, err, sizeof(err));
  }
  TAP_EQ_INT(tempdir_remove(&a, err, sizeof(err)), 0, "an empty one removed");
}

static void test_create_fails(void)
{
  const char *saved = getenv(TMP_VARIABLE);
  char keep[TEMPDIR_PATH_MAX] = "", base[TEMPDIR_PATH_MAX];
  char missing[TEMPDIR_PATH_MAX + 32];
  char err[TEMPDIR_PATH_MAX + 128] = "";
  struct tempdir t;
  int rc;

  if (saved)
    snprintf(keep, sizeof(keep), "%s", saved);
  temporary_folder(base, sizeof(base));
  snprintf(missing, sizeof(missing), "%s" PATH_SEP "no-such-folder", base);
  env_set(TMP_VARIABLE, missing);
  memset(&t, 'x', sizeof(t));
  rc = tempdir_create(&t, err, sizeof(err));
  env_set(TMP_VARIABLE, saved ? keep : NULL);
  TAP_OK(rc < 0, "no temporary folder: an error (%d)", rc);
  TAP_HAS_STR(err, "cannot create a temporary directory in",
              "the message says what failed");
  TAP_HAS_STR(err, missing, "and where");
  TAP_EQ_STR(t.path, "", "no path is left set");
  TAP_EQ_INT(tempdir_remove(&t, err, sizeof(err)), 0,
             "removing a directory never made does nothing");
  TAP_OK(!exists(missing), "nothing was made");
}

static void test_scan(void)
{
  struct tempdir t, gone;
  struct model_leftovers l;
  char err[512] = "", name[32];
  int ok = 1;

  if (!TAP_EQ_INT(tempdir_create(&t, err, sizeof(err)), 0, "created: %s", err))
    return;
  memset(&l, 0xff, sizeof(l));
  TAP_EQ_INT(tempdir_scan(&t, &l, err, sizeof(err)), 0, "an empty scan");
  TAP_EQ_INT(l.count, 0, "an empty directory has no leftovers");

  ok = touch(t.path, "core") == 0 && touch(t.path, ".hidden") == 0 &&
       make_sub(t.path, "sub") == 0 && touch(t.path, "sub/deep") == 0;
  TAP_OK(ok, "left a file, a dot file and a folder with a file");
  tempdir_scan(&t, &l, err, sizeof(err));
  TAP_EQ_INT(l.count, 3, "direct entries only, dot files too");
  TAP_OK(listed(&l, "core") && listed(&l, ".hidden") && listed(&l, "sub"),
         "each entry is named");

  for (int i = 0; i < MODEL_MAX_LEFTOVERS + 4; i++) {
    snprintf(name, sizeof(name), "left-%02d", i);
    touch(t.path, name);
  }
  tempdir_scan(&t, &l, err, sizeof(err));
  TAP_EQ_INT(l.count, MODEL_MAX_LEFTOVERS + 7, "every entry is counted");
  ok = 1;
  for (int i = 0; i < MODEL_MAX_LEFTOVERS; i++)
    ok = ok && l.names[i][0] != '\0';
  TAP_OK(ok, "the first %d are named", MODEL_MAX_LEFTOVERS);

  gone = t;
  TAP_EQ_INT(tempdir_remove(&t, err, sizeof(err)), 0,
             "removed with files and folders: %s", err);
  TAP_EQ_STR(t.path, "", "the path is cleared once removed");
  TAP_OK(!exists(gone.path), "the directory is gone");
  TAP_EQ_INT(tempdir_remove(&t, err, sizeof(err)), 0,
             "removing twice does nothing");
  err[0] = '\0';
  TAP_OK(tempdir_scan(&gone, &l, err, sizeof(err)) < 0,
         "scanning a removed directory is an error");
  TAP_HAS_STR(err, "cannot read the temporary directory", "and says so");
}

/* A chain of depth folders "d/d/d/..." below dir; its path into out. */
static int nest(const char *dir, int depth, char *out, size_t outlen)
{
  size_t n = (size_t)snprintf(out, outlen, "%s", dir);
  for (int i = 0; i < depth; i++) {
    n += (size_t)snprintf(out + n, outlen - n, "/d");
    if (n >= outlen || tap_mkdir(out) != 0)
      return -1;
  }
  return 0;
}

/* Removes what nest() made, deepest first. */
static void unnest(char *path, const char *dir)
{
  size_t base = strlen(dir);
  while (strlen(path) > base) {
    rmdir(path);
    *strrchr(path, '/') = '\0';
  }
}

static void test_remove(void)
{
  struct tempdir t;
  char err[512] = "", path[TEMPDIR_PATH_MAX];

  if (!TAP_EQ_INT(tempdir_create(&t, err, sizeof(err)), 0, "created: %s", err))
    return;
  TAP_OK(nest(t.path, 64, path, sizeof(path)) == 0 &&
             touch(path, "bottom") == 0,
         "64 folders deep, a file at the bottom");
  TAP_EQ_INT(tempdir_remove(&t, err, sizeof(err)), 0,
             "64 levels are removed: %s", err);
  TAP_OK(t.path[0] == '\0' && !exists(path), "all of it");

  if (!TAP_EQ_INT(tempdir_create(&t, err, sizeof(err)), 0, "created: %s", err))
    return;
  TAP_OK(nest(t.path, 66, path, sizeof(path)) == 0, "66 folders deep");
  err[0] = '\0';
  TAP_OK(tempdir_remove(&t, err, sizeof(err)) < 0,
         "deeper than 64 levels is refused");
  TAP_HAS_STR(err, "nests too deep to remove", "the message says why");
  TAP_OK(t.path[0] != '\0' && exists(t.path),
         "a directory not removed keeps its path");
  unnest(path, t.path);
  TAP_EQ_INT(rmdir(t.path), 0, "what is left is removed by hand: %s",
             strerror(errno));
}

int main(void)
{
  test_create();
  test_create_fails();
  test_scan();
  test_remove();
  return tap_done();
}
