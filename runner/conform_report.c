/* `crossrun report` of conformance evidence (mode conform): its own
 * renderers (evidence/report/report_conform.h), the same outputs. */
#include "runner/conform_report.h"

#include <stdlib.h>
#include <string.h>

#include "evidence/base/json_read.h"
#include "evidence/report/report_conform.h"
#include "runner/outfile.h"
#include "runner/run.h"

struct conform_output {
  json_object *doc;
  const char *source;
  int kind;
};

static int render(const struct conform_output *o, FILE *f)
{
  switch (o->kind) {
  case CONFORM_REPORT_MARKDOWN:
    return report_conform_markdown(o->doc, o->source, f);
  case CONFORM_REPORT_HTML:
    return report_conform_html(o->doc, o->source, f);
  default:
    return report_conform_junit(o->doc, o->source, f);
  }
}

static int render_output(void *ctx, FILE *f)
{
  return render(ctx, f);
}

int conform_report(const char *file, const char *baseline,
                   const char *const *outputs, FILE *out, FILE *errf)
{
  struct conform_output o;
  json_object *doc = NULL;
  char err[512];
  const char *slash = strrchr(file, '/'), *summary;
  int rc = RUN_EXIT_OK;

  if (json_read_file(file, JSON_READ_MAX_BYTES, &doc, err, sizeof(err)) != 0)
    return -1; /* report_load says why, as for any file */
  if (!report_conform_is(doc)) {
    json_object_put(doc);
    return -1;
  }
  if (baseline != NULL) {
    fprintf(errf,
            "crossrun report: --baseline: %s is conformance evidence, which "
            "has no figures to compare\n",
            file);
    json_object_put(doc);
    return RUN_EXIT_USAGE;
  }
  o.doc = doc;
  o.source = slash ? slash + 1 : file;
  for (int k = 0; k < CONFORM_REPORT_KINDS; k++) {
    if (outputs[k] == NULL)
      continue;
    o.kind = k;
    if (strcmp(outputs[k], "-") == 0) {
      if (render(&o, out) != 0) {
        fprintf(errf, "crossrun report: standard output: cannot write\n");
        rc = RUN_EXIT_FAILED;
      }
    } else if (outfile_write("report", outputs[k], render_output, &o, errf) !=
               0) {
      rc = RUN_EXIT_FAILED;
    }
  }
  summary = getenv("GITHUB_STEP_SUMMARY");
  if (summary != NULL && summary[0] != '\0') {
    FILE *f = fopen(summary, "ab");
    o.kind = CONFORM_REPORT_MARKDOWN;
    if (f == NULL || render(&o, f) != 0) {
      fprintf(errf,
              "crossrun report: %s (GITHUB_STEP_SUMMARY): cannot "
              "append\n",
              summary);
      rc = RUN_EXIT_FAILED;
    }
    if (f != NULL)
      fclose(f);
  }
  json_object_put(doc);
  return rc;
}
