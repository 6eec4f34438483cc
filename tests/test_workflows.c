/* The CI workflows, parsed (libyaml) and checked for the structure the
 * release pipeline depends on: the three OSes, pinned toolchains, the
 * record and merge steps, and artifact names that merge's download finds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "runner/glob.h"
#include "runner/lanes.h"
#include "tests/tap.h"

struct wf {
  yaml_document_t doc;
  int ok;
};

static const char *root(void)
{
  return getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
}

static int load(struct wf *w, const char *name)
{
  char path[1024];
  yaml_parser_t p;
  FILE *f;

  snprintf(path, sizeof(path), "%s/.github/workflows/%s", root(), name);
  memset(w, 0, sizeof(*w));
  f = fopen(path, "rb");
  if (f == NULL || !yaml_parser_initialize(&p)) {
    if (f)
      fclose(f);
    return 0;
  }
  yaml_parser_set_input_file(&p, f);
  w->ok = yaml_parser_load(&p, &w->doc) &&
          yaml_document_get_root_node(&w->doc) != NULL;
  yaml_parser_delete(&p);
  fclose(f);
  return w->ok;
}

static yaml_node_t *child(struct wf *w, yaml_node_t *n, const char *key)
{
  if (n == NULL)
    return NULL;
  if (n->type == YAML_MAPPING_NODE) {
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(&w->doc, p->key);
      if (k->type == YAML_SCALAR_NODE &&
          strcmp((char *)k->data.scalar.value, key) == 0)
        return yaml_document_get_node(&w->doc, p->value);
    }
  }
  if (n->type == YAML_SEQUENCE_NODE && key[0] >= '0' && key[0] <= '9') {
    long i = atol(key);
    if (i < n->data.sequence.items.top - n->data.sequence.items.start)
      return yaml_document_get_node(&w->doc, n->data.sequence.items.start[i]);
  }
  return NULL;
}

static yaml_node_t *at(struct wf *w, const char *dotted)
{
  char buf[256], *save = NULL;
  yaml_node_t *n = yaml_document_get_root_node(&w->doc);
  snprintf(buf, sizeof(buf), "%s", dotted);
  for (char *k = strtok_r(buf, ".", &save); k && n;
       k = strtok_r(NULL, ".", &save))
    n = child(w, n, k);
  return n;
}

static const char *text(yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                          : "";
}

static int count(yaml_node_t *n)
{
  if (n == NULL)
    return 0;
  if (n->type == YAML_SEQUENCE_NODE)
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  if (n->type == YAML_MAPPING_NODE)
    return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
  return 0;
}

/* The matrix's os_name values, in order, as "linux,macos,windows". */
static void os_names(struct wf *w, const char *job, char *out, size_t len)
{
  char path[128];
  yaml_node_t *inc;

  snprintf(path, sizeof(path), "jobs.%s.strategy.matrix.include", job);
  inc = at(w, path);
  out[0] = '\0';
  for (int i = 0; i < count(inc); i++) {
    char key[8];
    snprintf(key, sizeof(key), "%d", i);
    snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "",
             text(child(w, child(w, inc, key), "os_name")));
  }
}

/* The step of job whose `run` or `uses` contains needle, or NULL. */
static yaml_node_t *step(struct wf *w, const char *job, const char *needle)
{
  char path[128];
  yaml_node_t *steps;

  snprintf(path, sizeof(path), "jobs.%s.steps", job);
  steps = at(w, path);
  for (int i = 0; i < count(steps); i++) {
    char key[8];
    yaml_node_t *s;
    snprintf(key, sizeof(key), "%d", i);
    s = child(w, steps, key);
    if (strstr(text(child(w, s, "run")), needle) ||
        strstr(text(child(w, s, "uses")), needle))
      return s;
  }
  return NULL;
}

static int exact_version(const char *v)
{
  int a, b, c;
  char end;
  return sscanf(v, "%d.%d.%d%c", &a, &b, &c, &end) == 3;
}

/* Windows keeps no executable bit: its stat() makes S_IXUSR of the
 * name's extension (.exe, .bat), never of a .sh file. There the bit is
 * not checked (main() says so); the Linux and macOS runs check it. */
#ifdef _WIN32
#define EXEC_BIT_KNOWN 0
#else
#define EXEC_BIT_KNOWN 1
#endif

/* Whether the script name (from the root) is executable and holds needle. */
static int script_has(const char *name, const char *needle)
{
  char path[1024], buf[8192];
  struct stat st;
  size_t n;
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", root(), name);
  if (stat(path, &st) != 0 || (EXEC_BIT_KNOWN && !(st.st_mode & S_IXUSR)))
    return 0;
  f = fopen(path, "r");
  if (f == NULL)
    return 0;
  n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strstr(buf, needle) != NULL;
}

/* The setup actions that install a pinned toolchain from the workflow's
 * env: which action, its env key, the key of `with` that names it. */
struct setup {
  const char *action, *env, *with, *what, *distribution;
};
static const struct setup setups[] = {
    {"actions/setup-go", "GO_VERSION", "go-version", "Go", NULL},
    {"actions/setup-python", "PYTHON_VERSION", "python-version", "Python",
     NULL},
    {"actions/setup-java", "JAVA_VERSION", "java-version", "Java (Temurin)",
     "temurin"},
};

static const char *env_text(struct wf *w, const char *key)
{
  char path[64];

  snprintf(path, sizeof(path), "env.%s", key);
  return text(at(w, path));
}

static void check_toolchains(struct wf *w, const char *name, const char *job)
{
  yaml_node_t *node = step(w, job, "actions/setup-node");
  TAP_OK(exact_version(text(at(w, "env.NODE_VERSION"))) &&
             exact_version(text(at(w, "env.RUST_VERSION"))),
         "%s pins Node.js %s and Rust %s exactly", name,
         text(at(w, "env.NODE_VERSION")), text(at(w, "env.RUST_VERSION")));
  TAP_OK(node && strcmp(text(child(w, child(w, node, "with"), "node-version")),
                        "${{ env.NODE_VERSION }}") == 0,
         "%s sets up that Node.js", name);
  TAP_OK(step(w, job, "rustup toolchain install \"$RUST_VERSION\"") != NULL,
         "%s installs that Rust", name);
  for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++) {
    const struct setup *t = &setups[i];
    yaml_node_t *with;
    char want[64];

    snprintf(want, sizeof(want), "${{ env.%s }}", t->env);
    node = step(w, job, t->action);
    with = child(w, node, "with");
    TAP_OK(exact_version(env_text(w, t->env)) &&
               strcmp(text(child(w, with, t->with)), want) == 0 &&
               (t->distribution == NULL ||
                strcmp(text(child(w, with, "distribution")), t->distribution) ==
                    0),
           "%s pins %s %s exactly and sets it up", name, t->what,
           env_text(w, t->env));
  }
}

static void test_smoke(void)
{
  struct wf w;
  char oses[128];

  if (!TAP_OK(load(&w, "smoke.yml"), "smoke.yml parses"))
    return;
  TAP_OK(child(&w, at(&w, "on"), "push") && at(&w, "on.pull_request"),
         "smoke runs on every push and pull request");
  os_names(&w, "quick", oses, sizeof(oses));
  TAP_OK(strcmp(oses, "linux,macos,windows") == 0 &&
             strstr(text(at(&w, "jobs.quick.strategy.matrix.include.0.runner")),
                    "ubuntu") &&
             strstr(text(at(&w, "jobs.quick.strategy.matrix.include.1.runner")),
                    "macos") &&
             strstr(text(at(&w, "jobs.quick.strategy.matrix.include.2.runner")),
                    "windows"),
         "on Ubuntu, macOS and Windows (%s)", oses);
  check_toolchains(&w, "smoke", "quick");
  TAP_OK(step(&w, "quick", "ci/smoke.sh") &&
             script_has("ci/smoke.sh", "make quick"),
         "its step runs ci/smoke.sh, which runs make quick");
  yaml_document_delete(&w.doc);
}

static void test_record(void)
{
  struct wf w;
  char oses[128], name[64], merge_cmd[256];
  yaml_node_t *up, *down, *merge;
  const char *pattern;

  if (!TAP_OK(load(&w, "record.yml"), "record.yml parses"))
    return;
  TAP_OK(strcmp(text(at(&w, "on.push.branches.0")), "main") == 0 &&
             child(&w, at(&w, "on"), "workflow_dispatch"),
         "record runs on main and on demand");
  os_names(&w, "record", oses, sizeof(oses));
  TAP_OK(strcmp(oses, "linux,macos,windows") == 0,
         "the record job runs on the three OSes (%s)", oses);
  check_toolchains(&w, "record", "record");
  TAP_OK(step(&w, "record", "ci/record.sh") &&
             script_has("ci/record.sh", "crossrun record --output-directory"),
         "its step runs ci/record.sh, which runs crossrun record");
  up = step(&w, "record", "actions/upload-artifact");
  down = step(&w, "merge", "actions/download-artifact");
  pattern = text(child(&w, child(&w, down, "with"), "pattern"));
  TAP_OK(up &&
             strcmp(text(child(&w, child(&w, up, "with"), "name")),
                    "evidence-${{ matrix.os_name }}") == 0 &&
             strstr(text(child(&w, child(&w, up, "with"), "path")),
                    "evidence-*.json"),
         "each OS uploads its evidence as evidence-<os>");
  {
    int all = 1;
    static const char *const os[] = {"linux", "macos", "windows"};
    for (int i = 0; i < 3; i++) {
      snprintf(name, sizeof(name), "evidence-%s", os[i]);
      all &= glob_match(pattern, name);
    }
    TAP_OK(
        down && all &&
            strcmp(text(child(&w, child(&w, down, "with"), "merge-multiple")),
                   "true") == 0,
        "the merge job downloads every evidence-<os> artifact (%s)", pattern);
  }
  {
    yaml_node_t *attest = step(&w, "record", "actions/attest-build-provenance");
    int i_attest = -1, i_up = -1, i_rec = -1;
    for (int i = 0; i < 20; i++) {
      char key[64];
      const char *uses, *run;
      snprintf(key, sizeof(key), "jobs.record.steps.%d.uses", i);
      uses = text(at(&w, key));
      snprintf(key, sizeof(key), "jobs.record.steps.%d.run", i);
      run = text(at(&w, key));
      if (strstr(uses, "actions/attest-build-provenance") == uses)
        i_attest = i;
      if (strstr(uses, "actions/upload-artifact") == uses && i_up < 0)
        i_up = i;
      if (strstr(run, "ci/record.sh"))
        i_rec = i;
    }
    TAP_OK(
        attest &&
            strcmp(text(child(&w, child(&w, attest, "with"), "subject-path")),
                   "evidence-out/evidence-*.json") == 0 &&
            i_rec < i_attest && i_attest < i_up,
        "each OS attests its evidence files after recording them and "
        "before uploading them");
    TAP_OK(strcmp(text(at(&w, "jobs.record.permissions.id-token")), "write") ==
                   0 &&
               strcmp(text(at(&w, "jobs.record.permissions.attestations")),
                      "write") == 0,
           "the record job may attest (id-token: write, attestations: "
           "write)");
  }
  TAP_OK(strcmp(text(at(&w, "jobs.merge.needs")), "record") == 0,
         "merge waits for the three records");
  TAP_OK(script_has("ci/merge.sh", "--attestation-repo \"$repo\"") &&
             script_has("ci/merge.sh", "repo=${GITHUB_REPOSITORY:?") &&
             strcmp(text(at(&w, "jobs.merge.permissions.attestations")),
                    "read") == 0 &&
             strcmp(text(at(&w, "jobs.merge.steps.2.env.GH_TOKEN")),
                    "${{ github.token }}") == 0,
         "the merge verifies every file's attestation against this "
         "repository before merging (crossrun merge --attestation-repo, "
         "GH_TOKEN for gh)");
  merge = step(&w, "merge", "ci/merge.sh");
  snprintf(merge_cmd, sizeof(merge_cmd), "ci/merge.sh %s",
           text(child(&w, child(&w, down, "with"), "path")));
  TAP_OK(merge && strstr(text(child(&w, merge, "run")), merge_cmd) &&
             script_has("ci/merge.sh",
                        "crossrun merge --require linux,macos,windows") &&
             script_has("ci/merge.sh", "\"$in\"/evidence-*.json") &&
             script_has("ci/merge.sh", "crossrun report"),
         "it merges what it downloaded, requiring the three OSes, and "
         "renders the reports");
  TAP_OK(step(&w, "merge", "actions/upload-artifact") &&
             strcmp(text(at(&w, "jobs.merge.steps.3.with.name")),
                    "crossrun-report") == 0,
         "the reports are published as an artifact");
  yaml_document_delete(&w.doc);
}

/* The pull-request comparison: main's official merged evidence kept by
 * the record workflow as crossrun-baseline, found and compared here. */
static void test_compare(void)
{
  struct wf w, rec;
  yaml_node_t *keep, *cmp;
  int i_official = -1, i_keep = -1;

  if (!TAP_OK(load(&w, "compare.yml"), "compare.yml parses"))
    return;
  TAP_OK(at(&w, "on.pull_request") != NULL, "compare runs on pull requests");
  check_toolchains(&w, "compare", "compare");
  TAP_OK(strcmp(text(at(&w, "jobs.compare.permissions.actions")), "read") ==
                 0 &&
             strcmp(text(child(
                        &w,
                        child(&w, step(&w, "compare", "ci/baseline.sh"), "env"),
                        "GH_TOKEN")),
                    "${{ github.token }}") == 0,
         "it may read main's artifacts (actions: read, GH_TOKEN for gh)");
  TAP_OK(script_has("ci/baseline.sh", "--workflow record.yml --branch main") &&
             script_has("ci/baseline.sh", "--name crossrun-baseline"),
         "ci/baseline.sh downloads crossrun-baseline of record.yml on main");
  cmp = step(&w, "compare", "ci/compare.sh");
  TAP_OK(
      cmp && strstr(text(child(&w, cmp, "run")), "baseline/merged.json") &&
          strstr(text(child(&w, step(&w, "compare", "ci/baseline.sh"), "run")),
                 "ci/baseline.sh baseline") &&
          script_has("ci/compare.sh", "make quick") &&
          script_has("ci/compare.sh",
                     "crossrun compare \"$baseline\" crossrun-quick.json"),
      "ci/compare.sh compares a quick run with what ci/baseline.sh got");
  TAP_OK(script_has("ci/compare.sh", "--fail-on-regression") &&
             script_has("ci/compare.sh", "CROSSRUN_COMPARE_GATE") &&
             strcmp(text(child(&w, child(&w, cmp, "env"),
                               "CROSSRUN_COMPARE_GATE")),
                    "${{ vars.CROSSRUN_COMPARE_GATE }}") == 0,
         "the gate is the repository variable CROSSRUN_COMPARE_GATE "
         "(--fail-on-regression)");
  yaml_document_delete(&w.doc);
  if (!TAP_OK(load(&rec, "record.yml"), "record.yml parses"))
    return;
  keep = NULL;
  for (int i = 0; i < 20; i++) {
    char key[64];
    yaml_node_t *s;
    snprintf(key, sizeof(key), "jobs.merge.steps.%d", i);
    s = at(&rec, key);
    if (strcmp(text(child(&rec, s, "id")), "official") == 0)
      i_official = i;
    if (strcmp(text(child(&rec, child(&rec, s, "with"), "name")),
               "crossrun-baseline") == 0) {
      keep = s;
      i_keep = i;
    }
  }
  TAP_OK(
      keep &&
          strcmp(text(child(&rec, child(&rec, keep, "with"), "path")),
                 "report-out/merged.json") == 0 &&
          strstr(text(child(&rec, keep, "uses")), "actions/upload-artifact") &&
          strstr(text(child(&rec, keep, "if")),
                 "github.ref == 'refs/heads/main'") &&
          strstr(text(child(&rec, keep, "if")),
                 "steps.official.outputs.official == 'true'") &&
          i_official >= 0 && i_official < i_keep,
      "the merge job keeps report-out/merged.json of main as "
      "crossrun-baseline, only when it is official");
  yaml_document_delete(&rec.doc);
}

int main(void)
{
  test_smoke();
  test_record();
  test_compare();
  if (!EXEC_BIT_KNOWN)
    TAP_OK(1, "the ci scripts are executable # SKIP Windows keeps no "
              "executable bit (the Linux and macOS runs check it)");
  return tap_done();
}
