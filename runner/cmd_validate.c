/* `crossrun validate`: evidence files checked against evidence/schema.json
 * (or another schema), every problem named with its JSON pointer. */
#include "runner/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/schema/validate.h"
#include "runner/options.h"
#include "runner/run.h"

#define PATH_MAX_BYTES 4096

static const struct options_command usage = {
    "validate",
    "FILE... [--schema PATH]",
    "Checks evidence files (quick, full, record or merged) against a JSON "
    "Schema: by default evidence/schema.json of the repository crossrun was "
    "built in (the folder above the one that holds the executable). "
    "evidence/SCHEMA.md describes every field and the subset of JSON Schema "
    "understood. A file the schema accepts then has every derived figure "
    "recomputed from its raw samples (sample statuses from their checks, "
    "times, lane summaries, cleanliness totals, comparisons, "
    "performance_claims, official); each that disagrees is a problem at "
    "its pointer, with both values.\n"
    "\n"
    "Prints \"FILE: valid\", or every problem on its own line as \"FILE: at "
    "/json/pointer: problem\" (\"at (root)\" for the whole document), or "
    "\"FILE: not JSON: <parser error> at byte N\".",
    "Exit status: 0 every file valid; 1 any file invalid or unreadable; 2 bad "
    "usage (an unknown option, no file, an unusable --schema); 3 the default "
    "schema is missing or unusable.",
};

/* <root>/evidence/schema.json, where root is the folder above the
 * executable's (build/crossrun -> .). */
static int default_schema(char *out, size_t outlen)
{
  char exe[PATH_MAX_BYTES];
  size_t len = sizeof(exe);
  char *cut;

  if (uv_exepath(exe, &len) != 0)
    return -1;
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(exe, '/'), *back = strrchr(exe, '\\');
    cut = back != NULL && (slash == NULL || back > slash) ? back : slash;
    if (cut == NULL) {
      /* A bare name: its folder is ".", whose parent is "..". */
      snprintf(exe, sizeof(exe), "%s", up == 0 ? ".." : ".");
      break;
    }
    *cut = '\0';
    if (exe[0] == '\0') { /* "/crossrun": the root folder */
      snprintf(exe, sizeof(exe), "/");
      break;
    }
  }
  if ((size_t)snprintf(out, outlen, "%s/evidence/schema.json", exe) >= outlen)
    return -1;
  return 0;
}

static void print_errors(const char *file, const struct validate_errors *e,
                         FILE *out)
{
  for (int i = 0; i < e->n; i++)
    fprintf(out, "%s: %s\n", file, e->messages[i]);
  if (e->total > e->n)
    fprintf(out, "%s: ... and %d more problems not shown\n", file,
            e->total - e->n);
}

/* Reads and checks the schema. Returns 0 with it in *schema, or the exit
 * status (the reasons on stderr). */
static int load_schema(const char *path, int given, json_object **schema,
                       FILE *errf)
{
  struct validate_errors e = VALIDATE_ERRORS_INIT;
  int status = given ? RUN_EXIT_USAGE : RUN_EXIT_RUNNER;
  char err[512];
  int rc;

  rc = validate_read_json(path, schema, &e, err, sizeof(err));
  if (rc == 0 && *schema == NULL) {
    rc = 1;
    validate_errors_release(&e);
    fprintf(errf, "crossrun validate: schema %s: not a schema (null)\n", path);
  } else if (rc == 0 && validate_schema(*schema, &e) != 0) {
    rc = 1;
  }
  if (rc < 0)
    fprintf(errf, "crossrun validate: schema %s: %s\n", path, err);
  for (int i = 0; i < e.n; i++)
    fprintf(errf, "crossrun validate: schema %s: %s\n", path, e.messages[i]);
  validate_errors_release(&e);
  if (rc != 0) {
    json_object_put(*schema);
    *schema = NULL;
    return status;
  }
  return 0;
}

/* Checks every file against schema, which load_schema checked, printing
 * what it finds. Returns the number of files that are not valid. */
static int validate_files(json_object *schema, const char *const *files,
                          int nfiles, FILE *out)
{
  int invalid = 0;

  for (int i = 0; i < nfiles; i++) {
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    json_object *doc = NULL;
    char err[512];
    int rc = validate_read_json(files[i], &doc, &e, err, sizeof(err));

    if (rc == 0)
      rc = validate_document_checked(schema, doc, &e);
    if (rc == 0)
      rc = validate_figures(doc, &e);
    if (rc < 0 && e.total == 0)
      fprintf(out, "%s: %s\n", files[i], err);
    else if (rc == 0)
      fprintf(out, "%s: valid\n", files[i]);
    else
      print_errors(files[i], &e, out);
    invalid += rc != 0;
    validate_errors_release(&e);
    json_object_put(doc);
  }
  return invalid;
}

/* The schema given, or the default one, loaded into *schema. Returns 0 or
 * the exit status (the reasons on errf). */
static int find_schema(const char *given, json_object **schema, FILE *errf)
{
  char default_path[PATH_MAX_BYTES];

  if (given != NULL)
    return load_schema(given, 1, schema, errf);
  if (default_schema(default_path, sizeof(default_path)) != 0) {
    fprintf(errf, "crossrun validate: cannot find its own executable (give "
                  "the schema with --schema PATH)\n");
    return RUN_EXIT_RUNNER;
  }
  return load_schema(default_path, 0, schema, errf);
}

int cmd_validate(int argc, char **argv, FILE *out, FILE *errf)
{
  const char *schema_path = NULL;
  struct options_entry opts[] = {
      {OPTIONS_FIELDS(OPTIONS_KIND_STRING, "schema", 0, &schema_path, "PATH",
                      "validate against the schema at PATH"),
       .flags = OPTIONS_NONEMPTY, .missing = "a path"},
      OPTIONS_END,
  };
  const char **files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*files));
  json_object *schema = NULL;
  int nfiles = 0, rc;

  if (files == NULL) {
    fprintf(errf, "crossrun validate: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  rc = options_parse_command(&usage, opts, argc, argv, files, &nfiles, out,
                             errf);
  if (rc != 0)
    rc = rc == OPTIONS_HELP ? RUN_EXIT_OK : RUN_EXIT_USAGE;
  else if (nfiles == 0) {
    fprintf(errf, "crossrun validate: no file given (usage: crossrun "
                  "validate FILE... [--schema PATH])\n");
    rc = RUN_EXIT_USAGE;
  } else if ((rc = find_schema(schema_path, &schema, errf)) == 0) {
    rc = validate_files(schema, files, nfiles, out) ? RUN_EXIT_FAILED
                                                    : RUN_EXIT_OK;
  }
  fflush(out);
  fflush(errf);
  json_object_put(schema);
  free(files);
  return rc;
}
