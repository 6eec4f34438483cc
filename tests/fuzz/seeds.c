/* Makes the frame harness's seeds from the protocol's vectors: every
 * frame of frames.json, every input of invalid.json, and both sides of
 * every session of sessions.json, as the bytes they spell in hex.
 *
 *   seeds VECTORS_DIR OUT_DIR    writes OUT_DIR/fuzz_frame/<case name>
 *
 * A plain build tool (no sanitizer, no libFuzzer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

static int written;

static int hex_value(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Writes the bytes hex spells to dir/name-suffix. Returns 0 or -1. */
static int write_hex(const char *dir, const char *name, const char *suffix,
                     const char *hex)
{
  char path[4096];
  size_t len = strlen(hex);
  FILE *f;

  if (len % 2 != 0) {
    fprintf(stderr, "seeds: %s%s: odd hex length\n", name, suffix);
    return -1;
  }
  snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
  f = fopen(path, "wb");
  if (f == NULL) {
    fprintf(stderr, "seeds: %s: %s\n", path, strerror(errno));
    return -1;
  }
  for (size_t i = 0; i < len; i += 2) {
    int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      fprintf(stderr, "seeds: %s: not hex\n", path);
      fclose(f);
      return -1;
    }
    fputc(hi * 16 + lo, f);
  }
  written++;
  return fclose(f) == 0 ? 0 : -1;
}

/* For each case of VECTORS/file, the hex members named in keys. */
static int from_file(const char *vectors, const char *file,
                     const char *const *keys, const char *out)
{
  char path[4096];
  json_object *doc, *cases;
  int rc = 0;

  snprintf(path, sizeof(path), "%s/%s", vectors, file);
  doc = json_object_from_file(path);
  if (doc == NULL || !json_object_object_get_ex(doc, "cases", &cases) ||
      !json_object_is_type(cases, json_type_array)) {
    fprintf(stderr, "seeds: %s: no \"cases\" list\n", path);
    json_object_put(doc);
    return -1;
  }
  for (size_t i = 0; i < json_object_array_length(cases); i++) {
    json_object *c = json_object_array_get_idx(cases, i), *name, *v;
    if (!json_object_object_get_ex(c, "name", &name))
      continue;
    for (const char *const *k = keys; *k != NULL; k++) {
      char suffix[64];
      if (!json_object_object_get_ex(c, *k, &v) ||
          !json_object_is_type(v, json_type_string))
        continue;
      snprintf(suffix, sizeof(suffix), ".%s", *k);
      if (write_hex(out, json_object_get_string(name), suffix,
                    json_object_get_string(v)) != 0)
        rc = -1;
    }
  }
  json_object_put(doc);
  return rc;
}

int main(int argc, char **argv)
{
  static const char *const frame_keys[] = {"frame", NULL};
  static const char *const invalid_keys[] = {"input", NULL};
  static const char *const session_keys[] = {"client_bytes", "server_bytes",
                                             NULL};
  char out[4096];
  int rc = 0;

  if (argc != 3) {
    fprintf(stderr, "usage: seeds VECTORS_DIR OUT_DIR\n");
    return 2;
  }
  snprintf(out, sizeof(out), "%s/fuzz_frame", argv[2]);
  if ((mkdir(argv[2], 0755) != 0 && errno != EEXIST) ||
      (mkdir(out, 0755) != 0 && errno != EEXIST)) {
    fprintf(stderr, "seeds: %s: %s\n", out, strerror(errno));
    return 1;
  }
  rc |= from_file(argv[1], "frames.json", frame_keys, out);
  rc |= from_file(argv[1], "invalid.json", invalid_keys, out);
  rc |= from_file(argv[1], "sessions.json", session_keys, out);
  printf("seeds: %d frame seeds in %s\n", written, out);
  return rc ? 1 : 0;
}
