/* Test helper: an rfbproxy-style recorder. Listens on 127.0.0.1 (port 0:
 * any; prints "port N" once listening), takes one client, connects it to
 * the VNC server at HOST:PORT and relays both ways until either side
 * closes, writing everything the server sent to OUT as an FBS 001.000
 * file: one block per read, with the milliseconds since the connection.
 *   vg_fbsproxy LISTEN_PORT HOST PORT OUT.fbs */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/vg_fdio.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void put_u32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	struct addrinfo hints, *ai;
	int lfd, cfd, sfd, one = 1;
	uint8_t buf[65536], hdr[4], pad[4] = { 0 };
	uint64_t start;
	FILE *out;

	if (argc != 5) {
		fprintf(stderr, "usage: vg_fbsproxy LISTEN_PORT HOST PORT OUT.fbs\n");
		return 2;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		perror("vg_fbsproxy: listen");
		return 1;
	}
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);
	cfd = accept(lfd, NULL, NULL);
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	if (cfd < 0 || getaddrinfo(argv[2], argv[3], &hints, &ai)) {
		fprintf(stderr, "vg_fbsproxy: cannot accept or resolve %s\n", argv[2]);
		return 1;
	}
	sfd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (connect(sfd, ai->ai_addr, ai->ai_addrlen)) {
		perror("vg_fbsproxy: connect");
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	out = fopen(argv[4], "wb");
	if (!out || fwrite("FBS 001.000\n", 1, 12, out) != 12) {
		perror("vg_fbsproxy: output");
		return 1;
	}
	start = now_ms();
	for (;;) {
		struct pollfd p[2] = { { cfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		ssize_t n;

		if (poll(p, 2, -1) < 0)
			break;
		if (p[0].revents) {
			n = read(cfd, buf, sizeof buf);
			if (n <= 0 || vg_fd_write_all(sfd, buf, (size_t)n))
				break;
		}
		if (p[1].revents) {
			n = read(sfd, buf, sizeof buf);
			if (n <= 0)
				break;
			put_u32be(hdr, (uint32_t)n);
			fwrite(hdr, 1, 4, out);
			fwrite(buf, 1, (size_t)n, out);
			fwrite(pad, 1, (4 - (size_t)n % 4) % 4, out);
			put_u32be(hdr, (uint32_t)(now_ms() - start));
			fwrite(hdr, 1, 4, out);
			fflush(out);
			if (vg_fd_write_all(cfd, buf, (size_t)n))
				break;
		}
	}
	fclose(out);
	return 0;
}
