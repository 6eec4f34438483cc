/* The peer's process tree in the evidence: what its memory and CPU figures
 * cover, the label tables show, and each process of the tree with its own
 * peak (evidence/SCHEMA.md, peer_memory and peer_tree); and the
 * coordinator's own cost, per sample and over the run. */
#include "evidence/write/evidence_json.h"

json_object *evidence_tree_json(const struct sanitize *s,
                                const struct model_peer *p)
{
  json_object *o, *list;

  if (p->tree.method == NULL)
    return NULL;
  o = json_object_new_object();
  list = json_object_new_array();
  evidence_put(o, "method", json_object_new_string(p->tree.method));
  evidence_put(o, "complete", json_object_new_boolean(p->tree.complete));
  evidence_put(o, "count", json_object_new_int(p->tree.count));
  for (int i = 0; i < p->tree.count && i < MODEL_TREE_MAX; i++) {
    const struct model_tree_process *t = &p->tree.list[i];
    json_object *e = json_object_new_object();
    evidence_put(e, "pid", json_object_new_int64(t->pid));
    evidence_put(e, "program", evidence_text(s, t->program));
    evidence_put(e, "peak_rss_bytes", evidence_int_or_null(t->peak_rss_bytes));
    evidence_put(
        e, "source",
        json_object_new_string(t->source ? t->source : "not_measured"));
    json_object_array_add(list, e);
  }
  evidence_put(o, "processes", list);
  return o;
}

void evidence_peer_tree_fields(const struct sanitize *s,
                               const struct model_peer *p, json_object *peer,
                               json_object *cpu, json_object *mem)
{
  evidence_put(cpu, "covers",
               p->user_cpu_ns < 0   ? NULL
               : p->cpu_covers_tree ? json_object_new_string("tree")
                                    : json_object_new_string("process"));
  evidence_put(mem, "covers",
               p->memory_covers ? json_object_new_string(p->memory_covers)
                                : NULL);
  evidence_put(mem, "label",
               p->memory_label[0] ? evidence_text(s, p->memory_label) : NULL);
  evidence_put(mem, "tree", evidence_tree_json(s, p));
  evidence_put(peer, "exited_before_its_tree",
               json_object_new_boolean(p->exited_before_its_tree));
}

json_object *evidence_sample_coordinator_json(const struct model_sample *r)
{
  json_object *o = json_object_new_object();

  evidence_put(o, "cpu_ns", evidence_int_or_null(r->coordinator_cpu_ns));
  evidence_put(o, "cpu_share_of_wall",
               r->coordinator_cpu_ns >= 0 && r->wall_ns > 0
                   ? json_object_new_double((double)r->coordinator_cpu_ns /
                                            (double)r->wall_ns)
                   : NULL);
  evidence_put(o, "timer_interval_ms",
               r->coordinator_tick_ms > 0
                   ? json_object_new_int64((int64_t)r->coordinator_tick_ms)
                   : NULL);
  return o;
}

json_object *evidence_run_coordinator_json(const struct evidence_run *run)
{
  json_object *o = json_object_new_object();
  int64_t cpu = 0, wall = 0, peak = -1;
  int n = 0;

  /* Over the samples: what the coordinator spent while peers ran. */
  for (int l = 0; l < run->nlanes; l++) {
    for (int i = 0; i < run->lanes[l].nsamples; i++) {
      const struct model_sample *r = &run->lanes[l].samples[i].result;
      if (r->coordinator_cpu_ns < 0 || r->wall_ns == 0)
        continue;
      cpu += r->coordinator_cpu_ns;
      wall += (int64_t)r->wall_ns;
      if (r->coordinator_peak_rss_bytes > peak)
        peak = r->coordinator_peak_rss_bytes;
      n++;
    }
  }
  evidence_put(o, "samples", json_object_new_int(n));
  evidence_put(o, "cpu_ns", n ? json_object_new_int64(cpu) : NULL);
  evidence_put(o, "wall_ns", n ? json_object_new_int64(wall) : NULL);
  evidence_put(o, "cpu_share_of_wall",
               n && wall > 0 ? json_object_new_double((double)cpu / wall)
                             : NULL);
  evidence_put(o, "peak_rss_bytes", evidence_int_or_null(peak));
  return o;
}
