/* Evidence of mode "conform": what `crossrun conform` found, per runtime
 * and case (expected, observed, verdict, the bytes sent), with the machine,
 * the runtimes and the provenance written as the other modes write them.
 * evidence/SCHEMA.md describes the document. */
#ifndef CROSSRUN_EVIDENCE_CONFORM_WRITE_H
#define CROSSRUN_EVIDENCE_CONFORM_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "evidence/model/conform_model.h"
#include "evidence/write/evidence.h"

struct conform_evidence {
  const char *tool_version;
  char started_at[32]; /* UTC, ISO 8601 */
  int complete;
  const char *incomplete_reason; /* "running", "interrupted" or NULL */
  struct model_machine machine;
  const char *root; /* stripped from every path written */
  const char *host;
  uint64_t case_timeout_ms;
  struct model_limits limits;
  const char *cases_pattern; /* --cases, or NULL */
  const struct model_runtime *runtimes;
  int nruntimes;
  const char *matrix_files[EVIDENCE_MAX_MATRIX];
  int nmatrix;
  const struct evidence_provenance *provenance; /* NULL: null */
  const struct conform_runtime_result *results;
  int nresults;
};

/* The "conformance" object of one runtime, as written: status, totals and
 * cases. A new object the caller owns. Exported so that validate
 * recomputes the status and totals with the writer's own rules. */
json_object *conform_runtime_totals_json(const char *status,
                                         const struct conform_totals *t);

/* The whole document; the caller owns it. */
json_object *conform_evidence_json(const struct conform_evidence *e);

/* Writes the document to path atomically (a temporary file beside it,
 * then a rename). Returns 0 or -1 with a message in err. */
int conform_evidence_write(const struct conform_evidence *e, const char *path,
                           char *err, size_t errlen);

#endif
