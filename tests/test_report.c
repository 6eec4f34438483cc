/* Reports from real evidence: `crossrun quick` and `crossrun run` write
 * it here, and a merged document of three platforms is made from the
 * full one, with a failed lane whose name and message carry markup,
 * quotes, control characters and bytes that are not UTF-8. The Markdown
 * has its tables and (quick only) the smoke banner; the HTML parses,
 * renders in headless Chromium with its SVG charts and numbers (a
 * screenshot is kept in $BUILD/test-output/); the JUnit XML passes a
 * strict parser and has a suite per platform and a case per lane; nothing
 * from the file can inject markup. Then the command line, and files that
 * are not evidence, which must be refused in one line and never crash. */
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
#include <dirent.h>
#include <json-c/json.h>

#include "evidence/json_read.h"
#include "evidence/report.h"
#include "runner/commands.h"
#include "tests/lib_json.h"
#include "tests/tap.h"

extern char **environ;

#ifndef CHROMIUM
#define CHROMIUM "/usr/bin/chromium"
#endif
/* A lane name and a message that would run a script, break an attribute,
 * an entity, or an XML parser if anything reached the output raw. */
#define EVIL_LANE "x<script>alert(1)</script>&\"'\x01\x1b-c"
#define EVIL_MESSAGE                                                           \
  "wrong_sequence <script>alert(\"m\")</script> & 'q' \x01\x07\x1b[31m "       \
  "\xef\xbf\xbe\xef\xbf\xbf ]]> end"

static char dir[512];
static char build[512], crossrun[1024], outdir[1024];

static void sleep_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static const char *in_dir(const char *name)
{
  static char paths[8][1024];
  static int next;
  char *p = paths[next++ % 8];
  snprintf(p, 1024, "%s/%s", dir, name);
  return p;
}

static char *slurp(const char *path, size_t *len)
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

static int count(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

/* Starts argv in its own process group with stdout and stderr to files
 * and env added to the environment. */
static pid_t start(const char *const *argv, const char *out, const char *err,
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

/* Waits for pid at most seconds, then kills its whole group on every path
 * (a browser leaves helpers behind). Exit code, 128+N for a signal, or -1
 * on timeout. */
static int finish(pid_t pid, double seconds)
{
  int status, rc = -1;
  for (long waited = 0; waited < (long)(seconds * 1000); waited += 20) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    sleep_ms(20);
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
    if (n > 0 && strstr(cmd, dir) != NULL) {
      if (kill_them)
        kill(pid, SIGKILL);
      found++;
    }
  }
  closedir(d);
  return found;
}

static int count_ours(void)
{
  return scan_ours(0);
}

static void kill_ours_by_dir(void)
{
  scan_ours(1);
}

static int run_crossrun(const char *name, const char *const *args,
                        double seconds)
{
  const char *argv[32];
  int n = 0;
  argv[n++] = crossrun;
  for (int i = 0; args[i] && n < 31; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  char out[64], err[64];
  snprintf(out, sizeof(out), "%s.out", name);
  snprintf(err, sizeof(err), "%s.err", name);
  pid_t pid = start(argv, in_dir(out), in_dir(err), NULL);
  return pid < 0 ? -1 : finish(pid, seconds);
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
                             json_object_new_string(EVIL_MESSAGE));
      json_object_object_add(sample, "failure", failure);
      json_object_object_add(sample, "ns_per_round_trip", NULL);
      json_object_object_add(
          json_at(sample, "client.stderr"), "text",
          json_object_new_string("client: " EVIL_MESSAGE "\nsecond line"));
      json_object_object_add(json_at(lane, "summary"), "status",
                             json_object_new_string("failed"));
      json_object_object_add(json_at(doc, "lanes"), EVIL_LANE, lane);
    }
    json_object_object_add(platforms, oses[i], doc);
  }
  json_object_object_add(m, "platforms", platforms);
  json_object_put(src);
  int rc = write_json(m, out);
  json_object_put(m);
  return rc;
}

static const struct report_lane *lane_named(const struct report *r, int p,
                                            const char *name)
{
  return p < r->nplatforms ? report_find_lane(&r->platforms[p], name) : NULL;
}

static void test_model(const char *quick, const char *full, const char *merged,
                       json_object *full_doc)
{
  struct report r;
  char err[512] = "";
  const struct report_lane *l;

  if (TAP_OK(report_load(&r, quick, err, sizeof(err)) == 0,
             "quick evidence loads: %s", err)) {
    TAP_OK(!r.merged && r.nplatforms == 1 && !r.performance_claims &&
               strcmp(r.mode, "quick") == 0 && r.platforms[0].nlanes >= 1,
           "quick: one platform, no performance claims, %d lanes",
           r.platforms[0].nlanes);
    report_release(&r);
  }
  if (TAP_OK(report_load(&r, full, err, sizeof(err)) == 0,
             "full evidence loads: %s", err)) {
    double median =
        json_object_get_double(json_at(full_doc, "lanes.c-c.summary."
                                             "ns_per_round_trip_median"));
    l = lane_named(&r, 0, "c-c");
    TAP_OK(r.performance_claims && l && l->ns_per_rt.n == 3 &&
               l->ns_per_rt.median == median && l->ns_per_rt.min <= median &&
               l->ns_per_rt.max >= median,
           "full: c-c's median from its samples is the summary's (%g)", median);
    TAP_OK(l && l->client_rss.n == 3 && l->client_rss.min > 0 &&
               l->server_cpu.n == 3,
           "full: memory and CPU figures with their range");
    TAP_OK(r.platforms[0].ncomparisons > 0 &&
               r.platforms[0].cleanliness.present &&
               r.platforms[0].nruntimes >= 1,
           "full: comparisons, cleanliness and runtimes are read");
    report_release(&r);
  }
  if (TAP_OK(report_load(&r, merged, err, sizeof(err)) == 0,
             "merged evidence loads: %s", err)) {
    TAP_OK(r.merged && r.nplatforms == 3 &&
               strcmp(r.platforms[1].os, "macos") == 0 &&
               strcmp(r.platforms[2].os, "windows") == 0 &&
               strcmp(r.commit, "0123456789abcdef0123456789abcdef01234567") ==
                   0,
           "merged: three platforms in order, the commit");
    l = lane_named(&r, 2, EVIL_LANE);
    TAP_OK(l && strcmp(l->status, "failed") == 0 && l->failed == 1 &&
               l->samples[0].reproduce &&
               strstr(l->samples[0].reproduce, "--lanes c-c"),
           "merged: the crafted lane failed, with a reproduce command");
    l = lane_named(&r, 1, "rust-rust");
    TAP_OK(l && strcmp(l->status, "unavailable") == 0 && l->ns_per_rt.n == 0,
           "merged: an unavailable lane has no figure");
    report_release(&r);
  }
}

/* ---- Markdown ---- */

static char *render(const char *evidence, const char *name,
                    int (*fn)(const struct report *, FILE *))
{
  struct report r;
  char err[512];
  FILE *f;
  char *text = NULL;

  if (report_load(&r, evidence, err, sizeof(err)) != 0)
    return NULL;
  f = fopen(in_dir(name), "wb");
  if (f != NULL) {
    int rc = fn(&r, f);
    if (fclose(f) == 0 && rc == 0)
      text = slurp(in_dir(name), NULL);
  }
  report_release(&r);
  return text;
}

static int has_control(const char *s)
{
  for (; *s; s++)
    if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
      return 1;
  return 0;
}

static void test_markdown(const char *quick, const char *full,
                          const char *merged, int ncomparisons)
{
  char *q = render(quick, "quick.md", report_markdown);
  char *f = render(full, "full.md", report_markdown);
  char *m = render(merged, "merged.md", report_markdown);

  if (TAP_OK(q != NULL, "quick: Markdown written")) {
    TAP_OK(strstr(q, "Smoke check: no performance claims") != NULL,
           "quick Markdown: the smoke-check banner");
    TAP_OK(strstr(q, "## Time per round trip") && strstr(q, "| c-c |") &&
               strstr(q, "### Client \xc3\x97 server") &&
               strstr(q, "### Cleanliness") &&
               strstr(q, "### Machine and toolchains"),
           "quick Markdown: the time, client x server, cleanliness and "
           "machine tables");
    TAP_OK(!strstr(q, "### Comparisons") && !strstr(q, "ratio of medians") &&
               !strstr(q, "\xc3\x97 |"),
           "quick Markdown: no comparisons or ratios");
  }
  if (TAP_OK(f != NULL, "full: Markdown written")) {
    TAP_OK(!strstr(f, "Smoke check"), "full Markdown: no smoke banner");
    if (ncomparisons > 0)
      TAP_OK(strstr(f, "### Comparisons") &&
                 strstr(strstr(f, "### Comparisons"), " | c-c | "),
             "full Markdown: the comparisons against c-c");
    else
      TAP_OK(!strstr(f, "### Comparisons"),
             "full Markdown: no comparisons when the evidence has none");
    TAP_OK(strstr(f, "### Same-runtime lanes: peak RSS and CPU") &&
               strstr(f, " MiB ["),
           "full Markdown: same-runtime memory with min-max");
    TAP_OK(count(f, "[") > 20 && strstr(f, "\xe2\x80\x93"),
           "full Markdown: figures carry [min\xe2\x80\x93max]");
  }
  if (TAP_OK(m != NULL, "merged: Markdown written")) {
    TAP_OK(strstr(m, "| lane | linux | macos | windows |") &&
               strstr(m, "## macos arm64") && strstr(m, "## windows x86_64"),
           "merged Markdown: a platform x lane table and a section per "
           "platform");
    TAP_OK(!strstr(m, "<script") && strstr(m, "&lt;script>") && !has_control(m),
           "merged Markdown: markup and control characters from the file "
           "are neutralised");
    TAP_OK(strstr(m, "round 2: passed on a retry; the first attempt failed "
                     "at client: timeout_client: deadline passed") &&
               strstr(m, "**flaky** 3/3: "),
           "merged Markdown: a flaky lane and its first attempt");
    TAP_OK(strstr(m, "| commit | 0123456789abcdef0123456789abcdef01234567 on "
                     "main |"),
           "merged Markdown: a record's provenance");
    TAP_OK(strstr(m, "reproduce: ` ") &&
               strstr(m, " run --lanes c-c --samples 1 "),
           "merged Markdown: the failure's reproduce command");
  }
  free(q);
  free(f);
  free(m);
}

/* ---- checks with Python's parsers ---- */

static int have_python(void)
{
  return system("python3 -c 'import xml.etree.ElementTree, html.parser' "
                ">/dev/null 2>&1") == 0;
}

static const char *const html_check_py =
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

static const char *const junit_check_py =
    "import sys, json\n"
    "import xml.etree.ElementTree as E\n"
    "root = E.parse(sys.argv[1]).getroot()\n"
    "out = {'root': root.tag, 'suites': []}\n"
    "for s in root.findall('testsuite'):\n"
    "    cases = []\n"
    "    for c in s.findall('testcase'):\n"
    "        f, k = c.find('failure'), c.find('skipped')\n"
    "        cases.append({'name': c.get('name'),\n"
    "            'classname': c.get('classname'),\n"
    "            'out': c.findtext('system-out') or '',\n"
    "            'failure': None if f is None else\n"
    "                (f.get('message') or '') + '\\n' + (f.text or ''),\n"
    "            'skipped': None if k is None else k.get('message')})\n"
    "    out['suites'].append({'name': s.get('name'),\n"
    "        'tests': int(s.get('tests')), 'failures': "
    "int(s.get('failures')),\n"
    "        'skipped': int(s.get('skipped')), 'cases': cases})\n"
    "print(json.dumps(out))\n";

/* Runs a Python check script on file; its JSON output, or NULL. */
static json_object *python_check(const char *script, const char *file,
                                 const char *name)
{
  char py[64], out[64], err[64];
  const char *argv[] = {"/usr/bin/env", "python3", NULL, file, NULL};
  FILE *f;
  json_object *result;

  snprintf(py, sizeof(py), "%s.py", name);
  snprintf(out, sizeof(out), "%s.json", name);
  snprintf(err, sizeof(err), "%s.err", name);
  f = fopen(in_dir(py), "w");
  if (f == NULL)
    return NULL;
  fputs(script, f);
  fclose(f);
  argv[2] = in_dir(py);
  pid_t pid = start(argv, in_dir(out), in_dir(err), NULL);
  if (pid < 0 || finish(pid, tap_timeout_s(30)) != 0) {
    char *e = slurp(in_dir(err), NULL);
    tap_diag("%s: %s", name, e ? e : "did not run");
    free(e);
    return NULL;
  }
  result = json_object_from_file(in_dir(out));
  return result;
}

/* ---- HTML ---- */

/* Renders path in headless Chromium: its DOM (dump) or a screenshot. */
static int chromium(const char *html, const char *mode_arg, const char *out,
                    const char *name)
{
  char url[1200], profile[1100], home[1100], err[64], env_home[1200],
      env_cfg[1200], env_cache[1200], shot[1200];
  const char *argv[24];
  int n = 0, rc;

  snprintf(url, sizeof(url), "file://%s", html);
  snprintf(profile, sizeof(profile), "%s/profile-%s", dir, name);
  snprintf(home, sizeof(home), "%s/home", dir);
  mkdir(home, 0700);
  snprintf(env_home, sizeof(env_home), "HOME=%s", home);
  snprintf(env_cfg, sizeof(env_cfg), "XDG_CONFIG_HOME=%s/.config", home);
  snprintf(env_cache, sizeof(env_cache), "XDG_CACHE_HOME=%s/.cache", home);
  /* Its singleton socket and temporary files go to our folder too. */
  char env_tmp[1200];
  snprintf(env_tmp, sizeof(env_tmp), "TMPDIR=%s", dir);
  const char *env[] = {env_home, env_cfg, env_cache, env_tmp, NULL};
  char user_data[1200];
  snprintf(user_data, sizeof(user_data), "--user-data-dir=%s", profile);
  argv[n++] = CHROMIUM;
  argv[n++] = "--headless";
  argv[n++] = "--no-sandbox";
  argv[n++] = "--disable-gpu";
  argv[n++] = "--disable-quic";
  argv[n++] = "--no-first-run";
  argv[n++] = "--disable-background-networking";
  argv[n++] = "--disable-component-update";
  argv[n++] = "--disable-sync";
  argv[n++] = user_data;
  if (strcmp(mode_arg, "dump") == 0) {
    argv[n++] = "--dump-dom";
  } else {
    snprintf(shot, sizeof(shot), "--screenshot=%s", out);
    argv[n++] = shot;
    argv[n++] = "--window-size=1280,2000";
  }
  argv[n++] = url;
  argv[n] = NULL;
  snprintf(err, sizeof(err), "chromium-%s.err", name);
  pid_t pid =
      start(argv, strcmp(mode_arg, "dump") == 0 ? out : in_dir("shot.out"),
            in_dir(err), env);
  rc = pid < 0 ? -1 : finish(pid, tap_timeout_s(60));
  if (rc != 0) {
    char *e = slurp(in_dir(err), NULL);
    tap_diag("chromium exited with %d: %.800s", rc, e ? e : "");
    free(e);
  }
  return rc;
}

static void test_html(const char *quick, const char *full, const char *merged,
                      double cc_median)
{
  char *q = render(quick, "quick.html", report_html);
  char *f = render(full, "full.html", report_html);
  char *m = render(merged, "merged.html", report_html);
  char median[64];

  report_format_value(median, sizeof(median), cc_median, REPORT_NS);
  TAP_OK(q && strstr(q, "Smoke check: no performance claims") &&
             !strstr(q, "Comparisons"),
         "quick HTML: the smoke banner, no comparisons");
  TAP_OK(f && !strstr(f, "Smoke check") && strstr(f, "<h3>Comparisons</h3>"),
         "full HTML: no banner, the comparisons");
  if (m != NULL) {
    TAP_OK(!strstr(m, "<script") && !strstr(m, "<SCRIPT") &&
               strstr(m, "&lt;script&gt;alert(1)") &&
               strstr(m, "&amp;&quot;&#39;") && !has_control(m) &&
               !strstr(m, "\xef\xbf\xbe"),
           "merged HTML: every string from the file is escaped");
    TAP_OK(!strstr(m, "http://") && !strstr(m, "https://") &&
               !strstr(m, " src=") && strstr(m, "default-src 'none'"),
           "merged HTML: self-contained, loads nothing");
    TAP_OK(count(m, "<svg") >= 6 && strstr(m, median),
           "merged HTML: SVG charts and the numbers (c-c %s)", median);
  } else {
    TAP_OK(0, "merged: HTML written");
  }
  if (have_python()) {
    const char *names[] = {"quick.html", "full.html", "merged.html"};
    for (int i = 0; i < 3; i++) {
      json_object *res =
          python_check(html_check_py, in_dir(names[i]), "html-check");
      json_object *errors = json_at(res, "errors");
      TAP_OK(res && errors && json_object_array_length(errors) == 0 &&
                 !json_at(res, "tags.script") && json_at(res, "tags.svg") &&
                 json_at(res, "tags.table"),
             "%s parses: tags balanced, no script, SVG and tables (%s)",
             names[i],
             errors ? json_object_to_json_string(errors) : "no result");
      if (i == 2)
        TAP_OK(res && strstr(json_object_get_string(json_at(res, "text")),
                             "<script>alert(\"m\")</script> & 'q'"),
               "merged HTML: the hostile message reads back as text");
      json_object_put(res);
    }
  } else {
    printf("ok %d - # SKIP python3 not installed: HTML parse check\n",
           ++tap_count);
  }

  if (access(CHROMIUM, X_OK) != 0) {
    /* As many as the checks below, so the plan is the same either way. */
    for (int i = 0; i < 6; i++)
      printf("ok %d - # SKIP chromium not installed\n", ++tap_count);
  } else {
    char shot[1200];
    int rc = chromium(in_dir("merged.html"), "dump", in_dir("dom.html"), "dom");
    char *dom = rc == 0 ? slurp(in_dir("dom.html"), NULL) : NULL;
    if (TAP_OK(dom && count(dom, "<svg") >= 6,
               "chromium: the DOM holds the SVG charts (%d <svg>)",
               dom ? count(dom, "<svg") : -1)) {
      TAP_OK(count(dom, "<rect") >= 50 && strstr(dom, median),
             "chromium: bars and heat-map cells (%d <rect>), c-c's median "
             "%s",
             count(dom, "<rect"), median);
      TAP_OK(!strstr(dom, "<script") && strstr(dom, "&lt;script&gt;"),
             "chromium: the hostile lane stayed text");
    } else {
      TAP_OK(0, "chromium: bars and heat-map cells");
      TAP_OK(0, "chromium: the hostile lane stayed text");
    }
    free(dom);
    rc = chromium(in_dir("quick.html"), "dump", in_dir("dom-quick.html"),
                  "quick");
    dom = rc == 0 ? slurp(in_dir("dom-quick.html"), NULL) : NULL;
    TAP_OK(dom && strstr(dom, "Smoke check: no performance claims") &&
               count(dom, "<svg") >= 3,
           "chromium: the quick report shows its smoke banner");
    free(dom);
    snprintf(shot, sizeof(shot), "%s/report.png", outdir);
    remove(shot);
    rc = chromium(in_dir("merged.html"), "shot", shot, "shot");
    {
      size_t len = 0;
      char *png = slurp(shot, &len);
      TAP_OK(rc == 0 && png && len > 10000 &&
                 memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0,
             "chromium: a screenshot of the merged report (%zu bytes)", len);
      free(png);
    }
    tap_diag("screenshot: %s", shot);
    {
      /* The browser's helpers end with it; give them a moment. */
      int left = count_ours();
      for (int waited = 0; left > 0 && waited < 5000; waited += 100) {
        sleep_ms(100);
        left = count_ours();
      }
      TAP_OK(left == 0, "no process of the browser is left running (%d)", left);
      kill_ours_by_dir();
    }
  }
  free(q);
  free(f);
  free(m);
}

/* ---- JUnit ---- */

static json_object *case_named(json_object *suite, const char *name)
{
  json_object *cases = json_at(suite, "cases");
  for (size_t i = 0; cases && i < json_object_array_length(cases); i++) {
    json_object *c = json_object_array_get_idx(cases, i);
    if (strcmp(json_object_get_string(json_at(c, "name")), name) == 0)
      return c;
  }
  return NULL;
}

static void test_junit(const char *merged, const char *quick)
{
  char *x = render(merged, "junit.xml", report_junit);
  char *xq = render(quick, "junit-quick.xml", report_junit);
  json_object *res;
  const char *evil_clean = "x<script>alert(1)</script>&\"'-c";

  TAP_OK(
      x && strncmp(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38) == 0 &&
          !has_control(x) && !strstr(x, "<script") &&
          !strstr(x, "\xef\xbf\xbe"),
      "JUnit: an XML declaration, nothing raw from the file");
  if (!have_python()) {
    printf("ok %d - # SKIP python3 not installed: JUnit parse check\n",
           ++tap_count);
    free(x);
    free(xq);
    return;
  }
  res = python_check(junit_check_py, in_dir("junit.xml"), "junit-check");
  if (TAP_OK(res &&
                 strcmp(json_object_get_string(json_at(res, "root")),
                        "testsuites") == 0 &&
                 json_object_array_length(json_at(res, "suites")) == 3,
             "JUnit: a strict parser reads <testsuites> with 3 suites")) {
    static const char *const oses[] = {"linux", "macos", "windows"};
    for (int i = 0; i < 3; i++) {
      json_object *s = json_object_array_get_idx(json_at(res, "suites"), (size_t)i);
      char want[64];
      snprintf(want, sizeof(want), "crossrun.%s", oses[i]);
      json_object *cc = case_named(s, "c-c");
      TAP_OK(strcmp(json_object_get_string(json_at(s, "name")), want) == 0 &&
                 json_object_get_int(json_at(s, "tests")) ==
                     (int)json_object_array_length(json_at(s, "cases")) &&
                 json_object_array_length(json_at(s, "cases")) >= 2 && cc &&
                 strcmp(json_object_get_string(json_at(cc, "classname")), want) ==
                     0,
             "JUnit: suite %s, a testcase per lane named by the lane", want);
    }
    json_object *lin =
        case_named(json_object_array_get_idx(json_at(res, "suites"), 0), "c-c");
    TAP_OK(lin && json_at(lin, "failure") == NULL &&
               strstr(json_object_get_string(json_at(lin, "out")),
                      "round 2: the first attempt failed at client: "
                      "timeout_client: deadline passed; the retry passed"),
           "JUnit: a flaky lane passes and says how its first attempt "
           "failed");
    json_object *mac = json_object_array_get_idx(json_at(res, "suites"), 1);
    json_object *rr = case_named(mac, "rust-rust");
    TAP_OK(rr && json_at(rr, "skipped") &&
               strstr(json_object_get_string(json_at(rr, "skipped")),
                      "cargo not found") &&
               json_object_get_int(json_at(mac, "skipped")) >= 1,
           "JUnit: the unavailable lane is skipped, with its reason");
    json_object *win = json_object_array_get_idx(json_at(res, "suites"), 2);
    json_object *evil = case_named(win, evil_clean);
    const char *text =
        evil ? json_object_get_string(json_at(evil, "failure")) : NULL;
    TAP_OK(evil && text && json_object_get_int(json_at(win, "failures")) >= 1,
           "JUnit: the crafted lane, its name read back without control "
           "characters, has a failure");
    TAP_OK(text && strstr(text, "protocol_violation") &&
               strstr(text, "<script>alert(\"m\")</script> & 'q'") &&
               strstr(text, "reproduce: ") &&
               strstr(text, "run --lanes c-c --samples 1"),
           "JUnit: the failure carries the reason, the message and the "
           "reproduce command");
    TAP_OK(text && strstr(text, "\xef\xbf\xbd"),
           "JUnit: bytes that are not UTF-8 became U+FFFD");
  }
  json_object_put(res);
  res = python_check(junit_check_py, in_dir("junit-quick.xml"), "junit-check");
  TAP_OK(res && json_object_array_length(json_at(res, "suites")) == 1 &&
             json_object_array_length(json_at(res, "suites.0.cases")) >= 1,
         "JUnit from quick evidence parses: one suite with its lanes");
  json_object_put(res);
  free(x);
  free(xq);
}

/* ---- the command ---- */

/* cmd_report with its output and errors in memory; *out and *err (when
 * asked for) are the caller's to free. */
static int report_cmd(const char *const *args, char **out, char **err)
{
  const char *argv[16];
  char *text[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  FILE *f[2];
  int argc = 0, rc = -1;

  argv[argc++] = "report";
  for (int i = 0; args[i] && argc < 15; i++)
    argv[argc++] = args[i];
  argv[argc] = NULL;
  f[0] = open_memstream(&text[0], &len[0]);
  f[1] = open_memstream(&text[1], &len[1]);
  if (f[0] != NULL && f[1] != NULL)
    rc = cmd_report(argc, (char **)argv, f[0], f[1]);
  for (int k = 0; k < 2; k++)
    if (f[k] != NULL)
      fclose(f[k]);
  if (out)
    *out = text[0];
  else
    free(text[0]);
  if (err)
    *err = text[1];
  else
    free(text[1]);
  return rc;
}

/* The length of s without its newline, for printing. */
static int line_len(const char *s)
{
  return s ? (int)strcspn(s, "\n") : 0;
}

static int one_line(const char *s)
{
  size_t n = s ? strlen(s) : 0;
  return n > 0 && s[n - 1] == '\n' && strchr(s, '\n') == s + n - 1;
}

static void test_command(const char *full, const char *merged)
{
  const char *saved = getenv("GITHUB_STEP_SUMMARY");
  char *saved_copy = saved ? strdup(saved) : NULL;
  char *out = NULL, *err = NULL, *summary;
  char md[1100], html[1100], xml[1100], bad[1100];
  int rc;

  snprintf(md, sizeof(md), "%s", in_dir("cmd.md"));
  snprintf(html, sizeof(html), "%s", in_dir("cmd.html"));
  snprintf(xml, sizeof(xml), "%s", in_dir("cmd.xml"));
  unsetenv("GITHUB_STEP_SUMMARY");

  {
    const char *a[] = {full, "--markdown", md, "--html=", NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 2 && one_line(err) && strstr(err, "--html needs a file"),
           "an empty output name is bad usage: %.*s", line_len(err), err);
    free(err);
  }
  struct {
    const char *args[6];
    const char *says;
  } usage[] = {
      {{NULL}, "no evidence file"},
      {{full, NULL}, "no output"},
      {{full, "--pdf", "x", NULL}, "unknown option '--pdf'"},
      {{full, "--html", NULL}, "--html needs a file"},
      {{full, full, "--html", html, NULL}, "unexpected argument"},
      {{full, "--html", html, "--html", html, NULL}, "given twice"},
      {{full, "--markdown", "-", "--junit", "-", NULL}, "standard output"},
  };
  for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
    rc = report_cmd(usage[i].args, NULL, &err);
    TAP_OK(rc == 2 && one_line(err) && strstr(err, usage[i].says),
           "usage error %zu exits 2: %.*s", i, line_len(err), err ? err : "");
    free(err);
  }
  {
    const char *a[] = {"--help", NULL};
    rc = report_cmd(a, &out, NULL);
    TAP_OK(rc == 0 && out && strstr(out, "--markdown OUT") &&
               strstr(out, "GITHUB_STEP_SUMMARY"),
           "--help prints the usage and exits 0");
    free(out);
  }
  {
    const char *a[] = {in_dir("missing.json"), "--html", html, NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 1 && one_line(err) &&
               strncmp(err, "crossrun report: ", 17) == 0 &&
               strstr(err, "missing.json: cannot read"),
           "a missing file exits 1 with one line: %.*s", line_len(err),
           err ? err : "");
    free(err);
  }
  snprintf(bad, sizeof(bad), "%s", in_dir("bad.json"));
  {
    FILE *f = fopen(bad, "w");
    if (f) {
      fputs("{\"schema_version\": 1, \"mode\": \"full\", \"machine\": "
            "{\"os\": \"linux\"}, \"lanes\": {\"c-c\": {\"samples\": "
            "\"many\"}}}",
            f);
      fclose(f);
    }
    const char *a[] = {bad, "--markdown", md, NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 1 && one_line(err) &&
               strstr(err, "'lanes.c-c.samples' is a string, expected an "
                           "array"),
           "a wrong type exits 1, named in one line: %.*s", line_len(err),
           err ? err : "");
    free(err);
  }
  snprintf(bad, sizeof(bad), "%s", in_dir("summary.md"));
  remove(bad);
  {
    FILE *f = fopen(bad, "w");
    if (f) {
      fputs("earlier step\n", f);
      fclose(f);
    }
  }
  setenv("GITHUB_STEP_SUMMARY", bad, 1);
  {
    const char *a[] = {merged, "--markdown", md,  "--html",
                       html,   "--junit",    xml, NULL};
    rc = report_cmd(a, &out, &err);
    char *mdt = slurp(md, NULL), *ht = slurp(html, NULL),
         *xt = slurp(xml, NULL);
    summary = slurp(bad, NULL);
    TAP_OK(rc == 0 && mdt && ht && xt && strstr(ht, "</html>") &&
               strstr(xt, "</testsuites>") && out && out[0] == '\0',
           "all three outputs written, nothing on stdout (%d: %.*s)", rc,
           line_len(err), err ? err : "");
    TAP_OK(summary && mdt && strncmp(summary, "earlier step\n", 13) == 0 &&
               strcmp(summary + 13, mdt) == 0,
           "the Markdown is appended to GITHUB_STEP_SUMMARY");
    free(mdt);
    free(ht);
    free(xt);
    free(summary);
    free(out);
    free(err);
  }
  unsetenv("GITHUB_STEP_SUMMARY");
  {
    const char *a[] = {full, "--markdown", "-", NULL};
    rc = report_cmd(a, &out, &err);
    TAP_OK(rc == 0 && out && strncmp(out, "# crossrun report", 17) == 0 &&
               err && err[0] == '\0',
           "--markdown - writes to standard output");
    free(out);
    free(err);
  }
  {
    const char *a[] = {full, "--html", in_dir("no/such/dir/r.html"), NULL};
    rc = report_cmd(a, NULL, &err);
    TAP_OK(rc == 1 && one_line(err) && strstr(err, "cannot write"),
           "an output that cannot be written exits 1: %.*s", line_len(err),
           err ? err : "");
    free(err);
  }
  if (saved_copy)
    setenv("GITHUB_STEP_SUMMARY", saved_copy, 1);
  free(saved_copy);
}

/* ---- files that are not evidence ---- */

static int refused(const char *text, const char *says, char *err, size_t errlen)
{
  struct report r;
  int rc = report_parse(&r, "t.json", text, strlen(text), err, errlen);
  if (rc == 0)
    report_release(&r);
  return rc == -1 && err[0] && !strchr(err, '\n') && strstr(err, says);
}

/* Sets dotted path in a copy of doc to value (owned) and returns the
 * text. */
static char *with_value(json_object *doc, const char *dotted,
                        json_object *value)
{
  json_object *copy = NULL, *parent;
  char buf[512], *dot;
  char *text;

  json_object_deep_copy(doc, &copy, NULL);
  snprintf(buf, sizeof(buf), "%s", dotted);
  dot = strrchr(buf, '.');
  if (dot) {
    *dot = '\0';
    parent = json_at(copy, buf);
  } else {
    parent = copy;
  }
  if (parent && json_object_is_type(parent, json_type_array))
    json_object_array_put_idx(parent, (size_t)atoi(dot + 1), value);
  else if (parent)
    json_object_object_add(parent, dot ? dot + 1 : buf, value);
  else
    json_object_put(value);
  text = strdup(json_object_to_json_string(copy));
  json_object_put(copy);
  return text;
}

static void test_invalid(json_object *full_doc, const char *full_path)
{
  static const struct {
    const char *text;
    const char *says;
  } texts[] = {
      {"", "not JSON: the file is empty"},
      {"not json", "not JSON"},
      {"{\"schema_version\": 1,", "not JSON: unexpected end of data"},
      {"{} {}", "not JSON"},
      {"{}  \n\t x", "not JSON"},
      {"[1, 2]", "the document is an array, expected an object"},
      {"{}", "'schema_version' is missing"},
      {"{\"schema_version\": \"1\"}", "'schema_version' is a string"},
      {"{\"schema_version\": 2, \"mode\": \"full\"}",
       "schema_version 2 is not supported"},
      {"{\"schema_version\": 1}", "'mode' is missing"},
      {"{\"schema_version\": 1, \"mode\": \"full\"}", "'machine' is missing"},
      {"{\"schema_version\": 1, \"mode\": \"full\", \"machine\": {\"os\": "
       "\"linux\"}}",
       "'lanes' is missing"},
      {"{\"schema_version\": 1, \"mode\": \"merged\", \"platforms\": {}}",
       "'platforms' has 0 entries"},
      {"{\"schema_version\": 1, \"mode\": \"merged\", \"platforms\": "
       "{\"linux\": 5}}",
       "'platforms.linux' is a number, expected an object"},
      {"{\"schema_version\": 1, \"mode\": \"full\", \"machine\": {\"os\": "
       "\"linux\"}, \"lanes\": {\"a\nb\": 1}}",
       "'lanes.a?b' is a number"},
      {"{\"schema_version\": 1, \"mode\": \"full\", \"machine\": {\"os\": "
       "\"linux\"}, \"lanes\": {\"a\\nb\": 1}}",
       "'lanes.a?b' is a number"},
  };
  static const struct {
    const char *path;
    const char *json;
    const char *says;
  } types[] = {
      {"lanes.c-c.samples", "\"x\"", "'lanes.c-c.samples' is a string"},
      {"lanes.c-c.samples.0", "[]", "'lanes.c-c.samples[0]' is an array"},
      {"lanes.c-c.samples.0.ns_per_round_trip", "\"fast\"",
       "'lanes.c-c.samples[0].ns_per_round_trip' is a string"},
      {"lanes.c-c.samples.0.ns_per_round_trip", "-5", "out of range"},
      {"lanes.c-c.samples.0.ns_per_round_trip", "1e300", "out of range"},
      {"lanes.c-c.samples.0.round", "1.5", "expected a whole number"},
      {"lanes.c-c.samples.0.client.memory.peak_rss_bytes", "true",
       "is a boolean, expected a whole number"},
      {"lanes.c-c.samples.0.failure", "\"bad\"", "expected an object"},
      {"lanes.c-c.summary.stable", "1", "expected a boolean"},
      {"lanes.c-c.summary", "[]", "'lanes.c-c.summary' is an array"},
      {"lanes.c-c", "null", "'lanes.c-c' is null"},
      {"machine", "[]", "'machine' is an array"},
      {"machine.os", "7", "'machine.os' is a number"},
      {"runtimes.c.package.packed_bytes", "-1", "out of range"},
      {"runtimes.c", "\"c\"", "'runtimes.c' is a string"},
      {"comparisons", "3", "'comparisons' is a number"},
      {"cleanliness.pairs_started", "\"9\"", "is a string"},
      {"performance_claims", "\"yes\"", "'performance_claims' is a string"},
      {"mode", "{}", "'mode' is an object"},
  };
  char err[512];

  for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
    err[0] = '\0';
    TAP_OK(refused(texts[i].text, texts[i].says, err, sizeof(err)),
           "refused in one line: %s", err);
  }
  for (size_t i = 0; full_doc && i < sizeof(types) / sizeof(types[0]); i++) {
    char *text =
        with_value(full_doc, types[i].path, json_tokener_parse(types[i].json));
    err[0] = '\0';
    TAP_OK(text && refused(text, types[i].says, err, sizeof(err)),
           "%s = %s is refused: %s", types[i].path, types[i].json, err);
    free(text);
  }
  {
    char deep[4100];
    memset(deep, '[', 2000);
    memset(deep + 2000, ']', 2000);
    deep[4000] = '\0';
    err[0] = '\0';
    TAP_OK(refused(deep, "not JSON", err, sizeof(err)),
           "nesting 2000 deep is refused: %s", err);
  }
  {
    /* A sparse file past the limit: refused without reading it all in. */
    struct report r;
    int fd = open(in_dir("huge.json"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int ok = fd >= 0 && ftruncate(fd, JSON_READ_MAX_BYTES + 10) == 0;
    if (fd >= 0)
      close(fd);
    err[0] = '\0';
    TAP_OK(ok && report_load(&r, in_dir("huge.json"), err, sizeof(err)) == -1 &&
               strstr(err, "too large"),
           "a file over the limit is refused: %s", err);
    remove(in_dir("huge.json"));
    TAP_OK(report_load(&r, dir, err, sizeof(err)) == -1 &&
               strstr(err, "cannot read"),
           "a folder is refused: %s", err);
  }

  /* Random damage: truncation, changed bytes, swapped characters. Every
   * result is a model or one line, never a crash; a model renders. */
  size_t len;
  char *orig = slurp(full_path, &len);
  int parsed = 0, refusedn = 0, bad_lines = 0, render_fail = 0;
  unsigned seed = 12345;
  if (orig == NULL) {
    TAP_OK(0, "random damage: the full evidence is readable");
    return;
  }
  char *buf = malloc(len + 1);
  FILE *sink = fopen("/dev/null", "w");
  for (int iter = 0; iter < 300 && buf && sink; iter++) {
    size_t n = len;
    memcpy(buf, orig, len);
    seed = seed * 1103515245u + 12345u;
    int kind = (int)((seed >> 16) % 3);
    for (int k = 0; k < 1 + iter % 4; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % len;
      if (kind == 0) {
        n = at;
        break;
      }
      if (kind == 1)
        buf[at] = "0-9.e{}[]\":,tfn \\\x01\xff"[(seed >> 3) % 20];
      else if (at + 1 < len) {
        char t = buf[at];
        buf[at] = buf[at + 1];
        buf[at + 1] = t;
      }
    }
    struct report r;
    err[0] = '\0';
    if (report_parse(&r, "damaged.json", buf, n, err, sizeof(err)) == 0) {
      parsed++;
      render_fail += report_markdown(&r, sink) != 0;
      render_fail += report_html(&r, sink) != 0;
      render_fail += report_junit(&r, sink) != 0;
      report_release(&r);
    } else {
      refusedn++;
      bad_lines += err[0] == '\0' || strchr(err, '\n') != NULL;
    }
  }
  if (sink)
    fclose(sink);
  TAP_OK(parsed + refusedn == 300 && bad_lines == 0 && render_fail == 0,
         "300 damaged files: %d read and rendered, %d refused in one line",
         parsed, refusedn);
  free(buf);
  free(orig);
}

int main(void)
{
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
  char quick[1100], full[1100], merged[1100], cmd[1200];
  json_object *full_doc;
  double cc_median = 0;
  int rc;

  snprintf(build, sizeof(build), "%s", b);
  snprintf(crossrun, sizeof(crossrun), "%s/crossrun", build);
  snprintf(outdir, sizeof(outdir), "%s/test-output", build);
  mkdir(outdir, 0755);
  if (tap_mkdtemp(dir, sizeof dir) == NULL) {
    TAP_OK(0, "mkdtemp: %s", strerror(errno));
    return tap_done();
  }
  snprintf(quick, sizeof(quick), "%s", in_dir("quick.json"));
  snprintf(full, sizeof(full), "%s", in_dir("full.json"));
  snprintf(merged, sizeof(merged), "%s", in_dir("merged.json"));

  {
    const char *args[] = {"quick", "--out", quick, "--no-progress", NULL};
    rc = run_crossrun("quick", args, tap_timeout_s(300));
    TAP_OK(rc == 0 || rc == 1, "crossrun quick writes evidence (exit %d)", rc);
  }
  {
    const char *args[] = {"run",  "--samples",     "3",     "--warmup",
                          "1000", "--round-trips", "20000", "--out",
                          full,   "--no-progress", NULL};
    rc = run_crossrun("full", args, tap_timeout_s(600));
    TAP_OK(rc == 0 || rc == 1,
           "crossrun run --samples 3 writes evidence "
           "(exit %d)",
           rc);
  }
  full_doc = json_object_from_file(full);
  TAP_OK(full_doc && json_at(full_doc, "lanes.c-c.summary") &&
             make_merged(full, merged) == 0,
         "a merged document of three platforms is made from it");
  if (full_doc)
    cc_median = json_object_get_double(
        json_at(full_doc, "lanes.c-c.summary.ns_per_round_trip_median"));

  test_model(quick, full, merged, full_doc);
  test_markdown(quick, full, merged,
                full_doc && json_at(full_doc, "comparisons")
                    ? json_object_object_length(json_at(full_doc, "comparisons"))
                    : 0);
  test_html(quick, full, merged, cc_median);
  test_junit(merged, quick);
  test_command(full, merged);
  test_invalid(full_doc, full);
  json_object_put(full_doc);

  kill_ours_by_dir();
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
