#define _GNU_SOURCE /* accept4, pipe2, POLLRDHUP */
#include "server/vg_listener.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "server/vg_http.h"

/* The bytes LibVNCServer peeks at before it speaks. */
#define PEEK_LEN 4
/* With HTTP: how long a silent connection may still turn out to be a
 * browser's before it goes on as RFB. A browser sends its request a few
 * milliseconds after connecting on an idle machine, but on a busy one, or
 * on a connection it opened ahead of need, past 250 ms: the page's
 * scripts then met an RFB greeting and the page never came up. An RFB
 * viewer, which waits for the server to speak, pays this once. */
#define HTTP_FIRST_MS 1000
/* The same wait before a VeNCrypt gate greets a client: a loopback or LAN
 * WebSocket client's request is in by then; an RFB client waits this long. */
#define GATE_FIRST_MS 60
/* The first byte of a TLS connection: a handshake record. */
#define TLS_HANDSHAKE_RECORD 0x16

/* A connection between accept and the end of its handover. */
typedef struct conn {
	struct conn *next;
	struct vg_listener *owner;
	int fd;                   /* given to the handover callback */
	int dup_fd;               /* ours: the socket, whatever becomes of fd */
	char peer[64];            /* the peer's numeric address */
	uint64_t handover_ns;     /* when the handover began; 0: not yet */
	int done;                 /* the handover callback returned */
	int cut;                  /* dissolved by the watchdog */
} conn;

struct vg_listener {
	vg_listener_config cfg;
	int fd;
	int port;
	int wake[2];              /* a byte here ends the accept thread */
	pthread_t thread;
	int started;
	pthread_mutex_t lock;     /* conns, pending, stats, stopping */
	pthread_cond_t idle;      /* pending fell to 0 */
	pthread_mutex_t handover_lock; /* one handover at a time */
	conn *conns;
	int pending;              /* screening threads alive */
	int stopping;
	vg_listener_stats stats;
};

static int listen_on(in_addr_t addr, int port)
{
	struct sockaddr_in sin;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = addr;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(fd, 32) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int vg_listener_new(const vg_listener_config *cfg, vg_listener **out)
{
	vg_listener *l = g_new0(vg_listener, 1);

	l->cfg = *cfg;
	if (!l->cfg.screen_ms)
		l->cfg.screen_ms = 2000;
	if (!l->cfg.handover_ms)
		l->cfg.handover_ms = 3000;
	if (!l->cfg.max_pending)
		l->cfg.max_pending = 64;
	/* A browser keeps a connection it opened ahead of need about this
	 * long, and opens another if the server closes it unused. */
	if (!l->cfg.idle_ms)
		l->cfg.idle_ms = 10000;
	l->wake[0] = l->wake[1] = -1;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->idle, NULL);
	pthread_mutex_init(&l->handover_lock, NULL);
	l->fd = -1;
	if (cfg->port) {
		l->fd = listen_on(cfg->addr, cfg->port);
		l->port = cfg->port;
	} else {
		for (l->port = 5900; l->port < 6100 && l->fd < 0; l->port++)
			l->fd = listen_on(cfg->addr, l->port);
		l->port--;
	}
	if (l->fd < 0 || pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		vg_listener_free(l);
		return VG_EIO;
	}
	*out = l;
	return VG_OK;
}

int vg_listener_port(const vg_listener *l)
{
	return l->port;
}

void vg_listener_stats_get(vg_listener *l, vg_listener_stats *out)
{
	pthread_mutex_lock(&l->lock);
	*out = l->stats;
	pthread_mutex_unlock(&l->lock);
}

static int queued_bytes(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

/* Whether the connection may go to LibVNCServer: the peer has sent
 * nothing yet, or at least PEEK_LEN bytes. With SO_RCVLOWAT at PEEK_LEN,
 * poll wakes for the fourth byte or for the peer's end, not for each
 * byte before it. A peer that has sent nothing gets first_ms to begin:
 * a browser connects, then sends its request. */
static int screen_conn(int fd, int screen_ms, int first_ms)
{
	int lowat = PEEK_LEN, one = 1;
	uint64_t until = vg_time_ns() + (uint64_t)screen_ms * 1000000u;
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	int n = queued_bytes(fd);

	if (n == 0 && first_ms > 0) {
		while (poll(&p, 1, first_ms) < 0 && errno == EINTR)
			;
		n = queued_bytes(fd);
	}
	if (n < 0)
		return 0;
	if (n >= PEEK_LEN)
		return 1;
	if (n == 0) {
		/* Nothing sent: a client that waits for the server, unless
		 * it has gone already (a port scan). */
		return poll(&p, 1, 0) == 0 || !(p.revents & (POLLRDHUP | POLLHUP | POLLERR));
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat) != 0)
		return 0;
	for (;;) {
		uint64_t now = vg_time_ns();
		int r;

		if (now >= until)
			return 0;
		r = poll(&p, 1, (int)((until - now) / 1000000u) + 1);
		if (r < 0 && errno != EINTR)
			return 0;
		if (queued_bytes(fd) >= PEEK_LEN)
			break;
		if (r > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
			return 0;
	}
	return setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one) == 0;
}

/* Waits until more than have bytes are queued on fd, or until the
 * deadline; false on timeout, error or the peer's end. */
static bool wait_more(int fd, int have, uint64_t until)
{
	int lowat = have + 1;
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat) != 0)
		return false;
	for (;;) {
		uint64_t now = vg_time_ns();
		int r;

		if (now >= until)
			return false;
		r = poll(&p, 1, (int)((until - now) / 1000000u) + 1);
		if (r < 0 && errno != EINTR)
			return false;
		if (queued_bytes(fd) > have)
			return true;
		if (r > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
			return false;
		/* A bridge's socketpair is readable at any byte, whatever
		 * SO_RCVLOWAT says: do not spin on the bytes already there. */
		if (r > 0)
			g_usleep(2000);
	}
}

/* With an HTTP root: a connection that starts with an HTTP request is
 * answered here, unless it asks for a WebSocket, which LibVNCServer takes
 * (the head is only peeked at, so it is still queued for the library).
 * HAND_OVER for RFB and WebSocket clients, ANSWERED, or DROP. */
enum { DROP, HAND_OVER, ANSWERED };

static int route_http(vg_listener *l, int fd, bool secure)
{
	/* Inside TLS, or on a port for browsers only, the browser speaks
	 * first and only HTTP is taken. */
	bool only_http = secure || l->cfg.http_only;
	char head[VG_HTTP_HEAD_MAX];
	uint64_t until = vg_time_ns() + (uint64_t)l->cfg.screen_ms * 1000000u;
	struct timeval send_limit = { .tv_sec = 10 };
	vg_http_request req;
	int one = 1, err, status;
	ssize_t n;

	if (only_http && queued_bytes(fd) < PEEK_LEN && !wait_more(fd, PEEK_LEN - 1, until))
		return DROP;
	n = recv(fd, head, 4, MSG_PEEK | MSG_DONTWAIT);
	if (n < 4 || !vg_http_is_request((const uint8_t *)head, 4))
		return only_http ? DROP : HAND_OVER;
	for (;;) {
		n = recv(fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return DROP;
		err = vg_http_parse(head, n > 0 ? (size_t)n : 0, &req);
		if (err != VG_ETRUNC)
			break;
		if (n == (ssize_t)sizeof head) {
			vg_http_respond_status(fd, 431);
			return ANSWERED;
		}
		if (!wait_more(fd, n > 0 ? (int)n : 0, until))
			return DROP;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one) != 0)
		return DROP;
	if (err) {
		vg_http_respond_status(fd, err == VG_ERANGE ? 414 : 400);
		return ANSWERED;
	}
	if (req.websocket && (secure || !l->cfg.tls_required))
		return HAND_OVER;
	if (recv(fd, head, req.head_len, MSG_DONTWAIT) != (ssize_t)req.head_len)
		return DROP;
	/* A browser that stops reading cannot hold the thread. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof send_limit);
	if (!secure && l->cfg.tls_required) {
		/* Refused rather than redirected: nothing the page or its
		 * WebSocket would carry goes in the clear, and no Host
		 * header is trusted to build a URL from. */
		vg_http_respond_text(fd, 403, "This server takes TLS only: open the same address "
				     "with https:// instead of http://.\n");
		vg_debug("http %s: refused without TLS", req.path);
		return ANSWERED;
	}
	status = vg_http_respond(fd, l->cfg.http_roots, &req);
	vg_debug("http %s %s: %d", req.method == VG_HTTP_GET ? "GET" :
		 req.method == VG_HTTP_HEAD ? "HEAD" : "other", req.path, status);
	return ANSWERED;
}

static void unlink_conn(vg_listener *l, conn *c)
{
	conn **p;

	for (p = &l->conns; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			return;
		}
	}
}

/* The handover's watchdog cuts the socket the gate handed over: make
 * dup_fd a duplicate of it. With l->lock, so that no cut runs between. */
static int watch_gated(vg_listener *l, conn *c)
{
	int d = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);

	if (d < 0)
		return 0;
	pthread_mutex_lock(&l->lock);
	close(c->dup_fd);
	c->dup_fd = d;
	pthread_mutex_unlock(&l->lock);
	return 1;
}

/* Whether the peer began with a TLS handshake record. */
static bool starts_tls(int fd)
{
	uint8_t b;

	return recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1 && b == TLS_HANDSHAKE_RECORD;
}

/* The TLS handshake on c->fd within screen_ms, then a bridge: c->fd
 * becomes the bridge's plain end (-1 if the bridge could not start; the
 * network socket is the bridge's either way, and dup_fd still cuts it).
 * VG_OK, or the handshake's error, c->fd untouched. */
static int start_tls(vg_listener *l, conn *c)
{
	char why[256] = "";
	vg_tls_bridge *b;
	vg_tls *t;
	int plain, err;

	err = vg_tls_handshake(l->cfg.tls, c->fd, NULL, l->cfg.screen_ms, &t, why, sizeof why);
	pthread_mutex_lock(&l->lock);
	if (err)
		l->stats.tls_failed++;
	else
		l->stats.tls_accepted++;
	pthread_mutex_unlock(&l->lock);
	if (err) {
		vg_debug("https from %s: no TLS: %s", c->peer, why);
		return err;
	}
	err = vg_tls_bridge_new(t, c->fd, &plain, &b);
	c->fd = err ? -1 : plain;
	if (err)
		return err;
	vg_tls_bridge_detach(b, NULL, NULL);
	return VG_OK;
}

static void *screening_thread(void *arg)
{
	conn *c = arg;
	vg_listener *l = c->owner;
	int ok, route = HAND_OVER, gated = 0, net_fd = c->fd, path_fd = -1;
	void *gate_state = NULL;
	bool secure = false;

	/* A gate speaks first: give a WebSocket client (which speaks first
	 * too) a moment to say so, lest it be greeted with RFB's version. */
	ok = screen_conn(c->fd, l->cfg.screen_ms,
			 l->cfg.http_only ? l->cfg.idle_ms : l->cfg.http_roots ? HTTP_FIRST_MS :
			 l->cfg.gate_cb ? GATE_FIRST_MS : 0);
	/* A browser's port greets nobody: still silent, it goes. */
	if (ok && l->cfg.http_only && queued_bytes(c->fd) <= 0)
		ok = 0;
	/* A bridge may take the socket: keep a way to its path. */
	if (ok && (l->cfg.gate_cb || (l->cfg.http_roots && l->cfg.tls)))
		path_fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);
	if (ok && l->cfg.http_roots && l->cfg.tls && starts_tls(c->fd)) {
		secure = start_tls(l, c) == VG_OK;
		ok = secure;
	}
	if (ok && l->cfg.http_roots) {
		route = route_http(l, c->fd, secure);
		ok = route == HAND_OVER;
	}
	/* Past TLS already: the gate's VeNCrypt is for RFB on the socket. */
	if (ok && l->cfg.gate_cb && !secure) {
		gated = 1;
		c->fd = l->cfg.gate_cb(l->cfg.user, c->fd, c->peer, &gate_state);
		ok = c->fd >= 0 && watch_gated(l, c);
	}
	if (ok) {
		pthread_mutex_lock(&l->handover_lock);
		pthread_mutex_lock(&l->lock);
		ok = !l->stopping;
		if (ok) {
			c->handover_ns = vg_time_ns();
			l->stats.handed_over++;
		}
		pthread_mutex_unlock(&l->lock);
		if (ok) {
			/* fd is the network socket itself unless bridged. */
			int path = c->fd != net_fd ? path_fd : -1;

			if (path >= 0)
				path_fd = -1;
			l->cfg.handover_cb(l->cfg.user, c->fd, path, c->peer);
			/* The library's part is over: the gate's own end
			 * (gate_done_cb) keeps a deadline of its own, which
			 * a busy machine's slow client thread may need. */
			pthread_mutex_lock(&l->lock);
			c->done = 1;
			pthread_mutex_unlock(&l->lock);
		}
		pthread_mutex_unlock(&l->handover_lock);
	}
	if (path_fd >= 0)
		close(path_fd);
	if (gated && c->fd >= 0)
		l->cfg.gate_done_cb(l->cfg.user, gate_state, ok);
	pthread_mutex_lock(&l->lock);
	if (!ok) {
		if (c->fd >= 0)
			close(c->fd);
		if (route == ANSWERED)
			l->stats.http_answered++;
		else
			l->stats.dropped++;
	}
	unlink_conn(l, c);
	close(c->dup_fd);
	g_free(c);
	if (--l->pending == 0)
		pthread_cond_broadcast(&l->idle);
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* Dissolves the connection under a handover that is stuck; the library's
 * peek then fails and it drops the client. With l->lock held. */
static void cut(vg_listener *l, conn *c)
{
	struct sockaddr sa = { .sa_family = AF_UNSPEC };

	if (c->cut)
		return;
	c->cut = 1;
	l->stats.cut++;
	if (connect(c->dup_fd, &sa, sizeof sa) != 0)
		shutdown(c->dup_fd, SHUT_RDWR);
}

static void watch_handovers(vg_listener *l)
{
	uint64_t now = vg_time_ns(), limit = (uint64_t)l->cfg.handover_ms * 1000000u;

	pthread_mutex_lock(&l->lock);
	for (conn *c = l->conns; c; c = c->next) {
		if (c->handover_ns && !c->done && !c->cut && now - c->handover_ns > limit) {
			cut(l, c);
			vg_warn("a connection stalled the handshake for %d ms: cut", l->cfg.handover_ms);
		}
	}
	pthread_mutex_unlock(&l->lock);
}

static void accept_one(vg_listener *l)
{
	struct sockaddr_in sin;
	socklen_t sin_len = sizeof sin;
	int fd = accept4(l->fd, (struct sockaddr *)&sin, &sin_len, SOCK_CLOEXEC);
	pthread_attr_t attr;
	pthread_t t;
	conn *c;

	if (fd < 0)
		return;
	pthread_mutex_lock(&l->lock);
	l->stats.accepted++;
	if (l->pending >= l->cfg.max_pending) {
		l->stats.dropped++;
		pthread_mutex_unlock(&l->lock);
		close(fd);
		return;
	}
	c = g_new0(conn, 1);
	c->owner = l;
	c->fd = fd;
	if (!inet_ntop(AF_INET, &sin.sin_addr, c->peer, sizeof c->peer))
		g_strlcpy(c->peer, "unknown", sizeof c->peer);
	c->dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (c->dup_fd < 0 || pthread_create(&t, &attr, screening_thread, c) != 0) {
		l->stats.dropped++;
		pthread_mutex_unlock(&l->lock);
		pthread_attr_destroy(&attr);
		if (c->dup_fd >= 0)
			close(c->dup_fd);
		close(fd);
		g_free(c);
		return;
	}
	pthread_attr_destroy(&attr);
	c->next = l->conns;
	l->conns = c;
	l->pending++;
	pthread_mutex_unlock(&l->lock);
}

static void *accept_thread(void *arg)
{
	vg_listener *l = arg;

	for (;;) {
		struct pollfd p[2] = { { .fd = l->fd, .events = POLLIN }, { .fd = l->wake[0], .events = POLLIN } };
		int r = poll(p, 2, 100);

		if (r < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (r > 0 && (p[0].revents & POLLIN))
			accept_one(l);
		watch_handovers(l);
	}
	return NULL;
}

int vg_listener_start(vg_listener *l)
{
	if (pthread_create(&l->thread, NULL, accept_thread, l) != 0)
		return VG_EIO;
	l->started = 1;
	return VG_OK;
}

void vg_listener_free(vg_listener *l)
{
	struct timespec until;
	int left;

	if (!l)
		return;
	if (l->started) {
		if (write(l->wake[1], "x", 1) != 1)
			vg_warn("cannot wake the accept thread");
		pthread_join(l->thread, NULL);
	}
	/* Handovers in progress (and a gate's end after one) are cut so
	 * that they end; screening threads end within screen_ms, or at once
	 * for a connection shut down here (one a browser keeps idle would
	 * wait idle_ms). */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&l->lock);
	l->stopping = 1;
	for (conn *c = l->conns; c; c = c->next) {
		if (c->handover_ns)
			cut(l, c);
		else
			shutdown(c->dup_fd, SHUT_RDWR);
	}
	while (l->pending > 0 && pthread_cond_timedwait(&l->idle, &l->lock, &until) == 0)
		;
	left = l->pending;
	pthread_mutex_unlock(&l->lock);
	if (l->fd >= 0)
		close(l->fd);
	if (l->wake[0] >= 0) {
		close(l->wake[0]);
		close(l->wake[1]);
	}
	if (left) {
		/* A thread still holds l: leave it to the process's exit. */
		vg_warn("%d connections still in their handshake at exit", left);
		return;
	}
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->idle);
	pthread_mutex_destroy(&l->handover_lock);
	g_free(l);
}
