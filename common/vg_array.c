#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_array.h"
#include "common/vg_mem.h"

vg_array *vg_array_new(size_t elem_size)
{
	vg_array *a = VG_NEW0(vg_array, 1);

	assert(elem_size > 0);
	a->elem_size = elem_size;
	return a;
}

void vg_array_free(vg_array *a)
{
	if (!a)
		return;
	free(a->data);
	free(a);
}

/* Makes room for len elements, doubling so that appends take amortised
 * constant time. */
static void reserve(vg_array *a, size_t len)
{
	size_t cap = a->cap ? a->cap : 16;

	if (len <= a->cap)
		return;
	while (cap < len) {
		if (cap > (size_t)-1 / 2)
			vg_mem_die("vg_array: %zu elements overflow", len);
		cap *= 2;
	}
	a->data = vg_mem_realloc_n(a->data, cap, a->elem_size);
	a->cap = cap;
}

void vg_array_append(vg_array *a, const void *elems, size_t n)
{
	if (n == 0)
		return;
	if (a->len + n < a->len)
		vg_mem_die("vg_array: %zu + %zu elements overflow", a->len, n);
	reserve(a, a->len + n);
	memcpy((char *)a->data + a->len * a->elem_size, elems, n * a->elem_size);
	a->len += n;
}

void vg_array_set_len(vg_array *a, size_t len)
{
	reserve(a, len);
	a->len = len;
}

void vg_array_remove(vg_array *a, size_t index, size_t n)
{
	char *d = a->data;

	assert(index <= a->len && n <= a->len - index);
	if (n == 0)
		return;
	memmove(d + index * a->elem_size, d + (index + n) * a->elem_size,
		(a->len - index - n) * a->elem_size);
	a->len -= n;
}

void vg_array_pop(vg_array *a, void *elem)
{
	assert(a->len > 0);
	a->len--;
	memcpy(elem, (char *)a->data + a->len * a->elem_size, a->elem_size);
}

void vg_array_sort(vg_array *a, int (*compare)(const void *, const void *))
{
	if (a->len > 1)
		qsort(a->data, a->len, a->elem_size, compare);
}
