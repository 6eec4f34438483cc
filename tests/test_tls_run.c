/* The transport dimension, runner side (protocol/SPEC.md section 9,
 * lanes/README.md "Transports"):
 * - a sample over tls gives the server --transport tls --cert --key and
 *   the client --transport tls --ca, files of fresh material in a folder
 *   beside the peers' TMPDIR (the fixture exits 1 unless the files are
 *   there and the key is 0600), and no key or certificate outlives the
 *   sample: every sample's temporary area is checked empty afterwards;
 * - every check of the result lines' tls objects fails when it should,
 *   as result_mismatch naming the field; a peer exiting 127 over tls is
 *   unsupported;
 * - `crossrun run` over the matrix's transports names lanes
 *   client-server+tls in the evidence and in its reproduce commands, does
 *   not start a lane whose runtime declares transports [tcp] (unsupported,
 *   not failed), and its evidence validates; --transport picks, and a bad
 *   one is refused.
 * The fixture does no TLS (tests/fixture_tls.c says why that is enough);
 * real TLS between the runner's material and a TLS library is in
 * tests/test_tls_wrong_ca.c. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "runner/sample.h"
#include "tests/lib_child.h"
#include "tests/lib_json.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char fixture[SCRATCH_PATH_CAP], crossrun[SCRATCH_PATH_CAP];
static char tmp[SCRATCH_PATH_CAP]; /* every sample's temporary area */

static struct model_limits test_limits(void)
{
  struct model_limits l = MODEL_LIMITS_DEFAULT;
  l.ready_timeout_ms = (uint64_t)(tap_timeout_s(3) * 1000);
  l.client_timeout_ms = (uint64_t)(tap_timeout_s(6) * 1000);
  l.exit_timeout_ms = (uint64_t)(tap_timeout_s(2) * 1000);
  l.kill_grace_ms = 500;
  return l;
}

static const struct proto_workload small = {10, 200, 64, 8};

/* The entries of the samples' temporary area: none once a sample ended. */
static int tmp_entries(char *first, size_t len)
{
  DIR *d = opendir(tmp);
  struct dirent *e;
  int n = 0;

  first[0] = '\0';
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (n++ == 0)
      snprintf(first, len, "%s", e->d_name);
  }
  if (d != NULL)
    closedir(d);
  return d == NULL ? -1 : n;
}

static int run_one(struct model_sample *r, const char *server_mode,
                   const char *client_mode, int tls)
{
  const char *server[] = {fixture, "server", server_mode, NULL};
  const char *client[] = {fixture, "client", client_mode, NULL};
  struct sample_spec spec = {"test", server,        client, "127.0.0.1",
                             small,  test_limits(), NULL,   NULL,
                             NULL,   tls,           NULL};
  char err[512];
  if (sample_run(&spec, r, err, sizeof(err)) != 0) {
    tap_diag("sample_run: %s", err);
    return -1;
  }
  return 0;
}

/* The value after flag in a peer's recorded argv, or NULL. */
static const char *arg_after(const struct model_peer *p, const char *flag)
{
  for (int i = 0; i + 1 < p->argc; i++)
    if (strcmp(p->argv[i], flag) == 0)
      return p->argv[i + 1];
  return NULL;
}

static int gone(const char *path)
{
  struct stat st;
  return path != NULL && stat(path, &st) != 0 && errno == ENOENT;
}

static void test_material_per_sample(void)
{
  struct model_sample r, r2;
  const char *cert, *key, *ca, *cert2;
  char dir[SCRATCH_PATH_CAP], first[256];
  size_t dlen;

  if (run_one(&r, "tls-ok", "tls-ok", 1) != 0) {
    TAP_OK(0, "a sample over tls ran");
    return;
  }
  TAP_EQ_STR(model_status_name(r.status), "passed",
             "fixtures over tls: passed (%s)", r.message);
  TAP_OK(r.over_tls, "the sample is marked over tls");
  TAP_EQ_STR(arg_after(&r.server, "--transport"), "tls",
             "the server is given --transport tls");
  TAP_EQ_STR(arg_after(&r.client, "--transport"), "tls",
             "the client is given --transport tls");
  cert = arg_after(&r.server, "--cert");
  key = arg_after(&r.server, "--key");
  ca = arg_after(&r.client, "--ca");
  if (!TAP_OK(cert && key && ca, "and --cert, --key and --ca"))
    goto out;
  snprintf(dir, sizeof(dir), "%s", cert);
  *(strrchr(dir, '/') ? strrchr(dir, '/') : dir) = '\0';
  dlen = strlen(dir);
  TAP_OK(strcmp(cert + dlen, "/cert.pem") == 0 &&
             strcmp(key + dlen, "/key.pem") == 0 &&
             strcmp(ca + dlen, "/ca.pem") == 0 &&
             strncmp(key, dir, dlen) == 0 && strncmp(ca, dir, dlen) == 0,
         "cert.pem, key.pem and ca.pem in one folder: %s", dir);
  TAP_OK(strncmp(dir, r.temp_dir, strlen(r.temp_dir)) != 0 &&
             strncmp(dir, tmp, strlen(tmp)) == 0,
         "beside the peers' TMPDIR, not in it: %s, %s", dir, r.temp_dir);
  TAP_OK(gone(cert) && gone(key) && gone(ca) && gone(dir) && gone(r.temp_dir),
         "the files, their folder and the TMPDIR are gone after the sample");
  TAP_EQ_INT(tmp_entries(first, sizeof(first)), 0,
             "nothing of the sample is left in the temporary area ('%s')",
             first);
  TAP_OK(!r.result.tls.reported && !r.server_result.tls.reported,
         "peers that report no tls object: not reported, and passed");
  /* A second sample gets material of its own. */
  if (run_one(&r2, "tls-ok", "tls-ok", 1) == 0) {
    cert2 = arg_after(&r2.server, "--cert");
    TAP_OK(cert2 && strcmp(cert2, cert) != 0 && gone(cert2),
           "the next sample has its own, also removed: %s", cert2);
    model_sample_release(&r2);
  }
  {
    struct model_sample t;
    if (run_one(&t, "ok", "ok", 0) == 0) {
      TAP_OK(t.status == MODEL_PASSED && !t.over_tls &&
                 arg_after(&t.server, "--transport") == NULL &&
                 arg_after(&t.client, "--ca") == NULL &&
                 arg_after(&t.server, "--cert") == NULL,
             "over tcp no transport flag and no files are given");
      model_sample_release(&t);
    }
  }
out:
  model_sample_release(&r);
}

static const struct tls_case {
  const char *server, *client;
  int tls;
  const char *status;
  enum model_check failing; /* MODEL_CHECK_COUNT: none */
  const char *reason_has;
} cases[] = {
    {"tls-result", "tls-line", 1, "passed", MODEL_CHECK_COUNT, NULL},
    {"tls-result", "tls-version", 1, "failed", MODEL_CHECK_CLIENT_RESULT,
     "result 'tls.version' is 'TLSv1.2', expected 'TLSv1.3'"},
    {"tls-result", "tls-alpn", 1, "failed", MODEL_CHECK_CLIENT_RESULT,
     "result 'tls.alpn' is 'h2', expected 'crossrun/1'"},
    {"tls-result", "tls-handshake-0", 1, "failed", MODEL_CHECK_CLIENT_RESULT,
     "result 'tls.handshake_ns' is 0, expected a positive time"},
    {"tls-result", "tls-handshake-long", 1, "failed", MODEL_CHECK_CLIENT_RESULT,
     "result 'tls.handshake_ns' is 3600000000000, more than the client's "
     "lifetime"},
    {"tls-result", "tls-cipher", 1, "failed", MODEL_CHECK_SERVER_RESULT,
     "server's result 'tls.cipher' is 'TLS_AES_128_GCM_SHA256', the "
     "client's is 'TLS_AES_256_GCM_SHA384'"},
    {"tls-server-version", "tls-line", 1, "failed", MODEL_CHECK_SERVER_RESULT,
     "server's result 'tls.version' is 'TLSv1.2'"},
    {"tls-server-alpn", "tls-line", 1, "failed", MODEL_CHECK_SERVER_RESULT,
     "server's result 'tls.alpn' is 'http/1.1'"},
    {"ok", "tls-on-tcp", 0, "failed", MODEL_CHECK_CLIENT_RESULT,
     "result has a 'tls' object over tcp"},
    {"tls-on-tcp", "ok", 0, "failed", MODEL_CHECK_SERVER_RESULT,
     "server's result has a 'tls' object over tcp"},
    {"tls-result", "tls-line", 0, "passed", MODEL_CHECK_COUNT, NULL},
    {"tls-ok", "tls-line", 1, "passed", MODEL_CHECK_COUNT, NULL},
    {"unsupported", "tls-ok", 1, "unsupported", MODEL_CHECK_COUNT, NULL},
    {"tls-ok", "ok", 1, "unsupported", MODEL_CHECK_COUNT, NULL},
    {"ok", "tls-ok", 1, "unsupported", MODEL_CHECK_COUNT, NULL},
};

static void test_tls_checks(void)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const struct tls_case *c = &cases[i];
    struct model_sample r;
    char name[160], first[256];

    snprintf(name, sizeof(name), "%s against %s over %s", c->client, c->server,
             c->tls ? "tls" : "tcp");
    if (run_one(&r, c->server, c->client, c->tls) != 0) {
      TAP_OK(0, "%s: ran", name);
      continue;
    }
    TAP_EQ_STR(model_status_name(r.status), c->status, "%s: %s (%s)", name,
               c->status, r.message);
    if (c->failing != MODEL_CHECK_COUNT) {
      const struct model_check_outcome *o = &r.checks[c->failing];
      TAP_EQ_STR(r.failure_reason ? r.failure_reason : "(none)",
                 "result_mismatch", "%s: result_mismatch", name);
      TAP_OK(o->ran && !o->passed && strstr(o->reason, c->reason_has),
             "%s: %s names it: %s", name, model_check_name(c->failing),
             o->reason);
    }
    if (i == 0)
      TAP_OK(r.result.tls.reported && r.server_result.tls.reported &&
                 strcmp(r.result.tls.cipher, "TLS_AES_128_GCM_SHA256") == 0 &&
                 r.result.tls.handshake_ns > 0 &&
                 r.server_result.tls.handshake_ns == MODEL_NOT_REPORTED,
             "%s: both tls objects are kept", name);
    TAP_EQ_INT(tmp_entries(first, sizeof(first)), 0,
               "%s: nothing left in the temporary area ('%s')", name, first);
    model_sample_release(&r);
  }
}

/* Runs crossrun; its exit status, its stderr into err and its stdout
 * into out when not NULL. */
static int run_crossrun(const char *const *argv, char *err, size_t errlen,
                        char *out, size_t outlen)
{
  struct child_run r;
  int rc = child_run(&r, argv, scratch_root, NULL, tap_timeout_s(120));
  int status = rc == 0 && r.exited ? (int)r.exit_status : -1;
  snprintf(err, errlen, "%s", r.stderr_buf);
  if (out != NULL)
    snprintf(out, outlen, "%s", r.stdout_buf ? r.stdout_buf : "");
  if (status < 0)
    child_explain(&r, argv[0]);
  child_release(&r);
  return status;
}

static int has_words(json_object *argv, const char *a, const char *b)
{
  size_t n = argv ? json_object_array_length(argv) : 0;
  for (size_t i = 0; i + 1 < n; i++)
    if (strcmp(json_object_get_string(json_object_array_get_idx(argv, i)), a) ==
            0 &&
        strcmp(json_object_get_string(json_object_array_get_idx(argv, i + 1)),
               b) == 0)
      return 1;
  return 0;
}

/* The line of text that holds what, or "". */
static const char *line_with(const char *text, const char *what, char *line,
                             size_t len)
{
  const char *at = text ? strstr(text, what) : NULL, *start, *end;
  line[0] = '\0';
  if (at == NULL)
    return line;
  for (start = at; start > text && start[-1] != '\n'; start--)
    ;
  end = strchr(at, '\n');
  snprintf(line, len, "%.*s", (int)(end ? end - start : (long)strlen(start)),
           start);
  return line;
}

/* Whether the fourth cell of a table row is a ratio ("1.02x"). */
static int ratio_cell(const char *row)
{
  const char *p = row;
  double v;
  char x = 0;
  for (int bars = 0; p != NULL && bars < 4; bars++)
    p = (p = strchr(p, '|')) ? p + 1 : NULL;
  return p != NULL && sscanf(p, " %lf%c", &v, &x) == 2 && x == 'x' && v > 0;
}

/* The reports show each pair over tcp and over tls side by side. */
static void test_report(const char *evidence)
{
  char md[SCRATCH_PATH_CAP], html[SCRATCH_PATH_CAP], err[2048], line[1024];
  const char *argv[] = {crossrun, "report", evidence, "--markdown",
                        md,       "--html", html,     NULL};
  unsigned char *m, *h;
  const char *section;
  size_t n;

  scratch_path(md, "r.md");
  scratch_path(html, "r.html");
  TAP_EQ_INT(run_crossrun(argv, err, sizeof(err), NULL, 0), 0,
             "the report is written: %s", err);
  m = scratch_read(md, &n);
  h = scratch_read(html, &n);
  TAP_HAS_STR((const char *)m, "### Transports: tcp and tls",
              "the Markdown report has the transports section");
  section = m ? strstr((const char *)m, "### Transports") : NULL;
  line_with(section, "| fx-fx ", line, sizeof(line));
  TAP_OK(strstr(line, "TLSv1.3 TLS_AES_128_GCM_SHA256") != NULL &&
             ratio_cell(line),
         "fx-fx over tcp and tls with their ratio and the cipher: %s", line);
  line_with(section, "| fx-tcp ", line, sizeof(line));
  TAP_HAS_STR(line, "unsupported", "fx-tcp over tls is unsupported: %s", line);
  TAP_HAS_STR((const char *)m, "fx-fx+tls",
              "the lanes over tls are named client-server+tls");
  TAP_HAS_STR((const char *)h, "Transports: tcp and tls",
              "the HTML report has it too");
  free(m);
  free(h);
}

static void test_run(void)
{
  char text[2048], matrix[SCRATCH_PATH_CAP], out[SCRATCH_PATH_CAP];
  char err[4096], first[256], said[16384];
  const char *argv[] = {crossrun,
                        "run",
                        "--matrix",
                        matrix,
                        "--lanes",
                        "fx-fx*,fx-tcp*,tcp-fx*",
                        "--samples",
                        "1",
                        "--warmup",
                        "10",
                        "--round-trips",
                        "200",
                        "--no-packages",
                        "--no-progress",
                        "--out",
                        out,
                        NULL,
                        NULL,
                        NULL};
  json_object *doc, *lanes;
  int rc;

  snprintf(text, sizeof(text),
           "transports: [tcp, tls]\n"
           "runtimes:\n"
           "  fx:\n"
           "    client: [%s, client, tls-line]\n"
           "    server: [%s, server, tls-result]\n"
           "  tcp:\n"
           "    transports: [tcp]\n"
           "    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n",
           fixture, fixture, fixture, fixture);
  scratch_path(matrix, "m.yaml");
  scratch_path(out, "run.json");
  if (!TAP_OK(scratch_write(matrix, text, strlen(text)) == 0, "a matrix"))
    return;
  rc = run_crossrun(argv, err, sizeof(err), said, sizeof(said));
  doc = json_object_from_file(out);
  TAP_OK(rc == 0 && doc != NULL,
         "a run over the matrix's transports passed (exit %d): %s", rc, err);
  lanes = doc ? json_at(doc, "lanes") : NULL;
  if (lanes == NULL)
    goto out;
  TAP_EQ_INT(json_object_object_length(lanes), 6,
             "six lanes: fx-fx, fx-tcp and tcp-fx, each over tcp and tls");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-fx.transport"), "tcp",
             "fx-fx is over tcp");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-fx+tls.transport"), "tls",
             "fx-fx+tls is over tls");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-fx+tls.summary.status"), "passed",
             "and passed");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-fx+tls.samples.0.server.argv.5"),
             "--transport", "its server was given --transport");
  TAP_OK(has_words(json_at(doc, "lanes.fx-fx+tls.samples.0.reproduce.argv"),
                   "--lanes", "fx-fx+tls") &&
             has_words(json_at(doc, "lanes.fx-fx+tls.samples.0.reproduce.argv"),
                       "--transport", "tls"),
         "its reproduce command names the lane and --transport tls");
  TAP_OK(has_words(json_at(doc, "lanes.fx-fx.samples.0.reproduce.argv"),
                   "--transport", "tcp"),
         "a tcp lane's names --transport tcp");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-tcp+tls.summary.status"), "unsupported",
             "fx-tcp+tls is unsupported");
  TAP_EQ_INT(json_object_array_length(json_at(doc, "lanes.fx-tcp+tls.samples")),
             0, "and no sample of it was started");
  TAP_HAS_STR(json_str_at(doc, "lanes.tcp-fx+tls.unsupported_reason"),
              "runtime 'tcp' declares transports [tcp]",
              "tcp-fx+tls says why it was not started");
  TAP_EQ_STR(json_str_at(doc, "lanes.tcp-fx.summary.status"), "passed",
             "tcp-fx over tcp ran and passed");
  TAP_HAS_STR(said, "fx-tcp+tls: unsupported: runtime 'tcp'",
              "the summary says so");
  {
    const char *vargv[] = {crossrun, "validate", out, NULL};
    TAP_EQ_INT(run_crossrun(vargv, err, sizeof(err), NULL, 0), 0,
               "the evidence validates: %s", err);
  }
  TAP_EQ_INT(tmp_entries(first, sizeof(first)), 0,
             "no sample left anything in the temporary area ('%s')", first);
  test_report(out);
  json_object_put(doc);
  doc = NULL;

  /* --transport tcp: the tcp lanes alone. */
  argv[16] = "--transport";
  argv[17] = "tcp";
  rc = run_crossrun(argv, err, sizeof(err), NULL, 0);
  doc = json_object_from_file(out);
  TAP_OK(rc == 0 && doc != NULL &&
             json_object_object_length(json_at(doc, "lanes")) == 3 &&
             json_at(doc, "lanes.fx-fx+tls") == NULL,
         "--transport tcp runs the three tcp lanes (exit %d)", rc);
  argv[17] = "udp";
  rc = run_crossrun(argv, err, sizeof(err), NULL, 0);
  TAP_OK(rc == 2 && strstr(err, "unknown transport 'udp'") &&
             strchr(err, '\n') == strrchr(err, '\n'),
         "--transport udp is refused with one line (exit %d): %s", rc, err);
  argv[17] = "tcp";
  argv[5] = "fx-fx+tls";
  rc = run_crossrun(argv, err, sizeof(err), NULL, 0);
  TAP_OK(rc == 2 && strstr(err, "no lane matches 'fx-fx+tls' over tcp"),
         "a tls lane named with --transport tcp: no such lane (exit %d): %s",
         rc, err);
out:
  json_object_put(doc);
}

/* A record (rehearsed) takes the unsupported lanes as not tested: none is
 * retried, the record is written, and merge accepts it. */
static void test_record(void)
{
  char text[2048], matrix[SCRATCH_PATH_CAP], dir[SCRATCH_PATH_CAP];
  char evidence[SCRATCH_PATH_CAP], merged[SCRATCH_PATH_CAP], err[4096];
  const char *argv[] = {crossrun,
                        "record",
                        "--rehearse",
                        "--no-conform",
                        "--matrix",
                        matrix,
                        "--lanes",
                        "fx-fx*,fx-tcp*,un-un*",
                        "--no-packages",
                        "--output-directory",
                        dir,
                        NULL};
  const char *margv[] = {
      crossrun, "merge", "--require", "linux", "--allow-rehearsal",
      "--out",  merged,  evidence,    NULL};
  json_object *doc;
  int rc;

  snprintf(text, sizeof(text),
           "transports: [tcp, tls]\n"
           "runtimes:\n"
           "  fx:\n"
           "    client: [%s, client, tls-line]\n"
           "    server: [%s, server, tls-result]\n"
           "  tcp:\n"
           "    transports: [tcp]\n"
           "    client: [%s, client, ok]\n"
           "    server: [%s, server, ok]\n"
           "  un:\n"
           "    client: [%s, client, ok]\n"
           "    server: [%s, server, unsupported]\n"
           "workloads:\n"
           "  full: {warmup: 10, round_trips: 200, payload_bytes: 16, "
           "max_in_flight: 4, samples: 2}\n",
           fixture, fixture, fixture, fixture, fixture, fixture);
  scratch_path(matrix, "rec.yaml");
  scratch_path(dir, "rec");
  scratch_path(evidence, "rec/evidence-linux-x86_64.json");
  scratch_path(merged, "merged.json");
  if (!TAP_OK(scratch_write(matrix, text, strlen(text)) == 0,
              "a matrix for a record"))
    return;
  rc = run_crossrun(argv, err, sizeof(err), NULL, 0);
  doc = json_object_from_file(evidence);
  TAP_OK(rc == 0 && doc != NULL,
         "a record with unsupported lanes is written (exit %d): %s", rc, err);
  if (doc == NULL)
    return;
  TAP_EQ_STR(json_str_at(doc, "lanes.un-un+tls.summary.status"), "unsupported",
             "a lane whose server exits 127 is unsupported");
  TAP_OK(
      !json_object_get_boolean(json_at(doc, "lanes.un-un.samples.0.retried")),
      "and its samples are not retried");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-tcp+tls.summary.status"), "unsupported",
             "a lane the matrix excludes is unsupported");
  TAP_EQ_STR(json_str_at(doc, "lanes.fx-fx+tls.summary.status"), "passed",
             "fx-fx+tls passed");
  rc = run_crossrun(margv, err, sizeof(err), NULL, 0);
  TAP_EQ_INT(rc, 0, "merge accepts the unsupported lanes: %s", err);
  json_object_put(doc);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  const char *root = getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";

  snprintf(fixture, sizeof(fixture), "%s/%s/tests/fixture", root, build);
  snprintf(crossrun, sizeof(crossrun), "%s/%s/crossrun", root, build);
  if (scratch_create() != 0)
    return tap_done();
  /* The samples' temporary area, ours alone: what is left in it after a
   * sample was left by that sample. */
  scratch_path(tmp, "tmp");
  if (scratch_mkdir(tmp) != 0 || setenv("TMPDIR", tmp, 1) != 0) {
    TAP_OK(0, "a temporary area for the samples");
    scratch_remove();
    return tap_done();
  }
  test_material_per_sample();
  test_tls_checks();
  test_run();
  test_record();
  scratch_remove();
  return tap_done();
}
