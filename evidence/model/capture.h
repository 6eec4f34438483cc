/* A bounded capture of a peer's output stream: it keeps the first and the
 * last bytes and counts the rest, so a peer that floods its output cannot
 * grow the runner's memory, and the evidence still shows how it began and
 * how it ended. It sits in evidence/ because a peer's kept stderr is part
 * of the model the runner fills (evidence/model/model.h); the runner uses it
 * for its helper commands' output too. */
#ifndef CROSSRUN_EVIDENCE_CAPTURE_H
#define CROSSRUN_EVIDENCE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct capture {
  char *buf; /* limit bytes: head, then a ring for the tail */
  size_t limit;
  size_t head_len;   /* bytes kept from the start, up to limit / 2 */
  size_t tail_start; /* ring position of the oldest tail byte */
  size_t tail_len;   /* bytes kept in the ring, up to limit - limit / 2 */
  uint64_t total;    /* every byte the stream delivered */
};

/* clang-format 14 lays out a macro that is a braced list as a block. */
/* clang-format off */
#define CAPTURE_INIT {NULL, 0, 0, 0, 0, 0}
/* clang-format on */

/* Allocates the buffer. limit must be at least 2. Returns 0 or -ENOMEM. */
int capture_alloc(struct capture *c, size_t limit);

/* Frees the buffer; the capture may be allocated again. */
void capture_release(struct capture *c);

/* Appends bytes; past the limit only the last ones are kept. */
void capture_append(struct capture *c, const char *data, size_t len);

/* 1 when bytes were dropped in the middle. */
int capture_truncated(const struct capture *c);

/* Copies what was kept into out (NUL-terminated, cut to outlen), with a
 * "[... N bytes dropped ...]" marker where bytes were dropped. Returns the
 * length written. */
size_t capture_text(const struct capture *c, char *out, size_t outlen);

/* Copies the first line (without its newline) into out. Returns its length,
 * or 0 when nothing was captured. */
size_t capture_first_line(const struct capture *c, char *out, size_t outlen);

#endif
