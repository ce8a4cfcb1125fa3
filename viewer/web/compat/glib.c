/* The subset of GLib that fingerprint/ and common/ use, for the
 * WebAssembly build, where GLib is not available (see glib.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

/* Memory. */

static void out_of_memory(gsize n)
{
	g_error("out of memory allocating %zu bytes", (size_t)n);
}

gpointer g_malloc(gsize n)
{
	gpointer p;

	if (n == 0)
		return NULL;
	p = malloc(n);
	if (!p)
		out_of_memory(n);
	return p;
}

gpointer g_realloc(gpointer p, gsize n)
{
	gpointer q;

	if (n == 0) {
		free(p);
		return NULL;
	}
	q = realloc(p, n);
	if (!q)
		out_of_memory(n);
	return q;
}

void g_free(gpointer p)
{
	free(p);
}

static gsize mul_or_die(gsize a, gsize b)
{
	if (b != 0 && a > (gsize)-1 / b)
		g_error("allocation of %zu x %zu bytes overflows", (size_t)a, (size_t)b);
	return a * b;
}

gpointer g_malloc_n(gsize n_structs, gsize struct_size)
{
	return g_malloc(mul_or_die(n_structs, struct_size));
}

gpointer g_malloc0_n(gsize n_structs, gsize struct_size)
{
	gsize n = mul_or_die(n_structs, struct_size);
	gpointer p;

	if (n == 0)
		return NULL;
	p = calloc(1, n);
	if (!p)
		out_of_memory(n);
	return p;
}

gpointer g_realloc_n(gpointer p, gsize n_structs, gsize struct_size)
{
	return g_realloc(p, mul_or_die(n_structs, struct_size));
}

/* Messages. */

void g_error(const char *fmt, ...)
{
	va_list ap;

	fputs("** ERROR **: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Strings. */

gchar *g_strdup(const gchar *s)
{
	size_t n;
	gchar *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = g_malloc(n);
	memcpy(d, s, n);
	return d;
}

gchar *g_strdup_printf(const gchar *fmt, ...)
{
	va_list ap;
	int n;
	gchar *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		g_error("g_strdup_printf: bad format \"%s\"", fmt);
	s = g_malloc((gsize)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

gchar *g_strconcat(const gchar *first, ...)
{
	va_list ap;
	const gchar *p;
	size_t total = 0, at = 0;
	gchar *s;

	if (!first)
		return NULL;
	va_start(ap, first);
	for (p = first; p; p = va_arg(ap, const gchar *))
		total += strlen(p);
	va_end(ap);
	s = g_malloc(total + 1);
	va_start(ap, first);
	for (p = first; p; p = va_arg(ap, const gchar *)) {
		size_t n = strlen(p);

		memcpy(s + at, p, n);
		at += n;
	}
	va_end(ap);
	s[at] = '\0';
	return s;
}

gboolean g_str_has_suffix(const gchar *s, const gchar *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

const gchar *g_strerror(gint errnum)
{
	return strerror(errnum);
}

gboolean g_ascii_isalnum(gchar c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* SHA-256 (FIPS 180-4), for g_compute_checksum_for_string. */

typedef struct {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t block[64];
	size_t fill;
} sha256;

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(sha256 *c, const uint8_t *p)
{
	uint32_t w[64], a, b, cc, d, e, f, g, h;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
	e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
			      sha256_k[i] + w[i];
		uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));

		h = g, g = f, f = e, e = d + t1;
		d = cc, cc = b, b = a, a = t1 + t2;
	}
	c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d;
	c->h[4] += e, c->h[5] += f, c->h[6] += g, c->h[7] += h;
}

static void sha256_init(sha256 *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(c->h, iv, sizeof iv);
	c->bytes = 0;
	c->fill = 0;
}

static void sha256_update(sha256 *c, const uint8_t *p, size_t n)
{
	c->bytes += n;
	while (n > 0) {
		size_t k = MIN(n, 64 - c->fill);

		memcpy(c->block + c->fill, p, k);
		c->fill += k, p += k, n -= k;
		if (c->fill == 64) {
			sha256_block(c, c->block);
			c->fill = 0;
		}
	}
}

static void sha256_final(sha256 *c, uint8_t out[32])
{
	uint64_t bits = c->bytes * 8;
	uint8_t pad[72] = { 0x80 };
	size_t padn = (c->fill < 56 ? 56 : 120) - c->fill;
	int i;

	for (i = 0; i < 8; i++)
		pad[padn + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(c, pad, padn + 8);
	for (i = 0; i < 32; i++)
		out[i] = (uint8_t)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

gchar *g_compute_checksum_for_string(GChecksumType type, const gchar *s, gssize length)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t digest[32];
	gchar *text;
	sha256 c;
	int i;

	if (type != G_CHECKSUM_SHA256)
		return NULL;
	sha256_init(&c);
	sha256_update(&c, (const uint8_t *)s, length < 0 ? strlen(s) : (size_t)length);
	sha256_final(&c, digest);
	text = g_malloc(65);
	for (i = 0; i < 32; i++) {
		text[2 * i] = hex[digest[i] >> 4];
		text[2 * i + 1] = hex[digest[i] & 15];
	}
	text[64] = '\0';
	return text;
}

/* Files. */

gchar *g_build_filename(const gchar *first, ...)
{
	va_list ap;
	const gchar *p;
	size_t total = 1, at = 0, lead = 0;
	gboolean is_first = TRUE;
	gchar *s;

	va_start(ap, first);
	for (p = first; p; p = va_arg(ap, const gchar *))
		total += strlen(p) + 1;
	va_end(ap);
	s = g_malloc(total);
	/* Separators between elements collapse to one; the first element
	 * keeps its leading ones, the last its trailing ones. */
	va_start(ap, first);
	for (p = first; p; p = va_arg(ap, const gchar *), is_first = FALSE) {
		if (is_first) {
			while (p[lead] == '/')
				lead++;
		} else if (at > 0) {
			const gchar *q = p;

			while (*q == '/')
				q++;
			if (*q == '\0') {
				/* Only separators: one stays unless more follows. */
				if (q != p && s[at - 1] != '/')
					s[at++] = '/';
				continue;
			}
			p = q;
			while (at > lead && at > 1 && s[at - 1] == '/')
				at--;
			if (s[at - 1] != '/')
				s[at++] = '/';
		}
		memcpy(s + at, p, strlen(p));
		at += strlen(p);
	}
	va_end(ap);
	s[at] = '\0';
	return s;
}

gboolean g_file_test(const gchar *filename, GFileTest test)
{
	struct stat st;

	if (stat(filename, &st) != 0)
		return FALSE;
	if (test & G_FILE_TEST_EXISTS)
		return TRUE;
	if ((test & G_FILE_TEST_IS_REGULAR) && S_ISREG(st.st_mode))
		return TRUE;
	if ((test & G_FILE_TEST_IS_DIR) && S_ISDIR(st.st_mode))
		return TRUE;
	return FALSE;
}

gboolean g_file_get_contents(const gchar *filename, gchar **contents, gsize *length,
			     GError **error)
{
	int fd = open(filename, O_RDONLY | O_CLOEXEC);
	size_t have = 0, cap = 4096;
	gchar *buf;

	(void)error;
	if (fd < 0)
		return FALSE;
	buf = g_malloc(cap);
	for (;;) {
		ssize_t k;

		if (have + 1 >= cap)
			buf = g_realloc(buf, cap *= 2);
		k = read(fd, buf + have, cap - have - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			g_free(buf);
			close(fd);
			errno = e;
			return FALSE;
		}
		if (k == 0)
			break;
		have += (size_t)k;
	}
	close(fd);
	buf[have] = '\0';
	*contents = buf;
	if (length)
		*length = have;
	return TRUE;
}

gint g_mkdir_with_parents(const gchar *pathname, gint mode)
{
	gchar *path;
	gchar *p;
	struct stat st;

	if (!pathname || !*pathname) {
		errno = EINVAL;
		return -1;
	}
	path = g_strdup(pathname);
	/* Each prefix ending before a separator, then the whole path. */
	for (p = path + 1;; p++) {
		gchar c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, (mode_t)mode) != 0 &&
		    !(errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
			int e = errno == EEXIST ? ENOTDIR : errno;

			g_free(path);
			errno = e;
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	g_free(path);
	return 0;
}

gint g_mkstemp_full(gchar *tmpl, gint flags, gint mode)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint64_t state;
	size_t n = strlen(tmpl);
	gchar *x;
	int attempt;

	if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
		errno = EINVAL;
		return -1;
	}
	x = tmpl + n - 6;
	if (state == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		state = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) | 1;
	}
	/* Names need only differ: O_EXCL refuses an existing one. */
	for (attempt = 0; attempt < 100; attempt++) {
		int i, fd;

		for (i = 0; i < 6; i++) {
			state ^= state << 13, state ^= state >> 7, state ^= state << 17;
			x[i] = letters[state % (sizeof letters - 1)];
		}
		fd = open(tmpl, flags | O_CREAT | O_EXCL, (mode_t)mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

const gchar *g_get_user_cache_dir(void)
{
	static gchar *dir;
	const char *env;

	if (dir)
		return dir;
	if ((env = getenv("XDG_CACHE_HOME")) && *env)
		dir = g_strdup(env);
	else if ((env = getenv("HOME")) && *env)
		dir = g_build_filename(env, ".cache", NULL);
	else
		dir = g_strdup("/tmp/.cache");
	return dir;
}

/* GArray. */

typedef struct {
	GArray pub;
	guint elt;
	guint cap;      /* elements allocated, the terminator's included */
	gboolean zero_terminated;
	gboolean clear;
} real_array;

GArray *g_array_new(gboolean zero_terminated, gboolean clear, guint element_size)
{
	real_array *a = g_new0(real_array, 1);

	a->elt = element_size;
	a->zero_terminated = zero_terminated;
	a->clear = clear;
	return &a->pub;
}

/* Makes room for len elements (and the terminator). */
static void array_reserve(real_array *a, guint len)
{
	gsize need = (gsize)len + (a->zero_terminated ? 1 : 0);
	gsize cap = a->cap ? a->cap : 16;

	if (need <= a->cap)
		return;
	while (cap < need)
		cap *= 2;
	a->pub.data = g_realloc_n(a->pub.data, cap, a->elt);
	a->cap = (guint)cap;
}

static void array_terminate(real_array *a)
{
	if (a->zero_terminated)
		memset(a->pub.data + (gsize)a->pub.len * a->elt, 0, a->elt);
}

gchar *g_array_free(GArray *array, gboolean free_segment)
{
	gchar *data = array->data;

	g_free(array);
	if (free_segment) {
		g_free(data);
		return NULL;
	}
	return data;
}

GArray *g_array_append_vals(GArray *array, gconstpointer data, guint len)
{
	real_array *a = (real_array *)array;

	if (len == 0)
		return array;
	array_reserve(a, array->len + len);
	memcpy(array->data + (gsize)array->len * a->elt, data, (gsize)len * a->elt);
	array->len += len;
	array_terminate(a);
	return array;
}

GArray *g_array_set_size(GArray *array, guint length)
{
	real_array *a = (real_array *)array;

	if (length > array->len) {
		array_reserve(a, length);
		if (a->clear)
			memset(array->data + (gsize)array->len * a->elt, 0,
			       (gsize)(length - array->len) * a->elt);
	}
	array->len = length;
	if (array->data)
		array_terminate(a);
	return array;
}

GArray *g_array_remove_range(GArray *array, guint index, guint length)
{
	real_array *a = (real_array *)array;

	if (index > array->len || length > array->len - index)
		g_error("g_array_remove_range: %u + %u beyond %u", index, length, array->len);
	memmove(array->data + (gsize)index * a->elt, array->data + (gsize)(index + length) * a->elt,
		(gsize)(array->len - index - length) * a->elt);
	array->len -= length;
	if (array->data)
		array_terminate(a);
	return array;
}

void g_array_sort(GArray *array, GCompareFunc compare)
{
	real_array *a = (real_array *)array;

	if (array->len > 1)
		qsort(array->data, array->len, a->elt, compare);
}

/* GPtrArray. */

typedef struct {
	GPtrArray pub;
	guint cap;
} real_ptr_array;

GPtrArray *g_ptr_array_new(void)
{
	return &g_new0(real_ptr_array, 1)->pub;
}

gpointer *g_ptr_array_free(GPtrArray *array, gboolean free_segment)
{
	gpointer *pdata = array->pdata;

	g_free(array);
	if (free_segment) {
		g_free(pdata);
		return NULL;
	}
	return pdata;
}

void g_ptr_array_add(GPtrArray *array, gpointer data)
{
	real_ptr_array *a = (real_ptr_array *)array;

	if (array->len == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		array->pdata = g_renew(gpointer, array->pdata, a->cap);
	}
	array->pdata[array->len++] = data;
}

gpointer g_ptr_array_steal_index(GPtrArray *array, guint index)
{
	gpointer p;

	if (index >= array->len)
		g_error("g_ptr_array_steal_index: %u beyond %u", index, array->len);
	p = array->pdata[index];
	memmove(array->pdata + index, array->pdata + index + 1,
		(gsize)(array->len - index - 1) * sizeof(gpointer));
	array->len--;
	return p;
}

gpointer g_ptr_array_remove_index(GPtrArray *array, guint index)
{
	return g_ptr_array_steal_index(array, index);
}
