/* `crossrun quick`, `crossrun run` and `crossrun record`: the commands that
 * run lanes. */
#include "runner/commands.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "runner/cli.h"
#include "runner/lanes.h"
#include "runner/matrix.h"
#include "runner/run.h"

int commands_locate(char *bin_dir, size_t bin_len, char *root, size_t root_len)
{
  size_t len = bin_len;
  char *slash;

  if (uv_exepath(bin_dir, &len) != 0)
    return -1;
  /* Windows paths come with backslashes; forward ones work there too. */
  for (char *c = bin_dir; *c; c++)
    if (*c == '\\')
      *c = '/';
  slash = strrchr(bin_dir, '/');
  if (slash == NULL)
    return -1;
  *slash = '\0';
  slash = strrchr(bin_dir, '/');
  snprintf(root, root_len, "%.*s", slash ? (int)(slash - bin_dir) : 1,
           slash ? bin_dir : ".");
  return 0;
}

/* "--workload: no workload 'x' in the matrix (it has: quick full)" */
static void no_workload(const struct cli_options *o, const struct lanes *l,
                        char *err, size_t errlen)
{
  size_t used = (size_t)snprintf(err, errlen,
                                 "--workload: no workload '%s' in the "
                                 "matrix (it has:",
                                 o->workload_name);
  for (int i = 0; i < l->nworkloads && used < errlen; i++)
    used += (size_t)snprintf(err + used, errlen - used, " %s",
                             l->workloads[i].name);
  if (used < errlen)
    snprintf(err + used, errlen - used, ")");
}

int commands_load_matrices(struct lanes *l, const char *const *files,
                           int nfiles, char *err, size_t errlen)
{
  char path[LANES_PATH_MAX + 16];
  uv_fs_t req;
  int exists;

  snprintf(path, sizeof(path), "%s/matrix.yaml", l->root);
  exists = uv_fs_stat(NULL, &req, path, NULL) == 0;
  uv_fs_req_cleanup(&req);
  if (!exists && nfiles == 0) {
    snprintf(err, errlen,
             "no matrix file: %s not found (give one with --matrix FILE)",
             path);
    return -1;
  }
  if (exists && matrix_load(l, path, err, errlen) != 0)
    return -1;
  for (int i = 0; i < nfiles; i++)
    if (matrix_load(l, files[i], err, errlen) != 0)
      return -1;
  return 0;
}

static int load_matrices(struct cli_options *o, struct lanes *l, char *err,
                         size_t errlen)
{
  const struct workload *w;

  if (commands_load_matrices(l, o->matrix, o->nmatrix, err, errlen) != 0)
    return -1;
  w = lanes_find_workload(l, o->workload_name);
  if (w != NULL) {
    cli_apply_workload(o, &w->w, w->samples);
  } else if (strcmp(o->workload_name,
                    o->command == CLI_QUICK ? "quick" : "full")) {
    no_workload(o, l, err, errlen);
    return -1;
  }
  if (proto_workload_check(&o->workload) != 0) {
    snprintf(err, errlen, "workload '%s' breaks protocol/SPEC.md's limits",
             o->workload_name);
    return -1;
  }
  return 0;
}

/* The matrices loaded, the platform ready, the lanes run. */
static int run_command(struct cli_options *o, FILE *out, FILE *errf)
{
  struct lanes *lanes = calloc(1, sizeof(*lanes));
  char bin[LANES_PATH_MAX], err[1024], self[LANES_PATH_MAX + 16];
  int rc = RUN_EXIT_RUNNER;

  if (lanes == NULL || commands_locate(bin, sizeof(bin), lanes->root,
                                       sizeof(lanes->root)) != 0) {
    fprintf(errf, "crossrun: cannot find its own executable\n");
    free(lanes);
    return RUN_EXIT_RUNNER;
  }
  if (load_matrices(o, lanes, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun: %s\n", err);
    rc = RUN_EXIT_USAGE;
  } else if (platform_init(err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun: %s\n", err);
  } else {
    snprintf(self, sizeof(self), "%s/crossrun", bin);
    rc = run_lanes(o, lanes, lanes_display_path(lanes, self), out, errf);
  }
  lanes_release(lanes);
  free(lanes);
  return rc;
}

static int lanes_command(enum cli_command cmd, int argc, char **argv, FILE *out,
                         FILE *errf)
{
  struct cli_options o;
  char err[1024];

  if (cli_parse_command(cmd, argc, argv, &o, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun: %s\n", err);
    return RUN_EXIT_USAGE;
  }
  if (o.help) {
    cli_usage(cmd, out);
    return RUN_EXIT_OK;
  }
  if (o.version) {
    fprintf(out, "crossrun %s\n", CROSSRUN_VERSION);
    return RUN_EXIT_OK;
  }
  return run_command(&o, out, errf);
}

int cmd_quick(int argc, char **argv, FILE *out, FILE *err)
{
  return lanes_command(CLI_QUICK, argc, argv, out, err);
}

int cmd_run(int argc, char **argv, FILE *out, FILE *err)
{
  return lanes_command(CLI_RUN, argc, argv, out, err);
}

int cmd_record(int argc, char **argv, FILE *out, FILE *err)
{
  return lanes_command(CLI_RECORD, argc, argv, out, err);
}
