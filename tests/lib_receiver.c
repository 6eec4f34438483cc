/* The reference receiver: see tests/lib_receiver.h. */
#include "tests/lib_receiver.h"
#include "tests/lib_vectors.h"

#include <stdlib.h>
#include <string.h>

uint64_t receiver_total(const struct proto_workload *w)
{
  return w->warmup + w->round_trips;
}

uint64_t receiver_frame_bytes(const struct proto_workload *w)
{
  return PROTO_HEADER_BYTES + (uint64_t)w->payload_bytes;
}

void receiver_server_at(struct receiver *r, const struct proto_workload *w,
                        uint64_t next)
{
  uint64_t done = next - 1;
  r->phase = RECEIVER_SERVER_REQUEST;
  r->workload = *w;
  r->next_sequence = next;
  r->own.requests = done;
  r->own.responses = done;
  r->own.bytes_received = 40 + done * receiver_frame_bytes(w);
  r->own.bytes_sent = 40 + done * receiver_frame_bytes(w);
}

/* The session's checks from the header alone, in the README's order. */
static int receiver_header(const struct receiver *r,
                           const struct proto_header *h)
{
  const struct proto_workload *w = &r->workload;
  uint64_t total = receiver_total(w);

  if (r->phase == RECEIVER_ANY)
    return PROTO_OK;
  if (h->type == PROTO_ERROR)
    return PROTO_E_PEER_ERROR;

  switch (r->phase) {
  case RECEIVER_SERVER_HELLO:
    if (h->type != PROTO_HELLO)
      return PROTO_E_UNEXPECTED_TYPE;
    if (h->sequence != 0)
      return PROTO_E_WRONG_SEQUENCE;
    return PROTO_OK;
  case RECEIVER_SERVER_REQUEST:
    if (h->type == PROTO_REQUEST) {
      /* After W + N requests only BYE is allowed, whatever the sequence. */
      if (r->next_sequence > total)
        return PROTO_E_UNEXPECTED_TYPE;
      if (h->sequence != r->next_sequence)
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
  case RECEIVER_CLIENT_HELLO_ACK:
  case RECEIVER_CLIENT_RESPONSE:
  case RECEIVER_CLIENT_BYE_ACK:
    if (h->type == PROTO_RESPONSE) {
      /* Allowed only while a request is outstanding, whatever its
       * sequence; then the oldest outstanding one's sequence. */
      if (r->phase != RECEIVER_CLIENT_RESPONSE ||
          r->next_sequence > r->last_sent)
        return PROTO_E_UNEXPECTED_TYPE;
      if (h->sequence != r->next_sequence)
        return PROTO_E_WRONG_SEQUENCE;
      if (h->payload_length != w->payload_bytes)
        return PROTO_E_BAD_LENGTH;
      return PROTO_OK;
    }
    if (r->phase == RECEIVER_CLIENT_HELLO_ACK && h->type == PROTO_HELLO_ACK)
      return h->sequence != 0 ? PROTO_E_WRONG_SEQUENCE : PROTO_OK;
    if (r->phase == RECEIVER_CLIENT_BYE_ACK && h->type == PROTO_BYE_ACK)
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
  uint64_t total = receiver_total(w);
  struct proto_counts seen, expected;
  uint8_t encoded[PROTO_WORKLOAD_BYTES];

  switch (r->phase) {
  case RECEIVER_ANY:
    return PROTO_OK;
  case RECEIVER_SERVER_HELLO: {
    struct proto_workload hello;
    proto_workload_decode(payload, &hello);
    if (proto_workload_check(&hello))
      return PROTO_E_BAD_WORKLOAD;
    receiver_server_at(r, &hello, 1);
    return PROTO_OK;
  }
  case RECEIVER_SERVER_REQUEST:
    if (h->type == PROTO_REQUEST) {
      if (proto_payload_check(payload, h->payload_length, h->sequence))
        return PROTO_E_WRONG_PAYLOAD;
      r->next_sequence++;
      r->own.requests++;
      r->own.responses++;
      r->own.bytes_received += receiver_frame_bytes(w);
      r->own.bytes_sent += receiver_frame_bytes(w);
      return PROTO_OK;
    }
    proto_counts_decode(payload, &seen);
    expected.requests = r->own.requests;
    expected.responses = r->own.responses;
    expected.bytes_sent = r->own.bytes_received;
    expected.bytes_received = r->own.bytes_sent;
    if (!vectors_counts_equal(&seen, &expected))
      return PROTO_E_COUNT_MISMATCH;
    r->phase = RECEIVER_SERVER_DONE;
    return PROTO_OK;
  case RECEIVER_CLIENT_HELLO_ACK:
    proto_workload_encode(encoded, w);
    if (memcmp(encoded, payload, sizeof(encoded)))
      return PROTO_E_BAD_WORKLOAD;
    r->phase = RECEIVER_CLIENT_RESPONSE;
    r->next_sequence = 1;
    return PROTO_OK;
  case RECEIVER_CLIENT_RESPONSE:
    if (proto_response_check(payload, h->payload_length, h->sequence))
      return PROTO_E_WRONG_PAYLOAD;
    if (++r->next_sequence > total)
      r->phase = RECEIVER_CLIENT_BYE_ACK;
    return PROTO_OK;
  case RECEIVER_CLIENT_BYE_ACK:
    proto_counts_decode(payload, &seen);
    /* The client's own view of what the server saw, from the spec's
     * formulas rather than proto_counts_expected, which is under test. */
    expected.requests = total;
    expected.responses = total;
    expected.bytes_sent = 40 + total * receiver_frame_bytes(w);
    expected.bytes_received = 40 + total * receiver_frame_bytes(w) + 48;
    if (!vectors_counts_equal(&seen, &expected))
      return PROTO_E_COUNT_MISMATCH;
    r->phase = RECEIVER_CLIENT_DONE;
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
  case RECEIVER_ANY:
  case RECEIVER_SERVER_DONE:
  case RECEIVER_CLIENT_DONE:
    return PROTO_OK;
  default:
    return PROTO_E_UNEXPECTED_EOF;
  }
}

int receiver_feed(struct receiver *r, const uint8_t *in, size_t len,
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
    /* A client ends the session with the read that validated BYE_ACK: a
     * frame begun in it is cut short there. */
    if (r->phase == RECEIVER_CLIENT_DONE && fill > 0) {
      err = PROTO_E_TRUNCATED;
      goto done;
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

const size_t receiver_odd_chunks[12] = {1,  3,  2, 7,  5,  11,
                                        13, 17, 4, 31, 64, 9};
const size_t receiver_byte_chunks[1] = {1};
