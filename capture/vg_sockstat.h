/* Socket counters from the kernel. */
#ifndef VG_SOCKSTAT_H
#define VG_SOCKSTAT_H

#include <stdint.h>

/* Bytes received so far on the TCP socket fd, as the kernel counts them
 * (TCP_INFO); VG_ENOTSUP where the kernel does not say. */
int vg_sockstat_bytes_received(int fd, uint64_t *bytes);

#endif
