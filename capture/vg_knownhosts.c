/* The known-hosts store. Each address HOST::PORT is a group of the key
 * file (URI-escaped, as in the book of servers) with one key, `sha256`,
 * the fingerprint as vg_tls_fingerprint_format writes it. */
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "capture/vg_knownhosts.h"
#include "common/vg_error.h"

#define FILE_NAME "known-hosts"

char *vg_knownhosts_path(const char *dir)
{
	return g_build_filename(dir, FILE_NAME, NULL);
}

static char *group_of(const char *host, int port)
{
	g_autofree char *address = g_strdup_printf("%s::%d", host, port);

	return g_uri_escape_string(address, NULL, FALSE);
}

/* Loads the store into *kf: VG_OK (an empty one when there is no file,
 * nor can be: dir is not a directory), VG_EFORMAT when the file is there
 * and cannot be read as a key file. */
static int load(const char *dir, GKeyFile **kf)
{
	g_autofree char *path = vg_knownhosts_path(dir);
	g_autoptr(GError) error = NULL;

	*kf = g_key_file_new();
	if (g_key_file_load_from_file(*kf, path, G_KEY_FILE_NONE, &error))
		return VG_OK;
	if (g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
	    g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
		return VG_OK;
	g_key_file_free(*kf);
	*kf = NULL;
	return VG_EFORMAT;
}

int vg_knownhosts_lookup(const char *dir, const char *host, int port,
			 uint8_t fp[VG_TLS_FP_LEN])
{
	g_autofree char *group = NULL, *text = NULL;
	GKeyFile *kf;
	int err;

	if (!dir || !host)
		return VG_EINVAL;
	if ((err = load(dir, &kf)))
		return err;
	group = group_of(host, port);
	text = g_key_file_get_string(kf, group, "sha256", NULL);
	if (!text)
		err = g_key_file_has_group(kf, group) ? VG_EFORMAT : VG_ENOENT;
	else if (vg_tls_fingerprint_parse(text, fp))
		err = VG_EFORMAT;
	g_key_file_free(kf);
	return err;
}

int vg_knownhosts_remember(const char *dir, const char *host, int port,
			   const uint8_t fp[VG_TLS_FP_LEN])
{
	g_autofree char *group = NULL, *data = NULL, *path = NULL;
	char text[VG_TLS_FP_TEXT];
	GKeyFile *kf;
	gsize len;
	bool ok;
	int err;

	if (!dir || !host || !*host)
		return VG_EINVAL;
	if ((err = load(dir, &kf)))
		return err;
	group = group_of(host, port);
	vg_tls_fingerprint_format(fp, text);
	g_key_file_set_string(kf, group, "sha256", text);
	data = g_key_file_to_data(kf, &len, NULL);
	g_key_file_free(kf);
	path = vg_knownhosts_path(dir);
	ok = g_mkdir_with_parents(dir, 0700) == 0 && g_file_set_contents(path, data, (gssize)len, NULL);
	return ok ? VG_OK : VG_EIO;
}
