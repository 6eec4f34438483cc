/* crossrun on IPv6 loopback: `quick --host ::1` runs every lane of the
 * matrix (c, node, rust, go: 16 lanes; a runtime whose toolchain is missing is
 * unavailable, not failed), each peer given [::1]:PORT, and every sample
 * passes with its port checked free on ::1. Skipped (a TAP skip line)
 * where ::1 cannot be bound. --host takes a numeric loopback address
 * only: a name, a malformed or bracketed address, a port, or an address
 * off loopback (without --allow-non-loopback) is refused with one line
 * and exit 2. crossrun is started with tests/lib_child (no shell). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "tests/lib_child.h"
#include "tests/lib_json.h"
#include "tests/lib_lanes.h"
#include "tests/lib_scratch.h"
#include "tests/lib_sockets.h"
#include "tests/tap.h"

static char crossrun[SCRATCH_PATH_CAP];

/* Runs crossrun with args (argv[0] set here) from the checkout, for at
 * most timeout_s; r is released by the caller. Returns its exit status,
 * or -1 when it did not exit in time (with a diagnostic). */
static int run_crossrun(struct child_run *r, const char **argv,
                        double timeout_s)
{
  argv[0] = crossrun;
  if (child_run(r, argv, NULL, NULL, tap_timeout_s(timeout_s)) != 0 ||
      !r->exited || r->timed_out || r->term_signal != 0) {
    child_explain(r, "crossrun");
    return -1;
  }
  return (int)r->exit_status;
}

static void test_quick_on_ipv6(void)
{
  char path[SCRATCH_PATH_CAP];
  const char *argv[] = {NULL,
                        "quick",
                        "--host",
                        "::1",
                        "--lanes",
                        LIB_LANES_EACH_RUNTIME,
                        "--no-packages",
                        "--no-progress",
                        "--out",
                        path,
                        NULL};
  struct child_run r;
  json_object *doc, *lanes;
  int rc, ran = 0, bad = 0;

  if (!sockets_port_free6(0)) {
    TAP_OK(1, "quick --host ::1 # SKIP no IPv6 loopback here");
    return;
  }
  /* From the checkout (matrix.yaml's paths are relative to it), into the
   * scratch folder. */
  scratch_path(path, "v6.json");
  rc = run_crossrun(&r, argv, 1800);
  if (!TAP_EQ_INT(rc, 0, "crossrun quick --host ::1 exits 0"))
    tap_diag("its output: %.2000s%s", r.stdout_buf ? r.stdout_buf : "",
             r.stderr_buf);
  child_release(&r);
  doc = json_object_from_file(path);
  if (!TAP_NONNULL(doc, "the evidence is written"))
    return;
  TAP_EQ_STR(json_str_at(doc, "settings.host"), "::1",
             "the evidence names the host");
  lanes = json_at(doc, "lanes");
  json_object_object_foreach(lanes, name, lane)
  {
    json_object *samples = json_object_object_get(lane, "samples");
    if (json_object_object_get(lane, "unavailable_reason") != NULL &&
        !json_object_is_type(json_object_object_get(lane, "unavailable_reason"),
                             json_type_null)) {
      tap_diag("%s: unavailable here", name);
      continue;
    }
    for (size_t i = 0; i < json_object_array_length(samples); i++) {
      json_object *s = json_object_array_get_idx(samples, i);
      const char *status = json_str_at(s, "status");
      const char *server = json_str_at(s, "reproduce.server");
      const char *client = json_str_at(s, "reproduce.client");
      const char *port_free = json_str_at(s, "checks.port_free.outcome");
      ran++;
      /* The reproduce lines quote the brackets, which /bin/sh would take
       * for a pattern. */
      if (!status || strcmp(status, "passed") != 0 || !server ||
          !strstr(server, "--listen '[::1]:0'") || !client ||
          !strstr(client, "--connect '[::1]:'\"$PORT\"") || !port_free ||
          strcmp(port_free, "passed") != 0) {
        bad++;
        tap_diag("%s: %s, server '%s', client '%s', port_free %s", name,
                 status ? status : "?", server ? server : "?",
                 client ? client : "?", port_free ? port_free : "?");
      }
    }
  }
  TAP_OK(ran > 0 && bad == 0,
         "every sample on [::1] passed, its peers given [::1]:0 and "
         "[::1]:PORT, its port checked free (%d samples)",
         ran);
  TAP_EQ_INT(json_object_get_int(json_at(doc, "cleanliness.sockets_left")), 0,
             "no socket left on ::1");
  json_object_put(doc);
}

static void test_refused_hosts(void)
{
  static const char *const bad[] = {
      "example.com", "::g",         "[::1]",     "::1:80", "127.0.0.1:80", "",
      "localhost",   "2001:db8::1", "192.0.2.1",
  };
  struct child_run r;

  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    const char *argv[] = {NULL,     "quick", "--lanes", "c-c", "--no-packages",
                          "--host", bad[i],  NULL};
    char *err;
    int rc, lines = 0;
    rc = run_crossrun(&r, argv, 120);
    err = r.stderr_buf;
    for (size_t k = 0; k < r.stderr_len; k++)
      lines += err[k] == '\n';
    if (r.stderr_len > 0 && err[r.stderr_len - 1] == '\n')
      err[r.stderr_len - 1] = '\0'; /* the check's name stays one line */
    TAP_OK(rc == 2 && lines == 1 && strstr(err, "--host"),
           "--host '%s': refused, exit 2 with one line (%d: %s)", bad[i], rc,
           err);
    child_release(&r);
  }
  {
    const char *argv[] = {NULL,     "quick", "--lanes", "c-c",
                          "--host", "[::1]", NULL};
    run_crossrun(&r, argv, 120);
    TAP_HAS_STR(r.stderr_buf, "without brackets",
                "a bracketed --host says to give it without brackets");
    child_release(&r);
  }
}

int main(void)
{
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";

#ifdef _WIN32
  snprintf(crossrun, sizeof(crossrun), "%s/crossrun.exe", b);
#else
  snprintf(crossrun, sizeof(crossrun), "%s/crossrun", b);
#endif
  if (scratch_create() != 0)
    return tap_done();
  test_refused_hosts();
  test_quick_on_ipv6();
  scratch_remove();
  return tap_done();
}
