#include "evidence/write/cost.h"

#include <stdlib.h>
#include <string.h>

#include "evidence/write/evidence_json.h"
#include "evidence/write/stats.h"
#include "protocol/histogram.h"

#define NO_ROUND_TRIPS "no measured round trips"

static int cpu_per_round_trip(int64_t user_us, int64_t system_us,
                              int64_t round_trips, double *out)
{
  if (user_us < 0 || system_us < 0 || round_trips <= 0)
    return 0;
  *out = ((double)user_us + (double)system_us) / (double)round_trips;
  return 1;
}

int cost_sample_of(const struct model_sample *r, struct cost_sample *c)
{
  const struct model_client_result *res = &r->result;
  struct hist *h;

  memset(c, 0, sizeof(*c));
  if (r->status != MODEL_PASSED || !r->have_result)
    return -1;
  c->has_client_cpu =
      cpu_per_round_trip(res->cpu_user_us, res->cpu_system_us, res->round_trips,
                         &c->client_cpu_us_per_round_trip);
  if (!c->has_client_cpu)
    c->client_cpu_why =
        res->round_trips <= 0
            ? NO_ROUND_TRIPS
            : "the client's result line has no cpu_user_us or cpu_system_us";
  c->has_server_cpu = r->have_server_result &&
                      cpu_per_round_trip(r->server_result.cpu_user_us,
                                         r->server_result.cpu_system_us,
                                         r->server_result.round_trips,
                                         &c->server_cpu_us_per_round_trip);
  if (!c->has_server_cpu)
    c->server_cpu_why = !r->have_server_result
                            ? "the server printed no result line"
                            : NO_ROUND_TRIPS;
  if (!res->has_latency || res->latency.count <= 0) {
    c->latency_why = !res->has_latency
                         ? "the client's result line has no latency"
                         : NO_ROUND_TRIPS;
    return 0;
  }
  /* From the buckets, as SPEC.md section 7 defines them: a reader of the
   * evidence recomputes these exactly. */
  h = malloc(sizeof(*h));
  if (h == NULL || model_latency_to_hist(&res->latency, h) != 0) {
    free(h);
    return -1;
  }
  c->has_latency = 1;
  c->p50 = hist_percentile(h, HIST_P50);
  c->p90 = hist_percentile(h, HIST_P90);
  c->p99 = hist_percentile(h, HIST_P99);
  c->p99_9 = hist_percentile(h, HIST_P99_9);
  c->min = res->latency.min;
  c->max = res->latency.max;
  free(h);
  return 0;
}

static json_object *percentiles_json(json_object *o, const struct hist *h)
{
  evidence_put(o, "p50", evidence_int_or_null(hist_percentile(h, HIST_P50)));
  evidence_put(o, "p90", evidence_int_or_null(hist_percentile(h, HIST_P90)));
  evidence_put(o, "p99", evidence_int_or_null(hist_percentile(h, HIST_P99)));
  evidence_put(o, "p99_9",
               evidence_int_or_null(hist_percentile(h, HIST_P99_9)));
  return o;
}

static json_object *buckets_json(const struct hist *h)
{
  json_object *a = json_object_new_array();

  for (int i = 0; i < HIST_BUCKETS; i++) {
    if (h->buckets[i] == 0)
      continue;
    json_object *pair = json_object_new_array();
    json_object_array_add(pair, json_object_new_int(i));
    json_object_array_add(pair, json_object_new_int64((int64_t)h->buckets[i]));
    json_object_array_add(a, pair);
  }
  return a;
}

json_object *cost_latency_json(const struct model_latency *l)
{
  json_object *o = json_object_new_object(), *a = json_object_new_array();

  evidence_put(o, "count", json_object_new_int64(l->count));
  evidence_put(o, "min", evidence_int_or_null(l->min));
  evidence_put(o, "max", evidence_int_or_null(l->max));
  evidence_put(o, "p50", evidence_int_or_null(l->p50));
  evidence_put(o, "p90", evidence_int_or_null(l->p90));
  evidence_put(o, "p99", evidence_int_or_null(l->p99));
  evidence_put(o, "p99_9", evidence_int_or_null(l->p99_9));
  for (int i = 0; i < l->nbuckets; i++) {
    json_object *pair = json_object_new_array();
    json_object_array_add(pair, json_object_new_int(l->buckets[i].index));
    json_object_array_add(pair, json_object_new_int64(l->buckets[i].count));
    json_object_array_add(a, pair);
  }
  evidence_put(o, "buckets", a);
  return o;
}

static json_object *number_or_null(int has, double v)
{
  return has ? json_object_new_double(v) : NULL;
}

static void why_put(json_object *o, const char *figure, const char *why)
{
  if (why != NULL)
    evidence_put(o, figure, json_object_new_string(why));
}

json_object *cost_sample_json(const struct model_sample *r)
{
  struct cost_sample c;
  json_object *o, *lat = NULL, *why;

  if (cost_sample_of(r, &c) != 0)
    return NULL;
  o = json_object_new_object();
  evidence_put(
      o, "client_cpu_us_per_round_trip",
      number_or_null(c.has_client_cpu, c.client_cpu_us_per_round_trip));
  evidence_put(
      o, "server_cpu_us_per_round_trip",
      number_or_null(c.has_server_cpu, c.server_cpu_us_per_round_trip));
  if (c.has_latency) {
    lat = json_object_new_object();
    evidence_put(lat, "p50", json_object_new_int64(c.p50));
    evidence_put(lat, "p90", json_object_new_int64(c.p90));
    evidence_put(lat, "p99", json_object_new_int64(c.p99));
    evidence_put(lat, "p99_9", json_object_new_int64(c.p99_9));
    evidence_put(lat, "min", json_object_new_int64(c.min));
    evidence_put(lat, "max", json_object_new_int64(c.max));
  }
  evidence_put(o, "latency_ns", lat);
  why = json_object_new_object();
  why_put(why, "client_cpu_us_per_round_trip", c.client_cpu_why);
  why_put(why, "server_cpu_us_per_round_trip", c.server_cpu_why);
  why_put(why, "latency_ns", c.latency_why);
  evidence_put(o, "not_reported", why);
  return o;
}

void cost_lane_release(struct cost_lane *c)
{
  free(c->latency);
  c->latency = NULL;
}

void cost_lane_compute(const struct evidence_lane *lane, struct cost_lane *c)
{
  size_t n = lane->nsamples > 0 ? (size_t)lane->nsamples : 1;
  double *client = calloc(n, sizeof(double)),
         *server = calloc(n, sizeof(double));
  struct hist *one = malloc(sizeof(*one));
  struct stats_figure f;

  memset(c, 0, sizeof(*c));
  c->latency = malloc(sizeof(*c->latency));
  if (client == NULL || server == NULL || one == NULL || c->latency == NULL)
    goto fail;
  hist_init(c->latency);
  for (int i = 0; i < lane->nsamples; i++) {
    const struct model_sample *r = &lane->samples[i].result;
    struct cost_sample cs;
    if (cost_sample_of(r, &cs) != 0)
      continue;
    c->passed++;
    if (cs.has_client_cpu)
      client[c->n_client_cpu++] = cs.client_cpu_us_per_round_trip;
    if (cs.has_server_cpu)
      server[c->n_server_cpu++] = cs.server_cpu_us_per_round_trip;
    if (!cs.has_latency)
      continue;
    if (model_latency_to_hist(&r->result.latency, one) != 0)
      goto fail;
    hist_merge(c->latency, one);
    c->latency_samples++;
  }
  stats_figure_of(client, c->n_client_cpu, &f);
  c->client_cpu_us_per_round_trip_median = f.median;
  stats_figure_of(server, c->n_server_cpu, &f);
  c->server_cpu_us_per_round_trip_median = f.median;
  if (c->latency_samples == 0)
    cost_lane_release(c);
  goto out;
fail:
  cost_lane_release(c);
  memset(c, 0, sizeof(*c));
  c->oom = 1;
out:
  free(client);
  free(server);
  free(one);
}

void cost_summary_add(json_object *o, const struct evidence_lane *lane)
{
  struct cost_lane c;
  json_object *lat = NULL, *why = json_object_new_object();
  const char *none = NULL;

  cost_lane_compute(lane, &c);
  if (c.oom)
    none = "out of memory";
  else if (c.passed == 0)
    none = "no sample passed";
  if (c.latency != NULL) {
    lat = json_object_new_object();
    evidence_put(lat, "samples", json_object_new_int(c.latency_samples));
    evidence_put(lat, "count",
                 json_object_new_int64((int64_t)c.latency->count));
    evidence_put(lat, "min", json_object_new_int64(c.latency->min));
    evidence_put(lat, "max", json_object_new_int64(c.latency->max));
    percentiles_json(lat, c.latency);
    evidence_put(lat, "buckets", buckets_json(c.latency));
  }
  evidence_put(o, "latency_ns", lat);
  evidence_put(o, "client_cpu_us_per_round_trip_median",
               number_or_null(c.n_client_cpu > 0,
                              c.client_cpu_us_per_round_trip_median));
  evidence_put(o, "server_cpu_us_per_round_trip_median",
               number_or_null(c.n_server_cpu > 0,
                              c.server_cpu_us_per_round_trip_median));
  if (lat == NULL)
    why_put(why, "latency_ns",
            none ? none
                 : "no passed sample's client reported a latency histogram "
                   "with round trips");
  if (c.n_client_cpu == 0)
    why_put(why, "client_cpu_us_per_round_trip_median",
            none ? none
                 : "no passed sample's client reported its CPU with round "
                   "trips");
  if (c.n_server_cpu == 0)
    why_put(why, "server_cpu_us_per_round_trip_median",
            none ? none
                 : "no passed sample's server reported its CPU with round "
                   "trips");
  evidence_put(o, "not_reported", why);
  cost_lane_release(&c);
}
