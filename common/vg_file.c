/* mkostemp() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_file.h"
#include "common/vg_mem.h"

char *vg_file_path(const char *first, ...)
{
	va_list ap;
	const char *p, *last = NULL;
	size_t total = 1, at = 0, lead = 0, trail = 0, nonempty = 0;
	bool any = false;
	char *s;

	va_start(ap, first);
	for (p = first; p; p = va_arg(ap, const char *)) {
		total += strlen(p) + 1;
		if (!*p)
			continue;
		if (!last)
			while (p[lead] == '/')
				lead++;
		last = p;
		nonempty++;
	}
	va_end(ap);
	/* One element of separators only stays as it is. */
	if (nonempty == 1 && last[lead] == '\0')
		return vg_mem_strdup(last);
	s = vg_mem_alloc(total);
	memset(s, '/', lead);
	at = lead;
	/* Each element without its separators at either end, one '/'
	 * between them. */
	va_start(ap, first);
	for (p = first; p; p = va_arg(ap, const char *)) {
		const char *e = p + strlen(p);

		while (*p == '/')
			p++;
		while (e > p && e[-1] == '/')
			e--;
		if (e == p)
			continue;
		if (any)
			s[at++] = '/';
		memcpy(s + at, p, (size_t)(e - p));
		at += (size_t)(e - p);
		any = true;
	}
	va_end(ap);
	/* The last element's trailing separators (all of it when it has
	 * nothing else). */
	if (last) {
		size_t n = strlen(last);

		while (trail < n && last[n - 1 - trail] == '/')
			trail++;
		memset(s + at, '/', trail);
		at += trail;
	}
	s[at] = '\0';
	return s;
}

int vg_file_read(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t have = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return VG_EIO;
	buf = vg_mem_alloc(cap);
	for (;;) {
		ssize_t k;

		if (have + 1 >= cap) {
			cap *= 2;
			buf = vg_mem_realloc_n(buf, cap, 1);
		}
		k = read(fd, buf + have, cap - have - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return VG_EIO;
		}
		if (k == 0)
			break;
		have += (size_t)k;
	}
	close(fd);
	buf[have] = '\0';
	*data = buf;
	*len = have;
	return VG_OK;
}

bool vg_file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int vg_file_mkdirs(const char *path, unsigned mode)
{
	char *fn;
	char *p;

	if (!path || !*path) {
		errno = EINVAL;
		return VG_EIO;
	}
	fn = vg_mem_strdup(path);
	p = fn;
	while (*p == '/')
		p++;
	/* Each prefix that ends before a separator, then the whole path. */
	do {
		while (*p && *p != '/')
			p++;
		if (*p)
			*p = '\0';
		else
			p = NULL;
		if (!vg_file_exists(fn)) {
			if (mkdir(fn, (mode_t)mode) != 0 && errno != EEXIST) {
				int e = errno;

				free(fn);
				errno = e;
				return VG_EIO;
			}
		} else if (!is_dir(fn)) {
			free(fn);
			errno = ENOTDIR;
			return VG_EIO;
		}
		if (p) {
			*p++ = '/';
			while (*p == '/')
				p++;
		}
	} while (p && *p);
	free(fn);
	return VG_OK;
}

int vg_file_temp(char *tmpl)
{
	return mkostemp(tmpl, O_CLOEXEC);
}

char *vg_file_user_cache_dir(void)
{
	const char *env = getenv("XDG_CACHE_HOME");
	struct passwd *pw;

	if (env && *env)
		return vg_mem_strdup(env);
	env = getenv("HOME");
	if (env && *env)
		return vg_file_path(env, ".cache", NULL);
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir)
		return vg_file_path(pw->pw_dir, ".cache", NULL);
	return vg_mem_strdup("/tmp/.cache");
}
