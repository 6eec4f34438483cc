/* A test program's scratch folder: see tests/lib_scratch.h. */
#include "tests/lib_scratch.h"
#include "tests/tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

char scratch_root[SCRATCH_PATH_CAP];
volatile int scratch_child_pid;

char *scratch_join(char *out, const char *dir, const char *name)
{
  if ((size_t)snprintf(out, SCRATCH_PATH_CAP, "%s/%s", dir, name) >=
      SCRATCH_PATH_CAP)
    TAP_OK(0, "path fits: %s/%s", dir, name);
  return out;
}

void scratch_path(char *out, const char *name)
{
  scratch_join(out, scratch_root, name);
}

int scratch_mkdir(const char *path)
{
  uv_fs_t req;
  int rc = uv_fs_mkdir(NULL, &req, path, 0700, NULL);
  uv_fs_req_cleanup(&req);
  return rc;
}

int scratch_write(const char *path, const void *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  int ok;
  if (f == NULL)
    return -1;
  ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

int64_t scratch_size(const char *path)
{
  uv_fs_t req;
  int64_t size = -1;
  if (uv_fs_stat(NULL, &req, path, NULL) == 0)
    size = (int64_t)req.statbuf.st_size;
  uv_fs_req_cleanup(&req);
  return size;
}

unsigned char *scratch_read(const char *path, size_t *len)
{
  int64_t size = scratch_size(path);
  unsigned char *data;
  FILE *f;

  if (size < 0 || size > 64 * 1024 * 1024)
    return NULL;
  data = malloc((size_t)size + 1);
  f = fopen(path, "rb");
  if (data == NULL || f == NULL ||
      fread(data, 1, (size_t)size, f) != (size_t)size) {
    free(data);
    data = NULL;
  }
  if (f != NULL)
    fclose(f);
  *len = (size_t)size;
  return data;
}

int scratch_remove_tree(const char *path, int depth)
{
  uv_fs_t req;
  uv_dirent_t ent;
  int rc;

  if (depth > 32)
    return UV_ELOOP;
  rc = uv_fs_scandir(NULL, &req, path, 0, NULL);
  if (rc < 0) {
    uv_fs_req_cleanup(&req);
    return rc;
  }
  while (rc >= 0 && uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    char child[SCRATCH_PATH_CAP];
    uv_fs_t op;
    if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, ent.name) >=
        sizeof(child)) {
      rc = UV_ENAMETOOLONG;
      break;
    }
    if (ent.type == UV_DIRENT_DIR) {
      rc = scratch_remove_tree(child, depth + 1);
      continue;
    }
    rc = uv_fs_unlink(NULL, &op, child, NULL);
    uv_fs_req_cleanup(&op);
  }
  /* libuv's cleanup skips the entry last returned: read to the end. */
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF)
    ;
  uv_fs_req_cleanup(&req);
  if (rc >= 0) {
    uv_fs_t op;
    rc = uv_fs_rmdir(NULL, &op, path, NULL);
    uv_fs_req_cleanup(&op);
  }
  return rc < 0 ? rc : 0;
}

/* Best effort: the removal is not async-signal-safe, but the program ends
 * right after it either way. */
static void on_fatal_signal(int sig)
{
  if (scratch_child_pid > 0)
    uv_kill(scratch_child_pid, SIGKILL);
  if (scratch_root[0] != '\0')
    scratch_remove_tree(scratch_root, 0);
  signal(sig, SIG_DFL);
  raise(sig);
}

int scratch_create(void)
{
  char base[SCRATCH_PATH_CAP - 64];
  size_t len = sizeof(base);
  uv_fs_t req;
  int rc;

  signal(SIGINT, on_fatal_signal);
  signal(SIGTERM, on_fatal_signal);
#ifdef SIGHUP
  signal(SIGHUP, on_fatal_signal);
#endif
  /* uv_os_tmpdir: $TMPDIR (or TMP, TEMP), else /tmp. */
  if (uv_os_tmpdir(base, &len) != 0)
    snprintf(base, sizeof(base), "/tmp");
  scratch_join(scratch_root, base, "crossrun-test-XXXXXX");
  rc = uv_fs_mkdtemp(NULL, &req, scratch_root, NULL);
  if (rc == 0)
    snprintf(scratch_root, sizeof(scratch_root), "%s", req.path);
  uv_fs_req_cleanup(&req);
  if (!TAP_OK(rc == 0, "temporary folder %s", scratch_root)) {
    scratch_root[0] = '\0';
    return -1;
  }
  return 0;
}

void scratch_remove(void)
{
  int rc = scratch_remove_tree(scratch_root, 0);
  TAP_OK(rc == 0 && scratch_size(scratch_root) < 0,
         "temporary folder removed %s", rc ? uv_strerror(rc) : "");
  scratch_root[0] = '\0';
}
