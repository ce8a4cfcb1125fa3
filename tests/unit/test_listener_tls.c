/* The listener's HTTPS and WSS path on real loopback sockets: files over
 * TLS, a WebSocket upgrade inside TLS handed over with its head still
 * queued and the peer's address, plain HTTP and ws:// refused when TLS is
 * required, and what is not HTTP inside TLS, or not TLS after 0x16,
 * dropped. The certificate is the one vg_tls makes for a server. And a
 * port for browsers only: a request that comes after a long silence is
 * answered, not greeted with RFB; what is not HTTP, or stays silent, is
 * dropped. And a gate's end after the handover, which may wait longer
 * than handover_ms for the library's client thread, is not cut. */
#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/vg_tls.h"
#include "common/vg_error.h"
#include "server/vg_listener.h"
#include "tests/vg_testutil.h"

#define PAGE "<p>over TLS</p>\n"
#define UPGRADE "GET /websockify HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n" \
	"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" \
	"Sec-WebSocket-Version: 13\r\n\r\n"

typedef struct {
	GMutex lock;
	GCond changed;
	int plain;                /* handover_cb calls */
	int secure;               /* handover_tls_cb calls */
	char peer[64];
	char head[512];           /* what the secure handover found queued */
} handovers;

/* An upgrade that came over TLS arrives on the plain end of its bridge
 * (a Unix socketpair), a raw RFB client on its TCP socket. */
static bool is_bridged(int fd)
{
	int domain = 0;
	socklen_t len = sizeof domain;

	return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

static void on_plain(handovers *h, int fd)
{
	g_mutex_lock(&h->lock);
	h->plain++;
	g_cond_broadcast(&h->changed);
	g_mutex_unlock(&h->lock);
	close(fd);
}

/* Reads the queued upgrade, answers through the bridge, closes. */
static void on_secure(handovers *h, int fd, const char *peer)
{
	char buf[512];
	size_t got = 0;

	while (got < strlen(UPGRADE)) {
		ssize_t n = recv(fd, buf + got, sizeof buf - 1 - got, 0);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (send(fd, "RFB 003.008\n", 12, MSG_NOSIGNAL) != 12)
		g_test_message("could not answer through the bridge");
	close(fd);
	g_mutex_lock(&h->lock);
	h->secure++;
	g_strlcpy(h->peer, peer, sizeof h->peer);
	g_strlcpy(h->head, buf, sizeof h->head);
	g_cond_broadcast(&h->changed);
	g_mutex_unlock(&h->lock);
}

static void on_handover(void *user, int fd, int path_fd, const char *peer)
{
	/* A bridged connection comes with its network socket, else none. */
	g_assert_cmpint(path_fd >= 0, ==, is_bridged(fd));
	if (path_fd >= 0) {
		int domain = 0;
		socklen_t len = sizeof domain;

		g_assert_cmpint(getsockopt(path_fd, SOL_SOCKET, SO_DOMAIN, &domain, &len), ==, 0);
		g_assert_cmpint(domain, ==, AF_INET);
		close(path_fd);
	}
	if (is_bridged(fd))
		on_secure(user, fd, peer);
	else
		on_plain(user, fd);
}

static int dial(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval limit = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	g_assert_cmpint(fd, >=, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	g_assert_cmpint(connect(fd, (struct sockaddr *)&sin, sizeof sin), ==, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
	return fd;
}

/* Sends req on fd and reads until the end; a new string. */
static char *exchange(int fd, const char *req)
{
	GString *out = g_string_new(NULL);
	char buf[4096];
	ssize_t n;

	g_assert_cmpint(send(fd, req, strlen(req), MSG_NOSIGNAL), ==, (ssize_t)strlen(req));
	while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
		g_string_append_len(out, buf, n);
	close(fd);
	return g_string_free(out, FALSE);
}

/* A TLS connection to port; the plain end of its bridge. */
static int dial_tls(vg_tls_ctx *client, int port)
{
	char why[256];
	vg_tls *t = NULL;
	vg_tls_bridge *b = NULL;
	int fd = dial(port), plain = -1;
	struct timeval limit = { .tv_sec = 10 };

	g_assert_cmpint(vg_tls_handshake(client, fd, "localhost", 5000, &t, why, sizeof why), ==, 0);
	g_assert_cmpint(vg_tls_bridge_new(t, fd, &plain, &b), ==, 0);
	vg_tls_bridge_detach(b, NULL, NULL);
	setsockopt(plain, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
	return plain;
}

static void test_https(void)
{
	g_autofree char *dir = g_dir_make_tmp("varg-https-XXXXXX", NULL);
	g_autofree char *www = g_build_filename(dir, "www", NULL);
	g_autofree char *page = g_build_filename(www, "page.html", NULL);
	const char *roots[] = { www, NULL };
	char why[256];
	vg_tls_ctx *server = NULL, *client = NULL;
	vg_listener *l = NULL;
	vg_listener_stats st;
	handovers h = { 0 };
	char *reply;
	int port, fd;

	g_assert_cmpint(mkdir(www, 0700), ==, 0);
	g_assert_true(g_file_set_contents(page, PAGE, -1, NULL));
	g_assert_cmpint(vg_tls_server_new(NULL, NULL, dir, &server, why, sizeof why), ==, 0);
	g_assert_cmpint(vg_tls_client_new(NULL, &client, why, sizeof why), ==, 0);
	g_mutex_init(&h.lock);
	g_cond_init(&h.changed);
	{
		vg_listener_config cfg = {
			.addr = htonl(INADDR_LOOPBACK), .http_roots = roots, .tls = server,
			.tls_required = true, .handover_cb = on_handover,
			.user = &h, .screen_ms = 3000,
		};

		g_assert_cmpint(vg_listener_new(&cfg, &l), ==, 0);
	}
	g_assert_cmpint(vg_listener_start(l), ==, 0);
	port = vg_listener_port(l);

	/* A file over TLS. */
	reply = exchange(dial_tls(client, port), "GET /page.html HTTP/1.1\r\nHost: localhost\r\n\r\n");
	g_assert_true(g_str_has_prefix(reply, "HTTP/1.1 200 "));
	g_assert_true(g_str_has_suffix(reply, "\r\n\r\n" PAGE));
	g_free(reply);

	/* Plain HTTP, a file or an upgrade: refused, saying why. */
	reply = exchange(dial(port), "GET /page.html HTTP/1.1\r\nHost: localhost\r\n\r\n");
	g_assert_true(g_str_has_prefix(reply, "HTTP/1.1 403 "));
	g_assert_nonnull(strstr(reply, "https://"));
	g_assert_null(strstr(reply, PAGE));
	g_free(reply);
	reply = exchange(dial(port), UPGRADE);
	g_assert_true(g_str_has_prefix(reply, "HTTP/1.1 403 "));
	g_free(reply);

	/* An upgrade inside TLS: handed over, its head unread, with the
	 * network peer's address; the answer goes back through TLS. */
	reply = exchange(dial_tls(client, port), UPGRADE);
	g_assert_cmpstr(reply, ==, "RFB 003.008\n");
	g_free(reply);
	g_mutex_lock(&h.lock);
	while (h.secure == 0)
		g_cond_wait(&h.changed, &h.lock);
	g_assert_cmpstr(h.head, ==, UPGRADE);
	g_assert_cmpstr(h.peer, ==, "127.0.0.1");
	g_mutex_unlock(&h.lock);

	/* Inside TLS only HTTP: an RFB greeting is dropped. */
	reply = exchange(dial_tls(client, port), "RFB 003.008\n");
	g_assert_cmpstr(reply, ==, "");
	g_free(reply);
	/* 0x16 and then no TLS: dropped after the handshake fails. */
	reply = exchange(dial(port), "\x16\x03\x01 this is not a ClientHello\r\n\r\n");
	g_assert_cmpstr(reply, ==, "");
	g_free(reply);

	/* An RFB client (silent) still goes to the plain handover. */
	fd = dial(port);
	g_mutex_lock(&h.lock);
	while (h.plain == 0)
		g_cond_wait(&h.changed, &h.lock);
	g_assert_cmpint(h.secure, ==, 1);
	g_mutex_unlock(&h.lock);
	close(fd);

	vg_listener_stats_get(l, &st);
	g_assert_cmpuint(st.tls_accepted, ==, 3);
	g_assert_cmpuint(st.tls_failed, ==, 1);
	g_assert_cmpuint(st.handed_over, ==, 2);
	vg_listener_free(l);
	vg_tls_ctx_free(client);
	vg_tls_ctx_free(server);
	g_mutex_clear(&h.lock);
	g_cond_clear(&h.changed);
	vg_test_rm_rf(dir);
}

/* Whether nothing has come on fd yet. */
static bool nothing_queued(int fd)
{
	char b;

	return recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

static void test_browsers_port(void)
{
	g_autofree char *dir = g_dir_make_tmp("varg-webport-XXXXXX", NULL);
	g_autofree char *page = g_build_filename(dir, "page.html", NULL);
	const char *roots[] = { dir, NULL };
	vg_listener *l = NULL;
	vg_listener_stats st;
	handovers h = { 0 };
	char *reply;
	int port, fd;
	gint64 t0;

	g_assert_true(g_file_set_contents(page, PAGE, -1, NULL));
	g_mutex_init(&h.lock);
	g_cond_init(&h.changed);
	{
		vg_listener_config cfg = {
			.addr = htonl(INADDR_LOOPBACK), .http_roots = roots, .http_only = true,
			.idle_ms = 2500, .handover_cb = on_handover, .user = &h,
		};

		g_assert_cmpint(vg_listener_new(&cfg, &l), ==, 0);
	}
	g_assert_cmpint(vg_listener_start(l), ==, 0);
	port = vg_listener_port(l);

	/* A connection a browser opened ahead of need: its request comes
	 * 1.5 s later, past the second a shared port waits, and is
	 * answered; nothing was said to it before. */
	fd = dial(port);
	g_usleep(1500 * 1000);
	g_assert_true(nothing_queued(fd));
	reply = exchange(fd, "GET /page.html HTTP/1.1\r\nHost: localhost\r\n\r\n");
	g_assert_true(g_str_has_prefix(reply, "HTTP/1.1 200 "));
	g_assert_true(g_str_has_suffix(reply, "\r\n\r\n" PAGE));
	g_free(reply);

	/* An RFB client's bytes: dropped, not handed over. */
	reply = exchange(dial(port), "RFB 003.008\n");
	g_assert_cmpstr(reply, ==, "");
	g_free(reply);

	/* Silent for idle_ms: closed, never greeted. */
	fd = dial(port);
	t0 = g_get_monotonic_time();
	reply = exchange(fd, "");
	g_assert_cmpstr(reply, ==, "");
	g_assert_cmpint(g_get_monotonic_time() - t0, >=, 2000 * 1000);
	g_free(reply);

	/* A WebSocket upgrade goes on, its head still queued. */
	fd = dial(port);
	g_assert_cmpint(send(fd, UPGRADE, strlen(UPGRADE), MSG_NOSIGNAL), ==, (ssize_t)strlen(UPGRADE));
	g_mutex_lock(&h.lock);
	while (h.plain == 0)
		g_cond_wait(&h.changed, &h.lock);
	g_mutex_unlock(&h.lock);
	close(fd);

	/* A connection still silent at the end does not hold up the stop. */
	fd = dial(port);
	g_usleep(100 * 1000);
	vg_listener_stats_get(l, &st);
	g_assert_cmpuint(st.accepted, ==, 5);
	g_assert_cmpuint(st.http_answered, ==, 1);
	g_assert_cmpuint(st.handed_over, ==, 1);
	g_assert_cmpuint(st.dropped, ==, 2);
	t0 = g_get_monotonic_time();
	vg_listener_free(l);
	g_assert_cmpint(g_get_monotonic_time() - t0, <, 2000 * 1000);
	close(fd);
	g_mutex_clear(&h.lock);
	g_cond_clear(&h.changed);
	vg_test_rm_rf(dir);
}

/* A gate in the TLS gate's shape: a socketpair, its far end handed over,
 * its near end spoken on only in gate_done_cb, after the handover. */
typedef struct {
	GMutex lock;
	GCond changed;
	int handed_fd;            /* what the handover got; -1: nothing yet */
	int wrote;                /* gate_done's write: 1 ok, -1 failed, 0 not yet */
} gated;

static int gate_open(void *user, int fd, const char *peer, void **state)
{
	int sp[2];

	(void)user;
	(void)peer;
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), ==, 0);
	close(fd);
	*state = GINT_TO_POINTER(sp[0] + 1);
	return sp[1];
}

static void gate_handover(void *user, int fd, int path_fd, const char *peer)
{
	gated *g = user;

	(void)peer;
	if (path_fd >= 0)
		close(path_fd);
	g_mutex_lock(&g->lock);
	g->handed_fd = fd;
	g_mutex_unlock(&g->lock);
}

/* Slower than handover_ms, as a busy machine's client thread can be. */
static void gate_done(void *user, void *state, int handed)
{
	gated *g = user;
	int inner = GPOINTER_TO_INT(state) - 1;
	int ok;

	g_assert_true(handed);
	g_usleep(600 * 1000);
	ok = send(inner, "ok", 2, MSG_NOSIGNAL) == 2 ? 1 : -1;
	close(inner);
	g_mutex_lock(&g->lock);
	g->wrote = ok;
	g_cond_broadcast(&g->changed);
	g_mutex_unlock(&g->lock);
}

static void test_gate_end(void)
{
	gated g = { .handed_fd = -1 };
	vg_listener *l = NULL;
	vg_listener_stats st;
	char buf[4] = "";
	int fd;

	g_mutex_init(&g.lock);
	g_cond_init(&g.changed);
	{
		vg_listener_config cfg = {
			.addr = htonl(INADDR_LOOPBACK), .handover_ms = 150, .handover_cb = gate_handover,
			.gate_cb = gate_open, .gate_done_cb = gate_done, .user = &g,
		};

		g_assert_cmpint(vg_listener_new(&cfg, &l), ==, 0);
	}
	g_assert_cmpint(vg_listener_start(l), ==, 0);
	fd = dial(vg_listener_port(l));
	g_mutex_lock(&g.lock);
	while (g.wrote == 0)
		g_cond_wait(&g.changed, &g.lock);
	g_assert_cmpint(g.wrote, ==, 1);
	g_assert_cmpint(g.handed_fd, >=, 0);
	g_mutex_unlock(&g.lock);
	g_assert_cmpint(recv(g.handed_fd, buf, sizeof buf, 0), ==, 2);
	g_assert_cmpstr(buf, ==, "ok");
	vg_listener_stats_get(l, &st);
	g_assert_cmpuint(st.handed_over, ==, 1);
	g_assert_cmpuint(st.cut, ==, 0);
	vg_listener_free(l);
	close(g.handed_fd);
	close(fd);
	g_mutex_clear(&g.lock);
	g_cond_clear(&g.changed);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/listener/https-wss", test_https);
	g_test_add_func("/listener/browsers-port", test_browsers_port);
	g_test_add_func("/listener/gate-end", test_gate_end);
	return g_test_run();
}
