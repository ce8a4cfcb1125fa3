/* vg_killat.so: kills the process that preloads it (SIGKILL) right after
 * its N-th change to a file under a directory, so that a test can stop a
 * program at every point of its saves and look at what it left behind.
 *
 *   VG_KILLAT_DIR=/path      only files under it count (required)
 *   VG_KILLAT=N              kill after change N (1-based; 0 or unset: never)
 *   VG_KILLAT_COUNT=FILE     at a normal exit, write the number of changes
 *
 * Changes are what survive a killed process: a write or pwrite to such a
 * file, ftruncate, an open that creates or truncates one (not an open of
 * one that is already there), rename and unlink. A killed process loses
 * nothing the kernel already has, so the files after change N are exactly
 * what a kill between N and N+1 leaves. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static long changes;

static const char *watched(void)
{
	const char *d = getenv("VG_KILLAT_DIR");

	return d && *d ? d : NULL;
}

static int under(const char *path)
{
	const char *d = watched();
	size_t n;

	if (!d || !path)
		return 0;
	n = strlen(d);
	return strncmp(path, d, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int fd_under(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	if (!watched())
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return under(path);
}

static void changed(void)
{
	const char *n = getenv("VG_KILLAT");

	changes++;
	if (n && atol(n) > 0 && changes == atol(n))
		kill(getpid(), SIGKILL);
}

__attribute__((destructor)) static void report(void)
{
	const char *f = getenv("VG_KILLAT_COUNT");
	FILE *out;

	if (!f || !*f || !(out = fopen(f, "w")))
		return;
	fprintf(out, "%ld\n", changes);
	fclose(out);
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t n)
{
	int counted = fd > 2 && fd_under(fd);
	ssize_t r = NEXT(write)(fd, buf, n);

	if (counted && r > 0)
		changed();
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t r = NEXT(pwrite)(fd, buf, n, off);

	if (r > 0 && fd_under(fd))
		changed();
	return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	ssize_t r = NEXT(pwrite64)(fd, buf, n, off);

	if (r > 0 && fd_under(fd))
		changed();
	return r;
}

int ftruncate(int fd, off_t len)
{
	int r = NEXT(ftruncate)(fd, len);

	if (r == 0 && fd_under(fd))
		changed();
	return r;
}

int ftruncate64(int fd, off64_t len)
{
	int r = NEXT(ftruncate64)(fd, len);

	if (r == 0 && fd_under(fd))
		changed();
	return r;
}

/* Whether an open with flags may create path: then whether it exists is
 * asked first, since an open of a file that is already there (a lock, a
 * key) changes nothing. */
static int creates(const char *path, int flags)
{
	return (flags & O_CREAT) && under(path) && access(path, F_OK) != 0;
}

static int opened(const char *path, int flags, int created, int r)
{
	if (r >= 0 && (created || ((flags & O_TRUNC) && under(path))))
		changed();
	return r;
}

int open(const char *path, int flags, ...)
{
	int created = creates(path, flags);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return opened(path, flags, created, NEXT(open)(path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
	int created = creates(path, flags);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return opened(path, flags, created, NEXT(open64)(path, flags, mode));
}

int rename(const char *from, const char *to)
{
	int r = NEXT(rename)(from, to);

	if (r == 0 && (under(from) || under(to)))
		changed();
	return r;
}

int unlink(const char *path)
{
	int r = NEXT(unlink)(path);

	if (r == 0 && under(path))
		changed();
	return r;
}
