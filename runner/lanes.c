#include "runner/lanes.h"

#include "runner/glob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void argv_release(struct lanes_argv *a)
{
  for (int i = 0; i < LANES_ARGV_MAX; i++) {
    free(a->argv[i]);
    a->argv[i] = NULL;
  }
}

void lanes_runtime_release(struct runtime *r)
{
  argv_release(&r->client);
  argv_release(&r->server);
  argv_release(&r->build);
  argv_release(&r->version);
  argv_release(&r->package.command);
  free(r->package.cwd);
  free(r->package.artifact);
  for (int i = 0; r->package.env != NULL && r->package.env[i] != NULL; i++)
    free(r->package.env[i]);
  free(r->package.env);
  memset(&r->package, 0, sizeof(r->package));
}

void lanes_release(struct lanes *l)
{
  for (int i = 0; i < l->nruntimes; i++)
    lanes_runtime_release(&l->runtimes[i]);
  free(l->runtimes);
  free(l->workloads);
  l->runtimes = NULL;
  l->workloads = NULL;
  l->nruntimes = l->runtimes_cap = 0;
  l->nworkloads = l->workloads_cap = 0;
}

/* Grows *array (of *cap items of size bytes) to hold need, doubling. */
static int grow(void **array, int *cap, int need, size_t size)
{
  int n = *cap > 0 ? *cap : 4;
  void *p;

  if (need <= *cap)
    return 0;
  while (n < need)
    n *= 2;
  p = realloc(*array, (size_t)n * size);
  if (p == NULL)
    return -1;
  memset((char *)p + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
  *array = p;
  *cap = n;
  return 0;
}

int lanes_reserve(struct lanes *l, int runtimes, int workloads)
{
  if (grow((void **)&l->runtimes, &l->runtimes_cap, runtimes,
           sizeof(*l->runtimes)) != 0)
    return -1;
  return grow((void **)&l->workloads, &l->workloads_cap, workloads,
              sizeof(*l->workloads));
}

int lanes_capacity(const struct lanes *l)
{
  return l->nruntimes > 0 ? l->nruntimes * l->nruntimes * LANES_NTRANSPORTS : 1;
}

const char *lanes_transport_name(int transport)
{
  switch (transport) {
  case LANES_TCP:
    return "tcp";
  case LANES_TLS:
    return "tls";
  default:
    return "unknown";
  }
}

int lanes_transports_parse(const char *list, unsigned *set, char *err,
                           size_t errlen)
{
  const char *p = list;

  *set = 0;
  while (p != NULL) {
    size_t len = strcspn(p, ",");
    int found = -1;
    for (int t = 0; t < LANES_NTRANSPORTS; t++)
      if (strlen(lanes_transport_name(t)) == len &&
          strncmp(p, lanes_transport_name(t), len) == 0)
        found = t;
    if (found < 0) {
      snprintf(err, errlen, "unknown transport '%.*s' (expected tcp or tls)",
               (int)(len < 40 ? len : 40), p);
      return -1;
    }
    *set |= LANES_TRANSPORT_BIT(found);
    p = p[len] == ',' ? p + len + 1 : NULL;
  }
  return 0;
}

unsigned lanes_run_transports(const struct lanes *l, unsigned given)
{
  if (given != 0)
    return given;
  return l->transports != 0 ? l->transports : LANES_TRANSPORT_BIT(LANES_TCP);
}

int lanes_transport_supported(const struct lane *ln, char *why, size_t whylen)
{
  const struct runtime *rt[2] = {ln->client, ln->server};
  for (int k = 0; k < 2; k++) {
    unsigned set = rt[k]->transports;
    if (set != 0 && !(set & LANES_TRANSPORT_BIT(ln->transport))) {
      snprintf(why, whylen,
               "runtime '%s' declares transports [%s%s%s] in the matrix: "
               "not started over %s",
               rt[k]->name, set & LANES_TRANSPORT_BIT(LANES_TCP) ? "tcp" : "",
               set == LANES_TRANSPORTS_ALL ? ", " : "",
               set & LANES_TRANSPORT_BIT(LANES_TLS) ? "tls" : "",
               lanes_transport_name(ln->transport));
      return 0;
    }
  }
  return 1;
}

struct runtime *lanes_find_runtime(struct lanes *l, const char *name)
{
  for (int i = 0; i < l->nruntimes; i++)
    if (strcmp(l->runtimes[i].name, name) == 0)
      return &l->runtimes[i];
  return NULL;
}

const struct workload *lanes_find_workload(const struct lanes *l,
                                           const char *name)
{
  for (int i = 0; i < l->nworkloads; i++)
    if (strcmp(l->workloads[i].name, name) == 0)
      return &l->workloads[i];
  return NULL;
}

static int already(const struct lane *out, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(out[i].name, name) == 0)
      return 1;
  return 0;
}

/* A lane's name: "client-server", "+tls" after it over tls. */
static void lane_name(char *out, size_t len, const struct runtime *c,
                      const struct runtime *s, int transport)
{
  snprintf(out, len, "%s-%s%s", c->name, s->name,
           transport == LANES_TCP ? "" : "+tls");
}

int lanes_select(struct lanes *l, const char *spec, struct lane *out, int max,
                 char *err, size_t errlen)
{
  return lanes_select_over(l, spec, LANES_TRANSPORT_BIT(LANES_TCP), out, max,
                           err, errlen);
}

int lanes_select_over(struct lanes *l, const char *spec, unsigned transports,
                      struct lane *out, int max, char *err, size_t errlen)
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
        snprintf(err, errlen, "--lanes: empty or overlong entry in '%s'", spec);
        return -1;
      }
      snprintf(item, sizeof(item), "%.*s", (int)len, p);
    }
    for (int c = 0; c < l->nruntimes; c++) {
      for (int k = 0; k < l->nruntimes * LANES_NTRANSPORTS; k++) {
        /* Each server over tcp, then over tls: "c-c", "c-c+tls", "c-node". */
        int s = k / LANES_NTRANSPORTS, t = k % LANES_NTRANSPORTS;
        struct runtime *rc = &l->runtimes[c], *rs = &l->runtimes[s];
        char name[sizeof(out[0].name)];

        if (!(transports & LANES_TRANSPORT_BIT(t)))
          continue;
        lane_name(name, sizeof(name), rc, rs, t);
        if (p == NULL ? (rc->hidden || rs->hidden) : !glob_match(item, name))
          continue;
        /* A pattern does not reach hidden runtimes; only their name does. */
        if (p != NULL && (rc->hidden || rs->hidden) && strcmp(item, name) != 0)
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
        out[n].transport = t;
        n++;
      }
    }
    if (p != NULL && !matched) {
      snprintf(err, errlen,
               "--lanes: no lane matches '%s' over %s%s%s (runtimes:", item,
               transports & LANES_TRANSPORT_BIT(LANES_TCP) ? "tcp" : "",
               transports == LANES_TRANSPORTS_ALL ? "," : "",
               transports & LANES_TRANSPORT_BIT(LANES_TLS) ? "tls" : "");
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

const char *lanes_relative(const char *root, const char *path)
{
  size_t n = strlen(root);
  if (n > 0 && strncmp(path, root, n) == 0 && path[n] == '/')
    return path + n + 1;
  return path;
}

const char *lanes_display_path(const struct lanes *l, const char *path)
{
  return lanes_relative(l->root, path);
}
