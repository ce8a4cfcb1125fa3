/* The viewer's book of servers. Each address HOST::PORT is a group of the
 * key file (URI-escaped: "[::1]::5901" is no group name) with two keys,
 * `host` and `server`, the identity in hex; groups are kept in the order
 * noted, the latest last, and the oldest dropped past VG_SERVERBOOK_MAX.
 * Written by replacing the file, so a viewer that dies midway leaves the
 * old book. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "capture/vg_serverbook.h"
#include "common/vg_error.h"
#include "common/vg_id.h"
#include "fingerprint/cache/vg_segcache.h"

static GKeyFile *load(const char *cache_dir)
{
	g_autofree char *path = g_build_filename(cache_dir, "servers", NULL);
	GKeyFile *kf = g_key_file_new();

	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL)) {
		g_key_file_free(kf);
		kf = g_key_file_new();
	}
	return kf;
}

/* True when the namespace of the server named by hex exists. */
static bool has_namespace(const char *cache_dir, const char *hex)
{
	g_autofree char *dir = NULL;

	return hex && strlen(hex) == 32 && vg_segcache_namespace_dir(cache_dir, hex, &dir) == 0 &&
	       g_file_test(dir, G_FILE_TEST_IS_DIR);
}

bool vg_serverbook_knows_host(const char *cache_dir, const char *host)
{
	GKeyFile *kf;
	gchar **groups;
	bool known = false;
	gsize i, n;

	if (!cache_dir || !host)
		return false;
	kf = load(cache_dir);
	groups = g_key_file_get_groups(kf, &n);
	for (i = 0; i < n && !known; i++) {
		g_autofree char *h = g_key_file_get_string(kf, groups[i], "host", NULL);
		g_autofree char *hex = g_key_file_get_string(kf, groups[i], "server", NULL);

		known = h && strcmp(h, host) == 0 && has_namespace(cache_dir, hex);
	}
	g_strfreev(groups);
	g_key_file_free(kf);
	return known;
}

int vg_serverbook_note(const char *cache_dir, const char *host, int port, const uint8_t id[16])
{
	g_autofree char *path = NULL, *data = NULL, *address = NULL, *group = NULL;
	char hex[VG_ID_HEX_LEN + 1];
	GKeyFile *kf;
	gchar **groups;
	gsize n, len;
	bool ok;
	int i;

	if (!cache_dir || !host || !*host)
		return VG_EINVAL;
	vg_id_to_hex(id, hex);
	address = g_strdup_printf("%s::%d", host, port);
	group = g_uri_escape_string(address, NULL, FALSE);
	kf = load(cache_dir);
	/* Removed first, so that it is noted last. */
	g_key_file_remove_group(kf, group, NULL);
	groups = g_key_file_get_groups(kf, &n);
	for (i = 0; n + 1 > VG_SERVERBOOK_MAX && groups[i]; i++, n--)
		g_key_file_remove_group(kf, groups[i], NULL);
	g_strfreev(groups);
	g_key_file_set_string(kf, group, "host", host);
	g_key_file_set_string(kf, group, "server", hex);
	data = g_key_file_to_data(kf, &len, NULL);
	g_key_file_free(kf);
	path = g_build_filename(cache_dir, "servers", NULL);
	ok = g_mkdir_with_parents(cache_dir, 0700) == 0 && g_file_set_contents(path, data, (gssize)len, NULL);
	return ok ? VG_OK : VG_EIO;
}
