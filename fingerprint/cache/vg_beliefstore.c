#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_id.h"
#include "fingerprint/cache/vg_beliefstore.h"

#define SUFFIX ".vgb"
/* A temporary file older than this was left by a crash. */
#define STALE_TMP_S 600

struct vg_beliefstore {
	char *dir;
	unsigned max_viewers;
	size_t max_file_bytes;
};

char *vg_beliefstore_default_base_dir(void)
{
	return g_build_filename(g_get_user_state_dir(), "varg", "beliefs", NULL);
}

int vg_beliefstore_open(const vg_beliefstore_config *cfg, const uint8_t server_id[16],
			vg_beliefstore **out)
{
	g_autofree char *base = NULL;
	vg_beliefstore *st;
	char hex[VG_ID_HEX_LEN + 1];

	if (cfg->max_file_bytes && cfg->max_file_bytes < 4096)
		return VG_EINVAL;
	base = cfg->base_dir ? g_strdup(cfg->base_dir) : vg_beliefstore_default_base_dir();
	vg_id_to_hex(server_id, hex);
	st = g_new0(vg_beliefstore, 1);
	st->dir = g_build_filename(base, hex, NULL);
	st->max_viewers = cfg->max_viewers ? cfg->max_viewers : 64;
	st->max_file_bytes = cfg->max_file_bytes ? cfg->max_file_bytes : (16u << 20);
	/* Beliefs say what a viewer has seen: private, like the viewer's cache. */
	if (g_mkdir_with_parents(st->dir, 0700) != 0) {
		vg_beliefstore_free(st);
		return VG_EIO;
	}
	*out = st;
	return VG_OK;
}

void vg_beliefstore_free(vg_beliefstore *st)
{
	if (!st)
		return;
	g_free(st->dir);
	g_free(st);
}

const char *vg_beliefstore_dir(const vg_beliefstore *st)
{
	return st->dir;
}

size_t vg_beliefstore_max_file_bytes(const vg_beliefstore *st)
{
	return st->max_file_bytes;
}

static char *file_of(const vg_beliefstore *st, const uint8_t cache_id[16])
{
	char hex[VG_ID_HEX_LEN + 1], name[40];

	vg_id_to_hex(cache_id, hex);
	snprintf(name, sizeof name, "%s%s", hex, SUFFIX);
	return g_build_filename(st->dir, name, NULL);
}

int vg_beliefstore_read(const vg_beliefstore *st, const uint8_t cache_id[16], uint8_t **data,
			size_t *len)
{
	g_autofree char *path = file_of(st, cache_id);
	uint8_t *buf;
	struct stat sb;
	size_t have = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? VG_ENOENT : VG_EIO;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return VG_EIO;
	}
	if ((uint64_t)sb.st_size > st->max_file_bytes) {
		close(fd);
		return VG_ERANGE;
	}
	buf = g_malloc((size_t)sb.st_size + 1);
	/* Read until the end, not st_size: the bound is re-checked as we go. */
	for (;;) {
		ssize_t k = read(fd, buf + have, (size_t)sb.st_size + 1 - have);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			close(fd);
			g_free(buf);
			return VG_EIO;
		}
		if (k == 0)
			break;
		have += (size_t)k;
		if (have > (size_t)sb.st_size) {
			/* Grew while we read: another write is under way. */
			close(fd);
			g_free(buf);
			return VG_EIO;
		}
	}
	close(fd);
	*data = buf;
	*len = have;
	return VG_OK;
}

typedef struct {
	char *path;
	struct timespec mtime;
} entry;

static gint by_mtime(gconstpointer a, gconstpointer b)
{
	const entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Deletes the least recently written files beyond the bound, and
 * temporary files a crash left behind. */
static void prune(const vg_beliefstore *st)
{
	GArray *files = g_array_new(FALSE, FALSE, sizeof(entry));
	time_t now = time(NULL);
	struct dirent *de;
	DIR *d = opendir(st->dir);
	guint i;

	while (d && (de = readdir(d)) != NULL) {
		char *path;
		struct stat sb;
		entry e;

		if (strlen(de->d_name) == 32 + strlen(SUFFIX) && g_str_has_suffix(de->d_name, SUFFIX)) {
			path = g_build_filename(st->dir, de->d_name, NULL);
			if (stat(path, &sb) != 0) {
				g_free(path);
				continue;
			}
			e.path = path;
			e.mtime = sb.st_mtim;
			g_array_append_val(files, e);
		} else if (strstr(de->d_name, SUFFIX ".tmp-")) {
			path = g_build_filename(st->dir, de->d_name, NULL);
			if (stat(path, &sb) == 0 && now - sb.st_mtime > STALE_TMP_S)
				g_unlink(path);
			g_free(path);
		}
	}
	if (d)
		closedir(d);
	g_array_sort(files, by_mtime);
	for (i = 0; i < files->len; i++) {
		entry *e = &g_array_index(files, entry, i);

		if (files->len - i > st->max_viewers)
			g_unlink(e->path);
		g_free(e->path);
	}
	g_array_free(files, TRUE);
}

int vg_beliefstore_write(const vg_beliefstore *st, const uint8_t cache_id[16],
			 const uint8_t *data, size_t len)
{
	g_autofree char *path = file_of(st, cache_id);
	g_autofree char *tmp = g_strconcat(path, ".tmp-XXXXXX", NULL);
	size_t done = 0;
	int fd, err = VG_OK;

	if (len > st->max_file_bytes)
		return VG_ERANGE;
	fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return VG_EIO;
	while (done < len) {
		ssize_t k = write(fd, data + done, len - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			err = VG_EIO;
			break;
		}
		done += (size_t)k;
	}
	/* Data on disk before the name points at it: a crash leaves the old
	 * file or the new one. */
	if (!err && fsync(fd) != 0)
		err = VG_EIO;
	if (close(fd) != 0 && !err)
		err = VG_EIO;
	if (!err && rename(tmp, path) != 0)
		err = VG_EIO;
	if (err) {
		g_unlink(tmp);
		return err;
	}
	prune(st);
	return VG_OK;
}

void vg_beliefstore_remove(const vg_beliefstore *st, const uint8_t cache_id[16])
{
	g_autofree char *path = file_of(st, cache_id);

	g_unlink(path);
}
