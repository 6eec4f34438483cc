/* Runtimes (one implementation's client and server) and lanes (a client
 * runtime against a server runtime, named "client-server"), and the
 * selection of lanes from the command line. */
#ifndef CROSSRUN_RUNNER_LANES_H
#define CROSSRUN_RUNNER_LANES_H

#include <stddef.h>

#define LANES_MAX_RUNTIMES 16
#define LANES_MAX 256
#define LANES_ARGV_MAX 16
#define LANES_NAME_MAX 32

struct runtime {
  char name[LANES_NAME_MAX];
  char *client_argv[LANES_ARGV_MAX]; /* owned, NULL-terminated */
  char *server_argv[LANES_ARGV_MAX];
  int hidden;        /* only run when named explicitly (the baseline) */
  int available;     /* its programs exist */
  char why_unavailable[256];
};

struct lane {
  char name[2 * LANES_NAME_MAX + 1];
  const struct runtime *client;
  const struct runtime *server;
};

struct lanes {
  struct runtime runtimes[LANES_MAX_RUNTIMES];
  int nruntimes;
  char root[4096]; /* the repository root; paths in evidence are relative */
};

/* Fills the built-in runtimes, whose programs live in bin_dir (the folder
 * that holds the crossrun binary: build/ or build-sanitize/). root is the
 * folder above it. Returns 0 or -1 with a message. */
int lanes_builtin(struct lanes *l, const char *bin_dir, char *err,
                  size_t errlen);

/* Frees the runtimes' argv strings. */
void lanes_release(struct lanes *l);

/* Selects lanes by a comma-separated list of names and patterns ("c-c",
 * "node-*", "*-rust"); NULL or "" selects every lane of the runtimes that
 * are not hidden. Fills out (at most max) in a stable order. Returns the
 * count, or -1 when an entry matches no lane (err names it). */
int lanes_select(const struct lanes *l, const char *spec, struct lane *out,
                 int max, char *err, size_t errlen);

/* Shell-style match of '*' and '?' (no classes): 1 when name matches. */
int lanes_glob(const char *pattern, const char *name);

/* path relative to the root when it lies below it, else path itself. */
const char *lanes_display_path(const struct lanes *l, const char *path);

#endif
