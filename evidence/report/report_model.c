/* The report model (evidence/report/report.h): a whole evidence file, single-OS
 * or merged, read into struct report, and the lookups the renderers use.
 * The file is read by evidence/base/json_read.c, members with
 * evidence/report/report_reader.c, lanes with evidence/report/report_lane.c. */
#include "evidence/report/report.h"

#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/base/json_read.h"
#include "evidence/report/report_reader.h"

void report_init(struct report *r)
{
  memset(r, 0, sizeof(*r));
}

void report_release(struct report *r)
{
  for (size_t i = 0; i < r->nowned; i++)
    free(r->owned[i]);
  free(r->owned);
  memset(r, 0, sizeof(*r));
}

static void read_package(struct report_reader *rd, json_object *o,
                         const char *where, struct report_package *p)
{
  json_object *rep;
  int64_t n;

  p->present = 1;
  p->error = report_reader_str(rd, o, where, "error");
  p->file_name = report_reader_str(rd, o, where, "file_name");
  p->measured = p->file_name != NULL && p->error == NULL;
  p->format = report_reader_str(rd, o, where, "format");
  p->packed_bytes =
      report_reader_whole(rd, o, where, "packed_bytes", &n) ? n : -1;
  p->unpacked_bytes =
      report_reader_whole(rd, o, where, "unpacked_bytes", &n) ? n : -1;
  p->file_count = report_reader_whole_int(rd, o, where, "file_count", -1);
  p->sha256 = report_reader_str(rd, o, where, "sha256");
  rep = report_reader_get(rd, o, where, "reproducible", json_type_boolean, 0);
  p->reproducible = rep ? json_object_get_boolean(rep) : -1;
}

/* Member key of doc (at where): an object of at most max members, each
 * read into an element of size bytes. Returns the object, with *array the
 * zeroed elements (owned by the report), *n their count and w the path of
 * the object; NULL when it is absent or reading failed. */
static json_object *read_members(struct report_reader *rd, json_object *doc,
                                 const char *where, const char *key,
                                 int required, int max, size_t size,
                                 void **array, int *n, char *w)
{
  json_object *all =
      report_reader_get(rd, doc, where, key, json_type_object, required);

  *array = NULL;
  *n = 0;
  if (all == NULL)
    return NULL;
  *n = json_object_object_length(all);
  if (*n > max) {
    report_reader_fail(rd, "'%s' has %d %s, more than %d", where, *n, key, max);
    return NULL;
  }
  *array = report_reader_own_array(rd, (size_t)*n, size);
  if (rd->failed)
    return NULL;
  report_reader_join(w, where, key);
  return all;
}

static void read_runtimes(struct report_reader *rd, json_object *doc,
                          const char *where, struct report_platform *p)
{
  char w[REPORT_WHERE_MAX], rw[REPORT_WHERE_MAX];
  int n, i = 0, skipped = 0;
  void *array;
  json_object *all =
      read_members(rd, doc, where, "runtimes", 0, REPORT_MAX_RUNTIMES,
                   sizeof(*p->runtimes), &array, &n, w);

  if (all == NULL)
    return;
  p->runtimes = array;
  json_object_object_foreach(all, key, val)
  {
    struct report_runtime *rt = &p->runtimes[i];
    json_object *pkg;
    if (rd->failed || i >= n)
      return;
    report_reader_join(rw, w, key);
    if (!json_object_is_type(val, json_type_object)) {
      report_reader_fail(rd, "'%s' is %s, expected an object", rw,
                         report_reader_type_name(val));
      return;
    }
    rt->name = report_reader_own_str(rd, key);
    rt->toolchain_version = report_reader_str(rd, val, rw, "toolchain_version");
    rt->status = report_reader_str(rd, val, rw, "status");
    rt->reason = report_reader_str(rd, val, rw, "reason");
    pkg = report_reader_get(rd, val, rw, "package", json_type_object, 0);
    if (pkg != NULL) {
      char pw[REPORT_WHERE_MAX];
      report_reader_join(pw, rw, "package");
      read_package(rd, pkg, pw, &rt->package);
      if (rt->package.error && strstr(rt->package.error, "--no-packages"))
        skipped++;
    }
    p->nruntimes = ++i;
  }
  p->packages_skipped = skipped > 0;
}

static void read_comparisons(struct report_reader *rd, json_object *doc,
                             const char *where, struct report_platform *p)
{
  char w[REPORT_WHERE_MAX], cw[REPORT_WHERE_MAX];
  int n, i = 0;
  void *array;
  json_object *all =
      read_members(rd, doc, where, "comparisons", 0, REPORT_MAX_COMPARISONS,
                   sizeof(*p->comparisons), &array, &n, w);

  if (all == NULL)
    return;
  p->comparisons = array;
  json_object_object_foreach(all, key, val)
  {
    struct report_comparison *c = &p->comparisons[i];
    if (rd->failed || i >= n)
      return;
    report_reader_join(cw, w, key);
    if (!json_object_is_type(val, json_type_object)) {
      report_reader_fail(rd, "'%s' is %s, expected an object", cw,
                         report_reader_type_name(val));
      return;
    }
    c->lane = report_reader_str_or(rd, val, cw, "lane", "?");
    c->reference = report_reader_str_or(rd, val, cw, "reference", "?");
    c->verdict = report_reader_str_or(rd, val, cw, "verdict", "?");
    if (strcmp(c->verdict, "not_compared") == 0) {
      /* Lanes of two machines: no figures, only why. */
      c->reason = report_reader_str_or(rd, val, cw, "reason", "?");
      c->ratio = c->u = c->p = -1;
      p->ncomparisons = ++i;
      continue;
    }
    if (!report_reader_number(rd, val, cw, "ratio_of_medians", &c->ratio))
      continue; /* a comparison without a ratio says nothing */
    if (!report_reader_number(rd, val, cw, "mann_whitney_u", &c->u))
      c->u = -1;
    if (!report_reader_number(rd, val, cw, "p_value_exact", &c->p))
      c->p = -1;
    p->ncomparisons = ++i;
  }
}

static void read_cleanliness(struct report_reader *rd, json_object *doc,
                             const char *where, struct report_platform *p)
{
  json_object *o =
      report_reader_get(rd, doc, where, "cleanliness", json_type_object, 0);
  struct report_cleanliness *c = &p->cleanliness;
  char w[REPORT_WHERE_MAX];

  if (o == NULL)
    return;
  report_reader_join(w, where, "cleanliness");
  c->present = 1;
  c->pairs_started = report_reader_whole_int(rd, o, w, "pairs_started", 0);
  c->natural_exits = report_reader_whole_int(rd, o, w, "natural_exits", 0);
  c->processes_left = report_reader_whole_int(rd, o, w, "processes_left", 0);
  c->sockets_left = report_reader_whole_int(rd, o, w, "sockets_left", 0);
  c->forced_terminations =
      report_reader_whole_int(rd, o, w, "forced_terminations", 0);
  c->temp_entries_left =
      report_reader_whole_int(rd, o, w, "temp_entries_left", 0);
}

/* One single-OS document at where ("" at the top of a file). */
static void read_platform(struct report_reader *rd, json_object *doc,
                          const char *where, const char *os,
                          struct report_platform *p)
{
  json_object *o, *lanes;
  char w[REPORT_WHERE_MAX], lw[REPORT_WHERE_MAX];
  int64_t n64;
  int n, i = 0;
  void *array;

  if (!json_object_is_type(doc, json_type_object)) {
    report_reader_fail(rd, "'%s' is %s, expected an object", where,
                       report_reader_type_name(doc));
    return;
  }
  p->mode = report_reader_str_or(rd, doc, where, "mode", "unknown");
  p->performance_claims =
      report_reader_boolean(rd, doc, where, "performance_claims", 0);
  p->official = report_reader_boolean(rd, doc, where, "official", 0);
  p->complete = report_reader_boolean(rd, doc, where, "complete", 1);
  p->incomplete_reason = report_reader_str(rd, doc, where, "incomplete_reason");
  p->started_at = report_reader_str(rd, doc, where, "started_at");
  o = report_reader_get(rd, doc, where, "tool", json_type_object, 0);
  report_reader_join(w, where, "tool");
  p->tool_version = report_reader_str(rd, o, w, "version");

  o = report_reader_get(rd, doc, where, "machine", json_type_object,
                        os == NULL);
  report_reader_join(w, where, "machine");
  p->os =
      os ? report_reader_own_str(rd, os) : report_reader_str(rd, o, w, "os");
  if (p->os == NULL && !rd->failed)
    report_reader_fail(rd, "'%s.os' is missing", w);
  p->machine.arch = report_reader_str(rd, o, w, "arch");
  p->machine.kernel = report_reader_str(rd, o, w, "kernel");
  p->machine.cpu_model = report_reader_str(rd, o, w, "cpu_model");
  p->machine.logical_cpus =
      report_reader_whole_int(rd, o, w, "logical_cpus", 0);
  p->machine.memory_bytes =
      report_reader_whole(rd, o, w, "memory_bytes", &n64) ? n64 : -1;

  o = report_reader_get(rd, doc, where, "workload", json_type_object, 0);
  report_reader_join(w, where, "workload");
  p->workload.name = report_reader_str(rd, o, w, "name");
  p->workload.warmup_round_trips =
      report_reader_whole(rd, o, w, "warmup_round_trips", &n64) ? n64 : -1;
  p->workload.round_trips =
      report_reader_whole(rd, o, w, "round_trips", &n64) ? n64 : -1;
  p->workload.payload_bytes =
      report_reader_whole(rd, o, w, "payload_bytes", &n64) ? n64 : -1;
  p->workload.max_in_flight =
      report_reader_whole(rd, o, w, "max_in_flight", &n64) ? n64 : -1;
  p->workload.samples_per_lane =
      report_reader_whole_int(rd, o, w, "samples_per_lane", 0);

  o = report_reader_get(rd, doc, where, "provenance", json_type_object, 0);
  report_reader_join(w, where, "provenance");
  p->provenance.commit = report_reader_str(rd, o, w, "commit");
  p->provenance.branch = report_reader_str(rd, o, w, "branch");
  {
    json_object *ci = report_reader_get(rd, o, w, "ci", json_type_object, 0);
    char cw[REPORT_WHERE_MAX];
    report_reader_join(cw, w, "ci");
    p->provenance.ci_provider = report_reader_str(rd, ci, cw, "provider");
    p->provenance.ci_workflow = report_reader_str(rd, ci, cw, "workflow");
    p->provenance.ci_run_id = report_reader_str(rd, ci, cw, "run_id");
  }
  o = report_reader_get(rd, doc, where, "coordinator", json_type_object, 0);
  report_reader_join(w, where, "coordinator");
  if (o != NULL) {
    p->coordinator.present = 1;
    if (!report_reader_number(rd, o, w, "cpu_ns", &p->coordinator.cpu_ns))
      p->coordinator.cpu_ns = -1;
    if (!report_reader_number(rd, o, w, "wall_ns", &p->coordinator.wall_ns))
      p->coordinator.wall_ns = -1;
    if (!report_reader_number(rd, o, w, "cpu_share_of_wall",
                              &p->coordinator.cpu_share_of_wall))
      p->coordinator.cpu_share_of_wall = -1;
    p->coordinator.peak_rss_bytes =
        report_reader_whole(rd, o, w, "peak_rss_bytes", &n64) ? n64 : -1;
  }
  o = report_reader_get(rd, doc, where, "shard", json_type_object, 0);
  report_reader_join(w, where, "shard");
  p->shard_index = report_reader_whole_int(rd, o, w, "index", 0);
  p->shard_count = report_reader_whole_int(rd, o, w, "count", 0);

  read_runtimes(rd, doc, where, p);

  lanes = read_members(rd, doc, where, "lanes", 1, REPORT_MAX_LANES,
                       sizeof(*p->lanes), &array, &n, w);
  if (lanes == NULL)
    return;
  p->lanes = array;
  json_object_object_foreach(lanes, key, val)
  {
    if (rd->failed || i >= n)
      return;
    report_reader_join(lw, w, key);
    report_lane_read(rd, key, val, lw, &p->lanes[i]);
    p->nlanes = ++i;
  }
  read_comparisons(rd, doc, where, p);
  read_cleanliness(rd, doc, where, p);
}

static void read_inputs(struct report_reader *rd, json_object *doc)
{
  struct report *r = rd->r;
  json_object *inputs =
      report_reader_get(rd, doc, "", "inputs", json_type_object, 0);
  int n = inputs ? json_object_object_length(inputs) : 0, i = 0;

  if (n == 0 || rd->failed)
    return;
  if (n > REPORT_MAX_INPUTS) {
    report_reader_fail(rd, "'inputs' has %d entries, at most %d", n,
                       REPORT_MAX_INPUTS);
    return;
  }
  r->inputs = report_reader_own_array(rd, (size_t)n, sizeof(*r->inputs));
  json_object_object_foreach(inputs, key, val)
  {
    char w[REPORT_WHERE_MAX];
    struct report_input *in = &r->inputs[i];
    if (rd->failed || i >= n || !json_object_is_type(val, json_type_object))
      return;
    report_reader_join(w, "inputs", key);
    in->name = report_reader_own_str(rd, key);
    in->os = report_reader_str_or(rd, val, w, "os", "?");
    in->verified = report_reader_boolean(rd, val, w, "provenance_verified", 0);
    in->provenance =
        report_reader_str_or(rd, val, w, "provenance", "not stated");
    r->ninputs = ++i;
  }
}

static void read_document(struct report_reader *rd, json_object *doc)
{
  struct report *r = rd->r;
  json_object *v, *platforms;
  int64_t version;
  int n, i = 0;

  if (!json_object_is_type(doc, json_type_object)) {
    report_reader_fail(rd, "the document is %s, expected an object",
                       report_reader_type_name(doc));
    return;
  }
  if (!report_reader_whole(rd, doc, "", "schema_version", &version)) {
    if (!rd->failed)
      report_reader_fail(rd,
                         "'schema_version' is missing: not crossrun evidence");
    return;
  }
  if (version != 1) {
    report_reader_fail(
        rd, "schema_version %lld is not supported (this crossrun reads 1)",
        (long long)version);
    return;
  }
  r->mode = report_reader_str(rd, doc, "", "mode");
  if (r->mode == NULL) {
    if (!rd->failed)
      report_reader_fail(rd, "'mode' is missing");
    return;
  }
  v = report_reader_get(rd, doc, "", "tool", json_type_object, 0);
  r->tool_version = report_reader_str(rd, v, "tool", "version");
  r->official = report_reader_boolean(rd, doc, "", "official", 0);
  if (strcmp(r->mode, "merged") != 0) {
    r->platforms = report_reader_own_array(rd, 1, sizeof(*r->platforms));
    if (rd->failed)
      return;
    read_platform(rd, doc, "", NULL, &r->platforms[0]);
    r->nplatforms = 1;
    r->performance_claims = r->platforms[0].performance_claims;
    r->commit = r->platforms[0].provenance.commit;
    return;
  }
  r->merged = 1;
  r->commit = report_reader_str(rd, doc, "", "commit");
  read_inputs(rd, doc);
  platforms = report_reader_get(rd, doc, "", "platforms", json_type_object, 1);
  if (rd->failed)
    return;
  n = json_object_object_length(platforms);
  if (n < 1 || n > REPORT_MAX_PLATFORMS) {
    report_reader_fail(rd, "'platforms' has %d entries, expected 1 to %d", n,
                       REPORT_MAX_PLATFORMS);
    return;
  }
  r->platforms = report_reader_own_array(rd, (size_t)n, sizeof(*r->platforms));
  if (rd->failed)
    return;
  r->performance_claims =
      report_reader_boolean(rd, doc, "", "performance_claims", 1);
  json_object_object_foreach(platforms, key, val)
  {
    char w[REPORT_WHERE_MAX];
    if (rd->failed || i >= n)
      return;
    report_reader_join(w, "platforms", key);
    read_platform(rd, val, w, key, &r->platforms[i]);
    r->nplatforms = ++i;
    if (!r->platforms[i - 1].performance_claims)
      r->performance_claims = 0;
    if (r->tool_version == NULL)
      r->tool_version = r->platforms[i - 1].tool_version;
  }
}

/* Appends name to list (n entries) unless it is there. */
static int add_name(const char **list, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0)
      return n;
  list[n] = name;
  return n + 1;
}

static void pair_runtimes(struct report_reader *rd, struct report_platform *p)
{
  const char **list =
      report_reader_own_array(rd, (size_t)p->nlanes * 2, sizeof(*list));
  int n = 0;

  if (list == NULL)
    return;
  for (int i = 0; i < p->nruntimes; i++) {
    for (int l = 0; l < p->nlanes; l++) {
      if (strcmp(p->lanes[l].client, p->runtimes[i].name) == 0 ||
          strcmp(p->lanes[l].server, p->runtimes[i].name) == 0) {
        n = add_name(list, n, p->runtimes[i].name);
        break;
      }
    }
  }
  for (int l = 0; l < p->nlanes; l++) {
    n = add_name(list, n, p->lanes[l].client);
    n = add_name(list, n, p->lanes[l].server);
  }
  p->pair_runtimes = list;
  p->npair_runtimes = n;
}

static void lane_names(struct report_reader *rd, struct report *r)
{
  size_t total = 0;
  const char **list;
  int n = 0;

  for (int p = 0; p < r->nplatforms; p++)
    total += (size_t)r->platforms[p].nlanes;
  list = report_reader_own_array(rd, total, sizeof(*list));
  if (list == NULL)
    return;
  for (int p = 0; p < r->nplatforms; p++)
    for (int l = 0; l < r->platforms[p].nlanes; l++)
      n = add_name(list, n, r->platforms[p].lanes[l].name);
  r->lane_names = list;
  r->nlane_names = n;
}

/* Error messages quote names from the file: no control character may
 * reach the one line. */
static void one_line(char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      *s = '?';
}

/* Builds r from doc (put here), the document of the file called name. */
static int build(struct report *r, const char *name, json_object *doc,
                 char *err, size_t errlen)
{
  struct report_reader rd = {r, err, errlen, 0};
  /* Folders of the path could name a person or a machine. */
  const char *base = name ? name : "evidence";

  for (const char *c = base; *c; c++)
    if ((*c == '/' || *c == '\\') && c[1] != '\0')
      base = c + 1;
  r->source = report_reader_own_str(&rd, base);
  read_document(&rd, doc);
  json_object_put(doc);
  for (int p = 0; p < r->nplatforms && !rd.failed; p++)
    pair_runtimes(&rd, &r->platforms[p]);
  if (!rd.failed)
    lane_names(&rd, r);
  if (rd.failed) {
    one_line(err);
    report_release(r);
    return -1;
  }
  return 0;
}

int report_parse(struct report *r, const char *name, const char *text,
                 size_t len, char *err, size_t errlen)
{
  json_object *doc;

  report_init(r);
  if (json_read_parse(text, len, &doc, err, errlen) != 0)
    return -1;
  return build(r, name, doc, err, errlen);
}

int report_load(struct report *r, const char *path, char *err, size_t errlen)
{
  json_object *doc;

  report_init(r);
  if (json_read_file(path, JSON_READ_MAX_BYTES, &doc, err, errlen) != 0)
    return -1;
  return build(r, path, doc, err, errlen);
}

const struct report_lane *report_find_lane(const struct report_platform *p,
                                           const char *name)
{
  for (int l = 0; l < p->nlanes; l++)
    if (strcmp(p->lanes[l].name, name) == 0)
      return &p->lanes[l];
  return NULL;
}

const struct report_lane *report_lane_of(const struct report_platform *p,
                                         const char *c, const char *s)
{
  const struct report_lane *other = NULL;

  /* The tcp lane of the pair; its lane over tls when that alone ran. */
  for (int l = 0; l < p->nlanes; l++)
    if (strcmp(p->lanes[l].client, c) == 0 &&
        strcmp(p->lanes[l].server, s) == 0) {
      if (strcmp(p->lanes[l].transport, "tcp") == 0)
        return &p->lanes[l];
      if (other == NULL)
        other = &p->lanes[l];
    }
  return other;
}

const struct report_package *report_package_of(const struct report_platform *p,
                                               const char *name)
{
  for (int i = 0; i < p->nruntimes; i++)
    if (strcmp(p->runtimes[i].name, name) == 0 &&
        p->runtimes[i].package.present)
      return &p->runtimes[i].package;
  return NULL;
}
