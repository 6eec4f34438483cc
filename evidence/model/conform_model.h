/* What `crossrun conform` found, as plain data: per runtime and role, each
 * case's expectation, what was observed and the verdict. The runner fills
 * it (runner/conform*.c); evidence/write/conform_write.c writes it. It
 * includes nothing above libc, like evidence/model/model.h. */
#ifndef CROSSRUN_EVIDENCE_CONFORM_MODEL_H
#define CROSSRUN_EVIDENCE_CONFORM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define CONFORM_NAME_MAX 80
#define CONFORM_TEXT_MAX 256
/* The bytes the scripted peer sent, as hex, kept up to this many bytes
 * (a 1 MiB payload is counted, not kept). */
#define CONFORM_SENT_KEPT 256

enum conform_verdict {
  CONFORM_PASSED,
  CONFORM_FAILED,
  CONFORM_ERROR /* the runner itself could not run it */
};

/* The ERROR frame a case expects from the peer. */
enum conform_error_rule {
  CONFORM_ERROR_NONE_REQUIRED, /* may come; if it does, with code */
  CONFORM_ERROR_REQUIRED,      /* must come, with code */
  CONFORM_ERROR_NOT_EXPECTED   /* a valid session: none may come */
};

struct conform_outcome {
  /* The case. */
  char role[8]; /* "server" or "client": which program of the runtime */
  char name[CONFORM_NAME_MAX];
  char state[40];  /* the session state reached before the input */
  char source[16]; /* "table" or "invalid.json" */
  char description[CONFORM_TEXT_MAX];
  int expect_pass;    /* a valid session: exit 0 and a correct result */
  int expect_usage;   /* a wrong command line: exit 2, no connection */
  char rejection[24]; /* the rejection expected, "" for a pass */
  enum conform_error_rule error_rule;
  int error_code; /* the code expected, 0 for none */
  char end[8];    /* what followed the input: none, eof, reset */
  /* What the scripted peer sent, in order, the prefix included. */
  uint64_t sent_bytes;
  char sent_hex[2 * CONFORM_SENT_KEPT + 1];
  /* What was observed. */
  int exited; /* 1: exit_code valid */
  int exit_code;
  int signal;                         /* the signal that ended it, 0 for none */
  int timed_out;                      /* it had to be stopped */
  char stderr_line[CONFORM_TEXT_MAX]; /* its first stderr line */
  int stderr_lines;                   /* lines on its stderr */
  int error_received;                 /* an ERROR frame arrived */
  int error_received_code;
  uint64_t received_bytes; /* from the peer */
  int orphans;             /* processes left behind, killed */
  int temp_entries_left;
  int port_checked; /* the server's port, bound again afterwards */
  int port_free;
  uint64_t wall_ns; /* from the spawn to the peer's end */
  enum conform_verdict verdict;
  char reason[CONFORM_TEXT_MAX]; /* why it failed, or how it passed */
};

/* One runtime's conformance: its cases in the order they ran. */
struct conform_runtime_result {
  const char *name;
  int available;
  const char *unavailable_reason; /* non-NULL when it could not run */
  struct conform_outcome *cases;  /* owned */
  int ncases, cap;
};

/* Counts by verdict. */
struct conform_totals {
  int passed, failed, error;
};

const char *conform_verdict_name(enum conform_verdict v);

/* Returns -1 when name is no verdict. */
int conform_verdict_parse(const char *name);

const char *conform_error_rule_name(enum conform_error_rule r);

void conform_totals_of(const struct conform_runtime_result *r,
                       struct conform_totals *t);

/* "passed" (every case passed), "failed", or "unavailable". */
const char *conform_runtime_status(const struct conform_runtime_result *r);

/* Appends a zeroed outcome to r and returns it, or NULL when out of
 * memory. The pointer is valid until the next append. */
struct conform_outcome *conform_runtime_add(struct conform_runtime_result *r);

void conform_runtime_release(struct conform_runtime_result *r);

#endif
