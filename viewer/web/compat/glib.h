/* The subset of GLib that fingerprint/ and common/ use, for the
 * WebAssembly build, where GLib is not available.
 *
 * Only what the viewer's libraries call is here, with GLib's meaning:
 * allocation aborts on exhaustion instead of returning NULL, arrays keep
 * their elements contiguous in `data` / `pdata` with `len` beside them,
 * strings are freed with g_free(). Nothing here is thread-safe beyond
 * what the C library gives. The native build uses the real GLib; this
 * directory is put first on the include path by the web build only.
 */
#ifndef VG_COMPAT_GLIB_H
#define VG_COMPAT_GLIB_H

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Types. */
typedef int gboolean;
typedef char gchar;
typedef unsigned char guchar;
typedef int gint;
typedef unsigned int guint;
typedef uint8_t guint8;
typedef uint16_t guint16;
typedef uint32_t guint32;
typedef int64_t gint64;
typedef uint64_t guint64;
typedef size_t gsize;
typedef ssize_t gssize;
typedef void *gpointer;
typedef const void *gconstpointer;

typedef gint (*GCompareFunc)(gconstpointer a, gconstpointer b);

/* GError is not supported: every function taking one must be given NULL. */
typedef struct GError GError;

#ifndef FALSE
#define FALSE 0
#endif
#ifndef TRUE
#define TRUE 1
#endif

#undef MIN
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#undef MAX
#define MAX(a, b) (((a) > (b)) ? (a) : (b))
#define G_N_ELEMENTS(arr) (sizeof(arr) / sizeof((arr)[0]))

#define G_GUINT64_FORMAT PRIu64

/* Memory. Every allocator aborts when memory is exhausted; a request for
 * zero bytes returns NULL, as in GLib. */
gpointer g_malloc(gsize n);
gpointer g_realloc(gpointer p, gsize n);
void g_free(gpointer p);
/* n_structs * struct_size, aborting on overflow. */
gpointer g_malloc_n(gsize n_structs, gsize struct_size);
gpointer g_malloc0_n(gsize n_structs, gsize struct_size);
gpointer g_realloc_n(gpointer p, gsize n_structs, gsize struct_size);

#define g_new(type, n) ((type *)g_malloc_n((gsize)(n), sizeof(type)))
#define g_new0(type, n) ((type *)g_malloc0_n((gsize)(n), sizeof(type)))
#define g_renew(type, p, n) ((type *)g_realloc_n((p), (gsize)(n), sizeof(type)))

/* Calls destroy on *pp unless it is NULL, then sets *pp to NULL. */
#define g_clear_pointer(pp, destroy)                                 \
	do {                                                         \
		__typeof__(*(pp)) g_clear_pointer_p_ = *(pp);        \
		*(pp) = NULL;                                        \
		if (g_clear_pointer_p_)                              \
			(destroy)(g_clear_pointer_p_);               \
	} while (0)

/* A pointer variable declared g_autofree is g_free()d when it goes out
 * of scope. */
static inline void g_autoptr_cleanup_generic_gfree(void *p)
{
	void **pp = (void **)p;

	g_free(*pp);
}
#define g_autofree __attribute__((cleanup(g_autoptr_cleanup_generic_gfree)))

/* Messages. g_error() prints the message and aborts. */
void g_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define g_assert_not_reached()                                                   \
	g_error("%s:%d: %s: code should not be reached", __FILE__, __LINE__, __func__)

/* Strings. */
gchar *g_strdup(const gchar *s);
gchar *g_strdup_printf(const gchar *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Concatenates its arguments up to a NULL one. */
gchar *g_strconcat(const gchar *first, ...) __attribute__((sentinel));
gboolean g_str_has_suffix(const gchar *s, const gchar *suffix);
const gchar *g_strerror(gint errnum);
/* Locale-independent: ASCII letters and digits only. */
gboolean g_ascii_isalnum(gchar c);

/* Checksums: only SHA-256, as lowercase hex (64 characters). */
typedef enum { G_CHECKSUM_SHA256 = 2 } GChecksumType;
/* length -1: s is NUL-terminated. */
gchar *g_compute_checksum_for_string(GChecksumType type, const gchar *s, gssize length);

/* Files. */
/* Joins the elements up to a NULL one with single '/' separators. */
gchar *g_build_filename(const gchar *first, ...) __attribute__((sentinel));
typedef enum {
	G_FILE_TEST_IS_REGULAR = 1 << 0,
	G_FILE_TEST_IS_DIR = 1 << 2,
	G_FILE_TEST_EXISTS = 1 << 4,
} GFileTest;
/* True when any of the tests holds for path. */
gboolean g_file_test(const gchar *filename, GFileTest test);
/* Reads all of filename into a new NUL-terminated buffer; error must be
 * NULL (failure is told by the return value and errno only). */
gboolean g_file_get_contents(const gchar *filename, gchar **contents, gsize *length,
			     GError **error);
/* Creates the directory and its missing parents; 0, or -1 with errno. */
gint g_mkdir_with_parents(const gchar *pathname, gint mode);
/* Replaces the XXXXXX at the end of tmpl and creates that file
 * exclusively with flags and mode; the descriptor, or -1 with errno. */
gint g_mkstemp_full(gchar *tmpl, gint flags, gint mode);
/* $XDG_CACHE_HOME, else $HOME/.cache, else /tmp/.cache. */
const gchar *g_get_user_cache_dir(void);

/* GArray: elements of one size, contiguous in data. */
typedef struct {
	gchar *data;
	guint len;
} GArray;

GArray *g_array_new(gboolean zero_terminated, gboolean clear, guint element_size);
/* Frees the array and, when free_segment, its elements; otherwise returns
 * them (free with g_free). */
gchar *g_array_free(GArray *array, gboolean free_segment);
GArray *g_array_append_vals(GArray *array, gconstpointer data, guint len);
GArray *g_array_set_size(GArray *array, guint length);
GArray *g_array_remove_range(GArray *array, guint index, guint length);
void g_array_sort(GArray *array, GCompareFunc compare);
#define g_array_append_val(a, v) g_array_append_vals((a), &(v), 1)
#define g_array_index(a, type, i) (((type *)(void *)(a)->data)[(i)])

/* GPtrArray: pointers, contiguous in pdata. */
typedef struct {
	gpointer *pdata;
	guint len;
} GPtrArray;

GPtrArray *g_ptr_array_new(void);
/* Frees the array and, when free_segment, its pointer block (not what the
 * pointers point to); otherwise returns the block. */
gpointer *g_ptr_array_free(GPtrArray *array, gboolean free_segment);
void g_ptr_array_add(GPtrArray *array, gpointer data);
/* Removes the pointer at index, keeping the order of the rest, and
 * returns it (there is no element free function). */
gpointer g_ptr_array_remove_index(GPtrArray *array, guint index);
gpointer g_ptr_array_steal_index(GPtrArray *array, guint index);
#define g_ptr_array_index(a, i) ((a)->pdata[(i)])

#endif
