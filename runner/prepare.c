#include "runner/prepare.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "runner/command.h"
#include "runner/tempdir.h"

#define VERSION_TIMEOUT_MS 30000
#define BUILD_TIMEOUT_MS (30 * 60 * 1000)
#define PACKAGE_TIMEOUT_MS (10 * 60 * 1000)
#define OUT_TOKEN "{out}"

static void join_argv(const struct lanes_argv *a, char *out, size_t outlen)
{
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; a->argv[i] != NULL && n < outlen; i++)
    n +=
        (size_t)snprintf(out + n, outlen - n, "%s%s", i ? " " : "", a->argv[i]);
}

/* A program named without a path must be on PATH now; one with a path may
 * be produced by the build, so it is looked for after it. */
static int find_bare(struct runtime *r, const struct lanes_argv *a,
                     const char *what)
{
  char path[LANES_PATH_MAX];
  int found;

  if (a->argv[0] == NULL || strchr(a->argv[0], '/') != NULL)
    return 1;
  found = platform_find_program(a->argv[0], r->dir, path, sizeof(path));
  if (found == 1)
    return 1;
  r->available = 0;
  snprintf(r->why_unavailable, sizeof(r->why_unavailable),
           found < 0 ? "'%s' (its %s program) is on PATH but not executable"
                     : "'%s' (its %s program) is not installed or not on PATH",
           a->argv[0], what);
  return 0;
}

static void read_version(struct runtime *r)
{
  struct command_result res;
  char err[256], text[512], *line, cmd[256];

  if (r->version.argv[0] == NULL)
    return;
  join_argv(&r->version, cmd, sizeof(cmd));
  if (command_run((const char *const *)r->version.argv, r->dir, NULL,
                  VERSION_TIMEOUT_MS, &res, err, sizeof(err)) != 0) {
    r->available = 0;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable),
             "'%s' cannot be run: %s", cmd, err);
    command_result_release(&res);
    return;
  }
  if (!command_succeeded(&res)) {
    char why[320];
    command_describe_failure(&res, why, sizeof(why));
    r->available = 0;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable), "'%s' %s", cmd,
             why);
    command_result_release(&res);
    return;
  }
  /* The first non-empty line of its output, stdout first. */
  capture_text(res.out.total ? &res.out : &res.err, text, sizeof(text));
  line = text + strspn(text, " \t\r\n");
  line[strcspn(line, "\r\n")] = '\0';
  snprintf(r->toolchain_version, sizeof(r->toolchain_version), "%s", line);
  command_result_release(&res);
}

static void build(struct runtime *r, FILE *log)
{
  struct command_result res;
  char err[256], cmd[256], why[320];

  if (r->build.argv[0] == NULL)
    return;
  join_argv(&r->build, cmd, sizeof(cmd));
  if (log != NULL) {
    fprintf(log, "building runtime '%s': %s\n", r->name, cmd);
    fflush(log);
  }
  if (command_run((const char *const *)r->build.argv, r->dir, NULL,
                  BUILD_TIMEOUT_MS, &res, err, sizeof(err)) != 0) {
    r->broken = 1;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable),
             "build '%s' cannot be run: %s", cmd, err);
  } else if (!command_succeeded(&res)) {
    command_describe_failure(&res, why, sizeof(why));
    r->broken = 1;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable), "build '%s' %s",
             cmd, why);
  }
  command_result_release(&res);
}

static void check_built(struct runtime *r, const struct lanes_argv *a,
                        const char *what)
{
  char path[LANES_PATH_MAX];

  if (r->broken || a->argv[0] == NULL || strchr(a->argv[0], '/') == NULL)
    return;
  switch (platform_find_program(a->argv[0], r->dir, path, sizeof(path))) {
  case 1:
    break;
  case -1:
    r->broken = 1;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable),
             "its %s program '%s' is not executable%s", what, a->argv[0],
             r->build.argv[0] ? " after its build" : "");
    break;
  default:
    r->broken = 1;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable),
             "its %s program '%s' does not exist%s", what, a->argv[0],
             r->build.argv[0] ? " after its build" : " (it has no build)");
  }
}

static int listed(struct runtime *const *seen, int n, const struct runtime *r)
{
  for (int i = 0; i < n; i++)
    if (seen[i] == r)
      return 1;
  return 0;
}

int prepare_used_runtimes(const struct lane *sel, int n, struct runtime **out)
{
  /* Linear look-ups: n lanes of r runtimes cost n * r, small beside one
   * sample. */
  int count = 0;
  for (int i = 0; i < n; i++) {
    if (!listed(out, count, sel[i].client))
      out[count++] = sel[i].client;
    if (!listed(out, count, sel[i].server))
      out[count++] = sel[i].server;
  }
  return count;
}

/* The distinct runtimes of sel, malloc'd (room for 2n), or NULL with
 * *count 0 when out of memory. */
static struct runtime **used_runtimes(const struct lane *sel, int n, int *count)
{
  struct runtime **used = calloc((size_t)(2 * n + 1), sizeof(*used));

  *count = used != NULL ? prepare_used_runtimes(sel, n, used) : 0;
  return used;
}

void prepare_runtimes(const struct lane *sel, int n, FILE *log)
{
  int count;
  struct runtime **used = used_runtimes(sel, n, &count);

  for (int i = 0; i < count; i++) {
    struct runtime *r = used[i];
    r->available = 1;
    r->broken = 0;
    r->why_unavailable[0] = '\0';
    r->toolchain_version[0] = '\0';
    if (!find_bare(r, &r->version, "version") ||
        !find_bare(r, &r->build, "build") ||
        !find_bare(r, &r->client, "client") ||
        !find_bare(r, &r->server, "server"))
      continue;
    read_version(r);
    if (!r->available)
      continue;
    build(r, log);
    check_built(r, &r->client, "client");
    check_built(r, &r->server, "server");
  }
  free(used);
}

/* s with every "{out}" replaced by dir; malloc'd. */
static char *subst(const char *s, const char *dir)
{
  size_t n = strlen(s) + 1, dlen = strlen(dir), used = 0;
  const char *p;
  char *out;

  for (p = strstr(s, OUT_TOKEN); p; p = strstr(p + 1, OUT_TOKEN))
    n += dlen;
  out = malloc(n);
  if (out == NULL)
    return NULL;
  while (*s) {
    if (strncmp(s, OUT_TOKEN, strlen(OUT_TOKEN)) == 0) {
      memcpy(out + used, dir, dlen);
      used += dlen;
      s += strlen(OUT_TOKEN);
    } else {
      out[used++] = *s++;
    }
  }
  out[used] = '\0';
  return out;
}

static void free_list(char **v, int n)
{
  for (int i = 0; i < n; i++)
    free(v[i]);
}

/* Runs the package command into t and finds the artifact in it. */
static int pack_once(struct runtime *r, struct tempdir *t, char *artifact,
                     size_t len, char *err, size_t errlen)
{
  struct runtime_package *pkg = &r->package;
  char *argv[LANES_ARGV_MAX] = {NULL}, **env;
  char cwd[LANES_PATH_MAX + 512], cmd[256], why[320];
  struct command_result res;
  int na = 0, ne = 0, rc = -1;

  while (pkg->env != NULL && pkg->env[ne] != NULL)
    ne++;
  env = calloc((size_t)ne + 1, sizeof(*env));
  if (env == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  ne = 0;
  if (tempdir_create(t, err, errlen) != 0) {
    free(env);
    return -1;
  }
  for (; pkg->command.argv[na] != NULL; na++)
    if ((argv[na] = subst(pkg->command.argv[na], t->path)) == NULL)
      goto oom;
  for (; pkg->env != NULL && pkg->env[ne] != NULL; ne++)
    if ((env[ne] = subst(pkg->env[ne], t->path)) == NULL)
      goto oom;
  if (pkg->cwd != NULL)
    snprintf(cwd, sizeof(cwd), "%s/%s", r->dir, pkg->cwd);
  else
    snprintf(cwd, sizeof(cwd), "%s", r->dir);
  join_argv(&pkg->command, cmd, sizeof(cmd));
  if (command_run((const char *const *)argv, cwd, (const char *const *)env,
                  PACKAGE_TIMEOUT_MS, &res, err, errlen) != 0) {
    goto out;
  }
  if (!command_succeeded(&res)) {
    command_describe_failure(&res, why, sizeof(why));
    snprintf(err, errlen, "package command '%s' %s", cmd, why);
  } else {
    rc = package_find_artifact(t->path, pkg->artifact, artifact, len, err,
                               errlen) == 0
             ? 0
             : -1;
  }
  command_result_release(&res);
  goto out;
oom:
  snprintf(err, errlen, "out of memory");
out:
  free_list(argv, na);
  free_list(env, ne);
  free(env);
  return rc;
}

static void pack_runtime(struct runtime *r, struct model_package *out)
{
  struct tempdir first = {{0}}, second = {{0}};
  struct model_package_info again = MODEL_PACKAGE_INFO_INIT;
  char artifact[LANES_PATH_MAX + 256], err[512], rm[256];
  uint64_t start = uv_hrtime();

  memset(out, 0, sizeof(*out));
  out->runtime = r->name;
  out->reproducible = -1;
  if (pack_once(r, &first, artifact, sizeof(artifact), out->error,
                sizeof(out->error)) != 0 ||
      package_measure(artifact, &out->package, out->error,
                      sizeof(out->error)) != 0)
    goto done;
  out->measured = 1;
  /* The same command again, into another folder: the same bytes or not. */
  if (pack_once(r, &second, artifact, sizeof(artifact), err, sizeof(err)) ==
          0 &&
      package_measure(artifact, &again, err, sizeof(err)) == 0) {
    snprintf(out->repack_sha256, sizeof(out->repack_sha256), "%s",
             again.sha256);
    out->reproducible = strcmp(again.sha256, out->package.sha256) == 0;
    model_package_info_release(&again);
  } else {
    /* A package command that fails the second time is as failed as one
     * that fails the first: no figure, the reason instead. */
    model_package_info_release(&out->package);
    out->measured = 0;
    snprintf(out->error, sizeof(out->error), "packing it again: %s", err);
  }
done:
  tempdir_remove(&first, rm, sizeof(rm));
  tempdir_remove(&second, rm, sizeof(rm));
  out->wall_ns = uv_hrtime() - start;
}

int prepare_packages(const struct lane *sel, int n, struct model_package *out,
                     FILE *log)
{
  int count, filled = 0;
  struct runtime **used = used_runtimes(sel, n, &count);

  for (int i = 0; i < count; i++) {
    struct runtime *r = used[i];
    if (!r->available || r->broken || !r->package.present)
      continue;
    if (log != NULL) {
      fprintf(log, "packing runtime '%s'\n", r->name);
      fflush(log);
    }
    pack_runtime(r, &out[filled++]);
  }
  free(used);
  return filled;
}

/* NULL for an absent list, as the evidence writes it. */
static const char *const *argv_or_null(const struct lanes_argv *a)
{
  return a->argv[0] != NULL ? (const char *const *)a->argv : NULL;
}

int prepare_describe_runtimes(const struct lane *sel, int n, const char *root,
                              struct model_runtime *out)
{
  int count;
  struct runtime **used = used_runtimes(sel, n, &count);

  for (int i = 0; i < count; i++) {
    const struct runtime *r = used[i];
    struct model_runtime *m = &out[i];
    m->name = r->name;
    m->declared_at = lanes_relative(root, r->source);
    m->client = argv_or_null(&r->client);
    m->server = argv_or_null(&r->server);
    m->build = argv_or_null(&r->build);
    m->version = argv_or_null(&r->version);
    m->toolchain_version = r->toolchain_version;
    m->pinned = r->pinned;
    m->hidden = r->hidden;
    m->available = r->available;
    m->broken = r->broken;
    m->why_unavailable = r->why_unavailable;
    m->declares_package = r->package.present;
  }
  free(used);
  return count;
}
