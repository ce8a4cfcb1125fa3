#include "common/vg_cmdline.h"

#include <string.h>

#include "common/vg_error.h"

void vg_cmdline_double_dashes(int argc, char **argv, const GOptionEntry *entries, GPtrArray *owned)
{
	const GOptionEntry *e;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t n;

		if (strcmp(a, "--") == 0)
			return;
		if (a[0] != '-' || a[1] == '-' || strlen(a) < 3)
			continue;
		n = strcspn(a + 1, "=");
		for (e = entries; e->long_name; e++) {
			if (strlen(e->long_name) == n && strncmp(e->long_name, a + 1, n) == 0) {
				argv[i] = g_strconcat("-", a, NULL);
				g_ptr_array_add(owned, argv[i]);
				break;
			}
		}
	}
}

int vg_cmdline_parse_size(const char *text, uint64_t *out)
{
	char *end;
	guint64 v, mult = 1;

	if (!text || !g_ascii_isdigit(*text))
		return VG_EINVAL;
	v = g_ascii_strtoull(text, &end, 10);
	switch (g_ascii_toupper(*end)) {
	case 'K': mult = 1u << 10; end++; break;
	case 'M': mult = 1u << 20; end++; break;
	case 'G': mult = 1u << 30; end++; break;
	case 'T': mult = (guint64)1 << 40; end++; break;
	case '\0': break;
	default: return VG_EINVAL;
	}
	if (g_ascii_toupper(*end) == 'B')
		end++;
	if (*end || v == 0 || v > G_MAXUINT64 / mult)
		return VG_EINVAL;
	*out = v * mult;
	return VG_OK;
}

int vg_cmdline_parse_pow2(const char *text, unsigned min_log, unsigned max_log, unsigned *log)
{
	uint64_t v;

	if (text && strcmp(text, "0") == 0) {
		*log = 0;
		return VG_OK;
	}
	if (vg_cmdline_parse_size(text, &v) || (v & (v - 1)) || v < ((uint64_t)1 << min_log) ||
	    v > ((uint64_t)1 << max_log))
		return VG_EINVAL;
	*log = (unsigned)__builtin_ctzll(v);
	return VG_OK;
}
