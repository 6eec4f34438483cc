/* `crossrun merge`: the record files of several OSes in, one merged
 * document out, or every reason why not. */
#include "runner/commands.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/merge/merge.h"
#include "runner/command.h"
#include "runner/options.h"
#include "runner/run.h"

#define DEFAULT_REQUIRE "linux,macos,windows"
#define ATTESTATION_TIMEOUT_MS 120000 /* per file: gh asks GitHub's API */
/* The workflow that attests official records (.github/workflows), and the
 * branch it records from. */
#define MERGE_SIGNER_WORKFLOW ".github/workflows/record.yml"
#define MERGE_SOURCE_REF "refs/heads/main"

static const struct options_command usage = {
    "merge",
    "[--require OSES] [--pinned RUNTIMES] [--allow-rehearsal] "
    "[--attestation-repo OWNER/REPO] --out FILE FILES...",
    "Joins the shards of each OS and merges the record evidence of several "
    "OSes (the files of `crossrun record`) into one document, after checking "
    "them all. It refuses, naming every problem on its own line: a file that "
    "is not JSON, truncated, of another schema_version, with a field of the "
    "wrong type or a number out of range; evidence that is not from record "
    "mode, not official or incomplete; a lane that did not pass (an "
    "expected_failure lane is kept and reported), a failed sample, a "
    "cleanliness count above 0; a required OS missing or present twice; "
    "shards with a gap or an overlap; commits, tool versions, workloads, "
    "matrix files or lane sets that differ; toolchain versions that differ "
    "across OSes for a pinned runtime (pinned: true in the matrix, or "
    "--pinned); a derived figure (a sample's "
    "status or time, a lane summary, a cleanliness total, a comparison, "
    "performance_claims, official) that its raw samples do not give. Each "
    "input's machine is kept; lanes of shards from two machines are not "
    "compared (null figures, verdict not_compared, with the reason). With "
    "--attestation-repo, each file's GitHub artifact attestation is "
    "verified first (gh attestation verify FILE --repo OWNER/REPO "
    "--signer-workflow OWNER/REPO/" MERGE_SIGNER_WORKFLOW
    " --source-ref " MERGE_SOURCE_REF "); a file "
    "that does not verify, or no gh, refuses the merge. Every input says "
    "whether its provenance was verified; without the option, that it was "
    "not (a local merge).",
    "Exit status: 0 merged; 1 refused (each problem on stderr as \"crossrun "
    "merge: FILE: problem\", or without FILE for one between files); 2 bad "
    "usage; 3 the output cannot be written.",
};

struct merge_args {
  struct options_list require, pinned;
  const char *out;
  const char *attestation_repo;
  const char **files; /* owned array of argv's strings */
  int nfiles;
  struct merge_options options;
};

/* The options, into t (of n bytes, room for them all). */
static void table(struct merge_args *a, struct options_entry *t, size_t n)
{
  struct options_entry e[] = {
      {OPTIONS_FIELDS(OPTIONS_KIND_LIST, "require", 0, &a->require, "OSES",
                      "comma-separated OSes that must each be present once"),
       .shown = DEFAULT_REQUIRE},
      OPTIONS_LIST("pinned", 0, &a->pinned, "RUNTIMES",
                   "comma-separated runtimes to pin besides those the "
                   "matrix pins (pinned: true, toolchain_pinned in the "
                   "evidence): runtimes.<name>.toolchain_version must be the "
                   "same on every OS. Every runtime's versions are reported "
                   "in the merged file's \"toolchain_versions\" either "
                   "way."),
      OPTIONS_FLAG("allow-rehearsal", 0, &a->options.allow_rehearsal,
                   "accept inputs with \"official\": false; the merged file "
                   "is then \"official\": false"),
      OPTIONS_STRING("attestation-repo", 0, &a->attestation_repo, "OWNER/REPO",
                     "verify each file's artifact attestation with gh "
                     "attestation verify FILE --repo OWNER/REPO, signed by "
                     "OWNER/REPO/" MERGE_SIGNER_WORKFLOW " on " MERGE_SOURCE_REF
                     ", before merging; any failure refuses the merge"),
      OPTIONS_STRING("out", 0, &a->out, "FILE",
                     "the merged document (written atomically; required)"),
      OPTIONS_END,
  };
  memcpy(t, e, n < sizeof(e) ? n : sizeof(e));
}

/* OWNER/REPO as GitHub spells them: letters, digits, '-', '_', '.', one
 * '/', neither part empty nor starting with '-' (it reaches gh's argv). */
static int repo_name_ok(const char *r)
{
  const char *slash = strchr(r, '/');

  if (slash == NULL || slash == r || slash[1] == '\0' ||
      strchr(slash + 1, '/') != NULL || r[0] == '-' || slash[1] == '-')
    return 0;
  for (const char *c = r; *c; c++)
    if (!isalnum((unsigned char)*c) && !strchr("-_./", *c))
      return 0;
  return 1;
}

/* Runs gh attestation verify on every file; notes[i] and prov[i] say how
 * each went. Returns the number that did not verify (each named on
 * errf). */
static int verify_attestations(const struct merge_args *a,
                               struct merge_provenance *prov,
                               char (*notes)[MERGE_LINE_MAX], FILE *errf)
{
  int failed = 0;

  for (int i = 0; i < a->nfiles; i++) {
    char signer[256];
    const char *argv[] = {"gh",
                          "attestation",
                          "verify",
                          a->files[i],
                          "--repo",
                          a->attestation_repo,
                          "--signer-workflow",
                          signer,
                          "--source-ref",
                          MERGE_SOURCE_REF,
                          NULL};
    struct command_result r;
    char err[512], why[1024];

    /* The repository alone would accept a file attested by any workflow
     * of it, from any branch: an official record comes from record.yml
     * on main. */
    snprintf(signer, sizeof(signer), "%s/%s", a->attestation_repo,
             MERGE_SIGNER_WORKFLOW);

    if (command_run(argv, NULL, NULL, ATTESTATION_TIMEOUT_MS, &r, err,
                    sizeof(err)) != 0) {
      snprintf(why, sizeof(why), "cannot run gh: %s", err);
    } else if (!command_succeeded(&r)) {
      command_describe_failure(&r, why, sizeof(why));
    } else {
      why[0] = '\0';
    }
    if (why[0] == '\0') {
      snprintf(notes[i], MERGE_LINE_MAX,
               "verified: gh attestation verify --repo %s --signer-workflow "
               "%s --source-ref %s",
               a->attestation_repo, signer, MERGE_SOURCE_REF);
      prov[i].verified = 1;
    } else {
      fprintf(errf,
              "crossrun merge: %s: provenance not verified (gh attestation "
              "verify --repo %s --signer-workflow %s --source-ref %s): %s\n",
              a->files[i], a->attestation_repo, signer, MERGE_SOURCE_REF, why);
      failed++;
    }
    prov[i].note = notes[i];
    command_result_release(&r);
  }
  return failed;
}

/* What the options mean together. Returns 0 or RUN_EXIT_USAGE (the
 * message written). */
static int check_args(struct merge_args *a, FILE *errf)
{
  char err[256];

  if (a->out == NULL || a->out[0] == '\0') {
    options_error(errf, &usage, "%s",
                  a->out ? "--out: empty file name" : "--out FILE is required");
    return RUN_EXIT_USAGE;
  }
  if (a->nfiles == 0) {
    options_error(errf, &usage, "no evidence files given");
    return RUN_EXIT_USAGE;
  }
  if (a->nfiles > MERGE_MAX_INPUTS) {
    fprintf(errf, "crossrun merge: %d files, at most %d\n", a->nfiles,
            MERGE_MAX_INPUTS);
    return RUN_EXIT_USAGE;
  }
  if (a->require.count == 0 &&
      options_list_set(&a->require, DEFAULT_REQUIRE, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun merge: %s\n", err);
    return RUN_EXIT_RUNNER;
  }
  for (int i = 0; i < a->require.count; i++)
    if (merge_os_index(a->require.items[i]) < 0) {
      fprintf(errf,
              "crossrun merge: --require: unknown os '%s' (expected linux, "
              "macos or windows)\n",
              a->require.items[i]);
      return RUN_EXIT_USAGE;
    }
  if (a->attestation_repo != NULL && !repo_name_ok(a->attestation_repo)) {
    options_error(errf, &usage, "--attestation-repo: '%s' is not OWNER/REPO",
                  a->attestation_repo);
    return RUN_EXIT_USAGE;
  }
  a->options.require = a->require.items;
  a->options.nrequire = a->require.count;
  a->options.pinned = a->pinned.items;
  a->options.npinned = a->pinned.count;
  return 0;
}

static int merge_verified(struct merge_args *a, FILE *out, FILE *errf);

/* The merge itself, once the arguments are right: the attestations first
 * when asked for. */
static int merge(struct merge_args *a, FILE *out, FILE *errf)
{
  int rc;

  if (a->attestation_repo != NULL) {
    struct merge_provenance *prov = calloc((size_t)a->nfiles, sizeof(*prov));
    char(*notes)[MERGE_LINE_MAX] = calloc((size_t)a->nfiles, sizeof(*notes));
    if (prov == NULL || notes == NULL) {
      fprintf(errf, "crossrun merge: out of memory\n");
      rc = RUN_EXIT_RUNNER;
    } else if (verify_attestations(a, prov, notes, errf) > 0) {
      rc = RUN_EXIT_FAILED; /* nothing unverified is merged */
    } else {
      a->options.provenance = prov;
      rc = merge_verified(a, out, errf);
    }
    free(prov);
    free(notes);
    return rc;
  }
  return merge_verified(a, out, errf);
}

/* The merge of the files, their provenance in a->options. */
static int merge_verified(struct merge_args *a, FILE *out, FILE *errf)
{
  struct merge_problems problems = MERGE_PROBLEMS_INIT;
  json_object *merged = NULL;
  char err[1024], summary[MERGE_LINE_MAX];
  int rc;

  if (merge_files(&a->options, a->files, a->nfiles, &merged, &problems) != 0) {
    for (int i = 0; i < problems.count; i++)
      fprintf(errf, "crossrun merge: %s\n", problems.lines[i]);
    if (problems.dropped > 0)
      fprintf(errf, "crossrun merge: %d more problems not shown\n",
              problems.dropped);
    rc = RUN_EXIT_FAILED;
  } else if (merge_write(merged, a->out, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun merge: %s\n", err);
    rc = RUN_EXIT_RUNNER;
  } else {
    merge_summary(merged, summary, sizeof(summary));
    fprintf(out, "crossrun merge: %s; written to %s\n", summary, a->out);
    rc = RUN_EXIT_OK;
  }
  json_object_put(merged);
  merge_problems_release(&problems);
  return rc;
}

int cmd_merge(int argc, char **argv, FILE *out, FILE *errf)
{
  struct merge_args a;
  struct options_entry opts[9];
  int rc;

  memset(&a, 0, sizeof(a));
  table(&a, opts, sizeof(opts));
  a.files = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*a.files));
  if (a.files == NULL) {
    fprintf(errf, "crossrun merge: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  rc = options_parse_command(&usage, opts, argc, argv, a.files, &a.nfiles, out,
                             errf);
  if (rc != 0)
    rc = rc == OPTIONS_HELP ? RUN_EXIT_OK : RUN_EXIT_USAGE;
  else {
    rc = check_args(&a, errf);
    if (rc == RUN_EXIT_OK)
      rc = merge(&a, out, errf);
  }
  fflush(out);
  fflush(errf);
  options_release(opts);
  free(a.files);
  return rc;
}
