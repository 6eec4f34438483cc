#include "runner/conform_run.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "evidence/write/conform_write.h"
#include "platforms/platform.h"
#include "runner/commands.h"
#include "runner/conform.h"
#include "runner/prepare.h"
#include "runner/run.h"
#include "runner/tempdir.h"

void conform_options_init(struct conform_options *o)
{
  memset(o, 0, sizeof(*o));
  o->out = "crossrun-conform.json";
  o->host = "127.0.0.1";
  o->case_timeout_ms = 5000;
  o->progress = -1;
}

/* The runtimes to test, as lanes of a runtime against itself (what
 * prepare_runtimes takes). Returns how many, or -1 (err says why). */
static int select_runtimes(const struct conform_options *o, struct lanes *l,
                           struct lane *sel, char *err, size_t errlen)
{
  int n = 0;

  if (o->runtimes.count == 0) {
    for (int i = 0; i < l->nruntimes; i++)
      if (!l->runtimes[i].hidden)
        sel[n++].client = &l->runtimes[i];
  }
  for (int i = 0; i < o->runtimes.count; i++) {
    struct runtime *r = lanes_find_runtime(l, o->runtimes.items[i]);
    size_t used;
    if (r == NULL) {
      used = (size_t)snprintf(err, errlen,
                              "--runtimes: no runtime '%s' in the matrix "
                              "(it has:",
                              o->runtimes.items[i]);
      for (int k = 0; k < l->nruntimes && used < errlen; k++)
        used += (size_t)snprintf(err + used, errlen - used, " %s",
                                 l->runtimes[k].name);
      if (used < errlen)
        snprintf(err + used, errlen - used, ")");
      return -1;
    }
    sel[n++].client = r;
  }
  for (int i = 0; i < n; i++) {
    sel[i].server = sel[i].client;
    snprintf(sel[i].name, sizeof(sel[i].name), "%s", sel[i].client->name);
  }
  return n;
}

static int make_cases(const struct conform_options *o, const struct lanes *l,
                      struct conform_cases *cases, FILE *errf)
{
  char path[LANES_PATH_MAX + 64], err[512];

  snprintf(path, sizeof(path), "%s/protocol/vectors/invalid.json", l->root);
  if (conform_table_add(cases) != 0 ||
      conform_vectors_add(cases, path, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun conform: %s\n",
            cases->n > 0 ? err : "out of memory");
    return -1;
  }
  if (conform_cases_filter(cases, o->cases) == 0) {
    fprintf(errf, "crossrun conform: --cases: no case matches '%s'\n",
            o->cases);
    return -1;
  }
  return 0;
}

static void list_cases(const struct conform_cases *cases, FILE *out)
{
  for (int i = 0; i < cases->n; i++) {
    const struct conform_case *c = &cases->list[i];
    fprintf(out, "%s/%s\t%s\t%s\terror:%s\n",
            c->role == CONFORM_SERVER ? "server" : "client", c->name,
            c->state == CONFORM_COMMAND_LINE ? "usage"
            : c->rejection                   ? c->rejection
                                             : "pass",
            c->source, conform_error_rule_name(c->error_rule));
  }
}

static void progress_line(FILE *f, const char *runtime,
                          const struct conform_outcome *c, int done, int total)
{
  fprintf(f, "[%*d/%d] %-8s %s/%-44s %-7s %s\n", total >= 100 ? 3 : 2, done,
          total, runtime, c->role, c->name, conform_verdict_name(c->verdict),
          c->verdict == CONFORM_PASSED ? "" : c->reason);
  fflush(f);
}

/* The table of one runtime: each role's counts, then each case that did
 * not pass with its reason. */
static void print_table(FILE *f, const struct conform_runtime_result *r)
{
  static const char *const roles[] = {"server", "client"};

  fprintf(f, "\nconformance of %s: %s\n", r->name, conform_runtime_status(r));
  if (!r->available) {
    fprintf(f, "  %s\n", r->unavailable_reason ? r->unavailable_reason : "");
    return;
  }
  fprintf(f, "  %-7s %6s %7s %7s\n", "role", "cases", "passed", "failed");
  for (int k = 0; k < 2; k++) {
    int n = 0, t[3] = {0};
    for (int i = 0; i < r->ncases; i++)
      if (strcmp(r->cases[i].role, roles[k]) == 0) {
        n++;
        t[r->cases[i].verdict]++;
      }
    fprintf(f, "  %-7s %6d %7d %7d\n", roles[k], n, t[CONFORM_PASSED],
            t[CONFORM_FAILED] + t[CONFORM_ERROR]);
  }
  for (int i = 0; i < r->ncases; i++) {
    const struct conform_outcome *c = &r->cases[i];
    if (c->verdict == CONFORM_FAILED || c->verdict == CONFORM_ERROR)
      fprintf(f, "  %-7s %s/%s: %s\n", conform_verdict_name(c->verdict),
              c->role, c->name, c->reason);
  }
}

struct conform_state_all {
  const struct conform_options *o;
  struct lane *sel;
  int n;
  struct conform_cases cases;
  struct conform_runtime_result *results;
  struct model_runtime *described;
  struct conform_evidence ev;
};

static void describe_run(struct conform_state_all *st, struct lanes *l)
{
  const struct conform_options *o = st->o;
  struct conform_evidence *e = &st->ev;

  e->tool_version = CROSSRUN_VERSION;
  run_utc_now(e->started_at, sizeof(e->started_at));
  platform_machine_describe(&e->machine);
  e->root = l->root;
  e->host = o->host;
  e->case_timeout_ms = o->case_timeout_ms;
  e->cases_pattern = o->cases;
  e->provenance = o->provenance;
  e->nruntimes =
      prepare_describe_runtimes(st->sel, st->n, l->root, st->described);
  e->runtimes = st->described;
  e->matrix_files[0] = "matrix.yaml";
  e->nmatrix = 1;
  for (int i = 0; i < o->nmatrix && i + 1 < EVIDENCE_MAX_MATRIX; i++)
    e->matrix_files[e->nmatrix++] = lanes_display_path(l, o->matrix[i]);
  e->results = st->results;
  e->nresults = st->n;
  e->incomplete_reason = "running";
}

/* Every case against every available runtime. Returns 0, or -1 when the
 * runner failed (a message on errf). */
static int run_cases(struct conform_state_all *st, FILE *errf, int progress)
{
  const struct conform_options *o = st->o;
  struct conform_target t;
  int total = 0, done = 0;

  for (int i = 0; i < st->n; i++)
    total += st->results[i].available ? st->cases.n : 0;
  for (int i = 0; i < st->n && !(o->stop && *o->stop); i++) {
    const struct runtime *rt = st->sel[i].client;
    struct conform_runtime_result *res = &st->results[i];
    struct model_limits limits = MODEL_LIMITS_DEFAULT;

    if (!res->available)
      continue;
    memset(&t, 0, sizeof(t));
    t.server_argv = (const char *const *)rt->server.argv;
    t.client_argv = (const char *const *)rt->client.argv;
    t.cwd = rt->dir;
    t.host = o->host;
    t.limits = limits;
    t.case_timeout_ms = o->case_timeout_ms;
    t.stop = o->stop;
    for (int k = 0; k < st->cases.n && !(o->stop && *o->stop); k++) {
      struct conform_outcome *c = conform_runtime_add(res);
      char err[512];
      if (c == NULL) {
        fprintf(errf, "crossrun conform: out of memory\n");
        return -1;
      }
      if (conform_exec(&t, &st->cases.list[k], c, err, sizeof(err)) != 0 &&
          !(o->stop && *o->stop))
        fprintf(errf, "crossrun conform: %s: %s/%s: %s\n", rt->name, c->role,
                c->name, err);
      if (o->stop && *o->stop) {
        res->ncases--; /* an interrupted case has no verdict */
        break;
      }
      done++;
      if (progress)
        progress_line(errf, rt->name, c, done, total);
    }
  }
  return 0;
}

int conform_run(const struct conform_options *o, struct lanes *l, FILE *out,
                FILE *errf)
{
  struct conform_state_all st;
  int progress = o->progress >= 0 ? o->progress : uv_guess_handle(2) == UV_TTY;
  int rc = RUN_EXIT_OK, ran = 0, failed = 0;
  char err[1024];

  memset(&st, 0, sizeof(st));
  st.o = o;
  st.sel = calloc((size_t)l->nruntimes + (size_t)o->runtimes.count + 1,
                  sizeof(*st.sel));
  if (st.sel == NULL) {
    fprintf(errf, "crossrun conform: out of memory\n");
    return RUN_EXIT_RUNNER;
  }
  st.n = select_runtimes(o, l, st.sel, err, sizeof(err));
  if (st.n < 0) {
    fprintf(errf, "crossrun conform: %s\n", err);
    free(st.sel);
    return RUN_EXIT_USAGE;
  }
  if (make_cases(o, l, &st.cases, errf) != 0) {
    conform_cases_release(&st.cases);
    free(st.sel);
    return RUN_EXIT_USAGE;
  }
  if (o->list) {
    list_cases(&st.cases, out);
    conform_cases_release(&st.cases);
    free(st.sel);
    return RUN_EXIT_OK;
  }
  if (tempdir_probe(err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun conform: %s\n", err);
    conform_cases_release(&st.cases);
    free(st.sel);
    return RUN_EXIT_USAGE;
  }
  st.results = calloc((size_t)st.n + 1, sizeof(*st.results));
  st.described = calloc(2 * (size_t)st.n + 1, sizeof(*st.described));
  if (st.results == NULL || st.described == NULL) {
    fprintf(errf, "crossrun conform: out of memory\n");
    rc = RUN_EXIT_RUNNER;
    goto out;
  }
  prepare_runtimes(st.sel, st.n, progress ? errf : NULL);
  for (int i = 0; i < st.n; i++) {
    const struct runtime *rt = st.sel[i].client;
    st.results[i].name = rt->name;
    st.results[i].available = rt->available && !rt->broken;
    st.results[i].unavailable_reason =
        st.results[i].available ? NULL : rt->why_unavailable;
  }
  describe_run(&st, l);
  if (run_cases(&st, errf, progress) != 0)
    rc = RUN_EXIT_RUNNER;
  st.ev.complete = !(o->stop && *o->stop);
  st.ev.incomplete_reason = st.ev.complete ? NULL : "interrupted";
  for (int i = 0; i < st.n; i++) {
    print_table(out, &st.results[i]);
    ran += st.results[i].available;
    failed |= st.results[i].available &&
              strcmp(conform_runtime_status(&st.results[i]), "passed") != 0;
  }
  if (conform_evidence_write(&st.ev, o->out, err, sizeof(err)) != 0) {
    fprintf(errf, "crossrun conform: %s\n", err);
    rc = RUN_EXIT_RUNNER;
  }
  fprintf(out, "\nevidence: %s\n", o->out);
  if (rc == RUN_EXIT_OK) {
    if (o->stop && *o->stop)
      rc = RUN_EXIT_INTERRUPTED;
    else if (ran == 0) {
      fprintf(errf, "crossrun conform: no runtime could run: this tested "
                    "nothing\n");
      rc = RUN_EXIT_FAILED;
    } else if (failed)
      rc = RUN_EXIT_FAILED;
  }
out:
  for (int i = 0; st.results != NULL && i < st.n; i++)
    conform_runtime_release(&st.results[i]);
  free(st.results);
  free(st.described);
  conform_cases_release(&st.cases);
  free(st.sel);
  return rc;
}
