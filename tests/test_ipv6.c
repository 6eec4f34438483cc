/* crossrun on IPv6 loopback: `quick --host ::1` runs every lane of the
 * matrix (c, node, rust, go: 16 lanes; a runtime whose toolchain is missing is
 * unavailable, not failed), each peer given [::1]:PORT, and every sample
 * passes with its port checked free on ::1. Skipped (a TAP skip line)
 * where ::1 cannot be bound. --host takes a numeric loopback address
 * only: a name, a malformed or bracketed address, a port, or an address
 * off loopback (without --allow-non-loopback) is refused with one line
 * and exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "tests/lib_json.h"
#include "tests/lib_lanes.h"
#include "tests/lib_scratch.h"
#include "tests/lib_sockets.h"
#include "tests/tap.h"

static char crossrun[SCRATCH_PATH_CAP];

static int sh(const char *cmd)
{
  int status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_quick_on_ipv6(void)
{
  char cmd[3 * SCRATCH_PATH_CAP], path[SCRATCH_PATH_CAP];
  json_object *doc, *lanes;
  int rc, ran = 0, bad = 0;

  if (!sockets_port_free6(0)) {
    TAP_OK(1, "quick --host ::1 # SKIP no IPv6 loopback here");
    return;
  }
  /* From the checkout (matrix.yaml's paths are relative to it), into the
   * scratch folder. */
  snprintf(cmd, sizeof(cmd),
           "%s quick --host ::1 --lanes " LIB_LANES_EACH_RUNTIME
           " --no-packages --no-progress --out %s/v6.json >%s/v6.out 2>&1",
           crossrun, scratch_root, scratch_root);
  rc = sh(cmd);
  TAP_EQ_INT(rc, 0, "crossrun quick --host ::1 exits 0");
  scratch_path(path, "v6.json");
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
  char cmd[3 * SCRATCH_PATH_CAP], path[SCRATCH_PATH_CAP];

  scratch_path(path, "refused.err");
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    char *err;
    size_t len = 0;
    int rc, lines = 0;
    snprintf(cmd, sizeof(cmd),
             "%s quick --lanes c-c --no-packages --host '%s' >/dev/null "
             "2>%s",
             crossrun, bad[i], path);
    rc = sh(cmd);
    err = (char *)scratch_read(path, &len);
    if (err != NULL)
      err[len] = '\0'; /* scratch_read leaves the byte after for this */
    for (size_t k = 0; err && k < len; k++)
      lines += err[k] == '\n';
    if (err && len > 0 && err[len - 1] == '\n')
      err[len - 1] = '\0'; /* the check's name stays one line */
    TAP_OK(rc == 2 && lines == 1 && strstr(err, "--host"),
           "--host '%s': refused, exit 2 with one line (%d: %s)", bad[i], rc,
           err ? err : "");
    free(err);
  }
  scratch_path(path, "refused.err");
  snprintf(cmd, sizeof(cmd),
           "%s quick --lanes c-c --host '[::1]' >/dev/null 2>%s", crossrun,
           path);
  sh(cmd);
  {
    size_t len;
    char *err = (char *)scratch_read(path, &len);
    if (err != NULL)
      err[len] = '\0';
    TAP_HAS_STR(err, "without brackets",
                "a bracketed --host says to give it without brackets");
    free(err);
  }
}

int main(void)
{
  const char *b = getenv("BUILD") ? getenv("BUILD") : "build";

  if (b[0] == '/')
    snprintf(crossrun, sizeof(crossrun), "%s/crossrun", b);
  else if (getcwd(crossrun, sizeof(crossrun)) != NULL)
    snprintf(crossrun + strlen(crossrun), sizeof(crossrun) - strlen(crossrun),
             "/%s/crossrun", b);
  if (scratch_create() != 0)
    return tap_done();
  test_refused_hosts();
  test_quick_on_ipv6();
  scratch_remove();
  return tap_done();
}
