/* Tests of the C codec (protocol/codec.c) against the whole sessions of
 * the shared vectors (protocol/vectors/sessions.json): both streams encode
 * byte for byte, and the reference receiver (tests/lib_receiver.h) accepts
 * them in any chunking and rejects every cut. */
#include "protocol/codec.h"
#include "tests/lib_receiver.h"
#include "tests/lib_vectors.h"
#include "tests/tap.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Encodes the whole stream one side sends for workload w into out (sized
 * by the caller from the vector); returns the bytes written, or 0 when it
 * would not fit. */
static size_t session_encode(uint8_t *out, size_t cap,
                             const struct proto_workload *w, int server)
{
  uint64_t total = receiver_total(w), seq;
  uint8_t body[PROTO_COUNTS_BYTES];
  struct proto_counts cnt;
  size_t at = 0, frame = (size_t)receiver_frame_bytes(w);

  if (cap < 40)
    return 0;
  proto_workload_encode(body, w);
  at += proto_frame_encode(out, server ? PROTO_HELLO_ACK : PROTO_HELLO, 0, body,
                           PROTO_WORKLOAD_BYTES);
  for (seq = 1; seq <= total; seq++) {
    uint8_t *p = out + at + PROTO_HEADER_BYTES;
    if (cap - at < frame)
      return 0;
    proto_payload_fill(p, w->payload_bytes, seq);
    if (server)
      proto_response_fill(p, p, w->payload_bytes);
    at += proto_frame_encode(out + at, server ? PROTO_RESPONSE : PROTO_REQUEST,
                             seq, p, w->payload_bytes);
  }
  if (cap - at < 48)
    return 0;
  proto_counts_expected(w, server, &cnt);
  proto_counts_encode(body, &cnt);
  at += proto_frame_encode(out + at, server ? PROTO_BYE_ACK : PROTO_BYE,
                           total + 1, body, PROTO_COUNTS_BYTES);
  return at;
}

static void test_sessions(void)
{
  json_object *doc = vectors_load("sessions.json");
  json_object *cases;
  size_t i, n;

  if (!TAP_NONNULL(doc, "sessions.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  TAP_OK(n >= 3, "sessions.json has %zu cases", n);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    const char *name = vectors_case_name(c);
    struct proto_workload w;
    struct proto_totals want, totals;
    struct proto_counts bye, ack, expected;
    uint8_t *cbytes = NULL, *sbytes = NULL, *out;
    size_t clen = 0, slen = 0, got, pending = 0;
    json_object *result = vectors_field(c, "result");
    struct receiver server, client;
    int err;

    if (vectors_workload(c, "workload", &w) ||
        vectors_hex(c, "client_bytes", &cbytes, &clen) ||
        vectors_hex(c, "server_bytes", &sbytes, &slen) || !result ||
        vectors_u64(result, "frames_sent", &want.frames_sent) ||
        vectors_u64(result, "frames_received", &want.frames_received) ||
        vectors_u64(result, "bytes_sent", &want.bytes_sent) ||
        vectors_u64(result, "bytes_received", &want.bytes_received) ||
        clen < 88 || slen < 88) {
      TAP_OK(0, "session %s: malformed", name);
      free(cbytes);
      free(sbytes);
      continue;
    }
    TAP_EQ_INT(proto_workload_check(&w), PROTO_OK, "session %s: workload valid",
               name);

    out = malloc((clen > slen ? clen : slen) + 1);
    if (!out)
      abort();
    got = session_encode(out, clen, &w, 0);
    TAP_OK(got == clen && !memcmp(out, cbytes, clen),
           "session %s: client stream encodes byte for byte", name);
    got = session_encode(out, slen, &w, 1);
    TAP_OK(got == slen && !memcmp(out, sbytes, slen),
           "session %s: server stream encodes byte for byte", name);
    free(out);

    /* The BYE and BYE_ACK in the vector against proto_counts_expected. */
    proto_counts_decode(cbytes + clen - PROTO_COUNTS_BYTES, &bye);
    proto_counts_decode(sbytes + slen - PROTO_COUNTS_BYTES, &ack);
    proto_counts_expected(&w, 0, &expected);
    TAP_OK(vectors_counts_equal(&bye, &expected),
           "session %s: BYE counts equal proto_counts_expected", name);
    proto_counts_expected(&w, 1, &expected);
    TAP_OK(vectors_counts_equal(&ack, &expected),
           "session %s: BYE_ACK counts equal proto_counts_expected", name);

    /* Decode both streams as a server and a client would, in odd chunks,
     * then all at once and one byte at a time. */
    {
      static const struct {
        const size_t *chunks;
        size_t n;
        const char *how;
      } feeds[] = {
          {receiver_odd_chunks,
           sizeof(receiver_odd_chunks) / sizeof(receiver_odd_chunks[0]),
           "odd chunks"},
          {NULL, 0, "one read"},
          {receiver_byte_chunks, 1, "byte by byte"}};
      size_t f;
      for (f = 0; f < sizeof(feeds) / sizeof(feeds[0]); f++) {
        memset(&server, 0, sizeof(server));
        server.phase = RECEIVER_SERVER_HELLO;
        err = receiver_feed(&server, cbytes, clen, feeds[f].chunks, feeds[f].n,
                            1, &pending);
        TAP_OK(err == PROTO_OK && server.phase == RECEIVER_SERVER_DONE &&
                   pending == 0,
               "session %s: server side accepts the client stream (%s): %s",
               name, feeds[f].how, proto_error_name(err));
        memset(&client, 0, sizeof(client));
        client.phase = RECEIVER_CLIENT_HELLO_ACK;
        client.workload = w;
        client.last_sent = receiver_total(&w);
        err = receiver_feed(&client, sbytes, slen, feeds[f].chunks, feeds[f].n,
                            1, &pending);
        TAP_OK(err == PROTO_OK && client.phase == RECEIVER_CLIENT_DONE &&
                   pending == 0,
               "session %s: client side accepts the server stream (%s): %s",
               name, feeds[f].how, proto_error_name(err));
      }
    }
    /* The client's result: what it sent is what the server received. */
    TAP_OK(server.frames_received == want.frames_sent &&
               server.bytes_received == want.bytes_sent &&
               client.frames_received == want.frames_received &&
               client.bytes_received == want.bytes_received &&
               want.bytes_sent == clen && want.bytes_received == slen,
           "session %s: result counts match the decoded streams", name);
    proto_totals_expected(&w, &totals);
    TAP_OK(totals.frames_sent == want.frames_sent &&
               totals.frames_received == want.frames_received &&
               totals.bytes_sent == want.bytes_sent &&
               totals.bytes_received == want.bytes_received,
           "session %s: proto_totals_expected matches the result", name);
    /* The stream cut anywhere inside is a rejection at end of stream. */
    {
      size_t cut;
      int ok = 1;
      for (cut = 0; cut < clen && ok; cut++) {
        memset(&server, 0, sizeof(server));
        server.phase = RECEIVER_SERVER_HELLO;
        err = receiver_feed(&server, cbytes, cut, NULL, 0, 1, NULL);
        ok = err == PROTO_E_TRUNCATED || err == PROTO_E_UNEXPECTED_EOF;
      }
      TAP_OK(ok, "session %s: every cut of the client stream is rejected",
             name);
    }
    free(cbytes);
    free(sbytes);
  }
  json_object_put(doc);
}

int main(void)
{
  test_sessions();
  return tap_done();
}
