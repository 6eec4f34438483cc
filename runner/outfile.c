/* runner/outfile: one output file, written through a rename. */
#include "runner/outfile.h"

#include <errno.h>
#include <string.h>
#include <uv.h>

int outfile_write(const char *cmd, const char *path,
                  int (*render)(void *ctx, FILE *f), void *ctx, FILE *errf)
{
  char tmp[OUTFILE_PATH_MAX + 16];
  FILE *f;
  int rc;

  /* A longer name would cut the temporary's, which is then another file. */
  if (strlen(path) >= OUTFILE_PATH_MAX) {
    fprintf(errf, "crossrun %s: %s: the file name is too long\n", cmd, path);
    return -1;
  }
  snprintf(tmp, sizeof(tmp), "%s.partial", path);
  f = fopen(tmp, "wb");
  if (f == NULL) {
    fprintf(errf, "crossrun %s: %s: cannot write: %s\n", cmd, path,
            strerror(errno));
    return -1;
  }
  rc = render(ctx, f);
  if (fclose(f) != 0)
    rc = -1;
  if (rc == 0) {
    uv_fs_t req;
    /* uv_fs_rename replaces an existing file on every OS. */
    rc = uv_fs_rename(NULL, &req, tmp, path, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    fprintf(errf, "crossrun %s: %s: cannot write\n", cmd, path);
    remove(tmp);
    return -1;
  }
  return 0;
}
