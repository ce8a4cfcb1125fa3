/* Test helper: bad peers at every stage of a real connection.
 *   vg_e2efuzz server PORT SEED RUNS SECONDS
 *     RUNS connections to a varg-server on PORT, each going wrong at one
 *     stage of the handshake or the session: random and truncated bytes,
 *     bad versions and security types, random client messages, bad Varg
 *     messages, oversized lengths, disconnects in the middle of an update,
 *     stalled readers. Ends after RUNS or SECONDS, whichever is first.
 *   vg_e2efuzz viewer SEED RUNS SECONDS -- VIEWER-COMMAND...
 *     RUNS times: listens, starts VIEWER-COMMAND with localhost::PORT
 *     appended, and answers it as a server that goes wrong at one stage.
 *     Each viewer must exit on its own within 20 s with a status of 0-3
 *     (not a signal, not a sanitizer's abort).
 * The seed of every run is printed before it, so a failure is replayed
 * with that seed and RUNS 1. Exit 0 when every run ended as required. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fingerprint/proto/vg_proto.h"

#include "tests/vg_fdio.h"

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

static void random_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd(256);
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void timeouts(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* Sends n random bytes (a write error is the peer's right). */
static void send_junk(int fd, size_t n)
{
	uint8_t buf[512];

	while (n) {
		size_t k = n < sizeof buf ? n : sizeof buf;

		random_bytes(buf, k);
		if (vg_fd_write_all(fd, buf, k))
			return;
		n -= k;
	}
}

/* Reads and drops up to n bytes (less on a timeout or the end). */
static void drain(int fd, size_t n)
{
	uint8_t buf[4096];

	while (n) {
		ssize_t r = read(fd, buf, n < sizeof buf ? n : sizeof buf);

		if (r <= 0)
			return;
		n -= (size_t)r;
	}
}

/* --- as a client, against varg-server ------------------------------- */

/* The RFB 3.8 handshake without a password, up to the ServerInit read. */
static int client_handshake(int fd)
{
	uint8_t buf[256], n, sec = 1;
	uint32_t name_len;

	if (vg_fd_read_all(fd, buf, 12) || vg_fd_write_all(fd, "RFB 003.008\n", 12) ||
	    vg_fd_read_all(fd, &n, 1) || n == 0 || vg_fd_read_all(fd, buf, n) ||
	    vg_fd_write_all(fd, &sec, 1) || vg_fd_read_all(fd, buf, 4) ||
	    vg_fd_write_all(fd, "\1", 1) || vg_fd_read_all(fd, buf, 24))
		return -1;
	name_len = (uint32_t)buf[20] << 24 | (uint32_t)buf[21] << 16 | (uint32_t)buf[22] << 8 | buf[23];
	if (name_len > 4096)
		return -1;
	drain(fd, name_len);
	return 0;
}

/* Native pixel format, the Varg encoding, a full update request. */
static int ask_for_varg(int fd)
{
	uint8_t m[20] = { 0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0 };
	uint8_t e[12] = { 2, 0, 0, 2 };
	uint8_t r[10] = { 3, 0, 0, 0, 0, 0, 0x7f, 0xff, 0x7f, 0xff };

	put32(e + 4, (uint32_t)VG_ENCODING);
	put32(e + 8, 0);
	return vg_fd_write_all(fd, m, sizeof m) || vg_fd_write_all(fd, e, sizeof e) ||
	       vg_fd_write_all(fd, r, sizeof r) ? -1 : 0;
}

/* A Varg viewer message of kind with a random body of about len bytes,
 * its length field sometimes lying. */
static void send_varg_msg(int fd, uint8_t kind, size_t len)
{
	uint8_t hdr[4] = { VG_CLIENT_MSG };
	uint32_t said = rnd(4) ? (uint32_t)len + 1 : rnd(0x10000);

	put16(hdr + 1, said > 0xffff ? 0xffff : said);
	hdr[3] = kind;
	if (vg_fd_write_all(fd, hdr, sizeof hdr))
		return;
	if (kind == VG_VMSG_HELLO && len >= 1 && rnd(2)) {
		uint8_t v = VG_PROTO_VERSION;

		if (vg_fd_write_all(fd, &v, 1))
			return;
		len--;
	}
	send_junk(fd, len);
}

static const char *client_stages[] = {
	"random bytes first", "a bad protocol version", "a bad security type",
	"random client messages", "bad Varg messages mid-update", "oversized lengths",
	"a stalled reader", "a disconnect mid-update",
};

static void client_run(int port, int stage)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t buf[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = 1024;

	if (stage == 6)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	timeouts(fd, 400);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) != 0)
		goto out;
	switch (stage) {
	case 0:
		send_junk(fd, 1 + rnd(64));
		break;
	case 1:
		if (vg_fd_read_all(fd, buf, 12))
			break;
		if (rnd(2)) {
			memcpy(buf, "RFB 003.008\n", 12);
			buf[rnd(12)] = (uint8_t)rnd(256);
			vg_fd_write_all(fd, buf, 1 + rnd(12));
		} else {
			send_junk(fd, 1 + rnd(20));
		}
		break;
	case 2: {
		uint8_t n;

		if (vg_fd_read_all(fd, buf, 12) || vg_fd_write_all(fd, "RFB 003.008\n", 12) ||
		    vg_fd_read_all(fd, &n, 1) || (n && vg_fd_read_all(fd, buf, n)))
			break;
		send_junk(fd, 1 + rnd(4));
		drain(fd, 64);
		break;
	}
	case 3:
		if (client_handshake(fd))
			break;
		for (int i = 0, k = 1 + (int)rnd(8); i < k; i++) {
			buf[0] = (uint8_t)(rnd(3) ? rnd(8) : rnd(256));
			if (vg_fd_write_all(fd, buf, 1))
				break;
			send_junk(fd, rnd(300));
		}
		drain(fd, 4096);
		break;
	case 4:
		if (client_handshake(fd) || ask_for_varg(fd))
			break;
		drain(fd, rnd(3000));
		for (int i = 0, k = 1 + (int)rnd(6); i < k; i++)
			send_varg_msg(fd, (uint8_t)(rnd(4) ? 1 + rnd(3) : rnd(256)), rnd(80));
		drain(fd, rnd(3000));
		break;
	case 5:
		if (client_handshake(fd))
			break;
		if (rnd(2)) {
			/* SetEncodings announcing 65535 encodings, then a few. */
			uint8_t e[4] = { 2, 0, 0xff, 0xff };

			if (vg_fd_write_all(fd, e, sizeof e) == 0)
				send_junk(fd, 4 * rnd(16));
		} else {
			/* ClientCutText of 4 GiB less a little (or a negative
			 * extended-clipboard length), then a few bytes. */
			uint8_t c[8] = { 6, 0, 0, 0 };

			put32(c + 4, rnd(2) ? 0xfffffff0u : 0x80000000u | rnd(1u << 30));
			if (vg_fd_write_all(fd, c, sizeof c) == 0)
				send_junk(fd, rnd(64));
		}
		drain(fd, 256);
		break;
	case 6:
		if (client_handshake(fd) || ask_for_varg(fd))
			break;
		usleep(1000 * rnd(1500));
		break;
	default:
		if (client_handshake(fd) || ask_for_varg(fd))
			break;
		drain(fd, 1 + rnd(20000));
		break;
	}
out:
	close(fd);
}

/* --- as a server, against varg-viewer ------------------------------- */

static const char *server_stages[] = {
	"random bytes first", "a bad security list", "a bad ServerInit",
	"random rectangles", "bad Varg rectangles", "a disconnect mid-update",
};

/* The server's side of the handshake with no password, up to the
 * client's ClientInit. */
static int serve_security(int fd)
{
	uint8_t buf[12];

	return vg_fd_write_all(fd, "RFB 003.008\n", 12) || vg_fd_read_all(fd, buf, 12) ||
	       vg_fd_write_all(fd, "\1\1", 2) || vg_fd_read_all(fd, buf, 1) ||
	       vg_fd_write_all(fd, "\0\0\0\0", 4) || vg_fd_read_all(fd, buf, 1) ? -1 : 0;
}

/* serve_security, then a ServerInit of w x h at 32 bits per pixel. */
static int serve_handshake(int fd, uint16_t w, uint16_t h)
{
	uint8_t si[24] = { 0 };

	if (serve_security(fd))
		return -1;
	put16(si, w);
	put16(si + 2, h);
	si[4] = 32; si[5] = 24; si[6] = 0; si[7] = 1;
	si[8] = 0; si[9] = 255; si[10] = 0; si[11] = 255; si[12] = 0; si[13] = 255;
	si[14] = 16; si[15] = 8; si[16] = 0;
	put32(si + 20, 4);
	return vg_fd_write_all(fd, si, sizeof si) || vg_fd_write_all(fd, "fuzz", 4) ? -1 : 0;
}

/* One FramebufferUpdate of random rectangles; with varg, Varg ones. */
static void send_update(int fd, int varg)
{
	uint8_t hdr[4] = { 0, 0 }, r[12];
	uint16_t n = (uint16_t)(1 + rnd(4));

	put16(hdr + 2, n);
	if (vg_fd_write_all(fd, hdr, sizeof hdr))
		return;
	for (uint16_t i = 0; i < n; i++) {
		put16(r, rnd(80));
		put16(r + 2, rnd(80));
		put16(r + 4, rnd(3) ? rnd(64) : rnd(0x10000));
		put16(r + 6, rnd(3) ? rnd(64) : rnd(0x10000));
		put32(r + 8, varg ? (uint32_t)VG_ENCODING : (uint32_t)(rnd(3) ? rnd(17) : rnd(0xffffffffu)));
		if (vg_fd_write_all(fd, r, sizeof r))
			return;
		if (varg) {
			uint8_t b[6];
			uint32_t len = rnd(4) ? rnd(200) : rnd(0xffffffffu);

			/* A Varg rectangle body starts with its length. */
			put32(b, len);
			b[4] = (uint8_t)(rnd(4) ? 1 + rnd(4) : rnd(256));
			b[5] = VG_PROTO_VERSION;
			if (vg_fd_write_all(fd, b, sizeof b))
				return;
			send_junk(fd, len < 200 ? len : rnd(200));
		} else {
			send_junk(fd, rnd(400));
		}
	}
}

static void server_talk(int fd, int stage)
{
	uint8_t buf[64];

	timeouts(fd, 3000);
	switch (stage) {
	case 0:
		send_junk(fd, 1 + rnd(64));
		break;
	case 1:
		if (vg_fd_write_all(fd, "RFB 003.008\n", 12) || vg_fd_read_all(fd, buf, 12))
			break;
		buf[0] = (uint8_t)rnd(256);
		if (vg_fd_write_all(fd, buf, 1))
			break;
		send_junk(fd, rnd(buf[0] + 8u));
		drain(fd, 64);
		break;
	case 2: {
		uint8_t si[24];

		if (serve_security(fd))
			break;
		random_bytes(si, sizeof si);
		if (rnd(2))
			put32(si + 20, rnd(2) ? 0xffffffffu : rnd(100));
		vg_fd_write_all(fd, si, sizeof si);
		send_junk(fd, rnd(100));
		drain(fd, 256);
		break;
	}
	case 3:
	case 4:
		if (serve_handshake(fd, (uint16_t)(16 + rnd(200)), (uint16_t)(16 + rnd(200))))
			break;
		drain(fd, 40 + rnd(60));
		for (int i = 0, k = 1 + (int)rnd(4); i < k; i++)
			send_update(fd, stage == 4);
		drain(fd, 256);
		break;
	default:
		if (serve_handshake(fd, 64, 64))
			break;
		drain(fd, 40);
		/* Promise a large update and hang up inside it. */
		memcpy(buf, "\0\0\0\1", 4);
		put16(buf + 4, 0); put16(buf + 6, 0); put16(buf + 8, 64); put16(buf + 10, 64);
		put32(buf + 12, 0);  /* Raw */
		vg_fd_write_all(fd, buf, 16);
		send_junk(fd, rnd(64 * 64 * 4));
		break;
	}
}

/* Runs the viewer against one misbehaving server; 0 when it ended as
 * required. */
static int viewer_run(char **cmd, int ncmd, int stage)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof sin;
	int lfd = socket(AF_INET, SOCK_STREAM, 0), fd, status = 0, one = 1;
	char addr[32];
	pid_t pid;
	double until;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof sin) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len)) {
		perror("vg_e2efuzz: listen");
		return -1;
	}
	snprintf(addr, sizeof addr, "localhost::%d", ntohs(sin.sin_port));
	cmd[ncmd] = addr;
	cmd[ncmd + 1] = NULL;
	pid = fork();
	if (pid == 0) {
		close(lfd);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	timeouts(lfd, 10000);
	fd = accept(lfd, NULL, NULL);
	close(lfd);
	if (fd >= 0) {
		server_talk(fd, stage);
		close(fd);
	}
	until = now_s() + 20;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_s() > until) {
			fprintf(stderr, "vg_e2efuzz: the viewer did not exit within 20 s\n");
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(20000);
	}
	if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) > 3) {
		fprintf(stderr, "vg_e2efuzz: the viewer ended with %s %d\n",
			WIFSIGNALED(status) ? "signal" : "status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int viewer, runs, failed = 0, n;
	char **cmd = NULL;
	uint64_t seed;
	double until;

	if (argc < 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "viewer"))) {
		fprintf(stderr, "usage: vg_e2efuzz server PORT SEED RUNS SECONDS\n"
				"       vg_e2efuzz viewer SEED RUNS SECONDS -- VIEWER-COMMAND...\n");
		return 2;
	}
	viewer = strcmp(argv[1], "viewer") == 0;
	if (viewer ? argc < 7 || strcmp(argv[5], "--") : argc < 6) {
		fprintf(stderr, "vg_e2efuzz: missing arguments (try without any)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (viewer) {
		/* Room for the address and the terminating NULL. */
		cmd = calloc((size_t)argc, sizeof *cmd);
		if (!cmd)
			return 1;
		memcpy(cmd, argv + 6, (size_t)(argc - 6) * sizeof *cmd);
	}
	seed = strtoull(argv[viewer ? 2 : 3], NULL, 10);
	runs = atoi(argv[viewer ? 3 : 4]);
	until = now_s() + atof(argv[viewer ? 4 : 5]);
	for (n = 0; n < runs && now_s() < until; n++) {
		uint64_t s = seed + (uint64_t)n;
		int stage;

		rng = s * 0x9e3779b97f4a7c15ull | 1;
		if (viewer) {
			stage = (int)rnd(sizeof server_stages / sizeof *server_stages);
			printf("run %d seed %llu: a server with %s\n", n, (unsigned long long)s, server_stages[stage]);
			fflush(stdout);
			if (viewer_run(cmd, argc - 6, stage)) {
				printf("FAILED: seed %llu (replay: vg_e2efuzz viewer %llu 1 ...)\n",
				       (unsigned long long)s, (unsigned long long)s);
				failed++;
			}
		} else {
			stage = (int)rnd(sizeof client_stages / sizeof *client_stages);
			printf("run %d seed %llu: a client with %s\n", n, (unsigned long long)s, client_stages[stage]);
			fflush(stdout);
			client_run(atoi(argv[2]), stage);
		}
	}
	printf("%d runs, %d failed\n", n, failed);
	free(cmd);
	return failed ? 1 : 0;
}
