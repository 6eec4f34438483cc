/* A record's conformance: every runtime that takes part in the record's
 * lanes is played against the scripted peers of `crossrun conform`, and
 * that evidence goes beside the record's, with the same provenance. An
 * official record says every lane passed between honest peers; without
 * conformance it could not say that the same runtimes also refuse what
 * SPEC.md makes them refuse. */
#include "runner/record_conform.h"

#include <string.h>

#include "runner/conform_run.h"
#include "runner/record.h"
#include "runner/run.h"

/* Appends name to list unless it holds it. Returns -1 when full. */
static int add_runtime(struct options_list *list, const char *name)
{
  for (int i = 0; i < list->count; i++)
    if (strcmp(list->items[i], name) == 0)
      return 0;
  if (list->count >= OPTIONS_LIST_MAX)
    return -1;
  list->items[list->count++] = name;
  return 0;
}

int record_conformance(const struct record_conformance_spec *spec, FILE *out,
                       FILE *errf)
{
  const struct cli_options *o = spec->options;
  struct conform_options co;
  int rc;

  conform_options_init(&co);
  for (int i = 0; i < spec->nlanes; i++)
    if (add_runtime(&co.runtimes, spec->lanes[i].client->name) != 0 ||
        add_runtime(&co.runtimes, spec->lanes[i].server->name) != 0) {
      fprintf(errf,
              "crossrun: record: more than %d runtimes to test for "
              "conformance\n",
              OPTIONS_LIST_MAX);
      return -1;
    }
  if (co.runtimes.count == 0)
    return 0;
  for (int i = 0; i < o->nmatrix && i < CONFORM_MAX_MATRIX; i++)
    co.matrix[co.nmatrix++] = o->matrix[i];
  co.host = o->host;
  co.progress = spec->progress;
  co.stop = spec->stop;
  co.provenance = spec->provenance;
  co.out = spec->path;
  record_path(spec->path, spec->pathlen, o->output_directory, "conform",
              spec->machine, o->shard_index, o->shard_count);
  if (spec->progress)
    fprintf(errf, "conformance of %d runtime%s into %s\n", co.runtimes.count,
            co.runtimes.count == 1 ? "" : "s", spec->path);
  rc = conform_run(&co, spec->l, out, errf);
  if (rc == RUN_EXIT_OK || rc == RUN_EXIT_INTERRUPTED)
    return 0;
  fprintf(errf,
          "crossrun: record: conformance failed (exit %d): the cases are in "
          "%s\n",
          rc, spec->path);
  return 1;
}
