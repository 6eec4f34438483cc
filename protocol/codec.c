/* The C codec of the crossrun wire protocol: see codec.h and SPEC.md. */
#include "protocol/codec.h"

#include <string.h>

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ull
#define RESPONSE_MASK64 0x5A5A5A5A5A5A5A5Aull
#define WORKLOAD_SUM_LIMIT (1ull << 62)
#define HELLO_FRAME_BYTES (PROTO_HEADER_BYTES + PROTO_WORKLOAD_BYTES)
#define BYE_FRAME_BYTES (PROTO_HEADER_BYTES + PROTO_COUNTS_BYTES)

/* Byte-at-a-time loads and stores: GCC and Clang turn these patterns into
 * single (byte-swapped where needed) moves, so there is no endianness
 * #ifdef and no unaligned access. */
static inline void store_be16(uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static inline void store_be64(uint8_t *p, uint64_t v)
{
  store_be32(p, (uint32_t)(v >> 32));
  store_be32(p + 4, (uint32_t)v);
}

static inline uint16_t load_be16(const uint8_t *p)
{
  return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t load_be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

static inline uint64_t load_be64(const uint8_t *p)
{
  return (uint64_t)load_be32(p) << 32 | load_be32(p + 4);
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
  p[4] = (uint8_t)(v >> 32);
  p[5] = (uint8_t)(v >> 40);
  p[6] = (uint8_t)(v >> 48);
  p[7] = (uint8_t)(v >> 56);
}

static inline uint64_t load_le64(const uint8_t *p)
{
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
         (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
         (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* One splitmix64 output for the block whose pre-increment state is
 * `state`. Each block depends only on seed + k * gamma, so the loops below
 * compute blocks independently and the CPU overlaps their multiplies. */
static inline uint64_t splitmix_block(uint64_t state)
{
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

const char *proto_error_name(int err)
{
  switch (err) {
  case PROTO_OK:
    return "ok";
  case PROTO_E_UNSUPPORTED_VERSION:
    return "unsupported_version";
  case PROTO_E_UNKNOWN_TYPE:
    return "unknown_type";
  case PROTO_E_BAD_FLAGS:
    return "bad_flags";
  case PROTO_E_FRAME_TOO_LARGE:
    return "frame_too_large";
  case PROTO_E_BAD_LENGTH:
    return "bad_length";
  case PROTO_E_TRUNCATED:
    return "truncated";
  case PROTO_E_UNEXPECTED_EOF:
    return "unexpected_eof";
  case PROTO_E_UNEXPECTED_TYPE:
    return "unexpected_type";
  case PROTO_E_WRONG_SEQUENCE:
    return "wrong_sequence";
  case PROTO_E_WRONG_PAYLOAD:
    return "wrong_payload";
  case PROTO_E_BAD_WORKLOAD:
    return "bad_workload";
  case PROTO_E_COUNT_MISMATCH:
    return "count_mismatch";
  case PROTO_E_PEER_ERROR:
    return "peer_error";
  default:
    return "unknown";
  }
}

uint16_t proto_error_code_for(int err)
{
  switch (err) {
  case PROTO_E_UNSUPPORTED_VERSION:
    return PROTO_CODE_UNSUPPORTED_VERSION;
  case PROTO_E_BAD_WORKLOAD:
    return PROTO_CODE_BAD_WORKLOAD;
  case PROTO_E_COUNT_MISMATCH:
    return PROTO_CODE_COUNT_MISMATCH;
  default:
    return PROTO_CODE_PROTOCOL_VIOLATION;
  }
}

void proto_header_encode(uint8_t *out, const struct proto_header *h)
{
  out[0] = h->version;
  out[1] = h->type;
  store_be16(out + 2, h->flags);
  store_be32(out + 4, h->payload_length);
  store_be64(out + 8, h->sequence);
}

/* The header checks of SPEC.md section 1, in the order listed there, so a
 * header with several faults always gets the same rejection. */
static int header_check(const struct proto_header *h)
{
  if (h->version != PROTO_VERSION)
    return PROTO_E_UNSUPPORTED_VERSION;
  if (h->type < PROTO_HELLO || h->type > PROTO_ERROR)
    return PROTO_E_UNKNOWN_TYPE;
  if (h->flags != 0)
    return PROTO_E_BAD_FLAGS;
  if (h->payload_length > PROTO_MAX_PAYLOAD_BYTES)
    return PROTO_E_FRAME_TOO_LARGE;
  switch (h->type) {
  case PROTO_HELLO:
  case PROTO_HELLO_ACK:
    if (h->payload_length != PROTO_WORKLOAD_BYTES)
      return PROTO_E_BAD_LENGTH;
    break;
  case PROTO_BYE:
  case PROTO_BYE_ACK:
    if (h->payload_length != PROTO_COUNTS_BYTES)
      return PROTO_E_BAD_LENGTH;
    break;
  case PROTO_ERROR:
    /* Not a fixed length, but its bounds (2..514) are known from the header
     * alone, so it is rejected as early as the fixed-length types. */
    if (h->payload_length < 2 || h->payload_length > 2 + PROTO_MAX_REASON_BYTES)
      return PROTO_E_BAD_LENGTH;
    break;
  default:
    break;
  }
  return PROTO_OK;
}

long proto_frame_peek(const uint8_t *buf, size_t len, struct proto_header *h)
{
  struct proto_header seen;
  int err;

  if (len < PROTO_HEADER_BYTES)
    return 0;
  seen.version = buf[0];
  seen.type = buf[1];
  seen.flags = load_be16(buf + 2);
  seen.payload_length = load_be32(buf + 4);
  seen.sequence = load_be64(buf + 8);
  /* *h is filled even for a rejected header, so callers can say what they
   * saw in their error line. */
  *h = seen;
  err = header_check(&seen);
  if (err)
    return err;
  if (len - PROTO_HEADER_BYTES < seen.payload_length)
    return 0;
  return (long)(PROTO_HEADER_BYTES + seen.payload_length);
}

int proto_eof_check(size_t pending)
{
  return pending == 0 ? PROTO_OK : PROTO_E_TRUNCATED;
}

size_t proto_frame_encode(uint8_t *out, uint8_t type, uint64_t sequence,
                          const uint8_t *payload, uint32_t payload_length)
{
  struct proto_header h = {PROTO_VERSION, type, 0, payload_length, sequence};

  proto_header_encode(out, &h);
  if (payload_length)
    memmove(out + PROTO_HEADER_BYTES, payload, payload_length);
  return PROTO_HEADER_BYTES + (size_t)payload_length;
}

void proto_payload_fill(uint8_t *out, size_t len, uint64_t sequence)
{
  uint64_t state = sequence;
  size_t i = 0;

  for (; len - i >= 8; i += 8) {
    state += SPLITMIX_GAMMA;
    store_le64(out + i, splitmix_block(state));
  }
  if (i < len) {
    uint64_t z = splitmix_block(state + SPLITMIX_GAMMA);
    for (; i < len; i++, z >>= 8)
      out[i] = (uint8_t)z;
  }
}

/* Compares p with gen(sequence, len) XOR mask64 without building the
 * expected bytes. The differences of four blocks are ORed before one
 * branch, so the loop body has no data-dependent branch per block. */
static int stream_check(const uint8_t *p, size_t len, uint64_t sequence,
                        uint64_t mask64)
{
  uint64_t state = sequence;
  size_t i = 0;

  for (; len - i >= 32; i += 32) {
    uint64_t d;
    d = load_le64(p + i) ^ mask64 ^ splitmix_block(state + SPLITMIX_GAMMA);
    d |= load_le64(p + i + 8) ^ mask64 ^
         splitmix_block(state + 2 * SPLITMIX_GAMMA);
    d |= load_le64(p + i + 16) ^ mask64 ^
         splitmix_block(state + 3 * SPLITMIX_GAMMA);
    d |= load_le64(p + i + 24) ^ mask64 ^
         splitmix_block(state + 4 * SPLITMIX_GAMMA);
    state += 4 * SPLITMIX_GAMMA;
    if (d)
      return PROTO_E_WRONG_PAYLOAD;
  }
  for (; len - i >= 8; i += 8) {
    state += SPLITMIX_GAMMA;
    if ((load_le64(p + i) ^ mask64) != splitmix_block(state))
      return PROTO_E_WRONG_PAYLOAD;
  }
  if (i < len) {
    uint64_t z = splitmix_block(state + SPLITMIX_GAMMA) ^ mask64;
    for (; i < len; i++, z >>= 8)
      if (p[i] != (uint8_t)z)
        return PROTO_E_WRONG_PAYLOAD;
  }
  return PROTO_OK;
}

int proto_payload_check(const uint8_t *p, size_t len, uint64_t sequence)
{
  return stream_check(p, len, sequence, 0);
}

void proto_response_fill(uint8_t *out, const uint8_t *request, size_t len)
{
  size_t i = 0;

  /* memcpy through a register keeps out == request well defined. */
  for (; len - i >= 8; i += 8) {
    uint64_t v;
    memcpy(&v, request + i, 8);
    v ^= RESPONSE_MASK64;
    memcpy(out + i, &v, 8);
  }
  for (; i < len; i++)
    out[i] = request[i] ^ PROTO_RESPONSE_MASK;
}

int proto_response_check(const uint8_t *p, size_t len, uint64_t sequence)
{
  return stream_check(p, len, sequence, RESPONSE_MASK64);
}

void proto_workload_encode(uint8_t *out, const struct proto_workload *w)
{
  store_be64(out, w->warmup);
  store_be64(out + 8, w->round_trips);
  store_be32(out + 16, w->payload_bytes);
  store_be32(out + 20, w->max_in_flight);
}

void proto_workload_decode(const uint8_t *in, struct proto_workload *w)
{
  w->warmup = load_be64(in);
  w->round_trips = load_be64(in + 8);
  w->payload_bytes = load_be32(in + 16);
  w->max_in_flight = load_be32(in + 20);
}

int proto_workload_check(const struct proto_workload *w)
{
  if (w->round_trips < 1)
    return PROTO_E_BAD_WORKLOAD;
  if (w->payload_bytes > PROTO_MAX_PAYLOAD_BYTES)
    return PROTO_E_BAD_WORKLOAD;
  if (w->max_in_flight < 1 || w->max_in_flight > PROTO_MAX_IN_FLIGHT)
    return PROTO_E_BAD_WORKLOAD;
  /* Written so that W + N cannot wrap before it is compared. */
  if (w->warmup >= WORKLOAD_SUM_LIMIT ||
      w->round_trips >= WORKLOAD_SUM_LIMIT - w->warmup)
    return PROTO_E_BAD_WORKLOAD;
  return PROTO_OK;
}

void proto_counts_encode(uint8_t *out, const struct proto_counts *c)
{
  store_be64(out, c->requests);
  store_be64(out + 8, c->responses);
  store_be64(out + 16, c->bytes_sent);
  store_be64(out + 24, c->bytes_received);
}

void proto_counts_decode(const uint8_t *in, struct proto_counts *c)
{
  c->requests = load_be64(in);
  c->responses = load_be64(in + 8);
  c->bytes_sent = load_be64(in + 16);
  c->bytes_received = load_be64(in + 24);
}

/* Byte figures are modulo 2^64 like every counter on the wire: a workload
 * within the rules can still have (W + N) * F above 2^64. */
void proto_counts_expected(const struct proto_workload *w, int is_ack,
                           struct proto_counts *c)
{
  uint64_t round_trips = w->warmup + w->round_trips;
  uint64_t frame = PROTO_HEADER_BYTES + (uint64_t)w->payload_bytes;
  uint64_t traffic = HELLO_FRAME_BYTES + round_trips * frame;

  c->requests = round_trips;
  c->responses = round_trips;
  c->bytes_sent = traffic;
  c->bytes_received = traffic + (is_ack ? BYE_FRAME_BYTES : 0);
}

void proto_totals_expected(const struct proto_workload *w,
                           struct proto_totals *t)
{
  uint64_t round_trips = w->warmup + w->round_trips;
  uint64_t frame = PROTO_HEADER_BYTES + (uint64_t)w->payload_bytes;
  uint64_t bytes = HELLO_FRAME_BYTES + round_trips * frame + BYE_FRAME_BYTES;

  t->frames_sent = round_trips + 2;
  t->frames_received = round_trips + 2;
  t->bytes_sent = bytes;
  t->bytes_received = bytes;
}

/* Length of reason cut to at most max bytes without splitting a UTF-8
 * sequence, so a cut reason stays valid UTF-8 as SPEC.md asks. */
static size_t utf8_cut(const char *reason, size_t max)
{
  size_t len = strnlen(reason, max + 1);

  if (len <= max)
    return len;
  len = max;
  /* Back off over continuation bytes (10xxxxxx) to a sequence start,
   * then drop that start: the sequence it begins did not fit. */
  while (len > 0 && ((uint8_t)reason[len] & 0xC0) == 0x80)
    len--;
  return len;
}

size_t proto_error_encode(uint8_t *out, uint16_t code, const char *reason)
{
  size_t reason_len = reason ? utf8_cut(reason, PROTO_MAX_REASON_BYTES) : 0;
  struct proto_header h = {PROTO_VERSION, PROTO_ERROR, 0,
                           (uint32_t)(2 + reason_len), 0};

  proto_header_encode(out, &h);
  store_be16(out + PROTO_HEADER_BYTES, code);
  if (reason_len)
    memcpy(out + PROTO_HEADER_BYTES + 2, reason, reason_len);
  return PROTO_HEADER_BYTES + 2 + reason_len;
}

int proto_error_decode(const uint8_t *payload, size_t len, uint16_t *code,
                       char *reason, size_t reason_size)
{
  size_t copy;

  if (len < 2 || len > 2 + PROTO_MAX_REASON_BYTES)
    return PROTO_E_BAD_LENGTH;
  *code = load_be16(payload);
  if (reason && reason_size > 0) {
    copy = len - 2;
    if (copy > reason_size - 1)
      copy = reason_size - 1;
    memcpy(reason, payload + 2, copy);
    reason[copy] = '\0';
  }
  return PROTO_OK;
}
