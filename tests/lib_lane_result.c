/* A lane client's result line checked against SPEC.md's totals (see
 * tests/lib_lane_result.h). */
#include <inttypes.h>
#include <string.h>

#include <json-c/json.h>

#include "tests/lib_lane_result.h"
#include "tests/tap.h"

int lane_result_u64(struct json_object *o, const char *key, uint64_t *v)
{
  struct json_object *f;
  if (!json_object_object_get_ex(o, key, &f) ||
      !json_object_is_type(f, json_type_int))
    return 0;
  *v = json_object_get_uint64(f);
  return 1;
}

/* The client's stdout is one JSON object on one line whose figures are
 * those of SPEC.md for w. */
int lane_result_ok(const char *out, const struct proto_workload *w,
                   const char *label)
{
  struct proto_totals t;
  struct json_object *o;
  const char *nl = strchr(out, '\n');
  int ok = 1;
  uint64_t v;
  struct field {
    const char *key;
    uint64_t want;
  } fields[8];
  size_t n = 0;

  if (nl == NULL || nl[1] != '\0') {
    tap_diag("%s: the result is not exactly one line", label);
    return 0;
  }
  o = json_tokener_parse(out);
  if (o == NULL || !json_object_is_type(o, json_type_object)) {
    tap_diag("%s: the result is not a JSON object", label);
    if (o)
      json_object_put(o);
    return 0;
  }
  proto_totals_expected(w, &t);
  fields[n++] = (struct field){"round_trips", w->round_trips};
  fields[n++] = (struct field){"warmup_round_trips", w->warmup};
  fields[n++] = (struct field){"payload_bytes", w->payload_bytes};
  fields[n++] = (struct field){"max_in_flight", w->max_in_flight};
  fields[n++] = (struct field){"frames_sent", t.frames_sent};
  fields[n++] = (struct field){"frames_received", t.frames_received};
  fields[n++] = (struct field){"bytes_sent", t.bytes_sent};
  fields[n++] = (struct field){"bytes_received", t.bytes_received};
  for (size_t i = 0; i < n; i++) {
    if (!lane_result_u64(o, fields[i].key, &v) || v != fields[i].want) {
      tap_diag("%s: %s is not %" PRIu64, label, fields[i].key, fields[i].want);
      ok = 0;
    }
  }
  if (!lane_result_u64(o, "elapsed_ns", &v) || v == 0) {
    tap_diag("%s: elapsed_ns is missing or 0", label);
    ok = 0;
  }
  json_object_put(o);
  return ok;
}
