/* The runner's pure parts: bounded capture, lane selection, the command
 * line, the client's result line, summaries, and scrubbing of evidence. */
#include <string.h>

#include "evidence/write/compare.h"
#include "evidence/write/sanitize.h"
#include "evidence/write/stats.h"
#include "evidence/model/capture.h"
#include "runner/cli.h"
#include "runner/glob.h"
#include "runner/lanes.h"
#include "runner/result.h"
#include "tests/tap.h"

static void test_capture(void)
{
  struct capture c;
  char text[256], big[10000];

  TAP_OK(capture_alloc(&c, 16) == 0, "capture allocates");
  capture_append(&c, "hello\nworld", 11);
  capture_text(&c, text, sizeof(text));
  TAP_OK(strcmp(text, "hello\nworld") == 0 && !capture_truncated(&c),
         "capture keeps a short stream whole");
  capture_first_line(&c, text, sizeof(text));
  TAP_OK(strcmp(text, "hello") == 0, "capture gives the first line");
  memset(big, 'x', sizeof(big));
  memcpy(big + sizeof(big) - 3, "END", 3);
  capture_append(&c, big, sizeof(big));
  capture_text(&c, text, sizeof(text));
  TAP_OK(capture_truncated(&c) && c.total == 11 + sizeof(big),
         "capture counts every byte but keeps at most its limit");
  TAP_OK(strncmp(text, "hello\nwo", 8) == 0 &&
             strstr(text, "bytes dropped") != NULL &&
             strcmp(text + strlen(text) - 3, "END") == 0,
         "capture keeps the head and the tail");
  for (int i = 0; i < 1000; i++)
    capture_append(&c, "0123456789", 10);
  capture_text(&c, text, sizeof(text));
  TAP_OK(strcmp(text + strlen(text) - 8, "23456789") == 0,
         "capture's ring keeps the last bytes in order");
  capture_release(&c);
}

static void test_glob_and_select(void)
{
  struct lanes l;
  struct lane out[16];
  char err[256];
  int n;

  TAP_OK(glob_match("node-*", "node-rust") && glob_match("*-rust", "c-rust") &&
             glob_match("c-c", "c-c") && !glob_match("c-c", "c-cc") &&
             glob_match("*", "") && !glob_match("?", "") &&
             glob_match("*-*-x", "a-b-x") && !glob_match("n*", "c-node"),
         "glob matches '*' and '?' like a shell");
  memset(&l, 0, sizeof(l));
  const char *names[] = {"c", "node", "baseline"};
  if (!TAP_OK(lanes_reserve(&l, 3, 0) == 0, "room for three runtimes"))
    return;
  for (int i = 0; i < 3; i++) {
    snprintf(l.runtimes[i].name, sizeof(l.runtimes[i].name), "%s", names[i]);
    l.runtimes[i].hidden = i == 2;
  }
  l.nruntimes = 3;
  n = lanes_select(&l, NULL, out, 16, err, sizeof(err));
  TAP_OK(n == 4 && strcmp(out[0].name, "c-c") == 0 &&
             strcmp(out[1].name, "c-node") == 0 &&
             strcmp(out[3].name, "node-node") == 0,
         "every visible client x server lane by default (%d)", n);
  n = lanes_select(&l, "*-node,c-c,c-node", out, 16, err, sizeof(err));
  TAP_OK(n == 3, "patterns and names, each lane once (%d)", n);
  n = lanes_select(&l, "*", out, 16, err, sizeof(err));
  TAP_OK(n == 4, "a pattern does not reach a hidden runtime");
  n = lanes_select(&l, "baseline-baseline", out, 16, err, sizeof(err));
  TAP_OK(n == 1, "a hidden runtime runs when named");
  n = lanes_select(&l, "c-c,rust-*", out, 16, err, sizeof(err));
  TAP_OK(n == -1 && strstr(err, "'rust-*'") != NULL,
         "an entry that matches nothing is an error: %s", err);
  n = lanes_select(&l, "c-c,", out, 16, err, sizeof(err));
  TAP_OK(n == -1, "an empty entry is an error: %s", err);
  lanes_release(&l);
}

static int parse(const char *line, struct cli_options *o, char *err,
                 size_t errlen)
{
  char buf[512], *argv[32];
  int argc = 0;
  snprintf(buf, sizeof(buf), "crossrun %s", line);
  for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
    argv[argc++] = t;
  argv[argc] = NULL;
  return cli_parse(argc, argv, o, err, errlen);
}

static void test_cli(void)
{
  static const struct {
    const char *line;
    const char *message;
  } bad[] = {
      {"quick --bogus", "unknown option '--bogus'"},
      {"quick --samples", "--samples needs a value"},
      {"quick --samples 0", "out of range"},
      {"quick --samples 12x", "expected a whole number"},
      {"quick --samples -3", "expected a whole number"},
      {"quick --round-trips 99999999999999999999999", "expected a whole"},
      {"quick --payload-bytes 1048577", "out of range"},
      {"quick --max-in-flight 0", "out of range"},
      {"quick --timeout abc", "expected seconds"},
      {"quick --host 10.1.2.3", "not a loopback address"},
      {"quick --host example", "not a numeric"},
      {"quick --progress=1", "takes no value"},
      {"bogus", "unknown command 'bogus'"},
      {"--lanes c-c", "needs a command first"},
      {"quick extra", "unexpected argument 'extra'"},
  };
  struct cli_options o;
  char err[256];

  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    err[0] = '\0';
    int rc = parse(bad[i].line, &o, err, sizeof(err));
    TAP_OK(rc == -1 && strstr(err, bad[i].message) != NULL &&
               strchr(err, '\n') == NULL,
           "'%s' is refused: %s", bad[i].line, err);
  }
  TAP_OK(parse("quick", &o, err, sizeof(err)) == 0 &&
             o.workload.round_trips == 20000 && o.workload.warmup == 1000 &&
             o.samples == 1,
         "quick's default workload is small");
  TAP_OK(parse("run", &o, err, sizeof(err)) == 0 &&
             o.workload.round_trips == 1000000 && o.workload.warmup == 100000 &&
             o.workload.payload_bytes == 64 && o.workload.max_in_flight == 64 &&
             o.samples == 5,
         "run's default workload is the full one");
  TAP_OK(parse("quick --lanes=c-c --samples 3 --host 127.0.0.2 "
               "--timeout 0.5",
               &o, err, sizeof(err)) == 0 &&
             strcmp(o.lanes, "c-c") == 0 && o.samples == 3 &&
             o.limits.client_timeout_ms == 500,
         "flags take '=value' or the next word");
  TAP_OK(parse("quick --host 10.1.2.3 --allow-non-loopback", &o, err,
               sizeof(err)) == 0,
         "a non-loopback host needs the explicit opt-in");
  TAP_OK(parse("quick --help", &o, err, sizeof(err)) == 0 && o.help,
         "--help is recognised");
}

static void test_result(void)
{
  struct proto_workload w = {10, 100, 64, 8};
  struct proto_totals t;
  struct model_client_result r;
  char line[512], err[256];

  proto_totals_expected(&w, &t);
  snprintf(
      line, sizeof(line),
      "{\"round_trips\":100,\"warmup_round_trips\":10,"
      "\"payload_bytes\":64,\"max_in_flight\":8,\"frames_sent\":%llu,"
      "\"frames_received\":%llu,\"bytes_sent\":%llu,"
      "\"bytes_received\":%llu,\"elapsed_ns\":12345,"
      "\"runtime\":\"c\"}\n",
      (unsigned long long)t.frames_sent, (unsigned long long)t.frames_received,
      (unsigned long long)t.bytes_sent, (unsigned long long)t.bytes_received);
  TAP_OK(result_parse(line, strlen(line), &r, err, sizeof(err)) == 0 &&
             result_check(&r, &w, 1000000000, err, sizeof(err)) == 0 &&
             strcmp(r.runtime, "c") == 0,
         "a right result parses and checks");
  w.round_trips = 101;
  TAP_OK(result_check(&r, &w, 1000000000, err, sizeof(err)) == -1 &&
             strstr(err, "'round_trips' is 100, expected 101"),
         "a wrong count is named: %s", err);
  static const struct {
    const char *line;
    const char *message;
  } bad[] = {
      {"", "no result line"},
      {"not json", "not one JSON object"},
      {"[1,2]", "not an object"},
      {"{\"round_trips\":1}", "has no 'warmup_round_trips'"},
      {"{\"round_trips\":\"1\"}", "'round_trips' in the result is not an "
                                  "integer"},
      {"{\"round_trips\":-1}", "out of range"},
      {"{} {}", "not one JSON object"},
      {"{}\n{}", "more than one line"},
      {"{\"round_trips\":1e3}", "not an integer"},
      /* JSON itself, not what json-c reads (json_syntax.h) */
      {"{\"round_trips\":1,}", "a ',' before '}' at byte 17"},
      {"{'round_trips':1}", "not one JSON object: an object's key is not a "
                            "string at byte 1"},
      {"{\"round_trips\":NaN}", "not a JSON value at byte 15"},
      {"{\"round_trips\":1.}", "a fraction without digits at byte 17"},
      {"{\"round_trips\":1 /* c */}", "members without ',' or '}' at byte 17"},
      {"{\"runtime\":\"a\tb\"}", "a control character in a string at byte 13"},
      {"{\"runtime\":\"\\ud800\"}", "a lone high surrogate at byte 18"},
      {"{\"round_trips\":1,\"round_trips\":2}", "an object has a key twice"},
      {"{\"round_trips\":1,\"\\u0072ound_trips\":2}",
       "an object has a key twice"},
      {"{\"latency\":{\"count\":1,\"count\":1}}", "an object has a key twice"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    err[0] = '\0';
    TAP_OK(result_parse(bad[i].line, strlen(bad[i].line), &r, err,
                        sizeof(err)) == -1 &&
               strstr(err, bad[i].message) != NULL,
           "bad result %zu is refused: %s", i, err);
  }
}

/* What counts as the server's second line at all (lanes/README.md). */
static void test_server_line_is_json(void)
{
  static const struct {
    const char *line;
    int is;
  } lines[] = {
      {"{\"round_trips\":1}", 1},
      {"{\"round_trips\":1}\r", 1},
      {"{ }", 1},
      {"[1]", 0},
      {"{\"round_trips\":1,}", 0},
      {"{\"a\":NaN}", 0},
      {"{\"a\":1,\"a\":1}", 0},
      {"{\"a\":{\"b\":1,\"b\":2}}", 0},
      {"{} {}", 0},
      {"", 0},
  };
  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
    TAP_EQ_INT(result_is_json_object(lines[i].line, strlen(lines[i].line)),
               lines[i].is, "server line %zu is %sone JSON object", i,
               lines[i].is ? "" : "not ");
}

static void test_stats(void)
{
  double v[] = {5, 1, 4, 2, 3};
  double w[] = {4, 1, 3, 2};
  struct stats_figure f;

  stats_figure_of(v, 5, &f);
  TAP_OK(f.median == 3 && f.min == 1 && f.max == 5 && f.n == 5,
         "median, min and max of an odd count");
  stats_figure_of(w, 4, &f);
  TAP_OK(f.median == 2.5, "the median of an even count is the middle mean");
  stats_figure_of(w, 0, &f);
  TAP_OK(f.n == 0, "no values, no figure");
}

static void test_mann_whitney(void)
{
  double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
  double c[] = {1, 2, 3, 4, 6}, d[] = {5, 7, 8, 9, 10};
  double e[] = {1, 2, 3, 6, 7}, f[] = {4, 5, 8, 9, 10};
  double g[] = {1, 2, 4, 5, 6}, h[] = {3, 7, 8, 9, 10};
  double u = -1, p = -1;

  TAP_OK(compare_mann_whitney(a, 5, b, 5, &u, &p) == 0 && u == 0 &&
             p > 0.0079 && p < 0.0080,
         "5 vs 5, fully apart: U=0, p=2/252 (%g)", p);
  TAP_OK(compare_mann_whitney(c, 5, d, 5, &u, &p) == 0 && u == 1 && p < 0.05,
         "U=1 is significant (p=%.4f)", p);
  TAP_OK(compare_mann_whitney(e, 5, f, 5, &u, &p) == 0 && u == 4 && p > 0.05,
         "U=4 is not (p=%.4f)", p);
  TAP_OK(compare_mann_whitney(g, 5, h, 5, &u, &p) == 0 && u == 3 && p > 0.05,
         "U=3 is not either: with 5 against 5 only U <= 2 is (p=%.4f)", p);
  TAP_OK(compare_mann_whitney(a, 5, a, 5, &u, &p) == 0 && u == 12.5 && p == 1.0,
         "identical samples: U=12.5, p=1");
  TAP_OK(compare_mann_whitney(a, 0, b, 5, &u, &p) == -1,
         "an empty side is refused");
  TAP_OK(compare_minmax_coverage(5) == 0.9375,
         "[min, max] of 5 samples is a 93.75%% interval for the median");
}

static void test_sanitize(void)
{
  struct sanitize s;
  char out[256];

  memset(&s, 0, sizeof(s));
  sanitize_add(&s, "/home/ann", "~");
  sanitize_add(&s, "/home/ann/src/crossrun", ".");
  sanitize_add(&s, "ann-laptop", "<host>");
  sanitize_add(&s, "an", "<user>"); /* too short to scrub safely */
  sanitize_text(&s,
                "/home/ann/src/crossrun/build/x failed on ann-laptop in "
                "/home/ann/tmp",
                out, sizeof(out));
  TAP_OK(strcmp(out, "./build/x failed on <host> in ~/tmp") == 0,
         "scrubbing replaces the longest match first: '%s'", out);
  sanitize_text(&s,
                "exec '/opt/tools/bin/node' failed: see /var/log/x.log, "
                "ns/rt 1/2",
                out, sizeof(out));
  TAP_OK(strcmp(out, "exec '.../node' failed: see .../x.log, ns/rt 1/2") == 0,
         "other absolute paths keep only their last part: '%s'", out);
  sanitize_text(&s, "bad \xff\xfe bytes \xc3\xa9t\xc3 end", out, sizeof(out));
  TAP_OK(strcmp(out, "bad ?? bytes \xc3\xa9t? end") == 0,
         "invalid UTF-8 becomes '?', valid UTF-8 stays");
  sanitize_release(&s);
}

int main(void)
{
  test_capture();
  test_glob_and_select();
  test_cli();
  test_result();
  test_server_line_is_json();
  test_stats();
  test_sanitize();
  test_mann_whitney();
  return tap_done();
}
