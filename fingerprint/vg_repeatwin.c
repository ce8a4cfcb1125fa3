#include "fingerprint/vg_repeatwin.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_seghash.h"
#include "fingerprint/vg_proto.h"

#define MAGIC "VGWINDOW"
#define VERSION 1

uint64_t vg_repeatwin_digest(unsigned fp_bits, const vg_repeat_item *items, size_t n)
{
	uint64_t h = vg_seghash_fmix(VG_SEGHASH_SEED ^ fp_bits ^ ((uint64_t)n << 8));

	if (n == 0)
		return 0;
	/* Chained so that the order of the items counts, not only the set. */
	for (size_t i = 0; i < n; i++) {
		h = vg_seghash_fmix(h ^ items[i].key);
		h = vg_seghash_fmix(h ^ ((uint64_t)items[i].len << 1 | (items[i].keyed ? 1 : 0)));
	}
	return h ? h : 1;
}

void vg_repeatwin_write(const vg_repeat_item *items, size_t n, vg_writer *out)
{
	vg_writer_u32le(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		vg_writer_u64le(out, items[i].key);
		vg_writer_u32le(out, items[i].len);
		vg_writer_u8(out, items[i].keyed ? 1 : 0);
	}
}

int vg_repeatwin_read(vg_reader *r, GArray *out)
{
	uint32_t n, i;

	g_array_set_size(out, 0);
	if (vg_reader_u32le(r, &n))
		return VG_ETRUNC;
	if (n > VG_REPEAT_WINDOW)
		return VG_ECORRUPT;
	if (vg_reader_remaining(r) < (size_t)n * VG_REPEATWIN_ITEM_BYTES)
		return VG_ETRUNC;
	for (i = 0; i < n; i++) {
		vg_repeat_item it;
		uint8_t keyed;

		/* Cannot fail: the length was checked above. */
		vg_reader_u64le(r, &it.key);
		vg_reader_u32le(r, &it.len);
		vg_reader_u8(r, &keyed);
		if (it.len == 0 || keyed > 1) {
			g_array_set_size(out, 0);
			return VG_ECORRUPT;
		}
		it.keyed = keyed;
		g_array_append_val(out, it);
	}
	return VG_OK;
}

int vg_repeatwin_save(const char *dir, unsigned fp_bits, const vg_repeat_item *items, size_t n)
{
	g_autofree char *path = g_build_filename(dir, VG_REPEATWIN_FILE, NULL);
	g_autofree char *tmp = g_strconcat(path, ".tmp-XXXXXX", NULL);
	vg_writer w;
	int fd, ok;

	vg_writer_init(&w);
	vg_writer_bytes(&w, MAGIC, 8);
	vg_writer_u32le(&w, VERSION);
	vg_writer_u8(&w, (uint8_t)fp_bits);
	vg_repeatwin_write(items, n, &w);
	vg_writer_u32le(&w, (uint32_t)crc32(0L, w.data, (uInt)w.len));
	fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		vg_writer_clear(&w);
		return VG_EIO;
	}
	ok = write(fd, w.data, w.len) == (ssize_t)w.len && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	vg_writer_clear(&w);
	if (!ok || rename(tmp, path) != 0) {
		g_unlink(tmp);
		return VG_EIO;
	}
	return VG_OK;
}

int vg_repeatwin_load(const char *dir, unsigned *fp_bits, GArray *out)
{
	g_autofree char *path = g_build_filename(dir, VG_REPEATWIN_FILE, NULL);
	g_autofree gchar *buf = NULL;
	gsize len = 0;
	const uint8_t *p;
	vg_reader r;
	uint32_t version, crc;
	uint8_t bits;
	int err;

	g_array_set_size(out, 0);
	if (!g_file_get_contents(path, &buf, &len, NULL))
		return g_file_test(path, G_FILE_TEST_EXISTS) ? VG_EIO : VG_ENOENT;
	p = (const uint8_t *)buf;
	if (len < 8 || memcmp(p, MAGIC, 8) != 0)
		return VG_EFORMAT;
	vg_reader_init(&r, p + 8, len - 8);
	if (vg_reader_u32le(&r, &version))
		return VG_ETRUNC;
	if (version != VERSION)
		return VG_ENOTSUP;
	if (len < 8 + 4 + 1 + 4 + 4)
		return VG_ETRUNC;
	crc = (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 | (uint32_t)p[len - 2] << 16 |
	      (uint32_t)p[len - 1] << 24;
	if (crc != (uint32_t)crc32(0L, p, (uInt)(len - 4)))
		return VG_ECORRUPT;
	vg_reader_init(&r, p + 12, len - 16);
	if (vg_reader_u8(&r, &bits))
		return VG_ETRUNC;
	if ((err = vg_repeatwin_read(&r, out)))
		return err;
	if (vg_reader_remaining(&r) != 0 || bits < VG_FP_BITS_MIN || bits > VG_FP_BITS_MAX) {
		g_array_set_size(out, 0);
		return VG_ECORRUPT;
	}
	*fp_bits = bits;
	return VG_OK;
}
