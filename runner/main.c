/* crossrun: runs every client runtime of a wire protocol against every
 * server runtime and writes what it saw as evidence. */
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "platforms/platform.h"
#include "runner/cli.h"
#include "runner/lanes.h"
#include "runner/run.h"

#define CROSSRUN_VERSION "0.1.0"

int main(int argc, char **argv)
{
  struct cli_options o;
  struct lanes lanes;
  char exe[4096], err[512];
  size_t len = sizeof(exe);
  char *slash;
  int rc;

  if (argc <= 1) {
    cli_usage(CLI_NONE, stderr);
    return RUN_EXIT_USAGE;
  }
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
  if (uv_exepath(exe, &len) != 0 || (slash = strrchr(exe, '/')) == NULL) {
    fprintf(stderr, "crossrun: cannot find its own executable\n");
    return RUN_EXIT_RUNNER;
  }
  *slash = '\0';
  if (platform_init(err, sizeof(err)) != 0) {
    fprintf(stderr, "crossrun: %s\n", err);
    return RUN_EXIT_RUNNER;
  }
  if (lanes_builtin(&lanes, exe, err, sizeof(err)) != 0) {
    fprintf(stderr, "crossrun: %s\n", err);
    return RUN_EXIT_RUNNER;
  }
  {
    char self[4200];
    snprintf(self, sizeof(self), "%s/crossrun", exe);
    rc = run_lanes(&o, &lanes, lanes_display_path(&lanes, self), stdout,
                   stderr);
  }
  lanes_release(&lanes);
  return rc;
}
