#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "capture/vg_address.h"

static int parse_number(const char *s, int max, int *out)
{
	char *end;
	guint64 v;

	if (!*s || !g_ascii_isdigit(*s))
		return VG_EINVAL;
	v = g_ascii_strtoull(s, &end, 10);
	if (*end || v > (guint64)max)
		return VG_EINVAL;
	*out = (int)v;
	return VG_OK;
}

int vg_address_parse(const char *text, char **host, int *port)
{
	g_autofree char *h = NULL;
	const char *rest;
	int n;

	if (!text || !*text)
		return VG_EINVAL;
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close || close == text + 1)
			return VG_EINVAL;
		h = g_strndup(text + 1, (gsize)(close - text - 1));
		rest = close + 1;
	} else {
		const char *colon = strchr(text, ':');
		h = colon ? g_strndup(text, (gsize)(colon - text)) : g_strdup(text);
		rest = colon ? colon : text + strlen(text);
	}
	if (!*h) {
		g_free(h);
		h = g_strdup("localhost");
	}
	if (!*rest) {
		*port = 5900;
	} else if (rest[0] == ':' && rest[1] == ':') {
		if (parse_number(rest + 2, 65535, &n) || n == 0)
			return VG_EINVAL;
		*port = n;
	} else if (rest[0] == ':') {
		if (parse_number(rest + 1, 65535 - 5900, &n))
			return VG_EINVAL;
		*port = 5900 + n;
	} else {
		return VG_EINVAL;
	}
	if (strpbrk(h, " \t/"))
		return VG_EINVAL;
	*host = g_steal_pointer(&h);
	return VG_OK;
}
