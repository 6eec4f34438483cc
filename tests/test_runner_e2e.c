/* The coordinator end to end: the C lane against itself, and for every
 * check a misbehaving fixture peer (tests/fixture.c) that makes exactly
 * that check fail, with the right reason, nothing left running and no
 * temporary entry left. Then `crossrun quick` itself, with its evidence
 * file read back field by field. */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "platforms/platform.h"
#include "runner/sample.h"
#include "tests/lib_child.h"
#include "tests/lib_json.h"
#include "tests/lib_samples.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

#define MIB (1024 * 1024)
/* Why the peers' memory figures are not checked under wine. */
#define WINE_MEMORY                                                            \
  "wine gives no peak working set of another process, and the sampled "        \
  "working set counts wine's own libraries and heaps"

static char fixture[1024], c_server[1024], c_client[1024], crossrun[1024];

struct peer_cmd {
  const char *argv[4];
};

static struct peer_cmd fixture_peer(const char *role, const char *mode)
{
  struct peer_cmd p = {{fixture, role, mode, NULL}};
  return p;
}

static struct peer_cmd c_peer(int server)
{
  struct peer_cmd p = {{server ? c_server : c_client, NULL, NULL, NULL}};
  return p;
}

static struct model_limits test_limits(void)
{
  struct model_limits l = MODEL_LIMITS_DEFAULT;
  l.ready_timeout_ms = (uint64_t)(tap_timeout_s(3) * 1000);
  l.client_timeout_ms = (uint64_t)(tap_timeout_s(6) * 1000);
  l.exit_timeout_ms = (uint64_t)(tap_timeout_s(2) * 1000);
  l.kill_grace_ms = 500;
  return l;
}

/* The ports of this test's samples, kept as a run keeps them (closers.h). */
static struct closers_history ports;

static int run_sample(struct model_sample *r, struct peer_cmd server,
                      struct peer_cmd client, struct proto_workload w,
                      struct model_limits limits)
{
  char err[256];
  struct sample_spec spec = {"test", server.argv, client.argv, "127.0.0.1",
                             w,      limits,      NULL,        NULL,
                             NULL,   0,           &ports};
  int rc = sample_run(&spec, r, err, sizeof(err));
  if (rc != 0)
    tap_diag("sample_run: %s", err);
  return rc;
}

static const struct proto_workload small = {10, 200, 64, 8};

/* One misbehaving case: the status, the reason, the check that must fail
 * and every other check's expected outcome. */
struct fault_case {
  const char *name;
  struct peer_cmd server;
  struct peer_cmd client;
  const char *reason;
  enum model_check failing;
  const char *message_has; /* in the failure message */
};

static void run_fault(const struct fault_case *fc)
{
  struct model_sample r;
  char why[200];

  if (strcmp(fc->reason, "server_closed_first") == 0 &&
      !samples_port_states(why, sizeof why)) {
    TAP_OK(1, "%s # SKIP the runner cannot tell who closed first here: %s",
           fc->name, why);
    return;
  }

  if (run_sample(&r, fc->server, fc->client, small, test_limits()) != 0) {
    TAP_OK(0, "%s: the sample ran", fc->name);
    return;
  }
  TAP_OK(r.status == MODEL_FAILED && r.failure_reason &&
             strcmp(r.failure_reason, fc->reason) == 0,
         "%s: fails as %s (got %s %s: %s)", fc->name, fc->reason,
         model_status_name(r.status), r.failure_reason ? r.failure_reason : "-",
         r.message);
  TAP_OK(r.checks[fc->failing].ran && !r.checks[fc->failing].passed,
         "%s: check %s fails: %s", fc->name, model_check_name(fc->failing),
         r.checks[fc->failing].reason);
  if (fc->message_has)
    TAP_OK(strstr(r.message, fc->message_has) != NULL,
           "%s: the message says '%s'", fc->name, fc->message_has);
  samples_nothing_left(fc->name, &r);
  model_sample_release(&r);
}

static void test_c_lane_passes(void)
{
  struct model_sample r;

  if (run_sample(&r, c_peer(1), c_peer(0), small, test_limits()) != 0)
    return;
  TAP_OK(r.status == MODEL_PASSED, "c-c passes (%s %s)",
         model_status_name(r.status), r.message);
  for (int i = 0; i < MODEL_CHECK_COUNT; i++)
    TAP_OK(r.checks[i].ran && r.checks[i].passed, "c-c: check %s passed: %s",
           model_check_name((enum model_check)i), r.checks[i].reason);
  TAP_OK(r.have_result && r.result.elapsed_ns > 0 &&
             r.result.round_trips == 200,
         "c-c: the client's result is read");
  TAP_OK(r.client.user_cpu_ns >= 0 && r.server.system_cpu_ns >= 0 &&
             r.client.user_cpu_ns + r.client.system_cpu_ns > 0,
         "c-c: CPU times come from the reaped peers");
  TAP_OK(r.client.peak_rss_bytes > 256 * 1024 &&
             r.server.peak_rss_bytes > 256 * 1024 &&
             r.client.peak_rss_source != NULL,
         "c-c: peak RSS of both peers (%lld, %lld, %s)",
         (long long)r.client.peak_rss_bytes, (long long)r.server.peak_rss_bytes,
         r.client.peak_rss_source);
  TAP_OK(!r.client.forced && !r.server.forced && r.server.exited &&
             r.client.exited,
         "c-c: both exited by themselves");
  samples_nothing_left("c-c", &r);
  model_sample_release(&r);
}

static void test_faults(void)
{
  const struct fault_case cases[] = {
      {"never READY", fixture_peer("server", "never-ready"), c_peer(0),
       "server_not_ready", MODEL_CHECK_SERVER_READY, "no READY line"},
      {"server exits before READY", fixture_peer("server", "no-such-mode"),
       c_peer(0), "server_not_ready", MODEL_CHECK_SERVER_READY,
       "server exited with 2 before READY: "},
      {"server exits 3", fixture_peer("server", "exit3"), c_peer(0),
       "server_exit", MODEL_CHECK_SERVER_EXIT, "exited with 3"},
      {"client exits 3", c_peer(1), fixture_peer("client", "exit3"),
       "client_exit", MODEL_CHECK_CLIENT_EXIT, "exited with 3"},
      {"server dies by a signal", fixture_peer("server", "signal"), c_peer(0),
       SAMPLES_DEATH_REASON, MODEL_CHECK_SERVER_EXIT, SAMPLES_DEATH_SAYS},
      {"server hangs", fixture_peer("server", "hang"), c_peer(0),
       "timeout_server", MODEL_CHECK_SERVER_EXIT, "deadline"},
      {"client hangs", c_peer(1), fixture_peer("client", "hang"),
       "timeout_client", MODEL_CHECK_CLIENT_EXIT, "deadline"},
      {"file left in TMPDIR", fixture_peer("server", "leave-file"), c_peer(0),
       "temp_not_clean", MODEL_CHECK_TEMP_CLEAN, "leftover.txt"},
      {"setsid grandchild", fixture_peer("server", "orphan"), c_peer(0),
       "orphan_process", MODEL_CHECK_NO_ORPHANS, "left alive"},
      {"wrong count", c_peer(1), fixture_peer("client", "wrong-count"),
       "result_mismatch", MODEL_CHECK_CLIENT_RESULT, "'round_trips' is 199"},
      {"result not JSON", c_peer(1), fixture_peer("client", "bad-json"),
       "result_mismatch", MODEL_CHECK_CLIENT_RESULT, "not one JSON object"},
      {"result gives a key twice", c_peer(1),
       fixture_peer("client", "key-twice"), "result_mismatch",
       MODEL_CHECK_CLIENT_RESULT, "an object has a key twice"},
      {"result is json-c's, not JSON", c_peer(1),
       fixture_peer("client", "lax-json"), "result_mismatch",
       MODEL_CHECK_CLIENT_RESULT, "a ',' before '}' at byte"},
      {"no result line", c_peer(1), fixture_peer("client", "no-result"),
       "result_mismatch", MODEL_CHECK_CLIENT_RESULT, "no result line"},
      {"server closes first", fixture_peer("server", "close-first"), c_peer(0),
       "server_closed_first", MODEL_CHECK_PORT_FREE,
       "closed its connection first"},
      {"server sends a wrong sequence",
       fixture_peer("server", "wrong-sequence"), c_peer(0),
       "protocol_violation", MODEL_CHECK_CLIENT_EXIT, "wrong_sequence"},
      {"client sends a wrong payload", c_peer(1),
       fixture_peer("client", "wrong-payload"), "protocol_violation",
       MODEL_CHECK_SERVER_EXIT, "wrong_payload"},
      {"client sends an oversized frame", c_peer(1),
       fixture_peer("client", "oversized"), "protocol_violation",
       MODEL_CHECK_SERVER_EXIT, "frame_too_large"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    run_fault(&cases[i]);
}

static void test_orphan_holds_port(void)
{
  struct model_sample r;

  if (run_sample(&r, fixture_peer("server", "orphan"), c_peer(0), small,
                 test_limits()) != 0)
    return;
  TAP_OK(r.orphans.count >= 1 && strstr(r.orphans.list[0].name, "fixture"),
         "the escaped grandchild is found by name (%d found)", r.orphans.count);
  TAP_OK(r.checks[MODEL_CHECK_PORT_FREE].passed,
         "once killed, the grandchild no longer holds the port");
  model_sample_release(&r);
}

static void test_unsupported_and_missing(void)
{
  struct model_sample r;
  struct peer_cmd missing = {{"/nonexistent/crossrun-peer", NULL, NULL, NULL}};

  if (run_sample(&r, c_peer(1), fixture_peer("client", "unsupported"), small,
                 test_limits()) == 0) {
    TAP_OK(r.status == MODEL_UNSUPPORTED,
           "a client exiting 127 is unsupported, not failed (%s)",
           model_status_name(r.status));
    samples_nothing_left("unsupported", &r);
    model_sample_release(&r);
  }
  if (run_sample(&r, fixture_peer("server", "unsupported"), c_peer(0), small,
                 test_limits()) == 0) {
    TAP_OK(r.status == MODEL_UNSUPPORTED && !r.client.started,
           "a server exiting 127 before READY is unsupported (%s)",
           model_status_name(r.status));
    samples_nothing_left("unsupported server", &r);
    model_sample_release(&r);
  }
  if (run_sample(&r, missing, c_peer(0), small, test_limits()) == 0) {
    TAP_OK(r.status == MODEL_ERROR && strstr(r.message, "cannot start"),
           "a missing program is a runner error: %s", r.message);
    samples_nothing_left("missing program", &r);
    model_sample_release(&r);
  }
}

static void test_flood(void)
{
  struct model_sample r;
  struct model_limits limits = test_limits();
  int64_t before = platform_self_peak_rss_bytes();

  /* The flood comes before READY, at the pace of the OS's pipes: wine's
   * took over 3 s for the 64 MiB at load. */
  limits.ready_timeout_ms = (uint64_t)(tap_timeout_s(30) * 1000);
  if (run_sample(&r, fixture_peer("server", "flood-stderr"), c_peer(0), small,
                 limits) != 0)
    return;
  TAP_OK(r.status == MODEL_PASSED,
         "a flood of stderr alone fails nothing "
         "(%s)",
         r.message);
  TAP_OK(r.server.err.total >= 64u * MIB && capture_truncated(&r.server.err),
         "every byte of the flood is counted (%llu), the middle dropped",
         (unsigned long long)r.server.err.total);
  TAP_OK(platform_self_peak_rss_bytes() - before < 8 * MIB,
         "the runner's memory does not grow with the flood (%lld KiB)",
         (long long)((platform_self_peak_rss_bytes() - before) / 1024));
  model_sample_release(&r);
}

static void test_memory(void)
{
  struct model_sample r;
  char *ballast;
  const size_t ballast_bytes = 160 * MIB;

  if (run_sample(&r, fixture_peer("server", "rss64"), c_peer(0), small,
                 test_limits()) == 0) {
    TAP_OK(r.status == MODEL_PASSED, "rss64 passes (%s)", r.message);
    if (samples_under_wine())
      TAP_OK(1, "rss64's peak # SKIP %s", WINE_MEMORY);
    else
      TAP_OK(r.server.peak_rss_bytes >= 64 * MIB &&
                 r.server.peak_rss_bytes <= 64 * MIB + 6 * MIB,
             "a server touching 64 MiB peaks at 64 MiB plus its own small "
             "size: %.1f MiB (%s)",
             (double)r.server.peak_rss_bytes / MIB, r.server.peak_rss_source);
    model_sample_release(&r);
  }
  /* The coordinator now holds far more than the tiny peer will: its
   * ru_maxrss inherits this, the reported peak must not. */
  ballast = malloc(ballast_bytes);
  if (ballast == NULL)
    return;
  memset(ballast, 1, ballast_bytes);
  if (run_sample(&r, fixture_peer("server", "tiny"), c_peer(0), small,
                 test_limits()) == 0) {
    TAP_OK(r.status == MODEL_PASSED, "tiny passes (%s)", r.message);
    /* Started through the spawn helper, whose image is what the peer's
     * exec replaces, ru_maxrss is the peer's own. */
    if (samples_under_wine()) {
      TAP_OK(1, "the tiny peer's peaks # SKIP %s", WINE_MEMORY);
    } else {
      TAP_OK(r.server.os_peak_rss_bytes > 0 &&
                 r.server.os_peak_rss_bytes < 8 * MIB,
             "the OS's ru_maxrss of the tiny peer does not carry the "
             "coordinator's memory: %.1f MiB",
             (double)r.server.os_peak_rss_bytes / MIB);
      TAP_OK(r.server.peak_rss_bytes > 0 && r.server.peak_rss_bytes < 8 * MIB,
             "the reported peak is the tiny peer's own: %.2f MiB (%s)",
             (double)r.server.peak_rss_bytes / MIB,
             r.server.peak_rss_source ? r.server.peak_rss_source : "none");
    }
    model_sample_release(&r);
  }
  /* Touch the ballast so it cannot be optimised away before the run. */
  TAP_OK(ballast[ballast_bytes - 1] == 1, "ballast held during the run");
  free(ballast);
}

static void test_interrupt(void)
{
  static volatile sig_atomic_t stop = 1;
  struct model_sample r;
  char err[256];
  struct peer_cmd s = fixture_peer("server", "hang"),
                  c = fixture_peer("client", "hang");
  struct sample_spec spec = {"test",        s.argv, c.argv, "127.0.0.1", small,
                             test_limits(), &stop,  NULL,   NULL,        0,
                             NULL};

  if (sample_run(&spec, &r, err, sizeof(err)) != 0)
    return;
  TAP_OK(r.status == MODEL_ERROR && r.failure_reason &&
             strcmp(r.failure_reason, "interrupted") == 0,
         "a stop request ends the sample as interrupted");
  samples_nothing_left("interrupted", &r);
  model_sample_release(&r);
}

/* Runs crossrun with args (NULL-terminated, at most 8) to its end, its
 * output kept in *r (child_release'd by the caller). */
static void run_crossrun(struct child_run *r, const char *const *args,
                         double timeout_s)
{
  const char *argv[10] = {crossrun};

  for (int i = 0; i < 8 && args[i]; i++)
    argv[i + 1] = args[i];
  if (child_run(r, argv, NULL, NULL, timeout_s) != 0)
    tap_diag("cannot start %s", crossrun);
}

static void test_crossrun_quick(void)
{
  char dir[512], out[768], *text;
  const char *forbidden[] = {"/tmp/", "/root", "/home/", "/work/"};
  const char *args[] = {"quick", "--lanes", "c-c", "--samples", "2",
                        "--out", out,       NULL,  NULL};
  struct child_run run;
  json_object *doc;
  FILE *f;
  long size;

  if (tap_mkdtemp(dir, sizeof dir) == NULL)
    return;
  snprintf(out, sizeof(out), "%s/evidence.json", dir);
  if (samples_under_wine()) {
    args[7] = "--no-packages";
    TAP_OK(1, "quick measures the C runtime's package # SKIP its command "
              "runs sh, which a Windows program under wine cannot start");
  }
  run_crossrun(&run, args, tap_timeout_s(600));
  if (!TAP_OK(child_succeeded(&run), "crossrun quick --lanes c-c exits 0"))
    child_explain(&run, "crossrun quick");
  doc = json_object_from_file(out);
  TAP_OK(doc != NULL, "the evidence file is JSON");
  if (doc != NULL) {
    TAP_OK(json_object_get_int(json_at(doc, "schema_version")) == 1 &&
               strcmp(json_str_at(doc, "mode"), "quick") == 0 &&
               !json_object_get_boolean(json_at(doc, "performance_claims")) &&
               json_object_get_boolean(json_at(doc, "complete")),
           "evidence: schema version, mode quick, no performance claims, "
           "complete");
    TAP_OK(json_at(doc, "machine.os") && json_at(doc, "machine.arch") &&
               json_at(doc, "machine.kernel") &&
               json_at(doc, "machine.cpu_model") &&
               json_object_get_int(json_at(doc, "machine.logical_cpus")) > 0 &&
               json_object_get_int64(json_at(doc, "machine.memory_bytes")) > 0,
           "evidence: the machine");
    if (strcmp(json_str_at(doc, "machine.os"), "linux")) {
      TAP_OK(1,
             "evidence: machine.cgroup_v2 # SKIP Linux's: machine.os is "
             "%s",
             json_str_at(doc, "machine.os"));
    } else {
      /* Whether a per-peer cgroup v2 could be made here and why not: on a
       * hybrid v1 host (cgroup2 mounted without controllers) it cannot. */
      json_object *c = json_at(doc, "machine.cgroup_v2");
      const char *why = json_object_get_string(json_at(c, "reason"));
      int delegated = json_object_get_boolean(json_at(c, "delegated"));
      TAP_OK(
          c &&
              json_object_is_type(json_at(c, "delegated"), json_type_boolean) &&
              (delegated ? why == NULL : why != NULL && why[0] != '\0') &&
              strcmp(json_str_at(c, "tree_figures_from"), "subreaper") == 0,
          "evidence: machine.cgroup_v2 says whether a per-peer cgroup "
          "could be made, and the tree figures' source: %s",
          delegated ? "delegated"
          : why     ? why
                    : "(no reason)");
    }
    TAP_OK(json_object_get_int64(json_at(doc, "workload.round_trips")) ==
                   20000 &&
               json_object_get_int64(
                   json_at(doc, "workload.warmup_round_trips")) == 1000,
           "evidence: the workload");
    TAP_OK(json_object_array_length(json_at(doc, "lanes.c-c.samples")) == 2,
           "evidence: both raw samples");
    for (int i = 0; i < 2; i++) {
      char p[128];
      json_object *s;
      snprintf(p, sizeof(p), "lanes.c-c.samples.%d", i);
      s = json_at(doc, p);
      TAP_OK(s && strcmp(json_str_at(s, "status"), "passed") == 0 &&
                 json_object_get_int64(json_at(s, "elapsed_ns")) > 0,
             "sample %d: passed with elapsed_ns", i);
      TAP_OK(json_at(s, "client.exit.code") &&
                 json_object_get_int(json_at(s, "client.exit.code")) == 0 &&
                 json_object_get_int64(json_at(s, "server.cpu.user_ns")) >= 0 &&
                 json_at(s, "server.cpu.user_ns"),
             "sample %d: exit codes and CPU per peer", i);
      TAP_OK(json_object_get_int64(json_at(s, "client.memory.peak_rss_bytes")) >
                     0 &&
                 json_at(s, "client.memory.peak_rss_source") &&
                 json_at(s, "server.memory."
                            "coordinator_peak_rss_at_spawn_bytes"),
             "sample %d: labelled peak RSS per peer", i);
      if (samples_under_wine())
        TAP_OK(1, "sample %d: the OS's peak RSS # SKIP %s", i, WINE_MEMORY);
      else
        TAP_OK(json_at(s, "server.memory.os_peak_rss_bytes"),
               "sample %d: the OS's peak RSS", i);
      TAP_OK(
          strcmp(json_str_at(s, "checks.port_free.outcome"), "passed") == 0 &&
              strcmp(json_str_at(s, "checks.temp_clean.outcome"), "passed") ==
                  0 &&
              json_at(s, "checks.no_orphans.reason"),
          "sample %d: every check with its outcome and reason", i);
      TAP_OK(json_at(s, "reproduce.crossrun") &&
                 strstr(json_str_at(s, "reproduce.crossrun"), "--lanes c-c") &&
                 json_at(s, "reproduce.client"),
             "sample %d: a command line that reproduces it", i);
    }
    TAP_OK(
        json_object_get_int(json_at(doc, "cleanliness.pairs_started")) == 2 &&
            json_object_get_int(json_at(doc, "cleanliness.natural_exits")) ==
                2 &&
            json_object_get_int(json_at(doc, "cleanliness.processes_left")) ==
                0,
        "evidence: the cleanliness summary");
    {
      struct model_limits l = MODEL_LIMITS_DEFAULT;
      TAP_OK(json_object_get_int64(
                 json_at(doc, "settings.memory_sampling_interval_ms")) ==
                     MODEL_SLOW_TICK_MS &&
                 json_object_get_int64(json_at(
                     doc, "settings.memory_sampling_fallback_interval_ms")) ==
                     (int64_t)l.tick_ms,
             "evidence: the timer's periods, %d ms and %llu ms as it falls "
             "back",
             MODEL_SLOW_TICK_MS, (unsigned long long)l.tick_ms);
    }
    {
      /* The summary's peak memory columns give the label the evidence
       * gives ("exact, tree of 1: client"), as the reports do. */
      const char *label = json_object_get_string(
          json_at(doc, "lanes.c-c.samples.0.client.memory.label"));
      const char *line = run.stdout_buf ? strstr(run.stdout_buf, "c-c ") : 0;
      char row[1024] = "";
      if (line != NULL && (line == run.stdout_buf || line[-1] == '\n'))
        snprintf(row, sizeof(row), "%.*s", (int)strcspn(line, "\r\n"), line);
      /* Under wine one sample's memory may be exact and another's
       * sampled (WINE_MEMORY), and the row is the lane's. */
      if (samples_under_wine())
        TAP_OK(strstr(row, " MiB ") != NULL,
               "the summary's peak RSS: %s # SKIP its label: %s", row,
               WINE_MEMORY);
      else
        TAP_OK(label && strstr(row, " MiB ") && strstr(row, label),
               "the summary's peak RSS shows the memory label '%s': %s",
               label ? label : "(none)", row);
    }
    json_object_put(doc);
  }
  f = fopen(out, "r");
  if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
    rewind(f);
    text = calloc(1, (size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, f) == (size_t)size) {
      const char *bad = NULL;
      for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++)
        if (strstr(text, forbidden[i]))
          bad = forbidden[i];
      TAP_OK(bad == NULL, "evidence holds no absolute path (%s)",
             bad ? bad : "none");
    }
    free(text);
  }
  if (f)
    fclose(f);
  child_release(&run);
  if (scratch_remove_tree(dir, 4) != 0)
    tap_diag("could not remove %s", dir);
}

static void test_crossrun_usage(void)
{
  static const char *bad[][4] = {
      {"quick", "--lanes", "x-y"},
      {"quick", "--samples", "nope"},
      {"quick", "--host", "192.0.2.1"},
      {"frobnicate"},
      {"quick", "--nope"},
  };
  static const char *help[] = {"quick", "--help", NULL};
  struct child_run run;

  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    run_crossrun(&run, bad[i], tap_timeout_s(30));
    TAP_OK(run.exited && run.exit_status == 2, "crossrun %s%s%s%s%s exits 2",
           bad[i][0], bad[i][1] ? " " : "", bad[i][1] ? bad[i][1] : "",
           bad[i][2] ? " " : "", bad[i][2] ? bad[i][2] : "");
    child_release(&run);
  }
  run_crossrun(&run, help, tap_timeout_s(30));
  TAP_OK(run.stdout_buf && strstr(run.stdout_buf, "--lanes"),
         "crossrun quick --help lists the options");
  child_release(&run);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char err[256] = "";

  snprintf(fixture, sizeof(fixture), "%s/tests/fixture", build);
  snprintf(c_server, sizeof(c_server), "%s/lanes/c/server", build);
  snprintf(c_client, sizeof(c_client), "%s/lanes/c/client", build);
  snprintf(crossrun, sizeof(crossrun), "%s/crossrun", build);
  if (!TAP_OK(platform_init(err, sizeof(err)) == 0, "platform_init: %s", err))
    return tap_done();
  test_c_lane_passes();
  test_faults();
  test_orphan_holds_port();
  test_unsupported_and_missing();
  test_flood();
  test_memory();
  test_interrupt();
  test_crossrun_quick();
  test_crossrun_usage();
  return tap_done();
}
