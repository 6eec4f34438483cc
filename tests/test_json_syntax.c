/* evidence/base/json_syntax: JSON's grammar (RFC 8259) exactly, where
 * json-c's strict parser reads more; each refusal at its byte with its
 * reason, and the members of every object counted. */
#include <string.h>

#include "evidence/base/json_syntax.h"
#include "tests/tap.h"

static const struct {
  const char *text;
  size_t members;
} good[] = {
    {"{}", 0},
    {" \t\r\n{ \"a\" : [ 1 , -0.5e+10 , 1E-2 , 0 ] }\n", 1},
    {"{\"a\":{\"b\":{},\"c\":[{\"d\":null}]},\"e\":true,\"f\":false}", 6},
    {"[]", 0},
    {"\"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\"", 0},
    {"\"na\xc3\xafve \xf0\x9f\x98\x80\"", 0},
    {"{\"a\":1,\"a\":2}", 2}, /* a key twice is JSON; the caller counts */
    {"-0", 0},
    {"1e999", 0},
};

static const struct {
  const char *text;
  size_t at;
  const char *what;
} bad[] = {
    {"", 0, "a value is missing"},
    {"   ", 3, "a value is missing"},
    {"{\"a\":1,}", 7, "a ',' before '}'"},
    {"[1,]", 3, "a ',' before ']'"},
    {"{'a':1}", 1, "an object's key is not a string"},
    {"{a:1}", 1, "an object's key is not a string"},
    {"{\"a\" 1}", 5, "a key without ':'"},
    {"{\"a\":1 \"b\":2}", 7, "an object's members without ',' or '}'"},
    {"[1 2]", 3, "an array's values without ',' or ']'"},
    {"{\"a\":1 /* c */}", 7, "an object's members without ',' or '}'"},
    {"[NaN]", 1, "not a JSON value"},
    {"[Infinity]", 1, "not a JSON value"},
    {"[-Infinity]", 2, "a number without digits"},
    {"[True]", 1, "not a JSON value"},
    {"[nul]", 1, "not a JSON value"},
    {"[01]", 2, "an array's values without ',' or ']'"},
    {"[1.]", 3, "a fraction without digits"},
    {"[.5]", 1, "not a JSON value"},
    {"[+1]", 1, "not a JSON value"},
    {"[1e]", 3, "an exponent without digits"},
    {"[1e+]", 4, "an exponent without digits"},
    {"[0x10]", 2, "an array's values without ',' or ']'"},
    {"\"a\tb\"", 2, "a control character in a string"},
    {"\"a\nb\"", 2, "a control character in a string"},
    {"\"\\x41\"", 2, "an escape that JSON does not have"},
    {"\"\\'\"", 2, "an escape that JSON does not have"},
    {"\"\\u12g4\"", 5, "a \\u escape without four hex digits"},
    {"\"\\ud800\"", 7, "a \\u escape of a lone high surrogate"},
    {"\"\\ud800\\u0041\"", 13, "a \\u escape of a lone high surrogate"},
    {"\"\\udc00\"", 7, "a \\u escape of a lone low surrogate"},
    {"\"abc", 4, "a string is not closed"},
    {"\"\\", 2, "a string is not closed"},
    {"\"\xff\"", 1, "not UTF-8"},
    {"\"\xc0\xaf\"", 1, "not UTF-8"},
    {"{} {}", 3, "more after the value"},
    {"{}x", 2, "more after the value"},
};

static void test_grammar(void)
{
  struct json_syntax s;

  for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
    int rc = json_syntax_check(good[i].text, strlen(good[i].text), 16, &s);
    TAP_OK(rc == 0 && s.what == NULL && s.members == good[i].members,
           "JSON %zu is accepted, %zu members counted (%s, %zu)", i,
           good[i].members, s.what ? s.what : "accepted", s.members);
  }
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = json_syntax_check(bad[i].text, strlen(bad[i].text), 16, &s);
    TAP_OK(rc == -1 && s.at == bad[i].at && s.what != NULL &&
               strcmp(s.what, bad[i].what) == 0,
           "text %zu is refused at byte %zu, '%s' (got %zu, '%s')", i,
           bad[i].at, bad[i].what, s.at, s.what ? s.what : "accepted");
  }
}

static void test_bounds(void)
{
  char deep[64];
  struct json_syntax s;

  memset(deep, '[', 16);
  memset(deep + 16, ']', 16);
  TAP_OK(json_syntax_check(deep, 32, 16, &s) == 0,
         "16 arrays one in another are within a depth of 16");
  deep[16] = '[';
  deep[32] = ']';
  TAP_OK(json_syntax_check(deep, 34, 16, &s) == -1 && s.at == 16 &&
             strcmp(s.what, "nested too deep") == 0,
         "the 17th is refused where it opens");
  TAP_OK(json_syntax_check("{\"a\":1}\0{", 9, 16, &s) == -1 && s.at == 7,
         "a NUL byte after the value is more after it, not its end");
  TAP_OK(json_syntax_check("\"a\0b\"", 5, 16, &s) == -1 && s.at == 2 &&
             strcmp(s.what, "a control character in a string") == 0,
         "a NUL byte in a string is a control character");
  TAP_OK(json_syntax_check("[1]", 2, 16, &s) == -1 && s.at == 2,
         "len, not a NUL, ends the text");
}

int main(void)
{
  test_grammar();
  test_bounds();
  return tap_done();
}
