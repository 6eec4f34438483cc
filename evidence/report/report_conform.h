/* Reports of conformance evidence (mode "conform", evidence/SCHEMA.md):
 * a conformance section per runtime in Markdown and HTML (each role's
 * counts, then every case that did not pass, with what it expected, what
 * it saw and the bytes sent), and JUnit XML with a testsuite per runtime
 * and a testcase per case. Read from the document alone; a field of the
 * wrong type reads as missing ("?"), never as another value. */
#ifndef CROSSRUN_EVIDENCE_REPORT_CONFORM_H
#define CROSSRUN_EVIDENCE_REPORT_CONFORM_H

#include <stdio.h>
#include <json-c/json.h>

/* 1 when doc is a conformance document. */
int report_conform_is(json_object *doc);

/* Each writes the whole report of doc (source: the file's name) to f and
 * returns 0, or -1 when writing failed. */
int report_conform_markdown(json_object *doc, const char *source, FILE *f);
int report_conform_html(json_object *doc, const char *source, FILE *f);
int report_conform_junit(json_object *doc, const char *source, FILE *f);

#endif
