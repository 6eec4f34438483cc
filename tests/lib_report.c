/* The fixture of the report tests: see tests/lib_report.h. */
#include "tests/lib_report.h"
#include "tests/lib_child.h"
#include "tests/lib_lanes.h"
#include "tests/lib_json.h"
#include "tests/lib_memfile.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"
#include "protocol/histogram.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#ifndef _WIN32
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

extern char **environ; /* Windows' stdlib.h has it */
#endif

char rtest_dir[512];
char rtest_build[512], rtest_crossrun[1024], rtest_outdir[1024];

void rtest_sleep_ms(long ms)
{
  uv_sleep((unsigned)ms);
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

int rtest_run(const char *const *argv, const char *out, const char *err,
              const char *const *env, double seconds)
{
  struct child_opts opts = {out, err, 1};
  struct child_run r;
  char *envp[256], **child_env = NULL;
  int rc;

  if (env != NULL) {
    int n = 0;
    for (int i = 0; env[i] && n < 64; i++)
      envp[n++] = (char *)env[i];
    for (int i = 0; environ[i] && n < 255; i++) {
      int shadowed = 0;
      for (int k = 0; env[k] && !shadowed; k++) {
        size_t klen = strcspn(env[k], "=") + 1;
        shadowed = strncmp(environ[i], env[k], klen) == 0;
      }
      if (!shadowed)
        envp[n++] = environ[i];
    }
    envp[n] = NULL;
    child_env = envp;
  }
  rc = child_run_with(&r, argv, NULL, child_env, &opts, seconds);
  if (rc != 0 || r.timed_out || !r.exited)
    rc = -1;
  else
    rc = r.term_signal ? 128 + r.term_signal : (int)r.exit_status;
  child_release(&r);
  return rc;
}

/* Processes that name our temporary folder on their command line (the
 * browser's crash handler starts a session of its own, outside the
 * group) are ours: they are killed by their id. Returns how many were
 * found. Only where /proc exists; elsewhere nothing is found. A zombie
 * has no command line and is not counted. */
#ifdef _WIN32
/* No /proc: under wine "/proc" would be Linux's, whose ids are not
 * Windows'. What a test starts stays in libuv's job object. */
static int scan_ours(int kill_them)
{
  return 0;
}
#else
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
#endif

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
  return rtest_run(argv, rtest_in_dir(out), rtest_in_dir(err), NULL, seconds);
}

/* ---- checks with Python's parsers ---- */

int rtest_have_python(void)
{
  static const char *const argv[] = {
      "python3", "-c", "import xml.etree.ElementTree, html.parser", NULL};
  struct child_run r;
  int ok = child_run(&r, argv, NULL, NULL, tap_timeout_s(30)) == 0 &&
           child_succeeded(&r);
  child_release(&r);
  return ok;
}

const char *const rtest_html_check_py =
    "import sys, json\n"
    "from html.parser import HTMLParser\n"
    "VOID = {'area','base','br','col','embed','hr','img','input','link',\n"
    "        'meta','source','track','wbr'}\n"
    "class P(HTMLParser):\n"
    "    def __init__(s):\n"
    "        super().__init__(convert_charrefs=True)\n"
    "        s.stack, s.errors, s.tags, s.text = [], [], {}, []\n"
    "    def handle_starttag(s, tag, attrs):\n"
    "        s.tags[tag] = s.tags.get(tag, 0) + 1\n"
    "        for k, v in attrs:\n"
    "            if k.startswith('on') or (v or '').startswith('http'):\n"
    "                s.errors.append('attribute %s=%s' % (k, v))\n"
    "        if tag not in VOID: s.stack.append(tag)\n"
    "    def handle_startendtag(s, tag, attrs):\n"
    "        s.tags[tag] = s.tags.get(tag, 0) + 1\n"
    "    def handle_endtag(s, tag):\n"
    "        if not s.stack or s.stack[-1] != tag:\n"
    "            s.errors.append('</%s> closes %s' % (tag, s.stack[-3:]))\n"
    "        else: s.stack.pop()\n"
    "    def handle_data(s, d): s.text.append(d)\n"
    "p = P()\n"
    "p.feed(open(sys.argv[1], encoding='utf-8').read()); p.close()\n"
    "if p.stack: p.errors.append('not closed: ' + ' '.join(p.stack))\n"
    "print(json.dumps({'errors': p.errors[:5], 'tags': p.tags,\n"
    "                  'text': ''.join(p.text)}))\n";

/* Runs a Python check script on file; its JSON output, or NULL. */
json_object *rtest_python_check(const char *script, const char *file,
                                const char *name)
{
  char py[64], out[64], err[64];
  const char *argv[] = {"python3", NULL, file, NULL};
  FILE *f;
  json_object *result;

  snprintf(py, sizeof(py), "%s.py", name);
  snprintf(out, sizeof(out), "%s.json", name);
  snprintf(err, sizeof(err), "%s.err", name);
  f = fopen(rtest_in_dir(py), "w");
  if (f == NULL)
    return NULL;
  fputs(script, f);
  fclose(f);
  argv[1] = rtest_in_dir(py);
  if (rtest_run(argv, rtest_in_dir(out), rtest_in_dir(err), NULL,
                tap_timeout_s(30)) != 0) {
    char *e = rtest_slurp(rtest_in_dir(err), NULL);
    tap_diag("%s: %s", name, e ? e : "did not run");
    free(e);
    return NULL;
  }
  result = json_object_from_file(rtest_in_dir(out));
  return result;
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
  {
    uv_fs_t req;
    uv_fs_mkdir(NULL, &req, rtest_outdir, 0755, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (tap_mkdtemp(rtest_dir, sizeof rtest_dir) == NULL) {
    TAP_OK(0, "mkdtemp: %s", strerror(errno));
    rtest_dir[0] = '\0';
    return -1;
  }
  snprintf(e->quick, sizeof(e->quick), "%s", rtest_in_dir("quick.json"));
  snprintf(e->full, sizeof(e->full), "%s", rtest_in_dir("full.json"));
  snprintf(e->merged, sizeof(e->merged), "%s", rtest_in_dir("merged.json"));

  if (with_quick) {
    const char *args[] = {"quick",  "--lanes",       LIB_LANES_FEW, "--out",
                          e->quick, "--no-progress", NULL};
    rc = run_crossrun("quick", args, tap_timeout_s(300));
    TAP_OK(rc == 0 || rc == 1, "crossrun quick writes evidence (exit %d)", rc);
  }
  {
    const char *args[] = {"run",   "--lanes",  LIB_LANES_FEW, "--samples",
                          "3",     "--warmup", "1000",        "--round-trips",
                          "20000", "--out",    e->full,       "--no-progress",
                          NULL};
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
  int rc;

  json_object_put(e->full_doc);
  e->full_doc = NULL;
  if (rtest_dir[0] == '\0')
    return;
  rtest_kill_ours();
  if ((rc = scratch_remove_tree(rtest_dir, 0)) != 0)
    tap_diag("could not remove %s: %s", rtest_dir, uv_strerror(rc));
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

char *rtest_rendered(const struct report *r,
                     int (*render)(const struct report *, FILE *))
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = memfile_open(&text, &len);

  if (f == NULL)
    return NULL;
  if (render(r, f) != 0) {
    memfile_close(f);
    free(text);
    return NULL;
  }
  memfile_close(f);
  return text;
}

/* ---- crafted evidence with the cost figures ---- */

static json_object *num(double v)
{
  return json_object_new_double(v);
}

static json_object *whole(int64_t v)
{
  return json_object_new_int64(v);
}

/* The histogram of count latencies: most between lo and hi ns, one in a
 * hundred at ten times hi, one in a thousand at 2 ms. */
static void fill(struct hist *h, int count, int64_t lo, int64_t hi)
{
  for (int i = 0; i < count; i++) {
    int64_t v = lo + (hi - lo) * (i % 97) / 96;
    if (i % 100 == 99)
      v = hi * 10;
    if (i % 1000 == 999)
      v = 2000000;
    hist_record(h, v);
  }
}

/* latency as the client line and the summary give it ({"count", "min",
 * "max", "p50", ..., "buckets"}), with "samples" when samples > 0. */
static json_object *latency_of(const struct hist *h, int samples)
{
  json_object *o = json_object_new_object(), *b = json_object_new_array();
  static const struct {
    const char *key;
    uint32_t q;
  } ps[] = {{"p50", HIST_P50},
            {"p90", HIST_P90},
            {"p99", HIST_P99},
            {"p99_9", HIST_P99_9}};

  if (samples > 0)
    json_object_object_add(o, "samples", json_object_new_int(samples));
  json_object_object_add(o, "count", whole((int64_t)h->count));
  json_object_object_add(o, "min", whole(h->min));
  json_object_object_add(o, "max", whole(h->max));
  for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
    json_object_object_add(o, ps[i].key, whole(hist_percentile(h, ps[i].q)));
  for (int i = 0; i < HIST_BUCKETS; i++) {
    json_object *pair;
    if (h->buckets[i] == 0)
      continue;
    pair = json_object_new_array();
    json_object_array_add(pair, json_object_new_int(i));
    json_object_array_add(pair, whole((int64_t)h->buckets[i]));
    json_object_array_add(b, pair);
  }
  json_object_object_add(o, "buckets", b);
  return o;
}

static json_object *peer(int64_t rss, const char *label, const char *covers,
                         double cpu_ns)
{
  json_object *p = json_object_new_object(), *m = json_object_new_object(),
              *c = json_object_new_object();

  json_object_object_add(m, "peak_rss_bytes", whole(rss));
  json_object_object_add(m, "peak_rss_source",
                         json_object_new_string("exit_accounting_peak"));
  if (label)
    json_object_object_add(m, "label", json_object_new_string(label));
  if (covers)
    json_object_object_add(m, "covers", json_object_new_string(covers));
  json_object_object_add(p, "memory", m);
  json_object_object_add(c, "user_ns", num(cpu_ns / 2));
  json_object_object_add(c, "system_ns", num(cpu_ns / 2));
  json_object_object_add(p, "cpu", c);
  return p;
}

/* A passed sample: its time, its peers, and its cost (client and server
 * CPU per round trip, a negative one null with why). */
static json_object *sample(int round, double ns, json_object *client,
                           json_object *server, double ccpu, double scpu,
                           const struct hist *h, const char *latency_why)
{
  json_object *s = json_object_new_object(), *cost = json_object_new_object(),
              *nr = json_object_new_object();

  json_object_object_add(s, "round", json_object_new_int(round));
  json_object_object_add(s, "status", json_object_new_string("passed"));
  json_object_object_add(s, "ns_per_round_trip", num(ns));
  json_object_object_add(s, "client", client);
  json_object_object_add(s, "server", server);
  json_object_object_add(cost, "client_cpu_us_per_round_trip",
                         ccpu >= 0 ? num(ccpu) : NULL);
  json_object_object_add(cost, "server_cpu_us_per_round_trip",
                         scpu >= 0 ? num(scpu) : NULL);
  if (ccpu < 0)
    json_object_object_add(
        nr, "client_cpu_us_per_round_trip",
        json_object_new_string("the client reported no cpu_user_us"));
  if (scpu < 0)
    json_object_object_add(nr, "server_cpu_us_per_round_trip",
                           json_object_new_string(RTEST_EVIL_REASON));
  if (h) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "p50", whole(hist_percentile(h, HIST_P50)));
    json_object_object_add(l, "p99", whole(hist_percentile(h, HIST_P99)));
    json_object_object_add(cost, "latency_ns", l);
  } else {
    json_object_object_add(cost, "latency_ns", NULL);
    json_object_object_add(nr, "latency_ns",
                           json_object_new_string(latency_why));
  }
  json_object_object_add(cost, "not_reported", nr);
  json_object_object_add(s, "cost", cost);
  return s;
}

static json_object *lane(const char *client, const char *server,
                         json_object *samples, json_object *summary)
{
  json_object *l = json_object_new_object();
  json_object_object_add(l, "client_runtime", json_object_new_string(client));
  json_object_object_add(l, "server_runtime", json_object_new_string(server));
  json_object_object_add(l, "samples", samples);
  json_object_object_add(l, "summary", summary);
  return l;
}

json_object *rtest_cost_doc(void)
{
  json_object *doc = json_object_new_object(),
              *lanes = json_object_new_object();
  json_object *machine = json_object_new_object(), *samples, *summary, *nr;
  json_object *coord = json_object_new_object();
  static struct hist h1, h2, merged, h3;

  hist_init(&h1);
  hist_init(&h2);
  hist_init(&h3);
  fill(&h1, 1000, 20000, 60000);
  fill(&h2, 1000, 25000, 50000);
  fill(&h3, 500, 40000, 90000);
  merged = h1;
  hist_merge(&merged, &h2);

  json_object_object_add(doc, "schema_version", json_object_new_int(1));
  json_object_object_add(doc, "mode", json_object_new_string("full"));
  json_object_object_add(doc, "performance_claims", json_object_new_boolean(1));
  json_object_object_add(machine, "os", json_object_new_string("linux"));
  json_object_object_add(doc, "machine", machine);

  samples = json_object_new_array();
  json_object_array_add(samples,
                        sample(1, 30000, peer(2097152, "exact", "process", 3e6),
                               peer(3145728, "exact", "process", 2e6), 1.5, 1.0,
                               &h1, NULL));
  json_object_array_add(samples,
                        sample(2, 32000, peer(2097152, "exact", "process", 5e6),
                               peer(3145728, "exact", "process", 2.4e6), 2.5,
                               1.2, &h2, NULL));
  summary = json_object_new_object();
  json_object_object_add(summary, "status", json_object_new_string("passed"));
  json_object_object_add(summary, "latency_ns", latency_of(&merged, 2));
  json_object_object_add(summary, "client_cpu_us_per_round_trip_median",
                         num(2.0));
  json_object_object_add(summary, "server_cpu_us_per_round_trip_median",
                         num(1.1));
  json_object_object_add(summary, "not_reported", json_object_new_object());
  json_object_object_add(lanes, "c-c", lane("c", "c", samples, summary));

  samples = json_object_new_array();
  json_object_array_add(
      samples,
      sample(1, 45000, peer(48234496, RTEST_EVIL_LABEL, "tree", 9e6),
             peer(3145728, "sampled", "process", 2e6), 4.25, -1, &h3, NULL));
  summary = json_object_new_object();
  nr = json_object_new_object();
  json_object_object_add(summary, "status", json_object_new_string("passed"));
  json_object_object_add(summary, "latency_ns", latency_of(&h3, 1));
  json_object_object_add(summary, "client_cpu_us_per_round_trip_median",
                         num(4.25));
  json_object_object_add(summary, "server_cpu_us_per_round_trip_median", NULL);
  json_object_object_add(nr, "server_cpu_us_per_round_trip_median",
                         json_object_new_string(RTEST_EVIL_REASON));
  json_object_object_add(summary, "not_reported", nr);
  json_object_object_add(lanes, "node-c", lane("node", "c", samples, summary));

  samples = json_object_new_array();
  json_object_array_add(samples,
                        sample(1, 50000, peer(2097152, "exact", "process", 3e6),
                               peer(48234496, "exact", "tree", 9e6), -1, -1,
                               NULL, "the client reported no latency"));
  summary = json_object_new_object();
  nr = json_object_new_object();
  json_object_object_add(summary, "status", json_object_new_string("passed"));
  json_object_object_add(summary, "latency_ns", NULL);
  json_object_object_add(summary, "client_cpu_us_per_round_trip_median", NULL);
  json_object_object_add(summary, "server_cpu_us_per_round_trip_median", NULL);
  json_object_object_add(nr, "latency_ns",
                         json_object_new_string("the client reported no "
                                                "latency"));
  json_object_object_add(nr, "client_cpu_us_per_round_trip_median",
                         json_object_new_string("the client reported no "
                                                "cpu_user_us"));
  json_object_object_add(nr, "server_cpu_us_per_round_trip_median",
                         json_object_new_string(RTEST_EVIL_REASON));
  json_object_object_add(summary, "not_reported", nr);
  json_object_object_add(lanes, "c-node", lane("c", "node", samples, summary));

  samples = json_object_new_array();
  {
    json_object *s = json_object_new_object(), *f = json_object_new_object();
    json_object_object_add(s, "round", json_object_new_int(1));
    json_object_object_add(s, "status", json_object_new_string("failed"));
    json_object_object_add(f, "stage", json_object_new_string("client"));
    json_object_object_add(f, "reason",
                           json_object_new_string("protocol_violation"));
    json_object_object_add(s, "failure", f);
    json_object_object_add(s, "cost", NULL);
    json_object_array_add(samples, s);
  }
  summary = json_object_new_object();
  json_object_object_add(summary, "status", json_object_new_string("failed"));
  json_object_object_add(summary, "latency_ns", NULL);
  json_object_object_add(lanes, "rust-rust",
                         lane("rust", "rust", samples, summary));
  json_object_object_add(doc, "lanes", lanes);

  json_object_object_add(coord, "cpu_ns", whole(12000000));
  json_object_object_add(coord, "wall_ns", whole(4000000000LL));
  json_object_object_add(coord, "cpu_share_of_wall", num(0.003));
  json_object_object_add(coord, "peak_rss_bytes", whole(8388608));
  json_object_object_add(doc, "coordinator", coord);
  return doc;
}
