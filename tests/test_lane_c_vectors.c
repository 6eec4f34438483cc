/* The C lane (lanes/c) against the protocol vectors (protocol/vectors):
 * each invalid.json case whose state is a server's or a client's is
 * played against the C server or client, which must reject it by name;
 * each sessions.json case is replayed to both, in whole writes and one
 * byte per write. The bare frame cases are tests/test_codec.c's. Every
 * case runs over tcp, then over tls (the test's side through OpenSSL, the
 * lane's with --transport tls and material of runner/tls_material.h),
 * where an end of stream is close_notify and then TCP's.
 *
 * Binaries come from $BUILD (default "build"): lanes/c/server and
 * lanes/c/client; they run as tests/lib_peers.h describes. The vectors
 * are read from $CROSSRUN_ROOT/protocol/vectors (default: ./). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "protocol/codec.h"
#include "runner/tls_material.h"
#include "tests/lib_lane_result.h"
#include "tests/lib_peers.h"
#include "tests/lib_sockets.h"
#include "tests/lib_wire.h"
#include "tests/tap.h"

static char server_bin[512], client_bin[512];

/* The transport of the cases being run: the lane's command lines, the
 * test's side of the connection (NULL over tcp) and a label suffix. */
static char *c_server[8] = {server_bin, NULL};
static char *c_client[8] = {client_bin, NULL};
static const struct wire_tls *as_client, *as_server;
static const char *over = "";

static char vectors_dir[600];

static const char *jstr(struct json_object *o, const char *key)
{
  struct json_object *f;
  if (!json_object_object_get_ex(o, key, &f))
    return NULL;
  return json_object_get_string(f);
}

/* A 64-bit field: a decimal string (vectors/README.md) or a number. */
static uint64_t ju64(struct json_object *o, const char *key)
{
  const char *v = jstr(o, key);
  return v ? strtoull(v, NULL, 10) : 0;
}

static int jbool(struct json_object *o, const char *key)
{
  struct json_object *f;
  return json_object_object_get_ex(o, key, &f) && json_object_get_boolean(f);
}

static void workload_of(struct json_object *c, struct proto_workload *w)
{
  struct json_object *o;
  memset(w, 0, sizeof *w);
  if (!json_object_object_get_ex(c, "workload", &o))
    return;
  w->warmup = ju64(o, "warmup");
  w->round_trips = ju64(o, "round_trips");
  w->payload_bytes = (uint32_t)ju64(o, "payload_bytes");
  w->max_in_flight = (uint32_t)ju64(o, "max_in_flight");
}

/* Lowercase hex to bytes; the caller frees. NULL when malformed. */
static uint8_t *hex_decode(const char *hex, size_t *len)
{
  size_t n = hex ? strlen(hex) : 1;
  uint8_t *out;

  if (n % 2)
    return NULL;
  out = malloc(n / 2 + 1);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
      free(out);
      return NULL;
    }
    out[i] = (uint8_t)v;
  }
  *len = n / 2;
  return out;
}

/* REQUEST (is_response 0) or RESPONSE s of P bytes into out (16 + P). */
static size_t data_frame(uint8_t *out, int is_response, uint64_t s, uint32_t p)
{
  struct proto_header h = {
      PROTO_VERSION, is_response ? PROTO_RESPONSE : PROTO_REQUEST, 0, p, s};
  proto_header_encode(out, &h);
  proto_payload_fill(out + PROTO_HEADER_BYTES, p, s);
  if (is_response)
    proto_response_fill(out + PROTO_HEADER_BYTES, out + PROTO_HEADER_BYTES, p);
  return PROTO_HEADER_BYTES + (size_t)p;
}

/* The peer's stderr is one line (SPEC.md section 6) of UTF-8 without
 * control characters, whatever a peer's ERROR reason held, and names the
 * rejection as "<prog>: <name>: ...". */
static int stderr_names(const struct peers_proc *p, const char *name)
{
  char pattern[64];
  const unsigned char *s = (const unsigned char *)p->err.buf;
  size_t n = p->err.len, i;

  if (n == 0 || s[n - 1] != '\n')
    return 0;
  for (i = 0; i + 1 < n; i++)
    if (s[i] < 0x20 || s[i] == 0x7f)
      return 0;
  for (i = 0; i + 1 < n; i++) {
    size_t len = s[i] < 0x80 ? 1 : s[i] < 0xe0 ? 2 : s[i] < 0xf0 ? 3 : 4;
    if (s[i] >= 0x80 && (s[i] < 0xc2 || s[i] > 0xf4))
      return 0;
    for (size_t k = 1; k < len; k++)
      if (i + k >= n - 1 || (s[i + k] & 0xc0) != 0x80)
        return 0;
    i += len - 1;
  }
  snprintf(pattern, sizeof pattern, ": %s:", name);
  return strstr(p->err.buf, pattern) != NULL;
}

/* An invalid.json case against the C server, which this test drives as
 * its client into the case's state. */
static void vector_server_rejects(struct json_object *c)
{
  const char *name = jstr(c, "name"), *state = jstr(c, "state");
  const char *want = jstr(c, "rejection");
  struct proto_workload w;
  struct peers_proc srv;
  struct peers_proc *one[1] = {&srv};
  uint8_t *input, *frame = NULL;
  size_t input_len;
  struct wire wc = {-1, NULL, 0, ""};
  int port, ok, before = tap_failed;

  workload_of(c, &w);
  input = hex_decode(jstr(c, "input"), &input_len);
  port = peers_server_start(&srv, c_server);
  ok = input && port && wire_connect(&wc, port, as_client) == 0;
  if (ok && (strcmp(state, "server_expecting_request") == 0 ||
             strcmp(state, "server_after_bye") == 0)) {
    uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
    uint8_t payload[PROTO_WORKLOAD_BYTES];
    int after_bye = strcmp(state, "server_after_bye") == 0;
    uint64_t total = w.warmup + w.round_trips;
    uint64_t next = after_bye ? total + 1 : ju64(c, "sequence");
    size_t size = PROTO_HEADER_BYTES + (size_t)w.payload_bytes;

    proto_workload_encode(payload, &w);
    proto_frame_encode(hello, PROTO_HELLO, 0, payload, sizeof payload);
    frame = malloc(size);
    ok = frame && wire_send(&wc, hello, sizeof hello, 0) == 0 &&
         wire_read_exact(&wc, hello, sizeof hello) == 0;
    for (uint64_t s = 1; ok && s < next; s++) {
      data_frame(frame, 0, s, w.payload_bytes);
      ok = wire_send(&wc, frame, size, 0) == 0 &&
           wire_read_exact(&wc, frame, size) == 0;
    }
    if (ok && after_bye) {
      /* A correct BYE, and its BYE_ACK back. */
      uint8_t bye[PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES];
      uint8_t body[PROTO_COUNTS_BYTES];
      struct proto_counts cnt;
      proto_counts_expected(&w, 0, &cnt);
      proto_counts_encode(body, &cnt);
      proto_frame_encode(bye, PROTO_BYE, total + 1, body, sizeof body);
      ok = wire_send(&wc, bye, sizeof bye, 0) == 0 &&
           wire_read_exact(&wc, bye, sizeof bye) == 0 &&
           bye[1] == PROTO_BYE_ACK;
    }
  }
  if (ok) {
    ok = wire_send(&wc, input, input_len, 0) == 0;
    if (jbool(c, "eof"))
      wire_end(&wc);
    wire_drain(&wc);
  }
  wire_close(&wc);
  if (port)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(ok && peers_exit_code(&srv) > 0 && peers_exit_code(&srv) < 128 &&
             stderr_names(&srv, want),
         "vector %s (%s)%s: c server rejects with %s", name, state, over, want);
  if (tap_failed != before)
    peers_show(&srv);
  free(input);
  free(frame);
}

/* An invalid.json case against the C client, which this test serves into
 * the case's state. */
static void vector_client_rejects(struct json_object *c)
{
  const char *name = jstr(c, "name"), *state = jstr(c, "state");
  const char *want = jstr(c, "rejection");
  struct proto_workload w;
  struct peers_proc cl;
  struct peers_proc *one[1] = {&cl};
  uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
  uint8_t *input, *frame;
  size_t input_len, size;
  uint64_t total, received = 0, answered = 0, next;
  struct wire ws = {-1, NULL, 0, ""};
  int port = 0, lfd, ok, before = tap_failed;

  workload_of(c, &w);
  total = w.warmup + w.round_trips;
  size = PROTO_HEADER_BYTES + (size_t)w.payload_bytes;
  next = strcmp(state, "client_expecting_bye_ack") == 0    ? total + 1
         : strcmp(state, "client_expecting_response") == 0 ? ju64(c, "sequence")
                                                           : 0;
  input = hex_decode(jstr(c, "input"), &input_len);
  frame = malloc(size > PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES
                     ? size
                     : PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES);
  memset(&cl, 0, sizeof cl);
  lfd = sockets_listen_any(&port);
  ok = input && frame && lfd >= 0 &&
       peers_client_start(&cl, c_client, port, &w) == 0;
  ok = ok && wire_accept(&ws, lfd, &cl, as_server) == 0 &&
       wire_read_exact(&ws, hello, sizeof hello) == 0;
  if (lfd >= 0)
    sockets_close(lfd);
  if (ok && next > 0) {
    /* HELLO_ACK, then RESPONSE 1 .. next-1 each after its request. */
    uint64_t limit, sent_by_then;
    hello[1] = PROTO_HELLO_ACK;
    ok = wire_send(&ws, hello, sizeof hello, 0) == 0;
    while (ok && answered + 1 < next) {
      if (received == answered) {
        ok = wire_read_exact(&ws, frame, size) == 0;
        received++;
        continue;
      }
      answered++;
      data_frame(frame, 1, answered, w.payload_bytes);
      ok = wire_send(&ws, frame, size, 0) == 0;
    }
    /* The requests the client has sent in that state, so that the case's
     * input meets exactly it: the window, and the warm-up's end. */
    limit = answered < w.warmup ? w.warmup : total;
    sent_by_then = answered + w.max_in_flight;
    if (sent_by_then > limit)
      sent_by_then = limit;
    while (ok && received < sent_by_then) {
      ok = wire_read_exact(&ws, frame, size) == 0;
      received++;
    }
    if (ok && next > total)
      ok = wire_read_exact(&ws, frame,
                           PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES) == 0;
  }
  if (ok) {
    ok = wire_send(&ws, input, input_len, 0) == 0;
    if (jbool(c, "eof"))
      wire_end(&ws);
    wire_drain(&ws);
  }
  wire_close(&ws);
  if (cl.pid > 0)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(ok && peers_exit_code(&cl) > 0 && peers_exit_code(&cl) < 128 &&
             stderr_names(&cl, want) && cl.out.len == 0,
         "vector %s (%s)%s: c client rejects with %s", name, state, over, want);
  if (tap_failed != before)
    peers_show(&cl);
  free(input);
  free(frame);
}

/* A sessions.json case: the client's bytes to the C server, which must
 * answer exactly the server's bytes and exit 0 at the end of stream. */
static void vector_session_server(struct json_object *c, int bytewise)
{
  const char *name = jstr(c, "name");
  struct peers_proc srv;
  struct peers_proc *one[1] = {&srv};
  size_t client_len, server_len;
  uint8_t *client_bytes = hex_decode(jstr(c, "client_bytes"), &client_len);
  uint8_t *server_bytes = hex_decode(jstr(c, "server_bytes"), &server_len);
  uint8_t *got = malloc(server_len + 1);
  struct wire wc = {-1, NULL, 0, ""};
  int port, ok, before = tap_failed;

  port = peers_server_start(&srv, c_server);
  ok = client_bytes && server_bytes && got && port &&
       wire_connect(&wc, port, as_client) == 0 &&
       wire_send(&wc, client_bytes, client_len, bytewise) == 0 &&
       wire_read_exact(&wc, got, server_len) == 0 &&
       memcmp(got, server_bytes, server_len) == 0;
  wire_close(&wc);
  if (port)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(ok && peers_exit_code(&srv) == 0 && srv.err.len == 0,
         "vector session %s%s%s: c server answers every byte and exits 0", name,
         bytewise ? " (one byte per write)" : "", over);
  if (tap_failed != before)
    peers_show(&srv);
  free(client_bytes);
  free(server_bytes);
  free(got);
}

/* A sessions.json case: the server's bytes to the C client, each frame
 * after the request it answers; the client must send exactly the
 * client's bytes, close first and report the case's result. */
static void vector_session_client(struct json_object *c, int bytewise)
{
  const char *name = jstr(c, "name");
  struct proto_workload w;
  struct peers_proc cl;
  struct peers_proc *one[1] = {&cl};
  struct json_object *result = NULL;
  size_t client_len, server_len, at = 0, size;
  uint8_t *client_bytes = hex_decode(jstr(c, "client_bytes"), &client_len);
  uint8_t *server_bytes = hex_decode(jstr(c, "server_bytes"), &server_len);
  uint8_t *got = malloc(client_len + 1);
  struct wire ws = {-1, NULL, 0, ""};
  int port = 0, lfd, ok, before = tap_failed;

  workload_of(c, &w);
  memset(&cl, 0, sizeof cl);
  lfd = sockets_listen_any(&port);
  ok = client_bytes && server_bytes && got && client_len == server_len &&
       lfd >= 0 && peers_client_start(&cl, c_client, port, &w) == 0 &&
       wire_accept(&ws, lfd, &cl, as_server) == 0;
  if (lfd >= 0)
    sockets_close(lfd);
  /* Both streams are HELLO, W + N data frames, BYE: frame i of the
   * server's answers frame i of the client's, and has its size. */
  for (uint64_t i = 0; ok && at < client_len; i++) {
    size = i == 0 ? PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES
           : at + PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES == client_len
               ? PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES
               : PROTO_HEADER_BYTES + (size_t)w.payload_bytes;
    ok = at + size <= client_len && wire_read_exact(&ws, got + at, size) == 0 &&
         memcmp(got + at, client_bytes + at, size) == 0 &&
         wire_send(&ws, server_bytes + at, size, bytewise) == 0;
    at += size;
  }
  if (ok) /* the client closes first (over tls: close_notify) */
    ok = wire_peer_ended(&ws);
  wire_close(&ws);
  if (cl.pid > 0)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  ok = ok && peers_exit_code(&cl) == 0 && cl.err.len == 0 &&
       lane_result_ok(cl.out.buf, &w, name) &&
       json_object_object_get_ex(c, "result", &result);
  if (ok) {
    struct json_object *o = json_tokener_parse(cl.out.buf);
    static const char *const keys[] = {"frames_sent", "frames_received",
                                       "bytes_sent", "bytes_received"};
    for (size_t k = 0; o && k < sizeof keys / sizeof keys[0]; k++) {
      uint64_t v;
      ok = ok && lane_result_u64(o, keys[k], &v) && v == ju64(result, keys[k]);
    }
    ok = ok && o != NULL;
    if (o)
      json_object_put(o);
  }
  TAP_OK(ok,
         "vector session %s%s%s: c client sends every byte and reports "
         "the result",
         name, bytewise ? " (one byte per write)" : "", over);
  if (tap_failed != before)
    peers_show(&cl);
  free(client_bytes);
  free(server_bytes);
  free(got);
}

static struct json_object *vectors_cases(const char *file,
                                         struct json_object **root)
{
  char path[700];
  struct json_object *cases = NULL;

  snprintf(path, sizeof path, "%s/%s", vectors_dir, file);
  *root = json_object_from_file(path);
  if (*root == NULL || !json_object_object_get_ex(*root, "cases", &cases) ||
      !json_object_is_type(cases, json_type_array)) {
    TAP_OK(0, "%s has a cases array", path);
    return NULL;
  }
  return cases;
}

static void tests_vectors(void)
{
  struct json_object *root, *cases;
  const char *root_dir = getenv("CROSSRUN_ROOT");

  snprintf(vectors_dir, sizeof vectors_dir, "%s/protocol/vectors",
           root_dir && *root_dir ? root_dir : ".");

  cases = vectors_cases("invalid.json", &root);
  for (size_t i = 0; cases && i < json_object_array_length(cases); i++) {
    struct json_object *c = json_object_array_get_idx(cases, i);
    const char *state = jstr(c, "state");
    /* "any" is a bare frame parser without a session: the codec's test. */
    if (state && strncmp(state, "server_", 7) == 0)
      vector_server_rejects(c);
    else if (state && strncmp(state, "client_", 7) == 0)
      vector_client_rejects(c);
  }
  json_object_put(root);

  cases = vectors_cases("sessions.json", &root);
  for (size_t i = 0; cases && i < json_object_array_length(cases); i++) {
    struct json_object *c = json_object_array_get_idx(cases, i);
    vector_session_server(c, 0);
    vector_session_server(c, 1);
    vector_session_client(c, 0);
    vector_session_client(c, 1);
  }
  json_object_put(root);
}

/* Every case again over tls, with fresh material in dir, a folder of its
 * own (not the children's TMPDIR, which they must leave empty). */
static void tests_vectors_over_tls(const char *dir)
{
  static struct tls_material m;
  static char transport[] = "--transport", tls[] = "tls",
              cert_flag[] = "--cert", key_flag[] = "--key", ca_flag[] = "--ca";
  struct wire_tls client_side = {NULL}, server_side = {NULL};
  char err[300] = "";

  if (!TAP_OK(tls_material_make(dir, &m, err, sizeof err) == 0,
              "tls material in %s %s", dir, err))
    return;
  if (TAP_OK(wire_tls_client(&client_side, m.ca,
                             "\x0a"
                             "crossrun/1",
                             11) == 0 &&
                 wire_tls_server(&server_side, m.cert, m.key, 1) == 0,
             "the test's tls sides")) {
    char *s[] = {server_bin, transport, tls,   cert_flag,
                 m.cert,     key_flag,  m.key, NULL};
    char *c[] = {client_bin, transport, tls, ca_flag, m.ca, NULL};
    memcpy(c_server, s, sizeof s);
    memcpy(c_client, c, sizeof c);
    as_client = &client_side;
    as_server = &server_side;
    over = " over tls";
    tests_vectors();
  }
  wire_tls_release(&client_side);
  wire_tls_release(&server_side);
  remove(m.ca);
  remove(m.cert);
  remove(m.key);
}

int main(void)
{
  char err[600], tls_dir[512];
  int found = peers_bin(server_bin, sizeof server_bin, "lanes/c/server");

  found &= peers_bin(client_bin, sizeof client_bin, "lanes/c/client");
  if (!found) {
    TAP_OK(0, "binaries %s and %s exist (make them first)", server_bin,
           client_bin);
    return tap_done();
  }
  /* Before peers_setup() points TMPDIR at the children's folder. */
  if (!TAP_OK(tap_mkdtemp(tls_dir, sizeof tls_dir) != NULL,
              "a folder for the tls material"))
    return tap_done();
  if (peers_setup("lane-c-vectors", err, sizeof err) != 0) {
    TAP_OK(0, "%s", err);
    rmdir(tls_dir);
    return tap_done();
  }

  tests_vectors();
  tests_vectors_over_tls(tls_dir);
  TAP_OK(rmdir(tls_dir) == 0, "the tls material is removed");

  TAP_OK(peers_tmp_remove(), "the children's TMPDIR was left empty");
  return tap_done();
}
