#include "runner/tempdir.h"

#include <stdio.h>
#include <string.h>
#include <uv.h>

int tempdir_create(struct tempdir *t, char *err, size_t errlen)
{
  char base[TEMPDIR_PATH_MAX - 32];
  char template[TEMPDIR_PATH_MAX];
  size_t len = sizeof(base);
  uv_fs_t req;
  int rc;

  t->path[0] = '\0';
  rc = uv_os_tmpdir(base, &len);
  if (rc != 0) {
    snprintf(err, errlen, "cannot find the temporary folder: %s",
             uv_strerror(rc));
    return rc;
  }
  snprintf(template, sizeof(template), "%s/crossrun-XXXXXX", base);
  /* uv_fs_mkdtemp creates the directory with mode 0700. */
  rc = uv_fs_mkdtemp(NULL, &req, template, NULL);
  if (rc == 0)
    snprintf(t->path, sizeof(t->path), "%s", req.path);
  uv_fs_req_cleanup(&req);
  if (rc != 0)
    snprintf(err, errlen, "cannot create a temporary directory in '%s': %s",
             base, uv_strerror(rc));
  return rc;
}

int tempdir_probe(char *err, size_t errlen)
{
  struct tempdir t;
  int rc = tempdir_create(&t, err, errlen);

  return rc != 0 ? rc : tempdir_remove(&t, err, errlen);
}

int tempdir_scan(const struct tempdir *t, struct model_leftovers *out,
                 char *err, size_t errlen)
{
  uv_fs_t req;
  uv_dirent_t ent;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = uv_fs_scandir(NULL, &req, t->path, 0, NULL);
  if (rc < 0) {
    snprintf(err, errlen, "cannot read the temporary directory: %s",
             uv_strerror(rc));
    uv_fs_req_cleanup(&req);
    return rc;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    if (out->count < MODEL_MAX_LEFTOVERS)
      snprintf(out->names[out->count], sizeof(out->names[0]), "%s", ent.name);
    out->count++;
  }
  uv_fs_req_cleanup(&req);
  return 0;
}

static int remove_tree(const char *path, char *err, size_t errlen, int depth)
{
  uv_fs_t req;
  uv_dirent_t ent;
  int rc;

  if (depth > 64) {
    snprintf(err, errlen, "'%s' nests too deep to remove", path);
    return UV_ELOOP;
  }
  rc = uv_fs_scandir(NULL, &req, path, 0, NULL);
  if (rc < 0) {
    uv_fs_req_cleanup(&req);
    snprintf(err, errlen, "cannot read '%s': %s", path, uv_strerror(rc));
    return rc;
  }
  while (rc >= 0 && uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    char child[TEMPDIR_PATH_MAX];
    uv_fs_t op;

    if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, ent.name) >=
        sizeof(child)) {
      snprintf(err, errlen, "path too long below '%s'", path);
      rc = UV_ENAMETOOLONG;
      break;
    }
    if (ent.type == UV_DIRENT_DIR) {
      rc = remove_tree(child, err, errlen, depth + 1);
      continue;
    }
    rc = uv_fs_unlink(NULL, &op, child, NULL);
    uv_fs_req_cleanup(&op);
    if (rc < 0)
      snprintf(err, errlen, "cannot remove '%s': %s", child, uv_strerror(rc));
  }
  /* libuv's cleanup skips the entry last returned; reading the listing to
   * its end frees every entry however the loop stopped. */
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF)
    ;
  uv_fs_req_cleanup(&req);
  if (rc >= 0) {
    uv_fs_t op;
    rc = uv_fs_rmdir(NULL, &op, path, NULL);
    uv_fs_req_cleanup(&op);
    if (rc < 0)
      snprintf(err, errlen, "cannot remove '%s': %s", path, uv_strerror(rc));
  }
  return rc < 0 ? rc : 0;
}

int tempdir_remove(struct tempdir *t, char *err, size_t errlen)
{
  int rc;
  if (t->path[0] == '\0')
    return 0;
  rc = remove_tree(t->path, err, errlen, 0);
  if (rc == 0)
    t->path[0] = '\0';
  return rc;
}
