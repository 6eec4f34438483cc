/* Runtimes (one implementation's client and server, as the matrix file
 * declares them), workloads, and lanes (a client runtime against a server
 * runtime, named "client-server"), with the selection of lanes from the
 * command line. */
#ifndef CROSSRUN_RUNNER_LANES_H
#define CROSSRUN_RUNNER_LANES_H

#include <stddef.h>

#include "protocol/codec.h"

#define LANES_MAX_RUNTIMES 16
#define LANES_MAX 256
#define LANES_ARGV_MAX 32
#define LANES_ENV_MAX 16
#define LANES_NAME_MAX 32
#define LANES_MAX_WORKLOADS 16
#define LANES_PATH_MAX 4096

/* A NULL-terminated list of owned strings; argv[0] == NULL when absent. */
struct lanes_argv {
  char *argv[LANES_ARGV_MAX];
};

struct runtime_package {
  int present;
  struct lanes_argv command; /* "{out}" stands for the artifact folder */
  char *cwd;                 /* relative to the runtime's folder, or NULL */
  char *artifact;            /* glob of the artifact inside {out} */
  char *env[LANES_ENV_MAX];  /* "NAME=value", "{out}" substituted */
};

struct runtime {
  char name[LANES_NAME_MAX];
  struct lanes_argv client;
  struct lanes_argv server;
  struct lanes_argv build;   /* may be absent */
  struct lanes_argv version; /* may be absent */
  struct runtime_package package;
  int hidden;   /* only run when named explicitly (the baseline) */
  int pinned;   /* its toolchain must be the same version on every OS */
  int optional; /* quick and run in CI may find it unavailable */
  char dir[LANES_PATH_MAX];         /* the declaring matrix file's folder */
  char source[LANES_PATH_MAX + 32]; /* "FILE:LINE" where it was declared */
  /* Filled when the runtime is prepared for a run. */
  int available;
  int broken; /* its build failed: its lanes are errors, not unavailable */
  char why_unavailable[512];
  char toolchain_version[160];
};

struct workload {
  char name[LANES_NAME_MAX];
  struct proto_workload w;
  int samples;
};

struct lane {
  char name[2 * LANES_NAME_MAX + 1];
  struct runtime *client;
  struct runtime *server;
};

struct lanes {
  struct runtime runtimes[LANES_MAX_RUNTIMES];
  int nruntimes;
  struct workload workloads[LANES_MAX_WORKLOADS];
  int nworkloads;
  char root[LANES_PATH_MAX]; /* the repository root; paths in evidence are
                                relative to it */
};

/* Frees every runtime's strings and empties l (root is kept). */
void lanes_release(struct lanes *l);

/* Frees one runtime's strings. */
void lanes_runtime_release(struct runtime *r);

struct runtime *lanes_find_runtime(struct lanes *l, const char *name);
const struct workload *lanes_find_workload(const struct lanes *l,
                                           const char *name);

/* Selects lanes by a comma-separated list of names and patterns ("c-c",
 * "node-*", "*-rust"); NULL or "" selects every lane of the runtimes that
 * are not hidden. Fills out (at most max) in a stable order. Returns the
 * count, or -1 when an entry matches no lane (err names it). */
int lanes_select(struct lanes *l, const char *spec, struct lane *out, int max,
                 char *err, size_t errlen);

/* path relative to root when it lies below it, else path itself (a
 * pointer into path). */
const char *lanes_relative(const char *root, const char *path);

/* path relative to the root when it lies below it, else path itself. */
const char *lanes_display_path(const struct lanes *l, const char *path);

#endif
