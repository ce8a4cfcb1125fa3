/* Test helper: an RFB client that misbehaves on purpose.
 *   vg_badclient PORT hangup|stall SECONDS
 * It completes the RFB 3.8 handshake, asks for Varg and a full update,
 * then either closes the socket after the first bytes of the update
 * (hangup) or never reads again for SECONDS (stall, with a tiny receive
 * buffer so the server's writes block; it prints "stalling" then). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fingerprint/proto/vg_proto.h"

#include "tests/vg_fdio.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin;
	uint8_t buf[256], n, sec = 1;
	uint32_t name_len;
	int fd, rcvbuf = 1024, stall;

	if (argc < 4) {
		fprintf(stderr, "usage: vg_badclient PORT hangup|stall SECONDS\n");
		return 2;
	}
	stall = strcmp(argv[2], "stall") == 0;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (stall)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
		perror("vg_badclient: connect");
		return 1;
	}
	if (vg_fd_read_all(fd, buf, 12) || vg_fd_write_all(fd, "RFB 003.008\n", 12) ||
	    vg_fd_read_all(fd, &n, 1) || n == 0 || vg_fd_read_all(fd, buf, n) ||
	    vg_fd_write_all(fd, &sec, 1) || vg_fd_read_all(fd, buf, 4) ||
	    vg_fd_write_all(fd, "\1", 1) || vg_fd_read_all(fd, buf, 24)) {
		fprintf(stderr, "vg_badclient: handshake failed\n");
		return 1;
	}
	name_len = (uint32_t)buf[20] << 24 | (uint32_t)buf[21] << 16 | (uint32_t)buf[22] << 8 | buf[23];
	while (name_len) {
		uint32_t k = name_len < sizeof buf ? name_len : sizeof buf;
		if (vg_fd_read_all(fd, buf, k))
			return 1;
		name_len -= k;
	}
	/* SetPixelFormat: 32 bpp, depth 24, little-endian, true colour, 16/8/0. */
	{
		uint8_t m[20] = { 0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0 };
		uint8_t e[12] = { 2, 0, 0, 2 };
		uint8_t r[10] = { 3, 0, 0, 0, 0, 0, 0x7f, 0xff, 0x7f, 0xff };
		put32(e + 4, (uint32_t)VG_ENCODING);
		put32(e + 8, 0);
		if (vg_fd_write_all(fd, m, sizeof m) || vg_fd_write_all(fd, e, sizeof e) ||
		    vg_fd_write_all(fd, r, sizeof r))
			return 1;
		for (int i = 0; i < 50 && stall; i++) {
			r[1] = 1;
			if (vg_fd_write_all(fd, r, sizeof r))
				break;
		}
	}
	if (stall) {
		/* Tells the test that the server holds this client now. */
		printf("stalling\n");
		fflush(stdout);
		sleep((unsigned)atoi(argv[3]));
	} else {
		/* Read the first bytes of the first update, then vanish. */
		if (vg_fd_read_all(fd, buf, 16) == 0)
			usleep(1000);
	}
	close(fd);
	return 0;
}
