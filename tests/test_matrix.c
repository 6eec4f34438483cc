/* The matrix file: a table of broken files, each refused with its own
 * "FILE:LINE:COLUMN: message"; merging a second file; the repository's own
 * matrix.yaml; and random damage to it, which must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/matrix.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char dir[512];

static const char *write_file(const char *name, const char *text, size_t len)
{
  static char path[512];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (f == NULL)
    return path;
  fwrite(text, 1, len, f);
  fclose(f);
  return path;
}

#define GOOD_RUNTIME                                                           \
  "  c:\n    client: [bin/client]\n    server: [bin/server]\n"
#define WORKLOADS                                                              \
  "workloads:\n  quick: {warmup: 1, round_trips: 2, payload_bytes: 3, "        \
  "max_in_flight: 4, samples: 1}\n"

static const struct bad_case {
  const char *name;
  const char *text;
  const char *expect; /* ":LINE:COLUMN: message" after the file name */
} bad[] = {
    {"empty file", "", ":1:1: the file is empty"},
    {"a list at the top", "- a\n- b\n", ":1:1: expected a mapping with"},
    {"unknown top key", "runtime:\n" GOOD_RUNTIME,
     ":1:1: unknown key 'runtime' in the matrix file (did you mean "
     "'runtimes'?)"},
    {"unknown runtime key",
     "runtimes:\n  c:\n    client: [a]\n    sever: [b]\n",
     ":4:5: unknown key 'sever' in runtime 'c' (did you mean 'server'?)"},
    {"unknown key far from any",
     "runtimes:\n  c:\n    client: [a]\n    server: [b]\n    colour: red\n",
     ":5:5: unknown key 'colour' in runtime 'c' (expected one of: client, "
     "server, build, version, package, hidden, pinned, optional, "
     "transports)"},
    {"client as a string",
     "runtimes:\n  c:\n    client: bin/client\n    server: [b]\n",
     ":3:13: expected 'client' as a list of strings"},
    {"no server", "runtimes:\n  c:\n    client: [a]\n",
     ":2:3: runtime 'c' needs a 'server' command"},
    {"empty client list", "runtimes:\n  c:\n    client: []\n    server: [b]\n",
     ":3:13: 'client' is an empty list"},
    {"empty program name",
     "runtimes:\n  c:\n    client: ['']\n    server: [b]\n",
     ":3:14: 'client': the program name is empty"},
    {"a list inside argv",
     "runtimes:\n  c:\n    client: [a, [b]]\n    server: [b]\n",
     ":3:17: expected a string in 'client', found a list"},
    {"duplicate runtime", "runtimes:\n" GOOD_RUNTIME GOOD_RUNTIME,
     ":5:3: duplicate runtime 'c' (first at line 2)"},
    {"duplicate key",
     "runtimes:\n  c:\n    client: [a]\n    client: [b]\n    server: [c]\n",
     ":4:5: duplicate key 'client' (first at line 3)"},
    {"bad runtime name", "runtimes:\n  C-lane:\n    client: [a]\n",
     ":2:3: expected a runtime name of lowercase letters"},
    {"runtimes not a mapping", "runtimes: [c, node]\n",
     ":1:11: expected 'runtimes' as a mapping, found a list"},
    {"runtime not a mapping", "runtimes:\n  c: yes\n",
     ":2:6: expected runtime 'c' as a mapping, found a scalar"},
    {"hidden not a boolean",
     "runtimes:\n  c:\n    client: [a]\n    server: [b]\n    hidden: maybe\n",
     ":5:13: expected true or false for 'hidden'"},
    {"package without artifact",
     "runtimes:\n  c:\n    client: [a]\n    server: [b]\n    package:\n"
     "      command: [pack]\n",
     ":6:7: the package of runtime 'c' needs 'artifact'"},
    {"package env not a mapping",
     "runtimes:\n  c:\n    client: [a]\n    server: [b]\n    package:\n"
     "      command: [pack]\n      artifact: x\n      env: [A]\n",
     ":8:12: expected package 'env' as a mapping"},
    {"package env name with '='",
     "runtimes:\n  c:\n    client: [a]\n    server: [b]\n    package:\n"
     "      command: [pack]\n      artifact: x\n      env: {'A=B': c}\n",
     ":8:13: expected a variable name in package 'env'"},
    {"round_trips 0", "workloads:\n  w:\n    warmup: 0\n    round_trips: 0\n",
     ":4:18: expected 'round_trips' as a whole number from 1 to"},
    {"payload too large",
     "workloads:\n  w: {warmup: 0, round_trips: 1, payload_bytes: 1048577}\n",
     ":2:49: expected 'payload_bytes' as a whole number from 0 to 1048576"},
    {"number in quotes", "workloads:\n  w: {warmup: '5'}\n",
     ":2:15: expected 'warmup' as a whole number"},
    {"negative number", "workloads:\n  w: {warmup: -5}\n",
     ":2:15: expected 'warmup' as a whole number"},
    {"huge number", "workloads:\n  w: {warmup: 99999999999999999999999}\n",
     ":2:15: expected 'warmup' as a whole number"},
    {"workload missing samples",
     "workloads:\n  w: {warmup: 0, round_trips: 1, payload_bytes: 2, "
     "max_in_flight: 3}\n",
     ":2:3: workload 'w' needs 'samples'"},
    {"unknown workload key", "workloads:\n  w: {warmup: 0, round_trip: 1}\n",
     ":2:18: unknown key 'round_trip' in workload 'w' (did you mean "
     "'round_trips'?)"},
    {"two documents", "runtimes:\n" GOOD_RUNTIME "---\nruntimes: {}\n",
     ":6:1: a second YAML document; expected one"},
    {"tab indentation", "runtimes:\n\tc:\n",
     ":2:1: found character that cannot start any token"},
    {"unclosed list", "runtimes:\n  c:\n    client: [a, b\n",
     ":4:1: did not find expected ',' or ']'"},
    {"undefined alias", "runtimes:\n  c:\n    client: *nothing\n",
     ":3:13: found undefined alias"},
    {"NUL in a string",
     "runtimes:\n  c:\n    client: [\"a\\0b\"]\n    server: [b]\n",
     ":3:14: expected a string in 'client', found a scalar"},
};

static void test_bad_files(void)
{
  char err[512];

  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct lanes *l = calloc(1, sizeof(*l));
    const char *path = write_file("bad.yaml", bad[i].text, strlen(bad[i].text));
    char want[512];
    err[0] = '\0';
    snprintf(want, sizeof(want), "%s%s", path, bad[i].expect);
    TAP_OK(l && matrix_load(l, path, err, sizeof(err)) == -1 &&
               strncmp(err, want, strlen(want)) == 0 &&
               strchr(err, '\n') == NULL && l->nruntimes == 0,
           "%s: '%s'", bad[i].name, err);
    if (l)
      lanes_release(l);
    free(l);
  }
}

static void test_limits(void)
{
  struct lanes *l = calloc(1, sizeof(*l));
  size_t big = JSON_READ_MATRIX_MAX_BYTES + 10;
  char *text = malloc(big), err[512];
  const char *path;

  if (l == NULL || text == NULL)
    return;
  memset(text, '#', big);
  path = write_file("big.yaml", text, big);
  TAP_OK(matrix_load(l, path, err, sizeof(err)) == -1 &&
             strstr(err, "too large: more than 1048576 bytes"),
         "a file over 1 MiB is refused: %s", err);
  snprintf(text, big, "%s/missing.yaml", dir);
  TAP_OK(matrix_load(l, text, err, sizeof(err)) == -1 &&
             strstr(err, "cannot read"),
         "a missing file is named: %s", err);
  free(text);
  free(l);
}

/* A matrix of n runtimes r1..rn, the first with a package of nenv
 * variables; malloc'd. */
static char *many_runtimes(int n, int nenv)
{
  size_t cap = (size_t)n * 96 + (size_t)nenv * 32 + 256, used = 0;
  char *text = malloc(cap);

  if (text == NULL)
    return NULL;
  used += (size_t)snprintf(text + used, cap - used, "runtimes:\n");
  for (int i = 1; i <= n; i++) {
    used += (size_t)snprintf(text + used, cap - used,
                             "  r%d:\n    client: [c]\n    server: [s]\n", i);
    if (i == 1 && nenv > 0) {
      used += (size_t)snprintf(text + used, cap - used,
                               "    package:\n      command: [p]\n"
                               "      artifact: '*.tgz'\n      env:\n");
      for (int e = 0; e < nenv; e++)
        used += (size_t)snprintf(text + used, cap - used,
                                 "        V%d: value%d\n", e, e);
    }
  }
  return text;
}

static void test_many(void)
{
  struct lanes *l = calloc(1, sizeof(*l));
  char *text = many_runtimes(40, 40), err[512];
  struct lane *sel = NULL;
  const char *path;
  int n = -1, env = 0;

  if (l == NULL || text == NULL) {
    free(l);
    free(text);
    return;
  }
  path = write_file("many.yaml", text, strlen(text));
  TAP_OK(matrix_load(l, path, err, sizeof(err)) == 0 && l->nruntimes == 40,
         "a matrix of 40 runtimes loads: %s", l->nruntimes == 40 ? "" : err);
  if (l->nruntimes == 40) {
    sel = calloc((size_t)lanes_capacity(l), sizeof(*sel));
    n = sel ? lanes_select(l, NULL, sel, lanes_capacity(l), err, sizeof(err))
            : -1;
    for (char **e = l->runtimes[0].package.env; e && *e; e++)
      env++;
  }
  TAP_OK(n == 1600 && strcmp(sel[1599].name, "r40-r40") == 0,
         "and makes 1600 lanes (%d)", n);
  TAP_OK(env == 40 &&
             strcmp(l->runtimes[0].package.env[39], "V39=value39") == 0,
         "a package env of 40 variables is kept whole (%d)", env);
  free(sel);
  lanes_release(l);
  free(text);
  text = many_runtimes(LANES_MAX_RUNTIMES + 1, 0);
  path = text ? write_file("too-many.yaml", text, strlen(text)) : NULL;
  TAP_OK(path && matrix_load(l, path, err, sizeof(err)) == -1 &&
             strstr(err, "more than 256 runtimes") && l->nruntimes == 0,
         "the documented limit, 256 runtimes, is an input limit: %s", err);
  free(text);
  text = many_runtimes(1, LANES_ENV_MAX + 1);
  path = text ? write_file("big-env.yaml", text, strlen(text)) : NULL;
  TAP_OK(path && matrix_load(l, path, err, sizeof(err)) == -1 &&
             strstr(err, "more than 256 variables"),
         "and so is a package env of more than 256 variables: %s", err);
  free(text);
  lanes_release(l);
  free(l);
}

/* Whether path's last part is name, after a '/' or Windows' '\\'. */
static int ends_in_folder(const char *path, const char *name)
{
  size_t n = strlen(path), k = strlen(name);

  return n > k && strcmp(path + n - k, name) == 0 &&
         (path[n - k - 1] == '/' || path[n - k - 1] == '\\');
}

static void test_merge(void)
{
  struct lanes *l = calloc(1, sizeof(*l));
  char err[512], sub[600];
  const char *first, *second;
  struct runtime *c, *py;

  if (l == NULL)
    return;
  first =
      write_file("a.yaml",
                 "runtimes:\n" GOOD_RUNTIME "  node:\n    client: [n]\n"
                 "    server: [n]\n    hidden: yes\n" WORKLOADS,
                 strlen("runtimes:\n" GOOD_RUNTIME "  node:\n    client: [n]\n"
                        "    server: [n]\n    hidden: yes\n" WORKLOADS));
  TAP_OK(matrix_load(l, first, err, sizeof(err)) == 0 && l->nruntimes == 2 &&
             l->nworkloads == 1 && l->runtimes[1].hidden,
         "a good file loads: %s", err);
  snprintf(sub, sizeof(sub), "%s/other", dir);
  if (tap_mkdir(sub) != 0)
    return;
  {
    const char *text = "runtimes:\n  c:\n    client: [my/client, --x]\n"
                       "    server: [my/server]\n  py:\n    client: [p]\n"
                       "    server: [p]\n";
    second = write_file("other/b.yaml", text, strlen(text));
  }
  TAP_OK(matrix_load(l, second, err, sizeof(err)) == 0 && l->nruntimes == 3,
         "a second file adds a runtime: %s", err);
  c = lanes_find_runtime(l, "c");
  py = lanes_find_runtime(l, "py");
  TAP_OK(c && strcmp(c->client.argv[0], "my/client") == 0 &&
             strcmp(c->client.argv[1], "--x") == 0 &&
             ends_in_folder(c->dir, "other") && strstr(c->source, "b.yaml:2"),
         "and replaces one of the same name, its paths from its own folder "
         "(%s)",
         c ? c->dir : "none");
  TAP_OK(py && lanes_find_workload(l, "quick") != NULL,
         "what it does not name is kept");
  lanes_release(l);
  free(l);
  if (scratch_remove_tree(sub, 0) != 0)
    tap_diag("could not clean %s/other", dir);
}

static void test_repository_matrix(void)
{
  const char *root = getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
  struct lanes *l = calloc(1, sizeof(*l));
  const struct workload *full, *quick;
  char path[1024], err[512];
  struct lane sel[64];

  snprintf(path, sizeof(path), "%s/matrix.yaml", root);
  if (l == NULL)
    return;
  TAP_OK(matrix_load(l, path, err, sizeof(err)) == 0, "matrix.yaml loads: %s",
         err);
  full = lanes_find_workload(l, "full");
  quick = lanes_find_workload(l, "quick");
  TAP_OK(full && full->w.warmup == 100000 && full->w.round_trips == 1000000 &&
             full->w.payload_bytes == 64 && full->w.max_in_flight == 64 &&
             full->samples == 5,
         "its full workload is 100,000 + 1,000,000 round trips, 64 bytes, 64 "
         "in flight, 5 samples");
  TAP_OK(quick && quick->samples == 1, "its quick workload takes 1 sample");
  /* Every client against every server of the runtimes that are not hidden
   * (c, node, rust, python and those added since). */
  int shown = 0;
  for (int i = 0; i < l->nruntimes; i++)
    shown += !l->runtimes[i].hidden;
  TAP_OK(shown >= 4 &&
             lanes_select(l, NULL, sel, 64, err, sizeof(err)) == shown * shown,
         "it makes a lane of each client against each server (%d runtimes)",
         shown);
  TAP_OK(lanes_select(l, "node-*,*-rust", sel, 64, err, sizeof(err)) ==
             2 * shown - 1,
         "patterns select lanes");
  lanes_release(l);
  free(l);
}

/* Random damage to a real matrix file: refused or loaded, never a crash
 * (the sanitizer build runs this too). */
static void test_damage(void)
{
  const char *root = getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
  char path[1024], err[512], *text;
  uint64_t state = 0x9E3779B97F4A7C15u;
  size_t len;
  FILE *f;
  int refused = 0, loaded = 0;

  snprintf(path, sizeof(path), "%s/matrix.yaml", root);
  f = fopen(path, "rb");
  text = malloc(1 << 16);
  if (f == NULL || text == NULL) {
    if (f)
      fclose(f);
    free(text);
    return;
  }
  len = fread(text, 1, (1 << 16) - 1, f);
  fclose(f);
  for (int round = 0; round < 1500; round++) {
    char *copy = malloc(len + 1);
    struct lanes *l = calloc(1, sizeof(*l));
    if (copy == NULL || l == NULL) {
      free(copy);
      free(l);
      break;
    }
    memcpy(copy, text, len);
    for (int k = 0; k < 1 + round % 4; k++) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      size_t at = (size_t)(state >> 33) % len;
      static const char junk[] = "[]{}:,-#&*!|>'\"\t\n x0\\";
      copy[at] = (round & 1) ? junk[(state >> 20) % (sizeof(junk) - 1)]
                             : (char)(state >> 24);
    }
    const char *p = write_file("damaged.yaml", copy, len);
    if (matrix_load(l, p, err, sizeof(err)) == 0)
      loaded++;
    else
      refused += strncmp(err, p, strlen(p)) == 0 && !strchr(err, '\n');
    lanes_release(l);
    free(l);
    free(copy);
  }
  TAP_OK(refused + loaded == 1500,
         "1500 damaged copies: %d refused with a located one-line message, "
         "%d still valid, none crashed",
         refused, loaded);
  free(text);
}

int main(void)
{
  if (tap_mkdtemp(dir, sizeof dir) == NULL) {
    TAP_OK(0, "temporary directory");
    return tap_done();
  }
  test_bad_files();
  test_limits();
  test_many();
  test_merge();
  test_repository_matrix();
  test_damage();
  if (scratch_remove_tree(dir, 0) != 0)
    tap_diag("could not remove %s", dir);
  return tap_done();
}
