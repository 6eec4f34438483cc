/* A FILE * that collects what is written to it and gives it back as one
 * NUL-terminated buffer when it is closed: what a test passes as the
 * output of a command (cmd_merge's out and err) to read it after.
 * open_memstream where the C runtime has it; Windows' has not, so there
 * it is a file in the temporary folder, read back on close and removed
 * by the system when closed. */
#ifndef CROSSRUN_TESTS_LIB_MEMFILE_H
#define CROSSRUN_TESTS_LIB_MEMFILE_H

#include <stddef.h>
#include <stdio.h>

/* What is kept of one memfile: more is an error at close. */
#define MEMFILE_MAX_BYTES (64u << 20)
/* Memfiles open at once (on Windows, where each is a file). */
#define MEMFILE_MAX_OPEN 16

/* Opens a memfile for writing; *text and *len are set by memfile_close().
 * Returns the stream, or NULL (with *text NULL) when it cannot be made. */
FILE *memfile_open(char **text, size_t *len);

/* Closes f (as fclose does) and sets the *text and *len given to
 * memfile_open(): what was written, NUL-terminated, "" when nothing was
 * (the caller frees it). Returns 0, or EOF when f could not be written
 * or read back, with *text NULL then. Only for a stream memfile_open()
 * returned; closing it with fclose() instead loses the text on Windows. */
int memfile_close(FILE *f);

#endif
