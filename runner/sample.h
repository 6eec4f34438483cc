/* One sample of one lane: a fresh temporary directory, a fresh server and
 * a fresh client, one session between them, and every check of the peer
 * contract afterwards. The executor fills plain structs; it knows nothing
 * of YAML or JSON. */
#ifndef CROSSRUN_RUNNER_SAMPLE_H
#define CROSSRUN_RUNNER_SAMPLE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "evidence/model/model.h"
#include "protocol/codec.h"
#include "runner/closers.h"

struct sample_spec {
  const char *lane;
  const char *const *server_argv; /* program and fixed arguments */
  const char *const *client_argv;
  const char *host; /* the address peers listen on and connect to */
  struct proto_workload workload;
  struct model_limits limits;
  /* When set to non-zero (from a signal handler), the sample stops: both
   * peers are killed and the sample ends as an error "interrupted". */
  const volatile sig_atomic_t *stop;
  /* The folders the peers start in (their matrix file's), or NULL. */
  const char *server_cwd;
  const char *client_cwd;
  /* Over tls (protocol/SPEC.md section 9): fresh material in a folder of
   * the sample beside the peers' TMPDIR, and the peers' tls flags. */
  int tls;
  /* The ports of the run's earlier samples (closers.h), or NULL: then the
   * TCP states of the server's port are read at READY every time. */
  struct closers_history *ports;
};

/* Runs one sample. Returns 0 when the sample ran to a verdict (which may be
 * any status, in res), or negative when the runner itself could not work
 * (err says why; res->status is MODEL_ERROR). res must be released with
 * model_sample_release(). */
int sample_run(const struct sample_spec *spec, struct model_sample *res,
               char *err, size_t errlen);

#endif
