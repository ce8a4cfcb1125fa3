/* SDL keys and characters as X keysyms, which RFB key events carry.
 *
 * Keys that type no text (arrows, function keys, modifiers, Return ...)
 * travel as key down and key up from SDL's key events. Text travels from
 * SDL's text events, one keysym per character, so that shifted keys,
 * AltGr, dead keys and non-Latin layouts give what the user typed; a
 * character becomes its Latin-1 keysym or, beyond Latin-1, the Unicode
 * keysym 0x01000000 + code point that X servers understand.
 */
#ifndef VG_KEYMAP_H
#define VG_KEYMAP_H

#include <SDL_keycode.h>
#include <stdint.h>

/* The keysym of a key that types no text, or 0 for a text key (and for
 * keys RFB cannot name). */
uint32_t vg_keymap_special(SDL_Keycode sym);

/* The keysym of a text key pressed with Control, Alt or a logo key held,
 * when SDL sends no text event: its unshifted character. 0 if none. */
uint32_t vg_keymap_chord(SDL_Keycode sym);

/* The keysym of character cp (a Unicode code point); 0 for control
 * characters and values that are not characters. */
uint32_t vg_keymap_unicode(uint32_t cp);

/* RFB pointer button mask bit of SDL mouse button b (SDL_BUTTON_LEFT
 * ...), 0 for buttons RFB cannot carry. */
int vg_keymap_button(int b);

#endif
