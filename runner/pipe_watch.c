#include "runner/pipe_watch.h"

static void close_fd(int fd)
{
  uv_fs_t req;
  uv_fs_close(NULL, &req, fd, NULL);
  uv_fs_req_cleanup(&req);
}

int pipe_watch(uv_loop_t *loop, uv_pipe_t *pipe, int fd, void *data,
               uv_alloc_cb on_alloc, uv_read_cb on_read, int *open)
{
  int rc = uv_pipe_init(loop, pipe, 0);

  *open = 0;
  if (rc != 0) {
    close_fd(fd);
    return rc;
  }
  pipe->data = data;
  *open = 1;
  rc = uv_pipe_open(pipe, fd);
  if (rc != 0) {
    close_fd(fd); /* not the handle's: it failed to take it */
    return rc;
  }
  return uv_read_start((uv_stream_t *)pipe, on_alloc, on_read);
}
