/* Scrubs text bound for evidence of what identifies a person or a machine,
 * by place, never by value: the folders that name them (the repository,
 * the home folder, the temporary folder, a sample's temporary directory)
 * where a path starts with them, the user and host names as whole words
 * in what a peer printed, and any other absolute path down to its last
 * component. Ordinary words are never rewritten because some variable of
 * the caller's environment happens to hold them: the evidence of a run
 * does not depend on the environment it ran in. */
#ifndef CROSSRUN_EVIDENCE_SANITIZE_H
#define CROSSRUN_EVIDENCE_SANITIZE_H

#include <stddef.h>

#define SANITIZE_MAX_RULES 256

enum sanitize_kind {
  SANITIZE_FOLDER, /* an absolute path: replaced where a path starts */
  SANITIZE_NAME    /* a user or host name: a whole word of peer text */
};

struct sanitize {
  struct {
    char *from; /* owned */
    const char *to;
    enum sanitize_kind kind;
  } rules[SANITIZE_MAX_RULES];
  int nrules;
};

/* Collects what identifies the machine: root (the repository, "."), the
 * home folder ("~"), the system temporary folder ("$TMP"), the host name
 * ("<host>") and the user name ("<user>"). Nothing else of the
 * environment is read. Release with sanitize_release. */
void sanitize_init(struct sanitize *s, const char *root);

void sanitize_release(struct sanitize *s);

/* Adds one more value to replace by to (a static string), ignored when
 * shorter than 3 bytes or already there. An absolute path ("/x", "C:\x",
 * "C:/x", "\\x") is a folder, anything else a name. Longer values are
 * tried first, so "/home/ann/repo" wins over "/home/ann". */
void sanitize_add(struct sanitize *s, const char *from, const char *to);

/* Removes the rule for from, if any. */
void sanitize_remove(struct sanitize *s, const char *from);

/* Replaces every byte that does not belong to a valid UTF-8 sequence (as
 * evidence/base/utf8.h decodes it) with '?', in place, so that the text is
 * valid JSON for any parser and passes `crossrun validate`. */
void sanitize_utf8(char *text);

/* Text a peer wrote (its stderr, a word of its argv), copied into out
 * (NUL-terminated, at most outlen bytes): a folder is replaced where a
 * path starts with it (at the start of a word, ending at a separator),
 * a name where it is a whole word, any other absolute path is shortened
 * to ".../last", and the result made valid UTF-8. Returns out. */
char *sanitize_text(const struct sanitize *s, const char *in, char *out,
                    size_t outlen);

/* Text the runner wrote (a check's reason, a failure message, a path it
 * names), which may quote a path: the same as sanitize_text but names are
 * left alone, so that "the runner" stays itself for a user called runner.
 * Returns out. */
char *sanitize_message(const struct sanitize *s, const char *in, char *out,
                       size_t outlen);

/* The folder rule that path starts with (at a separator), or NULL; *rest
 * is set to what follows it ("" or "/..."). For the reproduce lines,
 * which write a folder in a form the shell expands. */
const char *sanitize_folder_of(const struct sanitize *s, const char *path,
                               const char **rest);

#endif
