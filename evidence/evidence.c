#include "evidence/evidence.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <uv.h>

#include "evidence/sanitize.h"
#include "evidence/compare.h"
#include "evidence/stats.h"

#define TEXT_MAX 20000

static void put(json_object *o, const char *key, json_object *v)
{
  json_object_object_add(o, key, v);
}

/* -1 means "not measured": written as null, never as a figure. */
static json_object *int_or_null(int64_t v)
{
  return v < 0 ? NULL : json_object_new_int64(v);
}

static json_object *text(const struct sanitize *s, const char *in)
{
  static char buf[TEXT_MAX];
  if (in == NULL)
    return NULL;
  return json_object_new_string(sanitize_text(s, in, buf, sizeof(buf)));
}

void evidence_reproduce(const struct evidence_run *run,
                        const struct evidence_lane *lane, char *out,
                        size_t outlen)
{
  const struct proto_workload *w = &run->workload;
  snprintf(out, outlen,
           "%s run --lanes %s --samples 1 --warmup %" PRIu64
           " --round-trips %" PRIu64 " --payload-bytes %" PRIu32
           " --max-in-flight %" PRIu32,
           run->crossrun_path, lane->name, w->warmup, w->round_trips,
           w->payload_bytes, w->max_in_flight);
}

static json_object *argv_json(const struct sanitize *s,
                              const struct peer_report *p)
{
  json_object *a = json_object_new_array();
  for (int i = 0; i < p->argc; i++)
    json_object_array_add(a, text(s, p->argv[i]));
  return a;
}

static void command_line(const struct sanitize *s, const struct peer_report *p,
                         char *out, size_t outlen)
{
  char raw[4096];
  size_t n = 0;
  raw[0] = '\0';
  for (int i = 0; i < p->argc && n < sizeof(raw); i++)
    n += (size_t)snprintf(raw + n, sizeof(raw) - n, "%s%s", i ? " " : "",
                          p->argv[i]);
  sanitize_text(s, raw, out, outlen);
}

/* keep_text 0: a passed sample's stderr is counted but not copied, so that
 * whatever a peer prints (its environment, paths) cannot reach the file. */
static json_object *peer_json(const struct sanitize *s,
                              const struct peer_report *p, int keep_text)
{
  json_object *o = json_object_new_object(), *exit, *cpu, *mem, *err;
  static char buf[TEXT_MAX];

  put(o, "started", json_object_new_boolean(p->started));
  put(o, "argv", argv_json(s, p));
  exit = json_object_new_object();
  put(exit, "reaped", json_object_new_boolean(p->reaped));
  put(exit, "by_itself", json_object_new_boolean(p->reaped && !p->forced));
  put(exit, "code", p->reaped && p->exited ? json_object_new_int(p->exit_code)
                                           : NULL);
  put(exit, "signal", p->signal ? json_object_new_string(
                                      platform_signal_name(p->signal))
                                : NULL);
  put(exit, "timed_out", json_object_new_boolean(p->timed_out));
  put(exit, "forced_termination", json_object_new_boolean(p->forced));
  put(exit, "wall_ns", p->reaped ? json_object_new_int64((int64_t)p->wall_ns)
                                 : NULL);
  put(o, "exit", exit);

  cpu = json_object_new_object();
  put(cpu, "user_ns", int_or_null(p->user_cpu_ns));
  put(cpu, "system_ns", int_or_null(p->system_cpu_ns));
  put(cpu, "source", json_object_new_string(
                         p->user_cpu_ns >= 0 ? "os_accounting_of_reaped_child"
                                             : "not_measured"));
  put(o, "cpu", cpu);

  mem = json_object_new_object();
  put(mem, "peak_rss_bytes", int_or_null(p->peak_rss_bytes));
  put(mem, "peak_rss_source",
      json_object_new_string(p->peak_rss_source ? p->peak_rss_source
                                                : "not_measured"));
  put(mem, "exit_accounting_peak_bytes",
      int_or_null(p->exit_peak_rss_bytes));
  put(mem, "os_peak_rss_bytes", int_or_null(p->os_peak_rss_bytes));
  put(mem, "coordinator_peak_rss_at_spawn_bytes",
      int_or_null(p->spawner_peak_rss_bytes));
  put(mem, "sampled_peak_since_exec_bytes",
      int_or_null(p->sampled_peak_rss_bytes));
  put(mem, "sampled_rss_max_bytes", int_or_null(p->sampled_rss_max_bytes));
  put(mem, "samples", json_object_new_int(p->memory_samples));
  put(o, "memory", mem);

  err = json_object_new_object();
  put(err, "bytes", json_object_new_int64((int64_t)p->err.total));
  put(err, "truncated", json_object_new_boolean(capture_truncated(&p->err)));
  if (p->err.buf != NULL && keep_text) {
    capture_text(&p->err, buf, sizeof(buf));
    put(err, "text", text(s, buf));
  } else {
    put(err, "text", NULL);
  }
  put(o, "stderr", err);
  put(o, "stdout_bytes", json_object_new_int64((int64_t)p->stdout_bytes));
  return o;
}

static json_object *result_json(const struct client_result *r)
{
  json_object *o = json_object_new_object();
  put(o, "round_trips", json_object_new_int64(r->round_trips));
  put(o, "warmup_round_trips", json_object_new_int64(r->warmup_round_trips));
  put(o, "payload_bytes", json_object_new_int64(r->payload_bytes));
  put(o, "max_in_flight", json_object_new_int64(r->max_in_flight));
  put(o, "frames_sent", json_object_new_int64(r->frames_sent));
  put(o, "frames_received", json_object_new_int64(r->frames_received));
  put(o, "bytes_sent", json_object_new_int64(r->bytes_sent));
  put(o, "bytes_received", json_object_new_int64(r->bytes_received));
  put(o, "elapsed_ns", json_object_new_int64(r->elapsed_ns));
  if (r->runtime[0])
    put(o, "runtime", json_object_new_string(r->runtime));
  return o;
}

static json_object *sample_json(const struct evidence_run *run,
                                const struct evidence_lane *lane,
                                const struct evidence_sample *es,
                                const struct sanitize *run_rules)
{
  const struct sample_result *r = &es->result;
  json_object *o = json_object_new_object(), *checks, *failure, *repro;
  /* Each sample's temporary directory is scrubbed from its own text; the
   * rule is removed again below. */
  struct sanitize *s = (struct sanitize *)run_rules;
  char line[4096];

  sanitize_add(s, r->temp_dir, "$TMPDIR");
  put(o, "round", json_object_new_int(es->round));
  put(o, "order_in_round", json_object_new_int(es->order));
  put(o, "status", json_object_new_string(sample_status_name(r->status)));
  if (r->status == SAMPLE_PASSED) {
    failure = NULL;
  } else {
    failure = json_object_new_object();
    put(failure, "stage", json_object_new_string(r->failure_stage
                                                     ? r->failure_stage
                                                     : "runner"));
    put(failure, "reason", json_object_new_string(r->failure_reason
                                                      ? r->failure_reason
                                                      : "error"));
    put(failure, "message", text(s, r->message));
  }
  put(o, "failure", failure);
  put(o, "elapsed_ns", r->have_result && r->status == SAMPLE_PASSED
                           ? json_object_new_int64(r->result.elapsed_ns)
                           : NULL);
  put(o, "ns_per_round_trip",
      r->have_result && r->status == SAMPLE_PASSED && r->result.round_trips
          ? json_object_new_double((double)r->result.elapsed_ns /
                                   (double)r->result.round_trips)
          : NULL);
  put(o, "port", r->port > 0 ? json_object_new_int(r->port) : NULL);
  put(o, "server_ready_ns",
      r->port > 0 ? json_object_new_int64((int64_t)r->ready_ns) : NULL);
  put(o, "wall_ns", json_object_new_int64((int64_t)r->wall_ns));
  put(o, "result", r->have_result ? result_json(&r->result) : NULL);
  checks = json_object_new_object();
  for (int i = 0; i < CHECK_COUNT; i++) {
    json_object *c = json_object_new_object();
    const struct check_outcome *ck = &r->checks[i];
    put(c, "outcome", json_object_new_string(
                          !ck->ran ? "not_run" : ck->passed ? "passed"
                                                            : "failed"));
    put(c, "reason", text(s, ck->reason));
    put(checks, sample_check_name((enum check_id)i), c);
  }
  put(o, "checks", checks);
  put(o, "server", peer_json(s, &r->server, r->status != SAMPLE_PASSED));
  put(o, "client", peer_json(s, &r->client, r->status != SAMPLE_PASSED));
  put(o, "retried", json_object_new_boolean(es->retried));
  if (es->retried) {
    const struct sample_result *f = &es->first_attempt;
    json_object *first = json_object_new_object();
    put(first, "status", json_object_new_string(sample_status_name(f->status)));
    put(first, "stage", json_object_new_string(f->failure_stage
                                                   ? f->failure_stage
                                                   : "runner"));
    put(first, "reason", json_object_new_string(f->failure_reason
                                                    ? f->failure_reason
                                                    : "error"));
    put(first, "message", text(s, f->message));
    put(o, "first_attempt", first);
  } else {
    put(o, "first_attempt", NULL);
  }
  repro = json_object_new_object();
  evidence_reproduce(run, lane, line, sizeof(line));
  put(repro, "crossrun", text(s, line));
  command_line(s, &r->server, line, sizeof(line));
  put(repro, "server", json_object_new_string(line));
  command_line(s, &r->client, line, sizeof(line));
  put(repro, "client", json_object_new_string(line));
  put(o, "reproduce", repro);
  sanitize_remove(s, r->temp_dir);
  return o;
}

static json_object *argv_list(const struct sanitize *s,
                              const struct lanes_argv *a)
{
  json_object *arr;
  if (a->argv[0] == NULL)
    return NULL;
  arr = json_object_new_array();
  for (int i = 0; a->argv[i] != NULL; i++)
    json_object_array_add(arr, text(s, a->argv[i]));
  return arr;
}

static json_object *package_json(const struct prepare_package *p,
                                 const struct sanitize *s)
{
  json_object *o = json_object_new_object(), *entries;

  if (!p->measured) {
    put(o, "error", text(s, p->error));
    return o;
  }
  put(o, "file_name", json_object_new_string(p->package.file_name));
  put(o, "format", json_object_new_string(p->package.format));
  put(o, "packed_bytes", json_object_new_int64(p->package.packed_bytes));
  put(o, "unpacked_bytes", json_object_new_int64(p->package.unpacked_bytes));
  put(o, "file_count", json_object_new_int(p->package.file_count));
  put(o, "sha256", json_object_new_string(p->package.sha256));
  put(o, "repack_sha256", p->repack_sha256[0]
                              ? json_object_new_string(p->repack_sha256)
                              : NULL);
  put(o, "reproducible", p->reproducible < 0
                             ? NULL
                             : json_object_new_boolean(p->reproducible));
  put(o, "pack_wall_ns", json_object_new_int64((int64_t)p->wall_ns));
  entries = json_object_new_array();
  for (int i = 0; i < p->package.nentries; i++) {
    json_object *e = json_object_new_object();
    put(e, "path", text(s, p->package.entries[i].path));
    put(e, "size_bytes", json_object_new_int64(p->package.entries[i].size_bytes));
    json_object_array_add(entries, e);
  }
  put(o, "entries", entries);
  return o;
}

static json_object *raw_or_null(const char *v)
{
  char buf[512];
  if (v == NULL || v[0] == '\0')
    return NULL;
  snprintf(buf, sizeof(buf), "%s", v);
  sanitize_utf8(buf);
  return json_object_new_string(buf);
}

static json_object *provenance_json(const struct evidence_run *run,
                                    const struct sanitize *s)
{
  const struct evidence_provenance *p = run->provenance;
  json_object *o, *ci, *files;
  char governor[64];

  if (p == NULL)
    return NULL;
  o = json_object_new_object();
  /* Provenance is what identifies the run, on purpose: written as read
   * (the CI's variables included), not scrubbed. */
  put(o, "commit", raw_or_null(p->commit));
  put(o, "branch", raw_or_null(p->branch));
  put(o, "clean", p->clean < 0 ? NULL : json_object_new_boolean(p->clean));
  ci = json_object_new_object();
  put(ci, "detected", json_object_new_boolean(p->in_ci));
  put(ci, "provider", raw_or_null(p->ci_provider));
  put(ci, "workflow", raw_or_null(p->ci_workflow));
  put(ci, "run_id", raw_or_null(p->ci_run_id));
  put(ci, "run_attempt", raw_or_null(p->ci_run_attempt));
  put(o, "ci", ci);
  files = json_object_new_object();
  for (int i = 0; i < p->nmatrix; i++)
    put(files, p->matrix[i].file, json_object_new_string(p->matrix[i].sha256));
  put(o, "matrix_sha256", files);
  snprintf(governor, sizeof(governor), "%s", run->machine.cpu_governor);
  put(o, "cpu_governor", governor[0] ? json_object_new_string(governor)
                                     : NULL);
  put(o, "load_average_1m_at_start",
      run->machine.load_average_1m >= 0
          ? json_object_new_double(run->machine.load_average_1m)
          : NULL);
  return o;
}

/* "FILE:LINE" with FILE relative to the root when it lies below it. */
static const char *lanes_display_source(const char *root, const char *source)
{
  size_t n = strlen(root);
  if (n > 0 && strncmp(source, root, n) == 0 && source[n] == '/')
    return source + n + 1;
  return source;
}

static json_object *runtimes_json(const struct evidence_run *run,
                                  const struct sanitize *s)
{
  json_object *all = json_object_new_object();

  for (int i = 0; i < run->nruntimes; i++) {
    const struct runtime *r = run->runtimes[i];
    json_object *o = json_object_new_object();
    json_object *pkg = NULL;

    put(o, "declared_at", text(s, lanes_display_source(run->root, r->source)));
    put(o, "client", argv_list(s, &r->client));
    put(o, "server", argv_list(s, &r->server));
    put(o, "build", argv_list(s, &r->build));
    put(o, "version_command", argv_list(s, &r->version));
    /* As the toolchain printed it: a version is not scrubbed. */
    put(o, "toolchain_version", raw_or_null(r->toolchain_version));
    put(o, "toolchain_pinned", json_object_new_boolean(r->pinned));
    put(o, "status", json_object_new_string(
                         r->broken ? "broken" : r->available ? "available"
                                                             : "unavailable"));
    put(o, "reason", r->why_unavailable[0] ? text(s, r->why_unavailable)
                                           : NULL);
    for (int p = 0; p < run->npackages; p++)
      if (run->packages[p].runtime == r)
        pkg = package_json(&run->packages[p], s);
    if (pkg == NULL && r->package.present) {
      pkg = json_object_new_object();
      put(pkg, "error", json_object_new_string(
                            run->packages_skipped
                                ? "not measured: --no-packages"
                                : "not measured: the runtime is not usable"));
    }
    put(o, "package", pkg);
    put(all, r->name, o);
  }
  return all;
}

static json_object *lane_summary_json(const struct evidence_lane *lane)
{
  struct stats_lane st;
  json_object *o = json_object_new_object();

  stats_lane_compute(lane->samples, lane->nsamples, &st);
  put(o, "samples", json_object_new_int(lane->nsamples));
  put(o, "passed", json_object_new_int(st.passed));
  put(o, "status", json_object_new_string(stats_lane_status(lane, &st)));
  put(o, "ns_per_round_trip_median",
      st.timed > 0 ? json_object_new_double(st.ns_per_rt.median) : NULL);
  put(o, "ns_per_round_trip_min",
      st.timed > 0 ? json_object_new_double(st.ns_per_rt.min) : NULL);
  put(o, "ns_per_round_trip_max",
      st.timed > 0 ? json_object_new_double(st.ns_per_rt.max) : NULL);
  put(o, "client_peak_rss_bytes_median",
      st.client_rss.n ? json_object_new_int64((int64_t)st.client_rss.median)
                      : NULL);
  put(o, "server_peak_rss_bytes_median",
      st.server_rss.n ? json_object_new_int64((int64_t)st.server_rss.median)
                      : NULL);
  put(o, "client_cpu_ns_median",
      st.client_cpu.n ? json_object_new_int64((int64_t)st.client_cpu.median)
                      : NULL);
  put(o, "server_cpu_ns_median",
      st.server_cpu.n ? json_object_new_int64((int64_t)st.server_cpu.median)
                      : NULL);
  {
    char why[256];
    int stable = compare_stable(lane, why, sizeof(why));
    put(o, "stable", stable < 0 ? NULL : json_object_new_boolean(stable));
    put(o, "unstable_reasons",
        stable == 0 ? json_object_new_string(why) : NULL);
    put(o, "min_max_interval_confidence",
        st.timed > 0 ? json_object_new_double(compare_minmax_coverage(st.timed))
                     : NULL);
  }
  return o;
}

static const struct evidence_lane *find_lane(const struct evidence_run *run,
                                             const char *name)
{
  for (int i = 0; i < run->nlanes; i++)
    if (strcmp(run->lanes[i].name, name) == 0)
      return &run->lanes[i];
  return NULL;
}

static void add_comparison(json_object *all, const struct evidence_lane *a,
                           const struct evidence_lane *b)
{
  struct compare_result r;
  json_object *o;
  char key[160];

  if (a == NULL || b == NULL || a == b || compare_lanes(a, b, &r) != 0)
    return;
  snprintf(key, sizeof(key), "%s vs %s", a->name, b->name);
  o = json_object_new_object();
  put(o, "lane", json_object_new_string(a->name));
  put(o, "reference", json_object_new_string(b->name));
  put(o, "ratio_of_medians", json_object_new_double(r.ratio));
  put(o, "mann_whitney_u", json_object_new_double(r.u));
  put(o, "p_value_exact", json_object_new_double(r.p));
  put(o, "verdict", json_object_new_string(r.verdict));
  put(all, key, o);
}

/* Each lane against c-c, and the same-runtime lanes against each other.
 * None for a smoke run: its timings are not evidence. */
static json_object *comparisons_json(const struct evidence_run *run)
{
  const struct evidence_lane *ref = find_lane(run, EVIDENCE_REFERENCE_LANE);
  json_object *all;

  if (!run->performance_claims)
    return NULL;
  all = json_object_new_object();
  for (int i = 0; i < run->nlanes; i++)
    add_comparison(all, &run->lanes[i], ref);
  for (int i = 0; i < run->nlanes; i++) {
    const struct evidence_lane *a = &run->lanes[i];
    if (strcmp(a->client_runtime, a->server_runtime) != 0)
      continue;
    for (int j = i + 1; j < run->nlanes; j++) {
      const struct evidence_lane *b = &run->lanes[j];
      if (strcmp(b->client_runtime, b->server_runtime) == 0 && a != ref &&
          b != ref)
        add_comparison(all, b, a);
    }
  }
  return all;
}

void evidence_cleanliness(const struct evidence_run *run,
                          struct evidence_cleanliness *c)
{
  memset(c, 0, sizeof(*c));
  for (int l = 0; l < run->nlanes; l++) {
    for (int i = 0; i < run->lanes[l].nsamples; i++) {
      const struct sample_result *r = &run->lanes[l].samples[i].result;
      if (!r->server.started)
        continue;
      c->pairs_started++;
      if (r->server.reaped && !r->server.forced && r->client.reaped &&
          !r->client.forced)
        c->natural_exits++;
      c->processes_left += r->orphans.count;
      if (r->checks[CHECK_PORT_FREE].ran && !r->checks[CHECK_PORT_FREE].passed)
        c->sockets_left++;
      c->forced_terminations += r->server.forced + r->client.forced;
      c->temp_entries_left += r->leftovers.count;
    }
  }
}

static json_object *document(const struct evidence_run *run)
{
  json_object *doc = json_object_new_object(), *o, *lanes;
  struct evidence_cleanliness cl;
  struct sanitize s;
  char seed[32];

  sanitize_init(&s, run->root);
  put(doc, "schema_version", json_object_new_int(EVIDENCE_SCHEMA_VERSION));
  o = json_object_new_object();
  put(o, "name", json_object_new_string("crossrun"));
  put(o, "version", json_object_new_string(run->tool_version));
  put(doc, "tool", o);
  put(doc, "mode", json_object_new_string(run->mode));
  put(doc, "performance_claims",
      json_object_new_boolean(run->performance_claims));
  if (!run->performance_claims)
    put(doc, "performance_note",
        json_object_new_string("smoke check: no performance claims; the "
                               "workload is too small for its timings to "
                               "mean anything"));
  put(doc, "official", json_object_new_boolean(run->official));
  put(doc, "complete", json_object_new_boolean(run->complete));
  put(doc, "incomplete_reason", run->incomplete_reason
                                    ? json_object_new_string(
                                          run->incomplete_reason)
                                    : NULL);
  put(doc, "started_at", json_object_new_string(run->started_at));

  o = json_object_new_object();
  put(o, "os", json_object_new_string(run->machine.os));
  put(o, "arch", json_object_new_string(run->machine.arch));
  put(o, "kernel", json_object_new_string(run->machine.kernel));
  put(o, "cpu_model", json_object_new_string(run->machine.cpu_model));
  put(o, "logical_cpus", json_object_new_int(run->machine.logical_cpus));
  put(o, "memory_bytes", int_or_null(run->machine.memory_bytes));
  put(doc, "machine", o);

  o = json_object_new_object();
  put(o, "name", json_object_new_string(run->workload_name));
  put(o, "warmup_round_trips", json_object_new_int64(
                                   (int64_t)run->workload.warmup));
  put(o, "round_trips", json_object_new_int64(
                            (int64_t)run->workload.round_trips));
  put(o, "payload_bytes", json_object_new_int64(run->workload.payload_bytes));
  put(o, "max_in_flight", json_object_new_int64(run->workload.max_in_flight));
  put(o, "samples_per_lane", json_object_new_int(run->samples_per_lane));
  put(doc, "workload", o);

  o = json_object_new_object();
  snprintf(seed, sizeof(seed), "%" PRIu64, run->seed);
  put(o, "seed", json_object_new_string(seed));
  put(o, "host", json_object_new_string(run->host));
  put(o, "ready_timeout_ms", json_object_new_int64(
                                 (int64_t)run->limits.ready_timeout_ms));
  put(o, "client_timeout_ms", json_object_new_int64(
                                  (int64_t)run->limits.client_timeout_ms));
  put(o, "exit_timeout_ms", json_object_new_int64(
                                (int64_t)run->limits.exit_timeout_ms));
  put(o, "kill_grace_ms", json_object_new_int64(
                              (int64_t)run->limits.kill_grace_ms));
  put(o, "memory_sampling_interval_ms",
      json_object_new_int64((int64_t)run->limits.tick_ms));
  put(o, "stderr_kept_bytes", json_object_new_int64(
                                  (int64_t)run->limits.stderr_limit));
  put(doc, "settings", o);

  o = json_object_new_object();
  put(o, "peak_rss", json_object_new_string(platform_peak_rss_method()));
  put(o, "sampled_rss", json_object_new_string(platform_sampled_rss_method()));
  put(o, "cpu", json_object_new_string(
                    "user and system CPU time of the reaped child, from the "
                    "OS (wait4 rusage on Linux and macOS, process times on "
                    "Windows)"));
  put(o, "elapsed", json_object_new_string(
                        "the client's own monotonic clock over the measured "
                        "round trips only"));
  put(doc, "methods", o);

  put(doc, "provenance", provenance_json(run, &s));
  if (run->shard_count > 0) {
    o = json_object_new_object();
    put(o, "index", json_object_new_int(run->shard_index));
    put(o, "count", json_object_new_int(run->shard_count));
    put(o, "lanes_total", json_object_new_int(run->lanes_total));
    put(doc, "shard", o);
  } else {
    put(doc, "shard", NULL);
  }
  put(doc, "runtimes", runtimes_json(run, &s));
  o = json_object_new_array();
  for (int i = 0; i < run->nmatrix; i++)
    json_object_array_add(o, text(&s, run->matrix_files[i]));
  put(doc, "matrix_files", o);

  lanes = json_object_new_object();
  for (int l = 0; l < run->nlanes; l++) {
    const struct evidence_lane *lane = &run->lanes[l];
    json_object *lo = json_object_new_object(), *samples;
    put(lo, "client_runtime", json_object_new_string(lane->client_runtime));
    put(lo, "server_runtime", json_object_new_string(lane->server_runtime));
    put(lo, "unavailable_reason", lane->unavailable_reason
                                      ? text(&s, lane->unavailable_reason)
                                      : NULL);
    put(lo, "error_reason",
        lane->error_reason ? text(&s, lane->error_reason) : NULL);
    put(lo, "expected_failure_reason", lane->expected_failure
                                           ? text(&s, lane->expected_failure)
                                           : NULL);
    put(lo, "summary", lane_summary_json(lane));
    samples = json_object_new_array();
    for (int i = 0; i < lane->nsamples; i++)
      json_object_array_add(samples,
                            sample_json(run, lane, &lane->samples[i], &s));
    put(lo, "samples", samples);
    put(lanes, lane->name, lo);
  }
  put(doc, "lanes", lanes);

  put(doc, "comparisons", comparisons_json(run));

  evidence_cleanliness(run, &cl);
  o = json_object_new_object();
  put(o, "pairs_started", json_object_new_int(cl.pairs_started));
  put(o, "natural_exits", json_object_new_int(cl.natural_exits));
  put(o, "processes_left", json_object_new_int(cl.processes_left));
  put(o, "sockets_left", json_object_new_int(cl.sockets_left));
  put(o, "forced_terminations", json_object_new_int(cl.forced_terminations));
  put(o, "temp_entries_left", json_object_new_int(cl.temp_entries_left));
  put(doc, "cleanliness", o);
  sanitize_release(&s);
  return doc;
}

int evidence_write(const struct evidence_run *run, const char *path,
                   char *err, size_t errlen)
{
  json_object *doc = document(run);
  const char *body = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
               JSON_C_TO_STRING_NOSLASHESCAPE);
  char tmp[4200];
  FILE *f;
  int rc = 0;

  snprintf(tmp, sizeof(tmp), "%s.partial", path);
  f = fopen(tmp, "w");
  if (f == NULL) {
    snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
    json_object_put(doc);
    return -1;
  }
  if (fputs(body, f) < 0 || fputc('\n', f) < 0)
    rc = -1;
  if (fclose(f) != 0)
    rc = -1;
  if (rc == 0) {
    uv_fs_t req;
    /* uv_fs_rename replaces an existing file on every OS. */
    rc = uv_fs_rename(NULL, &req, tmp, path, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    snprintf(err, errlen, "cannot write '%s'", path);
    remove(tmp);
  }
  json_object_put(doc);
  return rc == 0 ? 0 : -1;
}
