/* Test helper: walks one RFB security handshake by hand, as a client that
 * may not play by the rules, and says whether it got in.
 *   vg_authprobe [--from ADDR] HOST PORT MINOR TYPE [PASSWORD]
 * Speaks RFB 3.MINOR (3, 7 or 8); with 3.7 and 3.8 it chooses security
 * TYPE whether the server offered it or not (1 None, 2 VNC
 * authentication answered with PASSWORD, empty if not given). It gets in
 * when the server sends ServerInit after its ClientInit. --from binds the
 * connection to a local address first (another loopback address).
 * Prints one line: "offered=LIST result=WORD", WORD one of access,
 * auth-failed, closed; exit status 0 for access, 3 otherwise, 1 for an
 * error of its own. */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <rfb/rfbproto.h>

#include "tests/vg_fdio.h"

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int finish(const char *offered, const char *result)
{
	printf("offered=%s result=%s\n", offered, result);
	return strcmp(result, "access") == 0 ? 0 : 3;
}

/* ClientInit, then ServerInit's fixed part: in, or not. */
static int client_init(int fd, const char *offered)
{
	uint8_t shared = 1, init[24];

	if (vg_fd_write_all(fd, &shared, 1) != 0 || vg_fd_read_all(fd, init, sizeof init) != 0)
		return finish(offered, "closed");
	return finish(offered, "access");
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char version[13], offered[1024] = "", password[9] = "";
	const char *from = NULL;
	uint8_t buf[16], type, n;
	int fd, minor, want, i;

	if (argc > 2 && strcmp(argv[1], "--from") == 0) {
		from = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: vg_authprobe [--from ADDR] HOST PORT MINOR TYPE [PASSWORD]\n");
		return 1;
	}
	minor = atoi(argv[3]);
	want = atoi(argv[4]);
	if (argc == 6)
		snprintf(password, sizeof password, "%s", argv[5]);
	if (getaddrinfo(argv[1], argv[2], &hints, &ai) != 0) {
		fprintf(stderr, "vg_authprobe: unknown host %s\n", argv[1]);
		return 1;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (from) {
		struct sockaddr_in sin = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, from, &sin.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
			fprintf(stderr, "vg_authprobe: cannot bind to %s\n", from);
			return 1;
		}
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		fprintf(stderr, "vg_authprobe: cannot connect to %s:%s\n", argv[1], argv[2]);
		return 1;
	}
	freeaddrinfo(ai);
	if (vg_fd_read_all(fd, version, 12) != 0)
		return finish("-", "closed");
	snprintf(version, sizeof version, "RFB 003.%03d\n", minor);
	if (vg_fd_write_all(fd, version, 12) != 0)
		return finish("-", "closed");
	if (minor < 7) {
		/* 3.3: the server decides. */
		if (vg_fd_read_all(fd, buf, 4) != 0)
			return finish("-", "closed");
		type = (uint8_t)get_u32(buf);
		snprintf(offered, sizeof offered, "%u", type);
		if (type == rfbSecTypeNone)
			return client_init(fd, offered);
		if (type != rfbSecTypeVncAuth)
			return finish(offered, "closed");
	} else {
		if (vg_fd_read_all(fd, &n, 1) != 0 || n == 0)
			return finish("-", "closed");
		for (i = 0; i < n; i++) {
			if (vg_fd_read_all(fd, &type, 1) != 0)
				return finish(offered, "closed");
			snprintf(offered + strlen(offered), sizeof offered - strlen(offered), "%s%u",
				 i ? "," : "", type);
		}
		type = (uint8_t)want;
		if (vg_fd_write_all(fd, &type, 1) != 0)
			return finish(offered, "closed");
		if (type == rfbSecTypeNone) {
			/* 3.8 sends a SecurityResult even for None. */
			if (minor >= 8 && (vg_fd_read_all(fd, buf, 4) != 0 || get_u32(buf) != 0))
				return finish(offered, "closed");
			return client_init(fd, offered);
		}
		if (type != rfbSecTypeVncAuth) {
			/* Not a type this probe can go on with: the server
			 * must hang up, at most after a SecurityResult that
			 * says failed (and its reason). Anything else means
			 * it did not. */
			if (vg_fd_read_all(fd, buf, 4) != 0)
				return finish(offered, "closed");
			if (get_u32(buf) == 0)
				return finish(offered, "access");
			while (read(fd, buf, sizeof buf) > 0)
				;
			return finish(offered, "closed");
		}
	}
	if (vg_fd_read_all(fd, buf, 16) != 0)
		return finish(offered, "closed");
	rfbEncryptBytes(buf, password);
	if (vg_fd_write_all(fd, buf, 16) != 0 || vg_fd_read_all(fd, buf, 4) != 0)
		return finish(offered, "closed");
	if (get_u32(buf) != 0)
		return finish(offered, "auth-failed");
	return client_init(fd, offered);
}
