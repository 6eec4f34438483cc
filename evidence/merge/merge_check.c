/* The checks between the inputs of a merge, once each has been read and
 * checked on its own (evidence/merge/merge_input.c): unique names, required
 * OSes, each OS present once as one run or as a complete set of shards, and the
 * commits, tool versions, workloads, matrix files, lane sets and pinned
 * toolchains the inputs must agree on. A disagreement is one line that
 * groups the inputs by the value they hold. */
#include "evidence/merge/merge_input.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SHOWN_VALUE_MAX 200

/* keys NULL: the whole value; else only those members of an object. */
static void line_value(struct merge_line *l, json_object *v, json_object *keys)
{
  const char *text;
  int n = 0;

  if (v == NULL) {
    merge_line_add(l, "none");
  } else if (json_object_is_type(v, json_type_string)) {
    merge_line_add(l, "'%.*s'", SHOWN_VALUE_MAX, json_object_get_string(v));
  } else if (keys != NULL) {
    json_object_object_foreach(keys, key, unused)
    {
      (void)unused;
      merge_line_add(l, "%s%s ", n++ ? ", " : "", key);
      if (json_object_object_get_ex(v, key, NULL))
        line_value(l, merge_member(v, key), NULL);
      else
        merge_line_add(l, "absent");
    }
  } else {
    text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
    merge_line_add(l, "%.*s%s", SHOWN_VALUE_MAX, text,
                   strlen(text) > SHOWN_VALUE_MAX ? "..." : "");
  }
}

/* The members on which the objects among values[] (labelled) differ, as
 * the keys of a new object; NULL when a value is not an object. */
static json_object *differing_keys(json_object *const *values,
                                   const char *const *labels, int n)
{
  json_object *keys = json_object_new_object(), *first = NULL;

  for (int i = 0; i < n; i++) {
    if (labels[i] == NULL)
      continue;
    if (!json_object_is_type(values[i], json_type_object)) {
      json_object_put(keys);
      return NULL;
    }
    if (first == NULL)
      first = values[i];
  }
  for (int i = 0; i < n; i++) {
    if (labels[i] == NULL)
      continue;
    json_object_object_foreach(values[i], key, v)
    {
      if (!json_object_equal(v, merge_member(first, key)) ||
          !json_object_object_get_ex(first, key, NULL))
        json_object_object_add(keys, key, NULL);
    }
    json_object_object_foreach(first, fkey, fv)
    {
      (void)fv;
      if (!json_object_object_get_ex(values[i], fkey, NULL))
        json_object_object_add(keys, fkey, NULL);
    }
  }
  return keys;
}

/* When values[0..n) (those whose label is not NULL) are not all equal, one
 * line "<prefix>: <value> in <label>, <label>; <value> in <label>". */
static void differ(struct merge_problems *p, const char *prefix,
                   json_object *const *values, const char *const *labels, int n)
{
  int group[MERGE_MAX_INPUTS], ngroups = 0;
  struct merge_line l = {"", 0};
  json_object *keys;

  for (int i = 0; i < n; i++)
    group[i] = -1;
  for (int i = 0; i < n; i++) {
    if (labels[i] == NULL || group[i] >= 0)
      continue;
    group[i] = ngroups;
    for (int j = i + 1; j < n; j++)
      if (labels[j] != NULL && group[j] < 0 &&
          json_object_equal(values[i], values[j]))
        group[j] = ngroups;
    ngroups++;
  }
  if (ngroups < 2)
    return;
  keys = differing_keys(values, labels, n);
  merge_line_add(&l, "%s: ", prefix);
  for (int g = 0; g < ngroups; g++) {
    int first = 1;
    for (int i = 0; i < n; i++) {
      if (group[i] != g)
        continue;
      if (first) {
        merge_line_add(&l, "%s", g ? "; " : "");
        line_value(&l, values[i], keys);
        merge_line_add(&l, " in %s", labels[i]);
        first = 0;
      } else {
        merge_line_add(&l, ", %s", labels[i]);
      }
    }
  }
  json_object_put(keys);
  merge_problems_add(p, NULL, "%s", l.text);
}

static int is_pinned(const struct merge_options *o, const char *runtime)
{
  for (int i = 0; i < o->npinned; i++)
    if (strcmp(o->pinned[i], runtime) == 0)
      return 1;
  return 0;
}

static void check_names(struct merge_problems *p, struct merge_input *ins,
                        int n)
{
  for (int i = 0; i < n; i++) {
    struct merge_line l = {"", 0};
    int dup = 0;
    for (int j = 0; j < i; j++)
      if (strcmp(ins[i].name, ins[j].name) == 0)
        dup = -1; /* named when j was */
    for (int j = i + 1; j < n && dup == 0; j++)
      if (strcmp(ins[i].name, ins[j].name) == 0)
        dup = 1;
    if (dup <= 0)
      continue;
    merge_line_add(&l, "two inputs named '%s': %s", ins[i].name, ins[i].path);
    for (int j = i + 1; j < n; j++)
      if (strcmp(ins[i].name, ins[j].name) == 0)
        merge_line_add(&l, ", %s", ins[j].path);
    merge_problems_add(p, NULL, "%s", l.text);
  }
}

static void shard_label(const struct merge_input *in, char *out, size_t outlen)
{
  const char *arch = merge_str(in->arch) ? merge_str(in->arch) : "?";
  if (in->shard_state == 1)
    snprintf(out, outlen, "%s (%s, shard %" PRId64 " of %" PRId64 ")", in->path,
             arch, in->shard_index, in->shard_count);
  else
    snprintf(out, outlen, "%s (%s)", in->path, arch);
}

/* The shards of one OS: one run, cut into disjoint parts that add up. */
static void check_shards(const struct merge_options *o,
                         struct merge_problems *p, const char *os,
                         struct merge_input *const *g, int n)
{
  json_object *values[MERGE_MAX_INPUTS], *runtimes;
  const char *labels[MERGE_MAX_INPUTS];
  char prefix[256];
  int64_t count = g[0]->shard_count, total = g[0]->lanes_total, held = 0;
  int counts_agree = 1, totals_agree = 1, all_lanes = 1;

  for (int i = 0; i < n; i++) {
    counts_agree &= g[i]->shard_count == count;
    totals_agree &= g[i]->lanes_total == total;
    all_lanes &= g[i]->lanes != NULL;
    labels[i] = g[i]->path;
  }
  if (!counts_agree) {
    for (int i = 0; i < n; i++)
      values[i] = merge_member(g[i]->shard, "count");
    snprintf(prefix, sizeof(prefix), "%s: shard counts differ", os);
    differ(p, prefix, values, labels, n);
  }
  if (!totals_agree) {
    for (int i = 0; i < n; i++)
      values[i] = merge_member(g[i]->shard, "lanes_total");
    snprintf(prefix, sizeof(prefix), "%s: shards differ on lanes_total", os);
    differ(p, prefix, values, labels, n);
  }
  for (int64_t k = 1; counts_agree && k <= count; k++) {
    struct merge_line l = {"", 0};
    int found = 0;
    for (int i = 0; i < n; i++)
      if (g[i]->shard_index == k)
        merge_line_add(&l, "%s%s", found++ ? ", " : "", g[i]->path);
    if (found == 0)
      merge_problems_add(p, NULL,
                         "%s: shard %" PRId64 " of %" PRId64 " missing", os, k,
                         count);
    else if (found > 1)
      merge_problems_add(
          p, NULL, "%s: shard %" PRId64 " of %" PRId64 " given %d times: %s",
          os, k, count, found, l.text);
  }
  /* Each lane once: named at its first shard, with every shard holding it. */
  for (int i = 0; i < n; i++) {
    if (g[i]->lanes == NULL)
      continue;
    json_object_object_foreach(g[i]->lanes, lane, lv)
    {
      struct merge_line l = {"", 0};
      int earlier = 0, holders = 0;
      (void)lv;
      for (int j = 0; j < i && !earlier; j++)
        earlier = merge_member(g[j]->lanes, lane) != NULL;
      if (earlier)
        continue;
      held++;
      for (int j = i; j < n; j++)
        if (merge_member(g[j]->lanes, lane) != NULL)
          merge_line_add(&l, "%s%s (shard %" PRId64 ")", holders++ ? ", " : "",
                         g[j]->path, g[j]->shard_index);
      if (holders > 1)
        merge_problems_add(p, NULL,
                           "%s: lane '%s' is in more than one shard: %s", os,
                           lane, l.text);
    }
  }
  if (totals_agree && all_lanes && held != total)
    merge_problems_add(p, NULL,
                       "%s: the shards hold %" PRId64 " lanes, but lanes_total "
                       "is %" PRId64,
                       os, held, total);
  /* One OS's document has one toolchain per runtime. Pinned ones are
   * compared across every input anyway. */
  runtimes = merge_name_set(g, n, 0);
  json_object_object_foreach(runtimes, runtime, unused)
  {
    (void)unused;
    if (is_pinned(o, runtime))
      continue;
    for (int i = 0; i < n; i++) {
      values[i] = merge_input_toolchain(g[i], runtime);
      labels[i] = merge_input_declares(g[i], runtime) ? g[i]->path : NULL;
    }
    snprintf(prefix, sizeof(prefix),
             "%s: the toolchain of '%s' differs between shards", os, runtime);
    differ(p, prefix, values, labels, n);
  }
  json_object_put(runtimes);
}

/* The inputs of one OS: one whole run, or the shards of one. */
static void check_os(const struct merge_options *o, struct merge_problems *p,
                     int os, struct merge_input *const *g, int n)
{
  json_object *values[MERGE_MAX_INPUTS];
  const char *labels[MERGE_MAX_INPUTS];
  char prefix[256], label[1024];
  int whole = 0, unknown = 0;

  for (int i = 0; i < n; i++) {
    whole += g[i]->shard_state == 0;
    unknown += g[i]->shard_state < 0;
  }
  if (n > 1 && whole > 0) {
    struct merge_line l = {"", 0};
    merge_line_add(&l, "os '%s' present %d times:", merge_os_names[os], n);
    for (int i = 0; i < n; i++) {
      shard_label(g[i], label, sizeof(label));
      merge_line_add(&l, "%s %s", i ? "," : "", label);
    }
    merge_problems_add(p, NULL, "%s", l.text);
    return;
  }
  for (int i = 0; i < n; i++) {
    values[i] = g[i]->arch;
    labels[i] = g[i]->arch ? g[i]->path : NULL;
  }
  snprintf(prefix, sizeof(prefix), "os '%s' present twice, on two arches",
           merge_os_names[os]);
  differ(p, prefix, values, labels, n);
  if (whole == 0 && unknown == 0)
    check_shards(o, p, merge_os_names[os], g, n);
}

static void
check_lane_sets(struct merge_problems *p,
                struct merge_input *groups[MERGE_NOS][MERGE_MAX_INPUTS],
                const int sizes[MERGE_NOS])
{
  json_object *mine[MERGE_NOS], *all = json_object_new_object();
  int present = 0;

  for (int os = 0; os < MERGE_NOS; os++) {
    mine[os] = merge_name_set(groups[os], sizes[os], 1);
    present += json_object_object_length(mine[os]) > 0;
    json_object_object_foreach(mine[os], lane, v)
    {
      (void)v;
      json_object_object_add(all, lane, NULL);
    }
  }
  for (int os = 0; os < MERGE_NOS && present > 1; os++) {
    struct merge_line l = {"", 0};
    int missing = 0;
    if (json_object_object_length(mine[os]) == 0)
      continue;
    json_object_object_foreach(all, lane, v)
    {
      (void)v;
      if (!json_object_object_get_ex(mine[os], lane, NULL))
        merge_line_add(&l, "%s'%s'", missing++ ? ", " : "", lane);
    }
    if (missing)
      merge_problems_add(p, NULL,
                         "lane sets differ: %s lacks %s, which other platforms "
                         "have",
                         merge_os_names[os], l.text);
  }
  for (int os = 0; os < MERGE_NOS; os++)
    json_object_put(mine[os]);
  json_object_put(all);
}

void merge_check_together(const struct merge_options *o,
                          struct merge_problems *p, struct merge_input *ins,
                          int n)
{
  struct merge_input *groups[MERGE_NOS][MERGE_MAX_INPUTS];
  json_object *values[MERGE_MAX_INPUTS] = {NULL};
  const char *labels[MERGE_MAX_INPUTS] = {NULL};
  int sizes[MERGE_NOS] = {0}, unknown = 0;
  char prefix[256];

  check_names(p, ins, n);
  for (int i = 0; i < n; i++) {
    if (ins[i].os >= 0)
      groups[ins[i].os][sizes[ins[i].os]++] = &ins[i];
    else
      unknown++;
  }
  for (int r = 0; r < o->nrequire; r++) {
    int os = merge_os_index(o->require[r]);
    if (os >= 0 && sizes[os] == 0)
      merge_problems_add(p, NULL,
                         "required os '%s' missing: no input has machine.os "
                         "'%s'%s",
                         merge_os_names[os], merge_os_names[os],
                         unknown ? " (some inputs have no known os)" : "");
  }
  for (int os = 0; os < MERGE_NOS; os++)
    if (sizes[os] > 0)
      check_os(o, p, os, groups[os], sizes[os]);

#define DIFFER(what, member_name)                                              \
  do {                                                                         \
    for (int i = 0; i < n; i++) {                                              \
      values[i] = ins[i].member_name;                                          \
      labels[i] = ins[i].member_name ? ins[i].path : NULL;                     \
    }                                                                          \
    differ(p, what, values, labels, n);                                        \
  } while (0)
  DIFFER("commits differ", commit);
  DIFFER("tool versions differ", version);
  DIFFER("workloads differ", workload);
  DIFFER("matrix files differ (provenance.matrix_sha256)", matrix);
#undef DIFFER
  check_lane_sets(p, groups, sizes);

  for (int k = 0; k < o->npinned; k++) {
    int declared = 0;
    for (int i = 0; i < n; i++) {
      values[i] = merge_input_toolchain(&ins[i], o->pinned[k]);
      labels[i] =
          merge_input_declares(&ins[i], o->pinned[k]) ? ins[i].path : NULL;
      declared += labels[i] != NULL;
    }
    if (declared == 0) {
      merge_problems_add(p, NULL, "--pinned: no input declares runtime '%s'",
                         o->pinned[k]);
      continue;
    }
    snprintf(prefix, sizeof(prefix),
             "the toolchain of pinned runtime '%s' differs", o->pinned[k]);
    differ(p, prefix, values, labels, n);
  }
  /* Runtimes the matrix pins (toolchain_pinned), unless --pinned named
   * them already. */
  {
    json_object *pins = json_object_new_object();
    for (int i = 0; i < n; i++) {
      if (ins[i].runtimes == NULL)
        continue;
      json_object_object_foreach(ins[i].runtimes, name, rt)
      {
        json_object *flag = merge_member(rt, "toolchain_pinned");
        if (json_object_is_type(flag, json_type_boolean) &&
            json_object_get_boolean(flag) && !is_pinned(o, name))
          json_object_object_add(pins, name, NULL);
      }
    }
    json_object_object_foreach(pins, name, unused)
    {
      (void)unused;
      for (int i = 0; i < n; i++) {
        values[i] = merge_input_toolchain(&ins[i], name);
        labels[i] = merge_input_declares(&ins[i], name) ? ins[i].path : NULL;
      }
      snprintf(prefix, sizeof(prefix),
               "the toolchain of runtime '%s', which the matrix pins, differs",
               name);
      differ(p, prefix, values, labels, n);
    }
    json_object_put(pins);
  }
}
