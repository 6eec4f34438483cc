/* Text for the renderers of evidence/report/report.h (evidence/report_*.c), not
 * for other callers: UTF-8 read and written one character at a time,
 * HTML/XML escaping, and figures as text with a unit. Each function writes
 * to the FILE or buffer it is given and keeps nothing. */
#ifndef CROSSRUN_EVIDENCE_REPORT_TEXT_H
#define CROSSRUN_EVIDENCE_REPORT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct report_figure; /* evidence/report/report.h */

/* Decodes the UTF-8 character at s (at least one byte, s[0] != 0) into
 * *cp and returns its length; a malformed sequence, a surrogate, or a
 * character XML forbids gives U+FFFD and length 1. */
int report_utf8_next(const char *s, uint32_t *cp);

/* Writes code point cp as UTF-8. */
void report_put_utf8(FILE *f, uint32_t cp);

/* Writes text as HTML/XML character data or attribute value: & < > " '
 * escaped, control characters (but tab, and newline when keep_newlines)
 * dropped. NULL writes nothing. */
void report_xml_text(FILE *f, const char *text, int keep_newlines);

/* Figures as text. A unit is chosen from the median and used for min and
 * max too: "288.8" (ns, the unit named by the caller), "1.9 MiB",
 * "4.0 ms" (CPU time), "38.2 µs" or "812 ns" (a latency), "1.24 µs" (CPU
 * µs per round trip, three significant digits). */
enum report_unit {
  REPORT_NS,
  REPORT_BYTES,
  REPORT_CPU_NS,
  REPORT_LATENCY_NS,
  REPORT_CPU_US
};

void report_format_value(char *out, size_t len, double v,
                         enum report_unit unit);

/* "median [min–max]" ("1.9 MiB [1.8–2.0]"), "median (no range)" when only
 * a summary median is known, or "-" when not measured. */
void report_format_figure(char *out, size_t len, const struct report_figure *f,
                          enum report_unit unit);

/* A peak memory's label as the report shows it after the figure: label
 * (text from the file, "exact", "sampled" or the evidence's own
 * memory.label) and, when the label does not already say it, what the
 * figure covers (", whole tree", ", process only"). NULL when there is
 * neither; else out. */
const char *report_memory_label(char *out, size_t len, const char *label,
                                const char *covers);

struct report_platform; /* evidence/report/report.h */

/* What the coordinator (crossrun itself) cost on p, as the report words it
 * ("crossrun's own CPU 12.0 ms over 4.00 s of wall time (0.30%), peak
 * memory 8.0 MiB"); NULL when the file does not say, else out. */
const char *report_coordinator_text(char *out, size_t len,
                                    const struct report_platform *p);

#endif
