#include "evidence/model/capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int capture_alloc(struct capture *c, size_t limit)
{
  struct capture empty = CAPTURE_INIT;
  *c = empty;
  if (limit < 2)
    limit = 2;
  c->buf = malloc(limit);
  if (c->buf == NULL)
    return -ENOMEM;
  c->limit = limit;
  return 0;
}

void capture_release(struct capture *c)
{
  struct capture empty = CAPTURE_INIT;
  free(c->buf);
  *c = empty;
}

void capture_append(struct capture *c, const char *data, size_t len)
{
  size_t head_cap = c->limit / 2, tail_cap = c->limit - head_cap;
  char *ring = c->buf + head_cap;

  c->total += len;
  if (c->buf == NULL)
    return;
  if (c->head_len < head_cap) {
    size_t n = head_cap - c->head_len < len ? head_cap - c->head_len : len;
    memcpy(c->buf + c->head_len, data, n);
    c->head_len += n;
    data += n;
    len -= n;
  }
  /* Only the last tail_cap bytes of this chunk can survive. */
  if (len > tail_cap) {
    data += len - tail_cap;
    len = tail_cap;
  }
  for (size_t i = 0; i < len; i++) {
    size_t pos = (c->tail_start + c->tail_len) % tail_cap;
    ring[pos] = data[i];
    if (c->tail_len < tail_cap)
      c->tail_len++;
    else
      c->tail_start = (c->tail_start + 1) % tail_cap;
  }
}

int capture_truncated(const struct capture *c)
{
  return c->total > (uint64_t)(c->head_len + c->tail_len);
}

size_t capture_text(const struct capture *c, char *out, size_t outlen)
{
  size_t head_cap = c->limit / 2, tail_cap = c->limit - head_cap, n = 0;

  if (outlen == 0)
    return 0;
  for (size_t i = 0; i < c->head_len && n + 1 < outlen; i++)
    out[n++] = c->buf[i];
  if (capture_truncated(c) && n + 1 < outlen) {
    unsigned long long dropped =
        (unsigned long long)(c->total - c->head_len - c->tail_len);
    int w = snprintf(out + n, outlen - n, "\n[... %llu bytes dropped ...]\n",
                     dropped);
    if (w > 0)
      n += (size_t)w < outlen - n ? (size_t)w : outlen - n - 1;
  }
  for (size_t i = 0; i < c->tail_len && n + 1 < outlen; i++)
    out[n++] = c->buf[head_cap + (c->tail_start + i) % tail_cap];
  out[n] = '\0';
  return n;
}

size_t capture_first_line(const struct capture *c, char *out, size_t outlen)
{
  size_t n = 0;

  if (outlen == 0)
    return 0;
  while (n < c->head_len && c->buf[n] != '\n' && n + 1 < outlen) {
    out[n] = c->buf[n];
    n++;
  }
  if (n > 0 && out[n - 1] == '\r')
    n--;
  out[n] = '\0';
  return n;
}
