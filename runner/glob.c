#include "runner/glob.h"

#include <stddef.h>

/* Greedy with one backtrack point: the last '*' seen is retried one
 * character further on a mismatch, which is enough without classes. */
int glob_match(const char *p, const char *s)
{
  const char *star = NULL, *resume = NULL;

  while (*s != '\0') {
    if (*p == '*') {
      star = p++;
      resume = s;
    } else if (*p == '?' || (*p != '\0' && *p == *s)) {
      p++;
      s++;
    } else if (star != NULL) {
      p = star + 1;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*p == '*')
    p++;
  return *p == '\0';
}
