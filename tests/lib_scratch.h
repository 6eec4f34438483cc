/* A test program's scratch folder: one fresh "crossrun-test-XXXXXX" under
 * the temporary folder, removed at the end and when the program is
 * interrupted (SIGINT, SIGTERM, SIGHUP), with the small file operations
 * the tests make in it. Paths are at most SCRATCH_PATH_CAP bytes. */
#ifndef CROSSRUN_TESTS_LIB_SCRATCH_H
#define CROSSRUN_TESTS_LIB_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#define SCRATCH_PATH_CAP 4096

/* The folder scratch_create() made; "" before and after. */
extern char scratch_root[SCRATCH_PATH_CAP];

/* A child to kill when the program is interrupted (0: none). */
extern volatile int scratch_child_pid;

/* Makes the folder and installs the signal handlers; one TAP check.
 * Returns 0, or -1 when the folder could not be made. */
int scratch_create(void);

/* Removes the folder and everything in it; one TAP check. */
void scratch_remove(void);

/* dir + "/" + name into out (SCRATCH_PATH_CAP bytes); a failing check
 * when it does not fit. Returns out. */
char *scratch_join(char *out, const char *dir, const char *name);

/* The path of name inside the scratch folder, into out. */
void scratch_path(char *out, const char *name);

/* Makes a folder (mode 0700). Returns 0 or a negative libuv error. */
int scratch_mkdir(const char *path);

/* Writes len bytes to a new file at path. Returns 0 or -1. */
int scratch_write(const char *path, const void *data, size_t len);

/* The size of the file at path, or -1 when it cannot be read. */
int64_t scratch_size(const char *path);

/* Reads a whole file of at most 64 MiB into a new buffer (the caller
 * frees) with its length in *len; NULL on failure. */
unsigned char *scratch_read(const char *path, size_t *len);

/* Removes path and everything below it, at most 32 levels deep. Returns
 * 0 or a negative libuv error. */
int scratch_remove_tree(const char *path, int depth);

#endif
