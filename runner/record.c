#include "runner/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/base/sha256.h"
#include "evidence/base/term_text.h"
#include "runner/run.h"
#include "runner/summary.h"
#include "runner/command.h"

#define GIT_TIMEOUT_MS 30000

/* The first line git prints for args, or "" when it fails. */
static int git_line(const char *root, const char *const *args, char *out,
                    size_t outlen, uint64_t *total)
{
  const char *argv[12] = {"git", "-C", root};
  struct command_result r;
  char err[256], text[4096];
  int n = 3, ok;

  for (int i = 0; args[i] != NULL && n < 11; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  out[0] = '\0';
  if (command_run(argv, NULL, NULL, GIT_TIMEOUT_MS, &r, err, sizeof(err)) !=
      0) {
    command_result_release(&r);
    return -1;
  }
  ok = command_succeeded(&r);
  if (ok) {
    capture_text(&r.out, text, sizeof(text));
    text[strcspn(text, "\r\n")] = '\0';
    snprintf(out, outlen, "%s", text);
    if (total != NULL)
      *total = r.out.total;
  }
  command_result_release(&r);
  return ok ? 0 : -1;
}

static void env_copy(char *out, size_t len, const char *name)
{
  const char *v = getenv(name);
  snprintf(out, len, "%s", v ? v : "");
}

int record_in_ci(void)
{
  const char *ci = getenv("CI");

  return ci != NULL && *ci != '\0' && strcmp(ci, "false") != 0 &&
         strcmp(ci, "0") != 0;
}

void record_provenance(const char *root, struct evidence_provenance *p)
{
  static const char *const head[] = {"rev-parse", "HEAD", NULL};
  static const char *const branch[] = {"rev-parse", "--abbrev-ref", "HEAD",
                                       NULL};
  static const char *const status[] = {"status", "--porcelain",
                                       "--untracked-files=normal", NULL};
  char line[256];
  uint64_t changes = 0;

  memset(p, 0, sizeof(*p));
  p->clean = -1;
  git_line(root, head, p->commit, sizeof(p->commit), NULL);
  git_line(root, branch, p->branch, sizeof(p->branch), NULL);
  /* A CI checkout of a branch may be a detached HEAD at its tip. */
  if (strcmp(p->branch, "HEAD") == 0 && getenv("GITHUB_REF_NAME") &&
      strncmp(getenv("GITHUB_REF") ? getenv("GITHUB_REF") : "", "refs/heads/",
              11) == 0)
    env_copy(p->branch, sizeof(p->branch), "GITHUB_REF_NAME");
  if (git_line(root, status, line, sizeof(line), &changes) == 0)
    p->clean = changes == 0;
  p->in_ci = record_in_ci();
  if (getenv("GITHUB_ACTIONS") &&
      strcmp(getenv("GITHUB_ACTIONS"), "true") == 0) {
    snprintf(p->ci_provider, sizeof(p->ci_provider), "github_actions");
    env_copy(p->ci_workflow, sizeof(p->ci_workflow), "GITHUB_WORKFLOW");
    env_copy(p->ci_run_id, sizeof(p->ci_run_id), "GITHUB_RUN_ID");
    env_copy(p->ci_run_attempt, sizeof(p->ci_run_attempt),
             "GITHUB_RUN_ATTEMPT");
  } else if (p->in_ci) {
    snprintf(p->ci_provider, sizeof(p->ci_provider), "unknown");
  }
}

int record_add_matrix(struct evidence_provenance *p, const char *path,
                      const char *root, char *err, size_t errlen)
{
  const char *shown = lanes_relative(root, path), *slash;

  if (p->nmatrix >= EVIDENCE_MAX_MATRIX) {
    snprintf(err, errlen, "too many matrix files");
    return -1;
  }
  if (shown == path && path[0] == '/' && (slash = strrchr(path, '/')) != NULL)
    shown = slash + 1; /* outside the repository: its name only */
  snprintf(p->matrix[p->nmatrix].file, sizeof(p->matrix[0].file), "%s", shown);
  if (sha256_file(path, p->matrix[p->nmatrix].sha256, err, errlen) != 0)
    return -1;
  p->nmatrix++;
  return 0;
}

int record_refusal(const struct evidence_provenance *p, char *err,
                   size_t errlen)
{
  size_t used = 0;

  err[0] = '\0';
  if (p->commit[0] == '\0')
    used += (size_t)snprintf(err + used, errlen - used,
                             "%snot in a git checkout", used ? "; " : "");
  if (p->clean != 1 && used < errlen)
    used += (size_t)snprintf(err + used, errlen - used,
                             "%sthe work tree has changes", used ? "; " : "");
  if (strcmp(p->branch, "main") != 0 && used < errlen)
    used += (size_t)snprintf(err + used, errlen - used,
                             "%sHEAD is on '%s', not 'main'", used ? "; " : "",
                             p->branch);
  if (!p->in_ci && used < errlen)
    used += (size_t)snprintf(err + used, errlen - used,
                             "%sCI is not set (official records come from "
                             "CI)",
                             used ? "; " : "");
  return used > 0 ? -1 : 0;
}

void record_path(char *out, size_t outlen, const char *dir, const char *kind,
                 const struct model_machine *m, int shard_index,
                 int shard_count)
{
  if (shard_count > 0)
    snprintf(out, outlen, "%s/%s-%s-%s-shard-%d-of-%d.json", dir, kind, m->os,
             m->arch, shard_index, shard_count);
  else
    snprintf(out, outlen, "%s/%s-%s-%s.json", dir, kind, m->os, m->arch);
}

/* Before a record: provenance, the refusals of an official record, the
 * expectations file, the output folder. */
int record_setup(const struct cli_options *o, struct lanes *l,
                 struct evidence_provenance **prov, struct expect **expect,
                 FILE *errf)
{
  char err[1024], path[LANES_PATH_MAX + 16];
  uv_fs_t req;
  int rc;

  *prov = calloc(1, sizeof(**prov));
  *expect = calloc(1, sizeof(**expect));
  if (*prov == NULL || *expect == NULL) {
    fprintf(errf, "crossrun: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  record_provenance(l->root, *prov);
  if (!o->rehearse) {
    if (record_refusal(*prov, err, sizeof(err)) != 0) {
      fprintf(errf,
              "crossrun: record refused: %s (--rehearse runs it "
              "anyway, as official: false)\n",
              err);
      return RUN_EXIT_USAGE;
    }
    if (o->lanes != NULL || o->overrides != 0 ||
        strcmp(o->workload_name, "full") != 0) {
      fprintf(errf, "crossrun: record refused: an official record runs the "
                    "full workload of every lane (--lanes, --workload and "
                    "workload flags need --rehearse)\n");
      return RUN_EXIT_USAGE;
    }
  }
  snprintf(path, sizeof(path), "%s/matrix.yaml", l->root);
  if (uv_fs_stat(NULL, &req, path, NULL) == 0 &&
      record_add_matrix(*prov, path, l->root, err, sizeof(err)) != 0) {
    uv_fs_req_cleanup(&req);
    fprintf(errf, "crossrun: %s\n", err);
    return RUN_EXIT_RUNNER;
  }
  uv_fs_req_cleanup(&req);
  for (int i = 0; i < o->nmatrix; i++) {
    if (record_add_matrix(*prov, o->matrix[i], l->root, err, sizeof(err))) {
      fprintf(errf, "crossrun: %s\n", err);
      return RUN_EXIT_USAGE;
    }
  }
  if (o->expect != NULL &&
      expect_load(*expect, o->expect, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun: %s\n", err);
    return RUN_EXIT_USAGE;
  }
  rc = uv_fs_mkdir(NULL, &req, o->output_directory, 0755, NULL);
  uv_fs_req_cleanup(&req);
  if (rc != 0 && rc != UV_EEXIST) {
    fprintf(errf, "crossrun: --output-directory %s: %s\n", o->output_directory,
            uv_strerror(rc));
    return RUN_EXIT_USAGE;
  }
  return RUN_EXIT_OK;
}

int record_packages_failed(const struct evidence_run *run, FILE *errf)
{
  int failed = 0;

  for (int i = 0; i < run->npackages; i++) {
    const struct model_package *p = &run->packages[i];
    if (p->measured)
      continue;
    failed++;
    fprintf(errf, "crossrun: the package of runtime '%s' was not measured: ",
            p->runtime);
    term_text_put(errf, p->error[0] ? p->error : "no reason recorded");
    fputc('\n', errf);
  }
  return failed;
}

static int lane_failed(const struct evidence_lane *lane)
{
  if (lane->error_reason != NULL || lane->unavailable_reason != NULL)
    return 1;
  /* A combination a runtime does not implement is not tested, never
   * failed. */
  for (int i = 0; i < lane->nsamples; i++)
    if (lane->samples[i].result.status != MODEL_PASSED &&
        lane->samples[i].result.status != MODEL_UNSUPPORTED)
      return 1;
  return 0;
}

static int lane_flaky(const struct evidence_lane *lane)
{
  for (int i = 0; i < lane->nsamples; i++)
    if (lane->samples[i].retried)
      return 1;
  return 0;
}

/* After a record: expectations, then evidence-* or rejected-*, with every
 * reason. Returns the exit status. */
int record_finish(const struct cli_options *o, struct evidence_run *run,
                  const struct expect *expect, int conform_problems, char *path,
                  size_t pathlen, FILE *out, FILE *errf)
{
  struct evidence_cleanliness c;
  char final[LANES_PATH_MAX + 128], err[512];
  int problems = conform_problems, flaky = 0;
  uv_fs_t req;

  for (int i = 0; i < run->nlanes; i++) {
    struct evidence_lane *lane = &run->lanes[i];
    const struct expect_entry *x =
        expect_find(expect, lane->name, run->machine.os);
    int failed = lane_failed(lane);
    if (failed && x != NULL) {
      lane->expected_failure = x->reason;
    } else if (failed) {
      problems++;
      fprintf(errf, "crossrun: record: lane %s failed on %s\n", lane->name,
              run->machine.os);
    } else if (x != NULL) {
      problems++;
      fprintf(errf,
              "crossrun: record: lane %s passed on %s, but %s:%d "
              "expects it to fail: the known failure is fixed; delete "
              "that entry (lane: %s, os: %s)\n",
              lane->name, run->machine.os, expect->path, x->line, x->lane,
              x->os);
    }
    if (!failed && lane_flaky(lane)) {
      flaky++;
      fprintf(errf,
              "crossrun: record: lane %s is flaky: a sample failed, "
              "then passed on retry\n",
              lane->name);
    }
  }
  problems += record_packages_failed(run, errf);
  evidence_cleanliness(run, &c);
  if (c.processes_left || c.sockets_left || c.forced_terminations ||
      c.temp_entries_left) {
    problems++;
    fprintf(errf,
            "crossrun: record: cleanliness: %d processes left, %d "
            "sockets left, %d forced terminations, %d temp entries "
            "left\n",
            c.processes_left, c.sockets_left, c.forced_terminations,
            c.temp_entries_left);
  }
  if (!run->complete) {
    problems++;
    fprintf(errf, "crossrun: record: interrupted\n");
  }
  run->official = !o->rehearse && problems == 0 && flaky == 0;
  record_path(final, sizeof(final), o->output_directory,
              problems ? "rejected" : "evidence", &run->machine, o->shard_index,
              o->shard_count);
  if (evidence_write(run, final, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun: %s\n", err);
    return RUN_EXIT_RUNNER;
  }
  uv_fs_unlink(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
  snprintf(path, pathlen, "%s", final);
  summary_print(out, run);
  if (problems) {
    fprintf(out,
            "record rejected: %d problem%s; no evidence file, the data "
            "is in %s\n",
            problems, problems == 1 ? "" : "s", final);
    return run->complete ? RUN_EXIT_FAILED : RUN_EXIT_INTERRUPTED;
  }
  fprintf(out, "evidence: %s (%s)\n", final,
          run->official ? "official"
          : flaky       ? "not official: flaky lanes"
                        : "rehearsal, not official");
  return flaky ? RUN_EXIT_FAILED : RUN_EXIT_OK;
}
