#include "evidence/base/json_syntax.h"

#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "evidence/base/utf8.h"

struct scan {
  const char *s;
  size_t len, i;
  int depth, max_depth;
  size_t members;
  const char *what;
};

static int fail(struct scan *p, const char *what)
{
  p->what = what;
  return -1;
}

static int at(const struct scan *p, char c)
{
  return p->i < p->len && p->s[p->i] == c;
}

static int digit_at(const struct scan *p)
{
  return p->i < p->len && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static void white_space(struct scan *p)
{
  while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                           p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

/* The four hex digits of a \u escape at p->i, into *cp. */
static int hex4(struct scan *p, uint32_t *cp)
{
  *cp = 0;
  for (int k = 0; k < 4; k++, p->i++) {
    char c = p->i < p->len ? p->s[p->i] : '\0';
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (v < 0)
      return fail(p, "a \\u escape without four hex digits");
    *cp = *cp << 4 | (uint32_t)v;
  }
  return 0;
}

/* After the backslash of an escape. */
static int escape(struct scan *p)
{
  uint32_t cp, low;

  if (p->i >= p->len)
    return fail(p, "a string is not closed");
  if (strchr("\"\\/bfnrt", p->s[p->i]) != NULL && p->s[p->i] != '\0') {
    p->i++;
    return 0;
  }
  if (p->s[p->i] != 'u')
    return fail(p, "an escape that JSON does not have");
  p->i++;
  if (hex4(p, &cp) != 0)
    return -1;
  if (cp >= 0xdc00 && cp <= 0xdfff)
    return fail(p, "a \\u escape of a lone low surrogate");
  if (cp < 0xd800 || cp > 0xdbff)
    return 0;
  if (p->i + 1 >= p->len || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
    return fail(p, "a \\u escape of a lone high surrogate");
  p->i += 2;
  if (hex4(p, &low) != 0)
    return -1;
  if (low < 0xdc00 || low > 0xdfff)
    return fail(p, "a \\u escape of a lone high surrogate");
  return 0;
}

static int string(struct scan *p)
{
  p->i++; /* the opening quote */
  for (;;) {
    unsigned char c;
    uint32_t cp;
    int n;

    if (p->i >= p->len)
      return fail(p, "a string is not closed");
    c = (unsigned char)p->s[p->i];
    if (c == '"') {
      p->i++;
      return 0;
    }
    if (c < 0x20)
      return fail(p, "a control character in a string");
    if (c == '\\') {
      p->i++;
      if (escape(p) != 0)
        return -1;
      continue;
    }
    n = c < 0x80 ? 1 : utf8_decode(p->s + p->i, p->len - p->i, &cp);
    if (n == 0)
      return fail(p, "not UTF-8");
    p->i += (size_t)n;
  }
}

static int number(struct scan *p)
{
  if (at(p, '-'))
    p->i++;
  if (at(p, '0')) {
    p->i++;
  } else if (digit_at(p)) {
    while (digit_at(p))
      p->i++;
  } else {
    return fail(p, "a number without digits");
  }
  if (at(p, '.')) {
    p->i++;
    if (!digit_at(p))
      return fail(p, "a fraction without digits");
    while (digit_at(p))
      p->i++;
  }
  if (at(p, 'e') || at(p, 'E')) {
    p->i++;
    if (at(p, '+') || at(p, '-'))
      p->i++;
    if (!digit_at(p))
      return fail(p, "an exponent without digits");
    while (digit_at(p))
      p->i++;
  }
  return 0;
}

static int literal(struct scan *p, const char *word)
{
  size_t n = strlen(word);

  if (p->len - p->i < n || memcmp(p->s + p->i, word, n) != 0)
    return fail(p, "not a JSON value");
  p->i += n;
  return 0;
}

static int value(struct scan *p);

/* An object or an array, from its opening bracket. */
static int container(struct scan *p, char close)
{
  if (++p->depth > p->max_depth)
    return fail(p, "nested too deep");
  p->i++;
  white_space(p);
  if (at(p, close)) {
    p->i++;
    p->depth--;
    return 0;
  }
  for (;;) {
    white_space(p);
    if (close == '}') {
      if (!at(p, '"'))
        return fail(p, at(p, '}') ? "a ',' before '}'"
                                  : "an object's key is not a string");
      if (string(p) != 0)
        return -1;
      p->members++;
      white_space(p);
      if (!at(p, ':'))
        return fail(p, "a key without ':'");
      p->i++;
    } else if (at(p, ']')) {
      return fail(p, "a ',' before ']'");
    }
    if (value(p) != 0)
      return -1;
    white_space(p);
    if (at(p, ',')) {
      p->i++;
      continue;
    }
    if (at(p, close)) {
      p->i++;
      p->depth--;
      return 0;
    }
    return fail(p, close == '}' ? "an object's members without ',' or '}'"
                                : "an array's values without ',' or ']'");
  }
}

static int value(struct scan *p)
{
  white_space(p);
  if (p->i >= p->len)
    return fail(p, "a value is missing");
  switch (p->s[p->i]) {
  case '{':
    return container(p, '}');
  case '[':
    return container(p, ']');
  case '"':
    return string(p);
  case 't':
    return literal(p, "true");
  case 'f':
    return literal(p, "false");
  case 'n':
    return literal(p, "null");
  default:
    if (p->s[p->i] == '-' || digit_at(p))
      return number(p);
    return fail(p, "not a JSON value");
  }
}

int json_syntax_check(const char *text, size_t len, int max_depth,
                      struct json_syntax *out)
{
  struct scan p = {text, len, 0, 0, max_depth, 0, NULL};
  int rc = value(&p);

  if (rc == 0) {
    white_space(&p);
    if (p.i < len)
      rc = fail(&p, "more after the value");
  }
  out->members = p.members;
  out->at = p.i;
  out->what = rc == 0 ? NULL : p.what;
  return rc;
}

size_t json_syntax_members(struct json_object *value)
{
  size_t n = 0;

  if (json_object_is_type(value, json_type_object)) {
    json_object_object_foreach(value, key, member)
    {
      (void)key;
      n += 1 + json_syntax_members(member);
    }
  } else if (json_object_is_type(value, json_type_array)) {
    for (size_t i = 0; i < json_object_array_length(value); i++)
      n += json_syntax_members(json_object_array_get_idx(value, i));
  }
  return n;
}
