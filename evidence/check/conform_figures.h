/* The derived figures of a conform document (mode "conform"), recomputed
 * from its cases: each runtime's status and totals. figures_check calls
 * it for such a document. */
#ifndef CROSSRUN_EVIDENCE_CONFORM_FIGURES_H
#define CROSSRUN_EVIDENCE_CONFORM_FIGURES_H

#include <json-c/json.h>

#include "evidence/check/figures.h"

/* Calls sink once per field that disagrees with the cases. Returns the
 * number of findings. */
int conform_figures_check(json_object *doc, figures_sink *sink, void *ctx);

#endif
