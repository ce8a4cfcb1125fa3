#include <glib.h>
#include <glib/gstdio.h>

#include "tests/vg_testutil.h"

void vg_test_rm_rf(const char *path)
{
	GDir *d = g_dir_open(path, 0, NULL);
	const char *name;

	if (!d) {
		g_unlink(path);
		return;
	}
	while ((name = g_dir_read_name(d)) != NULL) {
		char *p = g_build_filename(path, name, NULL);
		vg_test_rm_rf(p);
		g_free(p);
	}
	g_dir_close(d);
	g_rmdir(path);
}
