/* The document of `crossrun conform` (evidence/SCHEMA.md, "Conformance
 * evidence"), written with json-c in the order a reader sees it. */
#include "evidence/write/conform_write.h"

#include <stdio.h>
#include <string.h>

#include "evidence/write/evidence_json.h"

static json_object *int_or_null(int has, int64_t v)
{
  return has ? json_object_new_int64(v) : NULL;
}

json_object *conform_runtime_totals_json(const char *status,
                                         const struct conform_totals *t)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "status", json_object_new_string(status));
  evidence_put(o, "total",
               json_object_new_int(t->passed + t->failed + t->error));
  evidence_put(o, "passed", json_object_new_int(t->passed));
  evidence_put(o, "failed", json_object_new_int(t->failed));
  evidence_put(o, "error", json_object_new_int(t->error));
  return o;
}

static json_object *expected_json(const struct conform_outcome *c)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "outcome",
               json_object_new_string(c->expect_usage  ? "usage"
                                      : c->expect_pass ? "pass"
                                                       : "reject"));
  evidence_put(o, "rejection",
               c->rejection[0] ? json_object_new_string(c->rejection) : NULL);
  evidence_put(o, "error_frame",
               json_object_new_string(conform_error_rule_name(c->error_rule)));
  evidence_put(o, "error_code", int_or_null(c->error_code > 0, c->error_code));
  return o;
}

static json_object *observed_json(const struct sanitize *s,
                                  const struct conform_outcome *c)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "exit_code", int_or_null(c->exited, c->exit_code));
  evidence_put(o, "signal", int_or_null(c->signal != 0, c->signal));
  evidence_put(o, "timed_out", json_object_new_boolean(c->timed_out));
  evidence_put(o, "stderr_line", evidence_text(s, c->stderr_line));
  evidence_put(o, "stderr_lines", json_object_new_int(c->stderr_lines));
  evidence_put(o, "error_frame_code",
               int_or_null(c->error_received, c->error_received_code));
  evidence_put(o, "received_bytes",
               json_object_new_int64((int64_t)c->received_bytes));
  evidence_put(o, "wall_ns", json_object_new_int64((int64_t)c->wall_ns));
  evidence_put(o, "processes_left", json_object_new_int(c->orphans));
  evidence_put(o, "temp_entries_left",
               json_object_new_int(c->temp_entries_left));
  evidence_put(o, "port_free",
               c->port_checked ? json_object_new_boolean(c->port_free) : NULL);
  return o;
}

static json_object *case_json(const struct sanitize *s,
                              const struct conform_outcome *c)
{
  json_object *o = json_object_new_object(), *sent;

  evidence_put(o, "role", json_object_new_string(c->role));
  evidence_put(o, "name", json_object_new_string(c->name));
  evidence_put(o, "source", json_object_new_string(c->source));
  evidence_put(o, "state", json_object_new_string(c->state));
  evidence_put(o, "description", evidence_message(s, c->description));
  evidence_put(o, "end", json_object_new_string(c->end));
  evidence_put(o, "expected", expected_json(c));
  sent = json_object_new_object();
  evidence_put(sent, "bytes", json_object_new_int64((int64_t)c->sent_bytes));
  evidence_put(sent, "hex", json_object_new_string(c->sent_hex));
  evidence_put(sent, "hex_complete",
               json_object_new_boolean(c->sent_bytes <= CONFORM_SENT_KEPT));
  evidence_put(o, "sent", sent);
  evidence_put(o, "observed", observed_json(s, c));
  evidence_put(o, "verdict",
               json_object_new_string(conform_verdict_name(c->verdict)));
  evidence_put(o, "reason", evidence_text(s, c->reason));
  return o;
}

static json_object *runtime_json(const struct sanitize *s,
                                 const struct conform_runtime_result *r)
{
  struct conform_totals t;
  json_object *o, *cases = json_object_new_object();
  char key[CONFORM_NAME_MAX + 16];

  conform_totals_of(r, &t);
  o = conform_runtime_totals_json(conform_runtime_status(r), &t);
  evidence_put(o, "unavailable_reason",
               r->unavailable_reason
                   ? evidence_message(s, r->unavailable_reason)
                   : NULL);
  for (int i = 0; i < r->ncases; i++) {
    snprintf(key, sizeof(key), "%s/%s", r->cases[i].role, r->cases[i].name);
    evidence_put(cases, key, case_json(s, &r->cases[i]));
  }
  evidence_put(o, "cases", cases);
  return o;
}

static json_object *settings_json(const struct conform_evidence *e)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "host", json_object_new_string(e->host));
  evidence_put(o, "case_timeout_ms",
               json_object_new_int64((int64_t)e->case_timeout_ms));
  evidence_put(o, "ready_timeout_ms",
               json_object_new_int64((int64_t)e->limits.ready_timeout_ms));
  evidence_put(o, "kill_grace_ms",
               json_object_new_int64((int64_t)e->limits.kill_grace_ms));
  evidence_put(o, "cases_pattern",
               e->cases_pattern ? json_object_new_string(e->cases_pattern)
                                : NULL);
  return o;
}

json_object *conform_evidence_json(const struct conform_evidence *e)
{
  json_object *doc = json_object_new_object(), *o;
  struct evidence_run run;
  struct sanitize s;

  /* The runtimes and the provenance are the other modes' sections, written
   * by their own functions from the fields of a run they read. */
  memset(&run, 0, sizeof(run));
  run.runtimes = e->runtimes;
  run.nruntimes = e->nruntimes;
  run.packages_skipped = 1;
  run.provenance = e->provenance;
  run.machine = e->machine;
  sanitize_init(&s, e->root);
  evidence_put(doc, "schema_version",
               json_object_new_int(EVIDENCE_SCHEMA_VERSION));
  o = json_object_new_object();
  evidence_put(o, "name", json_object_new_string("crossrun"));
  evidence_put(o, "version", json_object_new_string(e->tool_version));
  evidence_put(doc, "tool", o);
  evidence_put(doc, "mode", json_object_new_string("conform"));
  evidence_put(doc, "performance_claims", json_object_new_boolean(0));
  evidence_put(doc, "performance_note",
               json_object_new_string("conformance cases: each case's "
                                      "timings are deadlines, not "
                                      "measurements"));
  evidence_put(doc, "complete", json_object_new_boolean(e->complete));
  evidence_put(doc, "incomplete_reason",
               e->incomplete_reason
                   ? json_object_new_string(e->incomplete_reason)
                   : NULL);
  evidence_put(doc, "started_at", json_object_new_string(e->started_at));
  evidence_put(doc, "machine", evidence_machine_json(&e->machine));
  evidence_put(doc, "settings", settings_json(e));
  evidence_put(doc, "provenance", evidence_provenance_json(&run, &s));
  evidence_put(doc, "runtimes", evidence_runtimes_json(&run, &s));
  o = json_object_new_array();
  for (int i = 0; i < e->nmatrix; i++)
    json_object_array_add(o, evidence_message(&s, e->matrix_files[i]));
  evidence_put(doc, "matrix_files", o);
  o = json_object_new_object();
  for (int i = 0; i < e->nresults; i++)
    evidence_put(o, e->results[i].name, runtime_json(&s, &e->results[i]));
  evidence_put(doc, "conformance", o);
  sanitize_release(&s);
  return doc;
}

int conform_evidence_write(const struct conform_evidence *e, const char *path,
                           char *err, size_t errlen)
{
  return evidence_write_doc(conform_evidence_json(e), path, err, errlen);
}
