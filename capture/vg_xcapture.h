/* X screen capture: what an X display shows, what changed, where the
 * cursor is and what the user did.
 *
 * One capture holds one X connection. Changes are learned from XDamage
 * when the server has it (a grab is only due after damage was reported,
 * and reads only the tiles the damage touched) and otherwise by
 * polling: every grab reads and compares the whole screen. A grab
 * reads the screen with MIT-SHM (XGetImage where shared memory is not
 * available, e.g. a remote display) and compares it with the previous
 * frame in tiles, so the rectangles it reports are the tiles that really
 * changed, never the over-reported damage of a redraw with equal pixels.
 * The cursor comes from XFixes; buttons and keys from XInput 2 raw events,
 * which see every device's input whichever window it goes to, and pointer
 * motion from asking where the pointer is.
 *
 * Used by varg-trace record and meant for the server's X source, so it is
 * built once into capture/libvgcapture.a. Not thread-safe: one thread per
 * capture.
 */
#ifndef VG_XCAPTURE_H
#define VG_XCAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"

typedef struct vg_xcapture vg_xcapture;

typedef struct {
	int32_t tile;          /* comparison tile size, 1..VG_MAX_DIM (default 32) */
	bool use_damage;       /* use XDamage when present (default true) */
	bool use_shm;          /* use MIT-SHM when present (default true) */
	bool watch_input;      /* report pointer and key events (default false) */
} vg_xcapture_options;

void vg_xcapture_options_init(vg_xcapture_options *o);

/* Connects to display (NULL: $DISPLAY) and prepares to capture its default
 * screen, which must be 24-bit TrueColor in 32-bit pixels (VG_ENOTSUP
 * otherwise). On success *out owns a new capture (free with
 * vg_xcapture_free). VG_EIO when the display cannot be opened, VG_ENOTSUP
 * when input is wanted and the server lacks XInput 2.0, VG_EINVAL for bad
 * options. */
int vg_xcapture_open(const char *display, const vg_xcapture_options *o, vg_xcapture **out);

int32_t vg_xcapture_width(const vg_xcapture *c);
int32_t vg_xcapture_height(const vg_xcapture *c);

/* Whether changes are learned from XDamage (else every grab polls). */
bool vg_xcapture_has_damage(const vg_xcapture *c);

/* The X connection's file descriptor, to poll() for readability before
 * calling vg_xcapture_process() -- unless vg_xcapture_has_queued(). */
int vg_xcapture_fd(const vg_xcapture *c);

/* Whether events already read from the socket wait in Xlib's queue (a
 * round trip such as a grab reads those that came meanwhile): the
 * descriptor then stays quiet, so poll it with no timeout. */
bool vg_xcapture_has_queued(const vg_xcapture *c);

/* Reads every X event waiting (without blocking): damage, cursor changes
 * and input. With watch_input it also asks where the pointer is and
 * queues a pointer event when it moved (absolute XTest motion makes no
 * raw event), so call it often -- every 20 ms -- to follow the pointer.
 * Returns VG_EIO when the connection is lost. */
int vg_xcapture_process(vg_xcapture *c);

/* Whether a grab may find changes: damage was reported since the last
 * grab, or there is no XDamage, or nothing was grabbed yet. */
bool vg_xcapture_is_dirty(const vg_xcapture *c);

/* The most rectangles one grab can report. */
size_t vg_xcapture_max_rects(const vg_xcapture *c);

/* Reads the screen into fb (width x height, holding the previous grab's
 * frame; the first grab reports the whole screen whatever fb holds) and
 * writes the changed rectangles -- disjoint, top to bottom -- to dst and
 * their count to *n (0 when nothing changed). dst_cap must be at least
 * vg_xcapture_max_rects() (else VG_ENOSPC). VG_EINVAL for an fb of the
 * wrong size, VG_EIO when the screen cannot be read. */
int vg_xcapture_grab(vg_xcapture *c, vg_pixbuf *fb, vg_rect *dst, size_t dst_cap, size_t *n);

/* What the grabs cost: a grab after damage reads only the tiles the
 * damage touched, each band of rows of them from its leftmost damaged
 * column to its rightmost (with XDamage, XFixes and MIT-SHM; else, or
 * when they are more than half the screen, the whole screen). */
typedef struct {
	uint64_t grabs;          /* calls of vg_xcapture_grab */
	uint64_t partial_grabs;  /* those that read only damaged tiles */
	uint64_t pixels_read;    /* pixels read from the X server */
} vg_xcapture_stats;

void vg_xcapture_stats_get(const vg_xcapture *c, vg_xcapture_stats *out);

/* The cursor as XFixes describes it. pixels are width x height
 * 0xAARRGGBB words (premultiplied alpha), valid until the next call of
 * vg_xcapture_cursor() or vg_xcapture_free(). serial changes when the
 * cursor's image does. */
typedef struct {
	int32_t x, y;             /* pointer position on the screen */
	int32_t hot_x, hot_y;     /* hotspot inside the image */
	int32_t width, height;
	const uint32_t *pixels;
	uint64_t serial;
} vg_xcursor;

/* Fetches the current cursor image and position. VG_ENOTSUP without
 * XFixes. */
int vg_xcapture_cursor(vg_xcapture *c, vg_xcursor *out);

/* Whether the cursor image changed since the last vg_xcapture_cursor(). */
bool vg_xcapture_cursor_changed(const vg_xcapture *c);

/* The least time between two reads of a changed cursor. A program may
 * set its cursor at every drawing call (R's X11 device shows a busy one
 * for each rectangle it draws: thousands of changes a second), and no
 * viewer shows more of them than its display's rate. */
#define VG_XCAPTURE_CURSOR_GAP_NS (1000000000u / 60)

/* How long from now_ns (vg_time_ns()) until a changed cursor is due to be
 * read: 0 when it is, UINT64_MAX while it has not changed. */
uint64_t vg_xcapture_cursor_due_in(const vg_xcapture *c, uint64_t now_ns);

typedef enum {
	VG_XINPUT_POINTER = 1,    /* x, y, buttons */
	VG_XINPUT_KEY = 2,        /* keysym, down */
} vg_xinput_type;

/* One input event, as RFB would send it. */
typedef struct {
	vg_xinput_type type;
	int32_t x, y;             /* pointer position on the screen */
	uint8_t buttons;          /* buttons down after the event, bit 0 = button 1 */
	uint32_t keysym;          /* the key's unshifted X keysym */
	bool down;
} vg_xinput_event;

/* Takes the oldest input event that vg_xcapture_process() queued: 1 with
 * *ev filled, 0 when none is waiting. Only with watch_input. */
int vg_xcapture_next_input(vg_xcapture *c, vg_xinput_event *ev);

/* Closes the connection and frees c; accepts NULL. */
void vg_xcapture_free(vg_xcapture *c);

#endif
