/* The problem list of a merge (struct merge_problems, evidence/merge/merge.h)
 * and the bounded line builder its lines and the merge summary are made with.
 * Every file of the merge reports through it, so it is a module of its
 * own. */
#include "evidence/merge/merge_input.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void merge_problems_init(struct merge_problems *p)
{
  p->lines = NULL;
  p->count = 0;
  p->cap = 0;
  p->dropped = 0;
}

void merge_problems_release(struct merge_problems *p)
{
  for (int i = 0; i < p->count; i++)
    free(p->lines[i]);
  free(p->lines);
  merge_problems_init(p);
}

void merge_problems_vadd(struct merge_problems *p, const char *file,
                         const char *fmt, va_list ap)
{
  char line[MERGE_LINE_MAX], *copy;
  size_t n = 0;
  int w;

  if (p->count >= MERGE_MAX_PROBLEMS) {
    p->dropped++;
    return;
  }
  if (file != NULL) {
    w = snprintf(line, sizeof(line), "%s: ", file);
    n = w < 0 ? 0 : (size_t)w < sizeof(line) ? (size_t)w : sizeof(line) - 1;
  }
  w = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
  if (w >= 0 && (size_t)w >= sizeof(line) - n)
    memcpy(line + sizeof(line) - 4, "...", 4);
  /* Names come from the inputs: a newline in one must not start a line. */
  for (char *c = line; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = '?';
  if (p->count == p->cap) {
    int cap = p->cap ? p->cap * 2 : 16;
    char **lines = realloc(p->lines, (size_t)cap * sizeof(*lines));
    if (lines == NULL) {
      p->dropped++;
      return;
    }
    p->lines = lines;
    p->cap = cap;
  }
  copy = strdup(line);
  if (copy == NULL) {
    p->dropped++;
    return;
  }
  p->lines[p->count++] = copy;
}

void merge_problems_add(struct merge_problems *p, const char *file,
                        const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  merge_problems_vadd(p, file, fmt, ap);
  va_end(ap);
}

void merge_line_add(struct merge_line *l, const char *fmt, ...)
{
  va_list ap;
  int w;

  if (l->len >= sizeof(l->text) - 1)
    return;
  va_start(ap, fmt);
  w = vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt, ap);
  va_end(ap);
  if (w > 0)
    l->len += (size_t)w < sizeof(l->text) - l->len
                  ? (size_t)w
                  : sizeof(l->text) - l->len - 1;
}
