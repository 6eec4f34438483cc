/* Tests of the C lane (lanes/c): the client against the server over
 * several workloads, interop with the fixture's correct peers, each side
 * against the fixture's misbehaving peers, the lane on IPv6 loopback
 * ([::1]), bad command lines, the cost figures of the client's result
 * line (lanes/c/result.h; an empty histogram alone, as no session has
 * N = 0) and the server's result line after READY.
 * The protocol vectors' replays are tests/test_lane_c_vectors.c.
 *
 * Binaries come from $BUILD (default "build"): lanes/c/server,
 * lanes/c/client and tests/fixture; they run as tests/lib_peers.h
 * describes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lanes/c/result.h"
#include "protocol/codec.h"
#include "protocol/histogram.h"
#include "tests/lib_lane_result.h"
#include "tests/lib_memfile.h"
#include "tests/lib_peers.h"
#include "tests/lib_sockets.h"
#include "tests/tap.h"

#define SESSION_TIMEOUT_S 60.0

static char server_bin[512], client_bin[512], fixture_bin[512];

/* ---- checks ---- */

/* The server's stdout after a failed session: READY alone. */
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

static const struct {
  const char *name;
  uint32_t q_milli;
} percentiles[] = {{"p50", HIST_P50},
                   {"p90", HIST_P90},
                   {"p99", HIST_P99},
                   {"p99_9", HIST_P99_9}};

/* The integer member key of o, when it is a non-negative integer. */
static int cost_i64(struct json_object *o, const char *key, int64_t *v)
{
  struct json_object *f;
  if (!json_object_object_get_ex(o, key, &f) ||
      !json_object_is_type(f, json_type_int))
    return 0;
  *v = json_object_get_int64(f);
  return *v >= 0;
}

/* Reads the buckets of lat (a result line's latency) into *h, emptied
 * first: ascending indexes within the scheme, each with a count above 0.
 * Returns 1, or 0 with a diagnostic. */
static int cost_buckets(struct json_object *lat, struct hist *h,
                        const char *label)
{
  struct json_object *b;
  int last = -1;

  hist_init(h);
  if (!json_object_object_get_ex(lat, "buckets", &b) ||
      !json_object_is_type(b, json_type_array)) {
    tap_diag("%s: latency.buckets is not an array", label);
    return 0;
  }
  for (size_t i = 0; i < json_object_array_length(b); i++) {
    struct json_object *pair = json_object_array_get_idx(b, i);
    int64_t index, count;
    if (!json_object_is_type(pair, json_type_array) ||
        json_object_array_length(pair) != 2 ||
        !json_object_is_type(json_object_array_get_idx(pair, 0),
                             json_type_int) ||
        !json_object_is_type(json_object_array_get_idx(pair, 1),
                             json_type_int)) {
      tap_diag("%s: latency.buckets[%zu] is not [index, count]", label, i);
      return 0;
    }
    index = json_object_get_int64(json_object_array_get_idx(pair, 0));
    count = json_object_get_int64(json_object_array_get_idx(pair, 1));
    if (index <= last || index >= HIST_BUCKETS || count <= 0) {
      tap_diag("%s: latency.buckets[%zu] is [%" PRId64 ", %" PRId64
               "] after index %d",
               label, i, index, count, last);
      return 0;
    }
    h->buckets[index] = (uint64_t)count;
    h->count += (uint64_t)count;
    last = (int)index;
  }
  return 1;
}

/* The cost fields of a result line (lanes/README.md): cpu_user_us and
 * cpu_system_us non-negative integers, and a latency histogram whose
 * buckets count round_trips values, whose percentiles are what
 * hist_percentile() gives from those buckets, whose min and max fall in
 * the first and last of them, and whose max is at most elapsed_ns; with
 * no round trips, nulls and no buckets. */
static int cost_ok(const char *line, const char *label)
{
  static struct hist h; /* 58 KiB */
  struct json_object *o = json_tokener_parse(line), *lat, *f;
  uint64_t n = 0, elapsed = 0;
  int64_t v, min = 0, max = 0;
  int ok = 1;

  if (o == NULL || !lane_result_u64(o, "round_trips", &n) ||
      !lane_result_u64(o, "elapsed_ns", &elapsed)) {
    tap_diag("%s: no result line with round_trips and elapsed_ns", label);
    json_object_put(o);
    return 0;
  }
  if (!cost_i64(o, "cpu_user_us", &v) || !cost_i64(o, "cpu_system_us", &v)) {
    tap_diag("%s: cpu_user_us or cpu_system_us is not an integer >= 0", label);
    ok = 0;
  }
  if (!json_object_object_get_ex(o, "latency", &lat) ||
      !json_object_is_type(lat, json_type_object) ||
      !cost_buckets(lat, &h, label)) {
    tap_diag("%s: latency is not an object with buckets", label);
    json_object_put(o);
    return 0;
  }
  if (!cost_i64(lat, "count", &v) || (uint64_t)v != n || h.count != n) {
    tap_diag("%s: latency.count and the buckets' sum %" PRIu64
             " are not round_trips %" PRIu64,
             label, h.count, n);
    ok = 0;
  }
  if (n == 0) {
    static const char *const nulls[] = {"min", "max", "p50",
                                        "p90", "p99", "p99_9"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++) {
      if (!json_object_object_get_ex(lat, nulls[i], &f) || f != NULL) {
        tap_diag("%s: latency.%s is not null", label, nulls[i]);
        ok = 0;
      }
    }
    json_object_put(o);
    return ok;
  }
  if (!cost_i64(lat, "min", &min) || !cost_i64(lat, "max", &max) || min > max ||
      max > (int64_t)elapsed) {
    tap_diag("%s: latency min %" PRId64 ", max %" PRId64 " (elapsed_ns %" PRIu64
             ")",
             label, min, max, elapsed);
    ok = 0;
  } else {
    int first = hist_index(min), last = hist_index(max);
    int inside = h.buckets[first] != 0 && h.buckets[last] != 0;
    for (int i = 0; i < HIST_BUCKETS && inside; i++)
      if (h.buckets[i] != 0 && (i < first || i > last))
        inside = 0;
    ok &= inside;
    if (!inside)
      tap_diag("%s: min %" PRId64 " or max %" PRId64
               " is not in the first or last bucket",
               label, min, max);
  }
  for (size_t i = 0; i < sizeof percentiles / sizeof percentiles[0]; i++) {
    int64_t want = hist_percentile(&h, percentiles[i].q_milli);
    if (!cost_i64(lat, percentiles[i].name, &v) || v != want) {
      tap_diag("%s: latency.%s is not %" PRId64 " (from the buckets)", label,
               percentiles[i].name, want);
      ok = 0;
    }
  }
  json_object_put(o);
  return ok;
}

/* The server's stdout after a whole session: READY, then its result line
 * (lanes/README.md) with the counts SPEC.md gives for w, the mirror of
 * the client's, and its CPU as non-negative integers. */
static int server_result_ok(const struct peers_pair *r,
                            const struct proto_workload *w, const char *label)
{
  char ready[32];
  const char *line = r->server.out.buf, *nl;
  struct json_object *o, *f;
  struct proto_totals t;
  uint64_t v;
  int64_t cpu;
  int ok = 1;

  snprintf(ready, sizeof ready, "READY %d\n", r->port);
  if (r->port <= 0 || strncmp(line, ready, strlen(ready)) != 0) {
    tap_diag("%s: the server's stdout does not start with %s", label, ready);
    return 0;
  }
  line += strlen(ready);
  nl = strchr(line, '\n');
  if (nl == NULL || nl[1] != '\0') {
    tap_diag("%s: after READY, the server's stdout is not one line", label);
    return 0;
  }
  o = json_tokener_parse(line);
  if (o == NULL || !json_object_is_type(o, json_type_object)) {
    tap_diag("%s: the server's result is not a JSON object", label);
    json_object_put(o);
    return 0;
  }
  proto_totals_expected(w, &t);
  /* The server's view mirrors the client's. */
  const struct {
    const char *key;
    uint64_t want;
  } fields[] = {
      {"round_trips", w->round_trips},     {"warmup_round_trips", w->warmup},
      {"payload_bytes", w->payload_bytes}, {"max_in_flight", w->max_in_flight},
      {"frames_sent", t.frames_received},  {"frames_received", t.frames_sent},
      {"bytes_sent", t.bytes_received},    {"bytes_received", t.bytes_sent},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (!lane_result_u64(o, fields[i].key, &v) || v != fields[i].want) {
      tap_diag("%s: the server's %s is not %" PRIu64, label, fields[i].key,
               fields[i].want);
      ok = 0;
    }
  }
  if (!cost_i64(o, "cpu_user_us", &cpu) ||
      !cost_i64(o, "cpu_system_us", &cpu)) {
    tap_diag("%s: the server's cpu_user_us or cpu_system_us is not an "
             "integer >= 0",
             label);
    ok = 0;
  }
  if (!json_object_object_get_ex(o, "runtime", &f) ||
      strcmp(json_object_get_string(f), "c") != 0) {
    tap_diag("%s: the server's runtime is not \"c\"", label);
    ok = 0;
  }
  json_object_put(o);
  return ok;
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
  TAP_OK(server_result_ok(&r, w, label),
         "%s: server stdout is READY <port>, then its result line", label);
  TAP_OK(peers_exit_code(&r.server) == 0, "%s: server exits 0", label);
  TAP_OK(peers_exit_code(&r.client) == 0, "%s: client exits 0", label);
  TAP_OK(lane_result_ok(r.client.out.buf, w, label),
         "%s: result JSON has the expected totals", label);
  TAP_OK(cost_ok(r.client.out.buf, label),
         "%s: result JSON has its CPU and a consistent latency histogram",
         label);
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
  TAP_OK(server_result_ok(&r, &w, "[::1]"),
         "[::1]: the server binds [::1]:0, prints READY <port> and its result");
  TAP_OK(peers_exit_code(&r.server) == 0 && peers_exit_code(&r.client) == 0,
         "[::1]: the client connects to [::1]:PORT; both exit 0");
  TAP_OK(lane_result_ok(r.client.out.buf, &w, "[::1]") &&
             cost_ok(r.client.out.buf, "[::1]"),
         "[::1]: result JSON has the expected totals and cost figures");
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
    TAP_OK(lane_result_ok(r.client.out.buf, w, label) &&
               (fixture_is_server ? cost_ok(r.client.out.buf, label)
                                  : server_result_ok(&r, w, label)),
           "%s (P=%" PRIu32 "): result JSON has the expected totals%s", label,
           w->payload_bytes,
           fixture_is_server ? " and cost figures"
                             : ", and so has the c server's");
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

/* The writer's line, framed as a result line of round_trips values and
 * elapsed_ns, read back through cost_ok(). Returns the check's result. */
static int writer_ok(const struct hist *h, uint64_t elapsed, const char *label)
{
  struct lane_cpu start = {100, 200}, end = {150, 150};
  char *text = NULL;
  size_t len = 0;
  FILE *f = memfile_open(&text, &len);
  int ok;

  if (f == NULL)
    return 0;
  ok = fprintf(f, "{\"round_trips\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64,
               h->count, elapsed) > 0 &&
       lane_cpu_print(f, &start, &end) == 0 && lane_latency_print(f, h) == 0 &&
       fputs("}", f) >= 0;
  ok &= memfile_close(f) == 0;
  ok = ok && cost_ok(text, label) &&
       strstr(text, "\"cpu_user_us\":50,\"cpu_system_us\":0,") != NULL;
  if (!ok)
    tap_diag("%s: %.300s", label, text ? text : "(nothing)");
  free(text);
  return ok;
}

static void tests_writer(void)
{
  static struct hist h;
  static const int64_t values[] = {0,    1,     255,   256,     257,
                                   1000, 65535, 99999, 1000000, INT64_MAX};

  hist_init(&h);
  TAP_OK(writer_ok(&h, 0, "N = 0"),
         "the result line with no round trips: latency count 0, min, max "
         "and percentiles null, buckets []; CPU that went back counts 0");
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    hist_record(&h, values[i]);
  TAP_OK(writer_ok(&h, INT64_MAX, "chosen values"),
         "the result line's latency for values 0 to 2^63-1: every bucket, "
         "min, max and percentiles as recorded");
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
  int found;

  tests_writer();
  found = peers_bin(server_bin, sizeof server_bin, "lanes/c/server");

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
