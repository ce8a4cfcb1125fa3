/* Files and paths, the few operations the receiver path needs beyond the
 * C library (what it took from GLib before, with GLib's results, so that
 * the same names and files come out).
 *
 * Strings returned are the caller's, to free with free().
 */
#ifndef VG_FILE_H
#define VG_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Joins the strings up to a NULL one into a path with single '/' between
 * elements, as GLib's g_build_filename(): empty elements are skipped,
 * separators where two elements meet collapse to one, the first element
 * keeps its leading separators and the last its trailing ones. */
char *vg_file_path(const char *first, ...) __attribute__((sentinel));

/* Reads all of path into *data (NUL-terminated beyond *len bytes, free
 * with free()). 0, or VG_EIO with errno set and *data untouched. */
int vg_file_read(const char *path, char **data, size_t *len);

/* True when path names something that exists (symbolic links followed). */
bool vg_file_exists(const char *path);

/* Creates the directory path and its missing parents with mode. 0 (also
 * when it exists already), or VG_EIO with errno set (ENOTDIR when a part
 * exists and is not a directory). */
int vg_file_mkdirs(const char *path, unsigned mode);

/* Creates a new file from tmpl, whose last six characters "XXXXXX" it
 * replaces, readable and writable by the user only, closed on exec. The
 * descriptor, or -1 with errno set, as open(). */
int vg_file_temp(char *tmpl);

/* The user's cache directory: $XDG_CACHE_HOME when set and not empty,
 * else $HOME/.cache, else the password entry's home/.cache, else
 * /tmp/.cache. */
char *vg_file_user_cache_dir(void);

#endif
