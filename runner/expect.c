#include "runner/expect.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "evidence/base/dynbuf.h"
#include "evidence/base/json_read.h"

static int fail_at(const char *path, const yaml_node_t *n, char *err,
                   size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(const char *path, const yaml_node_t *n, char *err,
                   size_t errlen, const char *fmt, ...)
{
  va_list ap;
  int used = snprintf(err, errlen, "%s:%zu:%zu: ", path,
                      n ? n->start_mark.line + 1 : 1,
                      n ? n->start_mark.column + 1 : 1);
  if (used > 0 && (size_t)used < errlen) {
    va_start(ap, fmt);
    vsnprintf(err + used, errlen - (size_t)used, fmt, ap);
    va_end(ap);
  }
  /* A quoted key may hold a newline: the error stays one line. */
  for (char *p = err; errlen > 0 && *p != '\0'; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
  return -1;
}

static const char *scalar(const yaml_node_t *n)
{
  if (n == NULL || n->type != YAML_SCALAR_NODE ||
      memchr(n->data.scalar.value, '\0', n->data.scalar.length))
    return NULL;
  return (const char *)n->data.scalar.value;
}

static int load_entry(struct expect *e, yaml_document_t *doc,
                      const yaml_node_t *item, char *err, size_t errlen)
{
  struct expect_entry *x = &e->entries[e->n];
  int have = 0;

  if (item->type != YAML_MAPPING_NODE)
    return fail_at(e->path, item, err, errlen,
                   "expected an entry with 'lane', 'os' and 'reason'");
  memset(x, 0, sizeof(*x));
  x->line = (int)item->start_mark.line + 1;
  for (yaml_node_pair_t *p = item->data.mapping.pairs.start;
       p < item->data.mapping.pairs.top; p++) {
    const yaml_node_t *k = yaml_document_get_node(doc, p->key);
    const yaml_node_t *v = yaml_document_get_node(doc, p->value);
    const char *key = scalar(k), *value = scalar(v);
    char *into;
    size_t size;
    int bit;

    if (key && strcmp(key, "lane") == 0)
      into = x->lane, size = sizeof(x->lane), bit = 1;
    else if (key && strcmp(key, "os") == 0)
      into = x->os, size = sizeof(x->os), bit = 2;
    else if (key && strcmp(key, "reason") == 0)
      into = x->reason, size = sizeof(x->reason), bit = 4;
    else
      return fail_at(e->path, k, err, errlen,
                     "unknown key '%s' (expected lane, os, reason)",
                     key ? key : "?");
    if (value == NULL || *value == '\0' || strlen(value) >= size)
      return fail_at(e->path, v, err, errlen,
                     "expected a short string for "
                     "'%s'",
                     key);
    if (have & bit)
      return fail_at(e->path, k, err, errlen, "duplicate key '%s'", key);
    snprintf(into, size, "%s", value);
    have |= bit;
  }
  if (have != 7)
    return fail_at(e->path, item, err, errlen, "the entry needs '%s'",
                   !(have & 1)   ? "lane"
                   : !(have & 2) ? "os"
                                 : "reason");
  if (strcmp(x->os, "linux") && strcmp(x->os, "macos") &&
      strcmp(x->os, "windows"))
    return fail_at(e->path, item, err, errlen,
                   "os '%s' is not linux, macos or windows", x->os);
  if (expect_find(e, x->lane, x->os) != NULL)
    return fail_at(e->path, item, err, errlen,
                   "lane '%s' on %s is listed twice", x->lane, x->os);
  e->n++;
  return 0;
}

int expect_load(struct expect *e, const char *path, char *err, size_t errlen)
{
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_node_t *root;
  struct dynbuf buf;
  char why[256];
  const char *text;
  size_t len;
  int rc = -1;

  memset(e, 0, sizeof(*e));
  snprintf(e->path, sizeof(e->path), "%s", path);
  rc = json_read_text_file(path, JSON_READ_EXPECT_MAX_BYTES, &buf, why,
                           sizeof(why));
  if (rc != 0) {
    snprintf(err, errlen, rc == JSON_READ_ETEXT ? "%s:%s" : "%s: %s", path,
             why);
    dynbuf_release(&buf);
    return -1;
  }
  rc = -1;
  text = dynbuf_ptr(&buf);
  len = dynbuf_len(&buf);
  if (!yaml_parser_initialize(&parser)) {
    dynbuf_release(&buf);
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  yaml_parser_set_input_string(&parser, (unsigned char *)text, len);
  if (!yaml_parser_load(&parser, &doc)) {
    snprintf(err, errlen, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
             parser.problem_mark.column + 1,
             parser.problem ? parser.problem : "not valid YAML");
    goto out;
  }
  root = yaml_document_get_root_node(&doc);
  if (root == NULL || root->type != YAML_MAPPING_NODE ||
      root->data.mapping.pairs.top - root->data.mapping.pairs.start != 1 ||
      !scalar(
          yaml_document_get_node(&doc, root->data.mapping.pairs.start->key)) ||
      strcmp(scalar(yaml_document_get_node(
                 &doc, root->data.mapping.pairs.start->key)),
             "known_failures") != 0) {
    fail_at(path, root, err, errlen,
            "expected a mapping with one key, 'known_failures'");
  } else {
    const yaml_node_t *list =
        yaml_document_get_node(&doc, root->data.mapping.pairs.start->value);
    if (list->type == YAML_SCALAR_NODE && list->data.scalar.length == 0) {
      rc = 0; /* known_failures: (nothing) */
    } else if (list->type != YAML_SEQUENCE_NODE) {
      fail_at(path, list, err, errlen, "expected 'known_failures' as a list");
    } else {
      rc = 0;
      for (yaml_node_item_t *it = list->data.sequence.items.start;
           rc == 0 && it < list->data.sequence.items.top; it++) {
        if (e->n >= EXPECT_MAX)
          rc = fail_at(path, yaml_document_get_node(&doc, *it), err, errlen,
                       "more than %d entries", EXPECT_MAX);
        else
          rc = load_entry(e, &doc, yaml_document_get_node(&doc, *it), err,
                          errlen);
      }
    }
  }
  yaml_document_delete(&doc);
out:
  yaml_parser_delete(&parser);
  dynbuf_release(&buf);
  return rc;
}

const struct expect_entry *expect_find(const struct expect *e, const char *lane,
                                       const char *os)
{
  for (int i = 0; i < e->n; i++)
    if (strcmp(e->entries[i].lane, lane) == 0 &&
        strcmp(e->entries[i].os, os) == 0)
      return &e->entries[i];
  return NULL;
}

int expect_check_lanes(const struct expect *e, const struct lane *lanes, int n,
                       char *err, size_t errlen)
{
  for (int i = 0; i < e->n; i++) {
    int found = 0;

    for (int k = 0; k < n && !found; k++)
      found = strcmp(lanes[k].name, e->entries[i].lane) == 0;
    if (!found) {
      snprintf(err, errlen,
               "%s:%d: lane '%s' (os: %s) is not a lane of this run: a "
               "stale entry; delete it",
               e->path, e->entries[i].line, e->entries[i].lane,
               e->entries[i].os);
      return -1;
    }
  }
  return 0;
}
