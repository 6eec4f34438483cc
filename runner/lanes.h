/* Runtimes (one implementation's client and server, as the matrix file
 * declares them), workloads, and lanes (a client runtime against a server
 * runtime over a transport, named "client-server" over tcp and
 * "client-server+tls" over tls), with the selection of lanes from the
 * command line. */
#ifndef CROSSRUN_RUNNER_LANES_H
#define CROSSRUN_RUNNER_LANES_H

#include <stddef.h>

#include "protocol/codec.h"

/* Input limits of the matrix files together, not sizes of arrays (those
 * grow): past them a matrix file is refused with its place. */
#define LANES_MAX_RUNTIMES 256
#define LANES_MAX_WORKLOADS 256
#define LANES_ENV_MAX 256 /* variables of one package's env */
/* Every client against every server. */
#define LANES_MAX (LANES_MAX_RUNTIMES * LANES_MAX_RUNTIMES)
#define LANES_ARGV_MAX 32
#define LANES_NAME_MAX 32
#define LANES_PATH_MAX 4096

/* The transports of protocol/SPEC.md section 9, as bits of a set. */
enum lanes_transport { LANES_TCP, LANES_TLS, LANES_NTRANSPORTS };
#define LANES_TRANSPORT_BIT(t) (1u << (t))
#define LANES_TRANSPORTS_ALL                                                   \
  (LANES_TRANSPORT_BIT(LANES_TCP) | LANES_TRANSPORT_BIT(LANES_TLS))

/* "tcp", "tls"; "unknown" out of range. */
const char *lanes_transport_name(int transport);

/* Parses a comma-separated list of transport names ("tcp,tls") into a set
 * of LANES_TRANSPORT_BIT bits. Returns 0, or -1 naming the entry that is
 * not a transport (or an empty list) in err. */
int lanes_transports_parse(const char *list, unsigned *set, char *err,
                           size_t errlen);

/* A NULL-terminated list of owned strings; argv[0] == NULL when absent. */
struct lanes_argv {
  char *argv[LANES_ARGV_MAX];
};

struct runtime_package {
  int present;
  struct lanes_argv command; /* "{out}" stands for the artifact folder */
  char *cwd;                 /* relative to the runtime's folder, or NULL */
  char *artifact;            /* glob of the artifact inside {out} */
  char **env; /* NULL-terminated "NAME=value" ("{out}" substituted when
                 run), owned; NULL when the package has no env */
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
  /* The transports the matrix says it implements; 0 when it does not say
   * (then every one: a runtime that cannot do one exits 127). */
  unsigned transports;
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

/* "+tls" after the runtimes' names. */
#define LANES_LANE_NAME_MAX (2 * LANES_NAME_MAX + 8)

struct lane {
  char name[LANES_LANE_NAME_MAX];
  struct runtime *client;
  struct runtime *server;
  int transport;         /* enum lanes_transport */
  char unsupported[256]; /* why the matrix says it cannot run, "" if it can */
};

struct lanes {
  struct runtime *runtimes; /* owned, nruntimes of them */
  int nruntimes, runtimes_cap;
  struct workload *workloads; /* owned, nworkloads of them */
  int nworkloads, workloads_cap;
  char root[LANES_PATH_MAX]; /* the repository root; paths in evidence are
                                relative to it */
  /* The matrix files' top-level `transports`: the set a run takes when
   * the command line names none; 0 when no file says (tcp alone). */
  unsigned transports;
};

/* Frees every runtime's strings and the arrays, and empties l (root is
 * kept). */
void lanes_release(struct lanes *l);

/* Makes room for at least runtimes runtimes and workloads workloads in
 * all, so that adding up to them (l->runtimes[l->nruntimes++]) cannot
 * fail. Moves the arrays: no pointer into them may be kept across it.
 * Returns 0, or -1 when out of memory (l unchanged). */
int lanes_reserve(struct lanes *l, int runtimes, int workloads);

/* Room for every lane of l (nruntimes squared, times the transports, at
 * least 1), for lanes_select. */
int lanes_capacity(const struct lanes *l);

/* Frees one runtime's strings. */
void lanes_runtime_release(struct runtime *r);

struct runtime *lanes_find_runtime(struct lanes *l, const char *name);
const struct workload *lanes_find_workload(const struct lanes *l,
                                           const char *name);

/* Selects lanes by a comma-separated list of names and patterns ("c-c",
 * "node-*", "*-rust", "c-c+tls") among the lanes over the transports of
 * the set (LANES_TRANSPORT_BIT bits); NULL or "" selects every lane of
 * the runtimes that are not hidden over those transports. Fills out (at
 * most max) in a stable order: by client, server, then transport. Returns
 * the count, or -1 when an entry matches no lane (err names it). */
int lanes_select_over(struct lanes *l, const char *spec, unsigned transports,
                      struct lane *out, int max, char *err, size_t errlen);

/* lanes_select_over the tcp lanes alone. */
int lanes_select(struct lanes *l, const char *spec, struct lane *out, int max,
                 char *err, size_t errlen);

/* The transports a run uses: given (from --transport) when not 0, else
 * the matrix's, else tcp alone. */
unsigned lanes_run_transports(const struct lanes *l, unsigned given);

/* Whether the lane's runtimes both declare its transport (or declare
 * none). When not, why says which one does not, for the evidence. */
int lanes_transport_supported(const struct lane *ln, char *why, size_t whylen);

/* path relative to root when it lies below it, else path itself (a
 * pointer into path). */
const char *lanes_relative(const char *root, const char *path);

/* path relative to the root when it lies below it, else path itself. */
const char *lanes_display_path(const struct lanes *l, const char *path);

#endif
