/* getrandom() for the WebAssembly build: Emscripten's C library declares
 * it but does not implement it (it has no getrandom system call); its
 * getentropy() takes bytes from the browser's crypto.getRandomValues().
 * fingerprint/cache/vg_cacheid.c draws the cache identity from here. */
#include <errno.h>
#include <stddef.h>
#include <sys/random.h>
#include <unistd.h>

ssize_t getrandom(void *buf, size_t buflen, unsigned flags)
{
	/* getentropy gives at most 256 bytes a call; a short count is
	 * what getrandom may return, and callers loop. */
	size_t n = buflen < 256 ? buflen : 256;

	(void)flags;
	if (getentropy(buf, n) != 0)
		return -1;
	return (ssize_t)n;
}
