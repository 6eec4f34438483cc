/* The reproduce block of a sample: the crossrun command that reruns it,
 * as words and as a line for /bin/sh, and its two peers' command lines. */
#include "evidence/write/evidence.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evidence/write/sanitize.h"

/* Appends one word (printf-formatted) to w; a word that does not fit is
 * dropped with those after it, and w->truncated says so. */
static void add(struct evidence_words *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add(struct evidence_words *w, const char *fmt, ...)
{
  size_t room = sizeof(w->buf) - w->used;
  va_list ap;
  int n;

  if (w->truncated || w->argc >= EVIDENCE_REPRODUCE_WORDS) {
    w->truncated = 1;
    return;
  }
  va_start(ap, fmt);
  n = vsnprintf(w->buf + w->used, room, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= room) {
    w->truncated = 1;
    return;
  }
  w->argv[w->argc++] = w->buf + w->used;
  w->used += (size_t)n + 1;
}

/* Milliseconds as the seconds an option takes: "10", "1.5", "0.25". */
static void add_seconds(struct evidence_words *w, const char *option,
                        uint64_t ms)
{
  char frac[8];
  int len;

  add(w, "%s", option);
  if (ms % 1000 == 0) {
    add(w, "%" PRIu64, ms / 1000);
    return;
  }
  len = snprintf(frac, sizeof(frac), "%03" PRIu64, ms % 1000);
  while (len > 0 && frac[len - 1] == '0')
    frac[--len] = '\0';
  add(w, "%" PRIu64 ".%s", ms / 1000, frac);
}

/* A path as the evidence writes it: below the root relative to it (the
 * command runs from there), below a scrubbed folder with its placeholder
 * ("~/m.yaml", "$TMP/x/m.yaml"), elsewhere shortened. */
static void add_path(struct evidence_words *w, const struct sanitize *s,
                     const char *path)
{
  char out[4096];
  const char *rest, *folder = sanitize_folder_of(s, path, &rest);

  if (folder != NULL && strcmp(folder, ".") == 0)
    add(w, "%s", *rest ? rest + 1 : ".");
  else
    add(w, "%s", sanitize_message(s, path, out, sizeof(out)));
}

void evidence_reproduce_argv(const struct evidence_run *run,
                             const struct evidence_lane *lane,
                             const struct sanitize *s, struct evidence_words *w)
{
  const struct proto_workload *wl = &run->workload;

  memset(w, 0, sizeof(*w));
  add_path(w, s, run->crossrun_path);
  add(w, "run");
  add(w, "--lanes");
  add(w, "%s", lane->name);
  for (int i = 0; i < run->nmatrix_paths; i++) {
    add(w, "--matrix");
    add_path(w, s, run->matrix_paths[i]);
  }
  add(w, "--samples");
  add(w, "1");
  add(w, "--warmup");
  add(w, "%" PRIu64, wl->warmup);
  add(w, "--round-trips");
  add(w, "%" PRIu64, wl->round_trips);
  add(w, "--payload-bytes");
  add(w, "%" PRIu32, wl->payload_bytes);
  add(w, "--max-in-flight");
  add(w, "%" PRIu32, wl->max_in_flight);
  add(w, "--seed");
  add(w, "%" PRIu64, run->seed);
  add(w, "--host");
  add(w, "%s", run->host);
  if (run->allow_non_loopback)
    add(w, "--allow-non-loopback");
  add_seconds(w, "--ready-timeout", run->limits.ready_timeout_ms);
  add_seconds(w, "--timeout", run->limits.client_timeout_ms);
  add_seconds(w, "--exit-timeout", run->limits.exit_timeout_ms);
  /* Always named: the matrix's default set may not hold it. */
  add(w, "--transport");
  add(w, "%s", lane->transport ? lane->transport : "tcp");
  add(w, "--no-packages");
  /* Not the default file: that may be the very evidence being read. */
  add(w, "--out");
  add(w, "crossrun-reproduce.json");
}

/* Appends text to out (outlen bytes, *n used). */
static void put(char *out, size_t outlen, size_t *n, const char *text)
{
  int k = snprintf(out + *n, outlen - *n, "%s", text);
  if (k > 0)
    *n += (size_t)k < outlen - *n ? (size_t)k : outlen - *n - 1;
}

/* word for /bin/sh: bare when it is plain, else in single quotes. */
static void put_quoted(char *out, size_t outlen, size_t *n, const char *word)
{
  static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
                              "vwxyz0123456789_@%+=:,./-";
  if (*word != '\0' && strspn(word, plain) == strlen(word)) {
    put(out, outlen, n, word);
    return;
  }
  put(out, outlen, n, "'");
  for (const char *c = word; *c; c++) {
    char one[2] = {*c, '\0'};
    put(out, outlen, n, *c == '\'' ? "'\\''" : one);
  }
  put(out, outlen, n, "'");
}

/* A word of the evidence for /bin/sh: the placeholders of the home and the
 * temporary folder become what the shell expands to them. */
static void put_word(char *out, size_t outlen, size_t *n, const char *word)
{
  static const struct {
    const char *placeholder, *shell;
  } folders[] = {{"~", "\"$HOME\""}, {"$TMP", "\"${TMPDIR:-/tmp}\""}};

  for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
    size_t len = strlen(folders[i].placeholder);
    if (strncmp(word, folders[i].placeholder, len) == 0 &&
        (word[len] == '\0' || word[len] == '/')) {
      put(out, outlen, n, folders[i].shell);
      if (word[len] != '\0')
        put_quoted(out, outlen, n, word + len);
      return;
    }
  }
  put_quoted(out, outlen, n, word);
}

void evidence_reproduce_line(const struct evidence_words *w, char *out,
                             size_t outlen)
{
  size_t n = 0;

  if (outlen == 0)
    return;
  out[0] = '\0';
  for (int i = 0; i < w->argc; i++) {
    if (i > 0)
      put(out, outlen, &n, " ");
    put_word(out, outlen, &n, w->argv[i]);
  }
}

void evidence_reproduce(const struct evidence_run *run,
                        const struct evidence_lane *lane, char *out,
                        size_t outlen)
{
  struct sanitize s;
  static struct evidence_words w;

  sanitize_init(&s, run->root);
  evidence_reproduce_argv(run, lane, &s, &w);
  evidence_reproduce_line(&w, out, outlen);
  sanitize_release(&s);
}

void evidence_reproduce_peer(const struct sanitize *s,
                             const struct model_peer *p, const char *dir,
                             int port, char *out, size_t outlen)
{
  const char *rest, *folder = dir ? sanitize_folder_of(s, dir, &rest) : NULL;
  int elsewhere = dir != NULL && (folder == NULL || strcmp(folder, ".") != 0);
  int needs_root = 0;
  char word[4096], suffix[16];
  size_t n = 0;

  if (outlen == 0)
    return;
  out[0] = '\0';
  snprintf(suffix, sizeof(suffix), ":%d", port);
  for (int i = 0; i < p->argc; i++)
    if (sanitize_folder_of(s, p->argv[i], &rest) != NULL &&
        strcmp(sanitize_folder_of(s, p->argv[i], &rest), ".") == 0)
      needs_root = 1;
  /* A peer runs from its runtime's folder; paths of the checkout in its
   * argv are then reached from the directory the line starts in. */
  if (elsewhere) {
    put(out, outlen, &n, needs_root ? "(R=$PWD && cd " : "(cd ");
    put_word(out, outlen, &n, sanitize_message(s, dir, word, sizeof(word)));
    put(out, outlen, &n, " && exec ");
  }
  for (int i = 0; i < p->argc; i++) {
    const char *a = p->argv[i];
    size_t len = strlen(a), slen = strlen(suffix);

    if (i > 0)
      put(out, outlen, &n, " ");
    if (port > 0 && i > 0 && strcmp(p->argv[i - 1], "--connect") == 0 &&
        len > slen && strcmp(a + len - slen, suffix) == 0) {
      /* The port is the new server's, not the recorded one. */
      snprintf(word, sizeof(word), "%.*s", (int)(len - slen + 1), a);
      put_quoted(out, outlen, &n, word);
      put(out, outlen, &n, "\"$PORT\"");
      continue;
    }
    folder = sanitize_folder_of(s, a, &rest);
    if (folder != NULL && strcmp(folder, ".") == 0) {
      if (elsewhere) {
        put(out, outlen, &n, "\"$R\"");
        put_quoted(out, outlen, &n, *rest ? rest : "/");
      } else {
        put_quoted(out, outlen, &n, *rest ? rest + 1 : ".");
      }
      continue;
    }
    put_word(out, outlen, &n, sanitize_text(s, a, word, sizeof(word)));
  }
  if (elsewhere)
    put(out, outlen, &n, ")");
  if (port > 0 && strstr(out, "\"$PORT\"") != NULL)
    put(out, outlen, &n,
        "  # PORT: the port on the READY line of the server started first");
}
