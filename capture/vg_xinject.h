/* Input into an X display through XTest: pointer positions, button masks
 * and keysyms as RFB and trace INPUT records carry them. Used by
 * varg-trace replay-input and meant for the server's X source, so it
 * lives in capture/libvgcapture.a. */
#ifndef VG_XINJECT_H
#define VG_XINJECT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct vg_xinject vg_xinject;

/* Connects to display (NULL: $DISPLAY). VG_EIO when it cannot be opened,
 * VG_ENOTSUP when the server has no XTest. Free with vg_xinject_free(). */
int vg_xinject_open(const char *display, vg_xinject **out);

int32_t vg_xinject_width(const vg_xinject *j);
int32_t vg_xinject_height(const vg_xinject *j);

/* Moves the pointer to (x, y) and presses or releases the buttons whose
 * bits in buttons (bit 0 = button 1) differ from the previous call's. */
int vg_xinject_pointer(vg_xinject *j, int32_t x, int32_t y, uint8_t buttons);

/* Presses or releases the key that makes keysym. A keysym that needs
 * Shift gets Shift pressed around it. A keysym no key makes is given a
 * spare keycode (one with no keysyms), remapped on the display. VG_ENOENT
 * (and nothing sent) when there is neither. */
int vg_xinject_key(vg_xinject *j, uint32_t keysym, bool down);

/* With on, keysyms are the characters meant, as RFB clients send them:
 * a plain character typed while Shift is held gets Shift released around
 * it. Off (the default), they are unshifted keys, as traces record them. */
void vg_xinject_set_characters(vg_xinject *j, bool on);

/* Releases every button and key this injector holds down, and flushes. */
void vg_xinject_release_all(vg_xinject *j);

/* Releases what is held, disconnects and frees j; accepts NULL. */
void vg_xinject_free(vg_xinject *j);

#endif
