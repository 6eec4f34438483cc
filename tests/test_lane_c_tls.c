/* Tests of the C lane over tls (lanes/c/tls.h, protocol/SPEC.md section
 * 9): the client against the server over several workloads and on [::1],
 * both result lines' tls objects; a client given another CA, a tcp peer
 * against a tls one, and ALPN refused either way, each a tls_handshake
 * failure; the answers to several frames in one record; a record that
 * does not authenticate after the handshake; the transport's usage errors
 * and files that cannot be used. The protocol vectors over tls are
 * tests/test_lane_c_vectors.c's.
 *
 * Binaries come from $BUILD (default "build"); they run as
 * tests/lib_peers.h describes, with material of runner/tls_material.h in
 * folders of the test's own. */
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

#define SESSION_TIMEOUT_S 60.0
#define ALPN_WIRE                                                              \
  "\x0a"                                                                       \
  "crossrun/1"

static char server_bin[512], client_bin[512];
/* Two sets of material: the session's, and another CA's (wrong). */
static char dir[512], other_dir[512];
static struct tls_material material, other_material;
static char cert[600], key[600], ca[600], other_ca[600];
static char flag_transport[] = "--transport", tls[] = "tls", tcp[] = "tcp",
            flag_cert[] = "--cert", flag_key[] = "--key", flag_ca[] = "--ca";

/* ---- checks ---- */

static const char *jstr(struct json_object *o, const char *key)
{
  struct json_object *f;
  if (!json_object_object_get_ex(o, key, &f) ||
      !json_object_is_type(f, json_type_string))
    return NULL;
  return json_object_get_string(f);
}

/* The tls object of a result line (SPEC.md section 9): TLSv1.3, an IANA
 * TLS 1.3 suite copied into cipher, crossrun/1, and on the client a
 * handshake_ns above 0; "transport" is "tls". */
static int tls_object_ok(const char *line, int client, char *cipher,
                         size_t cipher_size, const char *label)
{
  struct json_object *o = json_tokener_parse(line), *t;
  const char *v;
  uint64_t ns;
  int ok = 1;

  if (o == NULL || !json_object_object_get_ex(o, "tls", &t) ||
      !json_object_is_type(t, json_type_object)) {
    tap_diag("%s: no tls object in %.200s", label, line);
    json_object_put(o);
    return 0;
  }
  v = jstr(t, "version");
  ok &= v != NULL && strcmp(v, "TLSv1.3") == 0;
  v = jstr(t, "alpn");
  ok &= v != NULL && strcmp(v, "crossrun/1") == 0;
  v = jstr(t, "cipher");
  ok &= v != NULL && strncmp(v, "TLS_", 4) == 0;
  snprintf(cipher, cipher_size, "%s", v ? v : "");
  v = jstr(o, "transport");
  ok &= v != NULL && strcmp(v, "tls") == 0;
  if (client)
    ok &= lane_result_u64(t, "handshake_ns", &ns) && ns > 0;
  else
    ok &= !json_object_object_get_ex(t, "handshake_ns", NULL);
  if (!ok)
    tap_diag("%s: tls object %s", label, json_object_to_json_string(t));
  json_object_put(o);
  return ok;
}

/* The server's result line, after READY: the mirror of the client's
 * totals for w. */
static const char *server_line(const struct peers_pair *r)
{
  const char *nl = strchr(r->server.out.buf, '\n');
  return nl ? nl + 1 : "";
}

static int server_counts_ok(const struct peers_pair *r,
                            const struct proto_workload *w, const char *label)
{
  struct json_object *o = json_tokener_parse(server_line(r));
  struct proto_totals t;
  uint64_t sent = 0, received = 0, trips = 0;
  int ok;

  proto_totals_expected(w, &t);
  ok = o != NULL && lane_result_u64(o, "bytes_sent", &sent) &&
       lane_result_u64(o, "bytes_received", &received) &&
       lane_result_u64(o, "round_trips", &trips) && sent == t.bytes_received &&
       received == t.bytes_sent && trips == w->round_trips;
  if (!ok)
    tap_diag("%s: server line %.300s", label, server_line(r));
  json_object_put(o);
  return ok;
}

/* Exactly one line on stderr. */
static int one_line(const struct peers_proc *p)
{
  return p->err.len > 0 &&
         strchr(p->err.buf, '\n') == p->err.buf + p->err.len - 1;
}

/* ---- sessions ---- */

static void test_self(const struct proto_workload *w)
{
  char *server[] = {server_bin, flag_transport, tls, flag_cert,
                    cert,       flag_key,       key, NULL};
  char *client[] = {client_bin, flag_transport, tls, flag_ca, ca, NULL};
  char label[96], client_cipher[64], server_cipher[64];
  struct peers_pair r;
  int before = tap_failed;

  snprintf(label, sizeof label,
           "c-c+tls W=%" PRIu64 " N=%" PRIu64 " P=%" PRIu32 " M=%" PRIu32,
           w->warmup, w->round_trips, w->payload_bytes, w->max_in_flight);
  peers_pair_run(&r, server, client, w, tap_timeout_s(SESSION_TIMEOUT_S));
  TAP_OK(peers_exit_code(&r.server) == 0 && peers_exit_code(&r.client) == 0,
         "%s: both exit 0", label);
  TAP_OK(lane_result_ok(r.client.out.buf, w, label) &&
             server_counts_ok(&r, w, label),
         "%s: both result lines have the totals of application bytes", label);
  TAP_OK(tls_object_ok(r.client.out.buf, 1, client_cipher, sizeof client_cipher,
                       label) &&
             tls_object_ok(server_line(&r), 0, server_cipher,
                           sizeof server_cipher, label) &&
             strcmp(client_cipher, server_cipher) == 0,
         "%s: both report TLSv1.3, crossrun/1 and the same cipher; the "
         "client its handshake_ns",
         label);
  TAP_OK(r.server.err.len == 0 && r.client.err.len == 0,
         "%s: nothing on stderr", label);
  /* The client closes first (close_notify, then TCP), and the server
   * waits for that end of stream. */
  TAP_OK(r.port > 0 && sockets_port_free(r.port),
         "%s: the port is free at once", label);
  TAP_OK(peers_tmp_empty(), "%s: TMPDIR left empty", label);
  if (tap_failed != before)
    peers_pair_show(&r);
}

static void test_ipv6(void)
{
  static const struct proto_workload w = {10, 1000, 64, 64};
  char *server[] = {server_bin, flag_transport, tls, flag_cert,
                    cert,       flag_key,       key, NULL};
  char *client[] = {client_bin, flag_transport, tls, flag_ca, ca, NULL};
  char cipher[64];
  struct peers_pair r;
  int before = tap_failed;

  if (!sockets_port_free6(0)) {
    TAP_OK(1, "c-c+tls on [::1] # SKIP no IPv6 loopback here");
    return;
  }
  peers_host = "::1";
  peers_pair_run(&r, server, client, &w, tap_timeout_s(SESSION_TIMEOUT_S));
  peers_host = "127.0.0.1";
  TAP_OK(peers_exit_code(&r.server) == 0 && peers_exit_code(&r.client) == 0 &&
             lane_result_ok(r.client.out.buf, &w, "[::1]") &&
             tls_object_ok(r.client.out.buf, 1, cipher, sizeof cipher, "[::1]"),
         "c-c+tls on [::1]: the client checks the IP SAN ::1; both exit 0");
  if (tap_failed != before)
    peers_pair_show(&r);
}

/* ---- handshake failures ---- */

/* The peer of role fails its handshake: exit 1, one stderr line with
 * "tls_handshake: " and want (when not NULL), nothing on stdout but a
 * server's READY. */
static void expect_handshake_failure(const struct peers_proc *p, int server,
                                     const char *want, const char *label)
{
  const char *at = strstr(p->err.buf, "tls_handshake: ");
  int before = tap_failed;

  TAP_OK(peers_exit_code(p) == 1, "%s: exits 1", label);
  TAP_OK(one_line(p) && at != NULL && (want == NULL || strstr(at, want)),
         "%s: one stderr line 'tls_handshake: %s'", label, want ? want : "...");
  TAP_OK(server ? strncmp(p->out.buf, "READY ", 6) == 0 &&
                      strchr(p->out.buf, '\n') == p->out.buf + p->out.len - 1
                : p->out.len == 0,
         "%s: %s on stdout", label, server ? "only READY" : "nothing");
  if (tap_failed != before)
    peers_show(p);
}

static void test_wrong_ca(void)
{
  static const struct proto_workload w = {1, 10, 64, 4};
  char *server[] = {server_bin, flag_transport, tls, flag_cert,
                    cert,       flag_key,       key, NULL};
  char *client[] = {client_bin, flag_transport, tls, flag_ca, other_ca, NULL};
  struct peers_pair r;

  peers_pair_run(&r, server, client, &w, tap_timeout_s(SESSION_TIMEOUT_S));
  expect_handshake_failure(
      &r.client, 0,
      "certificate verify failed: unable to get local issuer certificate",
      "client given another CA");
  /* The client's alert tells the server why. */
  expect_handshake_failure(&r.server, 1, "unknown ca",
                           "server whose client has another CA");
}

static void test_transport_mismatch(void)
{
  static const struct proto_workload w = {1, 10, 64, 4};
  char *tls_server[] = {server_bin, flag_transport, tls, flag_cert,
                        cert,       flag_key,       key, NULL};
  char *tls_client[] = {client_bin, flag_transport, tls, flag_ca, ca, NULL};
  char *tcp_server[] = {server_bin, NULL};
  char *tcp_client[] = {client_bin, NULL};
  struct peers_pair r;

  peers_pair_run(&r, tls_server, tcp_client, &w,
                 tap_timeout_s(SESSION_TIMEOUT_S));
  expect_handshake_failure(&r.server, 1, NULL, "tls server, tcp client");
  TAP_OK(peers_exit_code(&r.client) > 0 && peers_exit_code(&r.client) < 128,
         "tls server, tcp client: the client fails too");
  peers_pair_run(&r, tcp_server, tls_client, &w,
                 tap_timeout_s(SESSION_TIMEOUT_S));
  expect_handshake_failure(&r.client, 0, NULL, "tcp server, tls client");
}

/* The C server against the test's client offering alpn (NULL: none). */
static void test_server_alpn(const char *alpn, size_t alpn_len,
                             const char *want, const char *label)
{
  char *server[] = {server_bin, flag_transport, tls, flag_cert,
                    cert,       flag_key,       key, NULL};
  struct peers_proc srv;
  struct peers_proc *one[1] = {&srv};
  struct wire_tls side = {NULL};
  struct wire wc = {-1, NULL, 0, ""};
  int port;

  if (wire_tls_client(&side, ca, alpn, alpn_len) != 0) {
    TAP_OK(0, "%s: the test's client", label);
    return;
  }
  port = peers_server_start(&srv, server);
  TAP_OK(port > 0 && wire_connect(&wc, port, &side) != 0,
         "%s: the handshake fails", label);
  wire_close(&wc);
  if (port)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  expect_handshake_failure(&srv, 1, want, label);
  wire_tls_release(&side);
}

/* The C client against the test's server that selects no ALPN. */
static void test_client_alpn(void)
{
  static const struct proto_workload w = {1, 10, 64, 4};
  char *client[] = {client_bin, flag_transport, tls, flag_ca, ca, NULL};
  struct peers_proc cl;
  struct peers_proc *one[1] = {&cl};
  struct wire_tls side = {NULL};
  struct wire ws = {-1, NULL, 0, ""};
  int port = 0, lfd;

  memset(&cl, 0, sizeof cl);
  if (wire_tls_server(&side, cert, key, 0) != 0) {
    TAP_OK(0, "server without ALPN: the test's server");
    return;
  }
  lfd = sockets_listen_any(&port);
  if (lfd >= 0 && peers_client_start(&cl, client, port, &w) == 0)
    (void)wire_accept(&ws, lfd, &cl, &side);
  if (lfd >= 0)
    sockets_close(lfd);
  wire_drain(&ws);
  wire_close(&ws);
  if (cl.pid > 0)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  expect_handshake_failure(&cl, 0, "the server selected no ALPN protocol",
                           "client whose server selected no ALPN");
  wire_tls_release(&side);
}

/* ---- batching and TLS failures inside the session ---- */

/* REQUEST s of P bytes into out. */
static size_t request_frame(uint8_t *out, uint64_t s, uint32_t p)
{
  struct proto_header h = {PROTO_VERSION, PROTO_REQUEST, 0, p, s};
  proto_header_encode(out, &h);
  proto_payload_fill(out + PROTO_HEADER_BYTES, p, s);
  return PROTO_HEADER_BYTES + (size_t)p;
}

/* The test as the client: HELLO for w, its HELLO_ACK back. */
static int hello_exchange(struct wire *wc, const struct proto_workload *w)
{
  uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
  uint8_t payload[PROTO_WORKLOAD_BYTES];

  proto_workload_encode(payload, w);
  proto_frame_encode(hello, PROTO_HELLO, 0, payload, sizeof payload);
  return wire_send(wc, hello, sizeof hello, 0) == 0 &&
         wire_read_exact(wc, hello, sizeof hello) == 0 &&
         hello[1] == PROTO_HELLO_ACK;
}

/* The C server gets M requests in one record and answers them in one
 * record; then the BYE and a close_notify end the session cleanly. */
static void test_server_batches(void)
{
  static const struct proto_workload w = {0, 32, 64, 32};
  char *server[] = {server_bin, flag_transport, tls, flag_cert,
                    cert,       flag_key,       key, NULL};
  const size_t frame = PROTO_HEADER_BYTES + 64;
  uint8_t *buf = malloc(32 * frame);
  struct peers_proc srv;
  struct peers_proc *one[1] = {&srv};
  struct wire_tls side = {NULL};
  struct wire wc = {-1, NULL, 0, ""};
  unsigned long records = 0;
  int port, ok, before = tap_failed;

  ok = buf != NULL && wire_tls_client(&side, ca, ALPN_WIRE, 11) == 0;
  port = ok ? peers_server_start(&srv, server) : 0;
  ok = port > 0 && wire_connect(&wc, port, &side) == 0 &&
       hello_exchange(&wc, &w);
  if (ok) {
    uint8_t bye[PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES];
    uint8_t body[PROTO_COUNTS_BYTES];
    struct proto_counts cnt;

    for (uint64_t s = 1; s <= 32; s++)
      request_frame(buf + (s - 1) * frame, s, 64);
    records = wc.records_in;
    ok = wire_send(&wc, buf, 32 * frame, 0) == 0 &&
         wire_read_exact(&wc, buf, 32 * frame) == 0;
    records = wc.records_in - records;
    proto_counts_expected(&w, 0, &cnt);
    proto_counts_encode(body, &cnt);
    proto_frame_encode(bye, PROTO_BYE, 33, body, sizeof body);
    ok = ok && wire_send(&wc, bye, sizeof bye, 0) == 0 &&
         wire_read_exact(&wc, bye, sizeof bye) == 0 && bye[1] == PROTO_BYE_ACK;
  }
  wire_close(&wc);
  if (port)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(ok && records == 1,
         "c server+tls: 32 requests in one record are answered in one record "
         "(%lu)",
         records);
  TAP_OK(port && peers_exit_code(&srv) == 0 && srv.err.len == 0,
         "c server+tls: close_notify after BYE_ACK is the clean end (exit 0)");
  if (tap_failed != before && port)
    peers_show(&srv);
  wire_tls_release(&side);
  free(buf);
}

/* The C client sends its window's M requests in one record. */
static void test_client_batches(void)
{
  static const struct proto_workload w = {0, 16, 64, 16};
  char *client[] = {client_bin, flag_transport, tls, flag_ca, ca, NULL};
  const size_t frame = PROTO_HEADER_BYTES + 64;
  uint8_t buf[16 * (PROTO_HEADER_BYTES + 64)];
  uint8_t hello[PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES];
  struct peers_proc cl;
  struct peers_proc *one[1] = {&cl};
  struct wire_tls side = {NULL};
  struct wire ws = {-1, NULL, 0, ""};
  unsigned long records = 0;
  int port = 0, lfd, ok, before = tap_failed;

  memset(&cl, 0, sizeof cl);
  ok = wire_tls_server(&side, cert, key, 1) == 0;
  lfd = ok ? sockets_listen_any(&port) : -1;
  ok = lfd >= 0 && peers_client_start(&cl, client, port, &w) == 0 &&
       wire_accept(&ws, lfd, &cl, &side) == 0 &&
       wire_read_exact(&ws, hello, sizeof hello) == 0;
  if (lfd >= 0)
    sockets_close(lfd);
  if (ok) {
    hello[1] = PROTO_HELLO_ACK;
    records = ws.records_in;
    ok = wire_send(&ws, hello, sizeof hello, 0) == 0 &&
         wire_read_exact(&ws, buf, sizeof buf) == 0;
    records = ws.records_in - records;
  }
  wire_close(&ws);
  if (cl.pid > 0)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(ok && records == 1,
         "c client+tls: its window of 16 requests comes in one record (%lu)",
         records);
  if (tap_failed != before)
    peers_show(&cl);
  (void)frame;
  wire_tls_release(&side);
}

/* After the handshake a record that does not authenticate is the
 * rejection the stream state gives, with the TLS reason. */
static void test_bad_record(void)
{
  static const struct proto_workload w = {0, 4, 64, 2};
  char *server[] = {server_bin, flag_transport, tls, flag_cert,
                    cert,       flag_key,       key, NULL};
  /* An application-data record header and 40 bytes that are no record. */
  uint8_t junk[5 + 40] = {0x17, 0x03, 0x03, 0x00, 40};
  struct peers_proc srv;
  struct peers_proc *one[1] = {&srv};
  struct wire_tls side = {NULL};
  struct wire wc = {-1, NULL, 0, ""};
  int port, ok, before = tap_failed;

  memset(junk + 5, 0xa5, 40);
  ok = wire_tls_client(&side, ca, ALPN_WIRE, 11) == 0;
  port = ok ? peers_server_start(&srv, server) : 0;
  ok = port > 0 && wire_connect(&wc, port, &side) == 0 &&
       hello_exchange(&wc, &w) &&
       sockets_send_bytes(wc.fd, junk, sizeof junk, 0) == 0;
  if (ok)
    sockets_drain(wc.fd);
  wire_close(&wc);
  if (port)
    peers_wait(one, 1, tap_timeout_s(PEERS_READY_TIMEOUT_S));
  TAP_OK(ok && peers_exit_code(&srv) == 1 && one_line(&srv) &&
             strstr(srv.err.buf, "server: unexpected_eof: ") != NULL &&
             strstr(srv.err.buf, "(tls: ") != NULL,
         "c server+tls: a bad record between frames is unexpected_eof with "
         "the TLS reason");
  if (tap_failed != before && port)
    peers_show(&srv);
  wire_tls_release(&side);
}

/* ---- command lines ---- */

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
  TAP_OK(peers_exit_code(&p) == 2 && p.out.len == 0 && one_line(&p),
         "%s: exits 2 with one line on stderr, nothing on stdout", label);
  if (tap_failed != before)
    peers_show(&p);
}

static void tests_usage(void)
{
  char *s = server_bin, *c = client_bin;
  char listen[] = "--listen", any[] = "127.0.0.1:0", udp[] = "udp",
       missing[] = "/nonexistent/cert.pem";
  char connect[] = "--connect", to[] = "127.0.0.1:9", warmup[] = "--warmup",
       trips[] = "--round-trips", bytes[] = "--payload-bytes",
       window[] = "--max-in-flight", one[] = "1";
#define CLIENT_ARGS                                                            \
  c, connect, to, warmup, one, trips, one, bytes, one, window, one
  char *s_udp[] = {s, listen, any, flag_transport, udp, NULL};
  char *s_no_files[] = {s, listen, any, flag_transport, tls, NULL};
  char *s_no_key[] = {s,   listen,    any,  flag_transport,
                      tls, flag_cert, cert, NULL};
  char *s_tcp_files[] = {s,   listen,    any,  flag_transport,
                         tcp, flag_cert, cert, flag_key,
                         key, NULL};
  char *s_files_only[] = {s, listen, any, flag_cert, cert, flag_key, key, NULL};
  char *s_no_value[] = {s, listen, any, flag_transport, NULL};
  char *s_twice[] = {s,   listen,         any, flag_transport,
                     tls, flag_transport, tls, NULL};
  char *s_ca[] = {s,    listen,   any, flag_transport, tls, flag_cert,
                  cert, flag_key, key, flag_ca,        ca,  NULL};
  char *s_missing[] = {s,   listen,    any,     flag_transport,
                       tls, flag_cert, missing, flag_key,
                       key, NULL};
  char *s_key_is_cert[] = {s,         listen, any,      flag_transport, tls,
                           flag_cert, cert,   flag_key, cert,           NULL};
  char *s_cert_is_key[] = {
      s, listen, any, flag_transport, tls, flag_cert, key, flag_key, key, NULL};
  char *c_udp[] = {CLIENT_ARGS, flag_transport, udp, NULL};
  char *c_no_ca[] = {CLIENT_ARGS, flag_transport, tls, NULL};
  char *c_tcp_ca[] = {CLIENT_ARGS, flag_transport, tcp, flag_ca, ca, NULL};
  char *c_ca_only[] = {CLIENT_ARGS, flag_ca, ca, NULL};
  char *c_cert[] = {CLIENT_ARGS, flag_transport, tls,  flag_ca,
                    ca,          flag_cert,      cert, NULL};
  char *c_missing[] = {CLIENT_ARGS, flag_transport, tls,
                       flag_ca,     missing,        NULL};
  char *c_ca_is_key[] = {CLIENT_ARGS, flag_transport, tls, flag_ca, key, NULL};
#undef CLIENT_ARGS

  test_usage("server --transport udp", s_udp);
  test_usage("server --transport tls without --cert and --key", s_no_files);
  test_usage("server --transport tls without --key", s_no_key);
  test_usage("server --transport tcp with --cert and --key", s_tcp_files);
  test_usage("server --cert and --key without --transport", s_files_only);
  test_usage("server --transport without a value", s_no_value);
  test_usage("server with --transport twice", s_twice);
  test_usage("server with the client's --ca", s_ca);
  test_usage("server --cert that does not exist", s_missing);
  test_usage("server --key that is a certificate", s_key_is_cert);
  test_usage("server --cert that is a key", s_cert_is_key);
  test_usage("client --transport udp", c_udp);
  test_usage("client --transport tls without --ca", c_no_ca);
  test_usage("client --transport tcp with --ca", c_tcp_ca);
  test_usage("client --ca without --transport", c_ca_only);
  test_usage("client with the server's --cert", c_cert);
  test_usage("client --ca that does not exist", c_missing);
  test_usage("client --ca that is a key", c_ca_is_key);
}

/* ---- material ---- */

static int material_make(char *folder, size_t size, struct tls_material *m)
{
  char err[300] = "";
  if (tap_mkdtemp(folder, size) == NULL)
    return TAP_OK(0, "a folder for tls material");
  return TAP_OK(tls_material_make(folder, m, err, sizeof err) == 0,
                "tls material in %s %s", folder, err);
}

static void material_remove(const char *folder, const struct tls_material *m)
{
  remove(m->ca);
  remove(m->cert);
  remove(m->key);
  TAP_OK(rmdir(folder) == 0, "%s is removed", folder);
}

int main(void)
{
  static const struct proto_workload self_loads[] = {
      {0, 1, 0, 1},         {10, 1000, 64, 64},   {0, 5, 1048576, 2},
      {0, 10000, 16, 1000}, {3, 200, 65536, 256}, {0, 3, 1, 1},
  };
  char err[600];
  int found = peers_bin(server_bin, sizeof server_bin, "lanes/c/server");

  found &= peers_bin(client_bin, sizeof client_bin, "lanes/c/client");
  if (!found) {
    TAP_OK(0, "binaries %s and %s exist (make them first)", server_bin,
           client_bin);
    return tap_done();
  }
  /* Before peers_setup() points TMPDIR at the children's folder. */
  if (!material_make(dir, sizeof dir, &material) ||
      !material_make(other_dir, sizeof other_dir, &other_material))
    return tap_done();
  if (peers_setup("lane-c-tls", err, sizeof err) != 0) {
    TAP_OK(0, "%s", err);
    return tap_done();
  }
  snprintf(cert, sizeof cert, "%s/cert.pem", dir);
  snprintf(key, sizeof key, "%s/key.pem", dir);
  snprintf(ca, sizeof ca, "%s/ca.pem", dir);
  snprintf(other_ca, sizeof other_ca, "%s/ca.pem", other_dir);

  for (size_t i = 0; i < sizeof self_loads / sizeof self_loads[0]; i++)
    test_self(&self_loads[i]);
  test_ipv6();
  test_wrong_ca();
  test_transport_mismatch();
  test_server_alpn(NULL, 0, "the client offered no ALPN protocol",
                   "server whose client offers no ALPN");
  test_server_alpn("\x02h2", 3, "no application protocol",
                   "server whose client offers only h2");
  test_client_alpn();
  test_server_batches();
  test_client_batches();
  test_bad_record();
  tests_usage();

  material_remove(dir, &material);
  material_remove(other_dir, &other_material);
  TAP_OK(peers_tmp_remove(), "the children's TMPDIR was left empty");
  return tap_done();
}
