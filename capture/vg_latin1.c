#include <glib.h>
#include <string.h>

#include "capture/vg_latin1.h"

char *vg_latin1_to_utf8(const char *latin1, size_t len)
{
	GString *s = g_string_sized_new(len + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)latin1[i];

		if (ch)
			g_string_append_unichar(s, ch);
	}
	return g_string_free(s, FALSE);
}

char *vg_latin1_from_utf8(const char *utf8, size_t *len)
{
	size_t n = strlen(utf8), i = 0, o = 0;
	char *out = g_malloc(n + 1);

	while (i < n) {
		gunichar ch = g_utf8_get_char_validated(utf8 + i, (gssize)(n - i));

		if (ch == (gunichar)-1 || ch == (gunichar)-2) {
			i++;
			continue;
		}
		i = (size_t)(g_utf8_next_char(utf8 + i) - utf8);
		if (ch == '\r' && i < n && utf8[i] == '\n')
			continue;
		out[o++] = ch <= 0xff ? (char)ch : '?';
	}
	out[o] = '\0';
	*len = o;
	return out;
}
