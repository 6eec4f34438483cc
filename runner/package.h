/* A runtime's package artifact (npm's .tgz, cargo's .crate, a .tar.gz,
 * a .zip or a .jar): its size packed and unpacked, its regular files and
 * the SHA-256 of the file itself, read with libarchive and OpenSSL. Also
 * finding the one artifact a packaging step left in a folder. */
#ifndef CROSSRUN_RUNNER_PACKAGE_H
#define CROSSRUN_RUNNER_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/model/model.h"

/* Bounds on what one artifact may hold; past them measuring fails. */
#define PACKAGE_MAX_ENTRIES 100000                    /* entries of any type */
#define PACKAGE_MAX_UNPACKED_BYTES (INT64_C(1) << 32) /* 4 GiB of files */
#define PACKAGE_MAX_PATH 4096                         /* bytes of one path */
#define PACKAGE_MAX_PATH_BYTES (64 << 20) /* bytes of all kept paths */

/* Measures the artifact at artifact_path (UTF-8). Only regular files are
 * counted and listed (a hard link counts as one, with the size its header
 * gives); directories, symbolic links and other entries are not. A file
 * whose size its header does not give (a zip entry followed by a data
 * descriptor) is read to learn it; other entries' data is skipped, so
 * damage inside one zip entry's compressed data is not noticed (a
 * compressed tar is decompressed whole and its checksum checked). A zip
 * must end with its central directory, as zip and jar tools require.
 *
 * On success fills *out, which the caller releases with
 * model_package_info_release(), and returns 0. On failure returns a negative
 * libuv error code, leaves *out empty (nothing to release) and writes one
 * line "<artifact_path>: <problem>" into err:
 *   - the error opening, reading or hashing the file; UV_EINVAL when it is
 *     not a regular file, is empty, or libarchive cannot read it (corrupt,
 *     truncated, not an archive of a package format: libarchive's message
 *     is quoted; text that libarchive would read as an mtree listing is
 *     not an archive);
 *   - UV_ENAMETOOLONG when an entry's path is longer than PACKAGE_MAX_PATH
 *     bytes, UV_EINVAL when an entry has no path;
 *   - UV_EFBIG when the archive has more than PACKAGE_MAX_ENTRIES entries,
 *     its files more than PACKAGE_MAX_UNPACKED_BYTES, or their paths more
 *     than PACKAGE_MAX_PATH_BYTES together (what the entries would hold);
 *   - UV_ENOMEM. */
int package_measure(const char *artifact_path, struct model_package_info *out,
                    char *err, size_t errlen);

/* Finds the one regular file (or link to one) in dir whose name matches
 * pattern, a glob where '*' matches any run of characters and '?' any one
 * byte (no classes, no escapes; a leading '.' is not special). The pattern
 * may name one subfolder of dir first, literally: "package/lane-?*.crate"
 * looks in dir/package. Folders are not searched recursively.
 *
 * Writes "<dir>/<match>" (with the subfolder, if any) into out_path and
 * returns 0. Returns a negative libuv error with a message in err when
 * the folder cannot be read (its error), when the pattern is empty, has
 * more than one '/' or wildcards in its folder part (UV_EINVAL), when no
 * file or more than one matches (UV_ENOENT, UV_EEXIST: the message quotes
 * the pattern and lists what the folder holds or what matched), or when
 * the path does not fit outlen bytes (UV_ENAMETOOLONG). */
int package_find_artifact(const char *dir, const char *pattern, char *out_path,
                          size_t outlen, char *err, size_t errlen);

#endif
