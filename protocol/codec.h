/* The C codec of the crossrun wire protocol (protocol/SPEC.md): frame
 * encoding and decoding, the payload generator, and the checks every
 * receiver makes. Pure functions on caller-owned buffers: no allocation,
 * no I/O, so the lanes, the fixtures and the runner's tests share it. */
#ifndef CROSSRUN_PROTOCOL_CODEC_H
#define CROSSRUN_PROTOCOL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION 1
#define PROTO_HEADER_BYTES 16
#define PROTO_MAX_PAYLOAD_BYTES 1048576u
#define PROTO_MAX_FRAME_BYTES (PROTO_HEADER_BYTES + PROTO_MAX_PAYLOAD_BYTES)
#define PROTO_MAX_IN_FLIGHT 65536u
#define PROTO_WORKLOAD_BYTES 24
#define PROTO_COUNTS_BYTES 32
#define PROTO_MAX_REASON_BYTES 512
#define PROTO_RESPONSE_MASK 0x5A

enum proto_type {
  PROTO_HELLO = 1,
  PROTO_HELLO_ACK = 2,
  PROTO_REQUEST = 3,
  PROTO_RESPONSE = 4,
  PROTO_BYE = 5,
  PROTO_BYE_ACK = 6,
  PROTO_ERROR = 7
};

/* Rejections of SPEC.md section 6, as negative codes. proto_error_name()
 * gives the spec's name for each ("wrong_sequence", ...). */
enum proto_error {
  PROTO_OK = 0,
  PROTO_E_UNSUPPORTED_VERSION = -1,
  PROTO_E_UNKNOWN_TYPE = -2,
  PROTO_E_BAD_FLAGS = -3,
  PROTO_E_FRAME_TOO_LARGE = -4,
  PROTO_E_BAD_LENGTH = -5,
  PROTO_E_TRUNCATED = -6,
  PROTO_E_UNEXPECTED_EOF = -7,
  PROTO_E_UNEXPECTED_TYPE = -8,
  PROTO_E_WRONG_SEQUENCE = -9,
  PROTO_E_WRONG_PAYLOAD = -10,
  PROTO_E_BAD_WORKLOAD = -11,
  PROTO_E_COUNT_MISMATCH = -12,
  PROTO_E_PEER_ERROR = -13
};

/* ERROR frame codes (SPEC.md section 2). */
enum proto_error_code {
  PROTO_CODE_UNSUPPORTED_VERSION = 1,
  PROTO_CODE_BAD_WORKLOAD = 2,
  PROTO_CODE_PROTOCOL_VIOLATION = 3,
  PROTO_CODE_COUNT_MISMATCH = 4
};

struct proto_header {
  uint8_t version;
  uint8_t type;
  uint16_t flags;
  uint32_t payload_length;
  uint64_t sequence;
};

struct proto_workload {
  uint64_t warmup;
  uint64_t round_trips;
  uint32_t payload_bytes;
  uint32_t max_in_flight;
};

struct proto_counts {
  uint64_t requests;
  uint64_t responses;
  uint64_t bytes_sent;
  uint64_t bytes_received;
};

/* What a client must report for a workload (SPEC.md section 2): whole
 * session figures, HELLO and BYE included. */
struct proto_totals {
  uint64_t frames_sent;
  uint64_t frames_received;
  uint64_t bytes_sent;
  uint64_t bytes_received;
};

/* The spec's name of a rejection ("truncated", ...); "ok" for 0 and
 * "unknown" for anything else. Static storage. */
const char *proto_error_name(int err);

/* Maps a rejection to the ERROR frame code that reports it. */
uint16_t proto_error_code_for(int err);

/* Writes the 16 header bytes of h into out. */
void proto_header_encode(uint8_t *out, const struct proto_header *h);

/* Looks at the start of buf. Returns the whole frame's size in bytes when
 * the complete frame is in buf, 0 when more bytes are needed, or a negative
 * proto_error as soon as the 16 header bytes show a rejection (version,
 * type, flags, frame_too_large, bad_length for fixed-length types). Fills
 * *h whenever the header is complete and valid. */
long proto_frame_peek(const uint8_t *buf, size_t len, struct proto_header *h);

/* What end of stream means with `pending` unparsed bytes left: 0 (clean),
 * or PROTO_E_TRUNCATED. Whether a clean end is allowed at that point of
 * the session is the caller's decision (PROTO_E_UNEXPECTED_EOF). */
int proto_eof_check(size_t pending);

/* Encodes a whole frame into out, which must hold 16 + payload_length
 * bytes. Returns the frame size. payload may be NULL when length is 0. */
size_t proto_frame_encode(uint8_t *out, uint8_t type, uint64_t sequence,
                          const uint8_t *payload, uint32_t payload_length);

/* Fills out with gen(sequence, len) (SPEC.md section 4). */
void proto_payload_fill(uint8_t *out, size_t len, uint64_t sequence);

/* 0 when p equals gen(sequence, len), else PROTO_E_WRONG_PAYLOAD. */
int proto_payload_check(const uint8_t *p, size_t len, uint64_t sequence);

/* out = respond(request): every byte XOR 0x5A. out may equal request. */
void proto_response_fill(uint8_t *out, const uint8_t *request, size_t len);

/* 0 when p equals respond(gen(sequence, len)), else PROTO_E_WRONG_PAYLOAD. */
int proto_response_check(const uint8_t *p, size_t len, uint64_t sequence);

/* The 24-byte workload payload. */
void proto_workload_encode(uint8_t *out, const struct proto_workload *w);
void proto_workload_decode(const uint8_t *in, struct proto_workload *w);

/* 0 when w follows SPEC.md's rules, else PROTO_E_BAD_WORKLOAD. */
int proto_workload_check(const struct proto_workload *w);

/* The 32-byte counts payload. */
void proto_counts_encode(uint8_t *out, const struct proto_counts *c);
void proto_counts_decode(const uint8_t *in, struct proto_counts *c);

/* The counts BYE (is_ack 0) or BYE_ACK (is_ack 1) must carry. */
void proto_counts_expected(const struct proto_workload *w, int is_ack,
                           struct proto_counts *c);

/* What a client's result must say for workload w. */
void proto_totals_expected(const struct proto_workload *w,
                           struct proto_totals *t);

/* Encodes an ERROR frame with code and reason (cut at 512 bytes) into out,
 * which must hold 16 + 2 + 512 bytes. Returns the frame size. */
size_t proto_error_encode(uint8_t *out, uint16_t code, const char *reason);

/* Decodes an ERROR payload: *code, and the reason copied into reason
 * (NUL-terminated, cut to fit reason_size). Returns 0, or
 * PROTO_E_BAD_LENGTH when len < 2. */
int proto_error_decode(const uint8_t *payload, size_t len, uint16_t *code,
                       char *reason, size_t reason_size);

#endif
