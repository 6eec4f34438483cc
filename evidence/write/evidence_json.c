/* The evidence writer's shared helpers and its context sections: the
 * runtimes (with their packages) and the provenance of a record. */
#include "evidence/write/evidence_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

int evidence_write_doc(json_object *doc, const char *path, char *err,
                       size_t errlen)
{
  const char *body = json_object_to_json_string_ext(
      doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
               JSON_C_TO_STRING_NOSLASHESCAPE);
  char tmp[4200];
  FILE *f;
  int rc = 0;

  /* A longer name would cut the temporary's, which is then another file. */
  if (strlen(path) + sizeof(".partial") > sizeof(tmp)) {
    snprintf(err, errlen, "cannot write '%.64s...': the file name is too long",
             path);
    json_object_put(doc);
    return -1;
  }
  snprintf(tmp, sizeof(tmp), "%s.partial", path);
  f = fopen(tmp, "w");
  if (f == NULL) {
    snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno));
    json_object_put(doc);
    return -1;
  }
  if (fputs(body, f) < 0 || fputc('\n', f) < 0)
    rc = -1;
  if (fclose(f) != 0)
    rc = -1;
  if (rc == 0) {
    uv_fs_t req;
    /* uv_fs_rename replaces an existing file on every OS. */
    rc = uv_fs_rename(NULL, &req, tmp, path, NULL);
    uv_fs_req_cleanup(&req);
  }
  if (rc != 0) {
    snprintf(err, errlen, "cannot write '%s'", path);
    remove(tmp);
  }
  json_object_put(doc);
  return rc == 0 ? 0 : -1;
}

void evidence_put(json_object *o, const char *key, json_object *v)
{
  json_object_object_add(o, key, v);
}

/* -1 means "not measured": written as null, never as a figure. */
json_object *evidence_int_or_null(int64_t v)
{
  return v < 0 ? NULL : json_object_new_int64(v);
}

json_object *evidence_text(const struct sanitize *s, const char *in)
{
  static char buf[EVIDENCE_TEXT_MAX];
  if (in == NULL)
    return NULL;
  return json_object_new_string(sanitize_text(s, in, buf, sizeof(buf)));
}

json_object *evidence_message(const struct sanitize *s, const char *in)
{
  static char buf[EVIDENCE_TEXT_MAX];
  if (in == NULL)
    return NULL;
  return json_object_new_string(sanitize_message(s, in, buf, sizeof(buf)));
}

static json_object *argv_list(const struct sanitize *s, const char *const *argv)
{
  json_object *arr;
  if (argv == NULL)
    return NULL;
  arr = json_object_new_array();
  for (int i = 0; argv[i] != NULL; i++)
    json_object_array_add(arr, evidence_text(s, argv[i]));
  return arr;
}

static json_object *package_json(const struct model_package *p,
                                 const struct sanitize *s)
{
  json_object *o = json_object_new_object(), *entries;

  if (!p->measured) {
    evidence_put(o, "error", evidence_message(s, p->error));
    return o;
  }
  evidence_put(o, "file_name", json_object_new_string(p->package.file_name));
  evidence_put(o, "format", json_object_new_string(p->package.format));
  evidence_put(o, "packed_bytes",
               json_object_new_int64(p->package.packed_bytes));
  evidence_put(o, "unpacked_bytes",
               json_object_new_int64(p->package.unpacked_bytes));
  evidence_put(o, "file_count", json_object_new_int(p->package.file_count));
  evidence_put(o, "sha256", json_object_new_string(p->package.sha256));
  evidence_put(o, "repack_sha256",
               p->repack_sha256[0] ? json_object_new_string(p->repack_sha256)
                                   : NULL);
  evidence_put(o, "reproducible",
               p->reproducible < 0 ? NULL
                                   : json_object_new_boolean(p->reproducible));
  evidence_put(o, "pack_wall_ns", json_object_new_int64((int64_t)p->wall_ns));
  entries = json_object_new_array();
  for (int i = 0; i < p->package.nentries; i++) {
    json_object *e = json_object_new_object();
    evidence_put(e, "path", evidence_message(s, p->package.entries[i].path));
    evidence_put(e, "size_bytes",
                 json_object_new_int64(p->package.entries[i].size_bytes));
    json_object_array_add(entries, e);
  }
  evidence_put(o, "entries", entries);
  return o;
}

static json_object *raw_or_null(const char *v)
{
  char buf[512];
  if (v == NULL || v[0] == '\0')
    return NULL;
  snprintf(buf, sizeof(buf), "%s", v);
  sanitize_utf8(buf);
  return json_object_new_string(buf);
}

json_object *evidence_provenance_json(const struct evidence_run *run,
                                      const struct sanitize *s)
{
  const struct evidence_provenance *p = run->provenance;
  json_object *o, *ci, *files;
  char governor[64];

  if (p == NULL)
    return NULL;
  o = json_object_new_object();
  /* Provenance is what identifies the run, on purpose: written as read
   * (the CI's variables included), not scrubbed. */
  evidence_put(o, "commit", raw_or_null(p->commit));
  evidence_put(o, "branch", raw_or_null(p->branch));
  evidence_put(o, "clean",
               p->clean < 0 ? NULL : json_object_new_boolean(p->clean));
  ci = json_object_new_object();
  evidence_put(ci, "detected", json_object_new_boolean(p->in_ci));
  evidence_put(ci, "provider", raw_or_null(p->ci_provider));
  evidence_put(ci, "workflow", raw_or_null(p->ci_workflow));
  evidence_put(ci, "run_id", raw_or_null(p->ci_run_id));
  evidence_put(ci, "run_attempt", raw_or_null(p->ci_run_attempt));
  evidence_put(o, "ci", ci);
  files = json_object_new_object();
  for (int i = 0; i < p->nmatrix; i++)
    evidence_put(files, p->matrix[i].file,
                 json_object_new_string(p->matrix[i].sha256));
  evidence_put(o, "matrix_sha256", files);
  snprintf(governor, sizeof(governor), "%s", run->machine.cpu_governor);
  evidence_put(o, "cpu_governor",
               governor[0] ? json_object_new_string(governor) : NULL);
  evidence_put(o, "load_average_1m_at_start",
               run->machine.load_average_1m >= 0
                   ? json_object_new_double(run->machine.load_average_1m)
                   : NULL);
  return o;
}

json_object *evidence_runtimes_json(const struct evidence_run *run,
                                    const struct sanitize *s)
{
  json_object *all = json_object_new_object();

  for (int i = 0; i < run->nruntimes; i++) {
    const struct model_runtime *r = &run->runtimes[i];
    json_object *o = json_object_new_object();
    json_object *pkg = NULL;

    evidence_put(o, "declared_at", evidence_message(s, r->declared_at));
    evidence_put(o, "client", argv_list(s, r->client));
    evidence_put(o, "server", argv_list(s, r->server));
    evidence_put(o, "build", argv_list(s, r->build));
    evidence_put(o, "version_command", argv_list(s, r->version));
    /* As the toolchain printed it: a version is not scrubbed. */
    evidence_put(o, "toolchain_version", raw_or_null(r->toolchain_version));
    evidence_put(o, "toolchain_pinned", json_object_new_boolean(r->pinned));
    evidence_put(o, "status",
                 json_object_new_string(r->broken      ? "broken"
                                        : r->available ? "available"
                                                       : "unavailable"));
    evidence_put(o, "reason",
                 r->why_unavailable[0] ? evidence_message(s, r->why_unavailable)
                                       : NULL);
    for (int p = 0; p < run->npackages; p++)
      if (strcmp(run->packages[p].runtime, r->name) == 0)
        pkg = package_json(&run->packages[p], s);
    if (pkg == NULL && r->declares_package) {
      pkg = json_object_new_object();
      evidence_put(pkg, "error",
                   json_object_new_string(run->packages_skipped
                                              ? "skipped by --no-packages"
                                              : "the runtime is not usable"));
    }
    evidence_put(o, "package", pkg);
    evidence_put(all, r->name, o);
  }
  return all;
}
