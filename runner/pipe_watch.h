/* Reading a child's output pipe on a libuv loop. */
#ifndef CROSSRUN_RUNNER_PIPE_WATCH_H
#define CROSSRUN_RUNNER_PIPE_WATCH_H

#include <uv.h>

/* Wraps fd (a non-blocking read end) in pipe on loop, with pipe->data =
 * data, and starts reading with on_alloc and on_read. fd is taken in every
 * case: on failure it is closed. *open is 1 whenever pipe was initialised
 * and must be closed with uv_close by the caller, success or not. Returns
 * 0 or a negative libuv error. */
int pipe_watch(uv_loop_t *loop, uv_pipe_t *pipe, int fd, void *data,
               uv_alloc_cb on_alloc, uv_read_cb on_read, int *open);

#endif
