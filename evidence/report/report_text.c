/* The text helpers every renderer uses (evidence/report/report_sink_markdown.c,
 * report_sink_html.c, report_junit.c): UTF-8 read and written one character at
 * a time, HTML/XML escaping, and figures with their units. In a file of
 * their own so that no renderer depends on another. */
#include "evidence/report/report_text.h"

#include <stdio.h>
#include <string.h>

#include "evidence/report/report.h"
#include "evidence/base/utf8.h"

/* ---- UTF-8 and XML text ---- */

int report_utf8_next(const char *s, uint32_t *cp)
{
  /* The string's NUL ends any sequence it cuts short. */
  int n = utf8_decode(s, s[0] == '\0' ? 1 : strnlen(s, 4), cp);

  /* XML does not allow U+FFFE and U+FFFF. */
  if (n == 0 || *cp == 0xfffe || *cp == 0xffff) {
    *cp = UTF8_REPLACEMENT;
    return 1;
  }
  return n;
}

void report_put_utf8(FILE *f, uint32_t cp)
{
  if (cp < 0x80) {
    fputc((int)cp, f);
  } else if (cp < 0x800) {
    fputc((int)(0xc0 | (cp >> 6)), f);
    fputc((int)(0x80 | (cp & 0x3f)), f);
  } else if (cp < 0x10000) {
    fputc((int)(0xe0 | (cp >> 12)), f);
    fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
    fputc((int)(0x80 | (cp & 0x3f)), f);
  } else {
    fputc((int)(0xf0 | (cp >> 18)), f);
    fputc((int)(0x80 | ((cp >> 12) & 0x3f)), f);
    fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
    fputc((int)(0x80 | (cp & 0x3f)), f);
  }
}

void report_xml_text(FILE *f, const char *s, int keep_newlines)
{
  if (s == NULL)
    return;
  while (*s) {
    uint32_t c;
    s += report_utf8_next(s, &c);
    switch (c) {
    case '&':
      fputs("&amp;", f);
      break;
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    case '\'':
      fputs("&#39;", f);
      break;
    case '\n':
    case '\t':
      fputc(keep_newlines ? (int)c : ' ', f);
      break;
    default:
      /* C0 and C1 controls and DEL: XML 1.0 forbids most and discourages
       * the rest; none of them carries meaning in a report. */
      if (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c < 0xa0))
        report_put_utf8(f, c);
    }
  }
}

/* ---- figures as text ---- */

struct unit_choice {
  double divisor;
  const char *suffix;
  int decimals;
};

static struct unit_choice unit_for(double v, enum report_unit unit)
{
  struct unit_choice u = {1, "", 1};

  switch (unit) {
  case REPORT_NS:
    u.decimals = v >= 10000 ? 0 : 1;
    break;
  case REPORT_BYTES:
    if (v >= 1024.0 * 1024 * 1024)
      u = (struct unit_choice){1024.0 * 1024 * 1024, " GiB", 2};
    else if (v >= 1024.0 * 1024)
      u = (struct unit_choice){1024.0 * 1024, " MiB", 1};
    else if (v >= 1024)
      u = (struct unit_choice){1024, " KiB", 1};
    else
      u = (struct unit_choice){1, " B", 0};
    break;
  case REPORT_CPU_NS:
    if (v >= 1e9)
      u = (struct unit_choice){1e9, " s", 2};
    else
      u = (struct unit_choice){1e6, " ms", 1};
    break;
  case REPORT_LATENCY_NS:
    if (v >= 1e9)
      u = (struct unit_choice){1e9, " s", 2};
    else if (v >= 1e6)
      u = (struct unit_choice){1e6, " ms", 2};
    else if (v >= 1e4)
      u = (struct unit_choice){1e3, " \xc2\xb5s", 1};
    else if (v >= 1e3)
      u = (struct unit_choice){1e3, " \xc2\xb5s", 2};
    else
      u = (struct unit_choice){1, " ns", 0};
    break;
  case REPORT_CPU_US:
    u = (struct unit_choice){1, " \xc2\xb5s", v >= 100 ? 0 : v >= 10 ? 1 : 2};
    break;
  }
  return u;
}

void report_format_value(char *out, size_t len, double v, enum report_unit unit)
{
  struct unit_choice u = unit_for(v, unit);
  snprintf(out, len, "%.*f%s", u.decimals, v / u.divisor, u.suffix);
}

void report_format_figure(char *out, size_t len, const struct report_figure *f,
                          enum report_unit unit)
{
  struct unit_choice u;

  if (f->n <= 0) {
    snprintf(out, len, "-");
    return;
  }
  u = unit_for(f->median, unit);
  if (!f->have_range)
    snprintf(out, len, "%.*f%s (no range)", u.decimals, f->median / u.divisor,
             u.suffix);
  else
    snprintf(out, len, "%.*f%s [%.*f\xe2\x80\x93%.*f]", u.decimals,
             f->median / u.divisor, u.suffix, u.decimals, f->min / u.divisor,
             u.decimals, f->max / u.divisor);
}

const char *report_memory_label(char *out, size_t len, const char *label,
                                const char *covers)
{
  const char *extra = NULL;

  if (covers && strcmp(covers, "tree") == 0)
    extra = "whole tree";
  else if (covers && strcmp(covers, "process") == 0)
    extra = "process only";
  if (extra && label && strstr(label, covers) != NULL)
    extra = NULL;
  if (label == NULL && extra == NULL)
    return NULL;
  snprintf(out, len, "%s%s%s", label ? label : "", label && extra ? ", " : "",
           extra ? extra : "");
  return out;
}

const char *report_coordinator_text(char *out, size_t len,
                                    const struct report_platform *p)
{
  char cpu[64] = "not reported", wall[64] = "", share[32] = "",
       peak[64] = "not reported";

  if (!p->coordinator.present)
    return NULL;
  if (p->coordinator.cpu_ns >= 0)
    report_format_value(cpu, sizeof(cpu), p->coordinator.cpu_ns, REPORT_CPU_NS);
  if (p->coordinator.wall_ns >= 0) {
    snprintf(wall, sizeof(wall), " over ");
    report_format_value(wall + 6, sizeof(wall) - 6, p->coordinator.wall_ns,
                        REPORT_LATENCY_NS);
    strncat(wall, " of wall time", sizeof(wall) - strlen(wall) - 1);
  }
  if (p->coordinator.cpu_share_of_wall >= 0)
    snprintf(share, sizeof(share), " (%.2f%%)",
             100 * p->coordinator.cpu_share_of_wall);
  if (p->coordinator.peak_rss_bytes >= 0)
    report_format_value(peak, sizeof(peak),
                        (double)p->coordinator.peak_rss_bytes, REPORT_BYTES);
  snprintf(out, len, "crossrun's own CPU %s%s%s, peak memory %s", cpu, wall,
           share, peak);
  return out;
}
