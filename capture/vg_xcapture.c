/* X screen capture through MIT-SHM, XDamage, XFixes and XInput 2. */
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XInput2.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/Xdamage.h>
#include <X11/extensions/Xfixes.h>
#include <glib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "common/vg_error.h"
#include "common/vg_minmax.h"
#include "common/vg_time.h"
#include "capture/vg_xcapture.h"
#include "segment2d/vg_tilediff.h"

struct vg_xcapture {
	Display *dpy;
	Window root;
	int32_t width, height;
	vg_xcapture_options opt;

	XImage *image;          /* the whole screen, shared or not */
	XShmSegmentInfo shm;
	bool shm_attached;

	bool damage;            /* XDamage in use */
	int damage_event;
	Damage damage_handle;
	XserverRegion parts;    /* where damage was, taken at a grab (None: no XFixes) */
	/* Per row of tiles, the columns damaged since the last grab: [x0, x1),
	 * x1 = 0 where none. */
	int32_t *row_x0, *row_x1;
	int32_t tile_rows;
	vg_rect *bands;         /* what a grab reads: see take_damage */
	size_t n_bands;
	bool dirty;
	bool grabbed;           /* a first grab was made */
	vg_xcapture_stats st;

	bool fixes;
	int fixes_event;
	bool cursor_changed;
	uint64_t cursor_read_ns;    /* when vg_xcapture_cursor() last read it */
	uint32_t *cursor_pixels;
	size_t cursor_cap;

	int xi_opcode;          /* XInput 2, when watch_input */
	uint8_t buttons;
	int32_t pointer_x, pointer_y;   /* last position reported */
	GArray *inputs;         /* vg_xinput_event, oldest first */
};

void vg_xcapture_options_init(vg_xcapture_options *o)
{
	memset(o, 0, sizeof *o);
	o->tile = 32;
	o->use_damage = true;
	o->use_shm = true;
}

/* XShmAttach fails asynchronously (BadAccess on a remote display) and
 * Xlib's default handler would exit the process, so the attach runs with a
 * handler that only notes the failure. Xlib's handler is process-wide;
 * this flag is only used between the attach and its XSync. */
static volatile bool shm_failed;

static int note_shm_error(Display *dpy, XErrorEvent *ev)
{
	shm_failed = true;
	return 0;
}

static bool attach_shm(vg_xcapture *c, Visual *visual, int depth)
{
	int (*old)(Display *, XErrorEvent *);

	c->image = XShmCreateImage(c->dpy, visual, (unsigned)depth, ZPixmap, NULL, &c->shm,
				   (unsigned)c->width, (unsigned)c->height);
	if (!c->image)
		return false;
	c->shm.shmid = shmget(IPC_PRIVATE, (size_t)c->image->bytes_per_line * (size_t)c->height,
			      IPC_CREAT | 0600);
	if (c->shm.shmid < 0)
		goto fail;
	c->shm.shmaddr = c->image->data = shmat(c->shm.shmid, NULL, 0);
	/* Marked for removal now: it goes away with the last detach, even if
	 * the process dies. */
	shmctl(c->shm.shmid, IPC_RMID, NULL);
	if (c->shm.shmaddr == (char *)-1)
		goto fail;
	c->shm.readOnly = False;
	shm_failed = false;
	XSync(c->dpy, False);
	old = XSetErrorHandler(note_shm_error);
	XShmAttach(c->dpy, &c->shm);
	XSync(c->dpy, False);
	XSetErrorHandler(old);
	if (shm_failed) {
		shmdt(c->shm.shmaddr);
		goto fail;
	}
	c->shm_attached = true;
	return true;
fail:
	c->image->data = NULL;
	XDestroyImage(c->image);
	c->image = NULL;
	return false;
}

static int watch_input(vg_xcapture *c)
{
	int event, error, major = 2, minor = 2;
	unsigned char bits[XIMaskLen(XI_LASTEVENT)] = { 0 };
	XIEventMask mask;

	if (!XQueryExtension(c->dpy, "XInputExtension", &c->xi_opcode, &event, &error) ||
	    XIQueryVersion(c->dpy, &major, &minor) != Success)
		return VG_ENOTSUP;
	XISetMask(bits, XI_RawMotion);
	XISetMask(bits, XI_RawButtonPress);
	XISetMask(bits, XI_RawButtonRelease);
	XISetMask(bits, XI_RawKeyPress);
	XISetMask(bits, XI_RawKeyRelease);
	mask.deviceid = XIAllMasterDevices;
	mask.mask_len = sizeof bits;
	mask.mask = bits;
	XISelectEvents(c->dpy, c->root, &mask, 1);
	c->inputs = g_array_new(FALSE, FALSE, sizeof(vg_xinput_event));
	c->pointer_x = -1;
	c->pointer_y = -1;
	return VG_OK;
}

int vg_xcapture_open(const char *display, const vg_xcapture_options *o, vg_xcapture **out)
{
	vg_xcapture *c;
	XWindowAttributes wa;
	int err = VG_OK, er, major, minor;

	*out = NULL;
	if (o->tile < 1 || o->tile > VG_MAX_DIM)
		return VG_EINVAL;
	c = g_new0(vg_xcapture, 1);
	c->opt = *o;
	c->dpy = XOpenDisplay(display);
	if (!c->dpy) {
		err = VG_EIO;
		goto out;
	}
	c->root = DefaultRootWindow(c->dpy);
	XGetWindowAttributes(c->dpy, c->root, &wa);
	c->width = wa.width;
	c->height = wa.height;
	if (c->width < 1 || c->height < 1 || c->width > VG_MAX_DIM || c->height > VG_MAX_DIM) {
		err = VG_ERANGE;
		goto out;
	}
	if (wa.depth != 24 || wa.visual->class != TrueColor || wa.visual->red_mask != 0xff0000 ||
	    wa.visual->green_mask != 0x00ff00 || wa.visual->blue_mask != 0x0000ff) {
		err = VG_ENOTSUP;
		goto out;
	}
	if (!(o->use_shm && XShmQueryExtension(c->dpy) && attach_shm(c, wa.visual, wa.depth))) {
		/* Without shared memory each grab is an XGetImage into a
		 * fresh image; nothing to prepare. */
		c->image = NULL;
	}
	if (c->image && (c->image->bits_per_pixel != 32 || c->image->byte_order != LSBFirst)) {
		err = VG_ENOTSUP;
		goto out;
	}
	if (o->use_damage && XDamageQueryExtension(c->dpy, &c->damage_event, &er) &&
	    XDamageQueryVersion(c->dpy, &major, &minor)) {
		c->damage_handle = XDamageCreate(c->dpy, c->root, XDamageReportNonEmpty);
		c->damage = true;
	}
	if (XFixesQueryExtension(c->dpy, &c->fixes_event, &er)) {
		major = 2;
		minor = 0;
		XFixesQueryVersion(c->dpy, &major, &minor);
		XFixesSelectCursorInput(c->dpy, c->root, XFixesDisplayCursorNotifyMask);
		c->fixes = true;
		c->cursor_changed = true;
	}
	/* With the damage's rectangles a grab reads only the tiles they
	 * touch, through the shared image. */
	if (c->damage && c->fixes && c->shm_attached) {
		c->parts = XFixesCreateRegion(c->dpy, NULL, 0);
		c->tile_rows = (c->height + o->tile - 1) / o->tile;
		c->row_x0 = g_new0(int32_t, (size_t)c->tile_rows);
		c->row_x1 = g_new0(int32_t, (size_t)c->tile_rows);
		c->bands = g_new(vg_rect, (size_t)c->tile_rows);
	}
	if (o->watch_input && (err = watch_input(c)))
		goto out;
	c->dirty = true;
	XSync(c->dpy, False);
out:
	if (err) {
		vg_xcapture_free(c);
		return err;
	}
	*out = c;
	return VG_OK;
}

int32_t vg_xcapture_width(const vg_xcapture *c)
{
	return c->width;
}

int32_t vg_xcapture_height(const vg_xcapture *c)
{
	return c->height;
}

bool vg_xcapture_has_damage(const vg_xcapture *c)
{
	return c->damage;
}

int vg_xcapture_fd(const vg_xcapture *c)
{
	return ConnectionNumber(c->dpy);
}

bool vg_xcapture_has_queued(const vg_xcapture *c)
{
	return XEventsQueued(c->dpy, QueuedAlready) > 0;
}

bool vg_xcapture_is_dirty(const vg_xcapture *c)
{
	return c->dirty || !c->damage || !c->grabbed;
}

bool vg_xcapture_cursor_changed(const vg_xcapture *c)
{
	return c->cursor_changed;
}

uint64_t vg_xcapture_cursor_due_in(const vg_xcapture *c, uint64_t now_ns)
{
	uint64_t due = c->cursor_read_ns + VG_XCAPTURE_CURSOR_GAP_NS;

	if (!c->cursor_changed)
		return UINT64_MAX;
	return now_ns >= due ? 0 : due - now_ns;
}

static void queue_input(vg_xcapture *c, vg_xinput_event ev)
{
	g_array_append_val(c->inputs, ev);
}

/* A pointer event at the pointer's current position with the current
 * buttons (with moved_only, only if the position changed). Raw motion
 * carries device deltas, not screen positions, so the position is asked
 * for. */
static void queue_pointer(vg_xcapture *c, bool moved_only)
{
	vg_xinput_event ev = { .type = VG_XINPUT_POINTER, .buttons = c->buttons };
	Window root_ret, child;
	int rx = 0, ry = 0, wx, wy;
	unsigned int mask;

	XQueryPointer(c->dpy, c->root, &root_ret, &child, &rx, &ry, &wx, &wy, &mask);
	ev.x = CLAMP(rx, 0, c->width - 1);
	ev.y = CLAMP(ry, 0, c->height - 1);
	if (!moved_only || ev.x != c->pointer_x || ev.y != c->pointer_y)
		queue_input(c, ev);
	c->pointer_x = ev.x;
	c->pointer_y = ev.y;
}

static void handle_raw(vg_xcapture *c, XGenericEventCookie *cookie)
{
	const XIRawEvent *raw = cookie->data;
	vg_xinput_event ev = { .type = VG_XINPUT_KEY };

	switch (cookie->evtype) {
	case XI_RawMotion:
		queue_pointer(c, true);
		break;
	case XI_RawButtonPress:
	case XI_RawButtonRelease:
		/* RFB's mask has 8 buttons; 4 and 5 are the wheel. */
		if (raw->detail < 1 || raw->detail > 8)
			break;
		if (cookie->evtype == XI_RawButtonPress)
			c->buttons |= (uint8_t)(1u << (raw->detail - 1));
		else
			c->buttons &= (uint8_t)~(1u << (raw->detail - 1));
		queue_pointer(c, false);
		break;
	case XI_RawKeyPress:
	case XI_RawKeyRelease:
		ev.keysym = (uint32_t)XkbKeycodeToKeysym(c->dpy, (KeyCode)raw->detail, 0, 0);
		ev.down = cookie->evtype == XI_RawKeyPress;
		if (ev.keysym != NoSymbol)
			queue_input(c, ev);
		break;
	default:
		break;
	}
}

int vg_xcapture_process(vg_xcapture *c)
{
	XEvent ev;

	/* XPending reads the socket; a lost connection ends in Xlib's IO
	 * error handler, which exits -- there is no error return to see. */
	while (XPending(c->dpy) > 0) {
		XNextEvent(c->dpy, &ev);
		if (c->damage && ev.type == c->damage_event + XDamageNotify) {
			/* The damage stays with the server, growing, until the
			 * grab takes it: one event until then. */
			c->dirty = true;
		} else if (c->fixes && ev.type == c->fixes_event + XFixesCursorNotify) {
			c->cursor_changed = true;
		} else if (c->inputs && ev.type == GenericEvent && ev.xcookie.extension == c->xi_opcode &&
			   XGetEventData(c->dpy, &ev.xcookie)) {
			handle_raw(c, &ev.xcookie);
			XFreeEventData(c->dpy, &ev.xcookie);
		}
	}
	/* The X server makes no raw motion event for an absolute XTest
	 * motion (how xdotool and VNC servers move the pointer), so the
	 * position is also polled. */
	if (c->inputs)
		queue_pointer(c, true);
	return VG_OK;
}

size_t vg_xcapture_max_rects(const vg_xcapture *c)
{
	return vg_tilediff_max_rects(c->width, c->height, c->opt.tile);
}

/* Reads the whole screen into an image; the caller frees a non-shared
 * one. */
static XImage *read_screen(vg_xcapture *c)
{
	c->st.pixels_read += (uint64_t)c->width * (uint64_t)c->height;
	if (c->shm_attached) {
		if (!XShmGetImage(c->dpy, c->root, c->image, 0, 0, AllPlanes))
			return NULL;
		return c->image;
	}
	return XGetImage(c->dpy, c->root, 0, 0, (unsigned)c->width, (unsigned)c->height, AllPlanes,
			 ZPixmap);
}

/* Takes the damage reported since the last grab and marks, in each row
 * of tiles it touches, the columns of tiles it touches there; then notes
 * the bands a grab reads: each run of marked rows of tiles, from the
 * leftmost of their marked columns to the rightmost. Returns the bands'
 * pixels. Whatever is drawn after the subtraction is damage again, so
 * nothing is missed: at worst a change is read twice. */
static uint64_t take_damage(vg_xcapture *c)
{
	XRectangle *r;
	int count = 0, i;
	int32_t t, end, y0, y1, x0, x1, tile = c->opt.tile;
	uint64_t area = 0;

	XDamageSubtract(c->dpy, c->damage_handle, None, c->parts);
	r = XFixesFetchRegion(c->dpy, c->parts, &count);
	memset(c->row_x1, 0, (size_t)c->tile_rows * sizeof *c->row_x1);
	for (i = 0; r && i < count; i++) {
		y0 = VG_MAX(r[i].y, 0);
		y1 = VG_MIN((int32_t)r[i].y + (int32_t)r[i].height, c->height);
		x0 = VG_MAX(r[i].x, 0);
		x1 = VG_MIN((int32_t)r[i].x + (int32_t)r[i].width, c->width);
		if (r[i].width == 0 || y1 <= y0 || x1 <= x0)
			continue;
		/* Whole tiles, so that the compare's tiles are the screen's. */
		x0 = x0 / tile * tile;
		x1 = VG_MIN((x1 + tile - 1) / tile * tile, c->width);
		for (t = y0 / tile; t <= (y1 - 1) / tile; t++) {
			c->row_x0[t] = c->row_x1[t] ? VG_MIN(c->row_x0[t], x0) : x0;
			c->row_x1[t] = VG_MAX(c->row_x1[t], x1);
		}
	}
	if (r)
		XFree(r);
	c->n_bands = 0;
	for (t = 0; t < c->tile_rows; t = end) {
		vg_rect *b = &c->bands[c->n_bands];

		if (!c->row_x1[t]) {
			end = t + 1;
			continue;
		}
		x0 = c->row_x0[t];
		x1 = c->row_x1[t];
		for (end = t + 1; end < c->tile_rows && c->row_x1[end]; end++) {
			x0 = VG_MIN(x0, c->row_x0[end]);
			x1 = VG_MAX(x1, c->row_x1[end]);
		}
		*b = vg_rect_make(x0, t * tile, x1 - x0, VG_MIN(end * tile, c->height) - t * tile);
		area += (uint64_t)b->w * (uint64_t)b->h;
		c->n_bands++;
	}
	return area;
}

/* Copies rectangle r of the X server's image img into fb, the padding
 * byte of each pixel cleared (Varg's pixels keep it zero; the server may
 * fill it with anything). */
static void copy_masked(vg_pixbuf *fb, const vg_pixbuf *img, vg_rect r)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++) {
		uint32_t *to = vg_pixbuf_row(fb, y) + r.x;
		const uint32_t *from = vg_pixbuf_row(img, y) + r.x;

		for (x = 0; x < r.w; x++)
			to[x] = from[x] & VG_PIXEL_MASK;
	}
}

/* Reads each band take_damage noted with one request, packed w x h into
 * the shared image where the band's rows lie (the server writes a
 * rectangle's rows one after the other; nothing else reads those bytes
 * before the next read), compares it with fb and copies the changed
 * tiles into fb. */
static int grab_bands(vg_xcapture *c, vg_pixbuf *fb, vg_rect *dst, size_t dst_cap, size_t *n)
{
	size_t k, first, i;
	int err;

	for (k = 0; k < c->n_bands; k++) {
		vg_rect r = c->bands[k];
		XImage band = *c->image;
		vg_pixbuf now, was;

		band.width = r.w;
		band.height = r.h;
		band.bytes_per_line = r.w * 4;
		band.data = c->image->data + (size_t)r.y * (size_t)c->image->bytes_per_line;
		if (!XShmGetImage(c->dpy, c->root, &band, r.x, r.y, AllPlanes))
			return VG_EIO;
		c->st.pixels_read += (uint64_t)r.w * (uint64_t)r.h;
		now = vg_pixbuf_wrap((uint32_t *)(void *)band.data, r.w, r.h, r.w);
		was = vg_pixbuf_view(fb, r);
		first = *n;
		if ((err = vg_tilediff_masked(&was, &now, VG_PIXEL_MASK, c->opt.tile, dst + first,
					      dst_cap - first, n)))
			return err;
		*n += first;
		for (i = first; i < *n; i++) {
			copy_masked(&was, &now, dst[i]);
			dst[i].x += r.x;
			dst[i].y += r.y;
		}
	}
	return VG_OK;
}

int vg_xcapture_grab(vg_xcapture *c, vg_pixbuf *fb, vg_rect *dst, size_t dst_cap, size_t *n)
{
	XImage *img;
	vg_pixbuf cur;
	size_t i;
	uint64_t damaged = 0;
	int err = VG_OK;

	*n = 0;
	if (fb->width != c->width || fb->height != c->height)
		return VG_EINVAL;
	if (dst_cap < vg_xcapture_max_rects(c))
		return VG_ENOSPC;
	c->dirty = false;
	c->st.grabs++;
	if (c->parts && c->grabbed) {
		damaged = take_damage(c);
		if (damaged == 0)
			return VG_OK;
	} else if (c->damage) {
		XDamageSubtract(c->dpy, c->damage_handle, None, None);
	}
	/* Past half the screen, one request for all of it costs less than
	 * a request a band. */
	if (damaged > 0 && damaged * 2 <= (uint64_t)c->width * (uint64_t)c->height) {
		c->st.partial_grabs++;
		if ((err = grab_bands(c, fb, dst, dst_cap, n))) {
			/* The damage taken is lost with the read: the next
			 * grab reads and reports the whole screen. */
			c->grabbed = false;
			*n = 0;
		}
		return err;
	}
	img = read_screen(c);
	if (!img)
		return VG_EIO;
	if (img->bits_per_pixel != 32 || img->byte_order != LSBFirst || img->bytes_per_line % 4) {
		err = VG_ENOTSUP;
		goto out;
	}
	cur = vg_pixbuf_wrap((uint32_t *)(void *)img->data, c->width, c->height,
			     img->bytes_per_line / 4);
	/* The top byte of a depth-24 pixel is padding: compared and copied
	 * without it (see copy_masked). */
	if (!c->grabbed) {
		dst[0] = vg_pixbuf_rect(fb);
		*n = 1;
		c->grabbed = true;
	} else if ((err = vg_tilediff_masked(fb, &cur, VG_PIXEL_MASK, c->opt.tile, dst, dst_cap, n))) {
		goto out;
	}
	for (i = 0; i < *n; i++)
		copy_masked(fb, &cur, dst[i]);
out:
	if (img != c->image)
		XDestroyImage(img);
	return err;
}

void vg_xcapture_stats_get(const vg_xcapture *c, vg_xcapture_stats *out)
{
	*out = c->st;
}

int vg_xcapture_cursor(vg_xcapture *c, vg_xcursor *out)
{
	XFixesCursorImage *ci;
	size_t i, count;

	memset(out, 0, sizeof *out);
	if (!c->fixes)
		return VG_ENOTSUP;
	/* A read that fails is tried again a gap later, not at once. */
	c->cursor_read_ns = vg_time_ns();
	ci = XFixesGetCursorImage(c->dpy);
	if (!ci)
		return VG_EIO;
	count = (size_t)ci->width * ci->height;
	if (count > c->cursor_cap) {
		g_free(c->cursor_pixels);
		c->cursor_pixels = g_new(uint32_t, count);
		c->cursor_cap = count;
	}
	/* XFixes hands out longs (64 bits on LP64) holding 32-bit ARGB. */
	for (i = 0; i < count; i++)
		c->cursor_pixels[i] = (uint32_t)ci->pixels[i];
	out->x = ci->x;
	out->y = ci->y;
	out->hot_x = ci->xhot;
	out->hot_y = ci->yhot;
	out->width = ci->width;
	out->height = ci->height;
	out->pixels = c->cursor_pixels;
	out->serial = ci->cursor_serial;
	c->cursor_changed = false;
	XFree(ci);
	return VG_OK;
}

int vg_xcapture_next_input(vg_xcapture *c, vg_xinput_event *ev)
{
	if (!c->inputs || c->inputs->len == 0)
		return 0;
	*ev = g_array_index(c->inputs, vg_xinput_event, 0);
	g_array_remove_index(c->inputs, 0);
	return 1;
}

void vg_xcapture_free(vg_xcapture *c)
{
	if (!c)
		return;
	if (c->dpy) {
		if (c->damage)
			XDamageDestroy(c->dpy, c->damage_handle);
		if (c->parts)
			XFixesDestroyRegion(c->dpy, c->parts);
		if (c->shm_attached) {
			XShmDetach(c->dpy, &c->shm);
			XSync(c->dpy, False);
			shmdt(c->shm.shmaddr);
		}
		if (c->image) {
			if (c->shm_attached)
				c->image->data = NULL;
			XDestroyImage(c->image);
		}
		XCloseDisplay(c->dpy);
	}
	if (c->inputs)
		g_array_free(c->inputs, TRUE);
	g_free(c->cursor_pixels);
	g_free(c->row_x0);
	g_free(c->row_x1);
	g_free(c->bands);
	g_free(c);
}
