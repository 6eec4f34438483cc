/* The codec's receiving side (protocol/codec.c) on bytes from a peer: the
 * input is read as a stream of frames, each peeked, and its payload
 * decoded and checked the way a receiver does for its type.
 *
 * Properties: a frame the peek accepts lies within the bytes given and is
 * 16 bytes plus its payload_length; its header encodes back to the same 16
 * bytes; a decoded ERROR reason ends within its buffer; workloads and
 * counts encode back to the payload they were decoded from. */
#include <string.h>

#include "protocol/codec.h"
#include "tests/fuzz/fuzz.h"

static void check_payload(const struct proto_header *h, const uint8_t *p)
{
  uint8_t again[PROTO_COUNTS_BYTES];
  size_t len = h->payload_length;

  switch (h->type) {
  case PROTO_HELLO:
  case PROTO_HELLO_ACK: {
    struct proto_workload w;
    FUZZ_CHECK(len == PROTO_WORKLOAD_BYTES, "a HELLO of the wrong size");
    proto_workload_decode(p, &w);
    (void)proto_workload_check(&w);
    proto_workload_encode(again, &w);
    FUZZ_CHECK(memcmp(again, p, len) == 0, "a workload does not round-trip");
    break;
  }
  case PROTO_BYE:
  case PROTO_BYE_ACK: {
    struct proto_counts c;
    FUZZ_CHECK(len == PROTO_COUNTS_BYTES, "a BYE of the wrong size");
    proto_counts_decode(p, &c);
    proto_counts_encode(again, &c);
    FUZZ_CHECK(memcmp(again, p, len) == 0, "counts do not round-trip");
    break;
  }
  case PROTO_REQUEST:
    (void)proto_payload_check(p, len, h->sequence);
    break;
  case PROTO_RESPONSE:
    (void)proto_response_check(p, len, h->sequence);
    break;
  case PROTO_ERROR: {
    static const size_t sizes[] = {1, 2, 17, PROTO_MAX_REASON_BYTES + 1};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      char reason[PROTO_MAX_REASON_BYTES + 1];
      uint16_t code;
      memset(reason, 'x', sizeof(reason));
      if (proto_error_decode(p, len, &code, reason, sizes[i]) == 0) {
        FUZZ_CHECK(memchr(reason, '\0', sizes[i]) != NULL,
                   "an ERROR reason is not ended within its buffer");
        (void)proto_error_code_for(PROTO_E_PEER_ERROR);
      } else {
        FUZZ_CHECK(len < 2, "an ERROR payload refused though it has a code");
      }
    }
    break;
  }
  default:
    FUZZ_CHECK(0, "peek accepted an unknown type");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t off = 0;

  for (;;) {
    struct proto_header h;
    uint8_t again[PROTO_HEADER_BYTES];
    long n = proto_frame_peek(data + off, size - off, &h);

    if (n < 0) {
      FUZZ_CHECK(strcmp(proto_error_name((int)n), "unknown") != 0,
                 "a rejection without a name");
      (void)proto_error_code_for((int)n);
      break;
    }
    if (n == 0) {
      FUZZ_CHECK((proto_eof_check(size - off) == 0) == (off == size),
                 "an end of stream judged wrongly");
      break;
    }
    FUZZ_CHECK((size_t)n <= size - off, "a frame beyond the bytes given");
    FUZZ_CHECK((size_t)n == PROTO_HEADER_BYTES + (size_t)h.payload_length,
               "a frame size that is not 16 + payload_length");
    FUZZ_CHECK(h.payload_length <= PROTO_MAX_PAYLOAD_BYTES,
               "a payload over the limit accepted");
    proto_header_encode(again, &h);
    FUZZ_CHECK(memcmp(again, data + off, PROTO_HEADER_BYTES) == 0,
               "a header does not round-trip");
    check_payload(&h, data + off + PROTO_HEADER_BYTES);
    off += (size_t)n;
  }
  return 0;
}
