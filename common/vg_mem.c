#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/vg_mem.h"

void vg_mem_die(const char *fmt, ...)
{
	va_list ap;

	fputs("fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static size_t product(size_t count, size_t size)
{
	if (size != 0 && count > (size_t)-1 / size)
		vg_mem_die("allocation of %zu x %zu bytes overflows", count, size);
	return count * size;
}

void *vg_mem_alloc(size_t n)
{
	void *p;

	if (n == 0)
		return NULL;
	p = malloc(n);
	if (!p)
		vg_mem_die("out of memory allocating %zu bytes", n);
	return p;
}

void *vg_mem_alloc_filled(size_t n)
{
	void *p = vg_mem_alloc(n);
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);

	/* A hint: an older kernel refuses it, and the pages fault as usual. */
	if (p && e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#endif
	return p;
}

void *vg_mem_alloc_n(size_t count, size_t size)
{
	return vg_mem_alloc(product(count, size));
}

void *vg_mem_alloc0_n(size_t count, size_t size)
{
	size_t n = product(count, size);
	void *p;

	if (n == 0)
		return NULL;
	p = calloc(1, n);
	if (!p)
		vg_mem_die("out of memory allocating %zu bytes", n);
	return p;
}

void *vg_mem_alloc0_huge(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const size_t huge = (size_t)2 << 20;
	size_t rounded;
	void *p = NULL;

	if (n == 0)
		return NULL;
	rounded = (n + huge - 1) & ~(huge - 1);
	if (rounded < n || posix_memalign(&p, huge, rounded) != 0)
		vg_mem_die("out of memory allocating %zu bytes", n);
	/* A hint: without transparent huge pages the pages are small. */
	(void)madvise(p, rounded, MADV_HUGEPAGE);
	memset(p, 0, n);
	return p;
#else
	return vg_mem_alloc0_n(n, 1);
#endif
}

void *vg_mem_realloc_n(void *p, size_t count, size_t size)
{
	size_t n = product(count, size);
	void *q;

	if (n == 0) {
		free(p);
		return NULL;
	}
	q = realloc(p, n);
	if (!q)
		vg_mem_die("out of memory allocating %zu bytes", n);
	return q;
}

char *vg_mem_strdup(const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = vg_mem_alloc(n);
	memcpy(d, s, n);
	return d;
}

char *vg_mem_printf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		vg_mem_die("vg_mem_printf: cannot format \"%s\"", fmt);
	s = vg_mem_alloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void vg__mem_autofree(void *pp)
{
	free(*(void **)pp);
}
