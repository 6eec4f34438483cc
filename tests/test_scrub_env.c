/* The evidence of a run does not depend on unrelated variables of the
 * caller's environment: the same quick (c-c and a fixture lane whose
 * client prints a stderr line and exits 3, one seed) twice, once with
 * bash's `_`, OLDPWD, a variable holding "exited" and others holding words
 * of the evidence, gives the same text once figures are masked (digits:
 * timings, ports, dates). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "tests/lib_child.h"
#include "tests/lib_json.h"
#include "tests/lib_samples.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

extern char **environ;

static char crossrun[SCRATCH_PATH_CAP], fixture[SCRATCH_PATH_CAP];
static char matrix[SCRATCH_PATH_CAP];
/* The quick's folder: the scratch folder. */
static char cwd[SCRATCH_PATH_CAP];

/* environ with extra ("NAME=value" each) put in front, so that they win.
 * The caller frees the array (not its strings). */
static char **environment(const char *const *extra)
{
  size_t n = 0, k = 0;
  char **env;

  while (environ[n] != NULL)
    n++;
  while (extra[k] != NULL)
    k++;
  env = calloc(n + k + 1, sizeof(*env));
  if (env == NULL)
    return NULL;
  for (size_t i = 0; i < k; i++)
    env[i] = (char *)extra[i];
  for (size_t i = 0, j = k; i < n; i++) {
    size_t name = strcspn(environ[i], "=");
    int replaced = 0;
    for (size_t e = 0; e < k; e++)
      if (strncmp(extra[e], environ[i], name + 1) == 0)
        replaced = 1;
    if (!replaced)
      env[j++] = environ[i];
  }
  return env;
}

/* Whether key holds how a figure was measured rather than text the run
 * wrote: under wine the OS's peak of a reaped peer reads 0 in some runs
 * and not in others, so a peer's memory is exact in one run and sampled
 * in the next whatever the environment (the evidence says which). */
static int measured_differently(const char *key)
{
  return samples_under_wine() &&
         (strstr(key, "memory") != NULL || strstr(key, "rss") != NULL);
}

/* Every string of o, "path=value" a line, with each run of digits masked
 * as '#'; started_at is left out, and under wine how the peers' memory
 * was measured. Appended to out (the caller frees). */
static void strings_of(json_object *o, const char *path, char **out,
                       size_t *len)
{
  char sub[1024];

  switch (json_object_get_type(o)) {
  case json_type_object: {
    json_object_object_foreach(o, key, v)
    {
      if (strcmp(key, "started_at") == 0 || measured_differently(key))
        continue;
      snprintf(sub, sizeof(sub), "%s.%s", path, key);
      strings_of(v, sub, out, len);
    }
    return;
  }
  case json_type_array:
    for (size_t i = 0; i < json_object_array_length(o); i++) {
      snprintf(sub, sizeof(sub), "%s.%zu", path, i);
      strings_of(json_object_array_get_idx(o, i), sub, out, len);
    }
    return;
  case json_type_string: {
    const char *s = json_object_get_string(o);
    size_t need = strlen(path) + strlen(s) + 3;
    char *grown = realloc(*out, *len + need);
    if (grown == NULL)
      return;
    *out = grown;
    *len += (size_t)sprintf(*out + *len, "%s=", path);
    for (; *s; s++) {
      if (*s >= '0' && *s <= '9') {
        while (s[1] >= '0' && s[1] <= '9')
          s++;
        (*out)[(*len)++] = '#';
      } else {
        (*out)[(*len)++] = *s;
      }
    }
    (*out)[(*len)++] = '\n';
    (*out)[*len] = '\0';
    return;
  }
  default:
    return;
  }
}

/* One quick of both lanes under extra; the masked strings of its evidence
 * (NULL when it did not run as expected). */
static char *quick(const char *name, const char *const *extra)
{
  char out[SCRATCH_PATH_CAP], *text = NULL;
  const char *argv[] = {
      crossrun,    "quick",  "--matrix", matrix,          "--lanes",
      "c-c,sp-sp", "--seed", "42",       "--no-packages", "--no-progress",
      "--out",     out,      NULL};
  struct child_run r;
  char **env = environment(extra);
  json_object *doc;
  size_t len = 0;
  int rc;

  scratch_path(out, name);
  rc = env ? child_run(&r, argv, cwd, env, tap_timeout_s(120)) : -1;
  free(env);
  TAP_OK(rc == 0 && r.exited && r.exit_status == 1,
         "%s: the quick ran, the fixture lane failed (exit %d)", name,
         rc == 0 ? (int)r.exit_status : -1);
  if (rc != 0)
    tap_diag("%s: cannot start %s in %s: %s", name, crossrun, cwd,
             uv_strerror(rc));
  if (rc != 0 || !r.exited || r.exit_status != 1)
    child_explain(&r, name);
  child_release(&r);
  doc = json_object_from_file(out);
  if (doc == NULL)
    return NULL;
  text = calloc(1, 1);
  if (text != NULL)
    strings_of(doc, "", &text, &len);
  json_object_put(doc);
  return text;
}

/* The first line where a and b differ, for the diagnostic. */
static void show_difference(const char *a, const char *b)
{
  while (*a && *a == *b) {
    const char *na = strchr(a, '\n'), *nb = strchr(b, '\n');
    if (na == NULL || nb == NULL || na - a != nb - b ||
        strncmp(a, b, (size_t)(na - a)) != 0)
      break;
    a = na + 1;
    b = nb + 1;
  }
  tap_diag("first difference:\n#   %.*s\n#   %.*s", (int)strcspn(a, "\n"), a,
           (int)strcspn(b, "\n"), b);
}

int main(void)
{
  const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
  const char *root = getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
  char text[4096], old_pwd[SCRATCH_PATH_CAP + 16];
  const char *plain[] = {"XC=1", "_=/usr/bin/env", "OLDPWD=/", NULL};
  const char *junk[] = {"_=build/crossrun",
                        "XC=exited",
                        old_pwd,
                        "CROSSRUN_JUNK_WORDS=fixture client",
                        "CROSSRUN_JUNK_REASON=counts and wire bytes match",
                        "CROSSRUN_JUNK_LANE=sp-sp",
                        "CROSSRUN_JUNK_TOKEN=q8XbV2rLm0Zt7Kc4wPn3",
                        "CROSSRUN_JUNK_PATHS=/usr/local/bin:/opt/tools",
                        NULL};
  char *a, *b;

  if (scratch_create() != 0)
    return tap_done();
  snprintf(text, sizeof(text), "%s/%s/crossrun", root, build);
  samples_with_drive(crossrun, sizeof(crossrun), text);
  snprintf(text, sizeof(text), "%s/%s/tests/fixture", root, build);
  samples_with_drive(fixture, sizeof(fixture), text);
  samples_with_drive(cwd, sizeof(cwd), scratch_root);
  snprintf(old_pwd, sizeof(old_pwd), "OLDPWD=%s", scratch_root);
  scratch_path(matrix, "m.yaml");
  snprintf(text, sizeof(text),
           "runtimes:\n"
           "  sp:\n"
           "    client: [%s, client, short-paths]\n"
           "    server: [%s, server, ok]\n",
           fixture, fixture);
  TAP_OK(scratch_write(matrix, text, strlen(text)) == 0,
         "a matrix outside the repository");

  a = quick("plain.json", plain);
  b = quick("junk.json", junk);
  TAP_OK(a != NULL && b != NULL && strcmp(a, b) == 0,
         "the same evidence text with and without the junk variables");
  if (a != NULL && b != NULL && strcmp(a, b) != 0)
    show_difference(a, b);
  TAP_OK(b != NULL && strstr(b, "$ENV") == NULL,
         "nothing is replaced by a variable's name");
  TAP_OK(b != NULL && strstr(b, "checks.server_exit.reason=exited by itself") &&
             strstr(b, "/crossrun run --lanes sp-sp"),
         "a check reason and the reproduce line stay what they were");
  TAP_OK(b != NULL && strstr(b, "fixture client: cannot open .../b"),
         "a peer's stderr keeps its words, its paths shortened");
  free(a);
  free(b);
  scratch_remove();
  return tap_done();
}
