/* `crossrun conform`: the runner's codec plays a scripted peer against one
 * runtime's server or client, case by case (protocol/SPEC.md's rejections
 * and valid edge sessions), with a sample's checks afterwards.
 *
 * A case is data: the role under test, the session state the scripted
 * peer reaches first (as an honest peer would drive it there), the bytes
 * it then sends and what follows them (nothing, end of stream, a reset),
 * and what the peer must do: reject with a named rejection (and an ERROR
 * frame where SPEC.md requires one), or pass. runner/conform_table.c holds
 * the runner's own rows, runner/conform_vectors.c makes rows from
 * protocol/vectors/invalid.json, runner/conform_exec.c runs one case. */
#ifndef CROSSRUN_RUNNER_CONFORM_H
#define CROSSRUN_RUNNER_CONFORM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "evidence/model/conform_model.h"
#include "evidence/model/model.h"
#include "protocol/codec.h"

enum conform_role { CONFORM_SERVER, CONFORM_CLIENT };

/* Where the scripted peer takes the session before it sends the input. */
enum conform_state {
  /* Server under test: connected, nothing sent. Client under test: its
   * HELLO received, nothing answered. */
  CONFORM_AT_START,
  /* Server: HELLO and REQUEST 1 .. sequence-1 sent and answered. Client:
   * HELLO_ACK and RESPONSE 1 .. sequence-1 sent, and every request its
   * window then allows received. */
  CONFORM_AT_SEQUENCE,
  /* Server: every request answered, a correct BYE sent, BYE_ACK received.
   * Client: every response sent, its BYE received (and checked). */
  CONFORM_AFTER_BYE,
  /* A whole valid session, played honestly: the peer must pass. */
  CONFORM_WHOLE,
  /* Nothing: the peer's command line is wrong, and it must exit 2 before
   * any connection (no READY, no connect). */
  CONFORM_COMMAND_LINE
};

enum conform_end { CONFORM_END_NONE, CONFORM_END_EOF, CONFORM_END_RESET };

struct conform_case {
  enum conform_role role;
  char name[CONFORM_NAME_MAX];
  enum conform_state state;
  struct proto_workload w;
  uint64_t sequence; /* CONFORM_AT_SEQUENCE: the next one due */
  uint8_t *input;    /* owned; may be NULL when input_len is 0 */
  size_t input_len;
  enum conform_end end;
  int trickle; /* the scripted peer sends one byte at a time */
  /* The peer must reject with rejection, or (rejection NULL) pass. */
  const char *rejection;
  enum conform_error_rule error_rule;
  int error_code; /* the ERROR code expected (optional or required) */
  /* The flags the peer gets in place of the runner's (NULL-terminated;
   * "{addr}" in one stands for the address), or NULL for the usual. */
  const char *const *args;
  char description[CONFORM_TEXT_MAX];
  const char *source; /* "table" or "invalid.json" */
};

struct conform_cases {
  struct conform_case *list; /* owned */
  int n, cap;
};

/* Appends a zeroed case, or returns NULL when out of memory. */
struct conform_case *conform_cases_add(struct conform_cases *c);

/* Frees every case's input and the list. */
void conform_cases_release(struct conform_cases *c);

/* Keeps only the cases whose "ROLE/NAME" matches one of the
 * comma-separated glob patterns (runner/glob.h); NULL keeps all. Returns
 * how many are kept. */
int conform_cases_filter(struct conform_cases *c, const char *patterns);

/* The runner's own rows (runner/conform_table.c), appended to c. Returns
 * 0, or -1 when out of memory. */
int conform_table_add(struct conform_cases *c);

/* The rows made from protocol/vectors/invalid.json at path: every case of
 * a server_* state for the server, of a client_* state for the client,
 * and each header case of state "any" for both. Returns 0, or -1 with a
 * one-line message in err. */
int conform_vectors_add(struct conform_cases *c, const char *path, char *err,
                        size_t errlen);

/* How a runtime's programs are started. */
struct conform_target {
  const char *const *server_argv;
  const char *const *client_argv;
  const char *cwd; /* its matrix file's folder, or NULL */
  const char *host;
  struct model_limits limits;
  uint64_t case_timeout_ms; /* from the input to the peer's end */
  const volatile sig_atomic_t *stop;
};

/* The ERROR code SPEC.md section 2 gives a rejection's name, 0 for none. */
int conform_code_for(const char *rejection);

/* Sets k's error_rule and error_code from its role, state and rejection:
 * SPEC.md section 3 requires an ERROR frame where a server refuses the
 * session's first frame for its version or workload (step 2) and where
 * it refuses a BYE's counts (step 5); anywhere else one may come, and when
 * it does it carries the rejection's code. A valid session sends none. */
void conform_case_error_rule(struct conform_case *k);

/* Runs one case against target and fills out (the case's fields too).
 * Returns 0 when it ran to a verdict, or -1 when the runner itself could
 * not run it (out->verdict is CONFORM_ERROR, err says why). */
int conform_exec(const struct conform_target *target,
                 const struct conform_case *c, struct conform_outcome *out,
                 char *err, size_t errlen);

#endif
