/* What the parts of tests/fixture (fixture.c, fixture_common.c,
 * fixture_server.c, fixture_client.c) share. */
#ifndef CROSSRUN_TESTS_FIXTURE_H
#define CROSSRUN_TESTS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/codec.h"
#include "tests/fixture_os.h"

/* What a mode does wrong (tests/fixture.c lists the modes). */
enum fixture_fault {
  FAULT_NONE,
  /* server only */
  FAULT_NEVER_READY,
  FAULT_SIGNAL,
  FAULT_LEAVE_FILE,
  FAULT_ORPHAN,
  FAULT_RSS64,
  FAULT_TINY,
  FAULT_SECOND_LINE,
  FAULT_WRONG_PORT,
  FAULT_STDOUT_LATER,
  FAULT_RESULT,
  FAULT_RESULT_LIE,
  FAULT_RESULT_TWICE,
  /* client only */
  FAULT_WRONG_COUNT,
  FAULT_BAD_JSON,
  FAULT_NO_RESULT,
  FAULT_ELAPSED_1,
  FAULT_ELAPSED_0,
  FAULT_ELAPSED_LONG,
  FAULT_STALL,
  FAULT_LATENCY, /* the latency modes, in this order */
  FAULT_LATENCY_SUM,
  FAULT_LATENCY_P99,
  FAULT_LATENCY_MAX,
  /* both */
  FAULT_CLOSE_FIRST,
  FAULT_UNSUPPORTED,
  FAULT_EXIT3,
  FAULT_HANG,
  FAULT_FLOOD_STDERR,
  FAULT_WRONG_SEQUENCE,
  FAULT_WRONG_PAYLOAD,
  FAULT_OVERSIZED,
  FAULT_EARLY_EOF,
  FAULT_BAD_VERSION,
  FAULT_WRONG_COUNTS,
  FAULT_SHORT_PATHS,
  FAULT_READY_NUL,
  FAULT_PORT_FROM_ENV,
  FAULT_ESCAPES,
  FAULT_KEY_TWICE,
  FAULT_LAX_JSON,
  /* lax peers for crossrun conform's tests: each skips one check */
  FAULT_LAX_PAYLOAD,  /* server */
  FAULT_LAX_SEQUENCE, /* server */
  FAULT_NO_ERROR,     /* server */
  FAULT_LAX_RESPONSE, /* client */
  /* the tls line modes (fixture_tls.c), clients then servers */
  FAULT_TLS_LINE,
  FAULT_TLS_VERSION,
  FAULT_TLS_ALPN,
  FAULT_TLS_CIPHER,
  FAULT_TLS_HANDSHAKE_0,
  FAULT_TLS_HANDSHAKE_LONG,
  FAULT_TLS_RESULT,
  FAULT_TLS_SERVER_VERSION,
  FAULT_TLS_SERVER_ALPN,
  FAULT_TLS_ON_TCP,
  FAULT_TLS_OK /* the last: the tls modes are FAULT_TLS_LINE..FAULT_TLS_OK */
};

/* What short-paths prints on stderr: the absolute paths that are shortest
 * or odd (MSYS's drive folders) for the evidence scrubber. */
#define FIXTURE_SHORT_PATHS_LINE                                               \
  "cannot open /a/b, / or // (see /c/Users/x and /c/x)"

/* What escapes prints on stderr: terminal controls that would erase and
 * rewrite crossrun's lines (CSI as ESC [ and as the C1 byte U+009B), a
 * carriage return, a right-to-left override, DEL and, after a newline, a
 * line a CI runner would take as its command, with a pipe for a Markdown
 * table and one more control. */
#define FIXTURE_ESCAPES_LINE                                                   \
  "\033[1A\033[2Kall|passed\r\xc2\x9b"                                         \
  "31m\xe2\x80\xae"                                                            \
  "deR\x7f\n::error::forged|cell\033[0m"

/* Roles, as bits of a mode's roles. */
#define FIXTURE_SERVER 1
#define FIXTURE_CLIENT 2

/* The request or response that misbehaves. */
#define FIXTURE_FAULT_SEQUENCE 3

/* A parsed command line: the address to listen on or connect to, and the
 * client's workload. */
struct fixture_args {
  struct sockaddr_in addr;
  struct proto_workload w;
  int tls; /* --transport tls: the files were given and checked */
};

/* ---- fixture_common.c ---- */

#define FIXTURE_WHY_BYTES 320

/* The fault of the mode in force (set once by main). */
extern enum fixture_fault fixture_mode_fault;
/* The name on every stderr line: "fixture server" or "fixture client". */
extern const char *fixture_prog;
/* The reason of the rejection under way (fixture_why_set). */
extern char fixture_why[FIXTURE_WHY_BYTES];

/* Prints "<prog>: <message>" on stderr and exits with status. */
_Noreturn void fixture_die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets fixture_why and returns err. */
int fixture_why_set(int err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sends all of data (no SIGPIPE). Returns 0, or -1 when the socket fails. */
int fixture_send_all(int fd, const void *data, size_t len);

/* Reads and drops everything until the peer closes or fails, at most
 * 10 s, then exits 0: the end of every protocol fault. */
_Noreturn void fixture_drain_and_exit(int fd);

/* A rejection of SPEC.md section 6 with fixture_why as the reason: one
 * stderr line, an ERROR frame (unless err is PROTO_E_PEER_ERROR or fd is
 * -1), close, exit 1. */
_Noreturn void fixture_reject(int fd, int err);

/* The checks of a frame's header that come before the session's: size is
 * proto_frame_peek's answer for the avail bytes at frame, h its header. A
 * header wrong in itself is rejected, and so is an ERROR frame, from its
 * header on (SPEC.md section 3). Returns whether the whole header is in. */
int fixture_header_check(int fd, long size, const struct proto_header *h,
                         const uint8_t *frame, size_t avail);

/* Rejects end of stream (n 0) or a failed read (n < 0) with pending bytes
 * of a frame left; where says what was expected. */
_Noreturn void fixture_reject_eof(int fd, ssize_t n, size_t pending,
                                  const char *where);

/* Writes 64 MiB to stderr in 64 KiB chunks. */
void fixture_flood_stderr(void);

/* ---- fixture_tls.c ---- */

/* The transport flags as lanes/README.md has them (each NULL when not
 * given): exit 2 for a bad combination; over tls exit 127 (a runtime that
 * cannot do TLS) unless the mode is a tls mode, and exit 1 unless each
 * file is a readable regular file and the key is mode 0600 (where files
 * have modes: tests/fixture_os.h). Sets a->tls. */
void fixture_tls_args(int role, const char *transport, const char *cert,
                      const char *key, const char *ca, struct fixture_args *a);

/* Whether the mode in force writes a tls object into role's result:
 * over tls only, but for tls-on-tcp. */
int fixture_tls_mode(int role);

/* Writes ",\"tls\":{...}" for the mode in force into role's result line
 * (lived_ns: the client's time since it started, for handshake_ns). */
void fixture_tls_print(int role, uint64_t lived_ns);

/* ---- fixture_server.c, fixture_client.c ---- */

/* Run the role's session and its fault; return the exit status. */
int fixture_run_server(struct fixture_args *a);
int fixture_run_client(struct fixture_args *a);

#endif
