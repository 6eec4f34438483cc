/* Scrubs text bound for evidence of what identifies a person or a machine:
 * absolute paths of the repository, the sample's temporary directory and
 * the home folder, the user name, the host name, and the values of the
 * environment; any other absolute path keeps only its last component. */
#ifndef CROSSRUN_EVIDENCE_SANITIZE_H
#define CROSSRUN_EVIDENCE_SANITIZE_H

#include <stddef.h>

#define SANITIZE_MAX_RULES 256
/* Shorter environment values are too likely to be ordinary words. */
#define SANITIZE_MIN_ENV_VALUE 6

struct sanitize {
  struct {
    char *from; /* owned */
    const char *to;
  } rules[SANITIZE_MAX_RULES];
  int nrules;
};

/* Collects the values to scrub: root (the repository), the home folder,
 * the user and the host name, the system temporary folder, and every
 * environment value of SANITIZE_MIN_ENV_VALUE bytes or more. Release with
 * sanitize_release. */
void sanitize_init(struct sanitize *s, const char *root);

void sanitize_release(struct sanitize *s);

/* Adds one more value to replace (ignored when shorter than 3 bytes, or
 * already there). Longer values are replaced first. */
void sanitize_add(struct sanitize *s, const char *from, const char *to);

/* Removes the rule for from, if any. */
void sanitize_remove(struct sanitize *s, const char *from);

/* Replaces every byte that does not belong to a valid UTF-8 sequence (as
 * evidence/base/utf8.h decodes it) with '?', in place, so that the text is
 * valid JSON for any parser and passes `crossrun validate`. */
void sanitize_utf8(char *text);

/* Copies in to out (NUL-terminated, at most outlen bytes) with every
 * value replaced and the result made valid UTF-8. Returns out. */
char *sanitize_text(const struct sanitize *s, const char *in, char *out,
                    size_t outlen);

#endif
