#include "runner/lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static char *join(const char *dir, const char *rest)
{
  size_t n = strlen(dir) + strlen(rest) + 2;
  char *s = malloc(n);
  if (s != NULL)
    snprintf(s, n, "%s/%s", dir, rest);
  return s;
}

static int file_exists(const char *path)
{
  uv_fs_t req;
  int rc = uv_fs_stat(NULL, &req, path, NULL);
  uv_fs_req_cleanup(&req);
  return rc == 0;
}

static int add_runtime(struct lanes *l, const char *name, const char *bin_dir,
                       const char *client, const char *client_arg,
                       const char *server, const char *server_arg,
                       int hidden)
{
  struct runtime *r = &l->runtimes[l->nruntimes];

  memset(r, 0, sizeof(*r));
  snprintf(r->name, sizeof(r->name), "%s", name);
  r->hidden = hidden;
  r->client_argv[0] = join(bin_dir, client);
  r->server_argv[0] = join(bin_dir, server);
  if (client_arg)
    r->client_argv[1] = strdup(client_arg);
  if (server_arg)
    r->server_argv[1] = strdup(server_arg);
  l->nruntimes++;
  if (r->client_argv[0] == NULL || r->server_argv[0] == NULL ||
      (client_arg && r->client_argv[1] == NULL) ||
      (server_arg && r->server_argv[1] == NULL))
    return -1;
  r->available = 1;
  if (!file_exists(r->client_argv[0]) || !file_exists(r->server_argv[0])) {
    r->available = 0;
    snprintf(r->why_unavailable, sizeof(r->why_unavailable),
             "'%s' or '%s' not built (run make)",
             lanes_display_path(l, r->client_argv[0]),
             lanes_display_path(l, r->server_argv[0]));
  }
  return 0;
}

int lanes_builtin(struct lanes *l, const char *bin_dir, char *err,
                  size_t errlen)
{
  const char *slash;

  memset(l, 0, sizeof(*l));
  slash = strrchr(bin_dir, '/');
  if (slash != NULL)
    snprintf(l->root, sizeof(l->root), "%.*s", (int)(slash - bin_dir),
             bin_dir);
  if (add_runtime(l, "c", bin_dir, "lanes/c/client", NULL, "lanes/c/server",
                  NULL, 0) != 0 ||
      add_runtime(l, "baseline", bin_dir, "bench/baseline", "client",
                  "bench/baseline", "server", 1) != 0) {
    snprintf(err, errlen, "out of memory");
    lanes_release(l);
    return -1;
  }
  return 0;
}

void lanes_release(struct lanes *l)
{
  for (int i = 0; i < l->nruntimes; i++) {
    for (int j = 0; j < LANES_ARGV_MAX; j++) {
      free(l->runtimes[i].client_argv[j]);
      free(l->runtimes[i].server_argv[j]);
      l->runtimes[i].client_argv[j] = l->runtimes[i].server_argv[j] = NULL;
    }
  }
  l->nruntimes = 0;
}

int lanes_glob(const char *p, const char *s)
{
  const char *star = NULL, *resume = NULL;

  while (*s != '\0') {
    if (*p == '*') {
      star = p++;
      resume = s;
    } else if (*p == '?' || *p == *s) {
      p++;
      s++;
    } else if (star != NULL) {
      p = star + 1;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*p == '*')
    p++;
  return *p == '\0';
}

static int already(const struct lane *out, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(out[i].name, name) == 0)
      return 1;
  return 0;
}

int lanes_select(const struct lanes *l, const char *spec, struct lane *out,
                 int max, char *err, size_t errlen)
{
  char item[128];
  const char *p = spec;
  int n = 0;

  if (spec == NULL || *spec == '\0')
    p = NULL;
  do {
    size_t len = 0;
    int matched = 0;

    if (p != NULL) {
      len = strcspn(p, ",");
      if (len == 0 || len >= sizeof(item)) {
        snprintf(err, errlen, "--lanes: empty or overlong entry in '%s'",
                 spec);
        return -1;
      }
      snprintf(item, sizeof(item), "%.*s", (int)len, p);
    }
    for (int c = 0; c < l->nruntimes; c++) {
      for (int s = 0; s < l->nruntimes; s++) {
        const struct runtime *rc = &l->runtimes[c], *rs = &l->runtimes[s];
        char name[sizeof(out[0].name)];

        snprintf(name, sizeof(name), "%s-%s", rc->name, rs->name);
        if (p == NULL ? (rc->hidden || rs->hidden) : !lanes_glob(item, name))
          continue;
        /* A pattern does not reach hidden runtimes; only their name does. */
        if (p != NULL && (rc->hidden || rs->hidden) &&
            strcmp(item, name) != 0)
          continue;
        matched = 1;
        if (already(out, n, name))
          continue;
        if (n >= max) {
          snprintf(err, errlen, "--lanes: more than %d lanes", max);
          return -1;
        }
        snprintf(out[n].name, sizeof(out[n].name), "%s", name);
        out[n].client = rc;
        out[n].server = rs;
        n++;
      }
    }
    if (p != NULL && !matched) {
      snprintf(err, errlen, "--lanes: no lane matches '%s' (runtimes:", item);
      for (int i = 0; i < l->nruntimes; i++) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " %s", l->runtimes[i].name);
      }
      size_t used = strlen(err);
      snprintf(err + used, errlen - used, ")");
      return -1;
    }
    if (p != NULL)
      p = p[len] == ',' ? p + len + 1 : NULL;
  } while (p != NULL);
  return n;
}

const char *lanes_display_path(const struct lanes *l, const char *path)
{
  size_t n = strlen(l->root);
  if (n > 0 && strncmp(path, l->root, n) == 0 && path[n] == '/')
    return path + n + 1;
  return path;
}
