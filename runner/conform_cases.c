/* The list of conformance cases: growing it, selecting from it, and the
 * ERROR code SPEC.md section 2 gives each rejection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/conform.h"
#include "runner/glob.h"

struct conform_case *conform_cases_add(struct conform_cases *c)
{
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 128;
    struct conform_case *grown = realloc(c->list, (size_t)cap * sizeof(*grown));
    if (grown == NULL)
      return NULL;
    c->list = grown;
    c->cap = cap;
  }
  memset(&c->list[c->n], 0, sizeof(c->list[0]));
  return &c->list[c->n++];
}

void conform_cases_release(struct conform_cases *c)
{
  for (int i = 0; i < c->n; i++)
    free(c->list[i].input);
  free(c->list);
  memset(c, 0, sizeof(*c));
}

static int matches(const char *patterns, const char *id)
{
  char one[256];
  const char *p = patterns;

  while (*p != '\0') {
    size_t len = strcspn(p, ",");
    snprintf(one, sizeof(one), "%.*s", (int)len, p);
    /* A pattern without a role matches the name in either role. */
    if (one[0] != '\0' &&
        (glob_match(one, id) ||
         (strchr(one, '/') == NULL && glob_match(one, strchr(id, '/') + 1))))
      return 1;
    p += len;
    if (*p == ',')
      p++;
  }
  return 0;
}

int conform_cases_filter(struct conform_cases *c, const char *patterns)
{
  int kept = 0;

  if (patterns == NULL)
    return c->n;
  for (int i = 0; i < c->n; i++) {
    char id[CONFORM_NAME_MAX + 16];
    snprintf(id, sizeof(id), "%s/%s",
             c->list[i].role == CONFORM_SERVER ? "server" : "client",
             c->list[i].name);
    if (matches(patterns, id))
      c->list[kept++] = c->list[i];
    else
      free(c->list[i].input);
  }
  c->n = kept;
  return kept;
}

int conform_code_for(const char *rejection)
{
  static const struct {
    const char *name;
    int code;
  } codes[] = {{"unsupported_version", 1},
               {"bad_workload", 2},
               {"count_mismatch", 4},
               {"peer_error", 0}};

  if (rejection == NULL)
    return 0;
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
    if (strcmp(codes[i].name, rejection) == 0)
      return codes[i].code;
  return 3; /* protocol_violation: any other rejection */
}

void conform_case_error_rule(struct conform_case *k)
{
  k->error_code = conform_code_for(k->rejection);
  k->error_rule = k->rejection == NULL ? CONFORM_ERROR_NOT_EXPECTED
                                       : CONFORM_ERROR_NONE_REQUIRED;
  if (k->rejection == NULL)
    return;
  /* No ERROR in answer to an ERROR (SPEC.md section 6). */
  if (strcmp(k->rejection, "peer_error") == 0)
    k->error_rule = CONFORM_ERROR_NOT_EXPECTED;
  if (k->role != CONFORM_SERVER)
    return;
  if ((k->state == CONFORM_AT_START &&
       (strcmp(k->rejection, "unsupported_version") == 0 ||
        strcmp(k->rejection, "bad_workload") == 0)) ||
      strcmp(k->rejection, "count_mismatch") == 0)
    k->error_rule = CONFORM_ERROR_REQUIRED;
}
