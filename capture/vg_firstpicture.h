/* Whether a VNC server has sent its first picture, and when to ask again.
 *
 * LibVNCServer answers a full request from a client that takes
 * ExtDesktopSize with the size alone, and sends the pixels on the next
 * request, which LibVNCClient makes at once. x11vnc under load has been
 * seen to send a new client nothing more until its screen changed, which
 * left the client black. A full request after a silence mends that; the
 * silence is long enough that only a link slower than any in use here
 * would bring the picture twice.
 */
#ifndef VG_FIRSTPICTURE_H
#define VG_FIRSTPICTURE_H

#include <stdbool.h>
#include <stdint.h>

#define VG_FIRSTPICTURE_ASK_MS 1000

typedef struct {
	bool seen;               /* a rectangle of pixels has come */
	uint64_t quiet_since_ns; /* when the server last sent a message */
} vg_firstpicture;

/* At the end of the handshake, and whenever a message comes. */
void vg_firstpicture_heard(vg_firstpicture *f, uint64_t now_ns);

/* True, once per silence of VG_FIRSTPICTURE_ASK_MS, while no picture has
 * come: the caller sends a full update request. */
bool vg_firstpicture_ask_due(vg_firstpicture *f, uint64_t now_ns);

#endif
