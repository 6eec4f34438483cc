/* The figures a conform document derives, recomputed from its cases with
 * the writer's own rules (evidence/write/conform_write.c): each runtime's
 * status and totals. A case's verdict stands as recorded: what it was
 * judged on (a process's exit, its stderr) is not in the document whole. */
#include "evidence/check/conform_figures.h"

#include <stdio.h>
#include <string.h>

#include "evidence/model/conform_model.h"
#include "evidence/write/conform_write.h"

static json_object *get(json_object *o, const char *key)
{
  json_object *v = NULL;
  if (!json_object_is_type(o, json_type_object) ||
      !json_object_object_get_ex(o, key, &v))
    return NULL;
  return v;
}

static int check_runtime(const char *name, json_object *rt, figures_sink *sink,
                         void *ctx)
{
  struct conform_totals sum;
  json_object *want, *cases = get(rt, "cases"), *status = get(rt, "status");
  int found = 0;

  memset(&sum, 0, sizeof(sum));
  if (json_object_is_type(cases, json_type_object)) {
    json_object_object_foreach(cases, key, c)
    {
      (void)key;
      switch (
          conform_verdict_parse(json_object_get_string(get(c, "verdict")))) {
      case CONFORM_PASSED:
        sum.passed++;
        break;
      case CONFORM_FAILED:
        sum.failed++;
        break;
      default:
        sum.error++;
      }
    }
  }
  /* Whether it could run is the document's word; the rest follows. */
  if (json_object_is_type(status, json_type_string) &&
      strcmp(json_object_get_string(status), "unavailable") == 0)
    want = conform_runtime_totals_json("unavailable", &sum);
  else
    want = conform_runtime_totals_json(
        sum.failed == 0 && sum.error == 0 ? "passed" : "failed", &sum);
  json_object_object_foreach(want, key, value)
  {
    json_object *recorded = get(rt, key);
    char pointer[FIGURES_POINTER_MAX], message[FIGURES_MESSAGE_MAX];
    struct figures_finding f;

    if (json_object_equal(recorded, value))
      continue;
    snprintf(pointer, sizeof(pointer), "/conformance/%s/%s", name, key);
    snprintf(message, sizeof(message),
             "at %s: recorded %.120s, recomputed from the cases %.120s",
             pointer, recorded ? json_object_to_json_string(recorded) : "null",
             json_object_to_json_string(value));
    f.pointer = pointer;
    f.recorded = recorded;
    f.has_recomputed = 1;
    f.recomputed = value;
    f.message = message;
    sink(ctx, &f);
    found++;
  }
  json_object_put(want);
  return found;
}

int conform_figures_check(json_object *doc, figures_sink *sink, void *ctx)
{
  json_object *all = get(doc, "conformance");
  int found = 0;

  if (!json_object_is_type(all, json_type_object))
    return 0;
  json_object_object_foreach(all, name, rt)
  {
    if (json_object_is_type(rt, json_type_object))
      found += check_runtime(name, rt, sink, ctx);
  }
  return found;
}
