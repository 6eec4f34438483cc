/* `crossrun merge` on evidence files (evidence/merge*.c): the input is one
 * to three files, separated by a line "--8<--" (a separator: the fuzzer
 * finds it from the seeds), merged with the OSes they name required.
 *
 * Properties: a merge either gives a document and no problem, or no
 * document and at least one problem; every problem is one line; a merged
 * document can be summarised and printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/merge/merge.h"
#include "tests/fuzz/fuzz.h"

#define SEPARATOR "\n--8<--\n"
#define MAX_FILES 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *const names[MAX_FILES] = {"a.json", "b.json", "c.json"};
  static char paths[MAX_FILES][4300];
  const char *list[MAX_FILES];
  struct merge_options o = MERGE_OPTIONS_INIT;
  struct merge_problems p = MERGE_PROBLEMS_INIT;
  json_object *merged = NULL;
  const uint8_t *start = data, *end = data + size;
  int n = 0, rc;

  while (n < MAX_FILES) {
    const uint8_t *sep = NULL;
    size_t left = (size_t)(end - start);
    if (n < MAX_FILES - 1)
      sep = memmem(start, left, SEPARATOR, strlen(SEPARATOR));
    snprintf(paths[n], sizeof(paths[n]), "%s",
             fuzz_file(names[n], start, sep ? (size_t)(sep - start) : left));
    list[n] = paths[n];
    n++;
    if (sep == NULL)
      break;
    start = sep + strlen(SEPARATOR);
  }
  /* Rehearsals are allowed on every other input, so that both kinds of
   * document go deep. */
  o.allow_rehearsal = size % 2;
  rc = merge_files(&o, list, n, &merged, &p);
  FUZZ_CHECK((rc == 0) == (merged != NULL), "a result without a document");
  FUZZ_CHECK(rc == 0 ? p.count == 0 && p.dropped == 0 : p.count >= 1,
             "a verdict that disagrees with the problems");
  for (int i = 0; i < p.count; i++)
    FUZZ_CHECK(strchr(p.lines[i], '\n') == NULL &&
                   strlen(p.lines[i]) < MERGE_LINE_MAX,
               "a problem is not one short line");
  if (merged != NULL) {
    char line[1024];
    merge_summary(merged, line, sizeof(line));
    FUZZ_CHECK(memchr(line, '\0', sizeof(line)) != NULL,
               "the summary is not ended");
    FUZZ_CHECK(json_object_to_json_string_ext(merged, JSON_C_TO_STRING_PLAIN) !=
                   NULL,
               "a merged document cannot be printed");
    json_object_put(merged);
  }
  merge_problems_release(&p);
  return 0;
}
