/* The cost figures of the C peers' result lines (lanes/c/result.h). */
#include "lanes/c/result.h"

#include <inttypes.h>
#include <string.h>

#include <uv.h>

int lane_cpu_read(struct lane_cpu *cpu)
{
  uv_rusage_t ru;
  int err = uv_getrusage(&ru);

  if (err) {
    memset(cpu, 0, sizeof *cpu);
    return err;
  }
  cpu->user_us =
      (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
  cpu->system_us =
      (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
  return 0;
}

static uint64_t lane_since(uint64_t start, uint64_t end)
{
  return end > start ? end - start : 0;
}

int lane_cpu_print(FILE *out, const struct lane_cpu *start,
                   const struct lane_cpu *end)
{
  return fprintf(out, ",\"cpu_user_us\":%" PRIu64 ",\"cpu_system_us\":%" PRIu64,
                 lane_since(start->user_us, end->user_us),
                 lane_since(start->system_us, end->system_us)) < 0
             ? -1
             : 0;
}

int lane_latency_print(FILE *out, const struct hist *h)
{
  static const uint32_t q_milli[] = {HIST_P50, HIST_P90, HIST_P99, HIST_P99_9};
  static const char *const q_name[] = {"p50", "p90", "p99", "p99_9"};
  int bad = fprintf(out, ",\"latency\":{\"count\":%" PRIu64, h->count) < 0;
  const char *sep = "";

  if (h->count == 0) {
    bad |= fputs(",\"min\":null,\"max\":null", out) < 0;
    for (size_t i = 0; i < sizeof q_milli / sizeof q_milli[0]; i++)
      bad |= fprintf(out, ",\"%s\":null", q_name[i]) < 0;
  } else {
    bad |= fprintf(out, ",\"min\":%" PRId64 ",\"max\":%" PRId64, h->min,
                   h->max) < 0;
    for (size_t i = 0; i < sizeof q_milli / sizeof q_milli[0]; i++)
      bad |= fprintf(out, ",\"%s\":%" PRId64, q_name[i],
                     hist_percentile(h, q_milli[i])) < 0;
  }
  bad |= fputs(",\"buckets\":[", out) < 0;
  for (int i = 0; i < HIST_BUCKETS && !bad; i++) {
    if (h->buckets[i] == 0)
      continue;
    bad |= fprintf(out, "%s[%d,%" PRIu64 "]", sep, i, h->buckets[i]) < 0;
    sep = ",";
  }
  bad |= fputs("]}", out) < 0;
  return bad ? -1 : 0;
}
