/* Tests of the C codec (protocol/codec.c): the payloads of the shared
 * vectors in protocol/vectors/payloads.json, and the codec's own edges
 * (error names, workload rules, partial frames, ERROR frames, counts).
 * The frames, sessions and invalid inputs are test_codec_frames.c's,
 * test_codec_sessions.c's and test_codec_invalid.c's. The vectors are
 * found under $CROSSRUN_ROOT (default "."). */
#include "protocol/codec.h"
#include "tests/lib_vectors.h"
#include "tests/tap.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ payloads */

static void test_payloads(void)
{
  json_object *doc = vectors_load("payloads.json");
  json_object *cases;
  size_t i, n;

  if (!TAP_NONNULL(doc, "payloads.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  TAP_OK(n >= 100, "payloads.json has %zu cases", n);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    uint64_t seq = 0;
    uint32_t length = 0;
    uint8_t *payload = NULL, *response = NULL, *buf = NULL;
    size_t plen = 0, rlen = 0, b;
    const char *why = NULL;

    if (vectors_u64(c, "sequence", &seq) || vectors_u32(c, "length", &length) ||
        vectors_hex(c, "payload", &payload, &plen) ||
        vectors_hex(c, "response", &response, &rlen)) {
      TAP_OK(0, "payloads case %zu: malformed", i);
      free(payload);
      continue;
    }
    /* +3: the fill is also checked at an odd, unaligned address. */
    buf = malloc((size_t)length + 4);
    if (!buf)
      abort();
    if (plen != length || rlen != length)
      why = "hex length differs from length";
    if (!why) {
      proto_payload_fill(buf, length, seq);
      if (memcmp(buf, payload, length))
        why = "proto_payload_fill differs";
    }
    if (!why) {
      proto_payload_fill(buf + 3, length, seq);
      if (memcmp(buf + 3, payload, length))
        why = "proto_payload_fill at an unaligned address differs";
    }
    if (!why && proto_payload_check(payload, length, seq) != PROTO_OK)
      why = "proto_payload_check rejects the payload";
    if (!why && proto_response_check(response, length, seq) != PROTO_OK)
      why = "proto_response_check rejects the response";
    if (!why) {
      proto_response_fill(buf, payload, length);
      if (memcmp(buf, response, length))
        why = "proto_response_fill differs";
    }
    if (!why) {
      memcpy(buf, payload, length);
      proto_response_fill(buf, buf, length);
      if (memcmp(buf, response, length))
        why = "proto_response_fill in place differs";
    }
    if (!why && length > 0 &&
        (proto_payload_check(response, length, seq) != PROTO_E_WRONG_PAYLOAD ||
         proto_response_check(payload, length, seq) != PROTO_E_WRONG_PAYLOAD))
      why = "a response passes as a payload or the reverse";
    /* Every byte matters: one flipped bit anywhere is a rejection. */
    for (b = 0; !why && b < length; b++) {
      payload[b] ^= (uint8_t)(1u << (b % 8));
      response[b] ^= 0x80;
      if (proto_payload_check(payload, length, seq) != PROTO_E_WRONG_PAYLOAD)
        why = "proto_payload_check misses a flipped bit";
      else if (proto_response_check(response, length, seq) !=
               PROTO_E_WRONG_PAYLOAD)
        why = "proto_response_check misses a flipped bit";
      payload[b] ^= (uint8_t)(1u << (b % 8));
      response[b] ^= 0x80;
    }
    TAP_OK(!why, "payload gen(%" PRIu64 ", %" PRIu32 ")%s%s", seq, length,
           why ? ": " : "", why ? why : "");
    free(buf);
    free(payload);
    free(response);
  }
  json_object_put(doc);
}

/* ------------------------------------------------------------ codec edges */

static void test_names_and_codes(void)
{
  static const char *names[] = {"ok",
                                "unsupported_version",
                                "unknown_type",
                                "bad_flags",
                                "frame_too_large",
                                "bad_length",
                                "truncated",
                                "unexpected_eof",
                                "unexpected_type",
                                "wrong_sequence",
                                "wrong_payload",
                                "bad_workload",
                                "count_mismatch",
                                "peer_error"};
  int e, ok = 1;

  for (e = 0; e <= 13; e++)
    if (strcmp(proto_error_name(-e), names[e]))
      ok = 0;
  TAP_OK(ok, "proto_error_name names every rejection as SPEC.md does");
  TAP_OK(!strcmp(proto_error_name(-14), "unknown") &&
             !strcmp(proto_error_name(1), "unknown"),
         "proto_error_name: unknown codes");
  TAP_OK(proto_error_code_for(PROTO_E_UNSUPPORTED_VERSION) == 1 &&
             proto_error_code_for(PROTO_E_BAD_WORKLOAD) == 2 &&
             proto_error_code_for(PROTO_E_COUNT_MISMATCH) == 4 &&
             proto_error_code_for(PROTO_E_WRONG_SEQUENCE) == 3 &&
             proto_error_code_for(PROTO_E_TRUNCATED) == 3 &&
             proto_error_code_for(PROTO_E_BAD_FLAGS) == 3,
         "proto_error_code_for maps rejections to ERROR codes");
}

static void test_workload_rules(void)
{
  static const struct {
    struct proto_workload w;
    int valid;
  } cases[] = {
      {{0, 1, 0, 1}, 1},
      {{0, 0, 0, 1}, 0},
      {{0, 1, PROTO_MAX_PAYLOAD_BYTES, PROTO_MAX_IN_FLIGHT}, 1},
      {{0, 1, PROTO_MAX_PAYLOAD_BYTES + 1, 1}, 0},
      {{0, 1, 0, 0}, 0},
      {{0, 1, 0, PROTO_MAX_IN_FLIGHT + 1}, 0},
      {{(1ull << 62) - 2, 1, 0, 1}, 1},
      {{(1ull << 62) - 1, 1, 0, 1}, 0},
      {{0, (1ull << 62) - 1, 0, 1}, 1},
      {{0, 1ull << 62, 0, 1}, 0},
      {{UINT64_MAX, 1, 0, 1}, 0},
      {{1, UINT64_MAX, 0, 1}, 0},
      {{1ull << 61, 1ull << 61, 0, 1}, 0},
  };
  size_t i;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const struct proto_workload *w = &cases[i].w;
    int err = proto_workload_check(w);
    TAP_EQ_INT(err, cases[i].valid ? PROTO_OK : PROTO_E_BAD_WORKLOAD,
               "proto_workload_check W=%" PRIu64 " N=%" PRIu64 " P=%" PRIu32
               " M=%" PRIu32 " is %s",
               w->warmup, w->round_trips, w->payload_bytes, w->max_in_flight,
               cases[i].valid ? "valid" : "bad_workload");
  }
}

static void test_peek_edges(void)
{
  uint8_t frame[PROTO_HEADER_BYTES + 8];
  uint8_t payload[8];
  struct proto_header h;
  size_t len;
  int ok = 1;

  proto_payload_fill(payload, sizeof(payload), 9);
  proto_frame_encode(frame, PROTO_REQUEST, 9, payload, sizeof(payload));
  for (len = 0; len < sizeof(frame); len++)
    if (proto_frame_peek(frame, len, &h) != 0)
      ok = 0;
  TAP_OK(ok, "proto_frame_peek needs more bytes for every prefix");
  TAP_EQ_INT(proto_frame_peek(frame, sizeof(frame), &h), sizeof(frame),
             "proto_frame_peek sees a whole frame");
  TAP_OK(proto_frame_encode(frame, PROTO_REQUEST, 1, NULL, 0) ==
                 PROTO_HEADER_BYTES &&
             proto_frame_peek(frame, PROTO_HEADER_BYTES, &h) ==
                 PROTO_HEADER_BYTES,
         "an empty REQUEST is a 16-byte frame");
  frame[1] = PROTO_REQUEST;
  frame[4] = 0x00;
  frame[5] = 0x10;
  frame[6] = 0x00;
  frame[7] = 0x00; /* payload_length 1048576: the largest allowed */
  TAP_OK(proto_frame_peek(frame, PROTO_HEADER_BYTES, &h) == 0 &&
             h.payload_length == PROTO_MAX_PAYLOAD_BYTES,
         "payload_length 1048576 is allowed");
  frame[7] = 0x01;
  TAP_EQ_INT(proto_frame_peek(frame, PROTO_HEADER_BYTES, &h),
             PROTO_E_FRAME_TOO_LARGE,
             "payload_length 1048577 is frame_too_large");
  TAP_OK(proto_eof_check(0) == PROTO_OK &&
             proto_eof_check(1) == PROTO_E_TRUNCATED &&
             proto_eof_check(PROTO_MAX_FRAME_BYTES - 1) == PROTO_E_TRUNCATED,
         "proto_eof_check");
}

static void test_error_frames(void)
{
  uint8_t out[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES];
  char reason[PROTO_MAX_REASON_BYTES + 64];
  char text[PROTO_MAX_REASON_BYTES + 1];
  char small[5];
  uint16_t code = 0;
  struct proto_header h;
  size_t n;

  n = proto_error_encode(out, 3, NULL);
  TAP_OK(n == 18 && proto_frame_peek(out, n, &h) == 18 &&
             h.type == PROTO_ERROR && h.sequence == 0,
         "ERROR with no reason is 18 bytes");
  memset(reason, 'x', sizeof(reason) - 1);
  reason[sizeof(reason) - 1] = '\0';
  n = proto_error_encode(out, 3, reason);
  TAP_OK(n == sizeof(out) && proto_frame_peek(out, n, &h) == (long)n,
         "ERROR reason is cut at 512 bytes");
  /* A 2-byte UTF-8 character straddling byte 512 is dropped whole. */
  memset(reason, 'x', 511);
  strcpy(reason + 511, "\xc3\xa9 and more");
  n = proto_error_encode(out, 3, reason);
  TAP_EQ_UINT(n, PROTO_HEADER_BYTES + 2 + 511,
              "ERROR reason is not cut inside a UTF-8 character");
  TAP_OK(proto_error_decode(out + PROTO_HEADER_BYTES, n - PROTO_HEADER_BYTES,
                            &code, text, sizeof(text)) == PROTO_OK &&
             code == 3 && strlen(text) == 511,
         "proto_error_decode reads a long reason");
  TAP_OK(proto_error_decode(out + PROTO_HEADER_BYTES, n - PROTO_HEADER_BYTES,
                            &code, small, sizeof(small)) == PROTO_OK &&
             !strcmp(small, "xxxx"),
         "proto_error_decode cuts the reason to its buffer");
  TAP_OK(proto_error_decode(out + PROTO_HEADER_BYTES, 1, &code, small,
                            sizeof(small)) == PROTO_E_BAD_LENGTH,
         "proto_error_decode: 1 byte is bad_length");
}

static void test_counts_and_totals(void)
{
  struct proto_workload w = {2, 3, 5, 2};
  struct proto_counts c;
  struct proto_totals t;

  proto_counts_expected(&w, 0, &c);
  TAP_OK(c.requests == 5 && c.responses == 5 && c.bytes_sent == 145 &&
             c.bytes_received == 145,
         "BYE counts for W=2 N=3 P=5");
  proto_counts_expected(&w, 1, &c);
  TAP_OK(c.requests == 5 && c.responses == 5 && c.bytes_sent == 145 &&
             c.bytes_received == 193,
         "BYE_ACK counts for W=2 N=3 P=5");
  proto_totals_expected(&w, &t);
  TAP_OK(t.frames_sent == 7 && t.frames_received == 7 && t.bytes_sent == 193 &&
             t.bytes_received == 193,
         "totals for W=2 N=3 P=5");
}

static void test_large_payload(void)
{
  size_t len = PROTO_MAX_PAYLOAD_BYTES;
  uint8_t *p = malloc(len);
  uint64_t seq = (1ull << 62) - 1;
  int ok;

  if (!p)
    abort();
  proto_payload_fill(p, len, seq);
  ok = proto_payload_check(p, len, seq) == PROTO_OK &&
       proto_payload_check(p, len, seq + 1) == PROTO_E_WRONG_PAYLOAD;
  p[len - 1] ^= 0x10;
  ok = ok && proto_payload_check(p, len, seq) == PROTO_E_WRONG_PAYLOAD;
  p[len - 1] ^= 0x10;
  proto_response_fill(p, p, len);
  ok = ok && proto_response_check(p, len, seq) == PROTO_OK;
  p[len / 2] ^= 0x01;
  ok = ok && proto_response_check(p, len, seq) == PROTO_E_WRONG_PAYLOAD;
  TAP_OK(ok, "1 MiB payload and response round-trip through the checks");
  free(p);
}

int main(void)
{
  test_payloads();
  test_names_and_codes();
  test_workload_rules();
  test_peek_edges();
  test_error_frames();
  test_counts_and_totals();
  test_large_payload();
  return tap_done();
}
