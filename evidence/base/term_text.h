/* Text crossrun prints on its terminal that came from outside it: what a
 * peer, a build or a package command wrote and a message quotes, the
 * name of a process or a file a peer left, or a string read from an
 * evidence file. Printed as it is, a control character there would move
 * the cursor, recolour or erase what crossrun printed, or start a line
 * that reads as crossrun's own (a fake verdict, a CI runner's "::"
 * command). The evidence keeps such text exactly; the terminal shows it
 * on one line, with each control character (C0, DEL, C1, and the
 * bidirectional controls that reorder what is shown) and each byte that
 * is not UTF-8 shown as '?'. */
#ifndef CROSSRUN_EVIDENCE_TERM_TEXT_H
#define CROSSRUN_EVIDENCE_TERM_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Copies text (NULL: "") into out, at most outlen bytes with the NUL,
 * shown as above and cut between characters. Returns out. */
char *term_text(const char *text, char *out, size_t outlen);

/* Writes text (NULL: nothing) to f, shown as above. */
void term_text_put(FILE *f, const char *text);

#endif
