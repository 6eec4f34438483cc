/* What the runner's tests that run samples against tests/fixture share:
 * whether a sample left a process behind, and whether the tests run
 * under wine (whose figures some checks cannot trust). */
#ifndef CROSSRUN_TESTS_LIB_SAMPLES_H
#define CROSSRUN_TESTS_LIB_SAMPLES_H

#include <stddef.h>

#include "runner/sample.h"

/* How the runner reports the fixture's "signal" mode (tests/fixture_os.h):
 * its reason and what its message says. A signal on POSIX; Windows has
 * none, and the unhandled exception is an exit with its code
 * (EXCEPTION_ACCESS_VIOLATION, 0xC0000005, as an int). */
#ifdef _WIN32
#define SAMPLES_DEATH_REASON "server_exit"
#define SAMPLES_DEATH_SAYS "exited with -1073741819"
#else
#define SAMPLES_DEATH_REASON "signal"
#define SAMPLES_DEATH_SAYS "SIGABRT"
#endif

/* Two TAP checks, under the label name: no process of the sample's peers
 * is left (POSIX: of their process groups; Windows: the peers and the
 * orphans the runner named, their jobs having ended with the sample), and
 * its temporary directory is removed. */
void samples_nothing_left(const char *name, const struct model_sample *r);

/* Whether the platform reads TCP states (platform_port_closers), which
 * the runner needs to tell that a server closed its connection first;
 * when it does not, why into why. */
int samples_port_states(char *why, size_t len);

/* path into out (cap bytes), with its drive on Windows (_fullpath): a
 * path from the root of no drive, as CROSSRUN_ROOT and TMPDIR are under
 * wine (Linux paths), would be taken on the drive of the folder a program
 * is started in. Elsewhere path as it is. */
void samples_with_drive(char *out, size_t cap, const char *path);

/* Whether this runs under wine (the machine's emulator): some figures
 * there are not the OS's (memory of another process, TCP states). */
int samples_under_wine(void);

#endif
