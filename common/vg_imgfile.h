/* Reading and writing whole images as files: PNG (lossless) and PPM (P6). */
#ifndef VG_IMGFILE_H
#define VG_IMGFILE_H

#include "common/vg_pixbuf.h"

/* Reads a PNG or binary PPM (P6, maxval 255), chosen by its first bytes.
 * On success *out owns a new buffer (free with vg_pixbuf_free). Errors:
 * VG_ENOENT / VG_EIO for the file, VG_EFORMAT for another file type,
 * VG_ECORRUPT for a damaged image, VG_ERANGE for sizes over VG_MAX_DIM. */
int vg_image_read(const char *path, vg_pixbuf **out);

/* Writes pb as an 8-bit RGB PNG (zlib level 6). VG_EIO on failure; a
 * partly written file is removed. */
int vg_png_write(const char *path, const vg_pixbuf *pb);

/* Writes pb as a binary PPM (P6). VG_EIO on failure. */
int vg_ppm_write(const char *path, const vg_pixbuf *pb);

#endif
