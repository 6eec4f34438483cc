/* The transport of each lane in a report: what a lane's evidence says of
 * its transport and, over tls, its handshakes and cipher; and the section
 * that shows each client-server pair over tcp and over tls side by side
 * (protocol/SPEC.md section 9). */
#include "evidence/report/report_reader.h"
#include "evidence/report/report_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one value every passed sample gives, "mixed" when they differ. */
static const char *same_or_mixed(const char *so_far, const char *v, int first)
{
  if (v == NULL)
    return so_far;
  if (first || so_far == NULL)
    return v;
  return strcmp(so_far, v) == 0 ? so_far : "mixed";
}

void report_tls_lane(struct report_reader *rd, json_object *o,
                     const char *where, struct report_lane *l)
{
  json_object *samples;
  char w[REPORT_WHERE_MAX], rw[REPORT_WHERE_MAX], tw[REPORT_WHERE_MAX];
  double *v;
  size_t n;
  int k = 0, seen = 0;

  l->transport = report_reader_str_or(rd, o, where, "transport", "tcp");
  l->unsupported_reason = report_reader_str(rd, o, where, "unsupported_reason");
  samples = report_reader_get(rd, o, where, "samples", json_type_array, 0);
  n = samples ? json_object_array_length(samples) : 0;
  if (n == 0 || n > REPORT_MAX_SAMPLES || strcmp(l->transport, "tls") != 0)
    return; /* report_lane_read says what is wrong with the samples */
  v = report_reader_own_array(rd, n, sizeof(*v));
  for (size_t i = 0; v != NULL && i < n && !rd->failed; i++) {
    json_object *s = json_object_array_get_idx(samples, i), *res, *tls;
    int64_t ns;
    if (!json_object_is_type(s, json_type_object))
      return;
    snprintf(w, sizeof(w), "%s.samples[%zu]", where, i);
    if (strcmp(report_reader_str_or(rd, s, w, "status", ""), "passed") != 0)
      continue;
    res = report_reader_get(rd, s, w, "result", json_type_object, 0);
    report_reader_join(rw, w, "result");
    tls = report_reader_get(rd, res, rw, "tls", json_type_object, 0);
    if (tls == NULL)
      continue;
    report_reader_join(tw, rw, "tls");
    l->tls_version = same_or_mixed(
        l->tls_version, report_reader_str(rd, tls, tw, "version"), !seen);
    l->tls_cipher = same_or_mixed(
        l->tls_cipher, report_reader_str(rd, tls, tw, "cipher"), !seen);
    seen = 1;
    if (report_reader_whole(rd, tls, tw, "handshake_ns", &ns))
      v[k++] = (double)ns;
  }
  report_figure_of(v, k, &l->handshake_ns);
}

/* ---- the section ---- */

#define TLS_COLUMNS 6
#define TLS_CELL_MAX 256

static void prose(struct report_sink *s, const char *text)
{
  struct report_span span = {REPORT_SPAN_PROSE, text};
  s->ops->paragraph(s, &span, 1);
}

/* The lane over tcp of the same pair as tls, or NULL. */
static const struct report_lane *tcp_of(const struct report_platform *p,
                                        const struct report_lane *tls)
{
  for (int i = 0; i < p->nlanes; i++)
    if (strcmp(p->lanes[i].transport, "tcp") == 0 &&
        strcmp(p->lanes[i].client, tls->client) == 0 &&
        strcmp(p->lanes[i].server, tls->server) == 0)
      return &p->lanes[i];
  return NULL;
}

static void tls_row(struct report_sink *s, const struct report_platform *p,
                    const struct report_lane *tls)
{
  const struct report_lane *tcp = tcp_of(p, tls);
  struct report_cell c[TLS_COLUMNS];
  char text[TLS_COLUMNS][TLS_CELL_MAX], pair[160];

  snprintf(pair, sizeof(pair), "%s-%s", tls->client, tls->server);
  c[0] = (struct report_cell){REPORT_CELL_HEAD, pair, NULL, 0, NULL};
  c[1] = (struct report_cell){tcp ? REPORT_CELL_LANE : REPORT_CELL_EMPTY, NULL,
                              tcp, 0, NULL};
  c[2] = (struct report_cell){REPORT_CELL_LANE, NULL, tls, 0, NULL};
  /* A ratio only where both lanes passed with a time: a lane that did not
   * run over tls is unsupported, never slow. */
  if (tcp && tcp->ns_per_rt.n > 0 && tls->ns_per_rt.n > 0 &&
      tcp->ns_per_rt.median > 0)
    snprintf(text[3], TLS_CELL_MAX, "%.2fx",
             tls->ns_per_rt.median / tcp->ns_per_rt.median);
  else
    snprintf(text[3], TLS_CELL_MAX, "-");
  c[3] = (struct report_cell){REPORT_CELL_NUMBER, text[3], NULL, 0, NULL};
  if (tls->handshake_ns.n > 0)
    report_format_figure(text[4], TLS_CELL_MAX, &tls->handshake_ns,
                         REPORT_LATENCY_NS);
  else
    snprintf(text[4], TLS_CELL_MAX, "%s",
             tls->passed > 0 ? "not reported" : "-");
  c[4] = (struct report_cell){REPORT_CELL_NUMBER, text[4], NULL, 0, NULL};
  if (tls->tls_cipher)
    snprintf(text[5], TLS_CELL_MAX, "%s %s",
             tls->tls_version ? tls->tls_version : "?", tls->tls_cipher);
  else
    snprintf(text[5], TLS_CELL_MAX, "%s",
             tls->passed > 0 ? "not reported" : "-");
  c[5] = (struct report_cell){REPORT_CELL_TEXT, text[5], NULL, 0, NULL};
  s->ops->table.row(s, c, TLS_COLUMNS);
}

void report_tls_section(struct report_sink *s, int platform)
{
  static const char *const cols[TLS_COLUMNS] = {
      "client-server", "over tcp",           "over tls",
      "tls / tcp",     "handshake (client)", "TLS version and cipher"};
  const struct report_platform *p = &s->r->platforms[platform];
  int any = 0;

  for (int i = 0; i < p->nlanes && !any; i++)
    any = strcmp(p->lanes[i].transport, "tls") == 0;
  if (!any)
    return;
  s->ops->section.begin(s, 3, "Transports: tcp and tls", NULL, NULL, -1);
  prose(s, "Each client-server pair over tcp and over tls (TLS 1.3, ALPN "
           "crossrun/1, a fresh certificate per sample): median ns per round "
           "trip [min\xe2\x80\x93max] of each lane, the ratio of the "
           "medians, the client's handshake time (outside the timed round "
           "trips), and what the client reported of the session. A lane a "
           "runtime does not implement is unsupported, not failed.");
  s->ops->table.begin(s, cols, TLS_COLUMNS);
  for (int i = 0; i < p->nlanes; i++)
    if (strcmp(p->lanes[i].transport, "tls") == 0)
      tls_row(s, p, &p->lanes[i]);
  s->ops->table.end(s);
  s->ops->section.end(s, 3);
}
