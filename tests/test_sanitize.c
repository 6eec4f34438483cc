/* The evidence scrubber (evidence/write/sanitize.c): scrubbing by place
 * (folders where a path starts, names as whole words of peer text, never
 * a value of the environment), and its path shortening on what a hostile
 * or merely unusual peer can print: short and degenerate absolute paths,
 * MSYS-style drive paths, paths at the very end of the output buffer, and
 * paths far longer than it. Run under ASan (make test SANITIZE=1), an
 * overflow here is a failure, not a lucky pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/write/sanitize.h"
#include "tests/lib_env.h"
#include "tests/tap.h"

static struct sanitize rules;

/* sanitize_text into a buffer of exactly outlen bytes on the heap, so that
 * ASan sees a write one past its end. Returns 1 when the result is what
 * was expected (want NULL: only that it is terminated within outlen). */
static int scrub_is(const char *in, size_t outlen, const char *want, char *got,
                    size_t gotlen)
{
  char *out = malloc(outlen);
  int ok;

  if (out == NULL)
    return 0;
  memset(out, 'x', outlen);
  sanitize_text(&rules, in, out, outlen);
  ok = memchr(out, '\0', outlen) != NULL &&
       (want == NULL || strcmp(out, want) == 0);
  snprintf(got, gotlen, "%.*s", (int)strnlen(out, outlen), out);
  free(out);
  return ok;
}

static void test_short_paths(void)
{
  static const struct {
    const char *in, *want;
  } cases[] = {
      {"/a/b", ".../b"},
      {"cannot open /a/b", "cannot open .../b"},
      {"READY /a/b", "READY .../b"},
      {"/a/b /c/d /e/f", ".../b .../d .../f"},
      {"/", "/"},
      {"//", "//"},
      {"///", "///"},
      {"/ /", "/ /"},
      {"/a", "/a"},
      {"/a/", ".../"},
      {"x=/a/b:/c/d", "x=.../d"}, /* a list is one path up to its end */
      {"'/a/b'", "'.../b'"},
      {"(/a/b)", "(.../b)"},
      {"/c/Users/x", ".../x"},
      {"/c/Users/ann/src/app.exe failed", ".../app.exe failed"},
      {"/c/x", ".../x"},
      {"/opt/tools/bin/node", ".../node"},
      {"a/b/c stays", "a/b/c stays"},
      {"ns/rt 1/2", "ns/rt 1/2"},
  };
  char got[256];

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    TAP_OK(scrub_is(cases[i].in, 256, cases[i].want, got, sizeof(got)),
           "'%s' is scrubbed to '%s' (got '%s')", cases[i].in, cases[i].want,
           got);
}

static void test_buffer_end(void)
{
  char got[256];

  /* "/a/b" grows by one byte when shortened: the buffer holds the input
   * exactly, not what it becomes. */
  TAP_OK(scrub_is("/a/b", 5, ".../", got, sizeof(got)),
         "a path that grows is cut at the buffer's end (got '%s')", got);
  TAP_OK(scrub_is("xx /a/b", 8, "xx .../", got, sizeof(got)),
         "a path at the buffer's end is cut there (got '%s')", got);
  TAP_OK(scrub_is("/a/b/c/d/e/f/g/h", 4, "...", got, sizeof(got)),
         "a buffer shorter than the marker holds what fits (got '%s')", got);
  TAP_OK(scrub_is("/a/b", 1, "", got, sizeof(got)),
         "a one-byte buffer holds the empty string (got '%s')", got);
  TAP_OK(scrub_is("/a/b", 2, "/", got, sizeof(got)),
         "a two-byte buffer holds one byte (got '%s')", got);
  for (size_t len = 1; len <= 12; len++)
    TAP_OK(scrub_is("/a/b /c/d", len, NULL, got, sizeof(got)),
           "two short paths in %zu bytes stay in the buffer (got '%s')", len,
           got);
}

static void test_long_paths(void)
{
  size_t n = 20000;
  char *in = malloc(n + 1), *out = malloc(4096);
  int ok = in != NULL && out != NULL;

  /* "/a/a/a/.../a": many short components, cut by the buffer. */
  if (ok) {
    for (size_t i = 0; i < n; i += 2) {
      in[i] = '/';
      in[i + 1] = 'a';
    }
    in[n] = '\0';
    sanitize_text(&rules, in, out, 4096);
    ok = strcmp(out, ".../") == 0; /* cut at a '/' by the buffer */
  }
  TAP_OK(ok,
         "a path of 10000 short folders is cut, then shortened (got "
         "'%.40s')",
         out ? out : "");

  /* Many short paths in a row, each growing by one byte. */
  ok = in != NULL && out != NULL;
  if (ok) {
    for (size_t i = 0; i + 5 <= n; i += 5)
      memcpy(in + i, "/a/b ", 5);
    in[n - n % 5] = '\0';
    sanitize_text(&rules, in, out, 4096);
    ok = strlen(out) == 4095 && strncmp(out, ".../b .../b ", 12) == 0;
  }
  TAP_OK(ok, "4000 short paths fill the buffer and stop at its end");

  /* One component longer than the buffer. */
  ok = in != NULL && out != NULL;
  if (ok) {
    in[0] = '/';
    memset(in + 1, 'd', n - 3);
    memcpy(in + n - 2, "/f", 3);
    sanitize_text(&rules, in, out, 4096);
    ok = strlen(out) == 4095 && strncmp(out, "/ddd", 4) == 0;
  }
  TAP_OK(ok, "a path longer than the buffer is cut at its end");
  free(in);
  free(out);
}

static void test_with_rules(void)
{
  char got[256];

  /* Replacements come first; what they leave is shortened. */
  sanitize_add(&rules, "/home/ann", "~");
  sanitize_add(&rules, "/tmp/crossrun-1", "$TMPDIR");
  TAP_OK(scrub_is("/home/ann/x and /tmp/crossrun-1/y and /a/b", 256,
                  "~/x and $TMPDIR/y and .../b", got, sizeof(got)),
         "known folders are replaced, other paths shortened (got '%s')", got);
  TAP_OK(scrub_is("/home/ann", 4, "~", got, sizeof(got)),
         "a replacement in a small buffer (got '%s')", got);
  sanitize_release(&rules);
}

/* What the scrubber leaves must be UTF-8 for any parser: overlong forms,
 * surrogates and code points past U+10FFFF are not (fuzz_sanitize found
 * them passed through). */
static void test_strict_utf8(void)
{
  char got[256];

  TAP_OK(scrub_is("a\xed\xa0\x80"
                  "b",
                  256, "a???b", got, sizeof(got)),
         "a surrogate (U+D800) becomes '?' (got '%s')", got);
  TAP_OK(scrub_is("\xf0\x84\xa0\xa0 \xe0\x80\xaf", 256, "???? ???", got,
                  sizeof(got)),
         "overlong forms become '?' (got '%s')", got);
  TAP_OK(scrub_is("\xf4\x90\x80\x80", 256, "????", got, sizeof(got)),
         "a code point past U+10FFFF becomes '?' (got '%s')", got);
  TAP_OK(scrub_is("\xf4\x8f\xbf\xbf \xed\x9f\xbf", 256,
                  "\xf4\x8f\xbf\xbf \xed\x9f\xbf", got, sizeof(got)),
         "U+10FFFF and U+D7FF stay");
}

/* sanitize_text (peer: 1) or sanitize_message (0) of in is want. */
static void scrub_case(const struct sanitize *s, int peer, const char *in,
                       const char *want)
{
  char out[512];

  if (peer)
    sanitize_text(s, in, out, sizeof(out));
  else
    sanitize_message(s, in, out, sizeof(out));
  TAP_OK(strcmp(out, want) == 0, "%s '%s' is '%s' (got '%s')",
         peer ? "peer text" : "message", in, want, out);
}

/* Folders are replaced where a path starts with them and ends there or at
 * a separator; names where they are a whole word of a peer's text. */
static void test_by_place(void)
{
  struct sanitize s;
  const char *rest = NULL;

  memset(&s, 0, sizeof(s));
  sanitize_add(&s, "/home/ann/src/crossrun", ".");
  sanitize_add(&s, "/home/ann/", "~"); /* a trailing '/' is not needed */
  sanitize_add(&s, "/tmp/t", "$TMP");
  sanitize_add(&s, "ann-laptop", "<host>");
  sanitize_add(&s, "ann", "<user>");
  sanitize_add(&s, "runner", "<user>");
  TAP_OK(s.nrules == 6 && s.rules[0].kind == SANITIZE_FOLDER &&
             s.rules[1].kind == SANITIZE_NAME,
         "absolute paths are folders, other values names");

  scrub_case(&s, 0, "/home/ann/src/crossrun/build/crossrun run",
             "./build/crossrun run");
  scrub_case(&s, 0, "/home/ann/src/crossrun", ".");
  scrub_case(&s, 0, "/home/ann/src/crossrunner/x", "~/src/crossrunner/x");
  scrub_case(&s, 0, "cannot open /home/anna/notes.txt",
             "cannot open .../notes.txt");
  scrub_case(&s, 0, "--matrix=/tmp/t/m.yaml", "--matrix=$TMP/m.yaml");
  scrub_case(&s, 0, "'/home/ann/x y' and (/tmp/t)", "'~/x y' and ($TMP)");
  scrub_case(&s, 0, "a/home/ann/b stays", "a/home/ann/b stays");
  scrub_case(&s, 0, "/tmp/tx/y", ".../y");
  /* The runner's own words stay, whatever the names are. */
  scrub_case(&s, 0, "exited with 0 after the runner signalled it",
             "exited with 0 after the runner signalled it");
  scrub_case(&s, 0, "ann-laptop", "ann-laptop");
  /* A peer's text loses the names, as whole words only. */
  scrub_case(&s, 1, "on ann-laptop.local as ann, not joanna or ann-x",
             "on <host>.local as <user>, not joanna or ann-x");
  scrub_case(&s, 1, "ANN-LAPTOP: Ann's runner", "<host>: <user>'s <user>");
  scrub_case(&s, 1, "/home/ann/src/crossrun/build/tests/fixture",
             "./build/tests/fixture");

  TAP_OK(sanitize_folder_of(&s, "/home/ann/src/crossrun/build/x", &rest) &&
             strcmp(sanitize_folder_of(&s, "/home/ann/src/crossrun/b", &rest),
                    ".") == 0 &&
             strcmp(rest, "/b") == 0,
         "the folder a path starts with, and the rest");
  TAP_OK(strcmp(sanitize_folder_of(&s, "/home/ann", &rest), "~") == 0 &&
             *rest == '\0' &&
             sanitize_folder_of(&s, "/home/anna", &rest) == NULL &&
             sanitize_folder_of(&s, "ann", &rest) == NULL,
         "a folder is matched whole, a name never");
  sanitize_remove(&s, "runner");
  scrub_case(&s, 1, "the runner", "the runner");
  sanitize_release(&s);
}

/* Values of the environment are ordinary text: bash's `_`, OLDPWD, or any
 * variable a CI job sets never rewrite what the evidence says. */
static void test_environment_ignored(void)
{
  static const char *const junk[][2] = {
      {"_", "build/crossrun"},
      {"XC", "exited"},
      {"OLDPWD", "/opt/elsewhere/matrices"},
      {"CROSSRUN_JUNK_1", "fixture client"},
      {"CROSSRUN_JUNK_2", "counts and wire bytes match"},
      {"CROSSRUN_JUNK_3", "q8XbV2rLm0Zt7Kc4"},
  };
  struct sanitize before, after;
  char out[512];
  int same;

  sanitize_init(&before, "/nonexistent/root");
  for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
    env_set(junk[i][0], junk[i][1]);
  sanitize_init(&after, "/nonexistent/root");
  same = before.nrules == after.nrules;
  for (int i = 0; same && i < before.nrules; i++)
    same = strcmp(before.rules[i].from, after.rules[i].from) == 0;
  TAP_OK(same, "the rules do not depend on the environment (%d and %d)",
         before.nrules, after.nrules);
  sanitize_message(&after, "build/crossrun run --lanes c-c", out, sizeof(out));
  TAP_OK(strcmp(out, "build/crossrun run --lanes c-c") == 0,
         "a reproduce line stays (got '%s')", out);
  sanitize_message(&after, "exited by itself with 0", out, sizeof(out));
  TAP_OK(strcmp(out, "exited by itself with 0") == 0,
         "a check reason stays (got '%s')", out);
  sanitize_text(&after,
                "fixture client: counts and wire bytes match q8XbV2rLm0Zt7Kc4",
                out, sizeof(out));
  TAP_OK(
      strcmp(out,
             "fixture client: counts and wire bytes match q8XbV2rLm0Zt7Kc4") ==
          0,
      "a peer's text stays (got '%s')", out);
  sanitize_message(&after, "matrices/m.yaml", out, sizeof(out));
  TAP_OK(strcmp(out, "matrices/m.yaml") == 0, "a matrix path stays (got '%s')",
         out);
  for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
    if (strcmp(junk[i][0], "_") != 0 && strcmp(junk[i][0], "OLDPWD") != 0)
      env_set(junk[i][0], NULL);
  sanitize_release(&before);
  sanitize_release(&after);
}

int main(void)
{
  memset(&rules, 0, sizeof(rules));
  test_by_place();
  test_environment_ignored();
  test_short_paths();
  test_buffer_end();
  test_long_paths();
  test_with_rules();
  test_strict_utf8();
  return tap_done();
}
