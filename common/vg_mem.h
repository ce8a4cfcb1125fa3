/* Memory that never runs out: allocation that aborts the process when the
 * C library cannot give what is asked, so that callers need not check for
 * NULL (the rule GLib's g_malloc() follows; the receiver path uses this
 * module instead, so that it builds without GLib).
 *
 * Everything returned here comes from the C library's malloc(): release it
 * with free() (GLib's g_free() is free() too, since GLib 2.46). A request
 * for zero bytes returns NULL, as in GLib. Sizes given as a count and an
 * element size abort when their product overflows.
 */
#ifndef VG_MEM_H
#define VG_MEM_H

#include <stddef.h>

/* n bytes, uninitialised. */
void *vg_mem_alloc(size_t n);

/* n bytes, uninitialised, for a buffer about to be written whole: its
 * pages are made present in one call where the system can (Linux's
 * MADV_POPULATE_WRITE), not faulted in one at a time as the writes reach
 * them (256 faults a megabyte, each costly in a virtual machine). */
void *vg_mem_alloc_filled(size_t n);

/* count elements of size bytes, uninitialised. */
void *vg_mem_alloc_n(size_t count, size_t size);

/* count elements of size bytes, zeroed. */
void *vg_mem_alloc0_n(size_t count, size_t size);

/* n bytes, zeroed, for a large table read at random. On Linux, 2 MB
 * aligned and in pages of 2 MB where transparent huge pages allow it
 * (`madvise` mode, Debian's default): a lookup then finds its page among
 * the few the processor keeps at hand instead of walking the page
 * tables (the pixel model's 8 MB spans 2,000 small pages). The pages are
 * whole: n is rounded up to 2 MB. Elsewhere (the browser), calloc. */
void *vg_mem_alloc0_huge(size_t n);

/* Resizes p (NULL: a new block) to count elements of size bytes, keeping
 * its contents up to the smaller size; a size of zero frees p and returns
 * NULL. */
void *vg_mem_realloc_n(void *p, size_t count, size_t size);

/* A copy of the string s; NULL for NULL. */
char *vg_mem_strdup(const char *s);

/* A new string formatted as by printf(). */
char *vg_mem_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the message to standard error and aborts: for states that, like
 * exhausted memory, a caller cannot recover from. */
void vg_mem_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define VG_NEW(type, n) ((type *)vg_mem_alloc_n((size_t)(n), sizeof(type)))
#define VG_NEW0(type, n) ((type *)vg_mem_alloc0_n((size_t)(n), sizeof(type)))
#define VG_RENEW(type, p, n) ((type *)vg_mem_realloc_n((p), (size_t)(n), sizeof(type)))

/* A pointer variable declared VG_AUTOFREE is free()d when it goes out of
 * scope (GCC and Clang). */
void vg__mem_autofree(void *pp);
#define VG_AUTOFREE __attribute__((cleanup(vg__mem_autofree)))

#endif
