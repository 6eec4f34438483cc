/* Scrubs text bound for evidence of what identifies a person or a machine:
 * absolute paths of the repository, the sample's temporary directory and
 * the home folder, the user name and the host name. */
#ifndef CROSSRUN_EVIDENCE_SANITIZE_H
#define CROSSRUN_EVIDENCE_SANITIZE_H

#include <stddef.h>

#define SANITIZE_MAX_RULES 8

struct sanitize {
  struct {
    char from[4096];
    const char *to;
  } rules[SANITIZE_MAX_RULES];
  int nrules;
};

/* Collects the values to scrub: root (the repository), the home folder,
 * the user and the host name, the system temporary folder. */
void sanitize_init(struct sanitize *s, const char *root);

/* Adds one more value to replace (ignored when empty or too short to be
 * meaningful). Longer values are replaced first. */
void sanitize_add(struct sanitize *s, const char *from, const char *to);

/* Copies in to out (NUL-terminated, at most outlen bytes) with every
 * value replaced. Returns out. */
char *sanitize_text(const struct sanitize *s, const char *in, char *out,
                    size_t outlen);

#endif
