#include "evidence/write/sanitize.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <uv.h>

#include "evidence/base/utf8.h"

/* Where a path may start (the byte before it) and where one ends. */
static const char path_start[] = " \t\n'\"(=:,[<`";
static const char path_end[] = " \t\n'\"),;]>`";

static int is_absolute(const char *p)
{
  if (p[0] == '/' || (p[0] == '\\' && p[1] == '\\'))
    return 1;
  return isalpha((unsigned char)p[0]) && p[1] == ':' &&
         (p[2] == '\\' || p[2] == '/');
}

void sanitize_add(struct sanitize *s, const char *from, const char *to)
{
  size_t len;
  char *copy;
  int at;

  if (from == NULL || s->nrules >= SANITIZE_MAX_RULES ||
      (copy = strdup(from)) == NULL)
    return;
  /* A folder's trailing separator would keep it from matching itself. */
  len = strlen(copy);
  while (len > 1 && (copy[len - 1] == '/' || copy[len - 1] == '\\'))
    copy[--len] = '\0';
  /* One- and two-letter names would mangle ordinary words. */
  for (int i = 0; len >= 3 && i < s->nrules; i++)
    if (strcmp(s->rules[i].from, copy) == 0)
      len = 0;
  if (len < 3) {
    free(copy);
    return;
  }
  /* Keep longest first so "/home/ann/repo" wins over "/home/ann". */
  for (at = s->nrules; at > 0 && strlen(s->rules[at - 1].from) < len; at--)
    s->rules[at] = s->rules[at - 1];
  s->rules[at].from = copy;
  s->rules[at].to = to;
  s->rules[at].kind = is_absolute(copy) ? SANITIZE_FOLDER : SANITIZE_NAME;
  s->nrules++;
}

void sanitize_remove(struct sanitize *s, const char *from)
{
  for (int i = 0; from != NULL && i < s->nrules; i++) {
    if (strcmp(s->rules[i].from, from) == 0) {
      free(s->rules[i].from);
      memmove(&s->rules[i], &s->rules[i + 1],
              (size_t)(s->nrules - i - 1) * sizeof(s->rules[0]));
      s->nrules--;
      return;
    }
  }
}

void sanitize_release(struct sanitize *s)
{
  for (int i = 0; i < s->nrules; i++)
    free(s->rules[i].from);
  s->nrules = 0;
}

void sanitize_init(struct sanitize *s, const char *root)
{
  char buf[4096];
  size_t len;
  uv_passwd_t pw;

  memset(s, 0, sizeof(*s));
  sanitize_add(s, root, ".");
  len = sizeof(buf);
  if (uv_os_homedir(buf, &len) == 0)
    sanitize_add(s, buf, "~");
  len = sizeof(buf);
  if (uv_os_tmpdir(buf, &len) == 0)
    sanitize_add(s, buf, "$TMP");
  len = sizeof(buf);
  if (uv_os_gethostname(buf, &len) == 0)
    sanitize_add(s, buf, "<host>");
  if (uv_os_get_passwd(&pw) == 0) {
    sanitize_add(s, pw.username, "<user>");
    uv_os_free_passwd(&pw);
  }
}

/* Whether a folder rule of flen bytes matches at in: it is followed by a
 * separator or the path's end, so "/home/ann" is not in "/home/anna". */
static int folder_ends(const char *in, size_t flen)
{
  char c = in[flen];
  return c == '\0' || c == '/' || c == '\\' || strchr(path_end, c) != NULL;
}

/* Letters, digits, '_' and '-' make a word: "ann" is not in "ann-laptop"
 * nor in "joanna". */
static int word_byte(char c)
{
  return isalnum((unsigned char)c) || c == '_' || c == '-' ||
         (unsigned char)c >= 0x80;
}

const char *sanitize_folder_of(const struct sanitize *s, const char *path,
                               const char **rest)
{
  for (int i = 0; i < s->nrules; i++) {
    size_t flen = strlen(s->rules[i].from);
    if (s->rules[i].kind == SANITIZE_FOLDER &&
        strncmp(path, s->rules[i].from, flen) == 0 &&
        (path[flen] == '\0' || path[flen] == '/' || path[flen] == '\\')) {
      *rest = path + flen;
      return s->rules[i].to;
    }
  }
  *rest = path;
  return NULL;
}

/* The rule that matches at in (start: the text's first byte), or -1. */
static int rule_at(const struct sanitize *s, const char *start, const char *in,
                   int names)
{
  int at_path = in == start || strchr(path_start, in[-1]) != NULL;
  int at_word = in == start || !word_byte(in[-1]);

  for (int i = 0; i < s->nrules; i++) {
    const char *from = s->rules[i].from;
    size_t flen = strlen(from);
    if (s->rules[i].kind == SANITIZE_FOLDER) {
      if (at_path && strncmp(in, from, flen) == 0 && folder_ends(in, flen))
        return i;
    } else if (names && at_word && strncasecmp(in, from, flen) == 0 &&
               !word_byte(in[flen])) {
      return i;
    }
  }
  return -1;
}

/* An absolute path left after the known folders were replaced (one the
 * runner did not know of: a system folder, another user's files) keeps
 * only its last component: "/opt/x/bin/node" becomes ".../node". text
 * holds size bytes. The result is written from a copy: "/a/b" becomes
 * ".../b", longer than itself, so in place the writer would overtake the
 * reader; what does not fit in size is cut. */
static void shorten_paths(char *text, size_t size)
{
  size_t len = strlen(text), n = 0;
  char *in = malloc(len + 1);
  const char *r;

  if (in == NULL) {
    text[0] = '\0'; /* unshortened, it could name a person's folders */
    return;
  }
  memcpy(in, text, len + 1);
  for (r = in; *r != '\0' && n + 1 < size;) {
    int at_token = r == in || strchr(" \t\n'\"(=:,[", r[-1]) != NULL;
    if (*r == '/' && at_token && r[1] != '\0' && r[1] != ' ' && r[1] != '/') {
      const char *end = r + strcspn(r, " \t\n'\"),;]");
      const char *last = r;
      for (const char *p = r; p < end; p++)
        if (*p == '/')
          last = p;
      if (last != r) {
        for (const char *m = "..."; *m != '\0' && n + 1 < size; m++)
          text[n++] = *m;
        r = last;
        if (n + 1 >= size)
          break;
      }
    }
    text[n++] = *r++;
  }
  text[n] = '\0';
  free(in);
}

void sanitize_utf8(char *text)
{
  size_t len = strlen(text);
  uint32_t cp;

  for (size_t i = 0; i < len;) {
    int n = utf8_decode(text + i, len - i, &cp);
    if (n == 0) {
      text[i++] = '?'; /* a byte that does not start valid UTF-8 */
      continue;
    }
    i += (size_t)n;
  }
}

static char *scrub(const struct sanitize *s, const char *in, char *out,
                   size_t outlen, int names)
{
  const char *start = in;
  size_t n = 0;

  if (outlen == 0)
    return out;
  while (*in != '\0' && n + 1 < outlen) {
    int i = rule_at(s, start, in, names);
    if (i >= 0) {
      size_t tlen = strlen(s->rules[i].to);
      if (n + tlen >= outlen)
        tlen = outlen - n - 1;
      memcpy(out + n, s->rules[i].to, tlen);
      n += tlen;
      in += strlen(s->rules[i].from);
    } else {
      out[n++] = *in++;
    }
  }
  out[n] = '\0';
  shorten_paths(out, outlen);
  sanitize_utf8(out);
  return out;
}

char *sanitize_text(const struct sanitize *s, const char *in, char *out,
                    size_t outlen)
{
  return scrub(s, in, out, outlen, 1);
}

char *sanitize_message(const struct sanitize *s, const char *in, char *out,
                       size_t outlen)
{
  return scrub(s, in, out, outlen, 0);
}
