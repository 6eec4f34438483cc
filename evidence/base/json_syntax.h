/* JSON's grammar (RFC 8259), checked exactly, for the lines a peer
 * prints: json-c reads more than JSON even in its strict mode (strings
 * in single quotes, raw control characters in strings, "1.", NaN and
 * Infinity, an escaped lone surrogate), and of a key given twice in one
 * object it keeps the last value without a word. A result line is held to
 * JSON itself, so that what crossrun accepts is what any JSON reader
 * reads, the same way. Nothing here allocates. */
#ifndef CROSSRUN_EVIDENCE_JSON_SYNTAX_H
#define CROSSRUN_EVIDENCE_JSON_SYNTAX_H

#include <stddef.h>

struct json_syntax {
  size_t members;   /* the members of every object, counted */
  size_t at;        /* where the text stops being JSON, in bytes from 0 */
  const char *what; /* why (static text), or NULL */
};

/* Checks that the len bytes at text are one JSON value, with nothing but
 * JSON's white space around it: UTF-8 text, no NUL byte, strings with only
 * JSON's escapes and no control character, a \u escape of a surrogate only
 * as half of a pair (I-JSON, RFC 7493), numbers in JSON's form, at most
 * max_depth arrays and objects one in another. Returns 0 with out->members
 * set, or -1 with out->at and out->what. That no object has a key twice
 * is for the caller: json-c's tree holds fewer members than the text then
 * (json_syntax_members). */
int json_syntax_check(const char *text, size_t len, int max_depth,
                      struct json_syntax *out);

struct json_object; /* json-c */

/* The members of every object in a json-c tree, counted. */
size_t json_syntax_members(struct json_object *value);

#endif
