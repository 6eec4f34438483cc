/* What platforms/linux.c and platforms/linux_tree.c share; not part of
 * platform.h's contract. */
#ifndef CROSSRUN_PLATFORMS_LINUX_INTERNAL_H
#define CROSSRUN_PLATFORMS_LINUX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "platforms/platform.h"

/* Fills m's cgroup_v2 fields from /proc/self/mountinfo, /proc/self/cgroup
 * and the cgroup's own files (platforms/linux_cgroup.c). */
void linux_cgroup_describe(struct model_machine *m);

/* The spawn helper's path (next to the running program or one folder up,
 * or $CROSSRUN_SPAWN_HELPER), or NULL with the reason in *why (static). */
const char *linux_helper_path(const char **why);

/* Starts opts->argv through the helper at helper_path; proc is prepared
 * (posix_spawn_prepare) and envp built. Same contract as platform_spawn. */
int linux_tree_spawn(const char *helper_path,
                     const struct platform_spawn_opts *opts, const char **envp,
                     struct platform_proc *proc, char *err, size_t errlen);

/* platform_try_reap, platform_sample_memory, platform_proc_settle and
 * platform_proc_release for a peer started by linux_tree_spawn. */
int linux_tree_try_reap(struct platform_proc *proc, struct platform_exit *ex,
                        char *err, size_t errlen);
int linux_tree_sample(const struct platform_proc *proc,
                      struct platform_memory *mem);
int linux_tree_settle(struct platform_proc *proc, struct platform_exit *ex,
                      struct model_tree *tree, uint64_t wait_ms);
void linux_tree_release(struct platform_proc *proc);
int linux_tree_running(struct platform_proc *proc);

/* 1 when group is the process group of a peer started by the helper whose
 * whole tree has ended (the helper reaped its last process). */
int linux_tree_group_ended(long group);

/* 1 when pid is the helper of a peer not yet released. */
int linux_tree_is_helper(long pid);

/* A taskstats exit record (linux.c reads them): offered to every peer
 * whose tree it may belong to. */
void linux_tree_exit_record(long tgid, long ppid, const char *comm,
                            int64_t hiwater_bytes);

/* Reads pending taskstats exit records (nothing when not listening). */
void linux_taskstats_drain(void);

/* "Key:   123 kB" of /proc/PID/status in bytes, or -1. */
int64_t linux_status_bytes(long pid, const char *key);

/* The sockets of host:port that closed first, from a table in the format
 * of /proc/net/tcp or /proc/net/tcp6 at path: platform_port_closers'
 * fallback where socket diagnostics cannot be used (platforms/linux_net.c),
 * apart so that a test can give it a table of its own. A missing file is
 * an empty table. Returns 0, or a negative errno with err filled. */
int linux_tcp_table_closers(const char *path, const char *host, int port,
                            struct platform_closers *out, char *err,
                            size_t errlen);

#endif
