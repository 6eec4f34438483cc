/* The command line of the C lane's peers (lanes/README.md): the server's
 * --listen HOST:PORT and the client's --connect HOST:PORT (IPv6 as
 * [HOST]:PORT) and workload
 * flags. Standard C and libuv only, so it builds on every platform. */
#ifndef CROSSRUN_LANES_C_LANE_H
#define CROSSRUN_LANES_C_LANE_H

#include <stddef.h>

#include <uv.h>

#include "protocol/codec.h"

/* Exit status for a command line that cannot be used (lanes/README.md). */
#define LANE_EXIT_USAGE 2

enum lane_role { LANE_SERVER, LANE_CLIENT };

struct lane_args {
  /* The address of --listen (server) or --connect (client). */
  struct sockaddr_storage addr;
  /* The address as given, for messages. */
  char addr_text[64];
  /* The client's workload; zero for the server. */
  struct proto_workload workload;
};

/* Parses argv[1..argc-1] for role: flags in any order, each as "--flag
 * value" or "--flag=value", every one required exactly once, numbers in
 * decimal within the ranges of SPEC.md section 2 (the client's workload
 * must pass proto_workload_check()). Returns 0, or -1 with a one-line
 * message (no newline) in err. */
int lane_args_parse(struct lane_args *args, enum lane_role role, int argc,
                    char **argv, char *err, size_t err_size);

/* The port of addr (host order). */
int lane_addr_port(const struct sockaddr_storage *addr);

/* Ignores SIGPIPE where the platform has it, so that a write to a
 * connection the peer has closed fails with an error instead of killing
 * the process. */
void lane_ignore_sigpipe(void);

#endif
