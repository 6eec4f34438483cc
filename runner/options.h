/* The one command-line parser every command uses: a table of options per
 * command (git's parse-options), from which the parsing, the errors and
 * the --help text all come.
 *
 * A command builds its table where its destination variables are, ends it
 * with OPTIONS_END, and calls options_parse:
 *
 *   struct options_entry opts[] = {
 *       OPTIONS_STRING("out", 0, &a.out, "FILE", "the merged document"),
 *       OPTIONS_FLAG("allow-rehearsal", 0, &a.rehearsal, "accept ..."),
 *       OPTIONS_END,
 *   };
 *
 * "--name VALUE" and "--name=VALUE" both work for every option that takes
 * a value, "-x VALUE" and "-xVALUE" for a short name; "--" ends the
 * options; "-" alone is an argument. -h and --help are every command's. */
#ifndef CROSSRUN_RUNNER_OPTIONS_H
#define CROSSRUN_RUNNER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum options_kind {
  OPTIONS_KIND_END,
  OPTIONS_KIND_FLAG,    /* no value: *(int *)value = number */
  OPTIONS_KIND_STRING,  /* *(const char **)value = the value (in argv) */
  OPTIONS_KIND_INTEGER, /* a whole number in [min, max] */
  OPTIONS_KIND_SECONDS, /* seconds, above 0 and at most max: uint64_t ms */
  OPTIONS_KIND_LIST,    /* comma-separated names: struct options_list */
  OPTIONS_KIND_CUSTOM   /* parse(value, value_ptr) decides */
};

/* Flags of an option. */
enum options_flag {
  OPTIONS_REPEAT = 1,   /* STRING: each use appends to an array (below) */
  OPTIONS_ONCE = 2,     /* given twice is an error */
  OPTIONS_NONEMPTY = 4, /* an empty value is an error */
  OPTIONS_HIDDEN = 8    /* parsed, but not in --help */
};

struct options_entry;

/* A CUSTOM option's parser: stores what value means into opt->value.
 * Returns 0, or -1 with the problem in err (the option's name is put in
 * front of it). */
typedef int options_parse_fn(const struct options_entry *opt, const char *value,
                             char *err, size_t errlen);

struct options_entry {
  enum options_kind kind;
  const char *long_name; /* without "--"; NULL for a short name only */
  char short_name;       /* 0 for none */
  void *value;           /* where the value goes (see the kinds) */
  size_t size;           /* INTEGER: sizeof the integer at value */
  const char *arg;       /* the value's name in --help ("FILE") */
  const char *help;      /* one sentence or two; wrapped in --help */
  const char *shown;     /* the default shown in --help, or NULL */
  uint64_t min, max;     /* INTEGER, SECONDS (max, in seconds) */
  long number;           /* FLAG: the value stored */
  unsigned flags;        /* enum options_flag */
  unsigned *given;       /* when not NULL, given_bit is set in it on use */
  unsigned given_bit;
  int *count;    /* REPEAT: entries in the array at value */
  int max_count; /* REPEAT: its capacity */
  options_parse_fn *parse;
  const char *missing; /* "needs ..." when the value is missing or empty */
};

/* A LIST option's value: the names of every use, in order. items point
 * into text, which the list owns. */
#define OPTIONS_LIST_MAX 64
struct options_list {
  char *text;
  const char *items[OPTIONS_LIST_MAX];
  int count;
};

#define OPTIONS_END                                                            \
  {                                                                            \
    .kind = OPTIONS_KIND_END                                                   \
  }
/* The fields every entry has, for an initializer that sets more (given,
 * flags, missing) than the macros below. */
#define OPTIONS_FIELDS(k, l, s, v, a, h)                                       \
  .kind = (k), .long_name = (l), .short_name = (s), .value = (v), .arg = (a),  \
  .help = (h)
#define OPTIONS_FLAG(l, s, v, h)                                               \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_FLAG, l, s, v, NULL, h), .number = 1           \
  }
/* A flag that stores n (--no-progress stores 0). */
#define OPTIONS_SET(l, s, v, n, h)                                             \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_FLAG, l, s, v, NULL, h), .number = (n)         \
  }
#define OPTIONS_STRING(l, s, v, a, h)                                          \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_STRING, l, s, v, a, h)                         \
  }
/* v points to an unsigned integer of any width (or an int); lo and hi
 * bound it. */
#define OPTIONS_INTEGER(l, s, v, lo, hi, a, h)                                 \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_INTEGER, l, s, v, a, h),                       \
        .size = sizeof(*(v)), .min = (lo), .max = (hi)                         \
  }
#define OPTIONS_SECONDS(l, s, v, hi, h)                                        \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_SECONDS, l, s, v, "SEC", h), .max = (hi)       \
  }
#define OPTIONS_LIST(l, s, v, a, h)                                            \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_LIST, l, s, v, a, h)                           \
  }
#define OPTIONS_CUSTOM(l, s, v, fn, a, h)                                      \
  {                                                                            \
    OPTIONS_FIELDS(OPTIONS_KIND_CUSTOM, l, s, v, a, h), .parse = (fn)          \
  }

/* What a command says about itself in --help. */
struct options_command {
  const char *name;  /* "merge", as in "crossrun merge" */
  const char *usage; /* what follows the name: "[OPTIONS] FILES..." */
  const char *about; /* paragraphs before the options (wrapped) */
  const char *after; /* paragraphs after them: exit status (wrapped) */
};

/* Parses argv[1..argc) (argv[0] is the command's name) against opts;
 * the last use of an option wins unless it is OPTIONS_ONCE.
 * Arguments that are not options go to args[0..*nargs), which holds argc
 * entries; with args NULL, any is an error. Returns 0, OPTIONS_HELP when
 * -h or --help was given (nothing after it is parsed), or -1 with one line
 * in err naming the option and the problem. Strings point into argv; the
 * lists own theirs (options_release). */
#define OPTIONS_HELP 1
int options_parse(const struct options_entry *opts, int argc, char **argv,
                  const char **args, int *nargs, char *err, size_t errlen);

/* options_parse for a command that prints its own --help and errors:
 * -h or --help writes options_usage to out and returns OPTIONS_HELP; bad
 * usage is written to err by options_error and returns -1; 0 to go on. */
int options_parse_command(const struct options_command *cmd,
                          const struct options_entry *opts, int argc,
                          char **argv, const char **args, int *nargs, FILE *out,
                          FILE *err);

/* Frees what the LIST options of opts hold. */
void options_release(const struct options_entry *opts);

/* Splits text, a comma-separated list, into list (replacing what it held).
 * Returns 0, or -1 with the problem in err: an empty name, a name given
 * twice, more than OPTIONS_LIST_MAX. */
int options_list_set(struct options_list *list, const char *text, char *err,
                     size_t errlen);

/* Writes the --help of cmd: the usage line, its about text, every option
 * of opts with its help and default, and the after text. */
void options_usage(const struct options_command *cmd,
                   const struct options_entry *opts, FILE *f);

/* Whether typed is a likely misspelling of name (an edit or two away),
 * for a "did you mean" hint. */
int options_near(const char *typed, const char *name);

/* Writes "crossrun CMD: <message> (see crossrun CMD --help)" and a
 * newline to f: how every command reports bad usage. */
void options_error(FILE *f, const struct options_command *cmd, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));

/* Writes text wrapped to 79 columns, each line of it indented by indent
 * spaces; the first starts at column `at` (what is before it is already
 * written). A newline in text starts a new paragraph; an empty one, a
 * blank line. */
void options_wrap(FILE *f, const char *text, int indent, int at);

#endif
