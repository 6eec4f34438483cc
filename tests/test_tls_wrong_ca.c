/* A client that does not verify the server's certificate must fail
 * (issue 11): for every runtime of matrix.yaml, its client over tls is
 * given one CA (--ca) while the server presents a leaf of another CA; it
 * must fail the handshake, exit 1 with nothing on stdout and name the
 * verification in a `tls_handshake:` line (lanes/README.md "Transports").
 * The server is the baseline's (bench/baseline_tls.c: OpenSSL), made
 * with the runner's material (runner/tls_material.c); with the right CA
 * the baseline's own client passes against it, so a failure below is the
 * CA's. A runtime whose client is not installed, that declares
 * transports [tcp] or that exits 127 (not over tls yet) is skipped, and
 * the skip says which and why. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/lanes.h"
#include "runner/matrix.h"
#include "runner/tls_material.h"
#include "tests/lib_peers.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

static char baseline[SCRATCH_PATH_CAP];
static struct tls_material right, wrong; /* the client's CA; the server's */

static const struct proto_workload one = {0, 1, 8, 1};

/* Where argv[0] of a runtime is: a path (relative to its matrix file's
 * folder, "build/" read as $BUILD/ first) that must be executable, or a
 * program in PATH. Returns 0 with it in out, or -1. */
static int locate(const struct runtime *r, char *out, size_t len)
{
  const char *prog = r->client.argv[0], *build = getenv("BUILD");
  const char *path = getenv("PATH");

  if (strchr(prog, '/') != NULL) {
    /* The C lane is built into $BUILD; others (go.sh) into build/ always. */
    if (strncmp(prog, "build/", 6) == 0 && build != NULL) {
      snprintf(out, len, "%s/%s/%s", r->dir, build, prog + 6);
      if (access(out, X_OK) == 0)
        return 0;
    }
    if (prog[0] == '/')
      snprintf(out, len, "%s", prog);
    else
      snprintf(out, len, "%s/%s", r->dir, prog);
    return access(out, X_OK) == 0 ? 0 : -1;
  }
  while (path != NULL && *path) {
    size_t n = strcspn(path, ":");
    snprintf(out, len, "%.*s/%s", (int)n, path, prog);
    if (n > 0 && access(out, X_OK) == 0)
      return 0;
    path += n + (path[n] == ':');
  }
  return -1;
}

static int names_verification(const char *err)
{
  static const char *const words[] = {
      "verif",       "issuer",      "unknown ca", "unknownissuer",
      "self-signed", "self signed", "certificate"};
  char low[PEERS_CAPTURE_BYTES + 1];
  size_t i;

  for (i = 0; err[i] && i < sizeof(low) - 1; i++)
    low[i] = (char)tolower((unsigned char)err[i]);
  low[i] = '\0';
  for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
    if (strstr(low, words[k]) != NULL)
      return 1;
  return 0;
}

/* Runs client (argv, then the tls flags with ca) against the baseline's
 * server presenting the wrong material's leaf. Returns the client's exit
 * code; its stdout and stderr stay in r. */
static int against_wrong_server(struct peers_pair *r, char *const client[],
                                const char *ca)
{
  char *server[] = {baseline,   "server", "--transport", "tls", "--cert",
                    wrong.cert, "--key",  wrong.key,     NULL};
  char *argv[PEERS_MAX_ARGS];
  int n = 0, port;
  struct peers_proc *both[2] = {&r->server, &r->client};

  memset(r, 0, sizeof(*r));
  for (; client[n] != NULL && n < PEERS_MAX_ARGS - 5; n++)
    argv[n] = client[n];
  argv[n++] = "--transport";
  argv[n++] = "tls";
  argv[n++] = "--ca";
  argv[n++] = (char *)ca;
  argv[n] = NULL;
  port = peers_server_start(&r->server, server);
  if (port == 0)
    return -1;
  r->port = port;
  if (peers_client_start(&r->client, argv, port, &one) != 0) {
    peers_kill(&r->server);
    return -1;
  }
  peers_wait(both, 2, tap_timeout_s(20));
  peers_kill(&r->server);
  return peers_exit_code(&r->client);
}

static void test_control(void)
{
  char *client[] = {baseline, "client", NULL};
  struct peers_pair r;
  int rc = against_wrong_server(&r, client, wrong.ca);

  if (!TAP_EQ_INT(rc, 0,
                  "control: the baseline's client with the server's "
                  "own CA completes the session"))
    peers_pair_show(&r);
}

static void test_runtime(const struct runtime *rt)
{
  char prog[SCRATCH_PATH_CAP], *client[LANES_ARGV_MAX];
  struct peers_pair r;
  int rc, n;

  if (rt->transports != 0 &&
      !(rt->transports & LANES_TRANSPORT_BIT(LANES_TLS))) {
    TAP_OK(1, "%s: # SKIP its matrix entry declares transports without tls",
           rt->name);
    return;
  }
  if (locate(rt, prog, sizeof(prog)) != 0) {
    TAP_OK(1, "%s: # SKIP its client '%s' is not installed or not built",
           rt->name, rt->client.argv[0]);
    return;
  }
  client[0] = prog;
  for (n = 1; rt->client.argv[n] != NULL && n < LANES_ARGV_MAX - 1; n++)
    client[n] = rt->client.argv[n];
  client[n] = NULL;
  /* Relative arguments (node's script) are relative to its folder. */
  if (chdir(rt->dir) != 0) {
    TAP_OK(0, "%s: cannot enter '%s'", rt->name, rt->dir);
    return;
  }
  rc = against_wrong_server(&r, client, right.ca);
  if (rc == 127) {
    TAP_OK(1, "%s: # SKIP its client exits 127 over tls (not supported yet)",
           rt->name);
    return;
  }
  if (!TAP_EQ_INT(rc, 1,
                  "%s: a client given another CA than the server's fails "
                  "with exit 1",
                  rt->name))
    peers_pair_show(&r);
  TAP_EQ_UINT(r.client.out.len, 0, "%s: and prints nothing on stdout",
              rt->name);
  TAP_OK(strstr(r.client.err.buf, "tls_handshake:") != NULL &&
             names_verification(strstr(r.client.err.buf, "tls_handshake:")),
         "%s: its stderr names the failed verification: %s", rt->name,
         r.client.err.buf);
}

int main(void)
{
  const char *root = getenv("CROSSRUN_ROOT") ? getenv("CROSSRUN_ROOT") : ".";
  char dir[2][SCRATCH_PATH_CAP], err[1024], matrix[SCRATCH_PATH_CAP];
  struct lanes *l = calloc(1, sizeof(*l));

  if (l == NULL || scratch_create() != 0 ||
      peers_setup("tls-wrong-ca", err, sizeof(err)) != 0) {
    TAP_OK(0, "set up: %s", err);
    return tap_done();
  }
  if (!peers_bin(baseline, sizeof(baseline), "bench/baseline")) {
    TAP_OK(0, "the baseline is built: %s", baseline);
    goto out;
  }
  scratch_path(dir[0], "right");
  scratch_path(dir[1], "wrong");
  if (!TAP_OK(scratch_mkdir(dir[0]) == 0 && scratch_mkdir(dir[1]) == 0 &&
                  tls_material_make(dir[0], &right, err, sizeof(err)) == 0 &&
                  tls_material_make(dir[1], &wrong, err, sizeof(err)) == 0,
              "two materials, two CAs: %s", err))
    goto out;
  test_control();
  snprintf(matrix, sizeof(matrix), "%s/matrix.yaml", root);
  if (!TAP_OK(matrix_load(l, matrix, err, sizeof(err)) == 0, "matrix.yaml: %s",
              err))
    goto out;
  for (int i = 0; i < l->nruntimes; i++)
    test_runtime(&l->runtimes[i]);
  TAP_OK(peers_tmp_empty(), "the clients left their TMPDIR empty");
out:
  lanes_release(l);
  free(l);
  peers_tmp_remove();
  scratch_remove();
  return tap_done();
}
