#include "server/vg_serverkey.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_id.h"

/* The identity in hex and a newline. */
#define KEY_TEXT (VG_ID_HEX_LEN + 1)

struct vg_serverkey {
	int fd;                   /* holds the slot's lock */
	char *path;
};

static int parse_key(const char *text, size_t len, uint8_t id[16])
{
	if (len != KEY_TEXT || text[VG_ID_HEX_LEN] != '\n')
		return VG_ECORRUPT;
	return vg_id_from_hex(text, id) ? VG_OK : VG_ECORRUPT;
}

static int new_key(int fd, uint8_t id[16])
{
	char text[KEY_TEXT + 1];

	if (getrandom(id, 16, 0) != 16)
		return VG_EIO;
	vg_id_to_hex(id, text);
	text[VG_ID_HEX_LEN] = '\n';
	if (ftruncate(fd, 0) != 0 || pwrite(fd, text, KEY_TEXT, 0) != KEY_TEXT || fsync(fd) != 0)
		return VG_EIO;
	return VG_OK;
}

/* Reads the slot's key, or makes one. With the slot locked. */
static int load(int fd, uint8_t id[16], int *replaced)
{
	char text[KEY_TEXT + 1];
	ssize_t n = pread(fd, text, sizeof text, 0);

	if (n < 0)
		return VG_EIO;
	if (n > 0 && parse_key(text, (size_t)n, id) == VG_OK)
		return VG_OK;
	*replaced = n > 0;
	return new_key(fd, id);
}

int vg_serverkey_open(const char *dir, uint8_t id[16], int *replaced, vg_serverkey **out)
{
	*replaced = 0;
	if (g_mkdir_with_parents(dir, 0700) != 0)
		return VG_EIO;
	for (int slot = 1; slot <= VG_SERVERKEY_SLOTS; slot++) {
		g_autofree char *name = slot == 1 ? g_strdup("server-key") : g_strdup_printf("server-key-%d", slot);
		char *path = g_build_filename(dir, name, NULL);
		int err, fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0) {
			g_free(path);
			return VG_EIO;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			err = errno;
			close(fd);
			g_free(path);
			if (err == EWOULDBLOCK)
				continue;
			return VG_EIO;
		}
		if ((err = load(fd, id, replaced))) {
			close(fd);
			g_free(path);
			return err;
		}
		*out = g_new0(vg_serverkey, 1);
		(*out)->fd = fd;
		(*out)->path = path;
		return VG_OK;
	}
	return VG_EBUSY;
}

const char *vg_serverkey_path(const vg_serverkey *k)
{
	return k->path;
}

void vg_serverkey_free(vg_serverkey *k)
{
	if (!k)
		return;
	close(k->fd);
	g_free(k->path);
	g_free(k);
}
