/* A growable array of equal-sized elements, contiguous in data with their
 * count in len (the part of GLib's GArray that the receiver path uses).
 *
 * Growing cannot fail: memory comes from vg_mem, which aborts on
 * exhaustion. The array owns data; a pointer into it stays valid until the
 * next call that changes the array's length. Index with VG_ARRAY_AT().
 */
#ifndef VG_ARRAY_H
#define VG_ARRAY_H

#include <stddef.h>

typedef struct vg_array {
	void *data;       /* len elements of elem_size bytes; NULL while none were ever held */
	size_t len;
	size_t cap;       /* elements data has room for */
	size_t elem_size;
} vg_array;

/* Element i of a, of type type (not bounds-checked). */
#define VG_ARRAY_AT(a, type, i) (((type *)(a)->data)[(i)])

/* A new empty array of elements of elem_size bytes (not 0); free with
 * vg_array_free(). */
vg_array *vg_array_new(size_t elem_size);

/* Frees a and its elements; accepts NULL. */
void vg_array_free(vg_array *a);

/* Appends n elements copied from elems. */
void vg_array_append(vg_array *a, const void *elems, size_t n);

/* Sets the length to len: shortening drops the elements past it, growing
 * adds elements whose bytes are undefined. */
void vg_array_set_len(vg_array *a, size_t len);

/* Removes the n elements from index on (index + n <= len), keeping the
 * order of the rest. */
void vg_array_remove(vg_array *a, size_t index, size_t n);

/* Copies the last element into *elem and removes it (len > 0). */
void vg_array_pop(vg_array *a, void *elem);

/* Sorts the elements with qsort()'s compare. */
void vg_array_sort(vg_array *a, int (*compare)(const void *, const void *));

#endif
