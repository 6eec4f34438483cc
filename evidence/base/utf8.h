/* UTF-8 as crossrun reads it everywhere (RFC 3629): one decoder for the
 * input readers (evidence/base/json_read.h), the validator, the text written
 * into evidence (evidence/write/sanitize.h) and the report renderers. It is
 * strict: a character is the shortest sequence for a code point up to
 * U+10FFFF that is not a surrogate; anything else is not UTF-8. Nothing
 * here allocates or keeps anything. */
#ifndef CROSSRUN_EVIDENCE_UTF8_H
#define CROSSRUN_EVIDENCE_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define UTF8_REPLACEMENT 0xfffd /* what a malformed sequence stands for */

/* Decodes the character that starts at s, looking at no more than len
 * bytes. Returns its length (1 to 4) with the code point in *cp, or 0
 * when len is 0 or the bytes there are not a well-formed character (a
 * stray continuation byte, a sequence cut short by len or by a byte that
 * does not continue it, an overlong form, a surrogate, beyond U+10FFFF);
 * *cp is then UTF8_REPLACEMENT. A NUL byte is the character U+0000. */
int utf8_decode(const char *s, size_t len, uint32_t *cp);

/* The byte offset at which s (len bytes) stops being UTF-8, or -1 when
 * all of it is. */
long long utf8_error_at(const char *s, size_t len);

/* The number of characters (code points) of s, len bytes of valid
 * UTF-8. */
size_t utf8_length(const char *s, size_t len);

#endif
