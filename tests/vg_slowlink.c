/* Test helper: a slow link for one TCP connection, in user space.
 * Listens on 127.0.0.1 (port 0: any; prints "port N" once listening),
 * takes one client, connects it to HOST:PORT and relays both ways until
 * either side closes: client to server at once, server to client at most
 * RATE bytes per second. Its socket buffers towards the server are small,
 * so the server feels the slow link as a peer that reads slowly, as it
 * would at the end of a real 0.2 MB/s line. Prints the bytes relayed each
 * way on stderr at the end.
 *   vg_slowlink LISTEN_PORT HOST PORT RATE */
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

/* Small enough that the server's writes block within one update. */
#define BUF_BYTES 16384

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void small_buffers(int fd)
{
	int n = BUF_BYTES;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &n, sizeof n);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &n, sizeof n);
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	int fd;

	if (getaddrinfo(host, port, &hints, &ai) != 0)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0) {
		small_buffers(fd); /* before connect: the window is set then */
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof sin;
	uint64_t up = 0, down = 0, start, last;
	double credit = 0;
	uint8_t buf[BUF_BYTES];
	long rate;
	int lfd, cfd, sfd, one = 1;

	if (argc != 5 || (rate = atol(argv[4])) <= 0) {
		fprintf(stderr, "usage: vg_slowlink LISTEN_PORT HOST PORT RATE\n");
		return 2;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)atoi(argv[1]));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(lfd, 1) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &sl) != 0) {
		perror("vg_slowlink: listen");
		return 1;
	}
	printf("port %d\n", ntohs(sin.sin_port));
	fflush(stdout);
	cfd = accept(lfd, NULL, NULL);
	close(lfd);
	if (cfd < 0 || (sfd = connect_to(argv[2], argv[3])) < 0) {
		fprintf(stderr, "vg_slowlink: cannot connect to %s:%s\n", argv[2], argv[3]);
		return 1;
	}
	small_buffers(cfd);
	start = last = now_us();
	for (;;) {
		struct pollfd p[2] = { { .fd = cfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		/* What the line carries since the last turn, with at most one
		 * buffer's worth saved up while it was idle. */
		uint64_t now = now_us();
		size_t room;
		ssize_t n;

		credit += (double)(now - last) * (double)rate / 1e6;
		if (credit > BUF_BYTES)
			credit = BUF_BYTES;
		last = now;
		room = (size_t)credit;

		if (room == 0)
			p[1].events = 0;
		if (poll(p, 2, room == 0 ? 5 : -1) < 0)
			break;
		if (p[0].revents) {
			n = read(cfd, buf, sizeof buf);
			if (n <= 0 || vg_fd_write_all(sfd, buf, (size_t)n) != 0)
				break;
			up += (uint64_t)n;
		}
		if (room > 0 && p[1].revents) {
			n = read(sfd, buf, room < sizeof buf ? room : sizeof buf);
			if (n <= 0 || vg_fd_write_all(cfd, buf, (size_t)n) != 0)
				break;
			down += (uint64_t)n;
			credit -= (double)n;
		}
	}
	fprintf(stderr, "vg_slowlink: %llu bytes to the server, %llu to the client in %.1f s\n",
		(unsigned long long)up, (unsigned long long)down, (double)(now_us() - start) / 1e6);
	close(cfd);
	close(sfd);
	return 0;
}
