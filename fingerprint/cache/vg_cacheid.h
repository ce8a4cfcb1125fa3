/* The viewer's cache identity: 16 random bytes that name one persistent
 * segment cache to the server, so that the server can remember, across
 * sessions, what that cache holds.
 *
 * The identity lives in the cache's namespace directory (one per server
 * identity), so one user's caches carry unrelated identities on different
 * servers and no server can link them. It is created with the namespace
 * and created anew whenever the cache is emptied or found damaged, so a
 * server never goes on believing in segments the cache has lost. A viewer
 * without a persistent cache uses a fresh random identity per connection.
 */
#ifndef VG_CACHEID_H
#define VG_CACHEID_H

#include <stdbool.h>
#include <stdint.h>

#define VG_CACHEID_BYTES 16

/* Name of the identity file inside a namespace directory. */
#define VG_CACHEID_FILE "identity"

/* Fills id with bytes from the kernel's random source. VG_EIO if it
 * cannot be read. */
int vg_cacheid_random(uint8_t id[VG_CACHEID_BYTES]);

/* Reads dir's identity into id. When the file is missing or damaged, or
 * renew is set, writes a new random one first (atomically, mode 0600);
 * *created (may be NULL) tells whether it did. VG_EIO when no identity
 * can be read or written (id is then untouched). */
int vg_cacheid_load(const char *dir, bool renew, uint8_t id[VG_CACHEID_BYTES], bool *created);

/* True for the all-zero identity ("none": the server keeps nothing). */
bool vg_cacheid_is_none(const uint8_t id[VG_CACHEID_BYTES]);

#endif
