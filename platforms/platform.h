/* Everything crossrun asks of the operating system, behind one header.
 * One implementation per OS: platforms/linux.c, macos.c, windows.c; the
 * Makefile picks one. This layer measures and acts; it holds no policy
 * (timeouts and what counts as a failure belong to runner/).
 *
 * Functions that can fail return 0 or a negative error code and write a
 * one-line message into err (errlen bytes, always NUL-terminated). */
#ifndef CROSSRUN_PLATFORMS_PLATFORM_H
#define CROSSRUN_PLATFORMS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* The machine description and the orphans a platform finds are filled
 * straight into the model's structs: the model is plain data that
 * includes nothing above libc, so depending on it keeps this layer free
 * of the runner, and a second copy of each struct (with a field-by-field
 * copy in the runner to keep in step) would buy nothing. */
#include "evidence/model/model.h"

/* What a peer is started with. argv[0] is the program's path; env holds
 * "NAME=value" entries that are added to (or replace) the coordinator's
 * environment; both NULL-terminated. cwd, when not NULL, is the folder the
 * peer starts in (a relative argv[0] is then resolved from it). */
struct platform_spawn_opts {
  const char *const *argv;
  const char *const *env;
  const char *cwd;
  /* 1 for a peer that is measured: its whole process tree is followed
   * (Linux: through the spawn helper, build/crossrun-spawn, see
   * platforms/spawner/crossrun-spawn.c), and platform_proc_settle gives
   * the tree's figures. 0 for a command that is only run. */
  int tree;
};

/* A started peer. stdout_fd and stderr_fd are the coordinator's
 * non-blocking, close-on-exec read ends of the peer's stdout and stderr;
 * the caller owns them (hand them to uv_pipe_open, or close them). */
struct platform_proc {
  long pid;
  long group;
  int stdout_fd;
  int stderr_fd;
  /* The coordinator's own peak RSS just before the spawn: on Linux a
   * child's ru_maxrss cannot be told apart from it (see linux.c). */
  int64_t spawner_peak_rss_bytes;
  /* Linux: the peak RSS since exec from the kernel's exit accounting
   * (taskstats), -1 when it was not received. Other OSes: -1. */
  int64_t exit_peak_rss_bytes;
  /* Readable (or at its end) when the peer's state may have changed: the
   * caller may poll it to reap at once instead of on a timer. -1 when the
   * OS gives none (then only polling platform_try_reap tells). */
  int event_fd;
  void *os; /* OS-specific state (a process handle on Windows, the spawn
               helper's state on Linux). */
};

/* How a reaped peer ended and what the OS says it cost. Figures the OS
 * does not give are -1. */
struct platform_exit {
  int exited; /* 1 when it exited by itself; exit_code is then valid */
  int exit_code;
  int signal; /* the signal that ended it, or 0 */
  int64_t user_cpu_ns;
  int64_t system_cpu_ns;
  /* The OS's lifetime peak for the child (ru_maxrss in bytes, Windows'
   * peak working set), as reported, before any interpretation. */
  int64_t os_peak_rss_bytes;
  /* The peer's own exact peak when the OS's figure is known to be the
   * peer's alone, else -1 (the caller then uses the sampled peak). */
  int64_t exact_peak_rss_bytes;
  /* Set by platform_proc_settle; before it (and where the OS cannot
   * follow a tree) the figures above are the tracked process's, which on
   * POSIX include the children it waited for. */
  int cpu_covers_tree;    /* user/system CPU count every process */
  int memory_covers_tree; /* exact_peak_rss_bytes is the tree's figure */
  /* What exact_peak_rss_bytes is ("os_lifetime_peak", ...; see
   * evidence/SCHEMA.md), static; NULL when it is -1. */
  const char *peak_source;
  char label[96]; /* short text for tables: "exact, tree of 2: sh, node" */
  /* The tracked process ended while processes of its tree still ran. */
  int exited_before_its_tree;
};

/* A reading of a live peer's memory. -1 where the OS does not tell. */
struct platform_memory {
  int64_t rss_bytes;
  int64_t peak_rss_bytes; /* peak since exec (Linux VmHWM) */
};

/* Prepares the coordinator: on Linux it becomes a child subreaper so that
 * descendants escaping with setsid() are reparented to it and can be
 * found. Call once before any spawn. */
int platform_init(char *err, size_t errlen);

/* Starts a peer in its own process group with stdin on the null device
 * and stdout/stderr on pipes. */
int platform_spawn(const struct platform_spawn_opts *opts,
                   struct platform_proc *proc, char *err, size_t errlen);

/* Reaps the peer if it has ended: returns 1 and fills *ex, 0 while it
 * runs, negative on error. After 1 the pid must not be used again. */
int platform_try_reap(struct platform_proc *proc, struct platform_exit *ex,
                      char *err, size_t errlen);

/* After a reaped peer's orphans were collected (platform_collect_orphans
 * kills what is left of its tree): waits at most wait_ms for the rest of
 * its tree to end, then amends *ex (as platform_try_reap filled it) with
 * the tree's figures and lists the tree's processes in *tree. Where the OS
 * cannot follow a tree, *ex stays as it was and tree->count is 0.
 * Returns 0, or negative when the tree's end was not seen (the figures
 * then cover what was seen, and say so). */
int platform_proc_settle(struct platform_proc *proc, struct platform_exit *ex,
                         struct model_tree *tree, uint64_t wait_ms);

/* 1 while processes of a reaped peer's tree still run (a daemonizing
 * server's child serving after its parent exited), else 0; 0 where the OS
 * cannot tell. platform_terminate still reaches its group. */
int platform_tree_running(struct platform_proc *proc);

/* Reads a live peer's memory (and, where the OS allows, notes the
 * processes of its tree and their peaks for platform_proc_settle).
 * Returns 0, or negative when it is gone. */
int platform_sample_memory(const struct platform_proc *proc,
                           struct platform_memory *mem);

/* Asks the peer's whole group to stop (force 0: SIGTERM or the OS's
 * gentle equivalent; force 1: SIGKILL). Returns 0 or negative. */
int platform_terminate(const struct platform_proc *proc, int force);

/* Finds every process still alive in the given peers' groups or reparented
 * to the coordinator, kills and reaps them, and
 * lists them in *out. Returns 0 or negative. */
int platform_collect_orphans(const long *groups, int ngroups,
                             struct model_orphans *out, char *err,
                             size_t errlen);

/* Releases what platform_spawn kept (a handle on Windows). Safe to call
 * twice. Does not close stdout_fd/stderr_fd. */
void platform_proc_release(struct platform_proc *proc);

/* 1 when host:port (a numeric IPv4 or IPv6 address) can be bound right
 * now without address reuse, 0 when it cannot (reason in err), negative
 * on error. */
int platform_port_free(const char *host, int port, char *err, size_t errlen);

/* Returned where the OS does not tell a socket's TCP state. */
#define PLATFORM_CANNOT_TELL (-1000) /* no errno is this large */

#define PLATFORM_CLOSERS_MAX 8

/* TCP sockets whose local end is host:port and whose state shows that
 * this end sent its FIN before the other end did: FIN_WAIT1, FIN_WAIT2,
 * CLOSING or TIME_WAIT (a side that closes second goes through
 * CLOSE_WAIT and LAST_ACK instead). They outlive the process that closed
 * them, so they tell after the fact who closed a connection first. */
struct platform_closers {
  int count; /* sockets found; the first PLATFORM_CLOSERS_MAX listed */
  struct {
    uint8_t remote_addr[16]; /* IPv4 as ::ffff:a.b.c.d */
    int remote_port;
    const char *state; /* "TIME_WAIT", ... (static) */
    /* How long it has been in its state, or -1 where the OS does not
     * tell (Linux tells it for TIME_WAIT, which lasts 60 s). */
    int64_t age_ms;
  } list[PLATFORM_CLOSERS_MAX];
};

/* Fills *out with the sockets above (Linux: from /proc/net/tcp and
 * /proc/net/tcp6, an IPv4 host also as its IPv4-mapped IPv6 address).
 * Returns 0, PLATFORM_CANNOT_TELL where the OS does not tell the states
 * to an unprivileged process (macOS, Windows: the caller falls back on
 * binding the port), or another negative code on error. */
int platform_port_closers(const char *host, int port,
                          struct platform_closers *out, char *err,
                          size_t errlen);

/* Waits for an exclusive lock of the existing file at path, which every
 * other process taking it waits for too (flock; Windows: LockFileEx), so
 * that two runs in one checkout do not build a runtime at the same time.
 * Released by platform_unlock, or when the process ends. Returns a handle
 * >= 0, or negative with why in err. */
long platform_lock(const char *path, char *err, size_t errlen);
void platform_unlock(long handle);

/* Finds a program the way platform_spawn does: a name without a path
 * separator on PATH (Windows: with ".exe" added), a relative path from
 * cwd (NULL: the coordinator's folder). Returns 1 and the full path in out
 * when it exists and can be run, -1 when a file of that name exists but
 * cannot be run (POSIX: no execute permission), 0 when there is none. */
int platform_find_program(const char *name, const char *cwd, char *out,
                          size_t outlen);

/* A signal's name ("SIGSEGV"), or "signal N". Static or thread-local
 * storage. */
const char *platform_signal_name(int sig);

/* The coordinator's own peak RSS in bytes, or -1. */
int64_t platform_self_peak_rss_bytes(void);

/* Describes the machine (no host or user names). */
void platform_machine_describe(struct model_machine *m);

/* How this platform obtains each memory figure, for the evidence. Static
 * strings. */
const char *platform_peak_rss_method(void);
const char *platform_sampled_rss_method(void);

/* How platform_terminate stops a peer, gently and by force, as this
 * machine allows it (Windows: whether CTRL_BREAK can reach a peer). Static
 * string. */
const char *platform_stop_method(void);

#endif
