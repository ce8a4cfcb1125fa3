/* Which Varg server answered at which address, as the viewer last saw it:
 * a small GLib key file, `servers`, in the viewer's cache directory
 * (doc/cache-format.md). Before the HELLO a viewer cannot know whose
 * screen it is about to see; the book tells it whether its cache holds
 * anything of a server on the host it dials. If not, the viewer announces
 * its capabilities ahead of the HELLO and the server codes the first
 * update at once, a round trip sooner (doc/protocol.md). By host, not
 * address: a server restarted on another port is the same server, and a
 * viewer that waits for a new server's HELLO loses only that round trip,
 * where one that announces to a known server loses its warm first update. */
#ifndef VG_SERVERBOOK_H
#define VG_SERVERBOOK_H

#include <stdbool.h>
#include <stdint.h>

/* True when the book names a server on host (as dialled) whose cache
 * namespace exists under cache_dir. A missing or unreadable book knows
 * nothing. */
bool vg_serverbook_knows_host(const char *cache_dir, const char *host);

/* Notes that the server with identity id answered at host and port. The
 * book keeps the VG_SERVERBOOK_MAX addresses noted last. VG_EINVAL for an
 * empty host, VG_EIO when the file cannot be written. */
#define VG_SERVERBOOK_MAX 256
int vg_serverbook_note(const char *cache_dir, const char *host, int port, const uint8_t id[16]);

#endif
