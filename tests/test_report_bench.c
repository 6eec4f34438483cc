/* What `make bench` prints after its run (bench/figures/figures.c), from
 * crafted evidence (tests/lib_report.h's rtest_cost_doc with a baseline
 * lane): each lane's time, p50/p99/p99.9, CPU per round trip of each peer
 * and peak memory with its label; a null figure as "not reported" with
 * its reason below; each figure's ratio to the baseline's; the
 * coordinator's own figures from the evidence, or, when the evidence has
 * none, the reaped command's rusage said for what it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_json.h"
#include "tests/lib_report.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char figures[1100];

/* Runs figures with args; its exit status, its stdout in *out (the caller
 * frees). */
static int run_figures(const char *const *args, char **out)
{
  const char *argv[16];
  int n = 0, rc;

  argv[n++] = figures;
  for (int i = 0; args[i] && n < 15; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  rc = rtest_run(argv, rtest_in_dir("figures.out"), rtest_in_dir("figures.err"),
                 NULL, tap_timeout_s(30));
  *out = rtest_slurp(rtest_in_dir("figures.out"), NULL);
  if (rc != 0) {
    char *e = rtest_slurp(rtest_in_dir("figures.err"), NULL);
    tap_diag("figures exited with %d: %s", rc, e ? e : "");
    free(e);
  }
  return rc;
}

/* The cost doc with c-c copied as the baseline's lane, written to name. */
static const char *write_doc(const char *name, int with_coordinator)
{
  json_object *doc = rtest_cost_doc(), *base = NULL;
  const char *path = rtest_in_dir(name);

  json_object_deep_copy(json_at(doc, "lanes.c-c"), &base, NULL);
  json_object_object_add(base, "client_runtime",
                         json_object_new_string("baseline"));
  json_object_object_add(base, "server_runtime",
                         json_object_new_string("baseline"));
  json_object_object_add(json_at(doc, "lanes"), "baseline-baseline", base);
  if (!with_coordinator)
    json_object_object_del(doc, "coordinator");
  json_object_to_file(path, doc);
  json_object_put(doc);
  return path;
}

/* The line of out that starts with lane (and a space), or NULL. */
static const char *line_of(const char *out, const char *after, const char *lane)
{
  const char *p = out ? strstr(out, after) : NULL;
  size_t n = strlen(lane);

  while (p && (p = strchr(p, '\n')) != NULL) {
    p++;
    if (strncmp(p, lane, n) == 0 && p[n] == ' ')
      return p;
  }
  return NULL;
}

static void test_figures(void)
{
  char path[1100], *out = NULL;
  const char *args[] = {"--evidence", path, NULL};
  const char *l;
  int rc;

  snprintf(path, sizeof(path), "%s", write_doc("bench.json", 1));
  rc = run_figures(args, &out);
  TAP_EQ_INT(rc, 0, "figures of evidence: exit 0");
  TAP_OK(out && strstr(out, "cost per round trip on linux") &&
             strstr(out, "lane  ") && strstr(out, "p99.9") &&
             strstr(out, "client CPU/rt") && strstr(out, "server peak memory"),
         "the figures' table and its columns");
  l = line_of(out, "cost per round trip", "c-c");
  TAP_OK(l && strstr(l, "31000") && strstr(l, "38.1 \xc2\xb5s") &&
             strstr(l, "59.9 \xc2\xb5s") && strstr(l, "598.0 \xc2\xb5s") &&
             strstr(l, "2.00 \xc2\xb5s") && strstr(l, "1.10 \xc2\xb5s") &&
             strstr(l, "2.0 MiB exact, process only") && l < strchr(l, '\n') &&
             strstr(l, "3.0 MiB exact, process only") < strchr(l, '\n'),
         "c-c: time, p50/p99/p99.9, CPU per round trip of each peer, peak "
         "memory with its label: %.*s",
         l ? (int)strcspn(l, "\n") : 0, l ? l : "");
  l = line_of(out, "cost per round trip", "node-c");
  TAP_OK(l && strstr(l, "not reported") &&
             strstr(l, "46.0 MiB exact, tree of 2: sh<i>, node & co"),
         "node-c: a null server figure is 'not reported', never 0");
  TAP_OK(out && strstr(out, "not reported:\n") &&
             strstr(out, "  node-c server CPU/rt: server line <b>missing</b> "
                         "& \"q\" ") &&
             strstr(out, "  c-node latency: the client reported no latency"),
         "the reasons of the null figures");
  l = line_of(out, "ratio of each figure", "node-c");
  TAP_OK(l && strstr(l, "1.45x") && strstr(l, "-") &&
             line_of(out, "ratio of each figure", "c-c") &&
             strstr(line_of(out, "ratio of each figure", "c-c"), "1.00x") &&
             !line_of(out, "ratio of each figure", "baseline-baseline") &&
             !line_of(out, "ratio of each figure", "rust-rust"),
         "each figure's ratio to the baseline's, '-' where one is missing");
  TAP_OK(out && strstr(out, "coordinator: crossrun's own CPU 12.0 ms over "
                            "4.00 s of wall time (0.30%), peak memory 8.0 "
                            "MiB (from the evidence)"),
         "the coordinator's own figures from the evidence");
  free(out);
}

static void test_run(void)
{
  char src[1100], dst[1100], script[2400], *out = NULL;
  const char *args[] = {"--evidence", dst, "--", "/bin/sh", "-c", script, NULL};
  FILE *f;
  int rc;

  snprintf(src, sizeof(src), "%s", write_doc("src.json", 0));
  snprintf(dst, sizeof(dst), "%s", rtest_in_dir("out.json"));
  /* An older file must be gone before the command runs. */
  f = fopen(dst, "w");
  if (f)
    fclose(f);
  snprintf(script, sizeof(script),
           "test ! -e '%s' && cp '%s' '%s' && echo ran; exit 3", dst, src, dst);
  rc = run_figures(args, &out);
  TAP_EQ_INT(rc, 3, "with a command: its exit status");
  TAP_OK(out && strncmp(out, "ran\n", 4) == 0 &&
             line_of(out, "cost per round trip", "c-c"),
         "the command ran with our output, after the old evidence was "
         "removed, and the figures follow");
  TAP_OK(out &&
             strstr(out, "coordinator: not in the evidence; crossrun's "
                         "rusage as bench reaped it counts every process "
                         "crossrun reaped too:") &&
             strstr(out, "an upper bound of crossrun's own"),
         "no coordinator in the evidence: the reaped rusage, said for what "
         "it is");
  free(out);
  args[1] = rtest_in_dir("missing.json");
  args[2] = NULL;
  rc = run_figures(args, &out);
  TAP_EQ_INT(rc, 1, "evidence that cannot be read: exit 1");
  free(out);
}

int main(void)
{
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";

  snprintf(figures, sizeof(figures), "%s/bench/figures", b);
  if (access(figures, X_OK) != 0) {
    /* Not built where the baseline is not (Windows). */
    printf("ok %d - # SKIP %s not built\n", ++tap_count, figures);
    return tap_done();
  }
  if (tap_mkdtemp(rtest_dir, sizeof(rtest_dir)) == NULL) {
    TAP_OK(0, "a scratch folder");
    return tap_done();
  }
  test_figures();
  test_run();
  if (rtest_dir[0] != '\0' && scratch_remove_tree(rtest_dir, 0) != 0)
    tap_diag("could not remove %s", rtest_dir);
  return tap_done();
}
