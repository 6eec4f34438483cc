/* The fixture of the report tests: see tests/lib_report.h. */
#include "tests/lib_report.h"
#include "tests/lib_json.h"
#include "tests/tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

char rtest_dir[512];
char rtest_build[512], rtest_crossrun[1024], rtest_outdir[1024];

void rtest_sleep_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

const char *rtest_in_dir(const char *name)
{
  static char paths[8][1024];
  static int next;
  char *p = paths[next++ % 8];
  snprintf(p, 1024, "%s/%s", rtest_dir, name);
  return p;
}

char *rtest_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  long size;

  if (len)
    *len = 0;
  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0) {
    rewind(f);
    text = calloc(1, (size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
      free(text);
      text = NULL;
    } else if (text && len) {
      *len = (size_t)size;
    }
  }
  fclose(f);
  return text;
}

int rtest_count(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

pid_t rtest_start(const char *const *argv, const char *out, const char *err,
                  const char *const *env)
{
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  char *envp[256];
  int n = 0;
  pid_t pid;

  for (int i = 0; env && env[i] && n < 64; i++)
    envp[n++] = (char *)env[i];
  for (int i = 0; environ[i] && n < 255; i++) {
    int shadowed = 0;
    for (int k = 0; env && env[k] && !shadowed; k++) {
      size_t klen = strcspn(env[k], "=") + 1;
      shadowed = strncmp(environ[i], env[k], klen) == 0;
    }
    if (!shadowed)
      envp[n++] = environ[i];
  }
  envp[n] = NULL;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  if (posix_spawn(&pid, argv[0], &fa, &attr, (char *const *)argv, envp))
    pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return pid;
}

int rtest_finish(pid_t pid, double seconds)
{
  int status, rc = -1;
  for (long waited = 0; waited < (long)(seconds * 1000); waited += 20) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    rtest_sleep_ms(20);
  }
  kill(-pid, SIGKILL);
  if (rc == -1)
    waitpid(pid, &status, 0);
  return rc;
}

/* Processes that name our temporary folder on their command line (the
 * browser's crash handler starts a session of its own, outside the
 * group) are ours: they are killed by their id. Returns how many were
 * found. Only where /proc exists; elsewhere nothing is found. A zombie
 * has no command line and is not counted. */
static int scan_ours(int kill_them)
{
  DIR *d = opendir("/proc");
  struct dirent *e;
  int found = 0;

  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL) {
    char path[300], cmd[8192];
    pid_t pid = (pid_t)atol(e->d_name);
    size_t n;
    FILE *f;
    if (pid <= 0 || pid == getpid())
      continue;
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    f = fopen(path, "rb");
    if (f == NULL)
      continue;
    n = fread(cmd, 1, sizeof(cmd) - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++)
      if (cmd[i] == '\0')
        cmd[i] = ' ';
    cmd[n] = '\0';
    if (n > 0 && strstr(cmd, rtest_dir) != NULL) {
      if (kill_them)
        kill(pid, SIGKILL);
      found++;
    }
  }
  closedir(d);
  return found;
}

int rtest_count_ours(void)
{
  return scan_ours(0);
}

void rtest_kill_ours(void)
{
  scan_ours(1);
}

static int run_crossrun(const char *name, const char *const *args,
                        double seconds)
{
  const char *argv[32];
  int n = 0;
  argv[n++] = rtest_crossrun;
  for (int i = 0; args[i] && n < 31; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  char out[64], err[64];
  snprintf(out, sizeof(out), "%s.out", name);
  snprintf(err, sizeof(err), "%s.err", name);
  pid_t pid = rtest_start(argv, rtest_in_dir(out), rtest_in_dir(err), NULL);
  return pid < 0 ? -1 : rtest_finish(pid, seconds);
}

/* ---- the evidence ---- */

static int write_json(json_object *doc, const char *path)
{
  return json_object_to_file_ext(
      path, doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Every time of doc times k, so that the platforms differ. */
static void scale_times(json_object *doc, double k)
{
  static const char *const keys[] = {"ns_per_round_trip_median",
                                     "ns_per_round_trip_min",
                                     "ns_per_round_trip_max"};
  json_object_object_foreach(json_at(doc, "lanes"), name, lane)
  {
    json_object *samples = json_at(lane, "samples"), *summary;
    (void)name;
    for (size_t i = 0; samples && i < json_object_array_length(samples); i++) {
      json_object *smp = json_object_array_get_idx(samples, i);
      json_object *v = json_at(smp, "ns_per_round_trip");
      if (v && json_object_is_type(v, json_type_double))
        json_object_object_add(
            smp, "ns_per_round_trip",
            json_object_new_double(json_object_get_double(v) * k));
    }
    summary = json_at(lane, "summary");
    for (int i = 0; i < 3; i++) {
      json_object *v = json_at(summary, keys[i]);
      if (v && json_object_is_type(v, json_type_double))
        json_object_object_add(
            summary, keys[i],
            json_object_new_double(json_object_get_double(v) * k));
    }
  }
}

/* Three platforms from the full evidence: macos with an unavailable lane,
 * windows with a failed lane named and described with hostile text. */
static int make_merged(const char *full, const char *out)
{
  json_object *src = json_object_from_file(full), *m, *platforms;
  static const char *const oses[] = {"linux", "macos", "windows"};
  static const char *const arches[] = {"x86_64", "arm64", "x86_64"};

  if (src == NULL)
    return -1;
  m = json_object_new_object();
  json_object_object_add(m, "schema_version", json_object_new_int(1));
  json_object_object_add(m, "tool", json_object_get(json_at(src, "tool")));
  json_object_object_add(m, "mode", json_object_new_string("merged"));
  json_object_object_add(m, "performance_claims", json_object_new_boolean(1));
  json_object_object_add(m, "official", json_object_new_boolean(0));
  json_object_object_add(
      m, "commit",
      json_object_new_string("0123456789abcdef0123456789abcdef01234567"));
  json_object_object_add(m, "inputs", json_object_new_object());
  json_object_object_add(m, "toolchain_versions", json_object_new_object());
  platforms = json_object_new_object();
  for (int i = 0; i < 3; i++) {
    json_object *doc = NULL;
    json_object_deep_copy(src, &doc, NULL);
    json_object_object_add(json_at(doc, "machine"), "os",
                           json_object_new_string(oses[i]));
    json_object_object_add(json_at(doc, "machine"), "arch",
                           json_object_new_string(arches[i]));
    if (i > 0)
      scale_times(doc, i == 1 ? 0.8 : 1.5);
    if (i == 0) {
      /* A record: provenance, and a sample that passed on a retry. */
      json_object *prov = json_object_new_object(), *first, *sample;
      json_object_object_add(doc, "mode", json_object_new_string("record"));
      json_object_object_add(
          prov, "commit",
          json_object_new_string("0123456789abcdef0123456789abcdef01234567"));
      json_object_object_add(prov, "branch", json_object_new_string("main"));
      json_object_object_add(doc, "provenance", prov);
      sample = json_at(doc, "lanes.c-c.samples.1");
      first = json_object_new_object();
      json_object_object_add(first, "status", json_object_new_string("failed"));
      json_object_object_add(first, "stage", json_object_new_string("client"));
      json_object_object_add(first, "reason",
                             json_object_new_string("timeout_client"));
      json_object_object_add(first, "message",
                             json_object_new_string("deadline passed"));
      json_object_object_add(sample, "retried", json_object_new_boolean(1));
      json_object_object_add(sample, "first_attempt", first);
      json_object_object_add(json_at(doc, "lanes.c-c.summary"), "status",
                             json_object_new_string("flaky"));
    }
    if (i == 1) {
      json_object *lane = json_object_new_object(), *summary;
      json_object_object_add(lane, "client_runtime",
                             json_object_new_string("rust"));
      json_object_object_add(lane, "server_runtime",
                             json_object_new_string("rust"));
      json_object_object_add(lane, "unavailable_reason",
                             json_object_new_string("cargo not found"));
      json_object_object_add(lane, "error_reason", NULL);
      summary = json_object_new_object();
      json_object_object_add(summary, "samples", json_object_new_int(0));
      json_object_object_add(summary, "status",
                             json_object_new_string("unavailable"));
      json_object_object_add(lane, "summary", summary);
      json_object_object_add(lane, "samples", json_object_new_array());
      json_object_object_add(json_at(doc, "lanes"), "rust-rust", lane);
    }
    if (i == 2) {
      json_object *lane = NULL, *sample, *failure;
      json_object_deep_copy(json_at(doc, "lanes.c-c"), &lane, NULL);
      json_object_object_add(lane, "client_runtime",
                             json_object_new_string("x<script>&\"'"));
      sample = json_at(lane, "samples.0");
      json_object_object_add(sample, "status",
                             json_object_new_string("failed"));
      failure = json_object_new_object();
      json_object_object_add(failure, "stage",
                             json_object_new_string("client"));
      json_object_object_add(failure, "reason",
                             json_object_new_string("protocol_violation"));
      json_object_object_add(failure, "message",
                             json_object_new_string(RTEST_EVIL_MESSAGE));
      json_object_object_add(sample, "failure", failure);
      json_object_object_add(sample, "ns_per_round_trip", NULL);
      json_object_object_add(
          json_at(sample, "client.stderr"), "text",
          json_object_new_string("client: " RTEST_EVIL_MESSAGE
                                 "\nsecond line"));
      json_object_object_add(json_at(lane, "summary"), "status",
                             json_object_new_string("failed"));
      json_object_object_add(json_at(doc, "lanes"), RTEST_EVIL_LANE, lane);
    }
    json_object_object_add(platforms, oses[i], doc);
  }
  json_object_object_add(m, "platforms", platforms);
  json_object_put(src);
  int rc = write_json(m, out);
  json_object_put(m);
  return rc;
}

int rtest_setup(struct rtest_evidence *e, int with_quick)
{
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
  int rc;

  memset(e, 0, sizeof(*e));
  snprintf(rtest_build, sizeof(rtest_build), "%s", b);
  snprintf(rtest_crossrun, sizeof(rtest_crossrun), "%s/crossrun", rtest_build);
  snprintf(rtest_outdir, sizeof(rtest_outdir), "%s/test-output", rtest_build);
  mkdir(rtest_outdir, 0755);
  if (tap_mkdtemp(rtest_dir, sizeof rtest_dir) == NULL) {
    TAP_OK(0, "mkdtemp: %s", strerror(errno));
    rtest_dir[0] = '\0';
    return -1;
  }
  snprintf(e->quick, sizeof(e->quick), "%s", rtest_in_dir("quick.json"));
  snprintf(e->full, sizeof(e->full), "%s", rtest_in_dir("full.json"));
  snprintf(e->merged, sizeof(e->merged), "%s", rtest_in_dir("merged.json"));

  if (with_quick) {
    const char *args[] = {"quick", "--out", e->quick, "--no-progress", NULL};
    rc = run_crossrun("quick", args, tap_timeout_s(300));
    TAP_OK(rc == 0 || rc == 1, "crossrun quick writes evidence (exit %d)", rc);
  }
  {
    const char *args[] = {"run",   "--samples",     "3",     "--warmup",
                          "1000",  "--round-trips", "20000", "--out",
                          e->full, "--no-progress", NULL};
    rc = run_crossrun("full", args, tap_timeout_s(600));
    TAP_OK(rc == 0 || rc == 1,
           "crossrun run --samples 3 writes evidence "
           "(exit %d)",
           rc);
  }
  e->full_doc = json_object_from_file(e->full);
  /* make_merged() edits c-c's second sample: without it (the lane broke)
   * there is nothing to make, rather than a crash. */
  TAP_OK(e->full_doc && json_at(e->full_doc, "lanes.c-c.summary") &&
             json_at(e->full_doc, "lanes.c-c.samples.1") &&
             make_merged(e->full, e->merged) == 0,
         "a merged document of three platforms is made from it");
  if (e->full_doc)
    e->cc_median = json_object_get_double(
        json_at(e->full_doc, "lanes.c-c.summary.ns_per_round_trip_median"));
  return 0;
}

void rtest_teardown(struct rtest_evidence *e)
{
  char cmd[1200];

  json_object_put(e->full_doc);
  e->full_doc = NULL;
  if (rtest_dir[0] == '\0')
    return;
  rtest_kill_ours();
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rtest_dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", rtest_dir);
}

char *rtest_md_unpadded(char *text)
{
  char *in = text, *out = text;
  int table = 0, line_start = 1;

  if (text == NULL)
    return NULL;
  while (*in) {
    if (line_start)
      table = *in == '|';
    line_start = *in == '\n';
    if (table && *in == ' ' && out > text && out[-1] == ' ') {
      in++;
      continue;
    }
    if (table && *in == '-' && out - text >= 3 && out[-1] == '-' &&
        out[-2] == '-' && out[-3] == '-') {
      in++;
      continue;
    }
    *out++ = *in++;
  }
  *out = '\0';
  return text;
}

/* The columns of the unescaped '|' of a table line, up to max. */
static int pipe_columns(const char *line, int *cols, int max)
{
  int n = 0, col = 0;
  for (const char *p = line; *p && *p != '\n'; p++) {
    if (((unsigned char)*p & 0xc0) == 0x80)
      continue;
    if (*p == '|' && (p == line || p[-1] != '\\') && n < max)
      cols[n++] = col;
    col++;
  }
  return n;
}

int rtest_md_aligned(const char *text, const char **bad)
{
  int first[64], nfirst = -1;

  for (const char *line = text; line && *line;) {
    const char *next = strchr(line, '\n');
    if (*line == '|') {
      int cols[64], n = pipe_columns(line, cols, 64);
      if (nfirst < 0) {
        memcpy(first, cols, sizeof(first));
        nfirst = n;
      } else if (n != nfirst || memcmp(cols, first, (size_t)n * sizeof(int))) {
        *bad = line;
        return 0;
      }
    } else {
      nfirst = -1;
    }
    line = next ? next + 1 : NULL;
  }
  return 1;
}
