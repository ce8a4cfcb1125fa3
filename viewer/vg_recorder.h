/* A recording of what a viewer shows, as a version 1 trace (.vtr,
 * doc/trace-format.md), written with the same trace writer as
 * varg-trace record.
 *
 * After each completed FramebufferUpdate the viewer hands the recorder its
 * framebuffer and the rectangles the update drew: they become one FRAME
 * record. The pointer and key events the user sends become INPUT records,
 * and each cursor shape the server sends a CURSOR record. Times count from
 * the first frame. The trace's size is that of the first frame; when the
 * desktop changes size the recording ends there (END record), as
 * varg-trace record --vnc does, and the viewer goes on without it.
 *
 * Every function is thread-safe: the network thread records frames and
 * cursors while the window's thread records input. Write failures are
 * sticky: the first one ends the recording and vg_recorder_error() reports
 * it until vg_recorder_close().
 */
#ifndef VG_RECORDER_H
#define VG_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef struct vg_recorder vg_recorder;

/* Prepares a recording to path. The trace is written from the first frame
 * on (its size is not known before); the path is checked now, so that an
 * unwritable one fails at once: VG_ENOENT (no such directory) or VG_EIO.
 * On success *out owns a new recorder: finish it with vg_recorder_close(). */
int vg_recorder_new(const char *path, vg_recorder **out);

/* Records fb (the whole framebuffer after an update) with the rectangles
 * the update drew, clipped to fb. The first call fixes the trace's size;
 * a later fb of another size ends the recording (returns VG_OK, and
 * vg_recorder_ended() turns true). */
int vg_recorder_frame(vg_recorder *r, const vg_pixbuf *fb, const vg_region *dirty);

/* Records a cursor shape: w x h 0xAARRGGBB pixels (premultiplied alpha)
 * with its hot spot. A hot spot outside the image is moved to its edge; an
 * image larger than VG_TRACE_MAX_CURSOR is left out. */
int vg_recorder_cursor(vg_recorder *r, const uint32_t *argb, int w, int h, int hot_x, int hot_y);

/* Records a pointer event (position clamped to the frame) and a key
 * event. Before the first frame there is nothing to record them against:
 * they are left out. */
int vg_recorder_pointer(vg_recorder *r, int x, int y, int buttons);
int vg_recorder_key(vg_recorder *r, uint32_t keysym, bool down);

/* The first write failure (a negative VG_E* code), or 0. */
int vg_recorder_error(vg_recorder *r);

/* Whether the recording has ended because the desktop changed size. */
bool vg_recorder_ended(vg_recorder *r);

/* Records written so far, by kind. */
typedef struct {
	uint64_t frames, inputs, cursors;
} vg_recorder_stats;

void vg_recorder_get_stats(vg_recorder *r, vg_recorder_stats *st);

/* Finishes the trace (END record, flushed to disk) and frees r; accepts
 * NULL. Returns the first failure of the recording's life. When no frame
 * ever arrived there is no trace: the empty file vg_recorder_new() made is
 * removed (check the frame count before closing to tell the user). */
int vg_recorder_close(vg_recorder *r);

#endif
