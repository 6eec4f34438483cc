/* runner/package: measuring archives written here with libarchive (tar.gz,
 * zip, jar), the bounds and the errors. Finding an artifact in a folder is
 * test_package_find.c's, agreement with `npm pack` test_package_npm.c's.
 * Everything is made in a scratch folder (tests/lib_scratch.h). */
/* uv.h first: on Windows it includes winsock2.h, which must come before
 * the windows.h that archive_entry.h includes. */
#include <uv.h>
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/package.h"
#include "tests/lib_child.h"
#include "tests/lib_scratch.h"
#include "tests/tap.h"

/* ---- archives ---------------------------------------------------------- */

enum item_type { ITEM_FILE, ITEM_DIR, ITEM_LINK };

struct item {
  const char *path;
  enum item_type type;
  size_t size;      /* files */
  const char *link; /* links */
};

enum archive_kind { KIND_TGZ, KIND_ZIP, KIND_ZIP_UNKNOWN_SIZES };

static unsigned char content_byte(size_t i)
{
  return (unsigned char)('a' + (i * 7 + i / 13) % 26);
}

/* Writes items into a new archive at path. Returns 0 or -1 with a reason
 * shown as a TAP diagnostic. */
static int write_archive(const char *path, enum archive_kind kind,
                         const struct item *items, size_t n)
{
  struct archive *a = archive_write_new();
  unsigned char block[4096];
  int rc = 0;

  if (kind == KIND_TGZ) {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  } else {
    archive_write_set_format_zip(a);
  }
  if (archive_write_open_filename(a, path) != ARCHIVE_OK)
    rc = -1;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, items[i].path);
    archive_entry_set_mtime(e, 1700000000, 0);
    if (items[i].type == ITEM_FILE) {
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_perm(e, 0644);
      if (kind == KIND_ZIP_UNKNOWN_SIZES)
        archive_entry_unset_size(e);
      else
        archive_entry_set_size(e, (la_int64_t)items[i].size);
    } else if (items[i].type == ITEM_DIR) {
      archive_entry_set_filetype(e, AE_IFDIR);
      archive_entry_set_perm(e, 0755);
    } else {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_perm(e, 0777);
      archive_entry_set_symlink(e, items[i].link);
    }
    if (archive_write_header(a, e) != ARCHIVE_OK)
      rc = -1;
    for (size_t done = 0;
         rc == 0 && items[i].type == ITEM_FILE && done < items[i].size;) {
      size_t chunk = items[i].size - done;
      if (chunk > sizeof(block))
        chunk = sizeof(block);
      for (size_t k = 0; k < chunk; k++)
        block[k] = content_byte(done + k);
      if (archive_write_data(a, block, chunk) != (la_ssize_t)chunk)
        rc = -1;
      done += chunk;
    }
    archive_entry_free(e);
  }
  if (rc != 0)
    tap_diag("writing %s: %s", path, archive_error_string(a));
  if (archive_write_close(a) != ARCHIVE_OK && rc == 0) {
    tap_diag("closing %s: %s", path, archive_error_string(a));
    rc = -1;
  }
  archive_write_free(a);
  return rc;
}

/* A tar.gz of count empty files "f000000", "f000001"..., each path padded
 * to path_len bytes when path_len is above 7. */
static int write_many(const char *path, int count, size_t path_len)
{
  struct archive *a = archive_write_new();
  char name[SCRATCH_PATH_CAP + 16];
  int rc = 0;

  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  archive_write_set_filter_option(a, "gzip", "compression-level", "1");
  if (archive_write_open_filename(a, path) != ARCHIVE_OK)
    rc = -1;
  for (int i = 0; rc == 0 && i < count; i++) {
    struct archive_entry *e = archive_entry_new();
    snprintf(name, sizeof(name), "f%06d", i);
    if (path_len > 7 && path_len < sizeof(name)) {
      memset(name + 7, 'p', path_len - 7);
      for (size_t k = 100; k < path_len; k += 100)
        name[k] = '/';
      name[path_len] = '\0';
    }
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, 0);
    if (archive_write_header(a, e) != ARCHIVE_OK)
      rc = -1;
    archive_entry_free(e);
  }
  if (archive_write_close(a) != ARCHIVE_OK)
    rc = -1;
  if (rc != 0)
    tap_diag("writing %s: %s", path, archive_error_string(a));
  archive_write_free(a);
  return rc;
}

/* A plain ustar archive whose one header claims size bytes and whose data
 * is missing: a writer would have to produce the bytes. */
static int write_tar_claiming(const char *path, unsigned long long size)
{
  unsigned char h[512 * 3];
  unsigned sum = 0;

  memset(h, 0, sizeof(h));
  snprintf((char *)h, 100, "%s", "huge.bin");
  memcpy(h + 100, "0000644", 8);
  memcpy(h + 108, "0000000", 8);
  memcpy(h + 116, "0000000", 8);
  snprintf((char *)h + 124, 12, "%011llo", size);
  snprintf((char *)h + 136, 12, "%011o", 0u);
  h[156] = '0';
  memcpy(h + 257, "ustar", 6);
  memcpy(h + 263, "00", 2);
  memset(h + 148, ' ', 8);
  for (int i = 0; i < 512; i++)
    sum += h[i];
  snprintf((char *)h + 148, 8, "%06o", sum);
  h[155] = ' ';
  return scratch_write(path, h, sizeof(h));
}

/* ---- independent digests ----------------------------------------------- */

/* SHA-256 by sha256sum (or shasum -a 256). Returns 1 with hex filled, 0
 * when neither tool is installed, -1 when one failed. */
static int tool_sha256(const char *path, char hex[65])
{
  const char *sha256sum[] = {"sha256sum", path, NULL};
  const char *shasum[] = {"shasum", "-a", "256", path, NULL};
  struct child_run r;
  int rc = child_run(&r, sha256sum, NULL, NULL, tap_timeout_s(20));

  if (rc == UV_ENOENT) {
    child_release(&r);
    rc = child_run(&r, shasum, NULL, NULL, tap_timeout_s(20));
  }
  if (rc == UV_ENOENT) {
    child_release(&r);
    return 0;
  }
  if (rc < 0 || !child_succeeded(&r) || r.stdout_len < 64) {
    child_explain(&r, "sha256sum");
    child_release(&r);
    return -1;
  }
  memcpy(hex, r.stdout_buf, 64);
  hex[64] = '\0';
  child_release(&r);
  return 1;
}

/* ---- tests -------------------------------------------------------------- */

/* Checks a measured archive against the files its items hold. */
static void check_measure(const char *label, const char *path,
                          const struct item *items, size_t n,
                          const char *format_part)
{
  struct model_package_info p = MODEL_PACKAGE_INFO_INIT;
  char err[512] = "", hex[65];
  int64_t unpacked = 0;
  int files = 0, in_order = 1, rc;

  rc = package_measure(path, &p, err, sizeof(err));
  if (!TAP_OK(rc == 0, "%s: measured (%s)", label, rc ? err : p.format))
    return;
  for (size_t i = 0; i < n; i++) {
    if (items[i].type != ITEM_FILE)
      continue;
    if (files >= p.nentries || strcmp(p.entries[files].path, items[i].path) ||
        p.entries[files].size_bytes != (int64_t)items[i].size)
      in_order = 0;
    unpacked += (int64_t)items[i].size;
    files++;
  }
  TAP_OK(p.packed_bytes == scratch_size(path) && p.packed_bytes > 0,
         "%s: packed_bytes is the file's size (%lld)", label,
         (long long)p.packed_bytes);
  TAP_EQ_INT(p.unpacked_bytes, unpacked, "%s: unpacked_bytes %lld == %lld",
             label, (long long)p.unpacked_bytes, (long long)unpacked);
  TAP_OK(p.file_count == files && p.nentries == files,
         "%s: %d regular files counted (got %d), no directory or link", label,
         files, p.file_count);
  TAP_OK(in_order, "%s: entries name each file and its size, in order", label);
  TAP_EQ_STR(p.file_name, strrchr(path, '/') + 1,
             "%s: file_name is the base name (%s)", label, p.file_name);
  TAP_HAS_STR(p.format, format_part, "%s: format '%s' has '%s'", label,
              p.format, format_part);
  rc = tool_sha256(path, hex);
  if (rc == 0)
    TAP_OK(1, "# SKIP neither sha256sum nor shasum installed");
  else
    TAP_OK(rc == 1 && strcmp(hex, p.sha256) == 0,
           "%s: sha256 %s agrees with sha256sum", label, p.sha256);
  model_package_info_release(&p);
  TAP_OK(p.entries == NULL && p.nentries == 0, "%s: release empties the info",
         label);
  model_package_info_release(&p);
}

static void test_archives(void)
{
  static const struct item tgz[] = {
      {"empty.txt", ITEM_FILE, 0, NULL},
      {"data.bin", ITEM_FILE, 1000, NULL},
      {"sub", ITEM_DIR, 0, NULL},
      {"sub/nested.txt", ITEM_FILE, 37, NULL},
      {"link", ITEM_LINK, 0, "data.bin"},
  };
  static const struct item zip[] = {
      {"a.txt", ITEM_FILE, 5, NULL},         {"dir/", ITEM_DIR, 0, NULL},
      {"dir/b.bin", ITEM_FILE, 70000, NULL}, {"dir/empty", ITEM_FILE, 0, NULL},
      {"dir/link", ITEM_LINK, 0, "b.bin"},
  };
  static const struct item jar[] = {
      {"META-INF/", ITEM_DIR, 0, NULL},
      {"META-INF/MANIFEST.MF", ITEM_FILE, 64, NULL},
      {"com/", ITEM_DIR, 0, NULL},
      {"com/example/", ITEM_DIR, 0, NULL},
      {"com/example/Main.class", ITEM_FILE, 300, NULL},
      {"com/example/Big.class", ITEM_FILE, 200000, NULL},
  };
  char path[SCRATCH_PATH_CAP];

  scratch_path(path, "known.tar.gz");
  if (TAP_OK(write_archive(path, KIND_TGZ, tgz, 5) == 0, "wrote %s", path))
    check_measure("tar.gz", path, tgz, 5, "gzip");
  scratch_path(path, "known.zip");
  if (TAP_OK(write_archive(path, KIND_ZIP, zip, 5) == 0, "wrote %s", path))
    check_measure("zip", path, zip, 5, "ZIP");
  scratch_path(path, "known.jar");
  if (TAP_OK(write_archive(path, KIND_ZIP, jar, 6) == 0, "wrote %s", path))
    check_measure("jar", path, jar, 6, "ZIP");
  scratch_path(path, "unknown-sizes.zip");
  if (TAP_OK(write_archive(path, KIND_ZIP_UNKNOWN_SIZES, zip, 5) == 0,
             "wrote %s (sizes after the data)", path))
    check_measure("zip with data descriptors", path, zip, 5, "ZIP");
}

/* Measures what must fail; the message must name the file. */
static void expect_failure(const char *label, const char *path, int want_rc,
                           const char *want_text)
{
  struct model_package_info p = MODEL_PACKAGE_INFO_INIT;
  char err[512] = "";
  size_t plen = strlen(path);
  int rc = package_measure(path, &p, err, sizeof(err));

  TAP_OK(rc < 0 && (want_rc == 0 || rc == want_rc) &&
             strncmp(err, path, plen) == 0 &&
             strncmp(err + plen, ": ", 2) == 0 && strchr(err, '\n') == NULL &&
             (want_text == NULL || strstr(err, want_text) != NULL) &&
             p.entries == NULL && p.nentries == 0,
         "%s fails (%d): %s", label, rc, err);
  model_package_info_release(&p);
}

static void test_errors(void)
{
  static const struct item tgz[] = {
      {"a.bin", ITEM_FILE, 30000, NULL},
      {"b.bin", ITEM_FILE, 30000, NULL},
  };
  char path[SCRATCH_PATH_CAP], cut[SCRATCH_PATH_CAP];
  unsigned char noise[4096];
  unsigned char *data, *padded;
  unsigned seed = 12345;
  size_t len;

  scratch_path(path, "whole.tgz");
  scratch_path(cut, "truncated.tgz");
  data = write_archive(path, KIND_TGZ, tgz, 2) == 0 ? scratch_read(path, &len)
                                                    : NULL;
  if (TAP_OK(data != NULL && scratch_write(cut, data, len / 2) == 0,
             "wrote a .tgz cut in half"))
    expect_failure("a truncated .tgz", cut, UV_EINVAL, NULL);
  free(data);

  /* libarchive would read these as a stream of local entries; no zip or
   * jar tool opens them. */
  scratch_path(path, "known.zip");
  data = scratch_read(path, &len);
  padded = data != NULL ? malloc(len + 100000) : NULL;
  scratch_path(cut, "no-end.zip");
  if (TAP_OK(data != NULL && scratch_write(cut, data, len - 30) == 0,
             "wrote a .zip without its end"))
    expect_failure("a .zip without its end", cut, UV_EINVAL,
                   "central directory");
  scratch_path(cut, "half.zip");
  if (TAP_OK(data != NULL && scratch_write(cut, data, len / 2) == 0,
             "wrote a .zip cut in half"))
    expect_failure("a .zip cut in half", cut, UV_EINVAL, NULL);
  scratch_path(cut, "trailing.zip");
  if (padded != NULL) {
    memcpy(padded, data, len);
    memset(padded + len, 'J', 100000);
  }
  if (TAP_OK(padded != NULL && scratch_write(cut, padded, len + 100000) == 0,
             "wrote a .zip followed by 100000 bytes"))
    expect_failure("a .zip whose directory readers cannot find", cut, UV_EINVAL,
                   "central directory");
  free(data);
  free(padded);

  for (size_t i = 0; i < sizeof(noise); i++) {
    seed = seed * 1103515245u + 12345u;
    noise[i] = (unsigned char)(seed >> 16);
  }
  scratch_path(path, "noise.tgz");
  scratch_write(path, noise, sizeof(noise));
  expect_failure("random bytes", path, UV_EINVAL, NULL);
  scratch_path(path, "text.tgz");
  scratch_write(path, "just some text\n", 15);
  expect_failure("a text file", path, UV_EINVAL, NULL);
  /* libarchive reads text like this as an mtree listing (with sizes taken
   * from the text); a package is never one. */
  scratch_path(path, "listing.tgz");
  scratch_write(path, "#mtree\n./index.js type=file size=100\n", 38);
  expect_failure("an mtree listing", path, UV_EINVAL,
                 "not an archive of a package format");
  scratch_path(path, "error-page.tgz");
  scratch_write(path, "a.js type=file size=7\nb.js type=file\n", 38);
  expect_failure("text that is no archive at all", path, UV_EINVAL,
                 "not an archive of a package format");
  scratch_path(path, "missing.tgz");
  expect_failure("a missing file", path, UV_ENOENT, "cannot open");
  scratch_path(path, "empty.tgz");
  scratch_write(path, "", 0);
  expect_failure("an empty file", path, UV_EINVAL, "empty file");
  scratch_path(path, "a-folder.tgz");
  scratch_mkdir(path);
  expect_failure("a folder", path, UV_EINVAL, "not a regular file");
}

static void test_bounds(void)
{
  struct model_package_info p = MODEL_PACKAGE_INFO_INIT;
  char path[SCRATCH_PATH_CAP], err[512] = "";
  int rc;

  scratch_path(path, "max-entries.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_ENTRIES, 0) == 0, "wrote %d entries",
             PACKAGE_MAX_ENTRIES)) {
    rc = package_measure(path, &p, err, sizeof(err));
    TAP_OK(rc == 0 && p.file_count == PACKAGE_MAX_ENTRIES &&
               p.unpacked_bytes == 0 &&
               strcmp(p.entries[PACKAGE_MAX_ENTRIES - 1].path, "f099999") == 0,
           "%d entries are allowed %s", PACKAGE_MAX_ENTRIES, rc ? err : "");
    model_package_info_release(&p);
  }
  scratch_path(path, "too-many-entries.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_ENTRIES + 1, 0) == 0,
             "wrote %d entries", PACKAGE_MAX_ENTRIES + 1))
    expect_failure("one entry too many", path, UV_EFBIG,
                   "archive has more than 100000 entries");

  scratch_path(path, "path-4096.tgz");
  if (TAP_OK(write_many(path, 1, PACKAGE_MAX_PATH) == 0,
             "wrote a path of %d bytes", PACKAGE_MAX_PATH)) {
    rc = package_measure(path, &p, err, sizeof(err));
    TAP_OK(rc == 0 && p.file_count == 1 &&
               strlen(p.entries[0].path) == PACKAGE_MAX_PATH,
           "a path of %d bytes is allowed %s", PACKAGE_MAX_PATH, rc ? err : "");
    model_package_info_release(&p);
  }
  scratch_path(path, "path-4097.tgz");
  if (TAP_OK(write_many(path, 1, PACKAGE_MAX_PATH + 1) == 0,
             "wrote a path of %d bytes", PACKAGE_MAX_PATH + 1))
    expect_failure("a path over the bound", path, UV_ENAMETOOLONG,
                   "4097 bytes");

  scratch_path(path, "long-paths.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH,
                        4095) == 0,
             "wrote %d paths of 4095 bytes",
             PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH)) {
    rc = package_measure(path, &p, err, sizeof(err));
    TAP_OK(rc == 0 && p.file_count == PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH,
           "%d bytes of paths are allowed %s", PACKAGE_MAX_PATH_BYTES,
           rc ? err : "");
    model_package_info_release(&p);
  }
  scratch_path(path, "too-long-paths.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH + 1,
                        4095) == 0,
             "wrote one more"))
    expect_failure("more bytes of paths than the bound", path, UV_EFBIG,
                   "paths take more than");

  scratch_path(path, "huge.tar");
  if (TAP_OK(write_tar_claiming(path, 5ULL << 30) == 0,
             "wrote a tar header claiming 5 GiB"))
    expect_failure("5 GiB of files", path, UV_EFBIG,
                   "archive has more than 4294967296 bytes");
  scratch_path(path, "short.tar");
  if (TAP_OK(write_tar_claiming(path, 100000) == 0,
             "wrote a tar header claiming more than the file holds"))
    expect_failure("a tar shorter than its header says", path, UV_EINVAL, NULL);
}

int main(void)
{
  if (scratch_create() != 0)
    return tap_done();
  test_archives();
  test_errors();
  test_bounds();
  scratch_remove();
  return tap_done();
}
