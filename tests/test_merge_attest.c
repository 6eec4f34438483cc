/* crossrun merge and provenance: a local merge says of every input that
 * its provenance was not verified; --attestation-repo runs gh attestation
 * verify on every file (a fake gh on PATH that passes, fails one file, or
 * is missing), refuses the merge when any does not verify, and records
 * each input as verified; the reports say which inputs were. The fake gh
 * is this program, copied as gh into a folder put first on PATH: a
 * Windows program, under wine too, where a script would not be run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include <json-c/json.h>

#include "runner/commands.h"
#include "tests/lib_env.h"
#include "tests/lib_json.h"
#include "tests/lib_memfile.h"
#include "tests/lib_merge.h"
#include "tests/lib_validate.h"
#include "tests/tap.h"

static char files[3][512], out[512], bindir[600], gh_log[600];

/* Runs cmd_merge with its output captured. */
static int run_cmd(const char *const *args, int nargs, char *so, size_t solen,
                   char *se, size_t selen)
{
  char *argv[16], *text[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  FILE *f[2];
  int rc = -1;

  argv[0] = "merge";
  for (int i = 0; i < nargs && i < 14; i++)
    argv[i + 1] = (char *)args[i];
  argv[nargs + 1] = NULL;
  f[0] = memfile_open(&text[0], &len[0]);
  f[1] = memfile_open(&text[1], &len[1]);
  if (f[0] != NULL && f[1] != NULL)
    rc = cmd_merge(nargs + 1, argv, f[0], f[1]);
  for (int k = 0; k < 2; k++)
    if (f[k] != NULL)
      memfile_close(f[k]);
  snprintf(so, solen, "%s", text[0] ? text[0] : "");
  snprintf(se, selen, "%s", text[1] ? text[1] : "");
  free(text[0]);
  free(text[1]);
  return rc;
}

#ifdef _WIN32
#define PATH_LIST_SEP ";"
#define EXE_SUFFIX ".exe"
#else
#define PATH_LIST_SEP ":"
#define EXE_SUFFIX ""
#endif

/* This program as gh (gh attestation verify FILE ...): logs its arguments
 * to $FAKE_GH_LOG, and fails for a FILE whose name holds $FAKE_GH_FAIL. */
static int fake_gh(int argc, char **argv)
{
  const char *log = getenv("FAKE_GH_LOG"), *fail = getenv("FAKE_GH_FAIL");
  FILE *f = log != NULL ? fopen(log, "a") : NULL;

  if (f == NULL) {
    fprintf(stderr, "fake gh: cannot open $FAKE_GH_LOG\n");
    return 2;
  }
  for (int i = 1; i < argc; i++)
    fprintf(f, "%s%s", argv[i], i + 1 < argc ? " " : "\n");
  fclose(f);
  if (argc > 3 && fail != NULL && *fail != '\0' && strstr(argv[3], fail)) {
    fprintf(stderr, "Error: no attestations found\n");
    return 1;
  }
  printf("Loaded digest sha256:0 for file\n");
  return 0;
}

/* The fake gh in bindir: a copy of this program, logging to gh_log. */
static int make_fake_gh(void)
{
  char self[1024], path[700];
  size_t len = sizeof(self);
  uv_fs_t req;
  int rc;

  mtest_in_dir(bindir, sizeof(bindir), "bin");
  mtest_in_dir(gh_log, sizeof(gh_log), "gh.log");
  snprintf(path, sizeof(path), "%s/gh" EXE_SUFFIX, bindir);
  if (uv_exepath(self, &len) != 0 || tap_mkdir(bindir) != 0)
    return -1;
  /* The copy keeps the program's mode: executable. */
  rc = uv_fs_copyfile(NULL, &req, self, path, 0, NULL);
  uv_fs_req_cleanup(&req);
  if (rc != 0)
    return -1;
  return env_set("FAKE_GH_LOG", gh_log);
}

static int log_has(const char *needle)
{
  char *text = vtest_read_text(gh_log, NULL);
  int found = text != NULL && strstr(text, needle) != NULL;
  free(text);
  return found;
}

static const char *input_str(json_object *doc, int i, const char *key)
{
  json_object *in = mtest_get(json_at(doc, "inputs"), mtest_good[i]);
  json_object *v = mtest_get(in, key);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : "";
}

static int input_verified(json_object *doc, int i)
{
  json_object *in = mtest_get(json_at(doc, "inputs"), mtest_good[i]);
  return json_object_get_boolean(mtest_get(in, "provenance_verified"));
}

static void test_local(void)
{
  const char *args[] = {"--out", out, files[0], files[1], files[2]};
  char so[8192], se[8192], cmd[2000], md[600], *text;
  json_object *doc;
  int rc = run_cmd(args, 5, so, sizeof(so), se, sizeof(se)), ok = 1;

  doc = json_object_from_file(out);
  for (int i = 0; i < 3; i++)
    ok &= !input_verified(doc, i) &&
          strncmp(input_str(doc, i, "provenance"), "not verified: local merge",
                  25) == 0;
  TAP_OK(rc == 0 && doc != NULL && ok,
         "a local merge: every input says its provenance was not verified");
  json_object_put(doc);
  mtest_in_dir(md, sizeof(md), "local.md");
  snprintf(cmd, sizeof(cmd), "%s/crossrun report %s --markdown %s",
           getenv("BUILD") ? getenv("BUILD") : "build", out, md);
  rc = system(cmd);
  text = vtest_read_text(md, NULL);
  TAP_OK(rc == 0 && text != NULL &&
             strstr(text, "Not every input's provenance was verified") &&
             strstr(text, "not verified: local merge"),
         "its report says the inputs' provenance was not verified");
  free(text);
  remove(out);
}

static void test_verified(void)
{
  const char *args[] = {"--attestation-repo",
                        "owner/crossrun",
                        "--out",
                        out,
                        files[0],
                        files[1],
                        files[2]};
  char so[8192], se[8192], cmd[2000], md[600], xml[600], *text;
  json_object *doc;
  int rc, ok = 1;

  env_set("FAKE_GH_FAIL", NULL);
  rc = run_cmd(args, 7, so, sizeof(so), se, sizeof(se));
  doc = json_object_from_file(out);
  for (int i = 0; i < 3; i++) {
    char want[700];
    ok &= input_verified(doc, i) &&
          strcmp(input_str(doc, i, "provenance"),
                 "verified: gh attestation verify --repo owner/crossrun "
                 "--signer-workflow "
                 "owner/crossrun/.github/workflows/record.yml --source-ref "
                 "refs/heads/main") == 0;
    snprintf(want, sizeof(want),
             "attestation verify %s --repo owner/crossrun --signer-workflow "
             "owner/crossrun/.github/workflows/record.yml --source-ref "
             "refs/heads/main",
             files[i]);
    ok &= log_has(want);
  }
  if (!TAP_OK(rc == 0 && doc != NULL && ok,
              "--attestation-repo: gh attestation verify ran on every file, "
              "for record.yml on main, and every input is verified"))
    tap_diag("exit %d: %s%s", rc, so, se);
  json_object_put(doc);
  mtest_in_dir(md, sizeof(md), "verified.md");
  mtest_in_dir(xml, sizeof(xml), "verified.xml");
  snprintf(cmd, sizeof(cmd), "%s/crossrun report %s --markdown %s --junit %s",
           getenv("BUILD") ? getenv("BUILD") : "build", out, md, xml);
  rc = system(cmd);
  text = vtest_read_text(md, NULL);
  TAP_OK(rc == 0 && text != NULL &&
             strstr(text, "Every input's artifact attestation was verified") &&
             strstr(text, "verified: gh attestation verify"),
         "its report says every input was verified");
  free(text);
  text = vtest_read_text(xml, NULL);
  TAP_OK(text != NULL && strstr(text, "provenance evidence-linux-x86_64.json"),
         "the JUnit file names each input's provenance");
  free(text);
  remove(out);
}

static void test_refused(void)
{
  const char *args[] = {"--attestation-repo",
                        "owner/crossrun",
                        "--out",
                        out,
                        files[0],
                        files[1],
                        files[2]};
  const char *bad[] = {"--attestation-repo", "-x", "--out", out, files[0]};
  char so[8192], se[8192], want[700], *path = getenv("PATH"), saved[8192];
  FILE *f;
  int rc;

  env_set("FAKE_GH_FAIL", "macos");
  rc = run_cmd(args, 7, so, sizeof(so), se, sizeof(se));
  snprintf(want, sizeof(want), "crossrun merge: %s: provenance not verified",
           files[1]);
  f = fopen(out, "r");
  if (!TAP_OK(rc == 1 && strstr(se, want) != NULL &&
                  strstr(se, "no attestations found") != NULL && f == NULL &&
                  strstr(se, files[0]) == NULL,
              "a file whose attestation does not verify refuses the merge, "
              "named, and nothing is written"))
    tap_diag("exit %d: %s", rc, se);
  if (f != NULL)
    fclose(f);
  env_set("FAKE_GH_FAIL", NULL);

  snprintf(saved, sizeof(saved), "%s", path ? path : "");
  env_set("PATH", "/nonexistent");
  rc = run_cmd(args, 7, so, sizeof(so), se, sizeof(se));
  env_set("PATH", saved);
  TAP_OK(rc == 1 && strstr(se, "provenance not verified") != NULL &&
             strstr(se, "cannot run gh") != NULL,
         "without gh, --attestation-repo refuses the merge: %.*s",
         (int)strcspn(se, "\n"), se);

  rc = run_cmd(bad, 5, so, sizeof(so), se, sizeof(se));
  TAP_OK(rc == 2 && strstr(se, "is not OWNER/REPO") != NULL,
         "an --attestation-repo that is not OWNER/REPO is bad usage");
}

int main(int argc, char **argv)
{
  char path[8192];

  if (argc > 1 && strcmp(argv[1], "attestation") == 0)
    return fake_gh(argc, argv);
  if (mtest_setup() == 0 && TAP_OK(make_fake_gh() == 0, "a fake gh")) {
    for (int i = 0; i < 3; i++)
      mtest_in_dir(files[i], sizeof(files[i]), mtest_good[i]);
    mtest_in_dir(out, sizeof(out), "merged.json");
    snprintf(path, sizeof(path), "%s" PATH_LIST_SEP "%s", bindir,
             getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    env_set("PATH", path);
    test_local();
    test_verified();
    test_refused();
  }
  mtest_teardown();
  return tap_done();
}
