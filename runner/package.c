#include "runner/package.h"

#include "evidence/base/sha256.h"
#include "runner/glob.h"

/* uv.h first: on Windows it includes winsock2.h, which must come before
 * the windows.h that archive_entry.h includes. */
#include <uv.h>
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PACKAGE_BLOCK 65536
#define PACKAGE_LISTED_NAMES 8

/* The artifact as libarchive sees it. The file is read through libuv
 * (UTF-8 paths on every OS) with positional reads, so one descriptor
 * serves hashing and the seeking zip reader alike, and nothing past the
 * size the file had when it was opened is ever read: the hash, the
 * packed size and the archive describe the same bytes. */
struct package_source {
  uv_file fd;
  int64_t size;
  int64_t offset;
  char buf[PACKAGE_BLOCK];
};

/* Appends to a bounded string; what does not fit is dropped. */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (*len + 1 >= cap)
    return;
  va_start(ap, fmt);
  n = vsnprintf(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  if (n > 0)
    *len = (size_t)n >= cap - *len ? cap - 1 : *len + (size_t)n;
}

/* "<path>: <problem>" on one line, whatever libarchive's message holds. */
static int fail(int rc, char *err, size_t errlen, const char *path,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail(int rc, char *err, size_t errlen, const char *path,
                const char *fmt, ...)
{
  va_list ap;
  size_t len = 0;

  if (err == NULL || errlen == 0)
    return rc;
  err[0] = '\0';
  append(err, errlen, &len, "%s: ", path);
  if (len + 1 < errlen) {
    va_start(ap, fmt);
    vsnprintf(err + len, errlen - len, fmt, ap);
    va_end(ap);
  }
  for (char *c = err; *c != '\0'; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  return rc;
}

static const char *archive_message(struct archive *a)
{
  const char *m = archive_error_string(a);
  return m != NULL && *m != '\0' ? m : "libarchive gave no reason";
}

static la_ssize_t source_read(struct archive *a, void *data, const void **block)
{
  struct package_source *s = data;
  int64_t left = s->size - s->offset;
  uv_buf_t b;
  uv_fs_t req;
  int rc;

  *block = s->buf;
  if (left <= 0)
    return 0;
  b = uv_buf_init(s->buf,
                  left < PACKAGE_BLOCK ? (unsigned)left : PACKAGE_BLOCK);
  rc = uv_fs_read(NULL, &req, s->fd, &b, 1, s->offset, NULL);
  uv_fs_req_cleanup(&req);
  if (rc < 0) {
    archive_set_error(a, EIO, "read error: %s", uv_strerror(rc));
    return ARCHIVE_FATAL;
  }
  s->offset += rc;
  return rc;
}

/* Skipping past the end skips only what is there, so libarchive sees the
 * archive is truncated. */
static la_int64_t source_skip(struct archive *a, void *data, la_int64_t request)
{
  struct package_source *s = data;
  int64_t left = s->size - s->offset;

  if (request <= 0 || left <= 0)
    return 0;
  if (request > left)
    request = left;
  s->offset += request;
  return request;
}

static la_int64_t source_seek(struct archive *a, void *data, la_int64_t offset,
                              int whence)
{
  struct package_source *s = data;
  int64_t base;

  if (whence == SEEK_SET)
    base = 0;
  else if (whence == SEEK_CUR)
    base = s->offset;
  else if (whence == SEEK_END)
    base = s->size;
  else
    return ARCHIVE_FATAL;
  if ((offset > 0 && offset > INT64_MAX - base) || base + offset < 0) {
    archive_set_error(a, EIO, "seek out of range");
    return ARCHIVE_FATAL;
  }
  s->offset = base + offset;
  return s->offset;
}

static int hash_file(struct package_source *s, char hex[65], const char *path,
                     char *err, size_t errlen)
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  int64_t done = 0;
  int rc = 0;

  if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
    EVP_MD_CTX_free(ctx);
    return fail(UV_ENOMEM, err, errlen, path, "cannot start SHA-256");
  }
  while (done < s->size) {
    int64_t left = s->size - done;
    uv_buf_t b = uv_buf_init(s->buf, left < PACKAGE_BLOCK ? (unsigned)left
                                                          : PACKAGE_BLOCK);
    uv_fs_t req;

    rc = uv_fs_read(NULL, &req, s->fd, &b, 1, done, NULL);
    uv_fs_req_cleanup(&req);
    if (rc < 0) {
      fail(rc, err, errlen, path, "read error: %s", uv_strerror(rc));
      break;
    }
    if (rc == 0) {
      rc = fail(UV_EIO, err, errlen, path,
                "file shrank from %lld bytes while being read",
                (long long)s->size);
      break;
    }
    EVP_DigestUpdate(ctx, s->buf, (size_t)rc);
    done += rc;
    rc = 0;
  }
  if (rc == 0 && (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32))
    rc = fail(UV_EINVAL, err, errlen, path, "SHA-256 failed");
  EVP_MD_CTX_free(ctx);
  if (rc == 0)
    sha256_hex(md, hex);
  return rc;
}

/* Where zip readers look for the end of the central directory: the last
 * 22 bytes, or up to 64 KiB before them for a comment. */
#define PACKAGE_ZIP_TAIL (22 + 65535)

static uint32_t le32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* libarchive reads a zip whose central directory it cannot find as a
 * stream of local entries, so a zip cut off at its end, which no zip or
 * jar tool opens, would still measure. A zip is only accepted when it
 * ends with an end-of-central-directory record that points before
 * itself. Returns 1, 0 when there is none, or a negative libuv error. */
static int zip_has_directory(struct package_source *s)
{
  int64_t start = s->size > PACKAGE_ZIP_TAIL ? s->size - PACKAGE_ZIP_TAIL : 0;
  size_t len = (size_t)(s->size - start);
  unsigned char *tail = malloc(len);
  size_t got = 0;
  int found = 0;

  if (tail == NULL)
    return UV_ENOMEM;
  while (got < len) {
    uv_buf_t b = uv_buf_init((char *)tail + got, (unsigned)(len - got));
    uv_fs_t req;
    int rc = uv_fs_read(NULL, &req, s->fd, &b, 1, start + (int64_t)got, NULL);
    uv_fs_req_cleanup(&req);
    if (rc <= 0) {
      free(tail);
      return rc < 0 ? rc : UV_EIO;
    }
    got += (size_t)rc;
  }
  for (size_t i = len >= 22 ? len - 22 + 1 : 0; !found && i-- > 0;) {
    const unsigned char *r = tail + i;
    uint32_t cd_size, cd_offset;
    if (r[0] != 'P' || r[1] != 'K' || r[2] != 5 || r[3] != 6)
      continue;
    cd_size = le32(r + 12);
    cd_offset = le32(r + 16);
    /* 0xffffffff: the real figures are in a zip64 record. */
    found = cd_size == 0xffffffffu || cd_offset == 0xffffffffu ||
            (int64_t)cd_offset + cd_size <= start + (int64_t)i;
  }
  free(tail);
  return found;
}

static void describe_format(struct archive *a, char *out, size_t outlen)
{
  const char *name = archive_format_name(a);
  size_t len = 0;

  out[0] = '\0';
  append(out, outlen, &len, "%s", name != NULL ? name : "unknown format");
  /* Filter 0 is the one next to the format; the last is the pseudo-filter
   * that reads the file. */
  for (int i = 0; i < archive_filter_count(a); i++) {
    const char *filter = archive_filter_name(a, i);
    if (archive_filter_code(a, i) == ARCHIVE_FILTER_NONE || filter == NULL)
      continue;
    append(out, outlen, &len, ", %s", filter);
  }
}

static const char *base_name(const char *path)
{
  const char *base = path;
  /* Both separators: an artifact path on Windows may use either. */
  for (const char *c = path; *c != '\0'; c++)
    if (*c == '/' || *c == '\\')
      base = c + 1;
  return base;
}

static int add_entry(struct model_package_info *info, int *cap,
                     const char *path, size_t pathlen, int64_t size)
{
  char *copy;

  if (info->nentries == *cap) {
    int ncap = *cap ? 2 * *cap : 16;
    struct model_package_entry *grown;
    if (ncap > PACKAGE_MAX_ENTRIES)
      ncap = PACKAGE_MAX_ENTRIES;
    grown = realloc(info->entries, (size_t)ncap * sizeof(*grown));
    if (grown == NULL)
      return UV_ENOMEM;
    info->entries = grown;
    *cap = ncap;
  }
  copy = malloc(pathlen + 1);
  if (copy == NULL)
    return UV_ENOMEM;
  memcpy(copy, path, pathlen + 1);
  info->entries[info->nentries].path = copy;
  info->entries[info->nentries].size_bytes = size;
  info->nentries++;
  info->file_count = info->nentries;
  info->unpacked_bytes += size;
  return 0;
}

/* Reads an entry's data to learn its size, stopping once the archive's
 * files would pass the unpacked bound. */
static int count_data(struct archive *a, int64_t already, int64_t *size,
                      const char *path, const char *entry, char *err,
                      size_t errlen)
{
  /* Not the source's buffer: libarchive may still hold pointers into the
   * block it read last. */
  char *data = malloc(PACKAGE_BLOCK);
  int rc = 0;

  if (data == NULL)
    return fail(UV_ENOMEM, err, errlen, path, "out of memory");
  *size = 0;
  for (;;) {
    la_ssize_t n = archive_read_data(a, data, PACKAGE_BLOCK);
    if (n == 0)
      break;
    if (n < 0) {
      rc = fail(UV_EINVAL, err, errlen, path, "entry '%s': %s", entry,
                archive_message(a));
      break;
    }
    *size += n;
    if (*size > PACKAGE_MAX_UNPACKED_BYTES - already) {
      rc = fail(UV_EFBIG, err, errlen, path,
                "archive has more than %lld bytes of files",
                (long long)PACKAGE_MAX_UNPACKED_BYTES);
      break;
    }
  }
  free(data);
  return rc;
}

static int read_entries(struct archive *a, struct package_source *src,
                        struct model_package_info *info, const char *path,
                        char *err, size_t errlen)
{
  struct archive_entry *e;
  int64_t nheaders = 0, path_bytes = 0;
  int cap = 0;
  int rc;

  for (;;) {
    const char *name;
    size_t namelen;
    int64_t size = 0;

    rc = archive_read_next_header(a, &e);
    if (rc == ARCHIVE_EOF)
      break;
    if (rc < ARCHIVE_WARN)
      return fail(UV_EINVAL, err, errlen, path, "%s", archive_message(a));
    if (++nheaders > PACKAGE_MAX_ENTRIES)
      return fail(UV_EFBIG, err, errlen, path,
                  "archive has more than %d entries", PACKAGE_MAX_ENTRIES);
    if (nheaders == 1) {
      describe_format(a, info->format, sizeof(info->format));
      if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
          ARCHIVE_FORMAT_ZIP) {
        rc = zip_has_directory(src);
        if (rc < 0)
          return fail(rc, err, errlen, path, "read error: %s", uv_strerror(rc));
        if (rc == 0)
          return fail(UV_EINVAL, err, errlen, path,
                      "zip without its central directory (truncated?)");
      }
    }
    name = archive_entry_pathname(e);
    if (name == NULL)
      name = archive_entry_pathname_utf8(e);
    if (name == NULL || *name == '\0')
      return fail(UV_EINVAL, err, errlen, path, "entry %lld has no path",
                  (long long)nheaders);
    namelen = strlen(name);
    if (namelen > PACKAGE_MAX_PATH)
      return fail(UV_ENAMETOOLONG, err, errlen, path,
                  "entry %lld has a path of %zu bytes (more than %d)",
                  (long long)nheaders, namelen, PACKAGE_MAX_PATH);
    if (archive_entry_filetype(e) != AE_IFREG)
      continue;
    if (archive_entry_size_is_set(e)) {
      size = archive_entry_size(e);
      if (size < 0)
        return fail(UV_EINVAL, err, errlen, path,
                    "entry '%s' has a negative size", name);
      if (size > PACKAGE_MAX_UNPACKED_BYTES - info->unpacked_bytes)
        return fail(UV_EFBIG, err, errlen, path,
                    "archive has more than %lld bytes of files",
                    (long long)PACKAGE_MAX_UNPACKED_BYTES);
    } else {
      rc = count_data(a, info->unpacked_bytes, &size, path, name, err, errlen);
      if (rc < 0)
        return rc;
    }
    path_bytes += (int64_t)namelen + 1;
    if (path_bytes > PACKAGE_MAX_PATH_BYTES)
      return fail(UV_EFBIG, err, errlen, path,
                  "archive's file paths take more than %d bytes",
                  PACKAGE_MAX_PATH_BYTES);
    if (add_entry(info, &cap, name, namelen, size) < 0)
      return fail(UV_ENOMEM, err, errlen, path, "out of memory");
  }
  if (nheaders == 0)
    describe_format(a, info->format, sizeof(info->format));
  return 0;
}

#define PACKAGE_FORMATS "tar, zip, 7z, cpio, ar, xar, cab, rar, iso9660"

/* The archive formats packages come in. Not libarchive's "all": that takes
 * in mtree, whose bidder reads plain text (a log, an error page saved
 * under the artifact's name) as a listing of files and sizes, and the
 * package would be measured from what the text claims. */
static void support_package_formats(struct archive *a)
{
  archive_read_support_format_tar(a);
  archive_read_support_format_zip(a);
  archive_read_support_format_7zip(a);
  archive_read_support_format_cpio(a);
  archive_read_support_format_ar(a);
  archive_read_support_format_xar(a);
  archive_read_support_format_cab(a);
  archive_read_support_format_rar(a);
  archive_read_support_format_rar5(a);
  archive_read_support_format_iso9660(a);
}

int package_measure(const char *artifact_path, struct model_package_info *out,
                    char *err, size_t errlen)
{
  struct model_package_info info = MODEL_PACKAGE_INFO_INIT;
  struct package_source *src = NULL;
  struct archive *a = NULL;
  const char *path = artifact_path;
  const char *base;
  uv_fs_t req;
  int rc;

  *out = info;
  if (path == NULL || *path == '\0') {
    snprintf(err, errlen, "the artifact path is empty");
    return UV_EINVAL;
  }
  base = base_name(path);
  if (strlen(base) >= sizeof(info.file_name))
    return fail(UV_ENAMETOOLONG, err, errlen, path,
                "file name longer than %zu bytes", sizeof(info.file_name) - 1);
  snprintf(info.file_name, sizeof(info.file_name), "%s", base);

  src = malloc(sizeof(*src));
  if (src == NULL)
    return fail(UV_ENOMEM, err, errlen, path, "out of memory");
  rc = uv_fs_open(NULL, &req, path, UV_FS_O_RDONLY, 0, NULL);
  uv_fs_req_cleanup(&req);
  if (rc < 0) {
    free(src);
    return fail(rc, err, errlen, path, "cannot open: %s", uv_strerror(rc));
  }
  src->fd = rc;
  src->offset = 0;
  rc = uv_fs_fstat(NULL, &req, src->fd, NULL);
  if (rc < 0) {
    fail(rc, err, errlen, path, "cannot stat: %s", uv_strerror(rc));
  } else if ((req.statbuf.st_mode & S_IFMT) != S_IFREG) {
    rc = fail(UV_EINVAL, err, errlen, path, "not a regular file");
  } else if (req.statbuf.st_size == 0) {
    rc = fail(UV_EINVAL, err, errlen, path, "empty file");
  } else if (req.statbuf.st_size > (uint64_t)INT64_MAX) {
    rc = fail(UV_EFBIG, err, errlen, path, "file too large");
  } else {
    src->size = (int64_t)req.statbuf.st_size;
  }
  uv_fs_req_cleanup(&req);
  if (rc == 0)
    rc = hash_file(src, info.sha256, path, err, errlen);
  if (rc == 0) {
    info.packed_bytes = src->size;
    a = archive_read_new();
    if (a == NULL)
      rc = fail(UV_ENOMEM, err, errlen, path, "out of memory");
  }
  if (rc == 0) {
    archive_read_support_filter_all(a);
    support_package_formats(a);
    archive_read_set_read_callback(a, source_read);
    archive_read_set_skip_callback(a, source_skip);
    archive_read_set_seek_callback(a, source_seek);
    archive_read_set_callback_data(a, src);
    if (archive_read_open1(a) < ARCHIVE_WARN)
      rc = fail(UV_EINVAL, err, errlen, path,
                "not an archive of a package format (" PACKAGE_FORMATS "): %s",
                archive_message(a));
  }
  if (rc == 0)
    rc = read_entries(a, src, &info, path, err, errlen);
  if (a != NULL)
    archive_read_free(a);
  {
    uv_fs_t close_req;
    uv_fs_close(NULL, &close_req, src->fd, NULL);
    uv_fs_req_cleanup(&close_req);
  }
  free(src);
  if (rc < 0) {
    model_package_info_release(&info);
    return rc;
  }
  *out = info;
  return 0;
}

/* A link or an entry whose type the folder listing does not give counts
 * when what it leads to is a regular file. */
static int is_file(const char *folder, const uv_dirent_t *ent)
{
  char full[PACKAGE_MAX_PATH + 256];
  uv_fs_t req;
  int rc, regular;

  if (ent->type == UV_DIRENT_FILE)
    return 1;
  if (ent->type != UV_DIRENT_LINK && ent->type != UV_DIRENT_UNKNOWN)
    return 0;
  if ((size_t)snprintf(full, sizeof(full), "%s/%s", folder, ent->name) >=
      sizeof(full))
    return 0;
  rc = uv_fs_stat(NULL, &req, full, NULL);
  regular = rc == 0 && (req.statbuf.st_mode & S_IFMT) == S_IFREG;
  uv_fs_req_cleanup(&req);
  return regular;
}

int package_find_artifact(const char *dir, const char *pattern, char *out_path,
                          size_t outlen, char *err, size_t errlen)
{
  char folder[PACKAGE_MAX_PATH];
  char first[1024] = "";
  char matched[512] = "", held[512] = "";
  size_t matched_len = 0, held_len = 0;
  const char *name_pattern = pattern;
  const char *slash;
  int nmatched = 0, nheld = 0;
  uv_fs_t req;
  uv_dirent_t ent;
  int rc;

  if (outlen > 0)
    out_path[0] = '\0';
  if (dir == NULL || *dir == '\0' || pattern == NULL || *pattern == '\0') {
    snprintf(err, errlen, "empty folder or artifact pattern");
    return UV_EINVAL;
  }
  slash = strchr(pattern, '/');
  if (slash != NULL) {
    size_t sublen = (size_t)(slash - pattern);
    name_pattern = slash + 1;
    if (strchr(name_pattern, '/') != NULL || sublen == 0 ||
        *name_pattern == '\0') {
      snprintf(err, errlen,
               "artifact pattern '%s' must be 'name' or 'folder/name'",
               pattern);
      return UV_EINVAL;
    }
    if (memchr(pattern, '*', sublen) != NULL ||
        memchr(pattern, '?', sublen) != NULL) {
      snprintf(err, errlen,
               "artifact pattern '%s' has wildcards in its folder part",
               pattern);
      return UV_EINVAL;
    }
    if ((size_t)snprintf(folder, sizeof(folder), "%s/%.*s", dir, (int)sublen,
                         pattern) >= sizeof(folder)) {
      snprintf(err, errlen, "folder path too long for '%s'", pattern);
      return UV_ENAMETOOLONG;
    }
  } else if ((size_t)snprintf(folder, sizeof(folder), "%s", dir) >=
             sizeof(folder)) {
    snprintf(err, errlen, "folder path too long for '%s'", pattern);
    return UV_ENAMETOOLONG;
  }

  rc = uv_fs_scandir(NULL, &req, folder, 0, NULL);
  if (rc < 0) {
    uv_fs_req_cleanup(&req);
    snprintf(err, errlen, "cannot read '%s' to find '%s': %s", folder, pattern,
             uv_strerror(rc));
    return rc;
  }
  while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    int dir_entry = ent.type == UV_DIRENT_DIR;
    if (nheld++ < PACKAGE_LISTED_NAMES)
      append(held, sizeof(held), &held_len, "%s%s%s", nheld > 1 ? ", " : "",
             ent.name, dir_entry ? "/" : "");
    if (!glob_match(name_pattern, ent.name) || !is_file(folder, &ent))
      continue;
    if (nmatched++ == 0 &&
        (size_t)snprintf(first, sizeof(first), "%s", ent.name) >= sizeof(first))
      first[0] = '\0'; /* reported below as a path that does not fit */
    if (nmatched <= PACKAGE_LISTED_NAMES)
      append(matched, sizeof(matched), &matched_len, "%s%s",
             nmatched > 1 ? ", " : "", ent.name);
  }
  uv_fs_req_cleanup(&req);
  if (nheld > PACKAGE_LISTED_NAMES)
    append(held, sizeof(held), &held_len, ", ... (%d entries)", nheld);
  if (nmatched > PACKAGE_LISTED_NAMES)
    append(matched, sizeof(matched), &matched_len, ", ...");

  if (nmatched == 0) {
    snprintf(err, errlen, "no file matches '%s' in '%s' (%s%s)", pattern,
             folder, nheld ? "it holds: " : "it is empty", held);
    return UV_ENOENT;
  }
  if (nmatched > 1) {
    snprintf(err, errlen, "%d files match '%s' in '%s', one expected: %s",
             nmatched, pattern, folder, matched);
    return UV_EEXIST;
  }
  if (first[0] == '\0' ||
      (size_t)snprintf(out_path, outlen, "%s/%s", folder, first) >= outlen) {
    if (outlen > 0)
      out_path[0] = '\0';
    snprintf(err, errlen, "path of '%s' in '%s' too long", first, folder);
    return UV_ENAMETOOLONG;
  }
  return 0;
}
