/* A growable byte buffer with a hard limit, after curl's dynbuf: every
 * buffer fed by a file or a peer is bounded, and going past the bound is
 * an error of its own ("too big"), not an out-of-memory. The contents are
 * always followed by a NUL byte that is not counted, so text in it can be
 * handed to functions that want a C string. */
#ifndef CROSSRUN_EVIDENCE_DYNBUF_H
#define CROSSRUN_EVIDENCE_DYNBUF_H

#include <stddef.h>
#include <stdio.h>

/* What the functions that add to a buffer return besides 0. */
enum {
  DYNBUF_ENOMEM = -1,  /* the memory could not be had */
  DYNBUF_ETOOBIG = -2, /* more than the buffer's max bytes */
  DYNBUF_EIO = -3      /* the stream failed (errno says why) */
};

struct dynbuf {
  char *buf;    /* owned; NULL until something is added */
  size_t len;   /* bytes held, at most max */
  size_t alloc; /* bytes allocated, the NUL's included */
  size_t max;   /* the hard limit on len */
};

#define DYNBUF_INIT(max)                                                       \
  {                                                                            \
    NULL, 0, 0, (max)                                                          \
  }

/* An empty buffer that will hold at most max bytes (SIZE_MAX / 2 at the
 * most). Allocates nothing. */
void dynbuf_init(struct dynbuf *b, size_t max);

/* Frees the contents; b is empty again, with the same max. */
void dynbuf_release(struct dynbuf *b);

/* Appends len bytes of mem. Returns 0, DYNBUF_ETOOBIG when b would then
 * hold more than max bytes, or DYNBUF_ENOMEM; on failure b is as it was. */
int dynbuf_add(struct dynbuf *b, const void *mem, size_t len);

/* Appends what is left to read of f, up to its end. Returns 0,
 * DYNBUF_ETOOBIG as soon as a byte past max has been read (what was read
 * is kept: max bytes), DYNBUF_ENOMEM, or DYNBUF_EIO when reading failed
 * (with errno as the failing read left it). */
int dynbuf_read(struct dynbuf *b, FILE *f);

/* The contents (len bytes and a NUL; "" when empty), b's. */
const char *dynbuf_ptr(const struct dynbuf *b);

/* The number of bytes held. */
size_t dynbuf_len(const struct dynbuf *b);

#endif
