/* vg_serverkey: the server's identity, a random key kept in its state
 * directory, like an SSH host key.
 *
 * Viewers file this server's segments under the identity, and the server
 * files its beliefs about their caches under it too, so it must stay the
 * same across restarts and ports, and differ between installations. It
 * is not secret (every viewer receives it in the HELLO).
 *
 * Two servers running at once from one state directory must not share an
 * identity (their beliefs and histories about one viewer cache would
 * overwrite each other): the key files are slots, server-key,
 * server-key-2 ... server-key-16, each locked (flock) by the server that
 * uses it for as long as it runs. A server takes the first free slot, so a
 * server restarted alone gets its old identity back.
 */
#ifndef VG_SERVERKEY_H
#define VG_SERVERKEY_H

#include <stddef.h>
#include <stdint.h>

typedef struct vg_serverkey vg_serverkey;

#define VG_SERVERKEY_SLOTS 16

/* Takes the first free slot in dir (created mode 0700 if missing), making
 * a key there (mode 0600) if it has none; a key file that is damaged is
 * replaced by a new key and *replaced set to 1 (viewers start cold once).
 * id gets the identity. Errors: VG_EIO (the directory or a file cannot be
 * made or read), VG_EBUSY (every slot is taken). Free with
 * vg_serverkey_free, which releases the slot. */
int vg_serverkey_open(const char *dir, uint8_t id[16], int *replaced, vg_serverkey **out);

/* The key file in use (valid while k lives). */
const char *vg_serverkey_path(const vg_serverkey *k);

void vg_serverkey_free(vg_serverkey *k);

#endif
