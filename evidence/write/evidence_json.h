/* Pieces of the evidence writer shared by its files: json-c helpers that
 * write "not measured" as null and scrub text, and the sections about the
 * run's context (runtimes and packages, provenance). Internal to
 * evidence/. */
#ifndef CROSSRUN_EVIDENCE_EVIDENCE_JSON_H
#define CROSSRUN_EVIDENCE_EVIDENCE_JSON_H

#include <stdint.h>
#include <json-c/json.h>

#include "evidence/write/evidence.h"
#include "evidence/write/sanitize.h"

/* The longest text a field holds (a stderr capture's head and tail). */
#define EVIDENCE_TEXT_MAX 20000

/* Writes doc (taken) to path as pretty JSON and a newline, through
 * path.partial renamed over path, so that a reader never sees half a
 * document. Returns 0, or -1 with a message in err. */
int evidence_write_doc(json_object *doc, const char *path, char *err,
                       size_t errlen);

/* Adds v (taken) to o under key. */
void evidence_put(json_object *o, const char *key, json_object *v);

/* -1 means "not measured": null, never a figure. */
json_object *evidence_int_or_null(int64_t v);

/* in, scrubbed as text a peer wrote (sanitize_text: its stderr, its argv);
 * NULL (a JSON null) when in is NULL. */
json_object *evidence_text(const struct sanitize *s, const char *in);

/* in, scrubbed as text the runner wrote (sanitize_message: a reason, a
 * message, a path); NULL when in is NULL. */
json_object *evidence_message(const struct sanitize *s, const char *in);

/* Adds the tree fields of a peer (evidence_tree.c): cpu.covers,
 * memory.covers, memory.label, memory.tree, exited_before_its_tree. */
void evidence_peer_tree_fields(const struct sanitize *s,
                               const struct model_peer *p, json_object *peer,
                               json_object *cpu, json_object *mem);

/* The coordinator's cost during one sample, and summed over the run's
 * samples (evidence_tree.c). */
json_object *evidence_sample_coordinator_json(const struct model_sample *r);
json_object *evidence_run_coordinator_json(const struct evidence_run *run);

/* The machine block: its kind, nothing that identifies it. */
json_object *evidence_machine_json(const struct model_machine *m);

/* The runtimes the lanes used: commands, toolchain, status, package. */
json_object *evidence_runtimes_json(const struct evidence_run *run,
                                    const struct sanitize *s);

/* Where a record came from; NULL (null) outside record mode. */
json_object *evidence_provenance_json(const struct evidence_run *run,
                                      const struct sanitize *s);

#endif
