/* `crossrun rerun EVIDENCE --lane L --round R`: runs one sample again
 * from what its evidence recorded (the sample's reproduce block), and
 * says whether it fails for the same reason. */
#include "runner/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include <json-c/json.h>

#include "evidence/base/json_read.h"
#include "evidence/base/term_text.h"
#include "evidence/write/evidence.h"
#include "runner/options.h"
#include "runner/run.h"

#define RERUN_OTHER_REASON 4
#define RERUN_PATH_MAX 4096

static const struct options_command usage = {
    "rerun",
    "EVIDENCE --lane LANE --round N [--out FILE]",
    "Runs one sample of an evidence file again, as its reproduce block "
    "recorded it: the same matrix files, workload, seed, host and "
    "timeouts, from the recorded directory ('.': the root of this "
    "crossrun's checkout), with this crossrun. Prints the recorded and the "
    "new outcome and whether the reason is the same. The command is run as "
    "recorded: rerun only evidence you would run the matrix files of.",
    "Exit status: 0 the sample passed this time; 1 it failed again for "
    "the recorded reason (reproduced); 4 it failed for another reason, or "
    "failed where it had passed; 2 bad usage or an evidence file that "
    "cannot be rerun (missing, unreadable, no such lane or round, no "
    "reproduce data); 3 the runner itself failed; 130 interrupted.",
};

struct outcome {
  const char *status, *stage, *reason, *message;
};

static void outcome_of(json_object *sample, struct outcome *o)
{
  json_object *v, *failure = NULL;

  o->status = json_object_object_get_ex(sample, "status", &v)
                  ? json_object_get_string(v)
                  : "unknown";
  o->stage = o->reason = o->message = "";
  if (json_object_object_get_ex(sample, "failure", &failure) &&
      json_object_is_type(failure, json_type_object)) {
    if (json_object_object_get_ex(failure, "stage", &v))
      o->stage = json_object_get_string(v);
    if (json_object_object_get_ex(failure, "reason", &v))
      o->reason = json_object_get_string(v);
    if (json_object_object_get_ex(failure, "message", &v))
      o->message = json_object_get_string(v);
  }
}

static void print_outcome(FILE *f, const char *when, const struct outcome *o)
{
  /* The file may hold anything in these (term_text.h). */
  fprintf(f, "%s: ", when);
  term_text_put(f, o->status);
  if (*o->reason) {
    fputs(" at ", f);
    term_text_put(f, o->stage);
    fputs(": ", f);
    term_text_put(f, o->reason);
    fputs(": ", f);
    term_text_put(f, o->message);
  }
  fputc('\n', f);
}

/* The sample of round `round` of lane in doc, or NULL with the problem. */
static json_object *find_sample(json_object *doc, const char *lane, int round,
                                char *err, size_t errlen)
{
  json_object *lanes, *l, *samples;
  size_t used, n;
  int last = 0;

  if (!json_object_object_get_ex(doc, "lanes", &lanes) ||
      !json_object_is_type(lanes, json_type_object)) {
    snprintf(err, errlen, "not evidence: no lanes");
    return NULL;
  }
  if (!json_object_object_get_ex(lanes, lane, &l)) {
    used = (size_t)snprintf(err, errlen, "no lane '%s' (it has:", lane);
    json_object_object_foreach(lanes, name, unused)
    {
      (void)unused;
      if (used < errlen)
        used += (size_t)snprintf(err + used, errlen - used, " %s", name);
    }
    if (used < errlen)
      snprintf(err + used, errlen - used, ")");
    return NULL;
  }
  if (!json_object_object_get_ex(l, "samples", &samples) ||
      !json_object_is_type(samples, json_type_array)) {
    snprintf(err, errlen, "lane '%s' has no samples", lane);
    return NULL;
  }
  n = json_object_array_length(samples);
  for (size_t i = 0; i < n; i++) {
    json_object *s = json_object_array_get_idx(samples, i), *r;
    int at =
        json_object_object_get_ex(s, "round", &r) ? json_object_get_int(r) : 0;
    if (at == round)
      return s;
    if (at > last)
      last = at;
  }
  if (last == 0)
    snprintf(err, errlen, "lane '%s' has no samples", lane);
  else
    snprintf(err, errlen, "lane '%s' has no round %d (rounds 1 to %d)", lane,
             round, last);
  return NULL;
}

/* Whether word is folder alone or a path below it: "/" after it, or "\\"
 * (a Windows evidence file's paths go on with the separator they had). */
static int below(const char *word, const char *folder)
{
  size_t n = strlen(folder);
  return strncmp(word, folder, n) == 0 &&
         (word[n] == '\0' || word[n] == '/' || word[n] == '\\');
}

/* A word of reproduce.argv as a path of this machine: "~/x" below the home
 * folder, "$TMP/x" below the temporary one. Returns 0 or -1 (err says why). */
static int expand(const char *word, char *out, size_t outlen, char *err,
                  size_t errlen)
{
  char folder[RERUN_PATH_MAX];
  size_t len = sizeof(folder);
  const char *rest = NULL;
  int rc = 0;

  if (below(word, "~")) {
    rc = uv_os_homedir(folder, &len);
    rest = word + 1;
  } else if (below(word, "$TMP")) {
    rc = uv_os_tmpdir(folder, &len);
    rest = word + 4;
  } else if (strncmp(word, ".../", 4) == 0) {
    snprintf(err, errlen,
             "'%s' was shortened in the evidence (it lies outside the "
             "checkout, the home and the temporary folder); run the "
             "reproduce command with its full path",
             word);
    return -1;
  }
  if (rc != 0) {
    snprintf(err, errlen, "'%s': cannot find the folder: %s", word,
             uv_strerror(rc));
    return -1;
  }
  if ((size_t)snprintf(out, outlen, "%s%s", rest ? folder : "",
                       rest ? rest : word) >= outlen) {
    snprintf(err, errlen, "'%.64s...': too long", word);
    return -1;
  }
  return 0;
}

/* The root of this crossrun's checkout: the folder above its executable's
 * (build/crossrun -> .). */
static int own_root(char *root, size_t len)
{
  size_t n = len;
  char *slash;

  if (uv_exepath(root, &n) != 0)
    return -1;
  for (int i = 0; i < 2; i++) {
    slash = strrchr(root, '/');
    if (slash == NULL)
      slash = strrchr(root, '\\');
    if (slash == NULL)
      return -1;
    *slash = '\0';
  }
  if (root[0] == '\0')
    snprintf(root, len, "/");
  return 0;
}

/* The recorded command as argv for cmd_run: its words after the program,
 * expanded, then "--out" and out (which wins over the recorded one).
 * Words are kept in w. Returns the count, or -1 with the problem. */
static int command_of(json_object *repro, const char *out, char **argv,
                      struct evidence_words *w, char *err, size_t errlen)
{
  json_object *words;
  int n = 0;
  size_t count;

  if (!json_object_object_get_ex(repro, "argv", &words) ||
      !json_object_is_type(words, json_type_array)) {
    snprintf(err, errlen, "no reproduce data (reproduce.argv)");
    return -1;
  }
  count = json_object_array_length(words);
  if (count < 2 || count + 2 > EVIDENCE_REPRODUCE_WORDS ||
      strcmp(json_object_get_string(json_object_array_get_idx(words, 1)),
             "run") != 0) {
    snprintf(err, errlen, "reproduce.argv is not a 'crossrun run' command");
    return -1;
  }
  memset(w, 0, sizeof(*w));
  for (size_t i = 2; i < count; i++) {
    const char *word =
        json_object_get_string(json_object_array_get_idx(words, i));
    size_t room = sizeof(w->buf) - w->used;
    if (word == NULL) {
      snprintf(err, errlen, "a word of reproduce.argv is not a string");
      return -1;
    }
    if (expand(word, w->buf + w->used, room, err, errlen) != 0)
      return -1;
    argv[n++] = w->buf + w->used;
    w->used += strlen(w->buf + w->used) + 1;
  }
  argv[n++] = "--out";
  argv[n++] = (char *)out;
  argv[n] = NULL;
  return n;
}

/* rerun's --out as an absolute path: the run starts in another folder. */
static int absolute_out(const char *out, char *abs, size_t len)
{
  char cwd[RERUN_PATH_MAX];
  size_t n = sizeof(cwd);

  if (out[0] == '/' || (out[0] && out[1] == ':'))
    return (size_t)snprintf(abs, len, "%s", out) < len ? 0 : -1;
  if (uv_cwd(cwd, &n) != 0)
    return -1;
  return (size_t)snprintf(abs, len, "%s/%s", cwd, out) < len ? 0 : -1;
}

/* The run's new outcome for lane, from its evidence at path. */
static json_object *new_sample(const char *path, const char *lane,
                               json_object **doc, char *err, size_t errlen)
{
  char why[512];

  if (json_read_file(path, JSON_READ_MAX_BYTES, doc, why, sizeof(why)) != 0) {
    snprintf(err, errlen, "%s: %s", path, why);
    return NULL;
  }
  return find_sample(*doc, lane, 1, err, errlen);
}

/* Reruns the sample; returns the exit status. */
static int rerun(const char *file, json_object *sample, const char *lane,
                 int round, const char *out, FILE *outf, FILE *errf)
{
  static struct evidence_words w;
  char *argv[EVIDENCE_REPRODUCE_WORDS + 4], err[1024], dir[RERUN_PATH_MAX];
  char out_abs[RERUN_PATH_MAX];
  json_object *repro, *v, *doc = NULL, *now;
  struct outcome before, after;
  const char *directory;
  int argc, rc;

  if (!json_object_object_get_ex(sample, "reproduce", &repro) ||
      !json_object_object_get_ex(repro, "directory", &v) ||
      !json_object_is_type(v, json_type_string)) {
    fprintf(errf,
            "crossrun rerun: %s: lane %s round %d has no reproduce data "
            "(reproduce.directory): written by an older crossrun\n",
            file, lane, round);
    return RUN_EXIT_USAGE;
  }
  directory = json_object_get_string(v);
  if (absolute_out(out, out_abs, sizeof(out_abs)) != 0) {
    fprintf(errf, "crossrun rerun: --out: '%s': cannot make it absolute\n",
            out);
    return RUN_EXIT_USAGE;
  }
  argv[0] = "run";
  argc = command_of(repro, out_abs, argv + 1, &w, err, sizeof(err));
  if (argc >= 0 && strcmp(directory, ".") == 0 &&
      own_root(dir, sizeof(dir)) != 0) {
    snprintf(err, sizeof(err), "cannot find the root of this crossrun");
    argc = -1;
  } else if (argc >= 0 && strcmp(directory, ".") != 0 &&
             expand(directory, dir, sizeof(dir), err, sizeof(err)) != 0) {
    argc = -1;
  }
  if (argc < 0) {
    fprintf(errf, "crossrun rerun: %s: lane %s round %d: %s\n", file, lane,
            round, err);
    return RUN_EXIT_USAGE;
  }
  if ((rc = uv_chdir(dir)) != 0) {
    fprintf(errf, "crossrun rerun: cannot change to '%s': %s\n", directory,
            uv_strerror(rc));
    return RUN_EXIT_USAGE;
  }
  outcome_of(sample, &before);
  fprintf(outf, "crossrun rerun: %s round %d of %s, from %s\n", lane, round,
          file, directory);
  fflush(outf);
  rc = cmd_run(argc + 1, argv, outf, errf);
  if (rc != RUN_EXIT_OK && rc != RUN_EXIT_FAILED)
    return rc;
  now = new_sample(out_abs, lane, &doc, err, sizeof(err));
  if (now == NULL) {
    fprintf(errf, "crossrun rerun: %s\n", err);
    json_object_put(doc);
    return RUN_EXIT_RUNNER;
  }
  outcome_of(now, &after);
  print_outcome(outf, "recorded", &before);
  print_outcome(outf, "now", &after);
  if (strcmp(after.status, "passed") == 0)
    rc = RUN_EXIT_OK;
  else if (strcmp(before.reason, after.reason) == 0 &&
           strcmp(before.status, after.status) == 0)
    rc = RUN_EXIT_FAILED;
  else
    rc = RERUN_OTHER_REASON;
  fprintf(outf, "%s\n",
          rc == RUN_EXIT_FAILED ? "the same reason: reproduced"
          : rc == RUN_EXIT_OK   ? "passed: not reproduced"
                                : "another outcome: not reproduced");
  json_object_put(doc);
  return rc;
}

int cmd_rerun(int argc, char **argv, FILE *out, FILE *errf)
{
  const char *lane = NULL, *output = "crossrun-rerun.json", *file;
  const char **files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*files));
  int round = 0, nfiles = 0, rc;
  struct options_entry opts[] = {
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "lane", 0, &lane, "LANE",
                      "the lane of the sample (required)"),
       .flags = OPTIONS_NONEMPTY, .missing = "a lane"},
      OPTIONS_INTEGER("round", 0, &round, 1, 1000, "N",
                      "the round of the sample, 1-based (required)"),
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "out", 0, &output, "FILE",
                      "where the new evidence goes"),
       .flags = OPTIONS_NONEMPTY, .missing = "a file",
       .shown = "crossrun-rerun.json"},
      OPTIONS_END,
  };
  json_object *doc = NULL, *sample;
  char err[1024];

  if (files == NULL) {
    fprintf(errf, "crossrun rerun: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  rc = options_parse_command(&usage, opts, argc, argv, files, &nfiles, out,
                             errf);
  if (rc != 0) {
    free(files);
    return rc == OPTIONS_HELP ? RUN_EXIT_OK : RUN_EXIT_USAGE;
  }
  file = nfiles == 1 ? files[0] : NULL;
  free(files);
  if (file == NULL || lane == NULL || round == 0) {
    options_error(errf, &usage, "%s",
                  nfiles > 1     ? "give one evidence file"
                  : nfiles == 0  ? "no evidence file given"
                  : lane == NULL ? "--lane is required"
                                 : "--round is required");
    return RUN_EXIT_USAGE;
  }
  if (json_read_file(file, JSON_READ_MAX_BYTES, &doc, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun rerun: %s: %s\n", file, err);
    return RUN_EXIT_USAGE;
  }
  sample = find_sample(doc, lane, round, err, sizeof(err));
  if (sample == NULL) {
    fprintf(errf, "crossrun rerun: %s: %s\n", file, err);
    json_object_put(doc);
    return RUN_EXIT_USAGE;
  }
  rc = rerun(file, sample, lane, round, output, out, errf);
  json_object_put(doc);
  return rc;
}
