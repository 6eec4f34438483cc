/* What `make bench` prints after its run: per lane of the evidence, the
 * cost of a round trip for the full workload (time, p50/p99/p99.9 latency,
 * each peer's CPU per round trip, each peer's peak memory with its label),
 * each figure's ratio to the raw loopback baseline's, and what crossrun
 * itself cost.
 *
 *   figures --evidence FILE [-- COMMAND ARG...]
 *
 * With a command (bench/run gives crossrun's), FILE is removed, the
 * command runs as a child with our stdout and stderr, and the figures are
 * printed from the FILE it wrote; the exit status is the command's (128+N
 * for a signal). Without one, FILE is read as it is. The evidence is read
 * into the report model (evidence/report/report.h), so these are the
 * figures the reports show.
 *
 * crossrun's own cost comes from the evidence's coordinator figures. When
 * the evidence has none and we ran the command, it is what the reaped
 * command's rusage says, which counts every process crossrun reaped too:
 * printed as such, with the peers' CPU from the evidence taken off, an upper
 * bound rather than crossrun's own figure. */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "evidence/report/report.h"

extern char **environ;

#define COLS 9
#define CELL 160
/* Issue 11: c-c over tls within this of the baseline over tls. */
#define TLS_AIM 1.3

/* ---- a table on the terminal, columns as wide as their cells ---- */

struct table {
  int ncols, nrows;
  char (*cells)[COLS][CELL]; /* row 0: the titles */
};

/* Columns a cell takes on a terminal: UTF-8 continuation bytes none. */
static int width_of(const char *s)
{
  int w = 0;
  for (; *s; s++)
    w += ((unsigned char)*s & 0xc0) != 0x80;
  return w;
}

static void table_print(const struct table *t)
{
  int w[COLS] = {0};

  for (int r = 0; r < t->nrows; r++)
    for (int c = 0; c < t->ncols; c++)
      if (width_of(t->cells[r][c]) > w[c])
        w[c] = width_of(t->cells[r][c]);
  for (int r = 0; r < t->nrows; r++) {
    for (int c = 0; c < t->ncols; c++) {
      int pad = c + 1 < t->ncols ? w[c] - width_of(t->cells[r][c]) + 2 : 0;
      fputs(t->cells[r][c], stdout);
      printf("%*s", pad, "");
    }
    fputs("\n", stdout);
  }
}

/* ---- the figures of a lane ---- */

/* The figures compared, as numbers (NAN: none) in their units. */
struct lane_numbers {
  double v[6]; /* ns/rt, p50, p99, p99.9, client CPU/rt, server CPU/rt */
};

static void numbers_of(const struct report_lane *l, struct lane_numbers *n)
{
  int64_t ps[3] = {l->latency.p50, l->latency.p99, l->latency.p99_9};

  n->v[0] = l->ns_per_rt.n > 0 ? l->ns_per_rt.median : NAN;
  for (int i = 0; i < 3; i++)
    n->v[1 + i] = l->latency.present && ps[i] >= 0 ? (double)ps[i] : NAN;
  n->v[4] = l->client_cpu_per_rt.n > 0 ? l->client_cpu_per_rt.median : NAN;
  n->v[5] = l->server_cpu_per_rt.n > 0 ? l->server_cpu_per_rt.median : NAN;
}

/* A figure's cell: its value, else "not reported" (the reason is listed
 * under the table) or "-" when nothing passed. */
static void value_cell(char *out, double v, enum report_unit unit,
                       const char *why)
{
  if (!isnan(v))
    report_format_value(out, CELL, v, unit);
  else
    snprintf(out, CELL, "%s", why ? "not reported" : "-");
}

static void memory_cell(char *out, const struct report_figure *f,
                        const char *label, const char *covers)
{
  char text[CELL];

  if (f->n == 0) {
    snprintf(out, CELL, "-");
    return;
  }
  report_format_value(out, CELL, f->median, REPORT_BYTES);
  if (report_memory_label(text, sizeof(text), label, covers)) {
    size_t used = strlen(out);
    snprintf(out + used, CELL - used, " %s", text);
  }
}

/* The baseline over transport ("tcp" or "tls"). */
static const struct report_lane *baseline_of(const struct report_platform *p,
                                             const char *transport)
{
  for (int i = 0; i < p->nlanes; i++)
    if (strcmp(p->lanes[i].client, "baseline") == 0 &&
        strcmp(p->lanes[i].server, "baseline") == 0 &&
        strcmp(p->lanes[i].transport, transport) == 0)
      return &p->lanes[i];
  return NULL;
}

static void figures_table(const struct report_platform *p, struct table *t)
{
  static const char *const titles[COLS] = {"lane",
                                           "ns/rt",
                                           "p50",
                                           "p99",
                                           "p99.9",
                                           "client CPU/rt",
                                           "server CPU/rt",
                                           "client peak memory",
                                           "server peak memory"};
  static const enum report_unit units[6] = {
      REPORT_NS,         REPORT_LATENCY_NS, REPORT_LATENCY_NS,
      REPORT_LATENCY_NS, REPORT_CPU_US,     REPORT_CPU_US};

  t->ncols = COLS;
  t->nrows = 1;
  for (int c = 0; c < COLS; c++)
    snprintf(t->cells[0][c], CELL, "%s", titles[c]);
  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    const char *why[6] = {NULL,
                          l->latency_missing,
                          l->latency_missing,
                          l->latency_missing,
                          l->client_cpu_per_rt_missing,
                          l->server_cpu_per_rt_missing};
    struct lane_numbers n;
    char(*row)[CELL] = t->cells[t->nrows++];

    numbers_of(l, &n);
    snprintf(row[0], CELL, "%s", l->name);
    for (int k = 0; k < 6; k++)
      value_cell(row[1 + k], n.v[k], units[k], why[k]);
    if (l->passed == 0)
      snprintf(row[1], CELL, "%s", l->status);
    memory_cell(row[7], &l->client_rss, l->client_rss_label,
                l->client_rss_covers);
    memory_cell(row[8], &l->server_rss, l->server_rss_label,
                l->server_rss_covers);
  }
}

static int any_tls(const struct report_platform *p)
{
  for (int i = 0; i < p->nlanes; i++)
    if (strcmp(p->lanes[i].transport, "tls") == 0)
      return 1;
  return 0;
}

static void ratio_table(const struct report_platform *p,
                        const struct report_lane *base, struct table *t);

/* The lanes over tls against the baseline over tls (the same frames over
 * OpenSSL, blocking), and c-c+tls against the aim of issue 11. */
static void tls_ratios(const struct report_platform *p,
                       const struct report_lane *tls, struct table *t)
{
  const struct report_lane *cc = NULL;

  if (tls == NULL || tls->passed == 0 || tls->ns_per_rt.n == 0) {
    printf("\nno tls ratios: the baseline over tls (baseline-baseline+tls) "
           "did not pass\n");
    return;
  }
  printf("\nratio of each figure of the lanes over tls to the baseline's "
         "over tls:\n\n");
  ratio_table(p, tls, t);
  table_print(t);
  for (int i = 0; i < p->nlanes; i++)
    if (strcmp(p->lanes[i].name, "c-c+tls") == 0)
      cc = &p->lanes[i];
  if (cc != NULL && cc->ns_per_rt.n > 0)
    printf("\nc-c+tls: %.2fx the baseline over tls in ns/rt (aim: within "
           "%.1fx)\n",
           cc->ns_per_rt.median / tls->ns_per_rt.median, TLS_AIM);
}

/* Each figure of each lane over the baseline's, "1.77x"; "-" where either
 * is missing; the lanes of the baseline's transport. */
static void ratio_table(const struct report_platform *p,
                        const struct report_lane *base, struct table *t)
{
  static const char *const titles[7] = {
      "lane", "ns/rt", "p50", "p99", "p99.9", "client CPU/rt", "server CPU/rt"};
  struct lane_numbers b;

  numbers_of(base, &b);
  t->ncols = 7;
  t->nrows = 1;
  for (int c = 0; c < 7; c++)
    snprintf(t->cells[0][c], CELL, "%s", titles[c]);
  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    struct lane_numbers n;
    char(*row)[CELL] = t->cells[t->nrows];

    if (l == base || l->passed == 0 ||
        strcmp(l->transport, base->transport) != 0)
      continue;
    t->nrows++;
    numbers_of(l, &n);
    snprintf(row[0], CELL, "%s", l->name);
    for (int k = 0; k < 6; k++) {
      if (isnan(n.v[k]) || isnan(b.v[k]) || !(b.v[k] > 0))
        snprintf(row[1 + k], CELL, "-");
      else
        snprintf(row[1 + k], CELL, "%.2fx", n.v[k] / b.v[k]);
    }
  }
}

/* Why each null figure is null, a line each; evidence older than the
 * figures is said once. */
static void reasons(const struct report_platform *p)
{
  int header = 0, older = 0;

  for (int i = 0; i < p->nlanes; i++) {
    const struct report_lane *l = &p->lanes[i];
    const char *name[3] = {"latency", "client CPU/rt", "server CPU/rt"};
    const char *why[3] = {l->latency_missing, l->client_cpu_per_rt_missing,
                          l->server_cpu_per_rt_missing};
    for (int k = 0; k < 3; k++) {
      if (why[k] == NULL)
        continue;
      if (strcmp(why[k], REPORT_OLDER_EVIDENCE) == 0) {
        older++;
        continue;
      }
      if (!header++)
        printf("not reported:\n");
      printf("  %s %s: %s\n", l->name, name[k], why[k]);
    }
  }
  if (older)
    printf("no latency and no CPU per round trip where not reported: %s\n",
           REPORT_OLDER_EVIDENCE);
}

/* ---- crossrun's own cost ---- */

struct child_cost {
  int ran;
  double wall_ns;
  double cpu_ns; /* user + system of the reaped command and all it reaped */
  long maxrss_kib;
};

/* The peers' CPU over every sample of p, from the evidence. */
static double peers_cpu_ns(const struct report_platform *p)
{
  double ns = 0;
  for (int i = 0; i < p->nlanes; i++)
    ns += p->lanes[i].peers_cpu_ns;
  return ns;
}

static void coordinator(const struct report_platform *p,
                        const struct child_cost *cc)
{
  char text[512], cpu[64], wall[64], peak[64];
  double others;

  if (report_coordinator_text(text, sizeof(text), p)) {
    printf("coordinator: %s (from the evidence)\n", text);
    return;
  }
  if (!cc->ran) {
    printf("coordinator: not reported (the evidence has no coordinator "
           "figures)\n");
    return;
  }
  others = cc->cpu_ns - peers_cpu_ns(p);
  report_format_value(cpu, sizeof(cpu), cc->cpu_ns, REPORT_CPU_NS);
  report_format_value(wall, sizeof(wall), cc->wall_ns, REPORT_LATENCY_NS);
  printf("coordinator: not in the evidence; crossrun's rusage as bench "
         "reaped it counts every process crossrun reaped too:\n"
         "  CPU %s over %s of wall time (%.2f%%), with its peers and every "
         "build, version and package command\n",
         cpu, wall, 100 * cc->cpu_ns / cc->wall_ns);
  if (others >= 0) {
    report_format_value(cpu, sizeof(cpu), others, REPORT_CPU_NS);
    printf("  CPU %s (%.2f%%) less the peers' CPU in the evidence: an upper "
           "bound of crossrun's own, which still counts the build, version "
           "and package commands\n",
           cpu, 100 * others / cc->wall_ns);
  }
  report_format_value(peak, sizeof(peak), (double)cc->maxrss_kib * 1024,
                      REPORT_BYTES);
  printf("  peak memory %s: the largest of crossrun and the processes it "
         "reaped, an upper bound of crossrun's own\n",
         peak);
}

/* ---- running the command ---- */

static double now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Runs argv and waits for it: its exit status (128+N for signal N), or
 * -1 when it could not start. */
static int run(char **argv, struct child_cost *cc)
{
  struct rusage ru;
  double start = now_ns();
  pid_t pid;
  int status, rc;

  rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "figures: cannot run '%s': %s\n", argv[0], strerror(rc));
    return -1;
  }
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      fprintf(stderr, "figures: wait4: %s\n", strerror(errno));
      return -1;
    }
  }
  cc->ran = 1;
  cc->wall_ns = now_ns() - start;
  cc->cpu_ns = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
  cc->maxrss_kib = ru.ru_maxrss;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int usage(void)
{
  fprintf(stderr, "usage: figures --evidence FILE [-- COMMAND ARG...]\n");
  return 2;
}

int main(int argc, char **argv)
{
  const char *evidence = NULL;
  char **command = NULL;
  struct child_cost cc = {0};
  struct report r;
  struct table t = {0, 0, NULL};
  char err[512];
  int rc = 0;

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--evidence") == 0 && i + 1 < argc)
      evidence = argv[++i];
    else if (strcmp(argv[i], "--") == 0 && i + 1 < argc) {
      command = &argv[i + 1];
      break;
    } else
      return usage();
  }
  if (evidence == NULL)
    return usage();
  if (command != NULL) {
    /* Figures from an older run must not pass for this one's. */
    if (remove(evidence) != 0 && errno != ENOENT) {
      fprintf(stderr, "figures: cannot remove '%s': %s\n", evidence,
              strerror(errno));
      return 1;
    }
    rc = run(command, &cc);
    if (rc < 0)
      return 1;
  }
  if (report_load(&r, evidence, err, sizeof(err)) != 0) {
    fprintf(stderr, "figures: %s: %s\n", evidence, err);
    return rc ? rc : 1;
  }
  for (int i = 0; i < r.nplatforms; i++) {
    const struct report_platform *p = &r.platforms[i];
    const struct report_lane *base = baseline_of(p, "tcp");
    const struct report_lane *tls = baseline_of(p, "tls");

    free(t.cells);
    t.cells = calloc((size_t)p->nlanes + 1, sizeof(*t.cells));
    if (t.cells == NULL) {
      fprintf(stderr, "figures: out of memory\n");
      report_release(&r);
      return rc ? rc : 1;
    }
    printf("\ncost per round trip on %s (medians over the passed samples; "
           "latency percentiles of their round trips merged):\n\n",
           p->os);
    figures_table(p, &t);
    table_print(&t);
    reasons(p);
    if (base == NULL || base->passed == 0) {
      printf("\nno ratios: the raw loopback baseline (baseline-baseline) "
             "did not pass\n");
    } else {
      printf("\nratio of each figure to the raw loopback baseline's:\n\n");
      ratio_table(p, base, &t);
      table_print(&t);
    }
    if (any_tls(p))
      tls_ratios(p, tls, &t);
    printf("\n");
    coordinator(p, &cc);
  }
  free(t.cells);
  report_release(&r);
  return rc;
}
