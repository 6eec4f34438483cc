#include "runner/options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HELP_COLUMN 24
#define WRAP_COLUMN 79

/* "--name" or "-x", for messages. */
static const char *display_name(const struct options_entry *opt, char *buf,
                                size_t len)
{
  if (opt->long_name != NULL)
    snprintf(buf, len, "--%s", opt->long_name);
  else
    snprintf(buf, len, "-%c", opt->short_name);
  return buf;
}

/* Whether a and b are at most k single-character edits apart: enough to
 * suggest "--samples" for "--sample" without a distance table. */
static int within_edits(const char *a, const char *b, int k)
{
  if (k < 0)
    return 0;
  if (*a == '\0' || *b == '\0')
    return (int)(strlen(a) + strlen(b)) <= k;
  if (*a == *b)
    return within_edits(a + 1, b + 1, k);
  return within_edits(a + 1, b, k - 1) || within_edits(a, b + 1, k - 1) ||
         within_edits(a + 1, b + 1, k - 1);
}

int options_near(const char *typed, const char *name)
{
  return within_edits(typed, name, strlen(typed) > 3 ? 2 : 1);
}

static int unknown_option(const struct options_entry *opts, const char *arg,
                          size_t len, char *err, size_t errlen)
{
  char name[64];

  snprintf(name, sizeof(name), "%.*s", (int)len, arg);
  for (const struct options_entry *o = opts; o->kind; o++)
    if (o->long_name != NULL && strncmp(name, "--", 2) == 0 &&
        options_near(name + 2, o->long_name)) {
      snprintf(err, errlen, "unknown option '%s'; did you mean '--%s'?", name,
               o->long_name);
      return -1;
    }
  snprintf(err, errlen, "unknown option '%s'", name);
  return -1;
}

static int parse_whole(const struct options_entry *opt, const char *name,
                       const char *s, uint64_t *out, char *err, size_t errlen)
{
  char *end;
  unsigned long long v;

  errno = 0;
  v = (*s >= '0' && *s <= '9') ? strtoull(s, &end, 10) : 0;
  if (*s < '0' || *s > '9' || errno != 0 || *end != '\0') {
    snprintf(err, errlen, "%s: expected a whole number, got '%s'", name, s);
    return -1;
  }
  if (v < opt->min || v > opt->max) {
    snprintf(err, errlen, "%s: %s is out of range (%" PRIu64 " to %" PRIu64 ")",
             name, s, opt->min, opt->max);
    return -1;
  }
  *out = v;
  return 0;
}

static void store_unsigned(void *dst, size_t size, uint64_t v)
{
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;

  /* The width comes from the table (sizeof the destination), so one
   * parser serves an int, a uint32_t and a uint64_t alike. */
  if (size == 1)
    memcpy(dst, &u8, 1);
  else if (size == 2)
    memcpy(dst, &u16, 2);
  else if (size == 4)
    memcpy(dst, &u32, 4);
  else
    memcpy(dst, &v, 8);
}

static int parse_seconds(const struct options_entry *opt, const char *name,
                         const char *s, uint64_t *ms, char *err, size_t errlen)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(s, &end);
  if (*s == '\0' || errno != 0 || *end != '\0' || !(v > 0) ||
      v > (double)opt->max) {
    snprintf(err, errlen,
             "%s: expected seconds (above 0, at most %" PRIu64 "), got '%s'",
             name, opt->max, s);
    return -1;
  }
  *ms = (uint64_t)(v * 1000.0 + 0.5);
  if (*ms == 0)
    *ms = 1;
  return 0;
}

int options_list_set(struct options_list *list, const char *text, char *err,
                     size_t errlen)
{
  char *item, *comma;

  free(list->text);
  list->count = 0;
  list->text = strdup(text);
  if (list->text == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (item = list->text;; item = comma + 1) {
    comma = strchr(item, ',');
    if (comma != NULL)
      *comma = '\0';
    if (*item == '\0' || list->count == OPTIONS_LIST_MAX) {
      snprintf(err, errlen, "%s",
               *item ? "too many names" : "an empty name in the list");
      return -1;
    }
    for (int i = 0; i < list->count; i++)
      if (strcmp(list->items[i], item) == 0) {
        snprintf(err, errlen, "'%s' given twice", item);
        return -1;
      }
    list->items[list->count++] = item;
    if (comma == NULL)
      return 0;
  }
}

/* Stores value (NULL for a flag) the way opt's kind says. */
static int store(const struct options_entry *opt, const char *name,
                 const char *value, char *err, size_t errlen)
{
  char why[256];
  uint64_t v;

  switch (opt->kind) {
  case OPTIONS_KIND_FLAG:
    *(int *)opt->value = (int)opt->number;
    return 0;
  case OPTIONS_KIND_STRING:
    if (!(opt->flags & OPTIONS_REPEAT)) {
      *(const char **)opt->value = value;
      return 0;
    }
    if (*opt->count >= opt->max_count) {
      snprintf(err, errlen, "%s: given more than %d times", name,
               opt->max_count);
      return -1;
    }
    ((const char **)opt->value)[(*opt->count)++] = value;
    return 0;
  case OPTIONS_KIND_INTEGER:
    if (parse_whole(opt, name, value, &v, err, errlen) != 0)
      return -1;
    store_unsigned(opt->value, opt->size, v);
    return 0;
  case OPTIONS_KIND_SECONDS:
    return parse_seconds(opt, name, value, opt->value, err, errlen);
  case OPTIONS_KIND_LIST:
  case OPTIONS_KIND_CUSTOM:
    if ((opt->kind == OPTIONS_KIND_LIST
             ? options_list_set(opt->value, value, why, sizeof(why))
             : opt->parse(opt, value, why, sizeof(why))) == 0)
      return 0;
    snprintf(err, errlen, "%s: %s", name, why);
    return -1;
  default:
    snprintf(err, errlen, "%s: not an option kind", name);
    return -1;
  }
}

/* Applies opt, given as argv[*i] with its value after '=' in inline_value
 * (NULL when none); a value of its own moves *i on. */
static int take(const struct options_entry *opt, const char *inline_value,
                int argc, char **argv, int *i, unsigned *used, char *err,
                size_t errlen)
{
  char name[64];
  const char *value = inline_value;

  display_name(opt, name, sizeof(name));
  if (opt->kind == OPTIONS_KIND_FLAG && value != NULL) {
    snprintf(err, errlen, "%s takes no value", name);
    return -1;
  }
  if (opt->kind != OPTIONS_KIND_FLAG && value == NULL && *i + 1 < argc)
    value = argv[++*i];
  if (opt->kind != OPTIONS_KIND_FLAG &&
      (value == NULL || (*value == '\0' && (opt->flags & OPTIONS_NONEMPTY)))) {
    snprintf(err, errlen, "%s needs %s", name,
             opt->missing ? opt->missing : "a value");
    return -1;
  }
  if ((opt->flags & OPTIONS_ONCE) && *used) {
    snprintf(err, errlen, "%s is given twice", name);
    return -1;
  }
  *used = 1;
  if (store(opt, name, value, err, errlen) != 0)
    return -1;
  if (opt->given != NULL)
    *opt->given |= opt->given_bit;
  return 0;
}

/* The option that arg ("--name", "--name=value", "-x", "-xvalue") names,
 * with its inline value; NULL when none does. */
static const struct options_entry *find(const struct options_entry *opts,
                                        const char *arg, const char **value)
{
  if (arg[1] == '-') {
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);

    *value = eq ? eq + 1 : NULL;
    for (const struct options_entry *o = opts; o->kind; o++)
      if (o->long_name && strlen(o->long_name) == len &&
          strncmp(o->long_name, name, len) == 0)
        return o;
    return NULL;
  }
  *value = arg[2] ? arg + 2 : NULL;
  for (const struct options_entry *o = opts; o->kind; o++)
    if (o->short_name != 0 && o->short_name == arg[1])
      return o;
  return NULL;
}

int options_parse(const struct options_entry *opts, int argc, char **argv,
                  const char **args, int *nargs, char *err, size_t errlen)
{
  unsigned used[128] = {0};
  int only_args = 0;

  if (nargs != NULL)
    *nargs = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *value;
    const struct options_entry *opt;

    if (only_args || arg[0] != '-' || arg[1] == '\0') {
      if (args == NULL) {
        snprintf(err, errlen, "unexpected argument '%s'", arg);
        return -1;
      }
      args[(*nargs)++] = arg;
    } else if (strcmp(arg, "--") == 0) {
      only_args = 1;
    } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      return OPTIONS_HELP;
    } else if ((opt = find(opts, arg, &value)) == NULL) {
      return unknown_option(opts, arg, strcspn(arg, "="), err, errlen);
    } else if ((size_t)(opt - opts) >= sizeof(used) / sizeof(used[0])) {
      snprintf(err, errlen, "%s: too many options in the table", arg);
      return -1;
    } else if (take(opt, value, argc, argv, &i, &used[opt - opts], err,
                    errlen) != 0) {
      return -1;
    }
  }
  return 0;
}

int options_parse_command(const struct options_command *cmd,
                          const struct options_entry *opts, int argc,
                          char **argv, const char **args, int *nargs, FILE *out,
                          FILE *err)
{
  char why[512];
  int rc = options_parse(opts, argc, argv, args, nargs, why, sizeof(why));

  if (rc == OPTIONS_HELP)
    options_usage(cmd, opts, out);
  else if (rc != 0)
    options_error(err, cmd, "%s", why);
  return rc;
}

void options_release(const struct options_entry *opts)
{
  for (const struct options_entry *o = opts; o->kind; o++)
    if (o->kind == OPTIONS_KIND_LIST) {
      struct options_list *list = o->value;
      free(list->text);
      list->text = NULL;
      list->count = 0;
    }
}

/* One paragraph (no newline in it), its first word at column indent,
 * wrapped before WRAP_COLUMN. */
static void wrap_paragraph(FILE *f, const char *p, size_t len, int indent)
{
  int col = indent, fresh = 1;

  while (len > 0) {
    size_t word = strcspn(p, " ");
    if (word > len)
      word = len;
    if (!fresh && col + 1 + (int)word > WRAP_COLUMN) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (!fresh) {
      fputc(' ', f);
      col++;
    }
    fwrite(p, 1, word, f);
    col += (int)word;
    fresh = 0;
    while (word < len && p[word] == ' ')
      word++;
    p += word;
    len -= word;
  }
}

void options_wrap(FILE *f, const char *text, int indent, int at)
{
  for (;;) {
    size_t len = strcspn(text, "\n");
    if (len > 0) {
      fprintf(f, "%*s", at < indent ? indent - at : 0, "");
      wrap_paragraph(f, text, len, indent);
    }
    fputc('\n', f);
    if (text[len] == '\0')
      return;
    text += len + 1;
    at = 0;
  }
}

static void usage_option(const struct options_entry *o, FILE *f)
{
  char left[96], help[512];
  int n;

  if (o->short_name && o->long_name)
    n = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name,
                 o->long_name);
  else if (o->long_name)
    n = snprintf(left, sizeof(left), "  --%s", o->long_name);
  else
    n = snprintf(left, sizeof(left), "  -%c", o->short_name);
  if (o->kind != OPTIONS_KIND_FLAG && o->arg != NULL)
    n += snprintf(left + n, sizeof(left) - (size_t)n, " %s", o->arg);
  snprintf(help, sizeof(help), "%s%s%s%s", o->help ? o->help : "",
           o->shown ? " (default: " : "", o->shown ? o->shown : "",
           o->shown ? ")" : "");
  fputs(left, f);
  if (n + 2 > HELP_COLUMN) {
    fputc('\n', f);
    n = 0;
  }
  options_wrap(f, help, HELP_COLUMN, n);
}

void options_usage(const struct options_command *cmd,
                   const struct options_entry *opts, FILE *f)
{
  static const struct options_entry help =
      OPTIONS_FLAG("help", 'h', NULL, "this help");

  int col = fprintf(f, "usage: crossrun %s ", cmd->name);

  options_wrap(f, cmd->usage, col, col);
  if (cmd->about != NULL) {
    fputc('\n', f);
    options_wrap(f, cmd->about, 0, 0);
  }
  fputs("\noptions:\n", f);
  for (const struct options_entry *o = opts; o->kind; o++)
    usage_option(o, f);
  usage_option(&help, f);
  if (cmd->after != NULL) {
    fputc('\n', f);
    options_wrap(f, cmd->after, 0, 0);
  }
}

void options_error(FILE *f, const struct options_command *cmd, const char *fmt,
                   ...)
{
  va_list ap;

  fprintf(f, "crossrun %s: ", cmd->name);
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fprintf(f, " (see crossrun %s --help)\n", cmd->name);
}
