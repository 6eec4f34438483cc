/* runner/package against npm: what package_measure says of the Node
 * lane's package agrees with what `npm pack` says of it (sizes, files,
 * integrity), when npm is installed. npm packs into, and keeps its cache
 * in, a scratch folder (tests/lib_scratch.h). */
#include <ctype.h>
#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "runner/package.h"
#include "tests/lib_child.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

/* ---- independent digests ----------------------------------------------- */

/* npm's "integrity": "sha512-" and the base64 of the file's SHA-512. */
static int sri_sha512(const char *path, char *out, size_t outlen)
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  unsigned char b64[256];
  size_t len;
  unsigned char *data = scratch_read(path, &len);
  int ok;

  if (data == NULL)
    return -1;
  ok = EVP_Digest(data, len, md, &mdlen, EVP_sha512(), NULL) == 1;
  free(data);
  if (!ok)
    return -1;
  EVP_EncodeBlock(b64, md, (int)mdlen);
  snprintf(out, outlen, "sha512-%s", (const char *)b64);
  return 0;
}

/* ---- npm ----------------------------------------------------------------- */

static const struct model_package_entry *
find_entry(const struct model_package_info *p, const char *path)
{
  for (int i = 0; i < p->nentries; i++)
    if (strcmp(p->entries[i].path, path) == 0)
      return &p->entries[i];
  return NULL;
}

static int same_name(const char *a, const char *b)
{
  for (; *a != '\0' && *b != '\0'; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
      return 0;
  return *a == *b;
}

static char *format_alloc(const char *a, const char *b, const char *c)
{
  size_t len = strlen(a) + strlen(b) + strlen(c) + 1;
  char *s = malloc(len);
  if (s != NULL)
    snprintf(s, len, "%s%s%s", a, b, c);
  return s;
}

/* This program's environment with npm's cache inside the temporary folder
 * and no update check, so npm writes nothing elsewhere. NULL-terminated;
 * free with free_env(). */
static char **npm_env(const char *cache)
{
  uv_env_item_t *items = NULL;
  int count = 0;
  char **env;
  int n = 0;

  if (uv_os_environ(&items, &count) != 0)
    return NULL;
  env = calloc((size_t)count + 3, sizeof(*env));
  for (int i = 0; env != NULL && i < count; i++) {
    /* npm reads its settings from the environment in any case. */
    if (same_name(items[i].name, "npm_config_cache") ||
        same_name(items[i].name, "npm_config_update_notifier"))
      continue;
    if ((env[n] = format_alloc(items[i].name, "=", items[i].value)) != NULL)
      n++;
  }
  uv_os_free_environ(items, count);
  if (env != NULL) {
    if ((env[n] = format_alloc("npm_config_cache=", cache, "")) != NULL)
      n++;
    env[n] = format_alloc("npm_config_update_notifier=false", "", "");
  }
  return env;
}

static void free_env(char **env)
{
  for (int i = 0; env != NULL && env[i] != NULL; i++)
    free(env[i]);
  free(env);
}

/* Runs npm with args in lane_dir. Returns npm's JSON (the caller puts it),
 * NULL when npm failed, or sets *missing when npm is not installed. */
static json_object *run_npm(const char *const *argv, const char *lane_dir,
                            char **env, int *missing)
{
  struct child_run r;
  json_object *doc = NULL;
  int rc = child_run(&r, argv, lane_dir, env, tap_timeout_s(120));

  *missing = rc == UV_ENOENT;
  if (rc == 0 && child_succeeded(&r) && !r.truncated) {
    json_tokener *tok = json_tokener_new();
    doc = json_tokener_parse_ex(tok, r.stdout_buf, (int)r.stdout_len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
      json_object_put(doc);
      doc = NULL;
      tap_diag("npm's output is not JSON: %.200s", r.stdout_buf);
    }
    json_tokener_free(tok);
  } else if (rc < 0 && !*missing) {
    tap_diag("cannot start npm: %s", uv_strerror(rc));
  } else if (rc == 0) {
    child_explain(&r, "npm pack");
  }
  child_release(&r);
  return doc;
}

static int64_t json_int(json_object *obj, const char *key)
{
  json_object *v;
  if (!json_object_object_get_ex(obj, key, &v) ||
      !json_object_is_type(v, json_type_int))
    return -1;
  return json_object_get_int64(v);
}

/* Compares a measured .tgz with one package of npm's pack report. */
static void compare_with_npm(const char *label,
                             const struct model_package_info *p,
                             json_object *pack)
{
  json_object *files = NULL;
  int64_t size = json_int(pack, "size");
  int64_t unpacked = json_int(pack, "unpackedSize");
  int64_t count = json_int(pack, "entryCount");
  size_t nfiles;
  int all_found = 1;

  TAP_OK(size > 0 && p->packed_bytes == size,
         "%s: packed_bytes %lld == npm's size %lld", label,
         (long long)p->packed_bytes, (long long)size);
  TAP_OK(unpacked >= 0 && p->unpacked_bytes == unpacked,
         "%s: unpacked_bytes %lld == npm's unpackedSize %lld", label,
         (long long)p->unpacked_bytes, (long long)unpacked);
  TAP_OK(count > 0 && p->file_count == count,
         "%s: file_count %d == npm's entryCount %lld", label, p->file_count,
         (long long)count);
  if (!TAP_OK(json_object_object_get_ex(pack, "files", &files) &&
                  json_object_is_type(files, json_type_array),
              "%s: npm lists the files", label))
    return;
  nfiles = json_object_array_length(files);
  for (size_t i = 0; i < nfiles; i++) {
    json_object *f = json_object_array_get_idx(files, i), *v;
    const struct model_package_entry *e = NULL;
    char path[SCRATCH_PATH_CAP];
    if (json_object_object_get_ex(f, "path", &v)) {
      snprintf(path, sizeof(path), "package/%s", json_object_get_string(v));
      e = find_entry(p, path);
    }
    if (e == NULL || e->size_bytes != json_int(f, "size")) {
      tap_diag("npm lists %s (%lld bytes); measured %lld",
               json_object_get_string(f), (long long)json_int(f, "size"),
               e ? (long long)e->size_bytes : -1LL);
      all_found = 0;
    }
  }
  TAP_OK(all_found && (int64_t)nfiles == p->nentries,
         "%s: each of npm's %zu files is an entry of the same size", label,
         nfiles);
}

/* Packs into a new folder; measures the tarball. Returns 0 or -1. */
static int pack_once(const char *lane_dir, char **env, const char *dest_name,
                     struct model_package_info *p, json_object **report,
                     int *missing)
{
  char dest[SCRATCH_PATH_CAP], found[SCRATCH_PATH_CAP], err[512];
  const char *argv[] = {"npm", "pack", "--json", "--pack-destination",
                        dest,  NULL};
  json_object *first, *v;
  int rc;

  scratch_path(dest, dest_name);
  scratch_mkdir(dest);
  *report = run_npm(argv, lane_dir, env, missing);
  if (*missing)
    return -1;
  if (!TAP_OK(*report != NULL &&
                  json_object_is_type(*report, json_type_array) &&
                  json_object_array_length(*report) == 1,
              "npm pack --json into %s reports one package", dest_name))
    return -1;
  rc = package_find_artifact(dest, "*.tgz", found, sizeof(found), err,
                             sizeof(err));
  if (!TAP_OK(rc == 0, "npm's tarball is found in %s %s", dest_name,
              rc ? err : ""))
    return -1;
  first = json_object_array_get_idx(*report, 0);
  TAP_OK(json_object_object_get_ex(first, "filename", &v) &&
             strcmp(strrchr(found, '/') + 1, json_object_get_string(v)) == 0,
         "the tarball is the file npm names (%s)", strrchr(found, '/') + 1);
  rc = package_measure(found, p, err, sizeof(err));
  return TAP_OK(rc == 0, "npm's tarball measured (%s)", rc ? err : p->format)
             ? 0
             : -1;
}

static void test_npm(void)
{
  const char *root = getenv("CROSSRUN_ROOT");
  const char *dry_argv[] = {"npm", "pack", "--dry-run", "--json", NULL};
  struct model_package_info first = MODEL_PACKAGE_INFO_INIT,
                            second = MODEL_PACKAGE_INFO_INIT;
  json_object *report1 = NULL, *report2 = NULL, *dry = NULL;
  char lane_dir[SCRATCH_PATH_CAP], manifest[SCRATCH_PATH_CAP],
      cache[SCRATCH_PATH_CAP];
  char sri[512];
  char **env;
  int missing = 0;

  if (root == NULL || *root == '\0')
    root = ".";
  scratch_join(lane_dir, root, "lanes/node");
  scratch_join(manifest, lane_dir, "package.json");
  if (scratch_size(manifest) < 0) {
    TAP_OK(1, "# SKIP %s not found (set CROSSRUN_ROOT)", manifest);
    return;
  }
  scratch_path(cache, "npm-cache");
  env = npm_env(cache);
  if (!TAP_OK(env != NULL, "npm's environment"))
    return;
  if (pack_once(lane_dir, env, "pack-1", &first, &report1, &missing) == 0) {
    json_object *pack = json_object_array_get_idx(report1, 0), *v;
    compare_with_npm("npm pack", &first, pack);
    {
      char tarball[SCRATCH_PATH_CAP];
      char folder[SCRATCH_PATH_CAP];
      scratch_join(tarball, scratch_join(folder, scratch_root, "pack-1"),
                   first.file_name);
      TAP_OK(json_object_object_get_ex(pack, "integrity", &v) &&
                 sri_sha512(tarball, sri, sizeof(sri)) == 0 &&
                 strcmp(sri, json_object_get_string(v)) == 0,
             "npm's integrity is the SHA-512 of the measured file");
    }
    dry = run_npm(dry_argv, lane_dir, env, &missing);
    if (TAP_OK(dry != NULL && json_object_is_type(dry, json_type_array) &&
                   json_object_array_length(dry) == 1,
               "npm pack --dry-run --json reports one package"))
      compare_with_npm("npm pack --dry-run", &first,
                       json_object_array_get_idx(dry, 0));
    if (pack_once(lane_dir, env, "pack-2", &second, &report2, &missing) == 0) {
      int same = strcmp(first.sha256, second.sha256) == 0;
      tap_diag("npm pack twice: sha256 %s and %s: %s", first.sha256,
               second.sha256,
               same ? "identical, packing is reproducible"
                    : "different, packing is not reproducible");
      TAP_OK(1, "npm pack twice (reproducible: %s)", same ? "yes" : "no");
    }
  } else if (missing) {
    TAP_OK(1, "# SKIP npm not installed");
  }
  model_package_info_release(&first);
  model_package_info_release(&second);
  json_object_put(report1);
  json_object_put(report2);
  json_object_put(dry);
  free_env(env);
}

int main(void)
{
  if (scratch_create() != 0)
    return tap_done();
  test_npm();
  scratch_remove();
  return tap_done();
}
