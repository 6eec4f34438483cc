/* `crossrun validate`: evidence files checked against evidence/schema.json
 * (or another schema), every problem named with its JSON pointer. */
#include "runner/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/validate.h"
#include "runner/run.h"

#define PATH_MAX_BYTES 4096

static void usage(FILE *f)
{
  fputs("usage: crossrun validate FILE... [--schema PATH]\n"
        "\n"
        "Checks evidence files (quick, full, record or merged) against a "
        "JSON Schema:\n"
        "by default evidence/schema.json of the repository crossrun was "
        "built in (the\n"
        "folder above the one that holds the executable). evidence/SCHEMA.md "
        "describes\n"
        "every field and the subset of JSON Schema understood.\n"
        "\n"
        "Prints \"FILE: valid\", or every problem on its own line as\n"
        "\"FILE: at /json/pointer: problem\" (\"at (root)\" for the whole "
        "document), or\n"
        "\"FILE: not JSON: <parser error> at byte N\".\n"
        "\n"
        "  --schema PATH   validate against the schema at PATH\n"
        "  --help          print this help\n"
        "\n"
        "Exit status: 0 every file valid; 1 any file invalid or unreadable; "
        "2 bad usage\n"
        "(an unknown option, no file, an unusable --schema); 3 the default "
        "schema is\n"
        "missing or unusable.\n",
        f);
}

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
    fprintf(out, "%s: ... and %d more problems not shown\n", file, e->total - e->n);
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
    fprintf(errf, "crossrun validate: schema %s: not a schema (null)\n",
            path);
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

int cmd_validate(int argc, char **argv, FILE *out, FILE *errf)
{
  const char *schema_path = NULL;
  char default_path[PATH_MAX_BYTES];
  const char **files;
  json_object *schema = NULL;
  int nfiles = 0, only_files = 0, invalid = 0, rc;

  files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*files));
  if (files == NULL) {
    fprintf(errf, "crossrun validate: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
      files[nfiles++] = a;
    } else if (strcmp(a, "--") == 0) {
      only_files = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(out);
      free(files);
      return RUN_EXIT_OK;
    } else if (strcmp(a, "--schema") == 0 && i + 1 < argc) {
      schema_path = argv[++i];
    } else if (strncmp(a, "--schema=", 9) == 0 && a[9] != '\0') {
      schema_path = a + 9;
    } else {
      fprintf(errf,
              "crossrun validate: %s '%s' (see crossrun validate "
              "--help)\n",
              strcmp(a, "--schema") == 0 ? "missing the path after"
                                         : "unknown option",
              a);
      free(files);
      return RUN_EXIT_USAGE;
    }
  }
  if (nfiles == 0) {
    fprintf(errf, "crossrun validate: no file given (usage: crossrun "
                    "validate FILE... [--schema PATH])\n");
    free(files);
    return RUN_EXIT_USAGE;
  }
  if (schema_path == NULL) {
    if (default_schema(default_path, sizeof(default_path)) != 0) {
      fprintf(errf, "crossrun validate: cannot find its own executable "
                      "(give the schema with --schema PATH)\n");
      free(files);
      return RUN_EXIT_RUNNER;
    }
    schema_path = default_path;
  }
  rc = load_schema(schema_path, schema_path != default_path, &schema, errf);
  if (rc != 0) {
    free(files);
    return rc;
  }
  for (int i = 0; i < nfiles; i++) {
    struct validate_errors e = VALIDATE_ERRORS_INIT;
    json_object *doc = NULL;
    char err[512];

    rc = validate_read_json(files[i], &doc, &e, err, sizeof(err));
    if (rc == 0)
      rc = validate_document(schema, doc, &e);
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
  fflush(out);
  fflush(errf);
  json_object_put(schema);
  free(files);
  return invalid ? RUN_EXIT_FAILED : RUN_EXIT_OK;
}
