/* The transport flags of tests/fixture and its tls line modes.
 *
 * The fixture does no TLS: over "--transport tls" it runs the same plain
 * TCP session as over tcp. That is enough for what it tests, and no more:
 * the runner never sees the wire, only the peers' flags, files, exits and
 * result lines, so these modes prove that the runner passes the flags and
 * files the contract names (checked here: a bad combination exits 2, a
 * missing file or a key not 0600 exits 1) and that each check of a tls
 * object can fail. Its other modes are a runtime that cannot do TLS: they
 * exit 127 when given --transport tls. Real TLS between peers is tested with
 * the runtimes that implement it (tests/test_tls_wrong_ca.c,
 * tests/test_tls_run.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fixture.h"

static int over_tls; /* --transport tls was given */

static void check_file(const char *what, const char *path, int key)
{
  struct stat st;

  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK))
    fixture_die(1, "%s '%s' is not a readable file", what, path);
  if (key && FIXTURE_OS_FILE_MODES && (st.st_mode & 0777) != 0600)
    fixture_die(1, "%s '%s' has mode %03o, expected 0600", what, path,
                (unsigned)(st.st_mode & 0777));
}

void fixture_tls_args(int role, const char *transport, const char *cert,
                      const char *key, const char *ca, struct fixture_args *a)
{
  int tls = transport != NULL && strcmp(transport, "tls") == 0;

  if (transport != NULL && !tls && strcmp(transport, "tcp") != 0)
    fixture_die(2, "--transport: expected tcp or tls, got '%s'", transport);
  if (!tls && (cert || key || ca))
    fixture_die(2, "--cert, --key and --ca go with --transport tls");
  if (tls && role == FIXTURE_SERVER && (cert == NULL || key == NULL))
    fixture_die(2, "--transport tls needs --cert and --key");
  if (tls && role == FIXTURE_CLIENT && ca == NULL)
    fixture_die(2, "--transport tls needs --ca");
  if (tls && (fixture_mode_fault < FAULT_TLS_LINE ||
              fixture_mode_fault > FAULT_TLS_OK)) {
    fprintf(stderr, "%s: --transport tls: not supported by this mode\n",
            fixture_prog);
    exit(127);
  }
  if (tls && role == FIXTURE_SERVER) {
    check_file("--cert", cert, 0);
    check_file("--key", key, 1);
  } else if (tls) {
    check_file("--ca", ca, 0);
  }
  a->tls = over_tls = tls;
}

int fixture_tls_mode(int role)
{
  if (fixture_mode_fault == FAULT_TLS_ON_TCP)
    return 1;
  if (!over_tls)
    return 0;
  if (role == FIXTURE_CLIENT)
    return fixture_mode_fault >= FAULT_TLS_LINE &&
           fixture_mode_fault <= FAULT_TLS_HANDSHAKE_LONG;
  return fixture_mode_fault >= FAULT_TLS_RESULT &&
         fixture_mode_fault <= FAULT_TLS_SERVER_ALPN;
}

void fixture_tls_print(int role, uint64_t lived_ns)
{
  enum fixture_fault f = fixture_mode_fault;
  const char *version = f == FAULT_TLS_VERSION || f == FAULT_TLS_SERVER_VERSION
                            ? "TLSv1.2"
                            : "TLSv1.3";
  const char *alpn = f == FAULT_TLS_ALPN          ? "h2"
                     : f == FAULT_TLS_SERVER_ALPN ? "http/1.1"
                                                  : "crossrun/1";
  const char *cipher = f == FAULT_TLS_CIPHER ? "TLS_AES_256_GCM_SHA384"
                                             : "TLS_AES_128_GCM_SHA256";
  /* No handshake took place: its figure is a stand-in within what the
   * runner bounds it by (above 0, within the client's lifetime). */
  uint64_t handshake_ns = f == FAULT_TLS_HANDSHAKE_0      ? 0
                          : f == FAULT_TLS_HANDSHAKE_LONG ? 3600000000000ull
                                                          : lived_ns / 2 + 1;

  printf(",\"transport\":\"tls\",\"tls\":{\"version\":\"%s\",\"cipher\":\"%s\","
         "\"alpn\":\"%s\"",
         version, cipher, alpn);
  if (role == FIXTURE_CLIENT)
    printf(",\"handshake_ns\":%" PRIu64, handshake_ns);
  printf("}");
}
