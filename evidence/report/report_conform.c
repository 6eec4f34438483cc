/* The conformance reports (evidence/report/report_conform.h). One walk
 * over the document feeds both text formats through a small sink: a
 * Markdown table and an HTML table differ only in their punctuation. */
#include "evidence/report/report_conform.h"

#include <stdint.h>
#include <string.h>

#include "evidence/report/report_text.h"

static json_object *get(json_object *o, const char *key)
{
  json_object *v = NULL;
  if (!json_object_is_type(o, json_type_object) ||
      !json_object_object_get_ex(o, key, &v))
    return NULL;
  return v;
}

static const char *str(json_object *o, const char *key)
{
  json_object *v = get(o, key);
  return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                  : NULL;
}

static const char *str_or(json_object *o, const char *key, const char *dflt)
{
  const char *s = str(o, key);
  return s ? s : dflt;
}

static int64_t int_or(json_object *o, const char *key, int64_t dflt)
{
  json_object *v = get(o, key);
  return json_object_is_type(v, json_type_int) ? json_object_get_int64(v)
                                               : dflt;
}

int report_conform_is(json_object *doc)
{
  const char *mode = str(doc, "mode");
  return mode != NULL && strcmp(mode, "conform") == 0;
}

/* ---- Markdown and HTML ---- */

struct sink {
  FILE *f;
  int html;
};

/* Text in a table cell or a paragraph: escaped for the format, on one
 * line. */
static void text(struct sink *s, const char *t)
{
  if (t == NULL)
    return;
  if (s->html) {
    report_xml_text(s->f, t, 0);
    return;
  }
  while (*t != '\0') {
    uint32_t cp;
    int n = report_utf8_next(t, &cp);
    if (cp == '|' || cp == '\\' || cp == '`' || cp == '*' || cp == '_' ||
        cp == '<' || cp == '>' || cp == '[' || cp == ']')
      fputc('\\', s->f);
    if (cp < 0x20 || cp == 0x7f)
      fputc(' ', s->f);
    else
      report_put_utf8(s->f, cp);
    t += n;
  }
}

static void heading(struct sink *s, int level, const char *a, const char *b)
{
  if (s->html)
    fprintf(s->f, "<h%d>", level);
  else
    fprintf(s->f, "\n%.*s ", level, "######");
  text(s, a);
  text(s, b);
  fputs(s->html ? "</h" : "\n\n", s->f);
  if (s->html)
    fprintf(s->f, "%d>\n", level);
}

static void row(struct sink *s, int header, int n, const char *const *cells)
{
  fputs(s->html ? "<tr>" : "|", s->f);
  for (int i = 0; i < n; i++) {
    if (s->html)
      fputs(header ? "<th>" : "<td>", s->f);
    else
      fputc(' ', s->f);
    text(s, cells[i]);
    fputs(s->html ? (header ? "</th>" : "</td>") : " |", s->f);
  }
  fputs(s->html ? "</tr>\n" : "\n", s->f);
  if (header && !s->html) {
    fputc('|', s->f);
    for (int i = 0; i < n; i++)
      fputs(" --- |", s->f);
    fputc('\n', s->f);
  }
}

static void table_open(struct sink *s)
{
  if (s->html)
    fputs("<table>\n", s->f);
}

static void table_close(struct sink *s)
{
  fputs(s->html ? "</table>\n" : "\n", s->f);
}

static void para(struct sink *s, const char *a, const char *b)
{
  fputs(s->html ? "<p>" : "", s->f);
  text(s, a);
  text(s, b);
  fputs(s->html ? "</p>\n" : "\n\n", s->f);
}

static void role_counts(json_object *cases, const char *role, int t[4])
{
  memset(t, 0, 4 * sizeof(t[0]));
  json_object_object_foreach(cases, key, c)
  {
    const char *v = str_or(c, "verdict", "error");
    (void)key;
    if (!json_object_is_type(c, json_type_object) ||
        strcmp(str_or(c, "role", ""), role) != 0)
      continue;
    t[0]++;
    t[strcmp(v, "passed") == 0 ? 1 : strcmp(v, "failed") == 0 ? 2 : 3]++;
  }
}

static void expected_text(json_object *c, char *out, size_t len)
{
  json_object *e = get(c, "expected");
  const char *outcome = str_or(e, "outcome", "?");
  int64_t code = int_or(e, "error_code", 0);

  if (strcmp(outcome, "reject") == 0)
    snprintf(
        out, len, "reject %s%s%.0d", str_or(e, "rejection", "?"),
        strcmp(str_or(e, "error_frame", ""), "required") == 0 ? ", ERROR code "
                                                              : "",
        strcmp(str_or(e, "error_frame", ""), "required") == 0 ? (int)code : 0);
  else if (strcmp(outcome, "usage") == 0)
    snprintf(out, len, "exit 2 (usage)");
  else
    snprintf(out, len, "pass the session");
}

static void observed_text(json_object *c, char *out, size_t len)
{
  json_object *o = get(c, "observed");
  json_object *exit_code = get(o, "exit_code");
  char code[32] = "";

  if (json_object_is_type(get(o, "error_frame_code"), json_type_int))
    snprintf(code, sizeof(code), ", ERROR code %lld",
             (long long)int_or(o, "error_frame_code", 0));
  if (json_object_is_type(exit_code, json_type_int))
    snprintf(out, len, "exit %lld%s%s: %s",
             (long long)json_object_get_int64(exit_code), code,
             json_object_get_boolean(get(o, "timed_out")) ? " (stopped)" : "",
             str_or(o, "stderr_line", ""));
  else
    snprintf(out, len, "signal %lld%s: %s", (long long)int_or(o, "signal", 0),
             code, str_or(o, "stderr_line", ""));
}

static void runtime_section(struct sink *s, const char *name, json_object *rt)
{
  static const char *const roles[] = {"server", "client"};
  json_object *cases = get(rt, "cases");
  const char *status = str_or(rt, "status", "?");
  int shown = 0;

  heading(s, 3, "Conformance of ", name);
  if (strcmp(status, "unavailable") == 0) {
    para(s, "unavailable: ", str_or(rt, "unavailable_reason", "?"));
    return;
  }
  para(s, "status: ", status);
  table_open(s);
  {
    const char *h[] = {"role", "cases", "passed", "failed", "error"};
    row(s, 1, 5, h);
  }
  for (int k = 0; k < 2; k++) {
    int t[4];
    char n[4][16];
    const char *cells[5];
    role_counts(cases, roles[k], t);
    cells[0] = roles[k];
    for (int i = 0; i < 4; i++) {
      snprintf(n[i], sizeof(n[i]), "%d", t[i]);
      cells[i + 1] = n[i];
    }
    row(s, 0, 5, cells);
  }
  table_close(s);
  json_object_object_foreach(cases, key, c)
  {
    const char *v = str_or(c, "verdict", "error");
    char expected[160], observed[400];
    const char *cells[5];
    if (strcmp(v, "passed") == 0)
      continue;
    if (shown++ == 0) {
      const char *h[] = {"case", "verdict", "expected", "observed",
                         "reason and bytes sent (hex)"};
      table_open(s);
      row(s, 1, 5, h);
    }
    expected_text(c, expected, sizeof(expected));
    observed_text(c, observed, sizeof(observed));
    {
      char reason[700];
      snprintf(reason, sizeof(reason), "%s; sent %s%s", str_or(c, "reason", ""),
               str_or(get(c, "sent"), "hex", ""),
               json_object_get_boolean(get(get(c, "sent"), "hex_complete"))
                   ? ""
                   : "...");
      cells[0] = key;
      cells[1] = v;
      cells[2] = expected;
      cells[3] = observed;
      cells[4] = reason;
      row(s, 0, 5, cells);
    }
  }
  if (shown > 0)
    table_close(s);
  else
    para(s, "every case passed", NULL);
}

static int body(struct sink *s, json_object *doc, const char *source)
{
  json_object *all = get(doc, "conformance");

  heading(s, 2, "Conformance: ", source);
  para(s,
       "Each runtime's server and client against crossrun's scripted peer "
       "(crossrun conform): every rejection of protocol/SPEC.md and every "
       "valid edge session, case by case. Machine: ",
       str_or(get(doc, "machine"), "os", "?"));
  if (!json_object_is_type(get(doc, "complete"), json_type_boolean) ||
      !json_object_get_boolean(get(doc, "complete")))
    para(s, "incomplete: ", str_or(doc, "incomplete_reason", "?"));
  json_object_object_foreach(all, name, rt)
  {
    runtime_section(s, name, rt);
  }
  return ferror(s->f) ? -1 : 0;
}

int report_conform_markdown(json_object *doc, const char *source, FILE *f)
{
  struct sink s = {f, 0};
  return body(&s, doc, source);
}

int report_conform_html(json_object *doc, const char *source, FILE *f)
{
  struct sink s = {f, 1};
  int rc;

  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>crossrun conformance: ",
        f);
  report_xml_text(f, source, 0);
  fputs("</title><style>body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
        "vertical-align:top}</style></head>\n<body><main>\n",
        f);
  rc = body(&s, doc, source);
  fputs("</main></body></html>\n", f);
  return rc == 0 && !ferror(f) ? 0 : -1;
}

/* ---- JUnit ---- */

static void attr(FILE *f, const char *name, const char *value)
{
  fprintf(f, " %s=\"", name);
  report_xml_text(f, value, 0);
  fputc('"', f);
}

int report_conform_junit(json_object *doc, const char *source, FILE *f)
{
  json_object *all = get(doc, "conformance");

  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
  attr(f, "name", source);
  fputs(">\n", f);
  json_object_object_foreach(all, name, rt)
  {
    json_object *cases = get(rt, "cases");
    int64_t failed = int_or(rt, "failed", 0), errors = int_or(rt, "error", 0);

    fprintf(f, "  <testsuite");
    attr(f, "name", name);
    fprintf(f, " tests=\"%lld\" failures=\"%lld\" errors=\"%lld\">\n",
            (long long)int_or(rt, "total", 0), (long long)failed,
            (long long)errors);
    if (strcmp(str_or(rt, "status", ""), "unavailable") == 0) {
      fputs("    <testcase name=\"conformance\"><skipped", f);
      attr(f, "message", str_or(rt, "unavailable_reason", "unavailable"));
      fputs("/></testcase>\n", f);
    }
    json_object_object_foreach(cases, key, c)
    {
      const char *v = str_or(c, "verdict", "error");
      double s = (double)int_or(get(c, "observed"), "wall_ns", 0) / 1e9;
      char expected[160], observed[400];

      fputs("    <testcase", f);
      attr(f, "classname", name);
      attr(f, "name", key);
      fprintf(f, " time=\"%.3f\">", s);
      expected_text(c, expected, sizeof(expected));
      observed_text(c, observed, sizeof(observed));
      if (strcmp(v, "failed") == 0 || strcmp(v, "error") == 0) {
        fputs(strcmp(v, "failed") == 0 ? "<failure" : "<error", f);
        attr(f, "message", str_or(c, "reason", v));
        fputs(">expected: ", f);
        report_xml_text(f, expected, 0);
        fputs("\nobserved: ", f);
        report_xml_text(f, observed, 0);
        fputs("\nsent (hex): ", f);
        report_xml_text(f, str_or(get(c, "sent"), "hex", ""), 0);
        fputs(strcmp(v, "failed") == 0 ? "</failure>" : "</error>", f);
      }
      fputs("</testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
  return ferror(f) ? -1 : 0;
}
