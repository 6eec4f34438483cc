/* The runner's own conformance rows: what protocol/vectors/invalid.json
 * cannot say as bytes (a reset, a peer that trickles, the valid edge
 * sessions, ERROR frames of each code) and SPEC.md's rejections pinned
 * in one place. One row per case: a new rejection in SPEC.md is one new
 * row here (or one new vector), never a new code path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/conform.h"

/* What the scripted peer sends once the state is reached. */
enum inject {
  INJ_NOTHING,    /* only the end (end of stream, reset) */
  INJ_ERROR,      /* an ERROR frame with code arg */
  INJ_CUT_NEXT,   /* the first arg bytes of the frame an honest peer sends
                     next there (HELLO, REQUEST, HELLO_ACK, RESPONSE,
                     BYE_ACK) */
  INJ_SESSION,    /* none: a whole valid session (CONFORM_WHOLE) */
  INJ_ACK_SWAPPED /* the right BYE_ACK with bytes_sent and bytes_received
                     swapped: a client comparing field by field takes it */
};

struct row {
  enum conform_role role;
  const char *name;
  enum conform_state state;
  struct proto_workload w;
  uint64_t sequence;
  enum inject inject;
  int arg;
  enum conform_end end;
  int trickle;
  const char *rejection; /* NULL: the session must pass */
  const char *description;
  const char *const *args; /* in place of the runner's flags, or NULL */
};

/* Command lines (lanes/README.md, "Both"): "{addr}" is
 * the address the runner gives. */
#define CLIENT_ARGS(warmup, rt, p, m)                                          \
  (const char *const[])                                                        \
  {                                                                            \
    "--connect", "{addr}", "--warmup", warmup, "--round-trips", rt,            \
        "--payload-bytes", p, "--max-in-flight", m, NULL                       \
  }
static const char *const client_equals[] = {
    "--connect={addr}",  "--warmup=1",        "--round-trips=2",
    "--payload-bytes=8", "--max-in-flight=2", NULL};
static const char *const client_leading_zeros[] = {"--connect",
                                                   "{addr}",
                                                   "--warmup",
                                                   "01",
                                                   "--round-trips",
                                                   "002",
                                                   "--payload-bytes",
                                                   "0008",
                                                   "--max-in-flight",
                                                   "02",
                                                   NULL};
static const char *const client_reordered[] = {"--max-in-flight",
                                               "2",
                                               "--payload-bytes",
                                               "8",
                                               "--round-trips",
                                               "2",
                                               "--warmup",
                                               "1",
                                               "--connect",
                                               "{addr}",
                                               NULL};
static const char *const client_no_warmup[] = {"--connect",
                                               "{addr}",
                                               "--round-trips",
                                               "2",
                                               "--payload-bytes",
                                               "8",
                                               "--max-in-flight",
                                               "2",
                                               NULL};
static const char *const client_twice[] = {"--connect",
                                           "{addr}",
                                           "--warmup",
                                           "1",
                                           "--warmup",
                                           "1",
                                           "--round-trips",
                                           "2",
                                           "--payload-bytes",
                                           "8",
                                           "--max-in-flight",
                                           "2",
                                           NULL};
static const char *const client_unknown[] = {
    "--connect",       "{addr}", "--warmup",        "1", "--round-trips", "2",
    "--payload-bytes", "8",      "--max-in-flight", "2", "--turbo",       NULL};
static const char *const client_no_value[] = {
    "--connect",       "{addr}", "--warmup",        "1", "--round-trips", "2",
    "--payload-bytes", "8",      "--max-in-flight", NULL};
static const char *const server_twice[] = {"--listen", "{addr}", "--listen",
                                           "{addr}", NULL};
static const char *const server_unknown[] = {"--listen", "{addr}", "--turbo",
                                             NULL};
static const char *const server_none[] = {NULL};
static const char *const server_empty[] = {"--listen=", NULL};
static const char *const server_equals[] = {"--listen={addr}", NULL};

#define S CONFORM_SERVER
#define C CONFORM_CLIENT
#define W_DEFAULT                                                              \
  {                                                                            \
    2, 3, 5, 2                                                                 \
  }

static const struct row rows[] = {
    /* ---- the server under test: valid edge sessions ---- */
    {S,
     "session_payload_0",
     CONFORM_WHOLE,
     {1, 3, 0, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session with empty payloads",
     NULL},
    {S,
     "session_payload_max",
     CONFORM_WHOLE,
     {0, 2, 1048576, 1},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session with payloads of 1048576 bytes, the maximum",
     NULL},
    {S,
     "session_in_flight_1",
     CONFORM_WHOLE,
     {2, 5, 8, 1},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session, one request in flight",
     NULL},
    {S,
     "session_in_flight_max",
     CONFORM_WHOLE,
     {0, 65536, 0, 65536},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session with 65536 requests in flight at once, the maximum",
     NULL},
    {S,
     "session_zero_warmup",
     CONFORM_WHOLE,
     {0, 4, 16, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session without warm-up",
     NULL},
    {S,
     "session_trickled",
     CONFORM_WHOLE,
     {1, 2, 8, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     1,
     NULL,
     "a whole session whose client sends one byte at a time",
     NULL},
    /* ---- the server: resets at each state, frames cut short ---- */
    {S, "reset_before_hello", CONFORM_AT_START, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_RESET, 0, "unexpected_eof",
     "the connection is reset before any byte", NULL},
    {S, "reset_inside_hello", CONFORM_AT_START, W_DEFAULT, 0, INJ_CUT_NEXT, 20,
     CONFORM_END_RESET, 0, "truncated", "20 bytes of HELLO, then a reset",
     NULL},
    {S, "reset_between_requests", CONFORM_AT_SEQUENCE, W_DEFAULT, 3,
     INJ_NOTHING, 0, CONFORM_END_RESET, 0, "unexpected_eof",
     "a reset after REQUEST 2 was answered", NULL},
    {S, "reset_inside_request", CONFORM_AT_SEQUENCE, W_DEFAULT, 3, INJ_CUT_NEXT,
     18, CONFORM_END_RESET, 0, "truncated",
     "the header and 2 payload bytes of REQUEST 3, then a reset", NULL},
    {S, "reset_before_bye", CONFORM_AT_SEQUENCE, W_DEFAULT, 6, INJ_NOTHING, 0,
     CONFORM_END_RESET, 0, "unexpected_eof",
     "a reset after every request was answered, before BYE", NULL},
    {S, "reset_after_bye", CONFORM_AFTER_BYE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_RESET, 0, "unexpected_eof",
     "a reset instead of the end of stream after BYE_ACK", NULL},
    {S, "eof_inside_hello_header", CONFORM_AT_START, W_DEFAULT, 0, INJ_CUT_NEXT,
     9, CONFORM_END_EOF, 0, "truncated",
     "9 bytes of HELLO's header, then the end of stream", NULL},
    /* ---- the server: ERROR frames of each code ---- */
    {S, "error_code_1_instead_of_hello", CONFORM_AT_START, W_DEFAULT, 0,
     INJ_ERROR, 1, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 1 instead of HELLO", NULL},
    {S, "error_code_2_mid_session", CONFORM_AT_SEQUENCE, W_DEFAULT, 2,
     INJ_ERROR, 2, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 2 instead of REQUEST 2", NULL},
    {S, "error_code_3_mid_session", CONFORM_AT_SEQUENCE, W_DEFAULT, 4,
     INJ_ERROR, 3, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 3 instead of REQUEST 4", NULL},
    {S, "error_code_4_instead_of_bye", CONFORM_AT_SEQUENCE, W_DEFAULT, 6,
     INJ_ERROR, 4, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 4 instead of BYE", NULL},

    /* ---- the client under test: valid edge sessions ---- */
    {C,
     "session_payload_0",
     CONFORM_WHOLE,
     {1, 3, 0, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session with empty payloads",
     NULL},
    {C,
     "session_payload_max",
     CONFORM_WHOLE,
     {0, 2, 1048576, 1},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session with payloads of 1048576 bytes, the maximum",
     NULL},
    {C,
     "session_in_flight_1",
     CONFORM_WHOLE,
     {2, 5, 8, 1},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session, one request in flight",
     NULL},
    {C,
     "session_in_flight_max",
     CONFORM_WHOLE,
     {0, 65536, 0, 65536},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session with 65536 requests in flight at once, the maximum",
     NULL},
    {C,
     "session_zero_warmup",
     CONFORM_WHOLE,
     {0, 4, 16, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "a whole session without warm-up",
     NULL},
    {C,
     "session_trickled",
     CONFORM_WHOLE,
     {1, 2, 8, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     1,
     NULL,
     "a whole session whose server sends one byte at a time",
     NULL},
    /* ---- the client: resets at each state, frames cut short ---- */
    {C, "reset_before_hello_ack", CONFORM_AT_START, W_DEFAULT, 0, INJ_NOTHING,
     0, CONFORM_END_RESET, 0, "unexpected_eof",
     "the connection is reset after HELLO, before HELLO_ACK", NULL},
    {C, "reset_inside_hello_ack", CONFORM_AT_START, W_DEFAULT, 0, INJ_CUT_NEXT,
     30, CONFORM_END_RESET, 0, "truncated",
     "30 bytes of HELLO_ACK, then a reset", NULL},
    {C, "reset_between_responses", CONFORM_AT_SEQUENCE, W_DEFAULT, 3,
     INJ_NOTHING, 0, CONFORM_END_RESET, 0, "unexpected_eof",
     "a reset after RESPONSE 2", NULL},
    {C, "reset_inside_response", CONFORM_AT_SEQUENCE, W_DEFAULT, 3,
     INJ_CUT_NEXT, 17, CONFORM_END_RESET, 0, "truncated",
     "the header and 1 payload byte of RESPONSE 3, then a reset", NULL},
    {C, "reset_before_bye_ack", CONFORM_AFTER_BYE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_RESET, 0, "unexpected_eof",
     "a reset after BYE, before BYE_ACK", NULL},
    {C, "reset_inside_bye_ack", CONFORM_AFTER_BYE, W_DEFAULT, 0, INJ_CUT_NEXT,
     40, CONFORM_END_RESET, 0, "truncated", "40 bytes of BYE_ACK, then a reset",
     NULL},
    {C, "eof_inside_response_header", CONFORM_AT_SEQUENCE, W_DEFAULT, 4,
     INJ_CUT_NEXT, 7, CONFORM_END_EOF, 0, "truncated",
     "7 bytes of RESPONSE 4's header, then the end of stream", NULL},
    /* ---- the client: counts compared crosswise (SPEC.md section 3) ---- */
    {C, "bye_ack_bytes_swapped", CONFORM_AFTER_BYE, W_DEFAULT, 0,
     INJ_ACK_SWAPPED, 0, CONFORM_END_NONE, 0, "count_mismatch",
     "BYE_ACK with bytes_sent and bytes_received swapped (193 and 145): "
     "counts are compared crosswise, not field by field",
     NULL},
    /* ---- the client: ERROR frames of each code, in each state ---- */
    {C, "error_code_1_instead_of_hello_ack", CONFORM_AT_START, W_DEFAULT, 0,
     INJ_ERROR, 1, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 1 (unsupported_version) instead of HELLO_ACK",
     NULL},
    {C, "error_code_2_instead_of_hello_ack", CONFORM_AT_START, W_DEFAULT, 0,
     INJ_ERROR, 2, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 2 (bad_workload) instead of HELLO_ACK", NULL},
    {C, "error_code_3_mid_session", CONFORM_AT_SEQUENCE, W_DEFAULT, 2,
     INJ_ERROR, 3, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 3 (protocol_violation) instead of RESPONSE 2",
     NULL},
    {C, "error_code_3_in_measured", CONFORM_AT_SEQUENCE, W_DEFAULT, 4,
     INJ_ERROR, 3, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 3 instead of RESPONSE 4 (measured)", NULL},
    {C, "error_code_4_instead_of_bye_ack", CONFORM_AFTER_BYE, W_DEFAULT, 0,
     INJ_ERROR, 4, CONFORM_END_NONE, 0, "peer_error",
     "an ERROR frame of code 4 (count_mismatch) instead of BYE_ACK", NULL},
    /* ---- command lines (lanes/README.md) ---- */
    {S,
     "args_listen_equals",
     CONFORM_WHOLE,
     {1, 2, 8, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "--listen=ADDRESS, one argument",
     server_equals},
    {S, "args_listen_twice", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--listen given twice: exit 2", server_twice},
    {S, "args_unknown_flag", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "an unknown flag: exit 2", server_unknown},
    {S, "args_no_listen", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "no --listen: exit 2", server_none},
    {S, "args_listen_empty", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--listen= (an empty value): exit 2",
     server_empty},
    {C,
     "args_equals_form",
     CONFORM_WHOLE,
     {1, 2, 8, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "every flag as --flag=value",
     client_equals},
    {C,
     "args_reordered",
     CONFORM_WHOLE,
     {1, 2, 8, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "the flags in another order",
     client_reordered},
    {C,
     "args_leading_zeros",
     CONFORM_WHOLE,
     {1, 2, 8, 2},
     0,
     INJ_SESSION,
     0,
     CONFORM_END_NONE,
     0,
     NULL,
     "numbers with leading zeros (01, 002)",
     client_leading_zeros},
    {C, "args_round_trips_0", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING,
     0, CONFORM_END_NONE, 0, NULL, "--round-trips 0: exit 2",
     CLIENT_ARGS("1", "0", "8", "2")},
    {C, "args_in_flight_0", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--max-in-flight 0: exit 2",
     CLIENT_ARGS("1", "2", "8", "0")},
    {C, "args_in_flight_65537", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING,
     0, CONFORM_END_NONE, 0, NULL,
     "--max-in-flight 65537, one over the maximum: exit 2",
     CLIENT_ARGS("1", "2", "8", "65537")},
    {C, "args_payload_1048577", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING,
     0, CONFORM_END_NONE, 0, NULL,
     "--payload-bytes 1048577, one over the maximum: exit 2",
     CLIENT_ARGS("1", "2", "1048577", "2")},
    {C, "args_warmup_plus_n_2_62", CONFORM_COMMAND_LINE, W_DEFAULT, 0,
     INJ_NOTHING, 0, CONFORM_END_NONE, 0, NULL,
     "--warmup 2^62-1 with --round-trips 1: W+N = 2^62: exit 2",
     CLIENT_ARGS("4611686018427387903", "1", "8", "2")},
    {C, "args_not_decimal", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--payload-bytes 0x10: exit 2",
     CLIENT_ARGS("1", "2", "0x10", "2")},
    {C, "args_signed", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--round-trips +2: exit 2",
     CLIENT_ARGS("1", "+2", "8", "2")},
    {C, "args_no_warmup", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--warmup left out: exit 2", client_no_warmup},
    {C, "args_flag_twice", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--warmup given twice, the same value: exit 2",
     client_twice},
    {C, "args_unknown_flag", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "an unknown flag: exit 2", client_unknown},
    {C, "args_no_value", CONFORM_COMMAND_LINE, W_DEFAULT, 0, INJ_NOTHING, 0,
     CONFORM_END_NONE, 0, NULL, "--max-in-flight without its value: exit 2",
     client_no_value},
};

/* The frame an honest peer sends next in the row's state. */
static size_t next_frame(const struct row *r, uint8_t *out)
{
  uint8_t p[PROTO_COUNTS_BYTES > PROTO_WORKLOAD_BYTES ? PROTO_COUNTS_BYTES
                                                      : PROTO_WORKLOAD_BYTES];
  struct proto_counts c;
  uint64_t total = r->w.warmup + r->w.round_trips;

  if (r->state == CONFORM_AT_START) {
    proto_workload_encode(p, &r->w);
    return proto_frame_encode(
        out, r->role == CONFORM_SERVER ? PROTO_HELLO : PROTO_HELLO_ACK, 0, p,
        PROTO_WORKLOAD_BYTES);
  }
  if (r->state == CONFORM_AT_SEQUENCE) {
    uint8_t *payload = out + PROTO_HEADER_BYTES;
    proto_payload_fill(payload, r->w.payload_bytes, r->sequence);
    if (r->role == CONFORM_CLIENT)
      proto_response_fill(payload, payload, r->w.payload_bytes);
    return proto_frame_encode(
        out, r->role == CONFORM_SERVER ? PROTO_REQUEST : PROTO_RESPONSE,
        r->sequence, payload, r->w.payload_bytes);
  }
  proto_counts_expected(&r->w, 1, &c);
  proto_counts_encode(p, &c);
  return proto_frame_encode(out, PROTO_BYE_ACK, total + 1, p,
                            PROTO_COUNTS_BYTES);
}

static int build(const struct row *r, struct conform_case *k)
{
  uint8_t frame[PROTO_HEADER_BYTES + 2 + PROTO_MAX_REASON_BYTES + 64];
  size_t len = 0;

  if (r->inject == INJ_ERROR) {
    len = proto_error_encode(frame, (uint16_t)r->arg, "conformance case");
  } else if (r->inject == INJ_ACK_SWAPPED) {
    struct proto_counts c;
    uint8_t p[PROTO_COUNTS_BYTES];
    uint64_t sent;
    proto_counts_expected(&r->w, 1, &c);
    sent = c.bytes_sent;
    c.bytes_sent = c.bytes_received;
    c.bytes_received = sent;
    proto_counts_encode(p, &c);
    len = proto_frame_encode(frame, PROTO_BYE_ACK,
                             r->w.warmup + r->w.round_trips + 1, p, sizeof(p));
  } else if (r->inject == INJ_CUT_NEXT) {
    len = next_frame(r, frame);
    if ((size_t)r->arg < len)
      len = (size_t)r->arg;
  }
  if (len == 0)
    return 0;
  k->input = malloc(len);
  if (k->input == NULL)
    return -1;
  memcpy(k->input, frame, len);
  k->input_len = len;
  return 0;
}

int conform_table_add(struct conform_cases *c)
{
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    const struct row *r = &rows[i];
    struct conform_case *k = conform_cases_add(c);

    if (k == NULL)
      return -1;
    k->role = r->role;
    snprintf(k->name, sizeof(k->name), "%s", r->name);
    k->state = r->state;
    k->w = r->w;
    k->sequence = r->sequence;
    k->end = r->end;
    k->trickle = r->trickle;
    k->rejection = r->rejection;
    k->args = r->args;
    snprintf(k->description, sizeof(k->description), "%s", r->description);
    k->source = "table";
    conform_case_error_rule(k);
    if (r->inject == INJ_ERROR) /* not answered with one (SPEC.md 6) */
      k->error_rule = CONFORM_ERROR_NOT_EXPECTED;
    if (build(r, k) != 0)
      return -1;
  }
  return 0;
}
