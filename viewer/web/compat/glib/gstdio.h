/* The subset of GLib's gstdio.h that fingerprint/ uses, for the
 * WebAssembly build, where GLib is not available: on POSIX the g_ file
 * functions are the C library's. Like GLib's, it brings in the C
 * library's stdio.h and sys/stat.h, which the callers rely on. */
#ifndef VG_COMPAT_GLIB_GSTDIO_H
#define VG_COMPAT_GLIB_GSTDIO_H

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

static inline int g_unlink(const gchar *filename)
{
	return unlink(filename);
}

#endif
