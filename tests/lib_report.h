/* The fixture of the report tests (test_report*.c): real evidence written
 * by `crossrun quick` and `crossrun run --samples 3` in a fresh folder,
 * and a merged document of three platforms made from the latter, with a
 * failed lane whose name and message carry markup, quotes, control
 * characters and bytes that are not UTF-8; and the helpers that start
 * programs (a browser, Python) with their output in that folder. The
 * lanes are the platform's (LIB_LANES_FEW, tests/lib_lanes.h). */
#ifndef CROSSRUN_TESTS_LIB_REPORT_H
#define CROSSRUN_TESTS_LIB_REPORT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

struct report; /* evidence/report/report.h */

/* A lane name and a message that would run a script, break an attribute,
 * an entity, or an XML parser if anything reached the output raw. */
#define RTEST_EVIL_LANE "x<script>alert(1)</script>&\"'\x01\x1b-c"
#define RTEST_EVIL_MESSAGE                                                     \
  "wrong_sequence <script>alert(\"m\")</script> & 'q' \x01\x07\x1b[31m "       \
  "\xef\xbf\xbe\xef\xbf\xbf ]]> end"

extern char rtest_dir[512];       /* the folder */
extern char rtest_build[512];     /* $BUILD */
extern char rtest_crossrun[1024]; /* $BUILD/crossrun */
extern char rtest_outdir[1024];   /* $BUILD/test-output: kept files */

struct rtest_evidence {
  char quick[1100];  /* crossrun quick's evidence */
  char full[1100];   /* crossrun run --samples 3's */
  char merged[1100]; /* three platforms made from full */
  json_object *full_doc;
  double cc_median; /* full's c-c median ns per round trip */
};

/* Makes the folder, runs crossrun quick (when with_quick) and crossrun
 * run, and makes the merged document: a TAP check for each. Returns 0,
 * or -1 when the folder could not be made. */
int rtest_setup(struct rtest_evidence *e, int with_quick);

/* Puts full_doc, kills what is left of our processes, removes the
 * folder. */
void rtest_teardown(struct rtest_evidence *e);

void rtest_sleep_ms(long ms);

/* The path of name in the folder (one of 8 rotating buffers). */
const char *rtest_in_dir(const char *name);

/* A whole file, NUL-terminated (the caller frees), its length in *len
 * when len is not NULL; NULL when it cannot be read. */
char *rtest_slurp(const char *path, size_t *len);

/* How many times needle occurs in hay, overlaps included. */
int rtest_count(const char *hay, const char *needle);

/* Markdown's tables as if their cells were not padded: in each line that
 * starts with '|', runs of spaces become one and a rule's dashes "---",
 * in place. Returns text (NULL stays NULL). */
char *rtest_md_unpadded(char *text);

/* 1 when every line of each Markdown table in text has its '|' at the same
 * columns (counted in characters, not bytes) as the table's first line;
 * else 0, with the first line that does not in *bad. */
int rtest_md_aligned(const char *text, const char **bad);

/* Runs argv (looked up in PATH) to its end, at most seconds, with stdout
 * and stderr to files and env (NULL: none) added to the environment, in a
 * process group of its own that is killed whole on every path (a browser
 * leaves helpers behind; tests/lib_child.h). Its exit code, 128+N for a
 * signal, or -1 when it could not start or timed out. */
int rtest_run(const char *const *argv, const char *out, const char *err,
              const char *const *env, double seconds);

/* Processes that name the folder on their command line (a browser's
 * crash handler starts a session of its own, outside the group): how
 * many there are, and killing them by their id. Where /proc exists; on
 * Windows none are found. */
int rtest_count_ours(void);
void rtest_kill_ours(void);

/* ---- checks with Python's parsers ---- */

/* 1 when python3 with its XML and HTML parsers runs. */
int rtest_have_python(void);

/* A Python script that parses an HTML file (argv[1]) and prints JSON:
 * "errors" (tags not balanced, event handlers, remote URLs), "tags"
 * (counts by name) and "text" (the character data). */
extern const char *const rtest_html_check_py;

/* Runs script on file with python3 in the folder (name names its files);
 * its JSON output (the caller puts it), or NULL with a diagnostic. */
json_object *rtest_python_check(const char *script, const char *file,
                                const char *name);

/* What a renderer (report_markdown, report_html, report_junit) writes of
 * r, NUL-terminated (the caller frees), or NULL when it fails. */
char *rtest_rendered(const struct report *r,
                     int (*render)(const struct report *, FILE *));

/* ---- crafted evidence with the cost figures ---- */

/* A reason and a memory label with markup and control characters. */
#define RTEST_EVIL_REASON "server line <b>missing</b> & \"q\" \x01"
#define RTEST_EVIL_LABEL "exact, tree of 2: sh<i>, node & co"

/* A single-OS full document of four lanes, as the runner writes the cost
 * figures (the caller puts it):
 * - c-c: two passed samples of 1000 round trips each, latencies of
 *   20 to 60 µs with a tail to 2 ms, both peers' CPU per round trip
 *   (1.5 and 2.5 µs client, 1.0 and 1.2 µs server), memory labelled
 *   "exact, process" covering the process;
 * - node-c: one passed sample whose server printed no line: server CPU
 *   null with RTEST_EVIL_REASON; the client's memory labelled
 *   RTEST_EVIL_LABEL, covering the tree;
 * - c-node: one passed sample whose latency and CPU are all null, each
 *   with a reason;
 * - rust-rust: one failed sample (cost null).
 * And the top-level coordinator: 12,000,000 ns of CPU over 4 s of wall,
 * peak 8 MiB. */
json_object *rtest_cost_doc(void);

#endif
