/* What runner/conform_exec.c (the peer's process, the deadlines, the
 * checks and the verdict) and runner/conform_wire.c (the scripted peer on
 * the connection) share about one case under way. Internal to them. */
#ifndef CROSSRUN_RUNNER_CONFORM_INTERNAL_H
#define CROSSRUN_RUNNER_CONFORM_INTERNAL_H

#include <stdint.h>
#include <uv.h>

#include "evidence/model/capture.h"
#include "platforms/platform.h"
#include "runner/conform.h"
#include "runner/tempdir.h"

#define CONFORM_READ_CHUNK 65536
#define CONFORM_ARGS_MAX 16
/* The scripted peer's receive buffer: one whole frame of the largest
 * payload, and a read's worth beyond it. */
#define CONFORM_RX_MAX (PROTO_MAX_FRAME_BYTES + CONFORM_READ_CHUNK)

enum conform_phase {
  CONFORM_PHASE_PREFIX, /* reaching the case's state */
  CONFORM_PHASE_INPUT,  /* the input is being sent */
  CONFORM_PHASE_AFTER,  /* sent: watching what the peer does */
  CONFORM_PHASE_CLOSED  /* the connection is closed or closing */
};

struct conform_run {
  uv_loop_t loop;
  uv_timer_t tick, trickle;
  const struct conform_target *t;
  const struct conform_case *c;
  struct conform_outcome *out;

  /* The peer's process. */
  struct platform_proc proc;
  int spawned, running, reaped;
  struct platform_exit ex;
  uv_pipe_t out_pipe, err_pipe;
  int out_open, err_open;
  struct capture out_cap, err_cap;
  struct tempdir tmp;
  char env_buf[3][TEMPDIR_PATH_MAX + 8];
  const char *env[4];
  uint64_t started_ns, reaped_ns, deadline_ns;
  int term_stage;
  uint64_t term_next_ns;
  int ready;
  int port;
  char args_buf[CONFORM_ARGS_MAX][128];

  /* The connection. */
  uv_tcp_t listener, conn;
  int listener_open, conn_open, connected;
  uv_connect_t connect_req;
  uv_shutdown_t shutdown_req;
  uint8_t *rx;
  size_t rx_len;
  uint8_t *tx; /* queued, not yet handed to a write */
  size_t tx_len, tx_cap;
  int writing;
  int peer_closed;  /* its end of stream or reset arrived */
  int reset_at_end; /* close with a reset, so no TIME_WAIT stays behind */

  /* The session as the scripted peer plays it. */
  enum conform_phase phase;
  uint64_t total;               /* W + N */
  uint64_t requests, responses; /* sent and received, or the reverse */
  int hello_done, bye_done;
  /* Why the peer failed before the input was sent ("" when it did not). */
  char fault[CONFORM_TEXT_MAX];

  /* What the peer sent after the input that SPEC.md section 6 does not
   * allow, "" when nothing; the ERROR's reason. */
  char after_fault[CONFORM_TEXT_MAX];
  char error_reason[PROTO_MAX_REASON_BYTES + 1];
  int stderr_not_text; /* its stderr line is not UTF-8 text */

  int finished;
  char runner_error[CONFORM_TEXT_MAX];
  char chunk[CONFORM_READ_CHUNK];
};

/* ---- runner/conform_wire.c ---- */

/* Allocates the receive buffer and sets the trickle timer up on r->loop.
 * Returns 0, or UV_ENOMEM with r->runner_error set. */
int conform_wire_init(struct conform_run *r);

/* Starts the connection: the client's listener (before the client is
 * started; r->port is then its port), or the connect to the server's
 * r->port once it is READY. Returns 0, or a negative libuv error with
 * r->runner_error set. */
int conform_wire_listen(struct conform_run *r);
int conform_wire_connect(struct conform_run *r);

/* Closes the connection and the listener (with a reset where
 * r->reset_at_end says so). */
void conform_wire_close(struct conform_run *r);

/* 1 while a handle of the connection is open. */
int conform_wire_open(const struct conform_run *r);

/* Sets r->fault once (the first reason wins). */
void conform_wire_fault(struct conform_run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
