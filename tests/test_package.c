/* runner/package: measuring archives written here with libarchive (tar.gz,
 * zip, jar), the bounds and the errors, finding an artifact in a folder,
 * and agreement with what `npm pack` says of the Node lane's package.
 * Everything is made in one fresh temporary folder, removed at the end and
 * when the program is interrupted. */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <json-c/json.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "runner/package.h"
#include "tests/tap.h"

#define PATH_CAP 4096
#define OUTPUT_LIMIT (1 << 20) /* bytes of a child's stdout kept */
#define STDERR_LIMIT 4096

static char tmp_root[PATH_CAP];
static volatile int running_pid; /* a child to kill when interrupted */

/* ---- files and folders ------------------------------------------------ */

/* dir + "/" + name into out (PATH_CAP bytes). */
static char *join(char *out, const char *dir, const char *name)
{
  if ((size_t)snprintf(out, PATH_CAP, "%s/%s", dir, name) >= PATH_CAP)
    TAP_OK(0, "path fits: %s/%s", dir, name);
  return out;
}

static void in_tmp(char *out, const char *name)
{
  join(out, tmp_root, name);
}

static int make_dir(const char *path)
{
  uv_fs_t req;
  int rc = uv_fs_mkdir(NULL, &req, path, 0700, NULL);
  uv_fs_req_cleanup(&req);
  return rc;
}

static int write_file(const char *path, const void *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  int ok;
  if (f == NULL)
    return -1;
  ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static int64_t file_size(const char *path)
{
  uv_fs_t req;
  int64_t size = -1;
  if (uv_fs_stat(NULL, &req, path, NULL) == 0)
    size = (int64_t)req.statbuf.st_size;
  uv_fs_req_cleanup(&req);
  return size;
}

/* Reads a whole small file; the caller frees. */
static unsigned char *read_file(const char *path, size_t *len)
{
  int64_t size = file_size(path);
  unsigned char *data;
  FILE *f;

  if (size < 0 || size > 64 * 1024 * 1024)
    return NULL;
  data = malloc((size_t)size + 1);
  f = fopen(path, "rb");
  if (data == NULL || f == NULL ||
      fread(data, 1, (size_t)size, f) != (size_t)size) {
    free(data);
    data = NULL;
  }
  if (f != NULL)
    fclose(f);
  *len = (size_t)size;
  return data;
}

static int remove_tree(const char *path, int depth)
{
  uv_fs_t req;
  uv_dirent_t ent;
  int rc;

  if (depth > 32)
    return UV_ELOOP;
  rc = uv_fs_scandir(NULL, &req, path, 0, NULL);
  if (rc < 0) {
    uv_fs_req_cleanup(&req);
    return rc;
  }
  while (rc >= 0 && uv_fs_scandir_next(&req, &ent) != UV_EOF) {
    char child[PATH_CAP];
    uv_fs_t op;
    if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, ent.name) >=
        sizeof(child)) {
      rc = UV_ENAMETOOLONG;
      break;
    }
    if (ent.type == UV_DIRENT_DIR) {
      rc = remove_tree(child, depth + 1);
      continue;
    }
    rc = uv_fs_unlink(NULL, &op, child, NULL);
    uv_fs_req_cleanup(&op);
  }
  uv_fs_req_cleanup(&req);
  if (rc >= 0) {
    uv_fs_t op;
    rc = uv_fs_rmdir(NULL, &op, path, NULL);
    uv_fs_req_cleanup(&op);
  }
  return rc < 0 ? rc : 0;
}

/* Best effort: the removal is not async-signal-safe, but the program ends
 * right after it either way. */
static void on_fatal_signal(int sig)
{
  if (running_pid > 0)
    uv_kill(running_pid, SIGKILL);
  if (tmp_root[0] != '\0')
    remove_tree(tmp_root, 0);
  signal(sig, SIG_DFL);
  raise(sig);
}

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
  char name[PATH_CAP + 16];
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
  return write_file(path, h, sizeof(h));
}

/* ---- children ---------------------------------------------------------- */

struct child_run {
  uv_loop_t loop;
  uv_process_t proc;
  uv_pipe_t out, err;
  uv_timer_t timer;
  char *stdout_buf; /* OUTPUT_LIMIT + 1 bytes, NUL-terminated */
  size_t stdout_len;
  char stderr_buf[STDERR_LIMIT + 1];
  size_t stderr_len;
  int truncated;
  int exited;
  int64_t exit_status;
  int term_signal;
  int timed_out;
};

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  static char scratch[65536];
  buf->base = scratch;
  buf->len = sizeof(scratch);
}

static void keep(char *dst, size_t cap, size_t *len, const char *src, size_t n,
                 int *truncated)
{
  size_t room = cap - *len;
  if (n > room) {
    n = room;
    *truncated = 1;
  }
  memcpy(dst + *len, src, n);
  *len += n;
  dst[*len] = '\0';
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  struct child_run *r = s->data;
  if (n < 0) {
    uv_close((uv_handle_t *)s, NULL);
    return;
  }
  if ((uv_pipe_t *)s == &r->out)
    keep(r->stdout_buf, OUTPUT_LIMIT, &r->stdout_len, buf->base, (size_t)n,
         &r->truncated);
  else
    keep(r->stderr_buf, STDERR_LIMIT, &r->stderr_len, buf->base, (size_t)n,
         &r->truncated);
}

static void on_child_exit(uv_process_t *p, int64_t status, int sig)
{
  struct child_run *r = p->data;
  r->exited = 1;
  r->exit_status = status;
  r->term_signal = sig;
  running_pid = 0;
  uv_close((uv_handle_t *)p, NULL);
  uv_close((uv_handle_t *)&r->timer, NULL);
}

static void on_timeout(uv_timer_t *t)
{
  struct child_run *r = t->data;
  r->timed_out = 1;
  uv_process_kill(&r->proc, SIGKILL);
}

/* Runs argv (looked up in PATH) in cwd with env (NULL: this program's),
 * keeping its output, for at most timeout_s. Returns 0 when it ran (see
 * r->exited, exit_status, timed_out), or the libuv error of the spawn
 * (UV_ENOENT when the program is not installed). r->stdout_buf is freed
 * by run_release(). */
static int run_program(struct child_run *r, const char *const *argv,
                       const char *cwd, char **env, double timeout_s)
{
  uv_process_options_t opts;
  uv_stdio_container_t stdio[3];
  int rc;

  memset(r, 0, sizeof(*r));
  r->stdout_buf = malloc(OUTPUT_LIMIT + 1);
  if (r->stdout_buf == NULL)
    return UV_ENOMEM;
  r->stdout_buf[0] = '\0';
  uv_loop_init(&r->loop);
  uv_pipe_init(&r->loop, &r->out, 0);
  uv_pipe_init(&r->loop, &r->err, 0);
  uv_timer_init(&r->loop, &r->timer);
  r->out.data = r->err.data = r->timer.data = r->proc.data = r;

  memset(&opts, 0, sizeof(opts));
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
  stdio[1].data.stream = (uv_stream_t *)&r->out;
  stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
  stdio[2].data.stream = (uv_stream_t *)&r->err;
  opts.file = argv[0];
  opts.args = (char **)argv;
  opts.cwd = cwd;
  opts.env = env;
  opts.stdio = stdio;
  opts.stdio_count = 3;
  opts.exit_cb = on_child_exit;

  rc = uv_spawn(&r->loop, &r->proc, &opts);
  if (rc < 0) {
    uv_close((uv_handle_t *)&r->proc, NULL);
    uv_close((uv_handle_t *)&r->out, NULL);
    uv_close((uv_handle_t *)&r->err, NULL);
    uv_close((uv_handle_t *)&r->timer, NULL);
  } else {
    running_pid = r->proc.pid;
    uv_read_start((uv_stream_t *)&r->out, on_alloc, on_read);
    uv_read_start((uv_stream_t *)&r->err, on_alloc, on_read);
    uv_timer_start(&r->timer, on_timeout, (uint64_t)(timeout_s * 1000), 0);
  }
  uv_run(&r->loop, UV_RUN_DEFAULT);
  uv_loop_close(&r->loop);
  return rc;
}

static void run_release(struct child_run *r)
{
  free(r->stdout_buf);
  r->stdout_buf = NULL;
}

static int run_succeeded(const struct child_run *r)
{
  return r->exited && !r->timed_out && r->exit_status == 0 &&
         r->term_signal == 0;
}

static void run_explain(const struct child_run *r, const char *what)
{
  tap_diag("%s: %s, exit status %lld, signal %d%s; stderr: %s", what,
           r->timed_out ? "timed out" : "ended", (long long)r->exit_status,
           r->term_signal, r->truncated ? ", output cut" : "", r->stderr_buf);
}

/* ---- independent digests ----------------------------------------------- */

/* SHA-256 by sha256sum (or shasum -a 256). Returns 1 with hex filled, 0
 * when neither tool is installed, -1 when one failed. */
static int tool_sha256(const char *path, char hex[65])
{
  const char *sha256sum[] = {"sha256sum", path, NULL};
  const char *shasum[] = {"shasum", "-a", "256", path, NULL};
  struct child_run r;
  int rc = run_program(&r, sha256sum, NULL, NULL, tap_timeout_s(20));

  if (rc == UV_ENOENT) {
    run_release(&r);
    rc = run_program(&r, shasum, NULL, NULL, tap_timeout_s(20));
  }
  if (rc == UV_ENOENT) {
    run_release(&r);
    return 0;
  }
  if (rc < 0 || !run_succeeded(&r) || r.stdout_len < 64) {
    run_explain(&r, "sha256sum");
    run_release(&r);
    return -1;
  }
  memcpy(hex, r.stdout_buf, 64);
  hex[64] = '\0';
  run_release(&r);
  return 1;
}

/* npm's "integrity": "sha512-" and the base64 of the file's SHA-512. */
static int sri_sha512(const char *path, char *out, size_t outlen)
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  unsigned char b64[256];
  size_t len;
  unsigned char *data = read_file(path, &len);
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

/* ---- tests -------------------------------------------------------------- */

static const struct package_entry *find_entry(const struct package_info *p,
                                              const char *path)
{
  for (int i = 0; i < p->nentries; i++)
    if (strcmp(p->entries[i].path, path) == 0)
      return &p->entries[i];
  return NULL;
}

/* Checks a measured archive against the files its items hold. */
static void check_measure(const char *label, const char *path,
                          const struct item *items, size_t n,
                          const char *format_part)
{
  struct package_info p = PACKAGE_INFO_INIT;
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
  TAP_OK(p.packed_bytes == file_size(path) && p.packed_bytes > 0,
         "%s: packed_bytes is the file's size (%lld)", label,
         (long long)p.packed_bytes);
  TAP_OK(p.unpacked_bytes == unpacked, "%s: unpacked_bytes %lld == %lld", label,
         (long long)p.unpacked_bytes, (long long)unpacked);
  TAP_OK(p.file_count == files && p.nentries == files,
         "%s: %d regular files counted (got %d), no directory or link", label,
         files, p.file_count);
  TAP_OK(in_order, "%s: entries name each file and its size, in order", label);
  TAP_OK(strcmp(p.file_name, strrchr(path, '/') + 1) == 0,
         "%s: file_name is the base name (%s)", label, p.file_name);
  TAP_OK(strstr(p.format, format_part) != NULL, "%s: format '%s' has '%s'",
         label, p.format, format_part);
  rc = tool_sha256(path, hex);
  if (rc == 0)
    TAP_OK(1, "# SKIP neither sha256sum nor shasum installed");
  else
    TAP_OK(rc == 1 && strcmp(hex, p.sha256) == 0,
           "%s: sha256 %s agrees with sha256sum", label, p.sha256);
  package_info_release(&p);
  TAP_OK(p.entries == NULL && p.nentries == 0, "%s: release empties the info",
         label);
  package_info_release(&p);
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
  char path[PATH_CAP];

  in_tmp(path, "known.tar.gz");
  if (TAP_OK(write_archive(path, KIND_TGZ, tgz, 5) == 0, "wrote %s", path))
    check_measure("tar.gz", path, tgz, 5, "gzip");
  in_tmp(path, "known.zip");
  if (TAP_OK(write_archive(path, KIND_ZIP, zip, 5) == 0, "wrote %s", path))
    check_measure("zip", path, zip, 5, "ZIP");
  in_tmp(path, "known.jar");
  if (TAP_OK(write_archive(path, KIND_ZIP, jar, 6) == 0, "wrote %s", path))
    check_measure("jar", path, jar, 6, "ZIP");
  in_tmp(path, "unknown-sizes.zip");
  if (TAP_OK(write_archive(path, KIND_ZIP_UNKNOWN_SIZES, zip, 5) == 0,
             "wrote %s (sizes after the data)", path))
    check_measure("zip with data descriptors", path, zip, 5, "ZIP");
}

/* Measures what must fail; the message must name the file. */
static void expect_failure(const char *label, const char *path, int want_rc,
                           const char *want_text)
{
  struct package_info p = PACKAGE_INFO_INIT;
  char err[512] = "";
  size_t plen = strlen(path);
  int rc = package_measure(path, &p, err, sizeof(err));

  TAP_OK(rc < 0 && (want_rc == 0 || rc == want_rc) &&
             strncmp(err, path, plen) == 0 &&
             strncmp(err + plen, ": ", 2) == 0 && strchr(err, '\n') == NULL &&
             (want_text == NULL || strstr(err, want_text) != NULL) &&
             p.entries == NULL && p.nentries == 0,
         "%s fails (%d): %s", label, rc, err);
  package_info_release(&p);
}

static void test_errors(void)
{
  static const struct item tgz[] = {
      {"a.bin", ITEM_FILE, 30000, NULL},
      {"b.bin", ITEM_FILE, 30000, NULL},
  };
  char path[PATH_CAP], cut[PATH_CAP];
  unsigned char noise[4096];
  unsigned char *data, *padded;
  unsigned seed = 12345;
  size_t len;

  in_tmp(path, "whole.tgz");
  in_tmp(cut, "truncated.tgz");
  data =
      write_archive(path, KIND_TGZ, tgz, 2) == 0 ? read_file(path, &len) : NULL;
  if (TAP_OK(data != NULL && write_file(cut, data, len / 2) == 0,
             "wrote a .tgz cut in half"))
    expect_failure("a truncated .tgz", cut, UV_EINVAL, NULL);
  free(data);

  /* libarchive would read these as a stream of local entries; no zip or
   * jar tool opens them. */
  in_tmp(path, "known.zip");
  data = read_file(path, &len);
  padded = data != NULL ? malloc(len + 100000) : NULL;
  in_tmp(cut, "no-end.zip");
  if (TAP_OK(data != NULL && write_file(cut, data, len - 30) == 0,
             "wrote a .zip without its end"))
    expect_failure("a .zip without its end", cut, UV_EINVAL,
                   "central directory");
  in_tmp(cut, "half.zip");
  if (TAP_OK(data != NULL && write_file(cut, data, len / 2) == 0,
             "wrote a .zip cut in half"))
    expect_failure("a .zip cut in half", cut, UV_EINVAL, NULL);
  in_tmp(cut, "trailing.zip");
  if (padded != NULL) {
    memcpy(padded, data, len);
    memset(padded + len, 'J', 100000);
  }
  if (TAP_OK(padded != NULL && write_file(cut, padded, len + 100000) == 0,
             "wrote a .zip followed by 100000 bytes"))
    expect_failure("a .zip whose directory readers cannot find", cut, UV_EINVAL,
                   "central directory");
  free(data);
  free(padded);

  for (size_t i = 0; i < sizeof(noise); i++) {
    seed = seed * 1103515245u + 12345u;
    noise[i] = (unsigned char)(seed >> 16);
  }
  in_tmp(path, "noise.tgz");
  write_file(path, noise, sizeof(noise));
  expect_failure("random bytes", path, UV_EINVAL, NULL);
  in_tmp(path, "text.tgz");
  write_file(path, "just some text\n", 15);
  expect_failure("a text file", path, UV_EINVAL, NULL);
  in_tmp(path, "missing.tgz");
  expect_failure("a missing file", path, UV_ENOENT, "cannot open");
  in_tmp(path, "empty.tgz");
  write_file(path, "", 0);
  expect_failure("an empty file", path, UV_EINVAL, "empty file");
  in_tmp(path, "a-folder.tgz");
  make_dir(path);
  expect_failure("a folder", path, UV_EINVAL, "not a regular file");
}

static void test_bounds(void)
{
  struct package_info p = PACKAGE_INFO_INIT;
  char path[PATH_CAP], err[512] = "";
  int rc;

  in_tmp(path, "max-entries.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_ENTRIES, 0) == 0, "wrote %d entries",
             PACKAGE_MAX_ENTRIES)) {
    rc = package_measure(path, &p, err, sizeof(err));
    TAP_OK(rc == 0 && p.file_count == PACKAGE_MAX_ENTRIES &&
               p.unpacked_bytes == 0 &&
               strcmp(p.entries[PACKAGE_MAX_ENTRIES - 1].path, "f099999") == 0,
           "%d entries are allowed %s", PACKAGE_MAX_ENTRIES, rc ? err : "");
    package_info_release(&p);
  }
  in_tmp(path, "too-many-entries.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_ENTRIES + 1, 0) == 0,
             "wrote %d entries", PACKAGE_MAX_ENTRIES + 1))
    expect_failure("one entry too many", path, UV_EFBIG,
                   "archive has more than 100000 entries");

  in_tmp(path, "path-4096.tgz");
  if (TAP_OK(write_many(path, 1, PACKAGE_MAX_PATH) == 0,
             "wrote a path of %d bytes", PACKAGE_MAX_PATH)) {
    rc = package_measure(path, &p, err, sizeof(err));
    TAP_OK(rc == 0 && p.file_count == 1 &&
               strlen(p.entries[0].path) == PACKAGE_MAX_PATH,
           "a path of %d bytes is allowed %s", PACKAGE_MAX_PATH, rc ? err : "");
    package_info_release(&p);
  }
  in_tmp(path, "path-4097.tgz");
  if (TAP_OK(write_many(path, 1, PACKAGE_MAX_PATH + 1) == 0,
             "wrote a path of %d bytes", PACKAGE_MAX_PATH + 1))
    expect_failure("a path over the bound", path, UV_ENAMETOOLONG,
                   "4097 bytes");

  in_tmp(path, "long-paths.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH,
                        4095) == 0,
             "wrote %d paths of 4095 bytes",
             PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH)) {
    rc = package_measure(path, &p, err, sizeof(err));
    TAP_OK(rc == 0 && p.file_count == PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH,
           "%d bytes of paths are allowed %s", PACKAGE_MAX_PATH_BYTES,
           rc ? err : "");
    package_info_release(&p);
  }
  in_tmp(path, "too-long-paths.tgz");
  if (TAP_OK(write_many(path, PACKAGE_MAX_PATH_BYTES / PACKAGE_MAX_PATH + 1,
                        4095) == 0,
             "wrote one more"))
    expect_failure("more bytes of paths than the bound", path, UV_EFBIG,
                   "paths take more than");

  in_tmp(path, "huge.tar");
  if (TAP_OK(write_tar_claiming(path, 5ULL << 30) == 0,
             "wrote a tar header claiming 5 GiB"))
    expect_failure("5 GiB of files", path, UV_EFBIG,
                   "archive has more than 4294967296 bytes");
  in_tmp(path, "short.tar");
  if (TAP_OK(write_tar_claiming(path, 100000) == 0,
             "wrote a tar header claiming more than the file holds"))
    expect_failure("a tar shorter than its header says", path, UV_EINVAL, NULL);
}

static void test_find(void)
{
  char dir[PATH_CAP], sub[PATH_CAP], path[PATH_CAP], want[PATH_CAP];
  char out[PATH_CAP], err[512];
  int rc;

  in_tmp(dir, "find");
  make_dir(dir);
  join(path, dir, "lane-1.0.0.tgz");
  write_file(path, "x", 1);
  join(path, dir, "notes.txt");
  write_file(path, "x", 1);
  join(path, dir, "folder.tgz");
  make_dir(path); /* matches the pattern but is not a file */
  join(sub, dir, "package");
  make_dir(sub);
  join(path, sub, "lane-0.1.0.crate");
  write_file(path, "x", 1);
  join(path, dir, "two");
  make_dir(path);
  join(path, dir, "two/a-1.tgz");
  write_file(path, "x", 1);
  join(path, dir, "two/a-2.tgz");
  write_file(path, "x", 1);

  join(want, dir, "lane-1.0.0.tgz");
  rc = package_find_artifact(dir, "*.tgz", out, sizeof(out), err, sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0,
         "find: one file matches '*.tgz', a folder that matches does not "
         "count (%s)",
         rc ? err : out);
  rc = package_find_artifact(dir, "lane-?.?.?.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0, "find: '?' matches one byte");
  rc = package_find_artifact(dir, "lane-1.0.0.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0, "find: a literal name");
  rc = package_find_artifact(dir, "*.zip", out, sizeof(out), err, sizeof(err));
  TAP_OK(rc == UV_ENOENT && strstr(err, "'*.zip'") &&
             strstr(err, "lane-1.0.0.tgz") && strstr(err, "package/") &&
             out[0] == '\0',
         "find: no match is an error listing the folder: %s", err);
  rc = package_find_artifact(dir, "lane-?.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_ENOENT, "find: '?' does not match several bytes");
  join(path, dir, "two");
  rc = package_find_artifact(path, "a-*.tgz", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_EEXIST && strstr(err, "'a-*.tgz'") &&
             strstr(err, "a-1.tgz") && strstr(err, "a-2.tgz") &&
             strstr(err, "2 files"),
         "find: two matches are an error naming both: %s", err);
  join(want, sub, "lane-0.1.0.crate");
  rc = package_find_artifact(dir, "package/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strcmp(out, want) == 0, "find: in a subfolder (%s)",
         rc ? err : out);
  rc =
      package_find_artifact(dir, "*.crate", out, sizeof(out), err, sizeof(err));
  TAP_OK(rc == UV_ENOENT, "find: the subfolder is not searched by default");
  rc = package_find_artifact(dir, "nowhere/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_ENOENT && strstr(err, "nowhere"),
         "find: a missing subfolder is an error: %s", err);
  rc = package_find_artifact(dir, "a/b/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_EINVAL, "find: two '/' are refused: %s", err);
  rc = package_find_artifact(dir, "pack*/*.crate", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == UV_EINVAL, "find: wildcards in the folder are refused: %s", err);
  rc = package_find_artifact(dir, "", out, sizeof(out), err, sizeof(err));
  TAP_OK(rc == UV_EINVAL, "find: an empty pattern is refused");
  rc = package_find_artifact(dir, "*.tgz", out, 8, err, sizeof(err));
  TAP_OK(rc == UV_ENAMETOOLONG && out[0] == '\0',
         "find: a result that does not fit is an error: %s", err);
  rc = package_find_artifact(dir, "*l*n*-*1*.*", out, sizeof(out), err,
                             sizeof(err));
  TAP_OK(rc == 0 && strstr(out, "lane-1.0.0.tgz"),
         "find: several '*' backtrack");
}

/* ---- npm ----------------------------------------------------------------- */

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
  int rc = run_program(&r, argv, lane_dir, env, tap_timeout_s(120));

  *missing = rc == UV_ENOENT;
  if (rc == 0 && run_succeeded(&r) && !r.truncated) {
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
    run_explain(&r, "npm pack");
  }
  run_release(&r);
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
static void compare_with_npm(const char *label, const struct package_info *p,
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
    const struct package_entry *e = NULL;
    char path[PATH_CAP];
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
                     struct package_info *p, json_object **report, int *missing)
{
  char dest[PATH_CAP], found[PATH_CAP], err[512];
  const char *argv[] = {"npm", "pack", "--json", "--pack-destination",
                        dest,  NULL};
  json_object *first, *v;
  int rc;

  in_tmp(dest, dest_name);
  make_dir(dest);
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
  struct package_info first = PACKAGE_INFO_INIT, second = PACKAGE_INFO_INIT;
  json_object *report1 = NULL, *report2 = NULL, *dry = NULL;
  char lane_dir[PATH_CAP], manifest[PATH_CAP], cache[PATH_CAP];
  char sri[512];
  char **env;
  int missing = 0;

  if (root == NULL || *root == '\0')
    root = ".";
  join(lane_dir, root, "lanes/node");
  join(manifest, lane_dir, "package.json");
  if (file_size(manifest) < 0) {
    TAP_OK(1, "# SKIP %s not found (set CROSSRUN_ROOT)", manifest);
    return;
  }
  in_tmp(cache, "npm-cache");
  env = npm_env(cache);
  if (!TAP_OK(env != NULL, "npm's environment"))
    return;
  if (pack_once(lane_dir, env, "pack-1", &first, &report1, &missing) == 0) {
    json_object *pack = json_object_array_get_idx(report1, 0), *v;
    compare_with_npm("npm pack", &first, pack);
    {
      char tarball[PATH_CAP];
      char folder[PATH_CAP];
      join(tarball, join(folder, tmp_root, "pack-1"), first.file_name);
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
  package_info_release(&first);
  package_info_release(&second);
  json_object_put(report1);
  json_object_put(report2);
  json_object_put(dry);
  free_env(env);
}

int main(void)
{
  char base[PATH_CAP - 64];
  size_t len = sizeof(base);
  uv_fs_t req;
  int rc;

  signal(SIGINT, on_fatal_signal);
  signal(SIGTERM, on_fatal_signal);
#ifdef SIGHUP
  signal(SIGHUP, on_fatal_signal);
#endif
  /* uv_os_tmpdir: $TMPDIR (or TMP, TEMP), else /tmp. */
  if (uv_os_tmpdir(base, &len) != 0)
    snprintf(base, sizeof(base), "/tmp");
  join(tmp_root, base, "crossrun-test-XXXXXX");
  rc = uv_fs_mkdtemp(NULL, &req, tmp_root, NULL);
  if (rc == 0)
    snprintf(tmp_root, sizeof(tmp_root), "%s", req.path);
  uv_fs_req_cleanup(&req);
  if (!TAP_OK(rc == 0, "temporary folder %s", tmp_root)) {
    tmp_root[0] = '\0';
    return tap_done();
  }

  test_archives();
  test_errors();
  test_bounds();
  test_find();
  test_npm();

  rc = remove_tree(tmp_root, 0);
  TAP_OK(rc == 0 && file_size(tmp_root) < 0, "temporary folder removed %s",
         rc ? uv_strerror(rc) : "");
  tmp_root[0] = '\0';
  return tap_done();
}
