/* The JUnit XML report: a testsuite per platform, a testcase per lane. */
#include "evidence/report/report.h"

#include <string.h>

static void attr(FILE *f, const char *name, const char *value)
{
  fprintf(f, " %s=\"", name);
  report_xml_text(f, value, 0);
  fputc('"', f);
}

static void property(FILE *f, const char *name, const char *value)
{
  if (value == NULL)
    return;
  fputs("      <property", f);
  attr(f, "name", name);
  attr(f, "value", value);
  fputs("/>\n", f);
}

enum outcome { PASS, FAIL, ERROR, SKIP };

static enum outcome outcome_of(const struct report_lane *l)
{
  const char *s = l->status;

  if (strcmp(s, "error") == 0 || l->error_reason)
    return ERROR;
  if (strcmp(s, "unavailable") == 0 || strcmp(s, "unsupported") == 0 ||
      strcmp(s, "expected_failure") == 0 || strcmp(s, "not_run") == 0)
    return SKIP;
  if (strcmp(s, "failed") == 0 || l->failed > 0)
    return FAIL;
  return PASS;
}

static double lane_seconds(const struct report_lane *l)
{
  double ns = 0;
  for (int i = 0; i < l->nsamples; i++)
    if (l->samples[i].wall_ns > 0)
      ns += (double)l->samples[i].wall_ns;
  return ns / 1e9;
}

/* One figure of the cost line: its value, or why it was not reported. */
static void cost_part(FILE *f, const char *name, const char *value,
                      const char *why)
{
  fprintf(f, "%s ", name);
  if (value != NULL)
    fputs(value, f);
  else {
    fputs("not reported: ", f);
    report_xml_text(f, why, 0);
  }
}

/* "\nlatency p50 38.1 µs, p99 ...; CPU per round trip client ..., server
 * ..." when the lane has cost figures, or reasons for them; nothing for
 * evidence older than them or a lane where nothing passed. */
static void cost_line(FILE *f, const struct report_lane *l)
{
  const struct report_figure *cpu[2] = {&l->client_cpu_per_rt,
                                        &l->server_cpu_per_rt};
  const char *why[2] = {l->client_cpu_per_rt_missing,
                        l->server_cpu_per_rt_missing};
  int64_t ps[3] = {l->latency.p50, l->latency.p99, l->latency.p99_9};
  static const char *const names[3] = {"p50", "p99", "p99.9"};
  char v[128];
  int older = !l->latency.present && cpu[0]->n == 0 && cpu[1]->n == 0 &&
              (!l->latency_missing ||
               strcmp(l->latency_missing, REPORT_OLDER_EVIDENCE) == 0);

  if (l->passed == 0 || older)
    return;
  fputs("\nlatency", f);
  for (int i = 0; i < 3; i++) {
    fputs(i ? ", " : " ", f);
    if (l->latency.present && ps[i] >= 0)
      report_format_value(v, sizeof(v), (double)ps[i], REPORT_LATENCY_NS);
    cost_part(f, names[i], l->latency.present && ps[i] >= 0 ? v : NULL,
              l->latency.present ? "none measured" : l->latency_missing);
  }
  fputs("; CPU per round trip", f);
  for (int i = 0; i < 2; i++) {
    fputs(i ? ", " : " ", f);
    if (cpu[i]->n > 0)
      report_format_figure(v, sizeof(v), cpu[i], REPORT_CPU_US);
    cost_part(f, i ? "server" : "client", cpu[i]->n > 0 ? v : NULL, why[i]);
  }
}

/* "round 2: failed at client: protocol_violation: ..." */
static void sample_line(char *out, size_t len, const struct report_sample *s)
{
  snprintf(out, len, "round %d: %s%s%s%s%s%s%s", s->round, s->status,
           s->stage ? " at " : "", s->stage ? s->stage : "",
           s->reason ? ": " : "", s->reason ? s->reason : "",
           s->message ? ": " : "", s->message ? s->message : "");
}

static void failure_body(FILE *f, const struct report_lane *l)
{
  for (int i = 0; i < l->nsamples; i++) {
    const struct report_sample *s = &l->samples[i];
    char line[2048];
    if (strcmp(s->status, "passed") == 0)
      continue;
    sample_line(line, sizeof(line), s);
    report_xml_text(f, line, 1);
    fputs("\n", f);
    if (s->reproduce) {
      fputs("reproduce: ", f);
      report_xml_text(f, s->reproduce, 0);
      fputs("\n", f);
      if (s->reproduce_directory) {
        fputs("  from: ", f);
        report_xml_text(f, s->reproduce_directory, 0);
        fputs(strcmp(s->reproduce_directory, ".") == 0
                  ? " (the checkout's root)\n"
                  : "\n",
              f);
      }
    }
    if (s->reproduce_server) {
      fputs("  server: ", f);
      report_xml_text(f, s->reproduce_server, 0);
      fputs("\n", f);
    }
    if (s->reproduce_client) {
      fputs("  client: ", f);
      report_xml_text(f, s->reproduce_client, 0);
      fputs("\n", f);
    }
    if (s->server_stderr) {
      fputs("server stderr:\n", f);
      report_xml_text(f, s->server_stderr, 1);
      fputs("\n", f);
    }
    if (s->client_stderr) {
      fputs("client stderr:\n", f);
      report_xml_text(f, s->client_stderr, 1);
      fputs("\n", f);
    }
  }
}

/* The first failed sample's line, the lane's own reason otherwise. */
static void failure_message(char *out, size_t len, const struct report_lane *l)
{
  for (int i = 0; i < l->nsamples; i++) {
    if (strcmp(l->samples[i].status, "passed") != 0 &&
        strcmp(l->samples[i].status, "unsupported") != 0) {
      sample_line(out, len, &l->samples[i]);
      return;
    }
  }
  snprintf(out, len, "%s%s%s", l->status, l->error_reason ? ": " : "",
           l->error_reason ? l->error_reason : "");
}

static const char *first_reason(const struct report_lane *l)
{
  for (int i = 0; i < l->nsamples; i++)
    if (strcmp(l->samples[i].status, "passed") != 0 && l->samples[i].reason)
      return l->samples[i].reason;
  return l->status;
}

static void testcase(FILE *f, const struct report_platform *p,
                     const struct report_lane *l)
{
  char classname[256], msg[2048], fig[128];
  enum outcome o = outcome_of(l);

  snprintf(classname, sizeof(classname), "crossrun.%s", p->os);
  fputs("    <testcase", f);
  attr(f, "name", l->name);
  attr(f, "classname", classname);
  fprintf(f, " time=\"%.3f\">\n", lane_seconds(l));
  if (o == SKIP) {
    snprintf(msg, sizeof(msg), "%s%s%s", l->status,
             l->unavailable_reason ? ": " : "",
             l->unavailable_reason ? l->unavailable_reason : "");
    if (strcmp(l->status, "unsupported") == 0 ||
        strcmp(l->status, "expected_failure") == 0)
      failure_message(msg, sizeof(msg), l);
    fputs("      <skipped", f);
    attr(f, "message", msg);
    fputs("/>\n", f);
  } else if (o == FAIL || o == ERROR) {
    const char *tag = o == FAIL ? "failure" : "error";
    failure_message(msg, sizeof(msg), l);
    fprintf(f, "      <%s", tag);
    attr(f, "message", msg);
    attr(f, "type", first_reason(l));
    fputs(">", f);
    if (l->error_reason) {
      report_xml_text(f, l->error_reason, 1);
      fputs("\n", f);
    }
    failure_body(f, l);
    fprintf(f, "</%s>\n", tag);
  }
  report_format_figure(fig, sizeof(fig), &l->ns_per_rt, REPORT_NS);
  fputs("      <system-out>", f);
  snprintf(msg, sizeof(msg),
           "%s: %d of %d samples passed; ns per round "
           "trip, median [min-max]: %s%s%s",
           l->status, l->passed, l->nsamples, fig,
           p->performance_claims ? ""
                                 : " (smoke check: no performance "
                                   "claims)",
           strcmp(l->status, "flaky") == 0 ? "; a sample passed only when "
                                             "retried"
                                           : "");
  report_xml_text(f, msg, 1);
  cost_line(f, l);
  for (int i = 0; i < l->nsamples; i++) {
    const struct report_sample *s = &l->samples[i];
    if (!s->retried)
      continue;
    snprintf(msg, sizeof(msg),
             "\nround %d: the first attempt failed%s%s%s%s"
             "%s%s; the retry %s",
             s->round, s->first_stage ? " at " : "",
             s->first_stage ? s->first_stage : "", s->first_reason ? ": " : "",
             s->first_reason ? s->first_reason : "",
             s->first_message ? ": " : "",
             s->first_message ? s->first_message : "", s->status);
    report_xml_text(f, msg, 1);
  }
  fputs("</system-out>\n    </testcase>\n", f);
}

int report_junit(const struct report *r, FILE *f)
{
  int tests = 0, counts[4] = {0, 0, 0, 0};
  double seconds = 0;

  for (int p = 0; p < r->nplatforms; p++) {
    for (int l = 0; l < r->platforms[p].nlanes; l++) {
      tests++;
      counts[outcome_of(&r->platforms[p].lanes[l])]++;
      seconds += lane_seconds(&r->platforms[p].lanes[l]);
    }
  }
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
        "name=\"crossrun\"",
        f);
  fprintf(f,
          " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" "
          "time=\"%.3f\">\n",
          tests, counts[FAIL], counts[ERROR], counts[SKIP], seconds);
  for (int i = 0; i < r->nplatforms; i++) {
    const struct report_platform *p = &r->platforms[i];
    char name[256], shard[32];
    int c[4] = {0, 0, 0, 0};
    double t = 0;

    for (int l = 0; l < p->nlanes; l++) {
      c[outcome_of(&p->lanes[l])]++;
      t += lane_seconds(&p->lanes[l]);
    }
    snprintf(name, sizeof(name), "crossrun.%s", p->os);
    fputs("  <testsuite", f);
    attr(f, "name", name);
    fprintf(f,
            " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" "
            "time=\"%.3f\">\n    <properties>\n",
            p->nlanes, c[FAIL], c[ERROR], c[SKIP], t);
    property(f, "os", p->os);
    property(f, "arch", p->machine.arch);
    property(f, "kernel", p->machine.kernel);
    property(f, "cpu_model", p->machine.cpu_model);
    property(f, "mode", p->mode);
    property(f, "performance_claims", p->performance_claims ? "true" : "false");
    property(f, "official", p->official ? "true" : "false");
    for (int k = 0; k < r->ninputs; k++)
      if (strcmp(r->inputs[k].os, p->os) == 0) {
        char pname[300];
        snprintf(pname, sizeof(pname), "provenance %s", r->inputs[k].name);
        property(f, pname, r->inputs[k].provenance);
      }
    property(f, "complete", p->complete ? "true" : "false");
    property(f, "started_at", p->started_at);
    property(f, "commit",
             p->provenance.commit ? p->provenance.commit : r->commit);
    if (p->shard_count > 0) {
      snprintf(shard, sizeof(shard), "%d of %d", p->shard_index,
               p->shard_count);
      property(f, "shard", shard);
    }
    for (int k = 0; k < p->nruntimes; k++) {
      char key[256];
      snprintf(key, sizeof(key), "toolchain.%s", p->runtimes[k].name);
      property(f, key, p->runtimes[k].toolchain_version);
    }
    fputs("    </properties>\n", f);
    for (int l = 0; l < p->nlanes; l++)
      testcase(f, p, &p->lanes[l]);
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
  fflush(f);
  return ferror(f) ? -1 : 0;
}
