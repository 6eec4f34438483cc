/* The client's result line (runner/result.c), as the sample executor
 * reads it: the bytes of the client's stdout, not NUL-terminated.
 *
 * Properties: a result that parses has every count non-negative; checked
 * against the workload it itself reports (when that is one the protocol
 * allows), it passes exactly when its totals are those the workload
 * implies and its time is positive, at least the floor per round trip
 * and at most the lifetime; every message ends within its buffer. */
#include <stdlib.h>
#include <string.h>

#include "runner/result.h"
#include "tests/fuzz/fuzz.h"

/* A client lifetime that any elapsed_ns of a few digits stays within and
 * a longer one passes. */
#define FUZZ_RESULT_LIFETIME_NS 1000000000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct model_client_result r;
  char err[256];
  char *copy;

  /* An exact-size copy: ASan sees a read past the line's end. */
  copy = malloc(size ? size : 1);
  if (copy == NULL)
    return 0;
  memcpy(copy, data, size);
  memset(err, 'x', sizeof(err));
  if (result_parse(copy, size, &r, err, sizeof(err)) != 0) {
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL,
               "the parse error is not ended");
    free(copy);
    return 0;
  }
  free(copy);
  FUZZ_CHECK(r.round_trips >= 0 && r.warmup_round_trips >= 0 &&
                 r.payload_bytes >= 0 && r.max_in_flight >= 0 &&
                 r.frames_sent >= 0 && r.frames_received >= 0 &&
                 r.bytes_sent >= 0 && r.bytes_received >= 0 &&
                 r.elapsed_ns >= 0,
             "a negative count was accepted");
  FUZZ_CHECK(memchr(r.runtime, '\0', sizeof(r.runtime)) != NULL,
             "the runtime name is not ended");

  {
    struct proto_workload w = {
        (uint64_t)r.warmup_round_trips, (uint64_t)r.round_trips,
        (uint32_t)r.payload_bytes, (uint32_t)r.max_in_flight};
    struct proto_totals t;
    int ok;

    if (r.payload_bytes > PROTO_MAX_PAYLOAD_BYTES ||
        r.max_in_flight > (int64_t)PROTO_MAX_IN_FLIGHT ||
        proto_workload_check(&w) != 0)
      return 0;
    proto_totals_expected(&w, &t);
    ok = (uint64_t)r.frames_sent == t.frames_sent &&
         (uint64_t)r.frames_received == t.frames_received &&
         (uint64_t)r.bytes_sent == t.bytes_sent &&
         (uint64_t)r.bytes_received == t.bytes_received && r.elapsed_ns > 0 &&
         (uint64_t)r.elapsed_ns / RESULT_MIN_NS_PER_ROUND_TRIP >=
             (uint64_t)r.round_trips &&
         (uint64_t)r.elapsed_ns <= FUZZ_RESULT_LIFETIME_NS;
    memset(err, 'x', sizeof(err));
    FUZZ_CHECK((result_check(&r, &w, FUZZ_RESULT_LIFETIME_NS, err,
                             sizeof(err)) == 0) == ok,
               "result_check disagrees with the workload's totals");
    FUZZ_CHECK(ok || memchr(err, '\0', sizeof(err)) != NULL,
               "the check's message is not ended");
  }
  return 0;
}
