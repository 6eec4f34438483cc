#include "evidence/write/sanitize.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <uv.h>

#include "evidence/base/utf8.h"

extern char **environ;

void sanitize_add(struct sanitize *s, const char *from, const char *to)
{
  size_t len = from ? strlen(from) : 0;
  char *copy;
  int at;

  /* One- and two-letter names would mangle ordinary words. */
  if (len < 3 || s->nrules >= SANITIZE_MAX_RULES)
    return;
  for (int i = 0; i < s->nrules; i++)
    if (strcmp(s->rules[i].from, from) == 0)
      return;
  copy = strdup(from);
  if (copy == NULL)
    return;
  /* Keep longest first so "/home/ann/repo" wins over "/home/ann". */
  for (at = s->nrules; at > 0 && strlen(s->rules[at - 1].from) < len; at--)
    s->rules[at] = s->rules[at - 1];
  s->rules[at].from = copy;
  s->rules[at].to = to;
  s->nrules++;
}

void sanitize_remove(struct sanitize *s, const char *from)
{
  for (int i = 0; i < s->nrules; i++) {
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
  /* Environment values: tokens, paths, names a CI job put there. PATH-like
   * lists are added piece by piece. */
  for (char **e = environ; e != NULL && *e != NULL; e++) {
    const char *value = strchr(*e, '=');
    if (value == NULL || strlen(++value) < SANITIZE_MIN_ENV_VALUE ||
        strspn(value, "0123456789.") == strlen(value))
      continue; /* numbers stay: they are figures, not secrets */
    sanitize_add(s, value, "$ENV");
    if (strchr(value, ':') != NULL && strlen(value) < sizeof(buf)) {
      snprintf(buf, sizeof(buf), "%s", value);
      for (char *part = strtok(buf, ":"); part; part = strtok(NULL, ":"))
        if (strlen(part) >= SANITIZE_MIN_ENV_VALUE)
          sanitize_add(s, part, "$ENV");
    }
  }
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

char *sanitize_text(const struct sanitize *s, const char *in, char *out,
                    size_t outlen)
{
  size_t n = 0;

  if (outlen == 0)
    return out;
  while (*in != '\0' && n + 1 < outlen) {
    int hit = 0;
    for (int i = 0; i < s->nrules; i++) {
      size_t flen = strlen(s->rules[i].from);
      if (strncmp(in, s->rules[i].from, flen) == 0) {
        size_t tlen = strlen(s->rules[i].to);
        if (n + tlen >= outlen)
          tlen = outlen - n - 1;
        memcpy(out + n, s->rules[i].to, tlen);
        n += tlen;
        in += flen;
        hit = 1;
        break;
      }
    }
    if (!hit)
      out[n++] = *in++;
  }
  out[n] = '\0';
  shorten_paths(out, outlen);
  sanitize_utf8(out);
  return out;
}
