/* A log of the frames a viewer shows, for measuring end-to-end latency.
 *
 * One line per completed FramebufferUpdate: the monotonic time (ns, the
 * clock varg-server's --frame-log uses too, shared by every process of one
 * machine, across network namespaces), the update's number from 0, and the
 * hash of the whole framebuffer computed as trace frame records store it
 * (vg_frame_hash, doc/trace-format.md), as 16 hex digits, then how many
 * Varg UPDATE messages have been read (varg-server's --update-log numbers
 * them alike) and how many pixels are approximate:
 *
 *     T_NS UPDATE HASH VARG_UPDATES APPROX_PIXELS
 *
 * A frame whose hash equals a trace frame's is that frame, so the two logs
 * give per frame the time from the server having it to the viewer showing
 * it (doc/wan-bench.md).
 */
#ifndef VG_FRAMELOG_H
#define VG_FRAMELOG_H

#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "capture/vg_connection.h"

typedef struct vg_framelog vg_framelog;

/* Creates (or truncates) path. On success *out owns a new log; close it
 * with vg_framelog_close(). VG_EIO if the file cannot be created. */
int vg_framelog_open(const char *path, vg_framelog **out);

/* Appends the line for an update completed at t_ns that left fb on screen,
 * after varg_updates Varg UPDATEs, with approx_pixels approximate.
 * Hashes every pixel of fb (about a millisecond per megapixel). VG_EIO
 * when the write fails; later calls then fail too. */
int vg_framelog_update(vg_framelog *fl, uint64_t t_ns, const vg_pixbuf *fb,
		       uint64_t varg_updates, uint64_t approx_pixels);

/* Called after each vg_connection_poll() that handled a message, at t_ns:
 * if c has completed a FramebufferUpdate since the last call, appends the
 * line for c's framebuffer. Errors as vg_framelog_update(). */
int vg_framelog_poll(vg_framelog *fl, const vg_connection *c, uint64_t t_ns);

/* Lines written so far. */
uint64_t vg_framelog_lines(const vg_framelog *fl);

/* Flushes, closes and frees fl (accepts NULL). Returns VG_EIO if any write
 * or the close failed. */
int vg_framelog_close(vg_framelog *fl);

#endif
