#include "runner/run.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <uv.h>

#include "evidence/base/term_text.h"
#include "evidence/write/evidence.h"
#include "evidence/write/stats.h"
#include "platforms/platform.h"
#include "runner/command.h"
#include "runner/commands.h"
#include "runner/expect.h"
#include "runner/prepare.h"
#include "runner/record.h"
#include "runner/record_conform.h"
#include "runner/summary.h"
#include "runner/tempdir.h"

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
  stop_signal = sig;
}

/* splitmix64: a small, well-known generator, so the shuffle of a recorded
 * seed is reproducible on every platform. */
static uint64_t next_random(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static void shuffle(int *v, int n, uint64_t seed, int round)
{
  uint64_t state = seed ^ ((uint64_t)round * UINT64_C(0xD1B54A32D192ED03));
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next_random(&state) % (uint64_t)(i + 1));
    int t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

/* ISO 8601 UTC from time(): days-to-civil arithmetic (H. Hinnant's
 * algorithm), because gmtime_r is not on every platform the runner must
 * build on, and gmtime is not reentrant. */
void run_utc_now(char *out, size_t len)
{
  int64_t t = (int64_t)time(NULL), days = t / 86400, secs = t % 86400;
  int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;

  snprintf(out, len, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)(y + (m <= 2)),
           (int)m, (int)d, (int)(secs / 3600), (int)(secs % 3600 / 60),
           (int)(secs % 60));
}

static void progress_line(FILE *f, const struct evidence_lane *lane,
                          const struct evidence_sample *es, int done, int total,
                          int samples, uint64_t started_ns)
{
  const struct model_sample *r = &es->result;
  double elapsed_s = (double)(uv_hrtime() - started_ns) / 1e9;
  double eta_s = done > 0 ? elapsed_s / done * (total - done) : 0;

  fprintf(f, "[%*d/%d] %-14s round %d/%d  %-7s", total >= 100 ? 3 : 2, done,
          total, lane->name, es->round, samples, model_status_name(r->status));
  if (r->status == MODEL_PASSED && r->have_result && r->result.round_trips)
    fprintf(f, "  %8.1f ns/rt",
            (double)r->result.elapsed_ns / (double)r->result.round_trips);
  else if (r->failure_reason != NULL)
    fprintf(f, "  %s", r->failure_reason);
  fprintf(f, "  %5.1fs  eta %dm%02ds\n", (double)r->wall_ns / 1e9,
          (int)eta_s / 60, (int)eta_s % 60);
  fflush(f);
}

static void run_one(const struct sample_spec *spec, struct model_sample *r,
                    const char *lane, FILE *errf)
{
  char err[512];
  if (sample_run(spec, r, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun: %s: %s\n", lane, err);
    snprintf(r->message, sizeof(r->message), "%s", err);
    r->failure_stage = "runner";
    r->failure_reason = "runner_error";
  }
}

static int select_lanes(const struct cli_options *o, struct lanes *l,
                        struct evidence_lane **lanes_out, struct lane **sel,
                        int *total, FILE *errf)
{
  char err[512];
  int n;

  *sel = calloc((size_t)lanes_capacity(l), sizeof(**sel));
  if (*sel == NULL)
    return -1;
  n = lanes_select_over(l, o->lanes, lanes_run_transports(l, o->transports),
                        *sel, lanes_capacity(l), err, sizeof(err));
  if (n < 0) {
    fprintf(errf, "crossrun: %s\n", err);
    return -2;
  }
  if (n == 0) {
    fprintf(errf, "crossrun: no lanes to run\n");
    return -2;
  }
  *total = n;
  if (o->shard_count > 0) {
    /* Lane i of the stable selection order goes to shard i mod N + 1, the
     * same on every machine that reads the same matrix. */
    int kept = 0;
    for (int i = 0; i < n; i++)
      if (i % o->shard_count == o->shard_index - 1)
        (*sel)[kept++] = (*sel)[i];
    n = kept;
    if (n == 0) {
      fprintf(errf, "crossrun: shard %d/%d has no lanes (there are %d)\n",
              o->shard_index, o->shard_count, *total);
      return -2;
    }
  }
  *lanes_out = calloc((size_t)n, sizeof(**lanes_out));
  if (*lanes_out == NULL)
    return -1;
  for (int i = 0; i < n; i++) {
    struct evidence_lane *el = &(*lanes_out)[i];
    el->name = (*sel)[i].name;
    el->client_runtime = (*sel)[i].client->name;
    el->server_runtime = (*sel)[i].server->name;
    el->client_dir = (*sel)[i].client->dir;
    el->server_dir = (*sel)[i].server->dir;
    el->transport = lanes_transport_name((*sel)[i].transport);
    if (!lanes_transport_supported(&(*sel)[i], (*sel)[i].unsupported,
                                   sizeof((*sel)[i].unsupported)))
      el->unsupported_reason = (*sel)[i].unsupported;
    el->samples = calloc((size_t)o->samples, sizeof(*el->samples));
    if (el->samples == NULL)
      return -1;
  }
  return n;
}

/* After preparation: lanes whose runtimes cannot run are marked. */
static void mark_lanes(struct evidence_lane *lanes, const struct lane *sel,
                       int n)
{
  for (int i = 0; i < n; i++) {
    const struct runtime *rt[2] = {sel[i].client, sel[i].server};
    for (int k = 0; k < 2; k++) {
      if (rt[k]->broken && lanes[i].error_reason == NULL)
        lanes[i].error_reason = rt[k]->why_unavailable;
      else if (!rt[k]->available && lanes[i].unavailable_reason == NULL)
        lanes[i].unavailable_reason = rt[k]->why_unavailable;
    }
  }
}

/* What one run holds between its steps. */
struct run_state {
  const struct cli_options *o;
  struct lanes *l;
  const char *crossrun_path;
  FILE *out, *errf;
  struct evidence_run run;
  struct evidence_lane *lanes;
  struct lane *sel;
  int n, lanes_total;
  struct model_runtime *runtimes; /* room for 2n: a lane has two */
  struct model_package *packages;
  int npackages;
  int *order, nrunnable;
  struct evidence_provenance *prov;
  struct expect *expect;
  char out_path[LANES_PATH_MAX + 128];
  int recording, progress;
  char matrix_paths[CLI_MAX_MATRIX][LANES_PATH_MAX]; /* for reproduce */
  uint64_t started_ns;
  struct closers_history ports;
};

/* Whether the evidence can be written at path, tried as evidence_write
 * will (a file beside it, then a rename), before any runtime is built or
 * any sample runs: an hour of samples must not end in "cannot write". */
static int out_writable(const char *path, FILE *errf)
{
  char probe[LANES_PATH_MAX + 160];
  uv_fs_t req;
  FILE *f;
  int rc;

  snprintf(probe, sizeof(probe), "%s.partial", path);
  f = fopen(probe, "w");
  if (f == NULL) {
    fprintf(errf, "crossrun: cannot write the evidence: '%s': %s\n", probe,
            strerror(errno));
    return -1;
  }
  fclose(f);
  remove(probe);
  rc = uv_fs_stat(NULL, &req, path, NULL);
  if (rc == 0 && (req.statbuf.st_mode & S_IFMT) == S_IFDIR) {
    uv_fs_req_cleanup(&req);
    fprintf(errf, "crossrun: cannot write the evidence: '%s' is a folder\n",
            path);
    return -1;
  }
  uv_fs_req_cleanup(&req);
  return 0;
}

/* Whether --expect names a lane this run does not have, over every shard:
 * the selection again, before sharding. */
static int expect_stale(struct run_state *st)
{
  struct lane *all = calloc((size_t)lanes_capacity(st->l), sizeof(*all));
  char err[1024];
  int n, rc = -1;

  if (all == NULL) {
    fprintf(st->errf, "crossrun: out of memory\n");
    return -1;
  }
  n = lanes_select_over(st->l, st->o->lanes,
                        lanes_run_transports(st->l, st->o->transports), all,
                        lanes_capacity(st->l), err, sizeof(err));
  if (n >= 0)
    rc = expect_check_lanes(st->expect, all, n, err, sizeof(err));
  if (rc != 0)
    fprintf(st->errf, "crossrun: %s\n", err);
  free(all);
  return rc;
}

/* The lanes, the buffers and, for a record, its provenance. Returns a
 * RUN_EXIT_* status. */
static int run_setup(struct run_state *st)
{
  int n = select_lanes(st->o, st->l, &st->lanes, &st->sel, &st->lanes_total,
                       st->errf);
  char err[TEMPDIR_PATH_MAX + 128];

  if (n == -2)
    return RUN_EXIT_USAGE;
  st->n = n > 0 ? n : 0;
  if (n > 0) {
    st->order = calloc((size_t)n, sizeof(*st->order));
    st->packages = calloc((size_t)(2 * n), sizeof(*st->packages));
    st->runtimes = calloc((size_t)(2 * n), sizeof(*st->runtimes));
  }
  if (n < 0 || st->order == NULL || st->packages == NULL ||
      st->runtimes == NULL) {
    fprintf(st->errf, "crossrun: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  snprintf(st->out_path, sizeof(st->out_path), "%s", st->o->out);
  if (tempdir_probe(err, sizeof(err)) != 0) {
    fprintf(st->errf, "crossrun: %s\n", err);
    return RUN_EXIT_USAGE;
  }
  if (st->recording) {
    int rc = record_setup(st->o, st->l, &st->prov, &st->expect, st->errf);
    char probe[LANES_PATH_MAX + 128];

    if (rc != RUN_EXIT_OK || expect_stale(st) != 0)
      return rc != RUN_EXIT_OK ? rc : RUN_EXIT_USAGE;
    snprintf(probe, sizeof(probe), "%s/incomplete", st->o->output_directory);
    return out_writable(probe, st->errf) == 0 ? RUN_EXIT_OK : RUN_EXIT_USAGE;
  }
  return out_writable(st->out_path, st->errf) == 0 ? RUN_EXIT_OK
                                                   : RUN_EXIT_USAGE;
}

/* The runtimes built, the lanes that cannot run marked, the packages
 * measured. */
static void run_prepare(struct run_state *st)
{
  FILE *progress = st->progress ? st->errf : NULL;

  prepare_runtimes(st->sel, st->n, progress);
  mark_lanes(st->lanes, st->sel, st->n);
  if (!st->o->no_packages && !stop_signal)
    /* A smoke check packs once: whether packing is reproducible is for
     * run and record to find out. */
    st->npackages = prepare_packages(
        st->sel, st->n, st->o->command != CLI_QUICK, st->packages, progress);
}

/* Each --matrix file as an absolute path, so that a reproduce command
 * names it whatever folder the run was started from. */
static void run_matrix_paths(struct run_state *st)
{
  struct evidence_run *run = &st->run;

  run->allow_non_loopback = st->o->allow_non_loopback;
  for (int i = 0; i < st->o->nmatrix && i < CLI_MAX_MATRIX; i++) {
    uv_fs_t req;
    if (uv_fs_realpath(NULL, &req, st->o->matrix[i], NULL) == 0)
      snprintf(st->matrix_paths[i], sizeof(st->matrix_paths[i]), "%s",
               (const char *)req.ptr);
    else
      snprintf(st->matrix_paths[i], sizeof(st->matrix_paths[i]), "%s",
               st->o->matrix[i]);
    uv_fs_req_cleanup(&req);
    run->matrix_paths[run->nmatrix_paths++] = st->matrix_paths[i];
  }
}

/* The run as the evidence describes it, before its first sample. */
static void run_describe(struct run_state *st)
{
  const struct cli_options *o = st->o;
  struct evidence_run *run = &st->run;

  memset(run, 0, sizeof(*run));
  run->tool_version = CROSSRUN_VERSION;
  run->mode = o->command == CLI_QUICK ? "quick"
              : st->recording         ? "record"
                                      : "full";
  run->performance_claims = o->command != CLI_QUICK;
  run->rehearsal = st->recording && o->rehearse;
  run->workload_name = o->workload_name;
  run->workload = o->workload;
  run->samples_per_lane = o->samples;
  run->seed = o->seed_given ? o->seed : (uint64_t)time(NULL) ^ uv_hrtime();
  run->host = o->host;
  run->limits = o->limits;
  run->root = st->l->root;
  run->crossrun_path = st->crossrun_path;
  run->lanes = st->lanes;
  run->nlanes = st->n;
  run->runtimes = st->runtimes;
  run->nruntimes =
      prepare_describe_runtimes(st->sel, st->n, st->l->root, st->runtimes);
  run->packages = st->packages;
  run->npackages = st->npackages;
  run->packages_skipped = o->no_packages;
  run->matrix_files[0] = "matrix.yaml";
  run->nmatrix = 1;
  for (int i = 0; i < o->nmatrix && i < 8; i++)
    run->matrix_files[run->nmatrix++] = lanes_display_path(st->l, o->matrix[i]);
  run_matrix_paths(st);
  run->incomplete_reason = "running";
  run->provenance = st->prov;
  run->shard_index = o->shard_index;
  run->shard_count = o->shard_count;
  run->lanes_total = st->lanes_total;
  platform_machine_describe(&run->machine);
  /* An emulator's figures of other processes are its own (evidence/model
   * model.h): nothing to claim from them. */
  if (run->machine.emulator[0] != '\0')
    run->performance_claims = 0;
  run->peak_rss_method = platform_peak_rss_method();
  run->sampled_rss_method = platform_sampled_rss_method();
  run->stop_method = platform_stop_method();
  if (st->recording)
    record_path(st->out_path, sizeof(st->out_path), o->output_directory,
                "incomplete", &run->machine, o->shard_index, o->shard_count);
  run_utc_now(run->started_at, sizeof(run->started_at));
}

/* Whether a sample failed its hygiene: it left a process, a socket or a
 * temporary entry behind, or a peer had to be terminated. What a peer
 * leaves behind is a fault of the peer whatever its timing, so a retry
 * must never turn it into a pass. */
static int hygiene_failed(const struct model_sample *r)
{
  static const enum model_check cleanup[] = {
      MODEL_CHECK_NO_ORPHANS, MODEL_CHECK_PORT_FREE, MODEL_CHECK_TEMP_CLEAN};

  if (r->orphans.count > 0 || r->leftovers.count > 0 || r->server.forced ||
      r->client.forced)
    return 1;
  for (size_t i = 0; i < sizeof(cleanup) / sizeof(cleanup[0]); i++)
    if (r->checks[cleanup[i]].ran && !r->checks[cleanup[i]].passed)
      return 1;
  return 0;
}

/* Sample `round` of lane `idx`, the k-th of its round. A record retries a
 * failed sample once, alone, unless it failed its hygiene: a lane that
 * passes then is flaky, never passed, and the first attempt stays in the
 * evidence. */
static struct evidence_sample *run_sample(struct run_state *st, int idx,
                                          int round, int k)
{
  struct evidence_lane *el = &st->lanes[idx];
  const struct lane *ln = &st->sel[idx];
  struct evidence_sample *es = &el->samples[el->nsamples];
  struct sample_spec spec = {
      el->name,
      (const char *const *)ln->server->server.argv,
      (const char *const *)ln->client->client.argv,
      st->o->host,
      st->o->workload,
      st->o->limits,
      &stop_signal,
      ln->server->dir,
      ln->client->dir,
      ln->transport == LANES_TLS,
      &st->ports,
  };

  es->round = round;
  es->order = k + 1;
  run_one(&spec, &es->result, el->name, st->errf);
  if (st->recording && es->result.status != MODEL_PASSED &&
      es->result.status != MODEL_UNSUPPORTED && !stop_signal &&
      !hygiene_failed(&es->result)) {
    es->first_attempt = es->result;
    es->retried = 1;
    if (st->progress)
      fprintf(st->errf, "%s round %d failed (%s); retrying it once\n", el->name,
              round,
              es->result.failure_reason ? es->result.failure_reason : "error");
    run_one(&spec, &es->result, el->name, st->errf);
  }
  el->nsamples++;
  return es;
}

/* Every round, each in its own shuffled order, the evidence rewritten
 * after every sample. Returns a RUN_EXIT_* status. */
static int run_rounds(struct run_state *st)
{
  const struct cli_options *o = st->o;
  int total, done = 0, rc = RUN_EXIT_OK;
  char err[512];

  for (int i = 0; i < st->n; i++)
    if (st->lanes[i].unavailable_reason == NULL &&
        st->lanes[i].unsupported_reason == NULL &&
        st->lanes[i].error_reason == NULL)
      st->order[st->nrunnable++] = i;
  total = st->nrunnable * o->samples;
  for (int round = 1; round <= o->samples && !stop_signal; round++) {
    shuffle(st->order, st->nrunnable, st->run.seed, round);
    for (int k = 0; k < st->nrunnable && !stop_signal; k++) {
      int idx = st->order[k];
      struct evidence_sample *es = run_sample(st, idx, round, k);

      done++;
      if (st->progress)
        progress_line(st->errf, &st->lanes[idx], es, done, total, o->samples,
                      st->started_ns);
      /* A reader that went away (`| head -1`) ends the progress lines,
       * never the run: SIGPIPE is ignored (main.c), and the evidence is
       * what matters. */
      if (ferror(st->errf))
        st->progress = 0;
      if (evidence_write(&st->run, st->out_path, err, sizeof(err)) != 0) {
        fprintf(st->errf, "crossrun: %s\n", err);
        rc = RUN_EXIT_RUNNER;
        stop_signal = SIGTERM;
      }
    }
  }
  return rc;
}

/* Whether the lanes that could not run leave the run without evidence:
 * none ran at all, or in CI one is unavailable though neither its
 * runtimes (optional: true) nor --allow-unavailable allow it. A CI job
 * that skipped a toolchain must not pass as if it had tested it. Each
 * reason on its own line; returns 1 when the run fails for them. */
static int unavailable_fails(const struct run_state *st)
{
  int ran = 0, fails = 0, ci = record_in_ci() && !st->o->allow_unavailable;

  for (int i = 0; i < st->n; i++) {
    const struct evidence_lane *el = &st->lanes[i];
    const struct lane *ln = &st->sel[i];

    ran += el->nsamples > 0;
    if (!ci || el->unavailable_reason == NULL || el->error_reason != NULL)
      continue;
    if ((!ln->client->available && !ln->client->optional) ||
        (!ln->server->available && !ln->server->optional)) {
      fails = 1;
      fprintf(st->errf, "crossrun: lane %s is unavailable in CI: ", el->name);
      term_text_put(st->errf, el->unavailable_reason);
      fprintf(st->errf, " (mark its runtime optional: true in the matrix, "
                        "or pass --allow-unavailable)\n");
    }
  }
  if (ran == 0) {
    fprintf(st->errf, "crossrun: no lane ran: every selected lane is "
                      "unavailable or broken; this run tested nothing\n");
    return 1;
  }
  return fails;
}

/* A record's conformance, beside its evidence: how many problems it adds
 * (0 when skipped or interrupted). */
static int run_conformance(struct run_state *st)
{
  char path[LANES_PATH_MAX + 128];
  struct record_conformance_spec spec = {
      .options = st->o,
      .l = st->l,
      .lanes = st->sel,
      .nlanes = st->n,
      .machine = &st->run.machine,
      .provenance = st->prov,
      .stop = &stop_signal,
      .progress = st->progress,
      .path = path,
      .pathlen = sizeof(path),
  };
  int rc;

  if (st->o->no_conform || stop_signal)
    return 0;
  rc = record_conformance(&spec, st->out, st->errf);
  return rc == 0 ? 0 : 1;
}

/* The last evidence, the summary and the exit status; rc is the status so
 * far. */
static int run_finish(struct run_state *st, int rc)
{
  struct evidence_run *run = &st->run;
  char err[512];
  /* Before complete is decided: an interrupted conformance leaves the
   * record incomplete. */
  int conform_problems =
      st->recording && rc == RUN_EXIT_OK ? run_conformance(st) : 0;

  run->complete = !stop_signal;
  run->incomplete_reason = stop_signal ? "interrupted" : NULL;
  if (st->recording && rc == RUN_EXIT_OK)
    return record_finish(st->o, run, st->expect, conform_problems, st->out_path,
                         sizeof(st->out_path), st->out, st->errf);
  if (rc == RUN_EXIT_OK &&
      evidence_write(run, st->out_path, err, sizeof(err))) {
    fprintf(st->errf, "crossrun: %s\n", err);
    rc = RUN_EXIT_RUNNER;
  }
  summary_print(st->out, run);
  if (rc == RUN_EXIT_OK) {
    if (stop_signal)
      rc = RUN_EXIT_INTERRUPTED;
    else if (!summary_all_passed(run))
      rc = RUN_EXIT_FAILED;
    else if (unavailable_fails(st))
      rc = RUN_EXIT_FAILED;
    if (record_packages_failed(run, st->errf) > 0 && rc == RUN_EXIT_OK)
      rc = RUN_EXIT_FAILED;
  }
  fprintf(st->out, "evidence: %s%s\n", st->out_path,
          stop_signal ? " (incomplete: interrupted)" : "");
  return rc;
}

static void run_release(struct run_state *st)
{
  for (int i = 0; st->lanes != NULL && i < st->n; i++) {
    struct evidence_lane *el = &st->lanes[i];
    for (int s = 0; s < el->nsamples; s++) {
      model_sample_release(&el->samples[s].result);
      if (el->samples[s].retried)
        model_sample_release(&el->samples[s].first_attempt);
    }
    free(el->samples);
  }
  free(st->prov);
  free(st->expect);
  for (int i = 0; i < st->npackages; i++)
    model_package_release(&st->packages[i]);
  free(st->packages);
  free(st->runtimes);
  free(st->lanes);
  free(st->sel);
  free(st->order);
}

int run_lanes(const struct cli_options *o, struct lanes *l,
              const char *crossrun_path, FILE *out, FILE *errf)
{
  struct run_state *st = calloc(1, sizeof(*st));
  void (*old_int)(int), (*old_term)(int);
  int rc;

  if (st == NULL) {
    fprintf(errf, "crossrun: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  st->o = o;
  st->l = l;
  st->crossrun_path = crossrun_path;
  st->out = out;
  st->errf = errf;
  st->recording = o->command == CLI_RECORD;
  st->progress = o->progress >= 0 ? o->progress : uv_guess_handle(2) == UV_TTY;
  rc = run_setup(st);
  if (rc == RUN_EXIT_OK) {
    stop_signal = 0;
    old_int = signal(SIGINT, on_stop_signal);
    old_term = signal(SIGTERM, on_stop_signal);
    command_set_stop(&stop_signal);
    run_prepare(st);
    run_describe(st);
    /* The estimate is from the samples alone: builds and packing before
     * them say nothing of how long a sample takes. */
    st->started_ns = uv_hrtime();
    rc = run_rounds(st);
    signal(SIGINT, old_int);
    signal(SIGTERM, old_term);
    command_set_stop(NULL);
    rc = run_finish(st, rc);
  }
  run_release(st);
  free(st);
  return rc;
}
