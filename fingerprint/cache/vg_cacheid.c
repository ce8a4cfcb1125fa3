#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <zlib.h>

#include "common/vg_error.h"
#include "common/vg_file.h"
#include "common/vg_log.h"
#include "common/vg_mem.h"
#include "fingerprint/cache/vg_cacheid.h"

/* File: magic, u32 LE version, the identity, CRC-32 (LE) of the rest. */
#define MAGIC "VARGCID1"
#define FILE_BYTES (8 + 4 + VG_CACHEID_BYTES + 4)

int vg_cacheid_random(uint8_t id[VG_CACHEID_BYTES])
{
	size_t have = 0;

	while (have < VG_CACHEID_BYTES) {
		ssize_t k = getrandom(id + have, VG_CACHEID_BYTES - have, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return VG_EIO;
		have += (size_t)k;
	}
	/* All zero means "no identity"; a random one is never that. */
	if (vg_cacheid_is_none(id))
		id[0] = 1;
	return VG_OK;
}

bool vg_cacheid_is_none(const uint8_t id[VG_CACHEID_BYTES])
{
	int i;

	for (i = 0; i < VG_CACHEID_BYTES; i++)
		if (id[i])
			return false;
	return true;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* True if buf holds a sound identity file; copies the identity to id. */
static bool parse(const uint8_t *buf, size_t len, uint8_t id[VG_CACHEID_BYTES])
{
	if (len != FILE_BYTES || memcmp(buf, MAGIC, 8) != 0 || get_le32(buf + 8) != 1 ||
	    get_le32(buf + FILE_BYTES - 4) != (uint32_t)crc32(0L, buf, FILE_BYTES - 4) ||
	    vg_cacheid_is_none(buf + 12))
		return false;
	memcpy(id, buf + 12, VG_CACHEID_BYTES);
	return true;
}

static int write_file(const char *path, const uint8_t id[VG_CACHEID_BYTES])
{
	uint8_t buf[FILE_BYTES];
	VG_AUTOFREE char *tmp = vg_mem_printf("%s.tmp-XXXXXX", path);
	int fd, ok;

	memcpy(buf, MAGIC, 8);
	put_le32(buf + 8, 1);
	memcpy(buf + 12, id, VG_CACHEID_BYTES);
	put_le32(buf + FILE_BYTES - 4, (uint32_t)crc32(0L, buf, FILE_BYTES - 4));
	fd = vg_file_temp(tmp);
	if (fd < 0)
		return VG_EIO;
	ok = write(fd, buf, sizeof buf) == (ssize_t)sizeof buf && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return VG_EIO;
	}
	return VG_OK;
}

int vg_cacheid_load(const char *dir, bool renew, uint8_t id[VG_CACHEID_BYTES], bool *created)
{
	VG_AUTOFREE char *path = vg_file_path(dir, VG_CACHEID_FILE, NULL);
	VG_AUTOFREE char *buf = NULL;
	size_t len = 0;
	uint8_t fresh[VG_CACHEID_BYTES];
	int err;

	if (created)
		*created = false;
	if (!renew && vg_file_read(path, &buf, &len) == 0) {
		if (parse((const uint8_t *)buf, len, id))
			return VG_OK;
		vg_warn("segment cache: %s is damaged; starting a new cache identity", path);
	}
	if ((err = vg_cacheid_random(fresh)) || (err = write_file(path, fresh)))
		return err;
	memcpy(id, fresh, VG_CACHEID_BYTES);
	if (created)
		*created = true;
	return VG_OK;
}
