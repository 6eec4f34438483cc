/* crossrun conform: its command line, and deliberately lax runtimes
 * (tests/fixture's lax modes) plugged in through a matrix file, each of
 * which must fail exactly the cases of the check it skips, by name, while
 * the fixture's correct mode "ok" passes every case. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib_child.h"
#include "tests/lib_samples.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char crossrun[1024], fixture[1024], root[1024], dir[512];

static int run(struct child_run *r, const char *const *args, double seconds)
{
  const char *argv[32];
  int n = 0;

  argv[n++] = crossrun;
  argv[n++] = "conform";
  for (int i = 0; args[i] != NULL && n < 31; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  memset(r, 0, sizeof(*r));
  if (child_run(r, argv, root, NULL, tap_timeout_s(seconds)) != 0)
    return -1;
  return r->exited && !r->timed_out ? (int)r->exit_status : -1;
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *text = calloc(1, 1 << 20);
  size_t n = 0;

  if (f != NULL && text != NULL) {
    n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
  }
  if (f != NULL)
    fclose(f);
  return text;
}

static void test_usage(void)
{
  static const struct {
    const char *args[6];
    const char *says;
  } bad[] = {
      {{"--runtimes", "ghost", NULL}, "no runtime 'ghost'"},
      {{"--cases", "no-such-case", NULL}, "no case matches 'no-such-case'"},
      {{"--host", "10.0.0.1", NULL}, "not a loopback address"},
      {{"--bogus", NULL}, "bogus"},
      {{"--case-timeout", "0", NULL}, "case-timeout"},
  };
  const char *help[] = {"--help", NULL};
  struct child_run r;
  int rc;

  rc = run(&r, help, 30);
  TAP_OK(rc == 0 && strstr(r.stdout_buf, "--runtimes") &&
             strstr(r.stdout_buf, "--cases") && strstr(r.stdout_buf, "--out"),
         "conform --help lists its options (exit %d)", rc);
  child_release(&r);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    rc = run(&r, bad[i].args, 30);
    TAP_OK(rc == 2 && strstr(r.stderr_buf, bad[i].says) &&
               strchr(r.stderr_buf, '\n') ==
                   r.stderr_buf + strlen(r.stderr_buf) - 1,
           "%s %s: one line naming the problem, exit 2 (exit %d: %s)",
           bad[i].args[0], bad[i].args[1] ? bad[i].args[1] : "", rc,
           r.stderr_buf);
    child_release(&r);
  }
}

/* Cases whose --list line matches, as "role/name\n" lines. */
static char *listed(const char *patterns, const char *role, const char *column)
{
  const char *args[] = {"--cases", patterns, "--list", NULL};
  struct child_run r;
  char *out = calloc(1, 65536), *line, *save = NULL;
  size_t used = 0;

  if (out == NULL || run(&r, args, 30) != 0) {
    child_release(&r);
    return out;
  }
  for (line = strtok_r(r.stdout_buf, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    char *tab = strchr(line, '\t');
    if (tab == NULL || strncmp(line, role, strlen(role)) != 0 ||
        strstr(tab, column) == NULL)
      continue;
    used += (size_t)snprintf(out + used, 65536 - used, "%.*s\n",
                             (int)(tab - line), line);
  }
  child_release(&r);
  return out;
}

/* The cases runtime failed in doc, as "role/name\n" lines. */
/* The cases object of runtime in doc, or NULL. */
static json_object *cases_of(json_object *doc, const char *runtime)
{
  json_object *all, *rt, *cases;

  if (doc == NULL || !json_object_object_get_ex(doc, "conformance", &all) ||
      !json_object_object_get_ex(all, runtime, &rt) ||
      !json_object_object_get_ex(rt, "cases", &cases) ||
      !json_object_is_type(cases, json_type_object))
    return NULL;
  return cases;
}

static char *failed_cases(json_object *doc, const char *runtime)
{
  json_object *cases = cases_of(doc, runtime);
  char *out = calloc(1, 65536);
  size_t used = 0;

  if (out == NULL || cases == NULL)
    return out;
  json_object_object_foreach(cases, key, c)
  {
    json_object *v;
    if (json_object_object_get_ex(c, "verdict", &v) &&
        (strcmp(json_object_get_string(v), "failed") == 0 ||
         strcmp(json_object_get_string(v), "error") == 0))
      used += (size_t)snprintf(out + used, 65536 - used, "%s\n", key);
  }
  return out;
}

static int has_line(const char *text, const char *line)
{
  char at_start[200], inside[202];

  snprintf(at_start, sizeof(at_start), "%s\n", line);
  snprintf(inside, sizeof(inside), "\n%s\n", line);
  return strncmp(text, at_start, strlen(at_start)) == 0 ||
         strstr(text, inside) != NULL;
}

/* The lines of a that are not in b. */
static char *minus(const char *a, const char *b)
{
  char *out = calloc(1, strlen(a) + 1), *copy = strdup(a), *save = NULL;
  size_t used = 0;

  for (char *line = strtok_r(copy, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save))
    if (!has_line(b, line))
      used += (size_t)sprintf(out + used, "%s\n", line);
  free(copy);
  return out;
}

static int same_lines(const char *a, const char *b)
{
  char *x = minus(a, b), *y = minus(b, a);
  int same = x[0] == '\0' && y[0] == '\0';

  if (!same)
    tap_diag("only in the first: %s; only in the second: %s", x, y);
  free(x);
  free(y);
  return same;
}

static void test_lax_runtimes(void)
{
  static const char *const patterns =
      "server/request_*,server/hello_*,server/version_*,server/bye_*,"
      "client/response_*,client/hello_ack_*,server/session_payload_0,"
      "client/session_payload_0";
  char matrix[600], out[600], m[4096];
  const char *args[] = {
      "--matrix",       matrix,
      "--runtimes",     "ok,laxpayload,laxsequence,noerror,laxresponse",
      "--cases",        patterns,
      "--case-timeout", "1",
      "--out",          out,
      "--no-progress",  NULL};
  struct {
    const char *runtime;
    char *expected;
  } lax[4];
  json_object *doc;
  struct child_run r;
  char *ok;
  FILE *f;
  int rc;

  snprintf(matrix, sizeof(matrix), "%s/lax.yaml", dir);
  snprintf(out, sizeof(out), "%s/lax.json", dir);
  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  ok: {client: [%s, client, ok], server: [%s, server, ok]}\n"
           "  laxpayload: {client: [%s, client, ok],"
           " server: [%s, server, lax-payload]}\n"
           "  laxsequence: {client: [%s, client, ok],"
           " server: [%s, server, lax-sequence]}\n"
           "  noerror: {client: [%s, client, ok],"
           " server: [%s, server, no-error]}\n"
           "  laxresponse: {client: [%s, client, lax-response],"
           " server: [%s, server, ok]}\n",
           fixture, fixture, fixture, fixture, fixture, fixture, fixture,
           fixture, fixture, fixture);
  f = fopen(matrix, "w");
  if (f == NULL || fputs(m, f) < 0 || fclose(f) != 0) {
    TAP_OK(0, "cannot write %s", matrix);
    return;
  }
  /* What each skipped check must cost, from the cases' own expectations. */
  lax[0].runtime = "laxpayload";
  lax[0].expected = listed(patterns, "server/", "\twrong_payload\t");
  lax[1].runtime = "laxsequence";
  lax[1].expected = listed("server/request_skipped*", "server/", "\t");
  lax[2].runtime = "noerror";
  lax[2].expected = listed(patterns, "server/", "error:required");
  lax[3].runtime = "laxresponse";
  lax[3].expected = listed(patterns, "client/", "\twrong_payload\t");
  TAP_OK(strstr(lax[0].expected, "server/request_masked\n") &&
             strstr(lax[1].expected, "server/request_skipped\n") &&
             strstr(lax[2].expected, "server/hello_round_trips_0\n") &&
             strstr(lax[2].expected, "server/bye_wrong_requests\n") &&
             strstr(lax[3].expected, "client/response_plain_echo\n"),
         "the expected failures are named by the cases: %s%s%s%s",
         lax[0].expected, lax[1].expected, lax[2].expected, lax[3].expected);

  rc = run(&r, args, 600);
  TAP_OK(rc == 1, "lax runtimes fail conform (exit %d)", rc);
  if (rc != 1)
    child_explain(&r, "conform");
  child_release(&r);
  doc = json_object_from_file(out);
  TAP_OK(doc != NULL, "the evidence is written");
  if (doc == NULL)
    return;
  ok = failed_cases(doc, "ok");
  TAP_OK(ok[0] == '\0', "the correct fixture fails none of them: %s", ok);
  for (int i = 0; i < 4; i++) {
    char *failed = failed_cases(doc, lax[i].runtime);
    TAP_OK(same_lines(failed, lax[i].expected),
           "%s fails exactly the cases of the check it skips: %s",
           lax[i].runtime, failed);
    free(failed);
    free(lax[i].expected);
  }
  free(ok);
  json_object_put(doc);
  {
    char md[600], html[600], junit[600];
    const char *rargs[] = {crossrun, "report", out,       "--markdown", md,
                           "--html", html,     "--junit", junit,        NULL};
    char *text;
    int cases = 0;
    snprintf(md, sizeof(md), "%s/lax.md", dir);
    snprintf(html, sizeof(html), "%s/lax.html", dir);
    snprintf(junit, sizeof(junit), "%s/lax.xml", dir);
    memset(&r, 0, sizeof(r));
    rc = child_run(&r, rargs, root, NULL, tap_timeout_s(60));
    TAP_OK(rc == 0 && child_succeeded(&r), "crossrun report renders it");
    child_release(&r);
    text = slurp(md);
    TAP_OK(strstr(text, "### Conformance of laxpayload") &&
               strstr(text, "server/request\\_masked | failed | reject "
                            "wrong\\_payload"),
           "the Markdown has a conformance section per runtime naming each "
           "failed case");
    free(text);
    text = slurp(html);
    TAP_OK(strstr(text, "<h3>Conformance of noerror</h3>") &&
               strstr(text, "<td>server/bye_wrong_requests</td>"),
           "so has the HTML");
    free(text);
    text = slurp(junit);
    for (const char *p = text; (p = strstr(p, "<testcase ")) != NULL; p++)
      cases++;
    TAP_OK(strstr(text, "<testsuite name=\"laxsequence\"") &&
               strstr(text, "name=\"server/request_skipped\" time=") &&
               strstr(text, "<failure message=\"no rejection within") &&
               cases > 5 * 10,
           "the JUnit XML has a testcase per runtime and case (%d)", cases);
    free(text);
  }
  {
    const char *vargs[] = {crossrun, "validate", out, NULL};
    memset(&r, 0, sizeof(r));
    rc = child_run(&r, vargs, root, NULL, tap_timeout_s(60));
    TAP_OK(rc == 0 && child_succeeded(&r) && strstr(r.stdout_buf, "valid"),
           "crossrun validate accepts the conform evidence: %s", r.stdout_buf);
    child_release(&r);
  }
}

/* How many cases of role runtime has in doc. */
static int role_cases(json_object *doc, const char *runtime, const char *role)
{
  json_object *cases = cases_of(doc, runtime);
  int n = 0;

  if (cases == NULL)
    return 0;
  json_object_object_foreach(cases, key, c)
  {
    json_object *v;
    (void)key;
    if (json_object_object_get_ex(c, "role", &v) &&
        strcmp(json_object_get_string(v), role) == 0)
      n++;
  }
  return n;
}

/* Every case, against a correct implementation: the scripted peers ask
 * nothing that SPEC.md does not. */
static void test_correct_passes_every_case(void)
{
  char matrix[600], out[600], m[2048];
  const char *args[] = {"--matrix", matrix, "--runtimes",    "ok",
                        "--out",    out,    "--no-progress", NULL};
  struct child_run r;
  json_object *doc;
  char *failed;
  FILE *f;
  int rc;

  snprintf(matrix, sizeof(matrix), "%s/ok.yaml", dir);
  snprintf(out, sizeof(out), "%s/ok.json", dir);
  snprintf(m, sizeof(m),
           "runtimes:\n"
           "  ok: {client: [%s, client, ok], server: [%s, server, ok]}\n",
           fixture, fixture);
  f = fopen(matrix, "w");
  if (f == NULL || fputs(m, f) < 0 || fclose(f) != 0) {
    TAP_OK(0, "cannot write %s", matrix);
    return;
  }
  rc = run(&r, args, 600);
  if (rc != 0)
    child_explain(&r, "conform");
  child_release(&r);
  doc = json_object_from_file(out);
  failed = doc ? failed_cases(doc, "ok") : NULL;
  TAP_OK(rc == 0 && failed != NULL && failed[0] == '\0',
         "the correct fixture passes every case (exit %d): %s", rc,
         failed ? failed : "no evidence");
  TAP_OK(role_cases(doc, "ok", "server") >= 40 &&
             role_cases(doc, "ok", "client") >= 40,
         "... of at least 40 per role (server %d, client %d)",
         role_cases(doc, "ok", "server"), role_cases(doc, "ok", "client"));
  free(failed);
  json_object_put(doc);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  char cwd[900], text[1200];

  if (getcwd(cwd, sizeof(cwd)) == NULL || tap_mkdtemp(text, 512) == NULL)
    return 1;
  /* Paths with their drive on Windows, where these are Linux paths under
   * wine (tests/lib_samples). */
  samples_with_drive(dir, sizeof(dir), text);
  samples_with_drive(root, sizeof(root),
                     getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : cwd);
  snprintf(text, sizeof(text), "%s/%s/crossrun", root, build);
  samples_with_drive(crossrun, sizeof(crossrun), text);
  snprintf(text, sizeof(text), "%s/%s/tests/fixture", root, build);
  samples_with_drive(fixture, sizeof(fixture), text);
  test_usage();
  test_lax_runtimes();
  test_correct_passes_every_case();
  if (scratch_remove_tree(dir, 8) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
