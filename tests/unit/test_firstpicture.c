/* A VNC server that answers the first full request without pixels and
 * then ignores the incremental requests that follow (as x11vnc has been
 * seen to do for a new client under load), played by the test on a real
 * loopback socket: the proxy's mirror and the viewer's connection still
 * get its picture, because they ask again after a silence. */
#include <arpa/inet.h>
#include <glib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capture/vg_connection.h"
#include "capture/vg_mirror.h"
#include "common/vg_error.h"
#include "common/vg_pixbuf.h"
#include "fingerprint/codec/vg_zstream.h"
#include "tests/vg_fdio.h"
#include "tests/vg_testutil.h"

#define W 16
#define H 8
#define WHITE 0x00ffffffu

typedef struct {
	int listen_fd;
	int full_requests;  /* non-incremental FramebufferUpdateRequests seen */
} fake_server;

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static bool handshake(int fd)
{
	static const uint8_t pf[16] = { 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0 };
	uint8_t version[12], choice, shared, init[24 + 4];
	const uint8_t security[2] = { 1, 1 }, ok[4] = { 0 };

	if (vg_fd_write_all(fd, "RFB 003.008\n", 12) || vg_fd_read_all(fd, version, 12) ||
	    vg_fd_write_all(fd, security, 2) || vg_fd_read_all(fd, &choice, 1) || choice != 1 ||
	    vg_fd_write_all(fd, ok, 4) || vg_fd_read_all(fd, &shared, 1))
		return false;
	put16(init, W);
	put16(init + 2, H);
	memcpy(init + 4, pf, sizeof pf);
	memcpy(init + 20, "\0\0\0\4fake", 8);
	return vg_fd_write_all(fd, init, sizeof init) == 0;
}

/* An update with no rectangles at all (for the first full request), or
 * the whole screen in white, raw. */
static bool send_update(int fd, bool pixels)
{
	uint8_t head[4 + 12] = { 0, 0, 0, pixels ? 1 : 0 };
	uint32_t px[W * H];
	size_t i;

	if (!pixels)
		return vg_fd_write_all(fd, head, 4) == 0;
	put16(head + 4 + 4, W);
	put16(head + 4 + 6, H);
	for (i = 0; i < W * H; i++)
		px[i] = GUINT32_TO_LE(WHITE);
	return vg_fd_write_all(fd, head, sizeof head) == 0 && vg_fd_write_all(fd, px, sizeof px) == 0;
}

/* Reads client messages until the client goes; a client message it does
 * not know ends the talk. */
static gpointer serve(gpointer data)
{
	fake_server *s = data;
	int fd = accept(s->listen_fd, NULL, NULL);
	uint8_t type, buf[512];
	bool ok;

	if (fd < 0 || !handshake(fd))
		goto out;
	while (vg_fd_read_all(fd, &type, 1) == 0) {
		switch (type) {
		case 0: /* SetPixelFormat */
			ok = vg_fd_read_all(fd, buf, 19) == 0;
			break;
		case 2: /* SetEncodings */
			ok = vg_fd_read_all(fd, buf, 3) == 0 && (buf[1] << 8 | buf[2]) * 4 <= 500 &&
			     vg_fd_read_all(fd, buf + 3, (size_t)((buf[1] << 8 | buf[2]) * 4)) == 0;
			break;
		case 3: /* FramebufferUpdateRequest */
			ok = vg_fd_read_all(fd, buf, 9) == 0;
			if (ok && buf[0] == 0)
				ok = send_update(fd, g_atomic_int_add(&s->full_requests, 1) > 0);
			break;
		case 4: /* KeyEvent */
			ok = vg_fd_read_all(fd, buf, 7) == 0;
			break;
		case 5: /* PointerEvent */
			ok = vg_fd_read_all(fd, buf, 5) == 0;
			break;
		default:
			ok = false;
		}
		if (!ok)
			break;
	}
out:
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int listen_loopback(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(bind(fd, (struct sockaddr *)&a, sizeof a), ==, 0);
	g_assert_cmpint(listen(fd, 1), ==, 0);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&a, &len), ==, 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static bool all_white(const vg_pixbuf *fb)
{
	int32_t x, y;

	for (y = 0; y < fb->height; y++)
		for (x = 0; x < fb->width; x++)
			if ((fb->pixels[(size_t)y * (size_t)fb->stride + (size_t)x] & 0x00ffffffu) != WHITE)
				return false;
	return true;
}

static GThread *start_server(fake_server *s, int *port)
{
	memset(s, 0, sizeof *s);
	s->listen_fd = listen_loopback(port);
	return g_thread_new("fake-vnc", serve, s);
}

static void end_server(fake_server *s, GThread *t)
{
	g_thread_join(t);
	close(s->listen_fd);
	/* The first full request, then one more after the silence. */
	g_assert_cmpint(g_atomic_int_get(&s->full_requests), ==, 2);
}

static void test_mirror(void)
{
	fake_server s;
	vg_mirror *m = NULL;
	vg_pixbuf *fb = vg_pixbuf_new(W, H);
	vg_rect rects[64];
	GThread *t;
	gint64 end;
	size_t n;
	int port;

	t = start_server(&s, &port);
	g_assert_cmpint(vg_mirror_open("127.0.0.1", port, "raw", 8, &m), ==, VG_OK);
	g_assert_cmpuint(vg_mirror_max_rects(m), <=, G_N_ELEMENTS(rects));
	end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!all_white(fb) && g_get_monotonic_time() < end) {
		g_assert_cmpint(vg_mirror_poll(m, 10), >=, 0);
		if (vg_mirror_is_dirty(m))
			g_assert_cmpint(vg_mirror_grab(m, fb, rects, G_N_ELEMENTS(rects), &n), ==, VG_OK);
	}
	g_assert_true(all_white(fb));
	vg_mirror_free(m);
	end_server(&s, t);
	vg_pixbuf_free(fb);
}

static void test_connection(void)
{
	fake_server s;
	vg_connection_config cfg = { .host = "127.0.0.1", .encodings = "raw",
				     .zstd_window_log = VG_ZSTD_WINDOW_LOG_DEFAULT };
	vg_connection *c = NULL;
	vg_pixbuf fb;
	char why[256];
	GThread *t;
	gint64 end;

	t = start_server(&s, &cfg.port);
	if (vg_connection_open_reason(&cfg, &c, why, sizeof why))
		g_error("cannot connect: %s", why);
	end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	do {
		g_assert_cmpint(vg_connection_poll(c, 10), >=, 0);
		fb = vg_connection_frame(c);
	} while (!all_white(&fb) && g_get_monotonic_time() < end);
	g_assert_true(all_white(&fb));
	vg_connection_close(c);
	end_server(&s, t);
}

int main(int argc, char **argv)
{
	g_autofree char *dir = g_dir_make_tmp("varg-firstpicture-XXXXXX", NULL);
	int rc;

	/* Trust decisions go under the user's cache directory. */
	g_setenv("XDG_CACHE_HOME", dir, TRUE);
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/firstpicture/mirror", test_mirror);
	g_test_add_func("/firstpicture/connection", test_connection);
	rc = g_test_run();
	vg_test_rm_rf(dir);
	return rc;
}
