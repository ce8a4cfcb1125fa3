/* The X clipboard as text: what other X clients put on the CLIPBOARD or
 * PRIMARY selection, and text put there for them.
 *
 * One selection watcher holds its own X connection and an unmapped
 * window that owns the selections while it holds text. Changes of
 * owner are learned from XFixes; text is asked for as UTF8_STRING (then
 * STRING) and served as UTF8_STRING, STRING and TEXT. Transfers larger
 * than the X server's request size (INCR) are not followed. Not
 * thread-safe: one thread per watcher.
 */
#ifndef VG_XSELECTION_H
#define VG_XSELECTION_H

#include <stddef.h>

typedef struct vg_xselection vg_xselection;

/* Connects to display (NULL: $DISPLAY). VG_EIO when it cannot be opened,
 * VG_ENOTSUP without XFixes. Free with vg_xselection_free(). */
int vg_xselection_open(const char *display, vg_xselection **out);

/* The X connection's file descriptor, to poll() for readability. */
int vg_xselection_fd(const vg_xselection *x);

/* Handles every X event waiting, without blocking. Returns 1 when another
 * client's new text arrived: *text (UTF-8, *len bytes, also
 * NUL-terminated) is owned by x and valid until the next call; 0 when
 * nothing new. */
int vg_xselection_process(vg_xselection *x, const char **text, size_t *len);

/* Takes the CLIPBOARD and PRIMARY selections with a copy of text (UTF-8,
 * len bytes), to give to any X client that asks. */
int vg_xselection_set(vg_xselection *x, const char *text, size_t len);

/* Gives up the selections, disconnects and frees x; accepts NULL. */
void vg_xselection_free(vg_xselection *x);

#endif
