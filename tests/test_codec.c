/* Tests of the C codec (protocol/codec.c) against every case of the shared
 * vectors in protocol/vectors/, plus the codec's own edges. The vectors are
 * found under $CROSSRUN_ROOT (default "."). */
#include "protocol/codec.h"
#include "tests/tap.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The vectors are a few hundred kilobytes; anything bigger is a mistake. */
#define VECTOR_FILE_MAX_BYTES (16u * 1024 * 1024)

/* ------------------------------------------------------------ helpers */

static const char *vectors_root(void)
{
  const char *root = getenv("CROSSRUN_ROOT");
  return root && *root ? root : ".";
}

static json_object *vectors_load(const char *name)
{
  char path[4096];
  json_object *doc, *cases;
  FILE *f;
  long size;

  snprintf(path, sizeof(path), "%s/protocol/vectors/%s", vectors_root(), name);
  f = fopen(path, "rb");
  if (!f) {
    tap_diag("cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fclose(f);
  if (size < 0 || (unsigned long)size > VECTOR_FILE_MAX_BYTES) {
    tap_diag("'%s' is larger than %u bytes", path, VECTOR_FILE_MAX_BYTES);
    return NULL;
  }
  doc = json_object_from_file(path);
  if (!doc) {
    tap_diag("cannot parse '%s': %s", path, json_util_get_last_err());
    return NULL;
  }
  if (!json_object_object_get_ex(doc, "cases", &cases) ||
      !json_object_is_type(cases, json_type_array)) {
    tap_diag("'%s' has no \"cases\" array", path);
    json_object_put(doc);
    return NULL;
  }
  return doc;
}

static json_object *vectors_cases(json_object *doc)
{
  json_object *cases = NULL;
  json_object_object_get_ex(doc, "cases", &cases);
  return cases;
}

static json_object *field(json_object *obj, const char *key)
{
  json_object *v = NULL;
  if (!json_object_object_get_ex(obj, key, &v))
    return NULL;
  return v;
}

static const char *field_str(json_object *obj, const char *key)
{
  json_object *v = field(obj, key);
  return v && json_object_is_type(v, json_type_string)
             ? json_object_get_string(v)
             : NULL;
}

/* 64-bit quantities are decimal strings in the vectors (JSON numbers lose
 * precision above 2^53 in several languages). Returns 0 on success. */
static int field_u64(json_object *obj, const char *key, uint64_t *out)
{
  const char *s = field_str(obj, key);
  char *end;
  unsigned long long v;

  if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
    return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno || *end)
    return -1;
  *out = v;
  return 0;
}

static int field_u32(json_object *obj, const char *key, uint32_t *out)
{
  json_object *v = field(obj, key);
  int64_t n;

  if (!v || !json_object_is_type(v, json_type_int))
    return -1;
  n = json_object_get_int64(v);
  if (n < 0 || n > UINT32_MAX)
    return -1;
  *out = (uint32_t)n;
  return 0;
}

/* Decodes a lowercase hex field into a new buffer (at least 1 byte, so
 * empty strings give a valid pointer). Caller frees *out. */
static int field_hex(json_object *obj, const char *key, uint8_t **out,
                     size_t *len)
{
  const char *s = field_str(obj, key);
  size_t n, i;
  uint8_t *buf;

  if (!s)
    return -1;
  n = strlen(s);
  if (n % 2)
    return -1;
  buf = malloc(n / 2 + 1);
  if (!buf)
    return -1;
  for (i = 0; i < n / 2; i++) {
    int hi, lo;
    char c = s[2 * i], d = s[2 * i + 1];
    hi = c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : -1;
    lo = d >= '0' && d <= '9'   ? d - '0'
         : d >= 'a' && d <= 'f' ? d - 'a' + 10
                                : -1;
    if (hi < 0 || lo < 0) {
      free(buf);
      return -1;
    }
    buf[i] = (uint8_t)(hi << 4 | lo);
  }
  *out = buf;
  *len = n / 2;
  return 0;
}

static int field_workload(json_object *obj, const char *key,
                          struct proto_workload *w)
{
  json_object *v = field(obj, key);
  if (!v || field_u64(v, "warmup", &w->warmup) ||
      field_u64(v, "round_trips", &w->round_trips) ||
      field_u32(v, "payload_bytes", &w->payload_bytes) ||
      field_u32(v, "max_in_flight", &w->max_in_flight))
    return -1;
  return 0;
}

static int field_counts(json_object *obj, const char *key,
                        struct proto_counts *c)
{
  json_object *v = field(obj, key);
  if (!v || field_u64(v, "requests", &c->requests) ||
      field_u64(v, "responses", &c->responses) ||
      field_u64(v, "bytes_sent", &c->bytes_sent) ||
      field_u64(v, "bytes_received", &c->bytes_received))
    return -1;
  return 0;
}

static int counts_equal(const struct proto_counts *a,
                        const struct proto_counts *b)
{
  return a->requests == b->requests && a->responses == b->responses &&
         a->bytes_sent == b->bytes_sent &&
         a->bytes_received == b->bytes_received;
}

static const char *case_name(json_object *c)
{
  const char *name = field_str(c, "name");
  return name ? name : "?";
}

/* ------------------------------------------------------------ receiver */

/* A reference receiver built on the codec: the checks of SPEC.md section 3
 * in the order the vectors' README gives. As soon as a frame's 16 header
 * bytes are in: the codec's header checks, then ERROR, type, sequence and
 * length; once the whole frame is in: the payload. It replays
 * invalid.json's states and decodes the sessions, so the vectors pin both
 * the codec and this ordering. */
enum phase {
  PHASE_ANY,
  PHASE_SERVER_HELLO,
  PHASE_SERVER_REQUEST,
  PHASE_SERVER_DONE,
  PHASE_CLIENT_HELLO_ACK,
  PHASE_CLIENT_RESPONSE,
  PHASE_CLIENT_BYE_ACK,
  PHASE_CLIENT_DONE
};

struct receiver {
  enum phase phase;
  struct proto_workload workload;
  uint64_t next_sequence;
  /* A client's last request sent: a RESPONSE beyond it answers nothing
   * (SPEC.md section 3). The sessions' replay counts every request as
   * sent; invalid.json's client states send what their window allows
   * before the input and nothing while it arrives. */
  uint64_t last_sent;
  /* The server's own counts (SPEC.md section 2), kept as frames pass. */
  struct proto_counts own;
  uint64_t frames_received;
  uint64_t bytes_received;
};

static uint64_t workload_total(const struct proto_workload *w)
{
  return w->warmup + w->round_trips;
}

static uint64_t frame_bytes(const struct proto_workload *w)
{
  return PROTO_HEADER_BYTES + (uint64_t)w->payload_bytes;
}

/* Puts a server in the state after HELLO and requests 1..next-1. */
static void receiver_server_at(struct receiver *r,
                               const struct proto_workload *w, uint64_t next)
{
  uint64_t done = next - 1;
  r->phase = PHASE_SERVER_REQUEST;
  r->workload = *w;
  r->next_sequence = next;
  r->own.requests = done;
  r->own.responses = done;
  r->own.bytes_received = 40 + done * frame_bytes(w);
  r->own.bytes_sent = 40 + done * frame_bytes(w);
}

/* The session's checks from the header alone, in the README's order. */
static int receiver_header(const struct receiver *r,
                           const struct proto_header *h)
{
  const struct proto_workload *w = &r->workload;
  uint64_t total = workload_total(w);

  if (r->phase == PHASE_ANY)
    return PROTO_OK;
  if (h->type == PROTO_ERROR)
    return PROTO_E_PEER_ERROR;

  switch (r->phase) {
  case PHASE_SERVER_HELLO:
    if (h->type != PROTO_HELLO)
      return PROTO_E_UNEXPECTED_TYPE;
    if (h->sequence != 0)
      return PROTO_E_WRONG_SEQUENCE;
    return PROTO_OK;
  case PHASE_SERVER_REQUEST:
    if (h->type == PROTO_REQUEST) {
      if (h->sequence != r->next_sequence || r->next_sequence > total)
        return PROTO_E_WRONG_SEQUENCE;
      if (h->payload_length != w->payload_bytes)
        return PROTO_E_BAD_LENGTH;
      return PROTO_OK;
    }
    /* A BYE before every request has arrived: whatever its sequence. */
    if (h->type != PROTO_BYE || r->next_sequence <= total)
      return PROTO_E_UNEXPECTED_TYPE;
    if (h->sequence != total + 1)
      return PROTO_E_WRONG_SEQUENCE;
    return PROTO_OK;
  case PHASE_CLIENT_HELLO_ACK:
  case PHASE_CLIENT_RESPONSE:
  case PHASE_CLIENT_BYE_ACK:
    if (h->type == PROTO_RESPONSE) {
      /* The sequence before anything else: the previous response's plus
       * 1, whether or not that request was sent; then whether it was. */
      uint64_t next = r->phase == PHASE_CLIENT_HELLO_ACK  ? 1
                      : r->phase == PHASE_CLIENT_RESPONSE ? r->next_sequence
                                                          : total + 1;
      if (h->sequence != next)
        return PROTO_E_WRONG_SEQUENCE;
      if (r->phase != PHASE_CLIENT_RESPONSE || next > r->last_sent)
        return PROTO_E_UNEXPECTED_TYPE;
      if (h->payload_length != w->payload_bytes)
        return PROTO_E_BAD_LENGTH;
      return PROTO_OK;
    }
    if (r->phase == PHASE_CLIENT_HELLO_ACK && h->type == PROTO_HELLO_ACK)
      return h->sequence != 0 ? PROTO_E_WRONG_SEQUENCE : PROTO_OK;
    if (r->phase == PHASE_CLIENT_BYE_ACK && h->type == PROTO_BYE_ACK)
      return h->sequence != total + 1 ? PROTO_E_WRONG_SEQUENCE : PROTO_OK;
    return PROTO_E_UNEXPECTED_TYPE;
  default:
    /* After BYE (server) or BYE_ACK (client) only end of stream may come. */
    return PROTO_E_UNEXPECTED_TYPE;
  }
}

/* A whole frame whose header passed receiver_header(): the payload, and
 * the session moves on. */
static int receiver_frame(struct receiver *r, const struct proto_header *h,
                          const uint8_t *payload)
{
  const struct proto_workload *w = &r->workload;
  uint64_t total = workload_total(w);
  struct proto_counts seen, expected;
  uint8_t encoded[PROTO_WORKLOAD_BYTES];

  switch (r->phase) {
  case PHASE_ANY:
    return PROTO_OK;
  case PHASE_SERVER_HELLO: {
    struct proto_workload hello;
    proto_workload_decode(payload, &hello);
    if (proto_workload_check(&hello))
      return PROTO_E_BAD_WORKLOAD;
    receiver_server_at(r, &hello, 1);
    return PROTO_OK;
  }
  case PHASE_SERVER_REQUEST:
    if (h->type == PROTO_REQUEST) {
      if (proto_payload_check(payload, h->payload_length, h->sequence))
        return PROTO_E_WRONG_PAYLOAD;
      r->next_sequence++;
      r->own.requests++;
      r->own.responses++;
      r->own.bytes_received += frame_bytes(w);
      r->own.bytes_sent += frame_bytes(w);
      return PROTO_OK;
    }
    proto_counts_decode(payload, &seen);
    expected.requests = r->own.requests;
    expected.responses = r->own.responses;
    expected.bytes_sent = r->own.bytes_received;
    expected.bytes_received = r->own.bytes_sent;
    if (!counts_equal(&seen, &expected))
      return PROTO_E_COUNT_MISMATCH;
    r->phase = PHASE_SERVER_DONE;
    return PROTO_OK;
  case PHASE_CLIENT_HELLO_ACK:
    proto_workload_encode(encoded, w);
    if (memcmp(encoded, payload, sizeof(encoded)))
      return PROTO_E_BAD_WORKLOAD;
    r->phase = PHASE_CLIENT_RESPONSE;
    r->next_sequence = 1;
    return PROTO_OK;
  case PHASE_CLIENT_RESPONSE:
    if (proto_response_check(payload, h->payload_length, h->sequence))
      return PROTO_E_WRONG_PAYLOAD;
    if (++r->next_sequence > total)
      r->phase = PHASE_CLIENT_BYE_ACK;
    return PROTO_OK;
  case PHASE_CLIENT_BYE_ACK:
    proto_counts_decode(payload, &seen);
    /* The client's own view of what the server saw, from the spec's
     * formulas rather than proto_counts_expected, which is under test. */
    expected.requests = total;
    expected.responses = total;
    expected.bytes_sent = 40 + total * frame_bytes(w);
    expected.bytes_received = 40 + total * frame_bytes(w) + 48;
    if (!counts_equal(&seen, &expected))
      return PROTO_E_COUNT_MISMATCH;
    r->phase = PHASE_CLIENT_DONE;
    return PROTO_OK;
  default:
    return PROTO_E_UNEXPECTED_TYPE; /* receiver_header() let nothing by */
  }
}

static int receiver_eof(const struct receiver *r, size_t pending)
{
  int err = proto_eof_check(pending);
  if (err)
    return err;
  switch (r->phase) {
  case PHASE_ANY:
  case PHASE_SERVER_DONE:
  case PHASE_CLIENT_DONE:
    return PROTO_OK;
  default:
    return PROTO_E_UNEXPECTED_EOF;
  }
}

/* Feeds input in chunks whose sizes cycle through chunks[] (0 entries:
 * all at once) through a receive buffer like a lane's, parsing every
 * complete frame after each chunk. Returns the first rejection, else the
 * end-of-stream verdict when eof is set, else 0 with *pending set to the
 * bytes left unparsed. */
static int receiver_feed(struct receiver *r, const uint8_t *in, size_t len,
                         const size_t *chunks, size_t nchunks, int eof,
                         size_t *pending)
{
  uint8_t *buf = malloc(len + 1);
  size_t fill = 0, pos = 0, k = 0;
  int err = PROTO_OK;

  if (!buf)
    abort();
  while (pos < len) {
    size_t n = nchunks ? chunks[k++ % nchunks] : len;
    long size;
    struct proto_header h;

    if (n > len - pos)
      n = len - pos;
    memcpy(buf + fill, in + pos, n);
    fill += n;
    pos += n;
    for (;;) {
      size = proto_frame_peek(buf, fill, &h);
      if (size < 0) {
        err = (int)size;
        goto done;
      }
      if (fill < PROTO_HEADER_BYTES)
        break;
      /* The session's checks as soon as the header is in (they run again
       * on each later chunk of the same frame, with the same verdict). */
      err = receiver_header(r, &h);
      if (err)
        goto done;
      if (size == 0)
        break;
      err = receiver_frame(r, &h, buf + PROTO_HEADER_BYTES);
      if (err)
        goto done;
      r->frames_received++;
      r->bytes_received += (uint64_t)size;
      memmove(buf, buf + size, fill - (size_t)size);
      fill -= (size_t)size;
    }
  }
  if (eof)
    err = receiver_eof(r, fill);
done:
  if (pending)
    *pending = fill;
  free(buf);
  return err;
}

static const size_t odd_chunks[] = {1, 3, 2, 7, 5, 11, 13, 17, 4, 31, 64, 9};
static const size_t byte_chunks[] = {1};

/* ------------------------------------------------------------ payloads */

static void test_payloads(void)
{
  json_object *doc = vectors_load("payloads.json");
  json_object *cases;
  size_t i, n;

  if (!TAP_OK(doc != NULL, "payloads.json loads"))
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

    if (field_u64(c, "sequence", &seq) || field_u32(c, "length", &length) ||
        field_hex(c, "payload", &payload, &plen) ||
        field_hex(c, "response", &response, &rlen)) {
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

/* ------------------------------------------------------------ frames */

static const char *frame_check_one(json_object *c)
{
  uint32_t type, version, flags, payload_length;
  uint64_t seq;
  uint8_t *payload = NULL, *frame = NULL, *out = NULL;
  size_t plen, flen;
  const char *why = NULL;
  struct proto_header h;
  long peeked;

  if (field_u32(c, "type", &type) || field_u32(c, "version", &version) ||
      field_u32(c, "flags", &flags) ||
      field_u32(c, "payload_length", &payload_length) ||
      field_u64(c, "sequence", &seq) ||
      field_hex(c, "payload", &payload, &plen)) {
    free(payload);
    return "malformed case";
  }
  if (field_hex(c, "frame", &frame, &flen)) {
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
    if (field_workload(c, "workload", &w)) {
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
    if (field_counts(c, "counts", &cnt)) {
      why = "malformed counts";
      break;
    }
    proto_counts_encode(out, &cnt);
    if (memcmp(out, payload, PROTO_COUNTS_BYTES)) {
      why = "proto_counts_encode differs";
      break;
    }
    proto_counts_decode(payload, &decoded);
    if (!counts_equal(&cnt, &decoded)) {
      why = "proto_counts_decode differs";
      break;
    }
    /* Counts that close a session of `session`, modulo 2^64. */
    if (field(c, "session")) {
      struct proto_workload sw;
      struct proto_counts want;
      if (field_workload(c, "session", &sw)) {
        why = "malformed session";
        break;
      }
      proto_counts_expected(&sw, type == PROTO_BYE_ACK, &want);
      if (!counts_equal(&cnt, &want))
        why = "proto_counts_expected differs from the session's counts";
    }
    break;
  }
  case PROTO_ERROR: {
    uint32_t code;
    const char *reason = field_str(c, "reason");
    char text[PROTO_MAX_REASON_BYTES + 1];
    uint16_t got;
    if (field_u32(c, "code", &code) || !reason) {
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

  if (!TAP_OK(doc != NULL, "frames.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    const char *why = frame_check_one(c);
    uint32_t type = 0;
    if (!field_u32(c, "type", &type) && type < 8)
      seen[type] = 1;
    TAP_OK(!why, "frame %s%s%s", case_name(c), why ? ": " : "", why ? why : "");
  }
  TAP_OK(seen[1] && seen[2] && seen[3] && seen[4] && seen[5] && seen[6] &&
             seen[7],
         "frames.json has a frame of every type");
  json_object_put(doc);
}

/* ------------------------------------------------------------ sessions */

/* Encodes the whole stream one side sends for workload w into out (sized
 * by the caller from the vector); returns the bytes written, or 0 when it
 * would not fit. */
static size_t session_encode(uint8_t *out, size_t cap,
                             const struct proto_workload *w, int server)
{
  uint64_t total = workload_total(w), seq;
  uint8_t body[PROTO_COUNTS_BYTES];
  struct proto_counts cnt;
  size_t at = 0, frame = (size_t)frame_bytes(w);

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

  if (!TAP_OK(doc != NULL, "sessions.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  TAP_OK(n >= 3, "sessions.json has %zu cases", n);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    const char *name = case_name(c);
    struct proto_workload w;
    struct proto_totals want, totals;
    struct proto_counts bye, ack, expected;
    uint8_t *cbytes = NULL, *sbytes = NULL, *out;
    size_t clen = 0, slen = 0, got, pending = 0;
    json_object *result = field(c, "result");
    struct receiver server, client;
    int err;

    if (field_workload(c, "workload", &w) ||
        field_hex(c, "client_bytes", &cbytes, &clen) ||
        field_hex(c, "server_bytes", &sbytes, &slen) || !result ||
        field_u64(result, "frames_sent", &want.frames_sent) ||
        field_u64(result, "frames_received", &want.frames_received) ||
        field_u64(result, "bytes_sent", &want.bytes_sent) ||
        field_u64(result, "bytes_received", &want.bytes_received) ||
        clen < 88 || slen < 88) {
      TAP_OK(0, "session %s: malformed", name);
      free(cbytes);
      free(sbytes);
      continue;
    }
    TAP_OK(proto_workload_check(&w) == PROTO_OK, "session %s: workload valid",
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
    TAP_OK(counts_equal(&bye, &expected),
           "session %s: BYE counts equal proto_counts_expected", name);
    proto_counts_expected(&w, 1, &expected);
    TAP_OK(counts_equal(&ack, &expected),
           "session %s: BYE_ACK counts equal proto_counts_expected", name);

    /* Decode both streams as a server and a client would, in odd chunks,
     * then all at once and one byte at a time. */
    {
      static const struct {
        const size_t *chunks;
        size_t n;
        const char *how;
      } feeds[] = {{odd_chunks, sizeof(odd_chunks) / sizeof(odd_chunks[0]),
                    "odd chunks"},
                   {NULL, 0, "one read"},
                   {byte_chunks, 1, "byte by byte"}};
      size_t f;
      for (f = 0; f < sizeof(feeds) / sizeof(feeds[0]); f++) {
        memset(&server, 0, sizeof(server));
        server.phase = PHASE_SERVER_HELLO;
        err = receiver_feed(&server, cbytes, clen, feeds[f].chunks, feeds[f].n,
                            1, &pending);
        TAP_OK(err == PROTO_OK && server.phase == PHASE_SERVER_DONE &&
                   pending == 0,
               "session %s: server side accepts the client stream (%s): %s",
               name, feeds[f].how, proto_error_name(err));
        memset(&client, 0, sizeof(client));
        client.phase = PHASE_CLIENT_HELLO_ACK;
        client.workload = w;
        client.last_sent = workload_total(&w);
        err = receiver_feed(&client, sbytes, slen, feeds[f].chunks, feeds[f].n,
                            1, &pending);
        TAP_OK(err == PROTO_OK && client.phase == PHASE_CLIENT_DONE &&
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
        server.phase = PHASE_SERVER_HELLO;
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

/* ------------------------------------------------------------ invalid */

static int phase_from_state(const char *state, enum phase *phase)
{
  static const struct {
    const char *name;
    enum phase phase;
  } states[] = {{"any", PHASE_ANY},
                {"server_expecting_hello", PHASE_SERVER_HELLO},
                {"server_expecting_request", PHASE_SERVER_REQUEST},
                {"server_after_bye", PHASE_SERVER_DONE},
                {"client_expecting_hello_ack", PHASE_CLIENT_HELLO_ACK},
                {"client_expecting_response", PHASE_CLIENT_RESPONSE},
                {"client_expecting_bye_ack", PHASE_CLIENT_BYE_ACK}};
  size_t i;
  for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
    if (state && !strcmp(state, states[i].name)) {
      *phase = states[i].phase;
      return 0;
    }
  return -1;
}

/* Sets up the receiver a case's state describes (vectors/README.md). */
static const char *invalid_setup(json_object *c, struct receiver *r)
{
  enum phase phase;
  uint64_t seq = 0;

  memset(r, 0, sizeof(*r));
  if (phase_from_state(field_str(c, "state"), &phase))
    return "unknown state";
  r->phase = phase;
  if (phase == PHASE_ANY || phase == PHASE_SERVER_HELLO)
    return NULL;
  if (field_workload(c, "workload", &r->workload))
    return "missing workload";
  if (proto_workload_check(&r->workload))
    return "state workload is itself invalid";
  if (phase == PHASE_SERVER_REQUEST || phase == PHASE_CLIENT_RESPONSE) {
    if (field_u64(c, "sequence", &seq) || seq < 1)
      return "missing sequence";
  }
  if (phase == PHASE_SERVER_REQUEST) {
    if (seq > workload_total(&r->workload) + 1)
      return "sequence beyond W + N + 1";
    receiver_server_at(r, &r->workload, seq);
  } else if (phase == PHASE_SERVER_DONE) {
    receiver_server_at(r, &r->workload, workload_total(&r->workload) + 1);
    r->phase = PHASE_SERVER_DONE;
  } else if (phase == PHASE_CLIENT_RESPONSE) {
    /* Requests 1 .. min(seq - 1 + M, L): the window, and the warm-up's
     * end (L is W while seq <= W, else W + N). */
    uint64_t limit = seq <= r->workload.warmup ? r->workload.warmup
                                               : workload_total(&r->workload);
    if (seq > workload_total(&r->workload))
      return "sequence beyond W + N";
    r->next_sequence = seq;
    r->last_sent = seq - 1 + r->workload.max_in_flight;
    if (r->last_sent > limit)
      r->last_sent = limit;
  } else if (phase == PHASE_CLIENT_BYE_ACK) {
    r->last_sent = workload_total(&r->workload);
  }
  return NULL;
}

static void test_invalid(void)
{
  json_object *doc = vectors_load("invalid.json");
  json_object *cases;
  size_t i, n;
  int named[14] = {0};

  if (!TAP_OK(doc != NULL, "invalid.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    const char *name = case_name(c);
    const char *rejection = field_str(c, "rejection");
    json_object *eof_field = field(c, "eof");
    uint8_t *input = NULL;
    size_t len = 0, f;
    const char *why = NULL;
    char detail[160] = "";
    int want = 1, eof, err;
    static const struct {
      const size_t *chunks;
      size_t n;
      const char *how;
    } feeds[] = {
        {NULL, 0, "one read"},
        {byte_chunks, 1, "byte by byte"},
        {odd_chunks, sizeof(odd_chunks) / sizeof(odd_chunks[0]), "odd chunks"}};

    if (!rejection || !eof_field ||
        !json_object_is_type(eof_field, json_type_boolean) ||
        field_hex(c, "input", &input, &len)) {
      TAP_OK(0, "invalid %s: malformed", name);
      continue;
    }
    eof = json_object_get_boolean(eof_field);
    for (err = PROTO_E_UNSUPPORTED_VERSION; err >= PROTO_E_PEER_ERROR; err--)
      if (!strcmp(rejection, proto_error_name(err)))
        want = err;
    if (want == 1)
      why = "unknown rejection name";
    for (f = 0; !why && f < sizeof(feeds) / sizeof(feeds[0]); f++) {
      struct receiver r;
      why = invalid_setup(c, &r);
      if (why)
        break;
      err =
          receiver_feed(&r, input, len, feeds[f].chunks, feeds[f].n, eof, NULL);
      if (err != want) {
        snprintf(detail, sizeof(detail), "%s: got %s", feeds[f].how,
                 proto_error_name(err));
        why = detail;
      }
    }
    /* A header check comes before every session check: an `any` case other
     * than a cut is rejected the same way in every session state. */
    if (!why && want != PROTO_E_TRUNCATED &&
        !strcmp(field_str(c, "state"), "any")) {
      static const enum phase phases[] = {
          PHASE_SERVER_HELLO,     PHASE_SERVER_REQUEST,  PHASE_SERVER_DONE,
          PHASE_CLIENT_HELLO_ACK, PHASE_CLIENT_RESPONSE, PHASE_CLIENT_BYE_ACK};
      static const struct proto_workload sw = {2, 3, 5, 2};
      size_t k;
      for (k = 0; !why && k < sizeof(phases) / sizeof(phases[0]); k++) {
        struct receiver r;
        memset(&r, 0, sizeof(r));
        receiver_server_at(&r, &sw, 2);
        r.phase = phases[k];
        r.last_sent = 3;
        err = receiver_feed(&r, input, len, NULL, 0, eof, NULL);
        if (err != want) {
          snprintf(detail, sizeof(detail), "in session phase %d: got %s",
                   (int)phases[k], proto_error_name(err));
          why = detail;
        }
      }
    }
    if (!why)
      named[-want] = 1;
    TAP_OK(!why, "invalid %s -> %s%s%s", name, rejection, why ? ": " : "",
           why ? why : "");
    free(input);
  }
  {
    int e, all = 1;
    for (e = 1; e <= 13; e++)
      if (!named[e]) {
        tap_diag("no passing invalid case names %s", proto_error_name(-e));
        all = 0;
      }
    TAP_OK(all, "invalid.json covers every rejection of SPEC.md section 6");
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
    TAP_OK(err == (cases[i].valid ? PROTO_OK : PROTO_E_BAD_WORKLOAD),
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
  TAP_OK(proto_frame_peek(frame, sizeof(frame), &h) == (long)sizeof(frame),
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
  TAP_OK(proto_frame_peek(frame, PROTO_HEADER_BYTES, &h) ==
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
  TAP_OK(n == PROTO_HEADER_BYTES + 2 + 511,
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
  test_frames();
  test_sessions();
  test_invalid();
  test_names_and_codes();
  test_workload_rules();
  test_peek_edges();
  test_error_frames();
  test_counts_and_totals();
  test_large_payload();
  return tap_done();
}
