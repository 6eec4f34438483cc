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

/* What the version command's run says of r: unavailable with why, or its
 * toolchain version (the first non-empty line of its output, stdout
 * first). */
static void take_version(struct runtime *r, const struct command_spec *spec,
                         struct command_result *res)
{
  char text[512], *line, cmd[256];

  join_argv(&r->version, cmd, sizeof(cmd));
  if (spec->start_rc != 0) {
    r->available = 0;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable),
             "'%s' cannot be run: %s", cmd, spec->error);
    return;
  }
  if (!command_succeeded(res)) {
    char why[320];
    command_describe_failure(res, why, sizeof(why));
    r->available = 0;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable), "'%s' %s", cmd,
             why);
    return;
  }
  capture_text(res->out.total ? &res->out : &res->err, text, sizeof(text));
  line = text + strspn(text, " \t\r\n");
  line[strcspn(line, "\r\n")] = '\0';
  snprintf(r->toolchain_version, sizeof(r->toolchain_version), "%s", line);
}

/* The version commands of the n runtimes, side by side: each only asks
 * its toolchain, and a launcher (pyenv's shims, Maven) can take most of a
 * second. */
static void read_versions(struct runtime **rs, int n)
{
  struct command_spec *specs = calloc((size_t)(n > 0 ? n : 1), sizeof(*specs));
  struct command_result *res = calloc((size_t)(n > 0 ? n : 1), sizeof(*res));
  struct runtime **who = calloc((size_t)(n > 0 ? n : 1), sizeof(*who));
  int k = 0;

  if (specs == NULL || res == NULL || who == NULL) {
    for (int i = 0; i < n; i++) {
      rs[i]->available = 0;
      snprintf(rs[i]->why_unavailable, sizeof(rs[i]->why_unavailable),
               "its version command cannot be run: out of memory");
    }
    goto out;
  }
  for (int i = 0; i < n; i++) {
    if (rs[i]->version.argv[0] == NULL)
      continue;
    specs[k].argv = (const char *const *)rs[i]->version.argv;
    specs[k].cwd = rs[i]->dir;
    specs[k].timeout_ms = VERSION_TIMEOUT_MS;
    who[k++] = rs[i];
  }
  command_run_all(specs, k, res);
  for (int i = 0; i < k; i++) {
    take_version(who[i], &specs[i], &res[i]);
    command_result_release(&res[i]);
  }
out:
  free(specs);
  free(res);
  free(who);
}

/* The matrix file that declared r, from its "FILE:LINE". */
static void declaring_file(const struct runtime *r, char *out, size_t len)
{
  const char *colon = strrchr(r->source, ':');
  size_t n = colon != NULL ? (size_t)(colon - r->source) : strlen(r->source);

  snprintf(out, len, "%.*s", (int)n, r->source);
}

static void build(struct runtime *r, FILE *log)
{
  struct command_result res;
  char err[256], cmd[256], why[320], matrix[LANES_PATH_MAX + 32];
  long lock;
  int rc;

  if (r->build.argv[0] == NULL)
    return;
  join_argv(&r->build, cmd, sizeof(cmd));
  if (log != NULL) {
    fprintf(log, "building runtime '%s': %s\n", r->name, cmd);
    fflush(log);
  }
  /* Two runs in one checkout (make quick runs the lanes and conform side
   * by side) must not build one runtime at once: the second waits, and
   * then finds it built. */
  declaring_file(r, matrix, sizeof(matrix));
  lock = platform_lock(matrix, err, sizeof(err));
  if (lock < 0 && log != NULL) {
    fprintf(log, "building runtime '%s' unlocked: %s\n", r->name, err);
    fflush(log);
  }
  rc = command_run((const char *const *)r->build.argv, r->dir, NULL,
                   BUILD_TIMEOUT_MS, &res, err, sizeof(err));
  platform_unlock(lock);
  if (rc != 0) {
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
  int count, found = 0;
  struct runtime **used = used_runtimes(sel, n, &count);

  for (int i = 0; i < count; i++) {
    struct runtime *r = used[i];
    r->available = 1;
    r->broken = 0;
    r->why_unavailable[0] = '\0';
    r->toolchain_version[0] = '\0';
    if (find_bare(r, &r->version, "version") &&
        find_bare(r, &r->build, "build") &&
        find_bare(r, &r->client, "client") &&
        find_bare(r, &r->server, "server"))
      used[found++] = r;
  }
  read_versions(used, found);
  /* One build at a time: two may share a folder (make's). */
  for (int i = 0; i < found; i++) {
    struct runtime *r = used[i];
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

/* A package command, set up in its own fresh folder (the command's {out})
 * and run side by side with the others (command_run_all). */
struct pack {
  struct runtime *r;
  struct tempdir dir;
  char *argv[LANES_ARGV_MAX];
  char **env;
  int na, ne;
  char cwd[LANES_PATH_MAX + 512];
  char cmd[256];
  int ready; /* set up: spec is valid */
  char error[512];
  struct command_spec spec;
  struct command_result res;
};

/* The packings of each runtime, side by side with those of the others:
 * the packages are measured before any sample, and no command needs
 * another's output. */
#define PACKS_AT_ONCE 12

static void pack_setup(struct pack *p, struct runtime *r)
{
  struct runtime_package *pkg = &r->package;
  int ne = 0;

  p->r = r;
  while (pkg->env != NULL && pkg->env[ne] != NULL)
    ne++;
  p->env = calloc((size_t)ne + 1, sizeof(*p->env));
  if (p->env == NULL) {
    snprintf(p->error, sizeof(p->error), "out of memory");
    return;
  }
  if (tempdir_create(&p->dir, p->error, sizeof(p->error)) != 0)
    return;
  for (; pkg->command.argv[p->na] != NULL; p->na++)
    if ((p->argv[p->na] = subst(pkg->command.argv[p->na], p->dir.path)) == NULL)
      goto oom;
  for (; pkg->env != NULL && pkg->env[p->ne] != NULL; p->ne++)
    if ((p->env[p->ne] = subst(pkg->env[p->ne], p->dir.path)) == NULL)
      goto oom;
  if (pkg->cwd != NULL)
    snprintf(p->cwd, sizeof(p->cwd), "%s/%s", r->dir, pkg->cwd);
  else
    snprintf(p->cwd, sizeof(p->cwd), "%s", r->dir);
  join_argv(&pkg->command, p->cmd, sizeof(p->cmd));
  p->spec.argv = (const char *const *)p->argv;
  p->spec.cwd = p->cwd;
  p->spec.env = (const char *const *)p->env;
  p->spec.timeout_ms = PACKAGE_TIMEOUT_MS;
  p->ready = 1;
  return;
oom:
  snprintf(p->error, sizeof(p->error), "out of memory");
}

/* After the command ran: the artifact's path in artifact, or -1 with why
 * in p->error. */
static int pack_artifact(struct pack *p, char *artifact, size_t len)
{
  char why[320];

  if (!p->ready)
    return -1;
  if (p->spec.start_rc != 0) {
    snprintf(p->error, sizeof(p->error), "%s", p->spec.error);
    return -1;
  }
  if (!command_succeeded(&p->res)) {
    command_describe_failure(&p->res, why, sizeof(why));
    snprintf(p->error, sizeof(p->error), "package command '%s' %s", p->cmd,
             why);
    return -1;
  }
  return package_find_artifact(p->dir.path, p->r->package.artifact, artifact,
                               len, p->error, sizeof(p->error)) == 0
             ? 0
             : -1;
}

static void pack_release(struct pack *p)
{
  char rm[256];

  if (p->ready)
    command_result_release(&p->res);
  free_list(p->argv, p->na);
  free_list(p->env, p->ne);
  free(p->env);
  tempdir_remove(&p->dir, rm, sizeof(rm));
}

/* The runtime's package from its two packings: measured from the first,
 * and reproducible when the second gave the same bytes. */
static void pack_measure(struct pack *first, struct pack *second,
                         struct model_package *out)
{
  struct model_package_info again = MODEL_PACKAGE_INFO_INIT;
  char artifact[LANES_PATH_MAX + 256];

  memset(out, 0, sizeof(*out));
  out->runtime = first->r->name;
  out->reproducible = -1;
  out->wall_ns = first->res.wall_ns;
  if (pack_artifact(first, artifact, sizeof(artifact)) != 0) {
    snprintf(out->error, sizeof(out->error), "%s", first->error);
    return;
  }
  if (package_measure(artifact, &out->package, out->error,
                      sizeof(out->error)) != 0)
    return;
  out->measured = 1;
  if (second == NULL)
    return; /* packed once: whether it is reproducible is not known */
  /* The same command again, into another folder: the same bytes or not. */
  if (pack_artifact(second, artifact, sizeof(artifact)) == 0 &&
      package_measure(artifact, &again, second->error, sizeof(second->error)) ==
          0) {
    snprintf(out->repack_sha256, sizeof(out->repack_sha256), "%s",
             again.sha256);
    out->reproducible = strcmp(again.sha256, out->package.sha256) == 0;
    model_package_info_release(&again);
  } else {
    /* A package command that fails the second time is as failed as one
     * that fails the first: no figure, the reason instead. */
    model_package_info_release(&out->package);
    out->measured = 0;
    snprintf(out->error, sizeof(out->error), "packing it again: %s",
             second->error);
  }
}

/* Packs count runtimes of used (once or twice each, all side by side)
 * into out. */
static void pack_batch(struct runtime **used, int count, int twice,
                       struct model_package *out)
{
  int per = twice ? 2 : 1;
  struct pack *packs = calloc((size_t)(per * count), sizeof(*packs));
  struct command_spec specs[PACKS_AT_ONCE];
  struct command_result results[PACKS_AT_ONCE];
  int map[PACKS_AT_ONCE], n = 0;

  if (packs == NULL) {
    for (int i = 0; i < count; i++) {
      memset(&out[i], 0, sizeof(out[i]));
      out[i].runtime = used[i]->name;
      out[i].reproducible = -1;
      snprintf(out[i].error, sizeof(out[i].error), "out of memory");
    }
    return;
  }
  for (int i = 0; i < per * count; i++) {
    pack_setup(&packs[i], used[i / per]);
    if (packs[i].ready) {
      specs[n] = packs[i].spec;
      map[n++] = i;
    }
  }
  command_run_all(specs, n, results);
  for (int k = 0; k < n; k++) {
    packs[map[k]].spec = specs[k];
    packs[map[k]].res = results[k];
  }
  for (int i = 0; i < count; i++)
    pack_measure(&packs[per * i], twice ? &packs[per * i + 1] : NULL, &out[i]);
  for (int i = 0; i < per * count; i++)
    pack_release(&packs[i]);
  free(packs);
}

int prepare_packages(const struct lane *sel, int n, int twice,
                     struct model_package *out, FILE *log)
{
  int count, filled = 0, batch = 0;
  struct runtime **used = used_runtimes(sel, n, &count);
  struct runtime *todo[PACKS_AT_ONCE / 2];

  for (int i = 0; i <= count; i++) {
    struct runtime *r = i < count ? used[i] : NULL;
    if (r != NULL && (!r->available || r->broken || !r->package.present))
      continue;
    if (r != NULL)
      todo[batch++] = r;
    if (batch == 0 || (r != NULL && batch < PACKS_AT_ONCE / 2))
      continue;
    if (log != NULL) {
      fprintf(log, "packing runtime%s", batch > 1 ? "s" : "");
      for (int k = 0; k < batch; k++)
        fprintf(log, "%s'%s'", k ? ", " : " ", todo[k]->name);
      fprintf(log, twice ? " (twice each, side by side)\n"
                         : " (once each, side by side)\n");
      fflush(log);
    }
    pack_batch(todo, batch, twice, &out[filled]);
    filled += batch;
    batch = 0;
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
