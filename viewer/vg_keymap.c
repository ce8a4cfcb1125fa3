#include <SDL_mouse.h>

#include "viewer/vg_keymap.h"

typedef struct {
	SDL_Keycode sym;
	uint32_t keysym;
} key_pair;

/* X keysym values from X11/keysymdef.h. */
static const key_pair special[] = {
	{ SDLK_BACKSPACE, 0xff08 }, { SDLK_TAB, 0xff09 }, { SDLK_RETURN, 0xff0d },
	{ SDLK_RETURN2, 0xff0d }, { SDLK_ESCAPE, 0xff1b }, { SDLK_DELETE, 0xffff },
	{ SDLK_PAUSE, 0xff13 }, { SDLK_SCROLLLOCK, 0xff14 }, { SDLK_SYSREQ, 0xff15 },
	{ SDLK_HOME, 0xff50 }, { SDLK_LEFT, 0xff51 }, { SDLK_UP, 0xff52 },
	{ SDLK_RIGHT, 0xff53 }, { SDLK_DOWN, 0xff54 }, { SDLK_PAGEUP, 0xff55 },
	{ SDLK_PAGEDOWN, 0xff56 }, { SDLK_END, 0xff57 }, { SDLK_PRINTSCREEN, 0xff61 },
	{ SDLK_INSERT, 0xff63 }, { SDLK_UNDO, 0xff65 }, { SDLK_MENU, 0xff67 },
	{ SDLK_APPLICATION, 0xff67 }, { SDLK_FIND, 0xff68 }, { SDLK_HELP, 0xff6a },
	{ SDLK_MODE, 0xfe03 }, { SDLK_NUMLOCKCLEAR, 0xff7f }, { SDLK_KP_ENTER, 0xff8d },
	{ SDLK_F1, 0xffbe }, { SDLK_F2, 0xffbf }, { SDLK_F3, 0xffc0 }, { SDLK_F4, 0xffc1 },
	{ SDLK_F5, 0xffc2 }, { SDLK_F6, 0xffc3 }, { SDLK_F7, 0xffc4 }, { SDLK_F8, 0xffc5 },
	{ SDLK_F9, 0xffc6 }, { SDLK_F10, 0xffc7 }, { SDLK_F11, 0xffc8 }, { SDLK_F12, 0xffc9 },
	{ SDLK_F13, 0xffca }, { SDLK_F14, 0xffcb }, { SDLK_F15, 0xffcc }, { SDLK_F16, 0xffcd },
	{ SDLK_F17, 0xffce }, { SDLK_F18, 0xffcf }, { SDLK_F19, 0xffd0 }, { SDLK_F20, 0xffd1 },
	{ SDLK_F21, 0xffd2 }, { SDLK_F22, 0xffd3 }, { SDLK_F23, 0xffd4 }, { SDLK_F24, 0xffd5 },
	{ SDLK_LSHIFT, 0xffe1 }, { SDLK_RSHIFT, 0xffe2 }, { SDLK_LCTRL, 0xffe3 },
	{ SDLK_RCTRL, 0xffe4 }, { SDLK_CAPSLOCK, 0xffe5 }, { SDLK_LALT, 0xffe9 },
	{ SDLK_RALT, 0xffea }, { SDLK_LGUI, 0xffeb }, { SDLK_RGUI, 0xffec },
};

uint32_t vg_keymap_special(SDL_Keycode sym)
{
	size_t i;

	for (i = 0; i < sizeof special / sizeof special[0]; i++)
		if (special[i].sym == sym)
			return special[i].keysym;
	return 0;
}

uint32_t vg_keymap_unicode(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp <= 0xff)
		return cp;
	return 0x01000000u + cp;
}

uint32_t vg_keymap_chord(SDL_Keycode sym)
{
	/* Keys without a character carry SDLK_SCANCODE_MASK. */
	if (sym & SDLK_SCANCODE_MASK)
		return 0;
	return vg_keymap_unicode((uint32_t)sym);
}

int vg_keymap_button(int b)
{
	switch (b) {
	case SDL_BUTTON_LEFT: return 1;
	case SDL_BUTTON_MIDDLE: return 2;
	case SDL_BUTTON_RIGHT: return 4;
	case SDL_BUTTON_X1: return 128; /* X button 8 */
	default: return 0;
	}
}
