/* crossrun: runs every client runtime of a wire protocol against every
 * server runtime and writes what it saw as evidence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "runner/cli.h"
#include "runner/commands.h"
#include "runner/lanes.h"
#include "runner/matrix.h"
#include "runner/run.h"

#define CROSSRUN_VERSION "0.1.0"

/* The folder of the running executable and the repository root above it
 * (build/crossrun -> build, .). */
static int locate(char *bin_dir, size_t bin_len, char *root, size_t root_len)
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

static int load_matrices(struct cli_options *o, struct lanes *l, char *err,
                         size_t errlen)
{
  char path[LANES_PATH_MAX + 16];
  const struct workload *w;
  uv_fs_t req;
  int exists;

  snprintf(path, sizeof(path), "%s/matrix.yaml", l->root);
  exists = uv_fs_stat(NULL, &req, path, NULL) == 0;
  uv_fs_req_cleanup(&req);
  if (!exists && o->nmatrix == 0) {
    snprintf(err, errlen, "no matrix file: %s not found (give one with "
                          "--matrix FILE)", path);
    return -1;
  }
  if (exists && matrix_load(l, path, err, errlen) != 0)
    return -1;
  for (int i = 0; i < o->nmatrix; i++)
    if (matrix_load(l, o->matrix[i], err, errlen) != 0)
      return -1;
  w = lanes_find_workload(l, o->workload_name);
  if (w != NULL) {
    cli_apply_workload(o, &w->w, w->samples);
  } else if (strcmp(o->workload_name, o->command == CLI_QUICK ? "quick"
                                                               : "full")) {
    size_t used = (size_t)snprintf(err, errlen,
                                   "--workload: no workload '%s' in the "
                                   "matrix (it has:", o->workload_name);
    for (int i = 0; i < l->nworkloads && used < errlen; i++)
      used += (size_t)snprintf(err + used, errlen - used, " %s",
                               l->workloads[i].name);
    if (used < errlen)
      snprintf(err + used, errlen - used, ")");
    return -1;
  }
  if (proto_workload_check(&o->workload) != 0) {
    snprintf(err, errlen, "workload '%s' breaks protocol/SPEC.md's limits",
             o->workload_name);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  struct cli_options o;
  struct lanes *lanes;
  char bin[LANES_PATH_MAX], err[1024], self[LANES_PATH_MAX + 16];
  int rc;

  if (argc <= 1) {
    cli_usage(CLI_NONE, stderr);
    return RUN_EXIT_USAGE;
  }
  /* Commands that read evidence files and run nothing. */
  if (strcmp(argv[1], "merge") == 0)
    return cmd_merge(argc - 1, argv + 1, stdout, stderr);
  if (strcmp(argv[1], "validate") == 0)
    return cmd_validate(argc - 1, argv + 1, stdout, stderr);
  if (strcmp(argv[1], "report") == 0)
    return cmd_report(argc - 1, argv + 1, stdout, stderr);
  if (cli_parse(argc, argv, &o, err, sizeof(err)) != 0) {
    fprintf(stderr, "crossrun: %s\n", err);
    return RUN_EXIT_USAGE;
  }
  if (o.help) {
    cli_usage(o.command, stdout);
    return RUN_EXIT_OK;
  }
  if (o.version) {
    printf("crossrun %s\n", CROSSRUN_VERSION);
    return RUN_EXIT_OK;
  }
  lanes = calloc(1, sizeof(*lanes));
  if (lanes == NULL ||
      locate(bin, sizeof(bin), lanes->root, sizeof(lanes->root)) != 0) {
    fprintf(stderr, "crossrun: cannot find its own executable\n");
    free(lanes);
    return RUN_EXIT_RUNNER;
  }
  if (load_matrices(&o, lanes, err, sizeof(err)) != 0) {
    fprintf(stderr, "crossrun: %s\n", err);
    lanes_release(lanes);
    free(lanes);
    return RUN_EXIT_USAGE;
  }
  if (platform_init(err, sizeof(err)) != 0) {
    fprintf(stderr, "crossrun: %s\n", err);
    lanes_release(lanes);
    free(lanes);
    return RUN_EXIT_RUNNER;
  }
  snprintf(self, sizeof(self), "%s/crossrun", bin);
  rc = run_lanes(&o, lanes, lanes_display_path(lanes, self), stdout, stderr);
  lanes_release(lanes);
  free(lanes);
  return rc;
}
