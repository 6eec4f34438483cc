/* Tests of the C codec (protocol/codec.c) against the invalid inputs of
 * the shared vectors (protocol/vectors/invalid.json): the reference
 * receiver (tests/lib_receiver.h), put in each case's state, rejects the
 * input by the case's name in any chunking. */
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

static int phase_from_state(const char *state, enum receiver_phase *phase)
{
  static const struct {
    const char *name;
    enum receiver_phase phase;
  } states[] = {{"any", RECEIVER_ANY},
                {"server_expecting_hello", RECEIVER_SERVER_HELLO},
                {"server_expecting_request", RECEIVER_SERVER_REQUEST},
                {"server_after_bye", RECEIVER_SERVER_DONE},
                {"client_expecting_hello_ack", RECEIVER_CLIENT_HELLO_ACK},
                {"client_expecting_response", RECEIVER_CLIENT_RESPONSE},
                {"client_expecting_bye_ack", RECEIVER_CLIENT_BYE_ACK}};
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
  enum receiver_phase phase;
  uint64_t seq = 0;

  memset(r, 0, sizeof(*r));
  if (phase_from_state(vectors_str(c, "state"), &phase))
    return "unknown state";
  r->phase = phase;
  if (phase == RECEIVER_ANY || phase == RECEIVER_SERVER_HELLO)
    return NULL;
  if (vectors_workload(c, "workload", &r->workload))
    return "missing workload";
  if (proto_workload_check(&r->workload))
    return "state workload is itself invalid";
  if (phase == RECEIVER_SERVER_REQUEST || phase == RECEIVER_CLIENT_RESPONSE) {
    if (vectors_u64(c, "sequence", &seq) || seq < 1)
      return "missing sequence";
  }
  if (phase == RECEIVER_SERVER_REQUEST) {
    if (seq > receiver_total(&r->workload) + 1)
      return "sequence beyond W + N + 1";
    receiver_server_at(r, &r->workload, seq);
  } else if (phase == RECEIVER_SERVER_DONE) {
    receiver_server_at(r, &r->workload, receiver_total(&r->workload) + 1);
    r->phase = RECEIVER_SERVER_DONE;
  } else if (phase == RECEIVER_CLIENT_RESPONSE) {
    /* Requests 1 .. min(seq - 1 + M, L): the window, and the warm-up's
     * end (L is W while seq <= W, else W + N). */
    uint64_t limit = seq <= r->workload.warmup ? r->workload.warmup
                                               : receiver_total(&r->workload);
    if (seq > receiver_total(&r->workload))
      return "sequence beyond W + N";
    r->next_sequence = seq;
    r->last_sent = seq - 1 + r->workload.max_in_flight;
    if (r->last_sent > limit)
      r->last_sent = limit;
  } else if (phase == RECEIVER_CLIENT_BYE_ACK) {
    r->last_sent = receiver_total(&r->workload);
  }
  return NULL;
}

static void test_invalid(void)
{
  json_object *doc = vectors_load("invalid.json");
  json_object *cases;
  size_t i, n;
  int named[14] = {0};

  if (!TAP_NONNULL(doc, "invalid.json loads"))
    return;
  cases = vectors_cases(doc);
  n = json_object_array_length(cases);
  for (i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    const char *name = vectors_case_name(c);
    const char *rejection = vectors_str(c, "rejection");
    json_object *eof_field = vectors_field(c, "eof");
    uint8_t *input = NULL;
    size_t len = 0, f;
    const char *why = NULL;
    char detail[160] = "";
    int want = 1, eof, err, one_read;
    static const struct {
      const size_t *chunks;
      size_t n;
      const char *how;
    } feeds[] = {{NULL, 0, "one read"},
                 {receiver_byte_chunks, 1, "byte by byte"},
                 {receiver_odd_chunks,
                  sizeof(receiver_odd_chunks) / sizeof(receiver_odd_chunks[0]),
                  "odd chunks"}};

    if (!rejection || !eof_field ||
        !json_object_is_type(eof_field, json_type_boolean) ||
        vectors_hex(c, "input", &input, &len)) {
      TAP_OK(0, "invalid %s: malformed", name);
      continue;
    }
    eof = json_object_get_boolean(eof_field);
    /* A one_read case holds only when its input arrives in one read. */
    one_read = vectors_field(c, "one_read") != NULL &&
               json_object_get_boolean(vectors_field(c, "one_read"));
    for (err = PROTO_E_UNSUPPORTED_VERSION; err >= PROTO_E_PEER_ERROR; err--)
      if (!strcmp(rejection, proto_error_name(err)))
        want = err;
    if (want == 1)
      why = "unknown rejection name";
    for (f = 0; !why && f < (one_read ? 1 : sizeof(feeds) / sizeof(feeds[0]));
         f++) {
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
        !strcmp(vectors_str(c, "state"), "any")) {
      static const enum receiver_phase phases[] = {
          RECEIVER_SERVER_HELLO,    RECEIVER_SERVER_REQUEST,
          RECEIVER_SERVER_DONE,     RECEIVER_CLIENT_HELLO_ACK,
          RECEIVER_CLIENT_RESPONSE, RECEIVER_CLIENT_BYE_ACK};
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

int main(void)
{
  test_invalid();
  return tap_done();
}
