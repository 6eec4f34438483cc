#include "runner/matrix.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include <yaml.h>

#include "evidence/base/utf8.h"

struct loader {
  const char *path; /* as the user named it, for messages */
  yaml_document_t doc;
  char dir[LANES_PATH_MAX];
  char *err;
  size_t errlen;
};

static int fail_at(struct loader *ld, const yaml_node_t *n, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));
static int fail_at(struct loader *ld, const yaml_node_t *n, const char *fmt,
                   ...)
{
  va_list ap;
  int used = snprintf(ld->err, ld->errlen, "%s:%zu:%zu: ", ld->path,
                      n ? n->start_mark.line + 1 : 1,
                      n ? n->start_mark.column + 1 : 1);
  if (used > 0 && (size_t)used < ld->errlen) {
    va_start(ap, fmt);
    vsnprintf(ld->err + used, ld->errlen - (size_t)used, fmt, ap);
    va_end(ap);
  }
  /* A quoted key may hold a newline: the error stays one line. */
  for (char *p = ld->err; ld->errlen > 0 && *p != '\0'; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
  return -1;
}

static yaml_node_t *node(struct loader *ld, int id)
{
  return yaml_document_get_node(&ld->doc, id);
}

static const char *kind(const yaml_node_t *n)
{
  switch (n->type) {
  case YAML_SCALAR_NODE:
    return "a scalar";
  case YAML_SEQUENCE_NODE:
    return "a list";
  case YAML_MAPPING_NODE:
    return "a mapping";
  default:
    return "nothing";
  }
}

/* The scalar's text, or NULL when n is not a scalar or holds a NUL. */
static const char *scalar(const yaml_node_t *n)
{
  if (n == NULL || n->type != YAML_SCALAR_NODE ||
      memchr(n->data.scalar.value, '\0', n->data.scalar.length) != NULL)
    return NULL;
  return (const char *)n->data.scalar.value;
}

static size_t edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];
  if (la >= 63 || lb >= 63)
    return 99;
  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, sizeof(prev));
  }
  return prev[lb];
}

/* "unknown key 'sever' in X (did you mean 'server'? expected: a, b)" */
static int unknown_key(struct loader *ld, const yaml_node_t *key,
                       const char *where, const char *const *known)
{
  const char *name = scalar(key), *best = NULL;
  char list[256] = "";
  size_t best_d = 3;

  for (int i = 0; known[i] != NULL; i++) {
    size_t d = name ? edit_distance(name, known[i]) : 99;
    if (d < best_d) {
      best_d = d;
      best = known[i];
    }
    snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
             i ? ", " : "", known[i]);
  }
  if (name == NULL)
    return fail_at(ld, key, "expected a key name in %s, found %s", where,
                   kind(key));
  if (best != NULL)
    return fail_at(ld, key, "unknown key '%s' in %s (did you mean '%s'?)", name,
                   where, best);
  return fail_at(ld, key, "unknown key '%s' in %s (expected one of: %s)", name,
                 where, list);
}

static int key_index(const yaml_node_t *key, const char *const *known)
{
  const char *name = scalar(key);
  for (int i = 0; name && known[i] != NULL; i++)
    if (strcmp(name, known[i]) == 0)
      return i;
  return -1;
}

/* Rejects a key given twice in one mapping (libyaml keeps both). */
static int check_duplicates(struct loader *ld, const yaml_node_t *map,
                            const char *what)
{
  yaml_node_pair_t *start = map->data.mapping.pairs.start;
  yaml_node_pair_t *top = map->data.mapping.pairs.top;

  for (yaml_node_pair_t *p = start; p < top; p++) {
    const char *a = scalar(node(ld, p->key));
    for (yaml_node_pair_t *q = start; a && q < p; q++) {
      const char *b = scalar(node(ld, q->key));
      if (b && strcmp(a, b) == 0)
        return fail_at(ld, node(ld, p->key),
                       "duplicate %s '%s' (first at line %zu)", what, a,
                       node(ld, q->key)->start_mark.line + 1);
    }
  }
  return 0;
}

static int expect_mapping(struct loader *ld, const yaml_node_t *n,
                          const char *what)
{
  if (n->type != YAML_MAPPING_NODE)
    return fail_at(ld, n, "expected %s as a mapping, found %s", what, kind(n));
  return 0;
}

static int load_argv(struct loader *ld, const yaml_node_t *n,
                     struct lanes_argv *out, const char *what)
{
  int count = 0;

  if (n->type != YAML_SEQUENCE_NODE)
    return fail_at(ld, n,
                   "expected %s as a list of strings "
                   "(argv, run without a shell), found %s",
                   what, kind(n));
  for (yaml_node_item_t *it = n->data.sequence.items.start;
       it < n->data.sequence.items.top; it++) {
    const yaml_node_t *item = node(ld, *it);
    const char *text = scalar(item);
    if (text == NULL)
      return fail_at(ld, item, "expected a string in %s, found %s", what,
                     kind(item));
    if (count == 0 && *text == '\0')
      return fail_at(ld, item, "%s: the program name is empty", what);
    if (count >= LANES_ARGV_MAX - 1)
      return fail_at(ld, item, "%s has more than %d arguments", what,
                     LANES_ARGV_MAX - 1);
    out->argv[count] = strdup(text);
    if (out->argv[count++] == NULL)
      return fail_at(ld, item, "out of memory");
  }
  if (count == 0)
    return fail_at(ld, n, "%s is an empty list: it needs at least a program",
                   what);
  return 0;
}

static int load_bool(struct loader *ld, const yaml_node_t *n, int *out,
                     const char *what)
{
  const char *t = scalar(n);
  if (t && (!strcmp(t, "true") || !strcmp(t, "yes") || !strcmp(t, "on")))
    *out = 1;
  else if (t && (!strcmp(t, "false") || !strcmp(t, "no") || !strcmp(t, "off")))
    *out = 0;
  else
    return fail_at(ld, n, "expected true or false for %s", what);
  return 0;
}

static int load_string(struct loader *ld, const yaml_node_t *n, char **out,
                       const char *what)
{
  const char *t = scalar(n);
  if (t == NULL || *t == '\0')
    return fail_at(ld, n, "expected a non-empty string for %s, found %s", what,
                   t ? "an empty one" : kind(n));
  *out = strdup(t);
  return *out ? 0 : fail_at(ld, n, "out of memory");
}

static int load_package(struct loader *ld, const yaml_node_t *n,
                        struct runtime_package *pkg, const char *rt)
{
  static const char *const keys[] = {"command", "artifact", "cwd", "env", NULL};
  char where[96];
  int have[4] = {0, 0, 0, 0};

  snprintf(where, sizeof(where), "the package of runtime '%s'", rt);
  if (expect_mapping(ld, n, where) || check_duplicates(ld, n, "key"))
    return -1;
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
       p < n->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = node(ld, p->key), *v = node(ld, p->value);
    int i = key_index(k, keys), rc = 0;
    if (i < 0)
      return unknown_key(ld, k, where, keys);
    have[i] = 1;
    if (i == 0)
      rc = load_argv(ld, v, &pkg->command, "package 'command'");
    else if (i == 1)
      rc = load_string(ld, v, &pkg->artifact, "package 'artifact'");
    else if (i == 2)
      rc = load_string(ld, v, &pkg->cwd, "package 'cwd'");
    else {
      int e = 0;
      size_t pairs;

      if (expect_mapping(ld, v, "package 'env'"))
        return -1;
      pairs = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
      if (pairs > LANES_ENV_MAX)
        return fail_at(ld, v, "package 'env' has more than %d variables",
                       LANES_ENV_MAX);
      free(pkg->env);
      pkg->env = calloc(pairs + 1, sizeof(*pkg->env));
      if (pkg->env == NULL)
        return fail_at(ld, v, "out of memory");
      for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
           q < v->data.mapping.pairs.top; q++) {
        const char *name = scalar(node(ld, q->key));
        const char *value = scalar(node(ld, q->value));
        size_t len;
        if (name == NULL || *name == '\0' || strchr(name, '=') != NULL)
          return fail_at(ld, node(ld, q->key),
                         "expected a variable name in package 'env'");
        if (value == NULL)
          return fail_at(ld, node(ld, q->value),
                         "expected a string value for '%s'", name);
        len = strlen(name) + strlen(value) + 2;
        pkg->env[e] = malloc(len);
        if (pkg->env[e] == NULL)
          return fail_at(ld, node(ld, q->key), "out of memory");
        snprintf(pkg->env[e++], len, "%s=%s", name, value);
      }
    }
    if (rc != 0)
      return -1;
  }
  if (!have[0] || !have[1])
    return fail_at(ld, n, "%s needs '%s'", where,
                   !have[0] ? "command" : "artifact");
  pkg->present = 1;
  return 0;
}

/* A list of transports ("[tcp, tls]") into a set of LANES_TRANSPORT_BIT
 * bits: at least one, each once. */
static int load_transports(struct loader *ld, const yaml_node_t *n,
                           unsigned *set, const char *what)
{
  *set = 0;
  if (n->type != YAML_SEQUENCE_NODE)
    return fail_at(ld, n,
                   "expected %s as a list of transports (tcp, tls), "
                   "found %s",
                   what, kind(n));
  for (yaml_node_item_t *it = n->data.sequence.items.start;
       it < n->data.sequence.items.top; it++) {
    const yaml_node_t *item = node(ld, *it);
    const char *text = scalar(item);
    unsigned one;
    char err[96];
    if (text == NULL ||
        lanes_transports_parse(text, &one, err, sizeof(err)) != 0 ||
        strchr(text, ',') != NULL)
      return fail_at(ld, item, "expected tcp or tls in %s, found %s%s%s", what,
                     text ? "'" : "", text ? text : kind(item),
                     text ? "'" : "");
    if (*set & one)
      return fail_at(ld, item, "%s names '%s' twice", what, text);
    *set |= one;
  }
  if (*set == 0)
    return fail_at(ld, n, "%s is an empty list: name tcp, tls or both", what);
  return 0;
}

static int valid_name(const char *name)
{
  size_t n = strlen(name);
  if (n == 0 || n >= LANES_NAME_MAX)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((name[i] >= 'a' && name[i] <= 'z') ||
          (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
      return 0;
  return 1;
}

static int load_runtime(struct loader *ld, const yaml_node_t *k,
                        const yaml_node_t *v, struct runtime *r)
{
  static const char *const keys[] = {
      "client", "server", "build",    "version",    "package",
      "hidden", "pinned", "optional", "transports", NULL};
  const char *name = scalar(k);
  char where[64];
  int have[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};

  if (name == NULL || !valid_name(name))
    return fail_at(ld, k,
                   "expected a runtime name of lowercase letters, "
                   "digits and '_' (at most %d; '-' separates client "
                   "and server in lane names)",
                   LANES_NAME_MAX - 1);
  memset(r, 0, sizeof(*r));
  snprintf(r->name, sizeof(r->name), "%s", name);
  snprintf(r->dir, sizeof(r->dir), "%s", ld->dir);
  snprintf(r->source, sizeof(r->source), "%s:%zu", ld->path,
           k->start_mark.line + 1);
  snprintf(where, sizeof(where), "runtime '%s'", name);
  if (expect_mapping(ld, v, where) || check_duplicates(ld, v, "key"))
    return -1;
  for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
       p < v->data.mapping.pairs.top; p++) {
    const yaml_node_t *pk = node(ld, p->key), *pv = node(ld, p->value);
    int i = key_index(pk, keys), rc;
    if (i < 0)
      return unknown_key(ld, pk, where, keys);
    have[i] = 1;
    switch (i) {
    case 0:
      rc = load_argv(ld, pv, &r->client, "'client'");
      break;
    case 1:
      rc = load_argv(ld, pv, &r->server, "'server'");
      break;
    case 2:
      rc = load_argv(ld, pv, &r->build, "'build'");
      break;
    case 3:
      rc = load_argv(ld, pv, &r->version, "'version'");
      break;
    case 4:
      rc = load_package(ld, pv, &r->package, name);
      break;
    case 5:
      rc = load_bool(ld, pv, &r->hidden, "'hidden'");
      break;
    case 6:
      rc = load_bool(ld, pv, &r->pinned, "'pinned'");
      break;
    case 7:
      rc = load_bool(ld, pv, &r->optional, "'optional'");
      break;
    default:
      rc = load_transports(ld, pv, &r->transports, "'transports'");
    }
    if (rc != 0)
      return -1;
  }
  if (!have[0] || !have[1])
    return fail_at(ld, k, "runtime '%s' needs a '%s' command", name,
                   !have[0] ? "client" : "server");
  return 0;
}

static int load_number(struct loader *ld, const yaml_node_t *n,
                       const char *what, uint64_t min, uint64_t max,
                       uint64_t *out)
{
  const char *t = scalar(n);
  uint64_t v = 0;
  int digits = 0;

  if (t == NULL || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
    goto bad;
  for (const char *c = t; *c; c++) {
    if (*c == '_' && digits > 0)
      continue;
    if (*c < '0' || *c > '9' || v > (UINT64_MAX - 9) / 10)
      goto bad;
    v = v * 10 + (uint64_t)(*c - '0');
    digits++;
  }
  if (digits == 0 || v < min || v > max)
    goto bad;
  *out = v;
  return 0;
bad:
  return fail_at(ld, n, "expected %s as a whole number from %llu to %llu", what,
                 (unsigned long long)min, (unsigned long long)max);
}

static int load_workload(struct loader *ld, const yaml_node_t *k,
                         const yaml_node_t *v, struct workload *w)
{
  static const char *const keys[] = {"warmup",        "round_trips",
                                     "payload_bytes", "max_in_flight",
                                     "samples",       NULL};
  static const uint64_t min[] = {0, 1, 0, 1, 1};
  static const uint64_t max[] = {UINT64_C(1) << 40, UINT64_C(1) << 40,
                                 PROTO_MAX_PAYLOAD_BYTES, PROTO_MAX_IN_FLIGHT,
                                 1000};
  const char *name = scalar(k);
  uint64_t value[5];
  int have[5] = {0, 0, 0, 0, 0};
  char where[64];

  if (name == NULL || !valid_name(name))
    return fail_at(ld, k,
                   "expected a workload name of lowercase letters, "
                   "digits and '_'");
  snprintf(where, sizeof(where), "workload '%s'", name);
  if (expect_mapping(ld, v, where) || check_duplicates(ld, v, "key"))
    return -1;
  for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
       p < v->data.mapping.pairs.top; p++) {
    const yaml_node_t *pk = node(ld, p->key);
    int i = key_index(pk, keys);
    char what[64];
    if (i < 0)
      return unknown_key(ld, pk, where, keys);
    snprintf(what, sizeof(what), "'%s'", keys[i]);
    if (load_number(ld, node(ld, p->value), what, min[i], max[i], &value[i]) !=
        0)
      return -1;
    have[i] = 1;
  }
  for (int i = 0; i < 5; i++)
    if (!have[i])
      return fail_at(ld, k, "%s needs '%s'", where, keys[i]);
  memset(w, 0, sizeof(*w));
  snprintf(w->name, sizeof(w->name), "%s", name);
  w->w.warmup = value[0];
  w->w.round_trips = value[1];
  w->w.payload_bytes = (uint32_t)value[2];
  w->w.max_in_flight = (uint32_t)value[3];
  w->samples = (int)value[4];
  return 0;
}

static int load_document(struct loader *ld, struct lanes *into)
{
  static const char *const keys[] = {"runtimes", "workloads", "transports",
                                     NULL};
  yaml_node_t *root = yaml_document_get_root_node(&ld->doc);

  if (root == NULL)
    return fail_at(ld, NULL,
                   "the file is empty; expected a mapping with "
                   "'runtimes' and 'workloads'");
  if (root->type != YAML_MAPPING_NODE)
    return fail_at(ld, root,
                   "expected a mapping with 'runtimes' and "
                   "'workloads', found %s",
                   kind(root));
  if (check_duplicates(ld, root, "key"))
    return -1;
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
       p < root->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = node(ld, p->key), *v = node(ld, p->value);
    int section = key_index(k, keys);
    if (section < 0)
      return unknown_key(ld, k, "the matrix file", keys);
    if (section == 2) {
      /* A later file's list replaces an earlier one's, as its runtimes
       * replace theirs. */
      if (load_transports(ld, v, &into->transports, "'transports'"))
        return -1;
      continue;
    }
    if (expect_mapping(ld, v, section ? "'workloads'" : "'runtimes'") ||
        check_duplicates(ld, v, section ? "workload" : "runtime"))
      return -1;
    for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
         q < v->data.mapping.pairs.top; q++) {
      const yaml_node_t *qk = node(ld, q->key), *qv = node(ld, q->value);
      if (section == 0) {
        if (into->nruntimes >= LANES_MAX_RUNTIMES)
          return fail_at(ld, qk, "more than %d runtimes", LANES_MAX_RUNTIMES);
        if (lanes_reserve(into, into->nruntimes + 1, into->nworkloads) != 0)
          return fail_at(ld, qk, "out of memory");
        if (load_runtime(ld, qk, qv, &into->runtimes[into->nruntimes++]))
          return -1;
      } else {
        if (into->nworkloads >= LANES_MAX_WORKLOADS)
          return fail_at(ld, qk, "more than %d workloads", LANES_MAX_WORKLOADS);
        if (lanes_reserve(into, into->nruntimes, into->nworkloads + 1) != 0)
          return fail_at(ld, qk, "out of memory");
        if (load_workload(ld, qk, qv, &into->workloads[into->nworkloads++]))
          return -1;
      }
    }
  }
  return 0;
}

/* The file's text, read and checked as every input is (bounded, UTF-8, no
 * NUL byte) before libyaml sees it. */
static int read_file(const char *path, struct dynbuf *text, char *err,
                     size_t errlen)
{
  char why[256];
  int rc = json_read_text_file(path, JSON_READ_MATRIX_MAX_BYTES, text, why,
                               sizeof(why));

  if (rc == 0)
    return 0;
  if (rc == JSON_READ_ETEXT)
    snprintf(err, errlen, "%s:%s; not a matrix file", path, why);
  else
    snprintf(err, errlen, "%s: %s", path, why);
  dynbuf_release(text);
  return -1;
}

static int file_folder(const char *path, char *dir, size_t dirlen, char *err,
                       size_t errlen)
{
  uv_fs_t req;
  const char *slash;
  int rc = uv_fs_realpath(NULL, &req, path, NULL);

  if (rc != 0) {
    snprintf(err, errlen, "%s: cannot resolve: %s", path, uv_strerror(rc));
    uv_fs_req_cleanup(&req);
    return -1;
  }
  slash = strrchr((const char *)req.ptr, '/');
  if (slash == NULL)
    slash = strrchr((const char *)req.ptr, '\\');
  snprintf(dir, dirlen, "%.*s",
           slash ? (int)(slash - (const char *)req.ptr) : 1,
           slash ? (const char *)req.ptr : ".");
  uv_fs_req_cleanup(&req);
  return 0;
}

static void merge(struct lanes *l, struct lanes *add)
{
  for (int i = 0; i < add->nruntimes; i++) {
    struct runtime *old = lanes_find_runtime(l, add->runtimes[i].name);
    if (old != NULL)
      lanes_runtime_release(old);
    else
      old = &l->runtimes[l->nruntimes++];
    *old = add->runtimes[i];
  }
  add->nruntimes = 0; /* the strings now belong to l */
  if (add->transports != 0)
    l->transports = add->transports;
  for (int i = 0; i < add->nworkloads; i++) {
    const struct workload *w = lanes_find_workload(l, add->workloads[i].name);
    if (w != NULL)
      *(struct workload *)w = add->workloads[i];
    else
      l->workloads[l->nworkloads++] = add->workloads[i];
  }
}

int matrix_load(struct lanes *l, const char *path, char *err, size_t errlen)
{
  struct loader ld;
  yaml_parser_t parser;
  struct lanes *tmp;
  struct dynbuf text = DYNBUF_INIT(0);
  int rc = -1, added = 0, wadd = 0;

  memset(&ld, 0, sizeof(ld));
  ld.path = path;
  ld.err = err;
  ld.errlen = errlen;
  if (read_file(path, &text, err, errlen) != 0)
    return -1;
  if (file_folder(path, ld.dir, sizeof(ld.dir), err, errlen) != 0) {
    dynbuf_release(&text);
    return -1;
  }
  tmp = calloc(1, sizeof(*tmp));
  if (tmp == NULL || !yaml_parser_initialize(&parser)) {
    snprintf(err, errlen, "%s: out of memory", path);
    free(tmp);
    dynbuf_release(&text);
    return -1;
  }
  yaml_parser_set_input_string(
      &parser, (const unsigned char *)dynbuf_ptr(&text), dynbuf_len(&text));
  if (!yaml_parser_load(&parser, &ld.doc)) {
    snprintf(err, errlen, "%s:%zu:%zu: %s%s%s", path,
             parser.problem_mark.line + 1, parser.problem_mark.column + 1,
             parser.problem ? parser.problem : "not valid YAML",
             parser.context ? " " : "", parser.context ? parser.context : "");
    goto out_parser;
  }
  rc = load_document(&ld, tmp);
  if (rc == 0) {
    yaml_document_t next;
    /* One document only: a second would be silently ignored. */
    if (!yaml_parser_load(&parser, &next)) {
      rc = fail_at(&ld, NULL, "cannot read past the first document");
    } else {
      if (yaml_document_get_root_node(&next) != NULL)
        rc = fail_at(&ld, yaml_document_get_root_node(&next),
                     "a second YAML document; expected one");
      yaml_document_delete(&next);
    }
  }
  for (int i = 0; rc == 0 && i < tmp->nruntimes; i++)
    if (lanes_find_runtime(l, tmp->runtimes[i].name) == NULL)
      added++;
  if (rc == 0 && l->nruntimes + added > LANES_MAX_RUNTIMES) {
    snprintf(err, errlen, "%s: more than %d runtimes in all", path,
             LANES_MAX_RUNTIMES);
    rc = -1;
  }
  for (int i = 0; rc == 0 && i < tmp->nworkloads; i++) {
    if (lanes_find_workload(l, tmp->workloads[i].name) == NULL &&
        l->nworkloads + ++wadd > LANES_MAX_WORKLOADS) {
      snprintf(err, errlen, "%s: more than %d workloads in all", path,
               LANES_MAX_WORKLOADS);
      rc = -1;
    }
  }
  /* Room first: merging moves the strings into l and cannot stop half
   * way. */
  if (rc == 0 &&
      lanes_reserve(l, l->nruntimes + added, l->nworkloads + wadd) != 0) {
    snprintf(err, errlen, "%s: out of memory", path);
    rc = -1;
  }
  if (rc == 0)
    merge(l, tmp);
  yaml_document_delete(&ld.doc);
out_parser:
  yaml_parser_delete(&parser);
  lanes_release(tmp);
  free(tmp);
  dynbuf_release(&text);
  return rc;
}
