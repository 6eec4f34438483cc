/* `crossrun compare OLD NEW`: what changed between two evidence files, as
 * rows (lane or runtime, platform, figure) with a verdict each, decided
 * from the raw samples (evidence/diff/diff_u.h) for sampled figures and
 * exactly for the packages. Reads evidence documents only (DESIGN.md):
 * any two, single-OS (quick, full, record) or merged, on any machine.
 * README.md, "Comparing two runs", says what every verdict means;
 * evidence/diff/compare.schema.json is the JSON of diff_json. */
#ifndef CROSSRUN_EVIDENCE_DIFF_H
#define CROSSRUN_EVIDENCE_DIFF_H

#include <stdio.h>
#include <json-c/json.h>

#define DIFF_DEFAULT_ALPHA 0.05
#define DIFF_DEFAULT_THRESHOLD_PCT 5.0
#define DIFF_NAME_MAX 128
#define DIFF_TEXT_MAX 320

struct diff_options {
  double alpha;         /* two-sided, of the Holm-adjusted p */
  double threshold_pct; /* a significant change within it is a tie */
  int allow_different_machines;
};

#define DIFF_OPTIONS_INIT                                                      \
  {                                                                            \
    DIFF_DEFAULT_ALPHA, DIFF_DEFAULT_THRESHOLD_PCT, 0                          \
  }

/* What a row is about. */
enum diff_row_kind {
  DIFF_ROW_SAMPLED, /* a lane's figure, one value per passed sample */
  DIFF_ROW_GEOMEAN, /* a figure's geometric mean over a platform's lanes */
  DIFF_ROW_STATUS,  /* a lane's summary.status changed */
  DIFF_ROW_LANE,    /* a lane in one file only: "new lane" or "gone" */
  DIFF_ROW_PACKAGE  /* a runtime's package figure, exact */
};

/* Median with min and max of n values (n 0: none). */
struct diff_side {
  int n;
  double median, min, max;
};

struct diff_row {
  enum diff_row_kind kind;
  char platform[16];
  char subject[DIFF_NAME_MAX]; /* lane, runtime, or "geomean" */
  const char *figure;          /* "ns_per_round_trip", "packed_bytes", ... */
  const char *unit;            /* "ns", "us", "bytes", "files", "" */
  struct diff_side old_side, new_side;
  char old_text[DIFF_TEXT_MAX]; /* a status, a hash, "none" ... or "" */
  char new_text[DIFF_TEXT_MAX];
  int have_change;
  double change_pct;
  /* "slower", "faster", "bigger", "smaller", "tie", "~", "same",
   * "changed", "new lane", "gone", "status changed", "not compared" */
  const char *verdict;
  char reason[DIFF_TEXT_MAX]; /* why not compared; "" otherwise */
  int tested;                 /* the U test ran (sampled, comparable) */
  double u, p, p_holm;
  int p_exact;
  int regression; /* counts for --fail-on-regression */
};

/* One entry of a package that differs between the files. */
struct diff_entry {
  char platform[16];
  char runtime[DIFF_NAME_MAX];
  char path[DIFF_TEXT_MAX];
  const char *change;             /* "added", "removed", "grown", "shrunk" */
  long long old_bytes, new_bytes; /* -1 where absent */
};

/* Why a platform's sampled figures were not compared. */
struct diff_note {
  char platform[16];
  char text[DIFF_TEXT_MAX];
};

struct diff_file {
  char mode[16];
  int performance_claims;
};

struct diff {
  struct diff_options opts;
  struct diff_file old_file, new_file;
  struct diff_row *rows;
  int nrows, rows_cap;
  struct diff_entry *entries;
  int nentries, entries_cap;
  struct diff_note *notes;
  int nnotes, notes_cap;
  int tested;      /* U tests made: the Holm family */
  int regressions; /* rows with regression set */
};

/* Compares old_doc with new_doc (evidence documents, borrowed) into d,
 * which this initialises (diff_release frees it whatever is returned).
 * Returns 0, or -1 with the problem in err ("NEW: not an evidence
 * document: no mode") or when out of memory. */
int diff_compare(struct diff *d, json_object *old_doc, json_object *new_doc,
                 const struct diff_options *opts, char *err, size_t errlen);

void diff_release(struct diff *d);

/* The comparison as the terminal shows it (plain columns), or as
 * GitHub-flavoured Markdown for a pull request or $GITHUB_STEP_SUMMARY.
 * old_name and new_name label the files. Return 0, or -1 when f fails. */
int diff_print(const struct diff *d, const char *old_name, const char *new_name,
               FILE *f);
int diff_markdown(const struct diff *d, const char *old_name,
                  const char *new_name, FILE *f);

/* The comparison as a new JSON document (evidence/diff/compare.schema.json)
 * the caller puts; NULL when out of memory. */
json_object *diff_json(const struct diff *d, const char *old_name,
                       const char *new_name);

/* The columns of the table diff_print and diff_markdown write, for other
 * renderers of the same rows (the HTML report's baseline section). */
#define DIFF_COLUMNS 8
extern const char *const diff_headings[DIFF_COLUMNS];

/* Row r's cells as the table shows them ("" where a cell is empty). */
void diff_row_cells(const struct diff_row *r,
                    char cells[DIFF_COLUMNS][DIFF_TEXT_MAX]);

/* The indexes of d's rows in the order the table shows them (each
 * platform's rows together), into *order (a new array the caller frees).
 * Returns how many (d->nrows), or -1 when out of memory. */
int diff_row_order(const struct diff *d, int **order);

/* Text of a figure's value in its unit ("1.2 ms", "4.0 MiB", "17"). */
void diff_value_text(const char *unit, double v, char *out, size_t outlen);

#endif
