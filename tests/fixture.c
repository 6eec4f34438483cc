/* Deliberately misbehaving peers for crossrun's tests, one program with a
 * mode per fault (git's test-tool, libuv's test helpers):
 *
 *   fixture server MODE --listen 127.0.0.1:0
 *   fixture client MODE --connect 127.0.0.1:PORT --warmup N --round-trips N
 *                       --payload-bytes N --max-in-flight N
 *
 * The flags are those of a real peer (lanes/README.md), so the runner can
 * start a fixture in place of one. Mode "ok" is a correct, simple peer;
 * every other mode does everything correctly except the one thing the
 * table below says. A mode that breaks the protocol then reads until the
 * other side closes or fails (at most 10 s) and exits 0, so that a test
 * sees the other side's rejection. Faults aimed at "the 3rd" request or
 * response need W + N >= 3, and the bit flips need P >= 1; with less the
 * session runs correctly.
 *
 * Blocking sockets; no libuv. What differs between POSIX and Windows is
 * in tests/fixture_os.h (fixture_os_posix.c, fixture_os_windows.c).
 *
 * This file holds the modes, the command line and main; the roles are in
 * tests/fixture_server.c and tests/fixture_client.c, what they share in
 * tests/fixture_common.c, declared in tests/fixture.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fixture.h"

static const struct mode {
  const char *name;
  int roles;
  enum fixture_fault fault;
  const char *what;
} modes[] = {
    {"ok", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_NONE, "a correct peer"},
    {"never-ready", FIXTURE_SERVER, FAULT_NEVER_READY,
     "binds and listens but never prints READY; sleeps forever"},
    {"close-first", FIXTURE_SERVER, FAULT_CLOSE_FIRST,
     "a correct session, but closes the connection right after BYE_ACK, "
     "before the client does (TIME_WAIT stays on the server's port)"},
    {"port-from-env", FIXTURE_SERVER, FAULT_PORT_FROM_ENV,
     "a correct server that listens, with address reuse, on the port in "
     "CROSSRUN_FIXTURE_PORT, not the one --listen gives"},
    {"unsupported", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_UNSUPPORTED,
     "exits 127 at once, as a runtime that does not support the request"},
    {"exit3", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_EXIT3,
     "a correct session, then exit 3 (the client prints nothing)"},
    {"signal", FIXTURE_SERVER, FAULT_SIGNAL,
     "a correct session, then " FIXTURE_OS_ABNORMAL_END},
    {"hang", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_HANG,
     "a correct session, then sleeps forever (the client before printing)"},
    {"leave-file", FIXTURE_SERVER, FAULT_LEAVE_FILE,
     "a correct session, then creates $TMPDIR/leftover.txt, exit 0"},
    {"orphan", FIXTURE_SERVER, FAULT_ORPHAN,
     "before READY starts a child outside its process group (fork and "
     "setsid; Windows: itself again, detached) that holds the listening "
     "socket and sleeps (an hour at most); the parent serves correctly"},
    {"flood-stderr", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_FLOOD_STDERR,
     "64 MiB to stderr in 64 KiB chunks first, then a correct session"},
    {"rss64", FIXTURE_SERVER, FAULT_RSS64,
     "touches and keeps 64 MiB of fresh memory, then serves correctly"},
    {"second-line", FIXTURE_SERVER, FAULT_SECOND_LINE,
     "a second line on stdout right after READY, then serves correctly"},
    {"wrong-port", FIXTURE_SERVER, FAULT_WRONG_PORT,
     "announces in READY a port where nothing listens (bound, then closed), "
     "then waits on its own listener forever"},
    {"stdout-later", FIXTURE_SERVER, FAULT_STDOUT_LATER,
     "serves correctly, then writes `bye` (no newline) on stdout, exit 0"},
    {"result", FIXTURE_SERVER, FAULT_RESULT,
     "serves correctly, then prints its true result line (lanes/README.md)"},
    {"result-lie", FIXTURE_SERVER, FAULT_RESULT_LIE,
     "serves correctly, then prints a result line with frames_received + 1"},
    {"result-twice", FIXTURE_SERVER, FAULT_RESULT_TWICE,
     "serves correctly, then prints its result line and a second JSON line"},
    {"tiny", FIXTURE_SERVER, FAULT_TINY,
     "serves with one 64 KiB buffer (payloads up to 65520 bytes; larger: "
     "ERROR bad_workload and exit 127)"},
    {"wrong-count", FIXTURE_CLIENT, FAULT_WRONG_COUNT,
     "a correct session, but the result says round_trips N - 1"},
    {"bad-json", FIXTURE_CLIENT, FAULT_BAD_JSON,
     "a correct session, then `not json` as the result line, exit 0"},
    {"key-twice", FIXTURE_CLIENT, FAULT_KEY_TWICE,
     "a correct session, but the result line gives round_trips twice, 1 "
     "first (json-c keeps the last, right one)"},
    {"lax-json", FIXTURE_CLIENT, FAULT_LAX_JSON,
     "a correct session, but the result line ends with ',}', which json-c "
     "reads and JSON does not have"},
    {"no-result", FIXTURE_CLIENT, FAULT_NO_RESULT,
     "a correct session, then no result line, exit 0"},
    {"latency", FIXTURE_CLIENT, FAULT_LATENCY,
     "a correct session; the result adds cpu_user_us, cpu_system_us and a "
     "latency histogram true to its buckets"},
    {"latency-sum", FIXTURE_CLIENT, FAULT_LATENCY_SUM,
     "as latency, but the first bucket counts one more than round_trips"},
    {"latency-p99", FIXTURE_CLIENT, FAULT_LATENCY_P99,
     "as latency, but p99 is one bucket above what the buckets give"},
    {"latency-max", FIXTURE_CLIENT, FAULT_LATENCY_MAX,
     "as latency, but one latency (the max) is longer than elapsed_ns"},
    {"stall", FIXTURE_CLIENT, FAULT_STALL,
     "sends HELLO, then hangs holding the connection without reading, "
     "until it is killed"},
    {"elapsed-1", FIXTURE_CLIENT, FAULT_ELAPSED_1,
     "a correct session, but the result says elapsed_ns 1"},
    {"elapsed-0", FIXTURE_CLIENT, FAULT_ELAPSED_0,
     "a correct session, but the result says elapsed_ns 0"},
    {"elapsed-long", FIXTURE_CLIENT, FAULT_ELAPSED_LONG,
     "a correct session, but the result says elapsed_ns of an hour, more "
     "than the client lived"},
    {"wrong-sequence", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_WRONG_SEQUENCE,
     "the 3rd request/response carries sequence 4 (request: gen(4, P))"},
    {"wrong-payload", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_WRONG_PAYLOAD,
     "one bit of the 3rd request/response payload flipped"},
    {"oversized", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_OVERSIZED,
     "a header claiming 1048577 payload bytes instead of the 3rd "
     "request/response"},
    {"early-eof", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_EARLY_EOF,
     "closes its sending side instead of the 3rd response (server) or "
     "after the 2nd response (client)"},
    {"bad-version", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_BAD_VERSION,
     "HELLO (client) or HELLO_ACK (server) with header version 2"},
    {"wrong-counts", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_WRONG_COUNTS,
     "BYE with requests + 1 (client), BYE_ACK with bytes_sent + 1 (server)"},
    {"short-paths", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_SHORT_PATHS,
     "a stderr line naming /a/b, /, // and /c/Users/x, then `READY /a/b` "
     "and exit 1 (server) or, after a correct session, exit 3 (client)"},
    {"escapes", FIXTURE_CLIENT, FAULT_ESCAPES,
     "prints FIXTURE_ESCAPES_LINE (terminal controls) on stderr and exits 3 "
     "at once, also without arguments (a package command)"},
    {"ready-nul", FIXTURE_SERVER, FAULT_READY_NUL,
     "`READY <port>`, a NUL byte and more text on the READY line, then "
     "serves correctly"},
    {"lax-payload", FIXTURE_SERVER, FAULT_LAX_PAYLOAD,
     "does not check REQUEST payloads (answers whatever came, XORed)"},
    {"lax-sequence", FIXTURE_SERVER, FAULT_LAX_SEQUENCE,
     "ignores sequence gaps: a REQUEST beyond the next one is taken as the "
     "next"},
    {"no-error", FIXTURE_SERVER, FAULT_NO_ERROR,
     "rejects as it should, but never sends an ERROR frame"},
    {"lax-response", FIXTURE_CLIENT, FAULT_LAX_RESPONSE,
     "does not check RESPONSE payloads"},
    /* The tls modes do no TLS (tests/fixture_tls.c says why): they write
     * the result lines' tls objects, true or wrong, for the runner's
     * checks of those lines. */
    {"tls-line", FIXTURE_CLIENT, FAULT_TLS_LINE,
     "a correct session; over tls the result adds a tls object as a TLS "
     "client's"},
    {"tls-version", FIXTURE_CLIENT, FAULT_TLS_VERSION,
     "as tls-line, but tls.version is TLSv1.2"},
    {"tls-alpn", FIXTURE_CLIENT, FAULT_TLS_ALPN,
     "as tls-line, but tls.alpn is h2"},
    {"tls-cipher", FIXTURE_CLIENT, FAULT_TLS_CIPHER,
     "as tls-line, but tls.cipher is TLS_AES_256_GCM_SHA384 (the servers "
     "say TLS_AES_128_GCM_SHA256)"},
    {"tls-handshake-0", FIXTURE_CLIENT, FAULT_TLS_HANDSHAKE_0,
     "as tls-line, but tls.handshake_ns is 0"},
    {"tls-handshake-long", FIXTURE_CLIENT, FAULT_TLS_HANDSHAKE_LONG,
     "as tls-line, but tls.handshake_ns is an hour, more than it lived"},
    {"tls-result", FIXTURE_SERVER, FAULT_TLS_RESULT,
     "as result, with a tls object as a TLS server's"},
    {"tls-server-version", FIXTURE_SERVER, FAULT_TLS_SERVER_VERSION,
     "as tls-result, but tls.version is TLSv1.2"},
    {"tls-server-alpn", FIXTURE_SERVER, FAULT_TLS_SERVER_ALPN,
     "as tls-result, but tls.alpn is http/1.1"},
    {"tls-on-tcp", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_TLS_ON_TCP,
     "as tls-line (client) or tls-result (server), also over tcp; the "
     "other tls modes write their tls object over tls only"},
    {"tls-ok", FIXTURE_SERVER | FIXTURE_CLIENT, FAULT_TLS_OK,
     "a correct peer that takes --transport tls and reports no tls object; "
     "every mode but the tls ones exits 127 when given --transport tls"},
};

/* ---- command line ---- */

static int parse_u64(const char *s, uint64_t *out)
{
  uint64_t v = 0;
  if (*s == '\0')
    return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
      return -1;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return 0;
}

static int parse_addr(const char *s, struct sockaddr_in *a)
{
  char host[64];
  const char *colon = strrchr(s, ':');
  uint64_t port;

  if (colon == NULL || (size_t)(colon - s) >= sizeof host ||
      parse_u64(colon + 1, &port) != 0 || port > 65535)
    return -1;
  memcpy(host, s, (size_t)(colon - s));
  host[colon - s] = '\0';
  memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_port = htons((uint16_t)port);
  return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

static void parse_args(int role, int argc, char **argv, struct fixture_args *a)
{
  /* The last four are the transport's (lanes/README.md), optional. */
  static const char *const names[] = {
      "--listen",      "--connect",       "--warmup",
      "--round-trips", "--payload-bytes", "--max-in-flight",
      "--cert",        "--key",           "--ca",
      "--transport"};
  static const int roles[] = {FIXTURE_SERVER, FIXTURE_CLIENT,
                              FIXTURE_CLIENT, FIXTURE_CLIENT,
                              FIXTURE_CLIENT, FIXTURE_CLIENT,
                              FIXTURE_SERVER, FIXTURE_SERVER,
                              FIXTURE_CLIENT, FIXTURE_SERVER | FIXTURE_CLIENT};
  const char *values[10] = {0};
  uint64_t n[6] = {0};
  int i, f;

  for (i = 0; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
    for (f = 0; f < 10; f++)
      if ((roles[f] & role) && strlen(names[f]) == len &&
          strncmp(argv[i], names[f], len) == 0)
        break;
    if (f == 10)
      fixture_die(2, "unknown argument '%s'", argv[i]);
    if (values[f])
      fixture_die(2, "'%s' given twice", names[f]);
    if (eq)
      values[f] = eq + 1;
    else if (i + 1 < argc)
      values[f] = argv[++i];
    else
      fixture_die(2, "'%s' needs a value", names[f]);
  }
  for (f = 0; f < 6; f++) {
    if ((f == 0) != (role == FIXTURE_SERVER))
      continue;
    if (values[f] == NULL)
      fixture_die(2, "missing '%s'", names[f]);
    if (f < 2 ? parse_addr(values[f], &a->addr) != 0
              : parse_u64(values[f], &n[f]) != 0)
      fixture_die(2, "%s: bad value '%s'", names[f], values[f]);
  }
  fixture_tls_args(role, values[9], values[6], values[7], values[8], a);
  if (role == FIXTURE_CLIENT) {
    if (n[4] > PROTO_MAX_PAYLOAD_BYTES || n[5] > PROTO_MAX_IN_FLIGHT)
      fixture_die(2, "workload out of range");
    a->w.warmup = n[2];
    a->w.round_trips = n[3];
    a->w.payload_bytes = (uint32_t)n[4];
    a->w.max_in_flight = (uint32_t)n[5];
    if (proto_workload_check(&a->w) != 0)
      fixture_die(2, "bad workload");
  }
}

int main(int argc, char **argv)
{
  struct fixture_args a;
  int role;
  size_t i;
  uint64_t seconds;

  if (argc == 3 && strcmp(argv[1], FIXTURE_ORPHAN_ARG) == 0 &&
      parse_u64(argv[2], &seconds) == 0 && seconds <= 86400)
    fixture_os_orphan_main((unsigned)seconds);
  if (argc < 3 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
    fprintf(stderr, "usage: fixture server MODE --listen 127.0.0.1:0\n"
                    "       fixture client MODE --connect 127.0.0.1:PORT "
                    "--warmup N --round-trips N --payload-bytes N "
                    "--max-in-flight N\nmodes:\n");
    for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
      fprintf(stderr, "  %-15s %s%s  %s\n", modes[i].name,
              modes[i].roles & FIXTURE_SERVER ? "S" : "-",
              modes[i].roles & FIXTURE_CLIENT ? "C" : "-", modes[i].what);
    return 2;
  }
  role = strcmp(argv[1], "server") == 0 ? FIXTURE_SERVER : FIXTURE_CLIENT;
  fixture_prog = role == FIXTURE_SERVER ? "fixture server" : "fixture client";
  for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (strcmp(modes[i].name, argv[2]) == 0 && (modes[i].roles & role))
      break;
  if (i == sizeof modes / sizeof modes[0])
    fixture_die(2, "unknown mode '%s' (run without arguments for the list)",
                argv[2]);
  fixture_mode_fault = modes[i].fault;
  if (fixture_mode_fault == FAULT_UNSUPPORTED)
    return 127;
  if (fixture_mode_fault == FAULT_ESCAPES) {
    fprintf(stderr, "%s: %s\n", fixture_prog, FIXTURE_ESCAPES_LINE);
    return 3;
  }
  fixture_os_init();
  memset(&a, 0, sizeof a);
  parse_args(role, argc - 3, argv + 3, &a);
  return role == FIXTURE_SERVER ? fixture_run_server(&a)
                                : fixture_run_client(&a);
}
