#include <linux/tcp.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "common/vg_error.h"
#include "capture/vg_sockstat.h"

int vg_sockstat_bytes_received(int fd, uint64_t *bytes)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;

	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		return VG_EIO;
	/* Older kernels return a shorter struct without the counter. */
	if (len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received)
		return VG_ENOTSUP;
	*bytes = ti.tcpi_bytes_received;
	return VG_OK;
}
