/* An X display as the server's source: the screen through the X capture
 * (XDamage, polling without it), the cursor's image from XFixes, clients'
 * input injected with XTest, the clipboard both ways through the X
 * selections, and screen size changes (RandR) passed on as a resize.
 * Same shape as the trace source: open, make a server of its size, run.
 */
#ifndef VG_XSOURCE_H
#define VG_XSOURCE_H

#include <signal.h>
#include <stdbool.h>

#include "server/vg_server.h"

typedef struct vg_xsource vg_xsource;

typedef struct {
	bool use_damage;       /* learn changes from XDamage when present (default true) */
	bool use_shm;          /* read the screen through MIT-SHM when possible (default true) */
	int fps;               /* most screen reads a second, 1..240; 0 (the default):
	                        * 240 with XDamage, 60 when polling */
	bool clipboard;        /* pass the clipboard both ways (default true) */
} vg_xsource_options;

void vg_xsource_options_init(vg_xsource_options *o);

/* Connects to display (":N"; NULL: $DISPLAY) for capture, input and the
 * clipboard. VG_EIO when the display cannot be opened, VG_ENOTSUP when it
 * is not 24-bit TrueColor or lacks XTest or XFixes, VG_EINVAL for bad
 * options; the error is logged. */
int vg_xsource_open(const char *display, const vg_xsource_options *o, vg_xsource **out);

int32_t vg_xsource_width(const vg_xsource *x);
int32_t vg_xsource_height(const vg_xsource *x);

/* Fills in where clients' input goes (for vg_server_config.input); the
 * callbacks queue events for vg_xsource_run, which injects them. */
void vg_xsource_input(vg_xsource *x, vg_server_input *in);

/* Shares the display through srv (made at this source's size) until
 * *stop becomes non-zero. Returns 0, or VG_EIO when the screen can no
 * longer be read (vg_xsource_error_text() says why). */
int vg_xsource_run(vg_xsource *x, vg_server *srv, const volatile sig_atomic_t *stop);

const char *vg_xsource_error_text(const vg_xsource *x);

/* Screen reads that found changes, so far. */
uint64_t vg_xsource_frames(const vg_xsource *x);

/* Releases held keys and buttons, disconnects and frees x; accepts NULL. */
void vg_xsource_free(vg_xsource *x);

#endif
