#include "evidence/write/evidence.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/write/sanitize.h"
#include "evidence/write/compare.h"
#include "evidence/write/cost.h"
#include "evidence/write/evidence_json.h"
#include "evidence/write/stats.h"

static json_object *argv_json(const struct sanitize *s,
                              const struct model_peer *p)
{
  json_object *a = json_object_new_array();
  for (int i = 0; i < p->argc; i++)
    json_object_array_add(a, evidence_text(s, p->argv[i]));
  return a;
}

/* keep_text 0: a passed sample's stderr is counted but not copied, so that
 * whatever a peer prints (its environment, paths) cannot reach the file. */
static json_object *peer_json(const struct sanitize *s,
                              const struct model_peer *p, int keep_text)
{
  json_object *o = json_object_new_object(), *exit, *cpu, *mem, *err;
  static char buf[EVIDENCE_TEXT_MAX];

  evidence_put(o, "started", json_object_new_boolean(p->started));
  evidence_put(o, "argv", argv_json(s, p));
  exit = json_object_new_object();
  evidence_put(exit, "reaped", json_object_new_boolean(p->reaped));
  evidence_put(exit, "by_itself",
               json_object_new_boolean(p->reaped && !p->forced));
  evidence_put(exit, "code",
               p->reaped && p->exited ? json_object_new_int(p->exit_code)
                                      : NULL);
  evidence_put(exit, "signal",
               p->signal ? json_object_new_string(p->signal_name) : NULL);
  evidence_put(exit, "timed_out", json_object_new_boolean(p->timed_out));
  evidence_put(exit, "forced_termination", json_object_new_boolean(p->forced));
  evidence_put(exit, "wall_ns",
               p->reaped ? json_object_new_int64((int64_t)p->wall_ns) : NULL);
  evidence_put(o, "exit", exit);

  cpu = json_object_new_object();
  evidence_put(cpu, "user_ns", evidence_int_or_null(p->user_cpu_ns));
  evidence_put(cpu, "system_ns", evidence_int_or_null(p->system_cpu_ns));
  evidence_put(cpu, "source",
               json_object_new_string(p->user_cpu_ns >= 0
                                          ? "os_accounting_of_reaped_child"
                                          : "not_measured"));
  evidence_put(o, "cpu", cpu);

  mem = json_object_new_object();
  evidence_put(mem, "peak_rss_bytes", evidence_int_or_null(p->peak_rss_bytes));
  evidence_put(mem, "peak_rss_source",
               json_object_new_string(p->peak_rss_source ? p->peak_rss_source
                                                         : "not_measured"));
  evidence_put(mem, "exit_accounting_peak_bytes",
               evidence_int_or_null(p->exit_peak_rss_bytes));
  evidence_put(mem, "os_peak_rss_bytes",
               evidence_int_or_null(p->os_peak_rss_bytes));
  evidence_put(mem, "coordinator_peak_rss_at_spawn_bytes",
               evidence_int_or_null(p->spawner_peak_rss_bytes));
  evidence_put(mem, "sampled_peak_since_exec_bytes",
               evidence_int_or_null(p->sampled_peak_rss_bytes));
  evidence_put(mem, "sampled_rss_max_bytes",
               evidence_int_or_null(p->sampled_rss_max_bytes));
  evidence_put(mem, "samples", json_object_new_int(p->memory_samples));
  evidence_peer_tree_fields(s, p, o, cpu, mem);
  evidence_put(o, "memory", mem);

  err = json_object_new_object();
  evidence_put(err, "bytes", json_object_new_int64((int64_t)p->err.total));
  evidence_put(err, "truncated",
               json_object_new_boolean(capture_truncated(&p->err)));
  if (p->err.buf != NULL && keep_text) {
    capture_text(&p->err, buf, sizeof(buf));
    evidence_put(err, "text", evidence_text(s, buf));
  } else {
    evidence_put(err, "text", NULL);
  }
  evidence_put(o, "stderr", err);
  evidence_put(o, "stdout_bytes",
               json_object_new_int64((int64_t)p->stdout_bytes));
  return o;
}

/* The counts and wire bytes both result lines carry, by the lines' own
 * names (lanes/README.md). */
static void counts_put(json_object *o, const int64_t v[8])
{
  static const char *const names[8] = {
      "round_trips", "warmup_round_trips", "payload_bytes", "max_in_flight",
      "frames_sent", "frames_received",    "bytes_sent",    "bytes_received"};
  for (int i = 0; i < 8; i++)
    evidence_put(o, names[i], json_object_new_int64(v[i]));
}

/* A result line's tls object as the peer gave it (printable ASCII: the
 * parser refused anything else). */
static json_object *tls_json(const struct model_tls *t)
{
  json_object *o = json_object_new_object();
  evidence_put(o, "version", json_object_new_string(t->version));
  evidence_put(o, "cipher", json_object_new_string(t->cipher));
  evidence_put(o, "alpn", json_object_new_string(t->alpn));
  if (t->handshake_ns >= 0)
    evidence_put(o, "handshake_ns", json_object_new_int64(t->handshake_ns));
  return o;
}

static json_object *result_json(const struct model_client_result *r)
{
  json_object *o = json_object_new_object();
  const int64_t counts[8] = {r->round_trips,   r->warmup_round_trips,
                             r->payload_bytes, r->max_in_flight,
                             r->frames_sent,   r->frames_received,
                             r->bytes_sent,    r->bytes_received};
  counts_put(o, counts);
  evidence_put(o, "elapsed_ns", json_object_new_int64(r->elapsed_ns));
  if (r->runtime[0])
    evidence_put(o, "runtime", json_object_new_string(r->runtime));
  /* The cost fields are written as the client gave them: absent stays
   * absent ("not reported"), never 0. */
  if (r->cpu_user_us >= 0)
    evidence_put(o, "cpu_user_us", json_object_new_int64(r->cpu_user_us));
  if (r->cpu_system_us >= 0)
    evidence_put(o, "cpu_system_us", json_object_new_int64(r->cpu_system_us));
  if (r->has_latency)
    evidence_put(o, "latency", cost_latency_json(&r->latency));
  if (r->tls.reported)
    evidence_put(o, "tls", tls_json(&r->tls));
  return o;
}

static json_object *server_result_json(const struct model_server_result *r)
{
  json_object *o = json_object_new_object();
  const int64_t counts[8] = {r->round_trips,   r->warmup_round_trips,
                             r->payload_bytes, r->max_in_flight,
                             r->frames_sent,   r->frames_received,
                             r->bytes_sent,    r->bytes_received};
  counts_put(o, counts);
  evidence_put(o, "cpu_user_us", json_object_new_int64(r->cpu_user_us));
  evidence_put(o, "cpu_system_us", json_object_new_int64(r->cpu_system_us));
  if (r->runtime[0])
    evidence_put(o, "runtime", json_object_new_string(r->runtime));
  if (r->tls.reported)
    evidence_put(o, "tls", tls_json(&r->tls));
  return o;
}

static json_object *checks_json(const struct sanitize *s,
                                const struct model_sample *r)
{
  json_object *checks = json_object_new_object();

  for (int i = 0; i < MODEL_CHECK_COUNT; i++) {
    json_object *c = json_object_new_object();
    const struct model_check_outcome *ck = &r->checks[i];
    evidence_put(c, "outcome",
                 json_object_new_string(!ck->ran     ? "not_run"
                                        : ck->passed ? "passed"
                                                     : "failed"));
    evidence_put(c, "reason", evidence_message(s, ck->reason));
    evidence_put(checks, model_check_name((enum model_check)i), c);
  }
  return checks;
}

/* The failed first attempt of a retried sample: why it failed and its raw
 * record (checks, peers), so that what it left behind stays evidence. */
static json_object *first_attempt_json(struct sanitize *s,
                                       const struct model_sample *f)
{
  json_object *first = json_object_new_object();

  sanitize_add(s, f->temp_dir, "$TMPDIR");
  evidence_put(first, "status",
               json_object_new_string(model_status_name(f->status)));
  evidence_put(
      first, "stage",
      json_object_new_string(f->failure_stage ? f->failure_stage : "runner"));
  evidence_put(
      first, "reason",
      json_object_new_string(f->failure_reason ? f->failure_reason : "error"));
  evidence_put(first, "message", evidence_message(s, f->message));
  evidence_put(first, "port",
               f->port > 0 ? json_object_new_int(f->port) : NULL);
  evidence_put(first, "wall_ns", json_object_new_int64((int64_t)f->wall_ns));
  evidence_put(first, "checks", checks_json(s, f));
  evidence_put(first, "processes_left", json_object_new_int(f->orphans.count));
  evidence_put(first, "temp_entries_left",
               json_object_new_int(f->leftovers.count));
  evidence_put(first, "server", peer_json(s, &f->server, 1));
  evidence_put(first, "client", peer_json(s, &f->client, 1));
  sanitize_remove(s, f->temp_dir);
  return first;
}

/* The commands that rerun the sample (evidence_reproduce_argv): its
 * directory, its words, the line for /bin/sh, and the peers' lines. */
static json_object *reproduce_json(const struct evidence_run *run,
                                   const struct evidence_lane *lane,
                                   const struct model_sample *r,
                                   const struct sanitize *s)
{
  static struct evidence_words w;
  json_object *o = json_object_new_object(), *argv;
  char line[8192];

  evidence_reproduce_argv(run, lane, s, &w);
  evidence_put(o, "directory",
               json_object_new_string(EVIDENCE_REPRODUCE_DIRECTORY));
  argv = json_object_new_array();
  for (int i = 0; i < w.argc; i++)
    json_object_array_add(argv, json_object_new_string(w.argv[i]));
  evidence_put(o, "argv", argv);
  evidence_reproduce_line(&w, line, sizeof(line));
  sanitize_utf8(line);
  evidence_put(o, "crossrun", json_object_new_string(line));
  evidence_reproduce_peer(s, &r->server, lane->server_dir, 0, line,
                          sizeof(line));
  sanitize_utf8(line);
  evidence_put(o, "server", json_object_new_string(line));
  evidence_reproduce_peer(s, &r->client, lane->client_dir, r->port, line,
                          sizeof(line));
  sanitize_utf8(line);
  evidence_put(o, "client", json_object_new_string(line));
  return o;
}

static json_object *sample_json(const struct evidence_run *run,
                                const struct evidence_lane *lane,
                                const struct evidence_sample *es,
                                const struct sanitize *run_rules)
{
  const struct model_sample *r = &es->result;
  json_object *o = json_object_new_object(), *failure;
  /* Each sample's temporary directory is scrubbed from its own text; the
   * rule is removed again below. */
  struct sanitize *s = (struct sanitize *)run_rules;
  sanitize_add(s, r->temp_dir, "$TMPDIR");
  evidence_put(o, "round", json_object_new_int(es->round));
  evidence_put(o, "order_in_round", json_object_new_int(es->order));
  evidence_put(o, "status",
               json_object_new_string(model_status_name(r->status)));
  if (r->status == MODEL_PASSED) {
    failure = NULL;
  } else {
    failure = json_object_new_object();
    evidence_put(
        failure, "stage",
        json_object_new_string(r->failure_stage ? r->failure_stage : "runner"));
    evidence_put(failure, "reason",
                 json_object_new_string(r->failure_reason ? r->failure_reason
                                                          : "error"));
    evidence_put(failure, "message", evidence_message(s, r->message));
  }
  evidence_put(o, "failure", failure);
  evidence_put(o, "elapsed_ns",
               r->have_result && r->status == MODEL_PASSED
                   ? json_object_new_int64(r->result.elapsed_ns)
                   : NULL);
  evidence_put(o, "ns_per_round_trip",
               r->have_result && r->status == MODEL_PASSED &&
                       r->result.round_trips
                   ? json_object_new_double((double)r->result.elapsed_ns /
                                            (double)r->result.round_trips)
                   : NULL);
  evidence_put(o, "port", r->port > 0 ? json_object_new_int(r->port) : NULL);
  evidence_put(o, "server_ready_ns",
               r->port > 0 ? json_object_new_int64((int64_t)r->ready_ns)
                           : NULL);
  evidence_put(o, "wall_ns", json_object_new_int64((int64_t)r->wall_ns));
  evidence_put(o, "result", r->have_result ? result_json(&r->result) : NULL);
  evidence_put(o, "server_result",
               r->have_server_result ? server_result_json(&r->server_result)
                                     : NULL);
  evidence_put(o, "cost", cost_sample_json(r));
  evidence_put(o, "checks", checks_json(s, r));
  /* The raw counts behind cleanliness, so that its totals can be
   * recomputed from the samples. */
  evidence_put(o, "processes_left", json_object_new_int(r->orphans.count));
  evidence_put(o, "temp_entries_left", json_object_new_int(r->leftovers.count));
  evidence_put(o, "server",
               peer_json(s, &r->server, r->status != MODEL_PASSED));
  evidence_put(o, "client",
               peer_json(s, &r->client, r->status != MODEL_PASSED));
  evidence_put(o, "coordinator", evidence_sample_coordinator_json(r));
  evidence_put(o, "retried", json_object_new_boolean(es->retried));
  evidence_put(o, "first_attempt",
               es->retried ? first_attempt_json(s, &es->first_attempt) : NULL);
  evidence_put(o, "reproduce", reproduce_json(run, lane, r, s));
  sanitize_remove(s, r->temp_dir);
  return o;
}

/* A median of whole figures as an integer. The mean of two figures near
 * INT64_MAX (a hostile file's, which json-c clamps there) rounds to 2^63 as
 * a double, which no int64_t holds: such a median is clamped. */
static int64_t median_int64(double median)
{
  if (median >= 9223372036854775807.0)
    return INT64_MAX;
  if (median <= -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t)median;
}

json_object *evidence_lane_summary_json(const struct evidence_lane *lane)
{
  struct stats_lane st;
  json_object *o = json_object_new_object();

  stats_lane_compute(lane->samples, lane->nsamples, &st);
  evidence_put(o, "samples", json_object_new_int(lane->nsamples));
  evidence_put(o, "passed", json_object_new_int(st.passed));
  evidence_put(o, "status",
               json_object_new_string(stats_lane_status(lane, &st)));
  evidence_put(o, "ns_per_round_trip_median",
               st.timed > 0 ? json_object_new_double(st.ns_per_rt.median)
                            : NULL);
  evidence_put(o, "ns_per_round_trip_min",
               st.timed > 0 ? json_object_new_double(st.ns_per_rt.min) : NULL);
  evidence_put(o, "ns_per_round_trip_max",
               st.timed > 0 ? json_object_new_double(st.ns_per_rt.max) : NULL);
  evidence_put(o, "client_peak_rss_bytes_median",
               st.client_rss.n
                   ? json_object_new_int64(median_int64(st.client_rss.median))
                   : NULL);
  evidence_put(o, "server_peak_rss_bytes_median",
               st.server_rss.n
                   ? json_object_new_int64(median_int64(st.server_rss.median))
                   : NULL);
  evidence_put(o, "client_cpu_ns_median",
               st.client_cpu.n
                   ? json_object_new_int64(median_int64(st.client_cpu.median))
                   : NULL);
  evidence_put(o, "server_cpu_ns_median",
               st.server_cpu.n
                   ? json_object_new_int64(median_int64(st.server_cpu.median))
                   : NULL);
  cost_summary_add(o, lane);
  {
    char why[256];
    int stable = compare_stable(lane, why, sizeof(why));
    evidence_put(o, "stable",
                 stable < 0 ? NULL : json_object_new_boolean(stable));
    evidence_put(o, "unstable_reasons",
                 stable == 0 ? json_object_new_string(why) : NULL);
    evidence_put(o, "min_max_interval_confidence",
                 st.timed > 0
                     ? json_object_new_double(compare_minmax_coverage(st.timed))
                     : NULL);
  }
  return o;
}

/* None for a smoke run: its timings are not evidence. */
static json_object *comparisons_json(const struct evidence_run *run)
{
  struct compare_lane *lanes;
  json_object *all;

  if (!run->performance_claims)
    return NULL;
  lanes = calloc(run->nlanes > 0 ? (size_t)run->nlanes : 1, sizeof(*lanes));
  if (lanes == NULL)
    return NULL;
  for (int i = 0; i < run->nlanes; i++)
    compare_lane_of(&run->lanes[i], &lanes[i]);
  all = compare_run_json(lanes, run->nlanes);
  for (int i = 0; i < run->nlanes; i++)
    compare_lane_release(&lanes[i]);
  free(lanes);
  return all;
}

static void cleanliness_add(struct evidence_cleanliness *c,
                            const struct model_sample *r)
{
  if (!r->server.started)
    return;
  c->pairs_started++;
  if (r->server.reaped && !r->server.forced && r->client.reaped &&
      !r->client.forced)
    c->natural_exits++;
  c->processes_left += r->orphans.count;
  if (r->checks[MODEL_CHECK_PORT_FREE].ran &&
      !r->checks[MODEL_CHECK_PORT_FREE].passed)
    c->sockets_left++;
  c->forced_terminations += r->server.forced + r->client.forced;
  c->temp_entries_left += r->leftovers.count;
}

void evidence_cleanliness(const struct evidence_run *run,
                          struct evidence_cleanliness *c)
{
  memset(c, 0, sizeof(*c));
  for (int l = 0; l < run->nlanes; l++) {
    for (int i = 0; i < run->lanes[l].nsamples; i++) {
      const struct evidence_sample *es = &run->lanes[l].samples[i];
      /* A retried sample's first attempt is a pair of its own: what it
       * left behind counts as much as what the retry did. */
      if (es->retried)
        cleanliness_add(c, &es->first_attempt);
      cleanliness_add(c, &es->result);
    }
  }
}

/* What the run was: the tool, the mode, whether it is complete. */
static void put_header(json_object *doc, const struct evidence_run *run)
{
  json_object *o;

  evidence_put(doc, "schema_version",
               json_object_new_int(EVIDENCE_SCHEMA_VERSION));
  o = json_object_new_object();
  evidence_put(o, "name", json_object_new_string("crossrun"));
  evidence_put(o, "version", json_object_new_string(run->tool_version));
  evidence_put(doc, "tool", o);
  evidence_put(doc, "mode", json_object_new_string(run->mode));
  evidence_put(doc, "performance_claims",
               json_object_new_boolean(run->performance_claims));
  if (!run->performance_claims && run->machine.emulator[0] != '\0' &&
      strcmp(run->mode, "quick") != 0)
    evidence_put(doc, "performance_note",
                 json_object_new_string(
                     "run under an emulator (machine.emulator): its CPU "
                     "and memory figures are the emulator's, so no "
                     "performance claims"));
  else if (!run->performance_claims)
    evidence_put(
        doc, "performance_note",
        json_object_new_string("smoke check: no performance claims; the "
                               "workload is too small for its timings to "
                               "mean anything"));
  evidence_put(doc, "official", json_object_new_boolean(run->official));
  if (strcmp(run->mode, "record") == 0)
    evidence_put(doc, "rehearsal", json_object_new_boolean(run->rehearsal));
  evidence_put(doc, "complete", json_object_new_boolean(run->complete));
  evidence_put(doc, "incomplete_reason",
               run->incomplete_reason
                   ? json_object_new_string(run->incomplete_reason)
                   : NULL);
  evidence_put(doc, "started_at", json_object_new_string(run->started_at));
}

json_object *evidence_machine_json(const struct model_machine *m)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "os", json_object_new_string(m->os));
  evidence_put(o, "arch", json_object_new_string(m->arch));
  evidence_put(o, "kernel", json_object_new_string(m->kernel));
  evidence_put(o, "cpu_model", json_object_new_string(m->cpu_model));
  evidence_put(o, "logical_cpus", json_object_new_int(m->logical_cpus));
  evidence_put(o, "memory_bytes", evidence_int_or_null(m->memory_bytes));
  if (m->emulator[0] != '\0')
    evidence_put(o, "emulator", json_object_new_string(m->emulator));
  if (m->cgroup_v2_known) {
    json_object *c = json_object_new_object();
    evidence_put(c, "delegated",
                 json_object_new_boolean(m->cgroup_v2_delegated));
    evidence_put(c, "reason",
                 m->cgroup_v2_reason[0]
                     ? json_object_new_string(m->cgroup_v2_reason)
                     : NULL);
    evidence_put(c, "tree_figures_from", json_object_new_string("subreaper"));
    evidence_put(o, "cgroup_v2", c);
  }
  return o;
}

static json_object *workload_json(const struct evidence_run *run)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "name", json_object_new_string(run->workload_name));
  evidence_put(o, "warmup_round_trips",
               json_object_new_int64((int64_t)run->workload.warmup));
  evidence_put(o, "round_trips",
               json_object_new_int64((int64_t)run->workload.round_trips));
  evidence_put(o, "payload_bytes",
               json_object_new_int64(run->workload.payload_bytes));
  evidence_put(o, "max_in_flight",
               json_object_new_int64(run->workload.max_in_flight));
  evidence_put(o, "samples_per_lane",
               json_object_new_int(run->samples_per_lane));
  return o;
}

static json_object *settings_json(const struct evidence_run *run)
{
  const struct model_limits *l = &run->limits;
  json_object *o = json_object_new_object();
  char seed[32];

  snprintf(seed, sizeof(seed), "%" PRIu64, run->seed);
  evidence_put(o, "seed", json_object_new_string(seed));
  evidence_put(o, "host", json_object_new_string(run->host));
  evidence_put(o, "ready_timeout_ms",
               json_object_new_int64((int64_t)l->ready_timeout_ms));
  evidence_put(o, "client_timeout_ms",
               json_object_new_int64((int64_t)l->client_timeout_ms));
  evidence_put(o, "exit_timeout_ms",
               json_object_new_int64((int64_t)l->exit_timeout_ms));
  evidence_put(o, "kill_grace_ms",
               json_object_new_int64((int64_t)l->kill_grace_ms));
  evidence_put(o, "memory_sampling_interval_ms",
               json_object_new_int64((int64_t)model_timer_ms(l)));
  evidence_put(o, "memory_sampling_fallback_interval_ms",
               json_object_new_int64((int64_t)l->tick_ms));
  evidence_put(o, "stderr_kept_bytes",
               json_object_new_int64((int64_t)l->stderr_limit));
  return o;
}

static json_object *methods_json(const struct evidence_run *run)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "peak_rss", json_object_new_string(run->peak_rss_method));
  evidence_put(o, "sampled_rss",
               json_object_new_string(run->sampled_rss_method));
  if (run->stop_method != NULL)
    evidence_put(o, "stop", json_object_new_string(run->stop_method));
  evidence_put(o, "cpu",
               json_object_new_string(
                   "user and system CPU time of the reaped child, from the "
                   "OS (wait4 rusage on Linux and macOS, process times on "
                   "Windows)"));
  evidence_put(o, "elapsed",
               json_object_new_string(
                   "the client's own monotonic clock over the measured "
                   "round trips only"));
  return o;
}

/* NULL (null) when the run is not sharded. */
static json_object *shard_json(const struct evidence_run *run)
{
  json_object *o;

  if (run->shard_count <= 0)
    return NULL;
  o = json_object_new_object();
  evidence_put(o, "index", json_object_new_int(run->shard_index));
  evidence_put(o, "count", json_object_new_int(run->shard_count));
  evidence_put(o, "lanes_total", json_object_new_int(run->lanes_total));
  return o;
}

static json_object *matrix_files_json(const struct evidence_run *run,
                                      const struct sanitize *s)
{
  json_object *o = json_object_new_array();

  for (int i = 0; i < run->nmatrix; i++)
    json_object_array_add(o, evidence_message(s, run->matrix_files[i]));
  return o;
}

static json_object *lane_json(const struct evidence_run *run,
                              const struct evidence_lane *lane,
                              const struct sanitize *s)
{
  json_object *lo = json_object_new_object(), *samples;

  evidence_put(lo, "client_runtime",
               json_object_new_string(lane->client_runtime));
  evidence_put(lo, "server_runtime",
               json_object_new_string(lane->server_runtime));
  evidence_put(lo, "unavailable_reason",
               lane->unavailable_reason
                   ? evidence_message(s, lane->unavailable_reason)
                   : NULL);
  evidence_put(lo, "error_reason",
               lane->error_reason ? evidence_message(s, lane->error_reason)
                                  : NULL);
  evidence_put(
      lo, "transport",
      json_object_new_string(lane->transport ? lane->transport : "tcp"));
  if (lane->unsupported_reason != NULL)
    evidence_put(lo, "unsupported_reason",
                 evidence_message(s, lane->unsupported_reason));
  evidence_put(lo, "expected_failure_reason",
               lane->expected_failure
                   ? evidence_message(s, lane->expected_failure)
                   : NULL);
  evidence_put(lo, "summary", evidence_lane_summary_json(lane));
  samples = json_object_new_array();
  for (int i = 0; i < lane->nsamples; i++)
    json_object_array_add(samples,
                          sample_json(run, lane, &lane->samples[i], s));
  evidence_put(lo, "samples", samples);
  return lo;
}

json_object *evidence_cleanliness_json(const struct evidence_run *run)
{
  struct evidence_cleanliness cl;
  json_object *o = json_object_new_object();

  evidence_cleanliness(run, &cl);
  evidence_put(o, "pairs_started", json_object_new_int(cl.pairs_started));
  evidence_put(o, "natural_exits", json_object_new_int(cl.natural_exits));
  evidence_put(o, "processes_left", json_object_new_int(cl.processes_left));
  evidence_put(o, "sockets_left", json_object_new_int(cl.sockets_left));
  evidence_put(o, "forced_terminations",
               json_object_new_int(cl.forced_terminations));
  evidence_put(o, "temp_entries_left",
               json_object_new_int(cl.temp_entries_left));
  return o;
}

/* One section after another: json-c keeps the order keys are added in,
 * and that is the order every reader of the file sees. */
static json_object *document(const struct evidence_run *run)
{
  json_object *doc = json_object_new_object(), *lanes;
  struct sanitize s;

  sanitize_init(&s, run->root);
  put_header(doc, run);
  evidence_put(doc, "machine", evidence_machine_json(&run->machine));
  evidence_put(doc, "workload", workload_json(run));
  evidence_put(doc, "settings", settings_json(run));
  evidence_put(doc, "methods", methods_json(run));
  evidence_put(doc, "provenance", evidence_provenance_json(run, &s));
  evidence_put(doc, "shard", shard_json(run));
  evidence_put(doc, "runtimes", evidence_runtimes_json(run, &s));
  evidence_put(doc, "matrix_files", matrix_files_json(run, &s));
  lanes = json_object_new_object();
  for (int l = 0; l < run->nlanes; l++)
    evidence_put(lanes, run->lanes[l].name, lane_json(run, &run->lanes[l], &s));
  evidence_put(doc, "lanes", lanes);
  evidence_put(doc, "comparisons", comparisons_json(run));
  evidence_put(doc, "cleanliness", evidence_cleanliness_json(run));
  evidence_put(doc, "coordinator", evidence_run_coordinator_json(run));
  sanitize_release(&s);
  return doc;
}

int evidence_write(const struct evidence_run *run, const char *path, char *err,
                   size_t errlen)
{
  return evidence_write_doc(document(run), path, err, errlen);
}
