/* The server's files of beliefs: one file per viewer cache identity, in
 * one directory per server identity,
 *   <base>/<server-id-hex>/<cache-id-hex>.vgb
 * (directories created mode 0700, files 0600). Each file holds one image
 * of fingerprint/proto/vg_beliefs.h. Writes are atomic (a temporary file, fsync,
 * rename), so a crash leaves the old file or the new one, never a mix; a
 * file is at most max_file_bytes long; once a directory holds more than
 * max_viewers files, the least recently written are deleted.
 *
 * Thread-safety: a store holds no mutable state after open, so its calls
 * may come from several threads at once; two writes of one identity race
 * harmlessly (the last rename wins).
 */
#ifndef VG_BELIEFSTORE_H
#define VG_BELIEFSTORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vg_beliefstore vg_beliefstore;

typedef struct {
	const char *base_dir;     /* NULL: vg_beliefstore_default_base_dir() */
	unsigned max_viewers;     /* files kept per server; 0: 64 */
	size_t max_file_bytes;    /* 0: 16 MiB; at least 4 KiB */
} vg_beliefstore_config;

/* Opens (creating) the directory of server_id's beliefs. *out is freed
 * with vg_beliefstore_free(). VG_EINVAL for a bad configuration, VG_EIO
 * if the directory cannot be created. */
int vg_beliefstore_open(const vg_beliefstore_config *cfg, const uint8_t server_id[16],
			vg_beliefstore **out);

/* Frees st; accepts NULL. Files stay. */
void vg_beliefstore_free(vg_beliefstore *st);

/* The directory of this server's files (valid while st lives). */
const char *vg_beliefstore_dir(const vg_beliefstore *st);

/* The bound on one file's size. */
size_t vg_beliefstore_max_file_bytes(const vg_beliefstore *st);

/* Reads cache_id's file into *data (free with g_free), *len bytes.
 * VG_ENOENT when there is none, VG_ERANGE when it is larger than the
 * bound (not read), VG_EIO when it cannot be read. */
int vg_beliefstore_read(const vg_beliefstore *st, const uint8_t cache_id[16], uint8_t **data,
			size_t *len);

/* Replaces cache_id's file by data[0..len) atomically, then deletes the
 * least recently written files beyond max_viewers. VG_ERANGE when len is
 * larger than the bound, VG_EIO when a write fails (the old file stays). */
int vg_beliefstore_write(const vg_beliefstore *st, const uint8_t cache_id[16],
			 const uint8_t *data, size_t len);

/* Deletes cache_id's file, if any. */
void vg_beliefstore_remove(const vg_beliefstore *st, const uint8_t cache_id[16]);

/* $XDG_STATE_HOME/varg/beliefs (g_get_user_state_dir()). Free with g_free. */
char *vg_beliefstore_default_base_dir(void);

#endif
