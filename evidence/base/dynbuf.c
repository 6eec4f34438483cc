/* The bounded buffer of evidence/base/dynbuf.h. */
#include "evidence/base/dynbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first allocation: most inputs are documents of a few KiB. */
#define FIRST_ALLOC 4096

void dynbuf_init(struct dynbuf *b, size_t max)
{
  b->buf = NULL;
  b->len = 0;
  b->alloc = 0;
  /* Room for max + 2 bytes must be expressible. */
  b->max = max < SIZE_MAX / 2 ? max : SIZE_MAX / 2;
}

void dynbuf_release(struct dynbuf *b)
{
  free(b->buf);
  dynbuf_init(b, b->max);
}

/* Makes room for need more bytes and the NUL. need is at most
 * max + 1 - len: dynbuf_read reads one byte past max. */
static int grow(struct dynbuf *b, size_t need)
{
  size_t want = b->len + need + 1, size;
  char *bigger;

  if (want <= b->alloc)
    return 0;
  size = b->alloc ? b->alloc : FIRST_ALLOC;
  while (size < want)
    size = size > SIZE_MAX / 2 ? want : size * 2;
  /* max + 1 bytes and the NUL: never more than a full buffer uses. */
  if (size > b->max + 2)
    size = b->max + 2;
  bigger = realloc(b->buf, size);
  if (bigger == NULL)
    return DYNBUF_ENOMEM;
  b->buf = bigger;
  b->alloc = size;
  return 0;
}

int dynbuf_add(struct dynbuf *b, const void *mem, size_t len)
{
  int rc;

  if (len > b->max - b->len)
    return DYNBUF_ETOOBIG;
  if (len == 0)
    return 0;
  rc = grow(b, len);
  if (rc != 0)
    return rc;
  memcpy(b->buf + b->len, mem, len);
  b->len += len;
  b->buf[b->len] = '\0';
  return 0;
}

int dynbuf_read(struct dynbuf *b, FILE *f)
{
  for (;;) {
    size_t room = b->alloc ? b->alloc - 1 - b->len : 0, got;

    if (room == 0) {
      /* Twice the room each time, up to one byte past max: reading that
       * byte is how a stream, whose size is not known beforehand, is
       * found too big. */
      size_t more = b->alloc ? b->alloc : FIRST_ALLOC;
      size_t most = b->max + 1 - b->len;
      int rc = grow(b, more < most ? more : most);
      if (rc != 0)
        return rc;
      room = b->alloc - 1 - b->len;
    }
    got = fread(b->buf + b->len, 1, room, f);
    b->len += got;
    if (b->len > b->max) {
      b->len = b->max;
      b->buf[b->len] = '\0';
      return DYNBUF_ETOOBIG;
    }
    b->buf[b->len] = '\0';
    if (got < room)
      return ferror(f) ? DYNBUF_EIO : 0; /* an error, or the end of f */
  }
}

const char *dynbuf_ptr(const struct dynbuf *b)
{
  return b->buf != NULL ? b->buf : "";
}

size_t dynbuf_len(const struct dynbuf *b)
{
  return b->len;
}
