/* Whole reads and writes on a socket or pipe, for the test programs that
 * speak RFB by hand or relay bytes. */
#ifndef VG_FDIO_H
#define VG_FDIO_H

#include <stddef.h>

/* Reads exactly n bytes. 0, or -1 on an error or end of file. */
int vg_fd_read_all(int fd, void *buf, size_t n);

/* Writes all n bytes, however many calls it takes. 0, or -1 on error. */
int vg_fd_write_all(int fd, const void *buf, size_t n);

#endif
