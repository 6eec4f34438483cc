/* `crossrun compare`: synthetic evidence (only the members compare reads)
 * changed one way at a time, the verdicts and exit codes that follow, and
 * the JSON against evidence/diff/compare.schema.json. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/diff/diff.h"
#include "evidence/schema/validate.h"
#include "runner/commands.h"
#include "tests/lib_env.h"
#include "tests/lib_memfile.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

/* Where the commands' messages go when a test does not read them. */
#ifdef _WIN32
#define NULL_DEVICE "NUL"
#else
#define NULL_DEVICE "/dev/null"
#endif

#define NSAMPLES 8

struct spec {
  double ns_scale;    /* every sample's ns_per_round_trip times this */
  const char *status; /* the c-c lane's samples and summary */
  const char *cpu_model;
  int round_trips;
  int quick;
  int grow_package; /* an entry grown, one added */
  int extra_lane;   /* rust-rust too */
  int cost;         /* samples carry cost (latency, CPU per round trip) */
};

static const struct spec base = {1.0, "passed", "AMD EPYC", 100000, 0, 0, 0, 0};

/* The cost block of ISSUE 14's evidence: latency percentiles and CPU per
 * round trip of each peer. */
static json_object *cost(double ns)
{
  json_object *c = json_object_new_object(), *lat = json_object_new_object();
  static const char *const pct[] = {"p50", "p90", "p99", "p99_9"};

  for (int k = 0; k < 4; k++)
    json_object_object_add(lat, pct[k],
                           json_object_new_int64((int64_t)(ns * (1 + k))));
  json_object_object_add(c, "latency_ns", lat);
  json_object_object_add(c, "client_cpu_us_per_round_trip",
                         json_object_new_double(ns / 2000));
  json_object_object_add(c, "server_cpu_us_per_round_trip", NULL);
  return c;
}

static json_object *sample(double ns, const char *status, int i, int with_cost)
{
  json_object *s = json_object_new_object(), *peer, *mem;

  if (with_cost)
    json_object_object_add(s, "cost", cost(ns));
  json_object_object_add(s, "status", json_object_new_string(status));
  json_object_object_add(s, "ns_per_round_trip", json_object_new_double(ns));
  json_object_object_add(s, "server_ready_ns",
                         json_object_new_int64(2000000 + 1000 * (i % 3)));
  for (int k = 0; k < 2; k++) {
    peer = json_object_new_object();
    mem = json_object_new_object();
    /* pages: the same few values again and again, as real peaks tie */
    json_object_object_add(mem, "peak_rss_bytes",
                           json_object_new_int64(1757184 + 4096 * (i % 2)));
    json_object_object_add(peer, "memory", mem);
    json_object_object_add(s, k ? "server" : "client", peer);
  }
  return s;
}

static json_object *lane(const struct spec *sp, double base_ns,
                         const char *status)
{
  json_object *l = json_object_new_object(),
              *summary = json_object_new_object();
  json_object *samples = json_object_new_array();

  for (int i = 0; i < NSAMPLES; i++)
    json_object_array_add(
        samples,
        sample(base_ns * (1 + 0.01 * i) * sp->ns_scale, status, i, sp->cost));
  json_object_object_add(summary, "status", json_object_new_string(status));
  json_object_object_add(l, "summary", summary);
  json_object_object_add(l, "samples", samples);
  return l;
}

static json_object *package(const struct spec *sp)
{
  json_object *p = json_object_new_object(), *entries = json_object_new_array();
  struct {
    const char *path;
    long long size;
  } files[] = {{"lanes/c/client.c", 14542},
               {"lanes/c/server.c", 9000},
               {"lanes/c/new.c", 321}};
  int n = sp->grow_package ? 3 : 2;
  long long unpacked = 0;

  for (int i = 0; i < n; i++) {
    json_object *e = json_object_new_object();
    long long size = files[i].size + (sp->grow_package && i == 0 ? 100 : 0);
    json_object_object_add(e, "path", json_object_new_string(files[i].path));
    json_object_object_add(e, "size_bytes", json_object_new_int64(size));
    json_object_array_add(entries, e);
    unpacked += size;
  }
  json_object_object_add(p, "packed_bytes",
                         json_object_new_int64(sp->grow_package ? 9100 : 9000));
  json_object_object_add(p, "unpacked_bytes", json_object_new_int64(unpacked));
  json_object_object_add(p, "file_count", json_object_new_int(n));
  json_object_object_add(
      p, "sha256", json_object_new_string(sp->grow_package ? "bb" : "aa"));
  json_object_object_add(p, "entries", entries);
  return p;
}

static json_object *doc(const struct spec *sp)
{
  json_object *d = json_object_new_object(), *m = json_object_new_object();
  json_object *w = json_object_new_object(), *lanes = json_object_new_object();
  json_object *rts = json_object_new_object(), *c = json_object_new_object();

  json_object_object_add(d, "mode",
                         json_object_new_string(sp->quick ? "quick" : "full"));
  json_object_object_add(d, "performance_claims",
                         json_object_new_boolean(!sp->quick));
  json_object_object_add(m, "os", json_object_new_string("linux"));
  json_object_object_add(m, "cpu_model", json_object_new_string(sp->cpu_model));
  json_object_object_add(m, "logical_cpus", json_object_new_int(2));
  json_object_object_add(d, "machine", m);
  json_object_object_add(w, "warmup_round_trips", json_object_new_int(1000));
  json_object_object_add(w, "round_trips",
                         json_object_new_int(sp->round_trips));
  json_object_object_add(w, "payload_bytes", json_object_new_int(64));
  json_object_object_add(w, "max_in_flight", json_object_new_int(64));
  json_object_object_add(d, "workload", w);
  json_object_object_add(lanes, "c-c", lane(sp, 1600, sp->status));
  json_object_object_add(lanes, "c-rust", lane(sp, 2000, "passed"));
  if (sp->extra_lane)
    json_object_object_add(lanes, "rust-rust", lane(sp, 1800, "passed"));
  json_object_object_add(d, "lanes", lanes);
  json_object_object_add(c, "package", package(sp));
  json_object_object_add(rts, "c", c);
  json_object_object_add(d, "runtimes", rts);
  return d;
}

static void write_doc(const char *name, const struct spec *sp, char *path)
{
  json_object *d = doc(sp);
  const char *text = json_object_to_json_string(d);
  scratch_path(path, name);
  scratch_write(path, text, strlen(text));
  json_object_put(d);
}

/* crossrun compare OLD NEW [extra...], its stdout in out (static). */
static int run(const char *old_path, const char *new_path, const char *extra1,
               const char *extra2, char **out)
{
  static char *buf;
  static size_t len;
  char *argv[8] = {"compare", (char *)old_path};
  int argc = 2, rc;
  FILE *o, *e;

  if (new_path)
    argv[argc++] = (char *)new_path;
  if (extra1)
    argv[argc++] = (char *)extra1;
  if (extra2)
    argv[argc++] = (char *)extra2;
  free(buf);
  buf = NULL;
  o = memfile_open(&buf, &len);
  e = fopen(NULL_DEVICE, "w");
  rc = cmd_compare(argc, argv, o, e);
  memfile_close(o);
  fclose(e);
  *out = buf;
  return rc;
}

static const struct diff_row *row(const struct diff *d, const char *subject,
                                  const char *figure)
{
  for (int i = 0; i < d->nrows; i++)
    if (strcmp(d->rows[i].subject, subject) == 0 &&
        strcmp(d->rows[i].figure, figure) == 0)
      return &d->rows[i];
  return NULL;
}

static const char *verdict(const struct diff *d, const char *subject,
                           const char *figure)
{
  const struct diff_row *r = row(d, subject, figure);
  return r ? r->verdict : "(no row)";
}

static void compare_specs(const struct spec *o, const struct spec *n,
                          const struct diff_options *opts, struct diff *d)
{
  json_object *a = doc(o), *b = doc(n);
  char err[256];
  if (diff_compare(d, a, b, opts, err, sizeof(err)) != 0)
    TAP_OK(0, "diff_compare: %s", err);
  json_object_put(a);
  json_object_put(b);
}

static void test_self(void)
{
  struct diff_options opts = DIFF_OPTIONS_INIT;
  struct diff d;
  char path[SCRATCH_PATH_CAP], *out;
  int changed = 0;

  compare_specs(&base, &base, &opts, &d);
  for (int i = 0; i < d.nrows; i++)
    changed += strcmp(d.rows[i].verdict, "~") != 0 &&
               strcmp(d.rows[i].verdict, "same") != 0 &&
               d.rows[i].kind != DIFF_ROW_GEOMEAN;
  TAP_EQ_INT(changed, 0, "a file against itself: every row ~ or same");
  TAP_EQ_INT(d.regressions, 0, "  no regression");
  TAP_EQ_INT(d.tested, 8, "  8 sampled comparisons (2 lanes x 4 figures)");
  TAP_EQ_DBL(row(&d, "geomean", "ns_per_round_trip")->change_pct, 0, 1e-9,
             "  the geomean row shows no change");
  diff_release(&d);
  write_doc("base.json", &base, path);
  TAP_EQ_INT(run(path, path, "--fail-on-regression", NULL, &out), 0,
             "crossrun compare X X --fail-on-regression exits 0");
  TAP_HAS_STR(out, "no regression", "  and says so");
}

static void test_slower(void)
{
  struct diff_options opts = DIFF_OPTIONS_INIT;
  struct spec slow = base, bit = base;
  char po[SCRATCH_PATH_CAP], pn[SCRATCH_PATH_CAP], *out;
  struct diff d;
  const struct diff_row *r;

  slow.ns_scale = 1.2;
  compare_specs(&base, &slow, &opts, &d);
  r = row(&d, "c-c", "ns_per_round_trip");
  TAP_EQ_STR(verdict(&d, "c-c", "ns_per_round_trip"), "slower",
             "every sample 20%% slower: slower");
  TAP_EQ_DBL(r->change_pct, 20, 1e-9, "  by 20%%");
  TAP_EQ_DBL(r->p, 2.0 / 12870, 1e-15, "  p = 2 / C(16, 8)");
  TAP_OK(r->p_holm > r->p && r->p_holm < 0.05, "  Holm's p %g above it",
         r->p_holm);
  TAP_EQ_STR(verdict(&d, "geomean", "ns_per_round_trip"), "",
             "  the geomean row has no verdict of its own");
  TAP_EQ_DBL(row(&d, "geomean", "ns_per_round_trip")->change_pct, 20, 1e-9,
             "  and a change of 20%%");
  TAP_EQ_STR(verdict(&d, "c-c", "client_peak_rss_bytes"), "~",
             "  memory unchanged: ~");
  diff_release(&d);
  bit.ns_scale = 1.02;
  compare_specs(&base, &bit, &opts, &d);
  TAP_OK(strcmp(verdict(&d, "c-c", "ns_per_round_trip"), "tie") == 0 ||
             strcmp(verdict(&d, "c-c", "ns_per_round_trip"), "~") == 0,
         "2%% slower: tie or ~ (%s)", verdict(&d, "c-c", "ns_per_round_trip"));
  TAP_EQ_INT(d.regressions, 0, "  not a regression");
  diff_release(&d);
  opts.threshold_pct = 25;
  compare_specs(&base, &slow, &opts, &d);
  TAP_EQ_STR(verdict(&d, "c-c", "ns_per_round_trip"), "tie",
             "20%% slower with --threshold 25: significant, so a tie");
  TAP_EQ_INT(d.regressions, 0, "  not a regression");
  diff_release(&d);
  write_doc("old.json", &base, po);
  write_doc("slow.json", &slow, pn);
  TAP_EQ_INT(run(po, pn, NULL, NULL, &out), 0,
             "slower without --fail-on-regression exits 0");
  TAP_EQ_INT(run(po, pn, "--fail-on-regression", NULL, &out), 1,
             "slower with --fail-on-regression exits 1");
  TAP_HAS_STR(out, "linux c-c ns_per_round_trip slower",
              "  the regression is named");
  TAP_EQ_INT(run(pn, po, "--fail-on-regression", NULL, &out), 0,
             "faster is no regression");
  TAP_HAS_STR(out, "faster", "  and is called faster");
}

static void test_package(void)
{
  struct diff_options opts = DIFF_OPTIONS_INIT;
  struct spec grown = base;
  struct diff d;
  int added = 0, grew = 0;

  grown.grow_package = 1;
  compare_specs(&base, &grown, &opts, &d);
  TAP_EQ_STR(verdict(&d, "c", "packed_bytes"), "bigger",
             "a grown package: packed_bytes bigger");
  TAP_EQ_STR(verdict(&d, "c", "file_count"), "bigger", "  file_count bigger");
  TAP_EQ_STR(verdict(&d, "c", "sha256"), "changed", "  sha256 changed");
  TAP_EQ_DBL(row(&d, "c", "unpacked_bytes")->new_side.median -
                 row(&d, "c", "unpacked_bytes")->old_side.median,
             421, 0, "  unpacked_bytes +421, exactly");
  for (int i = 0; i < d.nentries; i++) {
    added += strcmp(d.entries[i].change, "added") == 0 &&
             strcmp(d.entries[i].path, "lanes/c/new.c") == 0;
    grew += strcmp(d.entries[i].change, "grown") == 0 &&
            strcmp(d.entries[i].path, "lanes/c/client.c") == 0 &&
            d.entries[i].new_bytes - d.entries[i].old_bytes == 100;
  }
  TAP_OK(added && grew && d.nentries == 2,
         "  the entries named: lanes/c/new.c added, lanes/c/client.c grown "
         "by 100 bytes");
  TAP_OK(d.regressions >= 1, "  a regression");
  diff_release(&d);
  compare_specs(&grown, &base, &opts, &d);
  TAP_EQ_STR(verdict(&d, "c", "packed_bytes"), "smaller",
             "the other way: smaller, no regression");
  TAP_EQ_INT(d.regressions, 0, "  (none)");
  TAP_OK(d.nentries == 2 && strcmp(d.entries[1].change, "removed") == 0,
         "  lanes/c/new.c removed");
  diff_release(&d);
}

static void test_status_and_lanes(void)
{
  struct diff_options opts = DIFF_OPTIONS_INIT;
  struct spec failed = base, more = base;
  struct diff d;
  const struct diff_row *r;

  failed.status = "failed";
  compare_specs(&base, &failed, &opts, &d);
  r = row(&d, "c-c", "status");
  TAP_OK(r && strcmp(r->verdict, "status changed") == 0 &&
             strcmp(r->old_text, "passed") == 0 &&
             strcmp(r->new_text, "failed") == 0 && r->regression,
         "passed -> failed: a status changed row, a regression");
  TAP_EQ_STR(row(&d, "c-c", "ns_per_round_trip")->reason, "not reported in NEW",
             "  its times are not compared (no passed sample)");
  diff_release(&d);
  compare_specs(&failed, &base, &opts, &d);
  TAP_OK(row(&d, "c-c", "status") && !row(&d, "c-c", "status")->regression,
         "failed -> passed: no regression");
  diff_release(&d);
  more.extra_lane = 1;
  compare_specs(&base, &more, &opts, &d);
  TAP_EQ_STR(verdict(&d, "rust-rust", "lane"), "new lane", "a new lane");
  diff_release(&d);
  compare_specs(&more, &base, &opts, &d);
  TAP_EQ_STR(verdict(&d, "rust-rust", "lane"), "gone", "a lane gone");
  TAP_EQ_INT(d.regressions, 0, "  neither is a regression");
  diff_release(&d);
}

static void test_refusals(void)
{
  struct diff_options opts = DIFF_OPTIONS_INIT;
  struct spec other = base, work = base, slow = base, quick = base;
  struct diff d;

  other.cpu_model = "Intel Xeon";
  other.ns_scale = 1.5;
  compare_specs(&base, &other, &opts, &d);
  TAP_OK(d.nnotes == 1 && strstr(d.notes[0].text, "different machines") &&
             strstr(d.notes[0].text, "Intel Xeon"),
         "different CPU models: refused, naming them (%s)",
         d.nnotes ? d.notes[0].text : "");
  TAP_EQ_STR(verdict(&d, "c-c", "ns_per_round_trip"), "not compared",
             "  sampled rows not compared");
  TAP_EQ_INT(d.tested, 0, "  no test made");
  TAP_EQ_STR(verdict(&d, "c", "packed_bytes"), "same",
             "  exact figures still compared");
  diff_release(&d);
  opts.allow_different_machines = 1;
  compare_specs(&base, &other, &opts, &d);
  TAP_EQ_STR(verdict(&d, "c-c", "ns_per_round_trip"), "slower",
             "--allow-different-machines compares them");
  diff_release(&d);
  work.round_trips = 200000;
  compare_specs(&base, &work, &opts, &d);
  TAP_OK(d.nnotes == 1 && strstr(d.notes[0].text, "round_trips 100000") &&
             d.tested == 0,
         "different workloads: refused even so (%s)",
         d.nnotes ? d.notes[0].text : "");
  diff_release(&d);
  opts.allow_different_machines = 0;
  quick.quick = 1;
  slow.grow_package = 1;
  compare_specs(&quick, &slow, &opts, &d);
  TAP_OK(d.tested == 0 && d.nnotes == 1 &&
             strstr(d.notes[0].text, "no performance claims"),
         "quick evidence: sampled figures not compared");
  TAP_EQ_STR(verdict(&d, "c", "packed_bytes"), "bigger", "  its packages are");
  diff_release(&d);
}

static void test_cost(void)
{
  struct diff_options opts = DIFF_OPTIONS_INIT;
  struct spec with = base, slow;
  struct diff d;
  const struct diff_row *r;

  with.cost = 1;
  compare_specs(&base, &with, &opts, &d);
  r = row(&d, "c-c", "latency_p99_ns");
  TAP_OK(r && strcmp(r->verdict, "not compared") == 0 &&
             strcmp(r->reason, "not reported in OLD") == 0 && !r->tested,
         "latency in NEW only: not compared, not reported in OLD");
  TAP_NULL(row(&d, "c-c", "server_cpu_us_per_round_trip"),
           "  a figure null on both sides has no row");
  TAP_EQ_INT(d.tested, 8, "  and no test");
  diff_release(&d);
  slow = with;
  slow.ns_scale = 1.2;
  compare_specs(&with, &slow, &opts, &d);
  TAP_EQ_STR(verdict(&d, "c-c", "latency_p50_ns"), "slower",
             "latency percentiles 20%% higher: slower");
  TAP_EQ_STR(verdict(&d, "c-c", "client_cpu_us_per_round_trip"), "slower",
             "  client CPU per round trip too");
  TAP_EQ_INT(d.tested, 8 + 2 * 5, "  five more comparisons per lane");
  diff_release(&d);
}

static void test_usage_and_json(void)
{
  char po[SCRATCH_PATH_CAP], pn[SCRATCH_PATH_CAP], pj[SCRATCH_PATH_CAP],
      bad[SCRATCH_PATH_CAP], *out;
  struct spec slow = base;
  char schema_path[1024], jopt[SCRATCH_PATH_CAP + 8];
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  json_object *schema = NULL, *j = NULL;
  char err[256];

  slow.ns_scale = 1.2;
  slow.grow_package = 1;
  write_doc("o.json", &base, po);
  write_doc("n.json", &slow, pn);
  scratch_path(bad, "bad.json");
  scratch_write(bad, "[1, 2]", 6);
  TAP_EQ_INT(run(po, NULL, NULL, NULL, &out), 2, "one file: exit 2");
  TAP_EQ_INT(run(po, pn, "--alpha", "1.5", &out), 2, "--alpha 1.5: exit 2");
  TAP_EQ_INT(run(po, pn, "--threshold", "x", &out), 2, "--threshold x: exit 2");
  TAP_EQ_INT(run(po, bad, NULL, NULL, &out), 2, "not evidence: exit 2");
  TAP_EQ_INT(run(po, "/nonexistent/x.json", NULL, NULL, &out), 2,
             "a missing file: exit 2");
  TAP_EQ_INT(run(po, pn, "--help", NULL, &out), 0, "--help: exit 0");
  TAP_HAS_STR(out, "--fail-on-regression", "  lists the options");
  scratch_path(pj, "c.json");
  snprintf(jopt, sizeof(jopt), "--json=%s", pj);
  TAP_EQ_INT(run(po, pn, jopt, "--markdown=-", &out), 0,
             "--json FILE --markdown -: exit 0");
  TAP_HAS_STR(out, "| slower ", "  the Markdown table on stdout");
  TAP_HAS_STR(out, "`lanes/c/new.c` | added", "  with the entries");
  snprintf(schema_path, sizeof(schema_path),
           "%s/evidence/diff/compare.schema.json",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".");
  if (!TAP_EQ_INT(
          validate_read_json(schema_path, &schema, &e, err, sizeof(err)), 0,
          "the schema reads (%s)", err) ||
      !TAP_EQ_INT(validate_schema(schema, &e), 0, "  and is usable"))
    goto out;
  TAP_EQ_INT(validate_read_json(pj, &j, &e, err, sizeof(err)), 0,
             "the JSON written reads");
  TAP_EQ_INT(validate_document(schema, j, &e), 0,
             "  and follows compare.schema.json%s%s", e.n ? ": " : "",
             e.n ? e.messages[0] : "");
  TAP_EQ_INT(json_object_get_int(json_object_object_get(j, "regressions")), 5,
             "  5 regressions: c-c and c-rust slower, the package's three "
             "sizes");
  {
    char summary[SCRATCH_PATH_CAP], text[8192] = "";
    FILE *f;
    size_t n;
    scratch_path(summary, "summary.md");
    scratch_write(summary, "before\n", 7);
    env_set("GITHUB_STEP_SUMMARY", summary);
    TAP_EQ_INT(run(po, pn, "--fail-on-regression", NULL, &out), 1,
               "with GITHUB_STEP_SUMMARY set: exit 1 (regressions)");
    env_set("GITHUB_STEP_SUMMARY", NULL);
    f = fopen(summary, "r");
    n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
      fclose(f);
    TAP_OK(strncmp(text, "before\n## crossrun compare\n", 27) == 0,
           "  the Markdown is appended to the job summary");
  }
out:
  validate_errors_release(&e);
  json_object_put(schema);
  json_object_put(j);
}

/* crossrun report --baseline: the report's Markdown ends with the
 * comparison (a recorded quick evidence file of the fuzz corpus, which
 * report reads). */
static void test_report_baseline(void)
{
  char path[1024], *buf = NULL;
  size_t len = 0;
  char *argv[] = {"report", path, "--baseline", path, "--markdown", "-"};
  char *bad[] = {"report",     path, "--baseline", "/nonexistent.json",
                 "--markdown", "-"};
  FILE *o, *e = fopen(NULL_DEVICE, "w");
  int rc;

  snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/evidence/quick-c-c.json",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".");
  o = memfile_open(&buf, &len);
  rc = cmd_report(6, argv, o, e);
  memfile_close(o);
  TAP_EQ_INT(rc, 0, "crossrun report FILE --baseline FILE --markdown -");
  TAP_OK(buf && strstr(buf, "## Change against the baseline") &&
             strstr(buf, "| change ") && strstr(buf, "**No regression.**"),
         "  the Markdown ends with the change against the baseline");
  free(buf);
  buf = NULL;
  o = memfile_open(&buf, &len);
  TAP_EQ_INT(cmd_report(6, bad, o, e), 1, "  a missing baseline: exit 1");
  memfile_close(o);
  fclose(e);
  free(buf);
}

/* crossrun report --baseline --html: the page has the comparison as a
 * section of its own, linked from the navigation, with the change column,
 * the entries and the regressions, and text from the files escaped (a
 * copy of the quick evidence whose package grew by an entry and whose
 * hash is markup). */
static void test_report_baseline_html(void)
{
  char path[1024], grown[SCRATCH_PATH_CAP], *buf = NULL;
  size_t len = 0;
  char *argv[] = {"report", grown, "--baseline", path, "--html", "-"};
  json_object *d, *pkg, *entry;
  FILE *o, *e = fopen(NULL_DEVICE, "w");
  const char *section;
  int rc;

  snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/evidence/quick-c-c.json",
           getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".");
  scratch_path(grown, "grown.json");
  d = json_object_from_file(path);
  if (!TAP_OK(d && json_pointer_get(d, "/runtimes/c/package", &pkg) == 0,
              "the quick evidence reads, with a package")) {
    json_object_put(d);
    fclose(e);
    return;
  }
  json_object_object_add(
      pkg, "packed_bytes",
      json_object_new_int64(
          json_object_get_int64(json_object_object_get(pkg, "packed_bytes")) +
          100));
  json_object_object_add(pkg, "sha256",
                         json_object_new_string("<i>not-a-hash</i>"));
  entry = json_object_new_object();
  json_object_object_add(entry, "path",
                         json_object_new_string("lanes/c/<new>.c"));
  json_object_object_add(entry, "size_bytes", json_object_new_int(321));
  json_object_array_add(json_object_object_get(pkg, "entries"), entry);
  json_object_to_file(grown, d);
  json_object_put(d);

  o = memfile_open(&buf, &len);
  rc = cmd_report(6, argv, o, e);
  memfile_close(o);
  fclose(e);
  TAP_EQ_INT(rc, 0, "crossrun report FILE --baseline OLD --html -");
  section = buf ? strstr(buf, "<section id=\"baseline\">") : NULL;
  TAP_OK(section && strstr(section, "<h2>Change against the baseline</h2>") &&
             strstr(buf, "<a href=\"#baseline\">change</a>"),
         "  the page has a section on the change, linked from its top");
  TAP_OK(section && strstr(section, "<th>change</th>") &&
             strstr(section, "<td class=\"n\">+100 B (+0.1%)</td>"
                             "<td>bigger</td>"),
         "  with the change column: the packed size +100 B, bigger");
  TAP_OK(section &&
             strstr(section, "<th>lanes/c/&lt;new&gt;.c</th>"
                             "<td>added</td>") &&
             strstr(section, "&lt;i&gt;not-a-has") &&
             !strstr(section, "<i>not"),
         "  the added entry, and the file's text escaped");
  TAP_OK(section && strstr(section, "<b>1 regression:</b>") &&
             strstr(section, "linux packed_bytes bigger"),
         "  and the regression named");
  TAP_OK(section && strstr(section, "OLD makes no performance claims"),
         "  and why the sampled figures were not compared");
  free(buf);
}

int main(void)
{
  env_set("GITHUB_STEP_SUMMARY", NULL); /* a CI job's own summary is not ours */
  if (scratch_create() != 0)
    return tap_done();
  test_self();
  test_slower();
  test_package();
  test_status_and_lanes();
  test_refusals();
  test_cost();
  test_usage_and_json();
  test_report_baseline();
  test_report_baseline_html();
  scratch_remove();
  return tap_done();
}
