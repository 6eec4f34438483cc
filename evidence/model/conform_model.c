#include "evidence/model/conform_model.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {"passed", "failed", "error"};

const char *conform_verdict_name(enum conform_verdict v)
{
  return (unsigned)v < sizeof(verdict_names) / sizeof(verdict_names[0])
             ? verdict_names[v]
             : "error";
}

int conform_verdict_parse(const char *name)
{
  for (size_t i = 0; i < sizeof(verdict_names) / sizeof(verdict_names[0]); i++)
    if (name != NULL && strcmp(name, verdict_names[i]) == 0)
      return (int)i;
  return -1;
}

const char *conform_error_rule_name(enum conform_error_rule r)
{
  switch (r) {
  case CONFORM_ERROR_REQUIRED:
    return "required";
  case CONFORM_ERROR_NOT_EXPECTED:
    return "none";
  default:
    return "optional";
  }
}

void conform_totals_of(const struct conform_runtime_result *r,
                       struct conform_totals *t)
{
  memset(t, 0, sizeof(*t));
  for (int i = 0; i < r->ncases; i++)
    switch (r->cases[i].verdict) {
    case CONFORM_PASSED:
      t->passed++;
      break;
    case CONFORM_FAILED:
      t->failed++;
      break;
    default:
      t->error++;
    }
}

const char *conform_runtime_status(const struct conform_runtime_result *r)
{
  struct conform_totals t;

  if (!r->available)
    return "unavailable";
  conform_totals_of(r, &t);
  return t.failed == 0 && t.error == 0 ? "passed" : "failed";
}

struct conform_outcome *conform_runtime_add(struct conform_runtime_result *r)
{
  if (r->ncases == r->cap) {
    int cap = r->cap ? 2 * r->cap : 64;
    struct conform_outcome *grown =
        realloc(r->cases, (size_t)cap * sizeof(*grown));
    if (grown == NULL)
      return NULL;
    r->cases = grown;
    r->cap = cap;
  }
  memset(&r->cases[r->ncases], 0, sizeof(r->cases[0]));
  return &r->cases[r->ncases++];
}

void conform_runtime_release(struct conform_runtime_result *r)
{
  free(r->cases);
  r->cases = NULL;
  r->ncases = r->cap = 0;
}
