/* Tests of the C codec (protocol/codec.c) against every frame of the
 * shared vectors (protocol/vectors/frames.json): each encodes byte for
 * byte, and peeks and decodes back to its fields. */
#include "protocol/codec.h"
#include "tests/lib_vectors.h"
#include "tests/tap.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *frame_check_one(json_object *c)
{
  uint32_t type, version, flags, payload_length;
  uint64_t seq;
  uint8_t *payload = NULL, *frame = NULL, *out = NULL;
  size_t plen, flen;
  const char *why = NULL;
  struct proto_header h;
  long peeked;

  if (vectors_u32(c, "type", &type) || vectors_u32(c, "version", &version) ||
      vectors_u32(c, "flags", &flags) ||
      vectors_u32(c, "payload_length", &payload_length) ||
      vectors_u64(c, "sequence", &seq) ||
      vectors_hex(c, "payload", &payload, &plen)) {
    free(payload);
    return "malformed case";
  }
  if (vectors_hex(c, "frame", &frame, &flen)) {
    free(payload);
    return "malformed frame";
  }
  out = malloc(PROTO_MAX_FRAME_BYTES);
  if (!out)
    abort();

  if (plen != payload_length || flen != PROTO_HEADER_BYTES + plen) {
    why = "lengths disagree";
    goto done;
  }
  if (proto_frame_encode(out, (uint8_t)type, seq, payload, payload_length) !=
          flen ||
      memcmp(out, frame, flen)) {
    why = "proto_frame_encode differs";
    goto done;
  }
  h.version = (uint8_t)version;
  h.type = (uint8_t)type;
  h.flags = (uint16_t)flags;
  h.payload_length = payload_length;
  h.sequence = seq;
  proto_header_encode(out, &h);
  if (memcmp(out, frame, PROTO_HEADER_BYTES)) {
    why = "proto_header_encode differs";
    goto done;
  }
  /* Decoding: the whole frame is one frame; anything shorter needs more. */
  memset(&h, 0, sizeof(h));
  peeked = proto_frame_peek(frame, flen, &h);
  if (peeked != (long)flen) {
    why = "proto_frame_peek does not see one whole frame";
    goto done;
  }
  if (h.version != version || h.type != type || h.flags != flags ||
      h.payload_length != payload_length || h.sequence != seq) {
    why = "proto_frame_peek decodes other header fields";
    goto done;
  }
  if (proto_frame_peek(frame, flen - 1, &h) != 0 ||
      proto_frame_peek(frame, PROTO_HEADER_BYTES - 1, &h) != 0) {
    why = "proto_frame_peek accepts a partial frame";
    goto done;
  }

  switch (type) {
  case PROTO_HELLO:
  case PROTO_HELLO_ACK: {
    struct proto_workload w, decoded;
    if (vectors_workload(c, "workload", &w)) {
      why = "malformed workload";
      break;
    }
    proto_workload_encode(out, &w);
    if (memcmp(out, payload, PROTO_WORKLOAD_BYTES)) {
      why = "proto_workload_encode differs";
      break;
    }
    proto_workload_decode(payload, &decoded);
    if (decoded.warmup != w.warmup || decoded.round_trips != w.round_trips ||
        decoded.payload_bytes != w.payload_bytes ||
        decoded.max_in_flight != w.max_in_flight)
      why = "proto_workload_decode differs";
    else if (proto_workload_check(&w) != PROTO_OK)
      why = "proto_workload_check rejects the workload";
    break;
  }
  case PROTO_REQUEST:
    proto_payload_fill(out, payload_length, seq);
    if (memcmp(out, payload, payload_length))
      why = "proto_payload_fill differs";
    else if (proto_payload_check(payload, payload_length, seq))
      why = "proto_payload_check rejects the payload";
    break;
  case PROTO_RESPONSE:
    if (proto_response_check(payload, payload_length, seq))
      why = "proto_response_check rejects the payload";
    break;
  case PROTO_BYE:
  case PROTO_BYE_ACK: {
    struct proto_counts cnt, decoded;
    if (vectors_counts(c, "counts", &cnt)) {
      why = "malformed counts";
      break;
    }
    proto_counts_encode(out, &cnt);
    if (memcmp(out, payload, PROTO_COUNTS_BYTES)) {
      why = "proto_counts_encode differs";
      break;
    }
    proto_counts_decode(payload, &decoded);
    if (!vectors_counts_equal(&cnt, &decoded)) {
      why = "proto_counts_decode differs";
      break;
    }
    /* Counts that close a session of `session`, modulo 2^64. */
    if (vectors_field(c, "session")) {
      struct proto_workload sw;
      struct proto_counts want;
      if (vectors_workload(c, "session", &sw)) {
        why = "malformed session";
        break;
      }
      proto_counts_expected(&sw, type == PROTO_BYE_ACK, &want);
      if (!vectors_counts_equal(&cnt, &want))
        why = "proto_counts_expected differs from the session's counts";
    }
    break;
  }
  case PROTO_ERROR: {
    uint32_t code;
    const char *reason = vectors_str(c, "reason");
    char text[PROTO_MAX_REASON_BYTES + 1];
    uint16_t got;
    if (vectors_u32(c, "code", &code) || !reason) {
      why = "malformed error fields";
      break;
    }
    if (proto_error_encode(out, (uint16_t)code, reason) != flen ||
        memcmp(out, frame, flen)) {
      why = "proto_error_encode differs";
      break;
    }
    if (proto_error_decode(payload, payload_length, &got, text, sizeof(text)) !=
            PROTO_OK ||
        got != code || strcmp(text, reason))
      why = "proto_error_decode differs";
    break;
  }
  default:
    why = "unknown type in a frames case";
  }
done:
  free(out);
  free(payload);
  free(frame);
  return why;
}

static void test_frames(void)
{
  json_object *doc = vectors_load("frames.json");
  json_object *cases;
  size_t i, n;
  int seen[8] = {0};

  if (!TAP_NONNULL(doc, "frames.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    const char *why = frame_check_one(c);
    uint32_t type = 0;
    if (!vectors_u32(c, "type", &type) && type < 8)
      seen[type] = 1;
    TAP_OK(!why, "frame %s%s%s", vectors_case_name(c), why ? ": " : "",
           why ? why : "");
  }
  TAP_OK(seen[1] && seen[2] && seen[3] && seen[4] && seen[5] && seen[6] &&
             seen[7],
         "frames.json has a frame of every type");
  json_object_put(doc);
}

int main(void)
{
  test_frames();
  return tap_done();
}
