/* Tests of the C lane (lanes/c): the client against the server over
 * several workloads, interop with the fixture's correct peers, each side
 * against the fixture's misbehaving peers, the lane on IPv6 loopback
 * ([::1]), and bad command lines. The
 * protocol vectors' replays are tests/test_lane_c_vectors.c.
 *
 * Binaries come from $BUILD (default "build"): lanes/c/server,
 * lanes/c/client and tests/fixture; they run as tests/lib_peers.h
 * describes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "protocol/codec.h"
#include "tests/lib_lane_result.h"
#include "tests/lib_peers.h"
#include "tests/lib_sockets.h"
#include "tests/tap.h"

#define SESSION_TIMEOUT_S 60.0

static char server_bin[512], client_bin[512], fixture_bin[512];

/* ---- checks ---- */

static int ready_line_ok(const struct peers_pair *r)
{
  char expect[32];
  snprintf(expect, sizeof expect, "READY %d\n", r->port);
  return r->port > 0 && strcmp(r->server.out.buf, expect) == 0;
}

/* The stderr line names the rejection (one of the names in want, which
 * ends with NULL). */
static int names_rejection(const char *err, const char *const want[])
{
  for (int i = 0; want[i]; i++)
    if (strstr(err, want[i]))
      return 1;
  return 0;
}

/* ---- the tests ---- */

static void test_self(const struct proto_workload *w)
{
  char *server[] = {server_bin, NULL};
  char *client[] = {client_bin, NULL};
  char label[96];
  struct peers_pair r;
  int before = tap_failed;

  snprintf(label, sizeof label,
           "c-c W=%" PRIu64 " N=%" PRIu64 " P=%" PRIu32 " M=%" PRIu32,
           w->warmup, w->round_trips, w->payload_bytes, w->max_in_flight);
  peers_pair_run(&r, server, client, w, tap_timeout_s(SESSION_TIMEOUT_S));
  TAP_OK(ready_line_ok(&r), "%s: server stdout is exactly READY <port>", label);
  TAP_OK(peers_exit_code(&r.server) == 0, "%s: server exits 0", label);
  TAP_OK(peers_exit_code(&r.client) == 0, "%s: client exits 0", label);
  TAP_OK(lane_result_ok(r.client.out.buf, w, label),
         "%s: result JSON has the expected totals", label);
  TAP_OK(r.server.err.len == 0 && r.client.err.len == 0,
         "%s: nothing on stderr", label);
  TAP_OK(r.port > 0 && sockets_port_free(r.port),
         "%s: the port is free at once", label);
  TAP_OK(peers_tmp_empty(), "%s: TMPDIR left empty", label);
  if (tap_failed != before)
    peers_pair_show(&r);
}

/* The C lane on IPv6 loopback, as crossrun --host ::1 starts it:
 * --listen [::1]:0 and --connect [::1]:PORT. */
static void test_ipv6(void)
{
  static const struct proto_workload w = {10, 1000, 64, 64};
  char *server[] = {server_bin, NULL};
  char *client[] = {client_bin, NULL};
  struct peers_pair r;
  int before = tap_failed;

  if (!sockets_port_free6(0)) {
    TAP_OK(1, "c-c on [::1] # SKIP no IPv6 loopback here");
    return;
  }
  peers_host = "::1";
  peers_pair_run(&r, server, client, &w, tap_timeout_s(SESSION_TIMEOUT_S));
  peers_host = "127.0.0.1";
  TAP_OK(ready_line_ok(&r), "[::1]: the server binds [::1]:0, prints READY "
                            "<port>");
  TAP_OK(peers_exit_code(&r.server) == 0 && peers_exit_code(&r.client) == 0,
         "[::1]: the client connects to [::1]:PORT; both exit 0");
  TAP_OK(lane_result_ok(r.client.out.buf, &w, "[::1]"),
         "[::1]: result JSON has the expected totals");
  TAP_OK(r.server.err.len == 0 && r.client.err.len == 0,
         "[::1]: nothing on stderr");
  TAP_OK(r.port > 0 && sockets_port_free6(r.port),
         "[::1]: the port is free at once");
  if (tap_failed != before)
    peers_pair_show(&r);
}

static void test_interop(int fixture_is_server)
{
  char *fixture_server[] = {fixture_bin, "server", "ok", NULL};
  char *fixture_client[] = {fixture_bin, "client", "ok", NULL};
  char *c_server[] = {server_bin, NULL};
  char *c_client[] = {client_bin, NULL};
  static const struct proto_workload loads[] = {{10, 1000, 64, 64},
                                                {1, 4, 1048576, 2}};
  const char *label = fixture_is_server ? "c client, fixture ok server"
                                        : "fixture ok client, c server";

  for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
    const struct proto_workload *w = &loads[i];
    struct peers_pair r;
    int before = tap_failed;
    peers_pair_run(&r, fixture_is_server ? fixture_server : c_server,
                   fixture_is_server ? c_client : fixture_client, w,
                   tap_timeout_s(SESSION_TIMEOUT_S));
    TAP_OK(peers_exit_code(&r.server) == 0 && peers_exit_code(&r.client) == 0,
           "%s (P=%" PRIu32 "): both exit 0", label, w->payload_bytes);
    TAP_OK(lane_result_ok(r.client.out.buf, w, label),
           "%s (P=%" PRIu32 "): result JSON has the expected totals", label,
           w->payload_bytes);
    if (tap_failed != before)
      peers_pair_show(&r);
  }
}

struct fault_case {
  const char *mode;
  const char *names[3];
  struct proto_workload w;
};

/* The workload is small but more than 3 round trips (the faults hit the
 * 3rd frame); the second wrong-payload case has a window over the
 * client's 8 MiB of kept payloads, so the client checks by generating. */
static const struct fault_case faults[] = {
    {"wrong-sequence", {"wrong_sequence", NULL}, {2, 20, 64, 4}},
    {"wrong-payload", {"wrong_payload", NULL}, {2, 20, 64, 4}},
    {"wrong-payload", {"wrong_payload", NULL}, {0, 6, 1048576, 16}},
    {"oversized", {"frame_too_large", NULL}, {2, 20, 64, 4}},
    {"early-eof", {"unexpected_eof", "truncated", NULL}, {2, 20, 64, 4}},
    {"bad-version", {"unsupported_version", NULL}, {2, 20, 64, 4}},
    {"wrong-counts", {"count_mismatch", NULL}, {2, 20, 64, 4}},
};

/* The C peer of the other role meets a misbehaving fixture. */
static void test_fault(const struct fault_case *f, int fixture_is_server)
{
  char *fixture[] = {fixture_bin, fixture_is_server ? "server" : "client",
                     (char *)f->mode, NULL};
  char *c_server[] = {server_bin, NULL};
  char *c_client[] = {client_bin, NULL};
  const char *c_role = fixture_is_server ? "client" : "server";
  const char *f_role = fixture_is_server ? "server" : "client";
  char label[160];
  struct peers_pair r;
  const struct peers_proc *c_peer;
  int before = tap_failed;

  snprintf(label, sizeof label,
           "c %s against fixture %s %s (P=%" PRIu32 " M=%" PRIu32 ")", c_role,
           f_role, f->mode, f->w.payload_bytes, f->w.max_in_flight);
  peers_pair_run(&r, fixture_is_server ? fixture : c_server,
                 fixture_is_server ? c_client : fixture, &f->w,
                 tap_timeout_s(SESSION_TIMEOUT_S));
  c_peer = fixture_is_server ? &r.client : &r.server;
  TAP_OK(r.port > 0, "%s: READY", label);
  TAP_OK(c_peer->reaped && !c_peer->killed && peers_exit_code(c_peer) > 0 &&
             peers_exit_code(c_peer) < 128,
         "%s: exits non-zero", label);
  TAP_OK(names_rejection(c_peer->err.buf, f->names), "%s: stderr names %s",
         label, f->names[0]);
  TAP_OK(fixture_is_server ? r.client.out.len == 0 : ready_line_ok(&r),
         "%s: %s on stdout", label,
         fixture_is_server ? "nothing" : "only READY");
  TAP_OK(peers_exit_code(fixture_is_server ? &r.server : &r.client) == 0,
         "%s: the fixture exits 0 once the c peer has closed", label);
  if (tap_failed != before)
    peers_pair_show(&r);
}

static void test_usage(const char *label, char *const argv[])
{
  struct peers_proc p;
  struct peers_proc *one[1] = {&p};
  int before = tap_failed;

  if (peers_start(&p, label, argv) != 0) {
    TAP_OK(0, "%s: starts", label);
    return;
  }
  peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(peers_exit_code(&p) == 2, "%s: exits 2", label);
  TAP_OK(p.out.len == 0 && p.err.len > 0 &&
             strchr(p.err.buf, '\n') == p.err.buf + p.err.len - 1,
         "%s: one line on stderr, nothing on stdout", label);
  if (tap_failed != before)
    peers_show(&p);
}

static void tests_usage(void)
{
  char *s = server_bin, *c = client_bin;
  char *s_none[] = {s, NULL};
  char *s_bad_addr[] = {s, "--listen", "localhost", NULL};
  char *s_bare_v6[] = {s, "--listen", "::1:0", NULL};
  char *s_v4_bracketed[] = {s, "--listen", "[127.0.0.1]:0", NULL};
  char *s_unknown[] = {s, "--listen", "127.0.0.1:0", "--verbose", NULL};
  char *s_twice[] = {s, "--listen", "127.0.0.1:0", "--listen=127.0.0.1:0",
                     NULL};
  char *s_client_flag[] = {s, "--listen", "127.0.0.1:0", "--warmup", "1", NULL};
  char *c_missing[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup", "1", "--round-trips",
      "1", "--payload-bytes", "1",           NULL};
  char *c_bad_number[] = {
      c,    "--connect",       "127.0.0.1:9", "--warmup",
      "-1", "--round-trips",   "1",           "--payload-bytes",
      "1",  "--max-in-flight", "1",           NULL};
  char *c_not_number[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "ten",         "--payload-bytes",
      "1", "--max-in-flight", "1",           NULL};
  char *c_zero_trips[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "0",           "--payload-bytes",
      "1", "--max-in-flight", "1",           NULL};
  char *c_big_payload[] = {
      c,         "--connect",       "127.0.0.1:9", "--warmup",
      "1",       "--round-trips",   "1",           "--payload-bytes",
      "1048577", "--max-in-flight", "1",           NULL};
  char *c_zero_window[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "1",           "--payload-bytes",
      "1", "--max-in-flight", "0",           NULL};
  char *c_big_window[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "1",           "--payload-bytes",
      "1", "--max-in-flight", "65537",       NULL};
  char *c_bad_addr[] = {c,   "--connect",       "127.0.0.1", "--warmup",
                        "1", "--round-trips",   "1",         "--payload-bytes",
                        "1", "--max-in-flight", "1",         NULL};
  char *c_bare_v6[] = {c,   "--connect",       "::1:9", "--warmup",
                       "1", "--round-trips",   "1",     "--payload-bytes",
                       "1", "--max-in-flight", "1",     NULL};
  char *c_no_value[] = {
      c,   "--connect",       "127.0.0.1:9", "--warmup",
      "1", "--round-trips",   "1",           "--payload-bytes",
      "1", "--max-in-flight", NULL};

  test_usage("server without arguments", s_none);
  test_usage("server --listen localhost", s_bad_addr);
  test_usage("server --listen ::1:0 (IPv6 without brackets)", s_bare_v6);
  test_usage("server --listen [127.0.0.1]:0", s_v4_bracketed);
  test_usage("server with an unknown flag", s_unknown);
  test_usage("server with --listen twice", s_twice);
  test_usage("server with a client flag", s_client_flag);
  test_usage("client without --max-in-flight", c_missing);
  test_usage("client --warmup -1", c_bad_number);
  test_usage("client --round-trips ten", c_not_number);
  test_usage("client --round-trips 0", c_zero_trips);
  test_usage("client --payload-bytes 1048577", c_big_payload);
  test_usage("client --max-in-flight 0", c_zero_window);
  test_usage("client --max-in-flight 65537", c_big_window);
  test_usage("client --connect without a port", c_bad_addr);
  test_usage("client with a flag missing its value", c_no_value);
  test_usage("client --connect ::1:9 (IPv6 without brackets)", c_bare_v6);
}

int main(void)
{
  static const struct proto_workload self_loads[] = {
      {0, 1, 0, 1},         {10, 1000, 64, 64}, {0, 5, 1048576, 2},
      {0, 10000, 16, 1000}, {0, 3, 1, 1},       {3, 200, 65536, 65536},
  };
  char err[600];
  int found = peers_bin(server_bin, sizeof server_bin, "lanes/c/server");

  found &= peers_bin(client_bin, sizeof client_bin, "lanes/c/client");
  found &= peers_bin(fixture_bin, sizeof fixture_bin, "tests/fixture");
  if (!found) {
    TAP_OK(0, "binaries %s, %s and %s exist (make them first)", server_bin,
           client_bin, fixture_bin);
    return tap_done();
  }
  if (peers_setup("lane-c", err, sizeof err) != 0) {
    TAP_OK(0, "%s", err);
    return tap_done();
  }

  for (size_t i = 0; i < sizeof self_loads / sizeof self_loads[0]; i++)
    test_self(&self_loads[i]);
  test_ipv6();
  test_interop(1);
  test_interop(0);
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    test_fault(&faults[i], 1);
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
    test_fault(&faults[i], 0);
  tests_usage();

  TAP_OK(peers_tmp_remove(), "the children's TMPDIR was left empty");
  return tap_done();
}
