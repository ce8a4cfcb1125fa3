/* vg_tlsgate: VeNCrypt and TLS on the screening thread, LibVNCServer
 * behind a socketpair (see vg_tlsgate.h). */
#include "server/vg_tlsgate.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>

#include "capture/vg_tls.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_vencrypt.h"

/* How long LibVNCServer may take to send its own greeting on the plain
 * end after the handover: its client thread answers at once. */
#define INNER_MS 5000

#define REFUSAL "this server requires TLS (VeNCrypt X.509); connect with a viewer that speaks it, " \
	"such as varg-viewer or vncviewer -SecurityTypes X509Vnc,X509None"

struct vg_tlsgate {
	vg_tlsgate_config cfg;
	vg_tls_ctx *ctx;
	pthread_mutex_t lock;     /* stats, live */
	pthread_cond_t idle;      /* live fell to 0 */
	vg_tlsgate_stats stats;
	int live;                 /* bridges running */
};

/* A connection between the gate and the end of its handover. */
typedef struct {
	vg_tlsgate *g;
	vg_tls *tls;              /* NULL: the client chose a plain type */
	int net_fd;
	int inner;                /* our end of the socketpair */
	vg_vencrypt_result outer;
	char peer[64];
	char version[12];         /* the client's RFB version, written on inner */
} pending;

/* A bridged session, for its end. */
typedef struct {
	vg_tlsgate *g;
	bool tls;
	char peer[64];
} session;

static int64_t now_ms(void)
{
	return (int64_t)(vg_time_ns() / 1000000);
}

/* Waits for events on fd until the deadline: 0, VG_ETIMEDOUT or VG_EIO. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return VG_ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return VG_EIO;
	}
}

static int send_all(int fd, const uint8_t *p, size_t n, int64_t deadline)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return VG_EIO;
		int rc = wait_fd(fd, POLLOUT, deadline);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Reads 1..cap bytes. */
static int recv_some(int fd, uint8_t *buf, size_t cap, size_t *got, int64_t deadline)
{
	for (;;) {
		ssize_t r = recv(fd, buf, cap, MSG_DONTWAIT);
		if (r > 0) {
			*got = (size_t)r;
			return 0;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			return VG_EIO;
		int rc = wait_fd(fd, POLLIN, deadline);
		if (rc < 0)
			return rc;
	}
}

/* Runs a negotiation on fd to its end: sends what it says, reads exactly
 * what it wants. A refusal is sent before the failure returns. */
static int converse(int fd, vg_vencrypt *v, int64_t deadline)
{
	uint8_t buf[VG_VENCRYPT_MAX_REASON];
	for (;;) {
		size_t len;
		const uint8_t *out = vg_vencrypt_output(v, &len);
		if (len) {
			int rc = send_all(fd, out, len, deadline);
			if (rc < 0)
				return rc;
			vg_vencrypt_output_drop(v, len);
		}
		vg_vencrypt_status st = vg_vencrypt_status_get(v);
		if (st != VG_VENCRYPT_RUNNING)
			return st == VG_VENCRYPT_DONE ? 0 : vg_vencrypt_feed(v, NULL, 0, NULL);
		size_t want = vg_vencrypt_want(v), got = 0;
		int rc = recv_some(fd, buf, want < sizeof buf ? want : sizeof buf, &got, deadline);
		if (rc < 0)
			return rc;
		vg_vencrypt_feed(v, buf, got, NULL);
	}
}

int vg_tlsgate_new(const vg_tlsgate_config *cfg, vg_tlsgate **out)
{
	char err[512] = "";
	vg_tls_ctx *ctx = NULL;
	*out = NULL;
	int rc = vg_tls_server_new(cfg->cert_file, cfg->key_file, cfg->state_dir, &ctx, err, sizeof err);
	if (rc < 0) {
		vg_error("TLS: %s", err);
		return rc;
	}
	vg_tlsgate *g = g_new0(vg_tlsgate, 1);
	g->cfg = *cfg;
	g->cfg.cert_file = g->cfg.key_file = g->cfg.state_dir = NULL; /* not kept */
	if (!g->cfg.handshake_ms)
		g->cfg.handshake_ms = 10000;
	g->ctx = ctx;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->idle, NULL);
	*out = g;
	return 0;
}

const char *vg_tlsgate_fingerprint(const vg_tlsgate *g)
{
	return vg_tls_ctx_fingerprint(g->ctx);
}

const char *vg_tlsgate_cert_path(const vg_tlsgate *g)
{
	return vg_tls_ctx_cert_path(g->ctx);
}

static void count(vg_tlsgate *g, unsigned long long *field)
{
	pthread_mutex_lock(&g->lock);
	(*field)++;
	pthread_mutex_unlock(&g->lock);
}

int vg_tlsgate_open(vg_tlsgate *g, int fd, const char *peer, void **state)
{
	int64_t deadline = now_ms() + g->cfg.handshake_ms;
	vg_vencrypt *v = NULL;
	vg_tls *tls = NULL;
	char err[512] = "";
	int sp[2] = {-1, -1};
	*state = NULL;

	if (g->cfg.refuse_cb && g->cfg.refuse_cb(g->cfg.user, peer)) {
		count(g, &g->stats.refused);
		goto fail;
	}
	/* A WebSocket upgrade is LibVNCServer's, unencrypted. */
	char head[4];
	if (recv(fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT) == 4 && memcmp(head, "GET ", 4) == 0) {
		if (g->cfg.mode != VG_TLSGATE_REQUIRE)
			return fd;
		vg_warn("client %s: WebSocket connection refused: this server requires TLS", peer);
		count(g, &g->stats.refused);
		goto fail;
	}

	const uint8_t plain_type = g->cfg.vnc_auth ? VG_RFB_SEC_VNC : VG_RFB_SEC_NONE;
	const uint8_t offer[] = {plain_type, VG_RFB_SEC_VENCRYPT};
	const uint8_t require[] = {VG_RFB_SEC_VENCRYPT};
	const uint32_t sub[] = {g->cfg.vnc_auth ? VG_VENCRYPT_X509VNC : VG_VENCRYPT_X509NONE};
	vg_vencrypt_config vc = {
		.types = g->cfg.mode == VG_TLSGATE_REQUIRE ? require : offer,
		.n_types = g->cfg.mode == VG_TLSGATE_REQUIRE ? 1 : 2,
		.subtypes = sub,
		.n_subtypes = 1,
		.reason = REFUSAL,
	};
	if (vg_vencrypt_new(VG_VENCRYPT_SERVER, &vc, &v) < 0)
		goto fail;
	int rc = converse(fd, v, deadline);
	if (rc < 0) {
		if (vg_vencrypt_status_get(v) == VG_VENCRYPT_FAILED)
			vg_info("client %s: refused: %s", peer, vg_vencrypt_error(v));
		else
			vg_debug("client %s: gone during the security negotiation (%s)", peer, vg_strerror(rc));
		count(g, &g->stats.refused);
		goto fail;
	}
	pending *p = g_new0(pending, 1);
	vg_vencrypt_result_get(v, &p->outer);
	if (p->outer.type == VG_RFB_SEC_VENCRYPT) {
		int left = (int)(deadline - now_ms());
		rc = left > 0 ? vg_tls_handshake(g->ctx, fd, NULL, left, &tls, err, sizeof err) : VG_ETIMEDOUT;
		if (rc < 0) {
			vg_info("client %s: TLS handshake failed: %s", peer, err[0] ? err : vg_strerror(rc));
			count(g, &g->stats.failed);
			g_free(p);
			goto fail;
		}
		vg_debug("client %s: %s, %s", peer, vg_tls_protocol(tls), vg_tls_cipher(tls));
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		vg_warn("client %s: no socketpair: %s", peer, g_strerror(errno));
		g_free(p);
		goto fail;
	}
	/* The client's version, before LibVNCServer speaks: its WebSocket
	 * peek finds "RFB " and goes on at once. */
	char ver[13];
	snprintf(ver, sizeof ver, "RFB 003.%03d\n", p->outer.rfb_minor);
	memcpy(p->version, ver, sizeof p->version);
	if (send_all(sp[0], (const uint8_t *)ver, 12, deadline) < 0) {
		g_free(p);
		goto fail;
	}
	p->g = g;
	p->tls = tls;
	p->net_fd = fd;
	p->inner = sp[0];
	g_strlcpy(p->peer, peer, sizeof p->peer);
	vg_vencrypt_free(v);
	*state = p;
	return sp[1];
fail:
	if (sp[0] >= 0) {
		close(sp[0]);
		close(sp[1]);
	}
	vg_tls_free(tls);
	vg_vencrypt_free(v);
	close(fd);
	return -1;
}

static void session_done(void *user, const vg_tls_bridge_stats *st)
{
	session *s = user;
	vg_tlsgate *g = s->g;
	if (s->tls)
		vg_info("client %s: TLS session ended: %" PRIu64 " bytes sent in %" PRIu64 " on the wire, %"
			PRIu64 " received in %" PRIu64, s->peer, st->plain_in, st->net_out, st->plain_out,
			st->net_in);
	pthread_mutex_lock(&g->lock);
	if (--g->live == 0)
		pthread_cond_broadcast(&g->idle);
	pthread_mutex_unlock(&g->lock);
	g_free(s);
}

void vg_tlsgate_done(vg_tlsgate *g, void *state, int handed)
{
	pending *p = state;
	vg_vencrypt *v = NULL;
	int64_t deadline = now_ms() + INNER_MS;

	if (!p)
		return;
	if (!handed)
		goto fail;
	/* LibVNCServer's side: our client's version is written already, its
	 * type follows from the subtype. */
	uint8_t inner_type = p->outer.type;
	if (inner_type == VG_RFB_SEC_VENCRYPT)
		inner_type = p->outer.subtype == VG_VENCRYPT_X509VNC ? VG_RFB_SEC_VNC : VG_RFB_SEC_NONE;
	vg_vencrypt_config vc = {.rfb_minor = p->outer.rfb_minor, .types = &inner_type, .n_types = 1};
	if (vg_vencrypt_new(VG_VENCRYPT_CLIENT, &vc, &v) < 0)
		goto fail;
	uint8_t sv[12];
	size_t have = 0;
	while (have < sizeof sv) {
		size_t got = 0;
		if (recv_some(p->inner, sv + have, sizeof sv - have, &got, deadline) < 0)
			goto inner_fail;
		have += got;
	}
	vg_vencrypt_feed(v, sv, sizeof sv, NULL);
	size_t len;
	const uint8_t *out = vg_vencrypt_output(v, &len);
	if (len != sizeof p->version || memcmp(out, p->version, len) != 0)
		goto inner_fail;
	vg_vencrypt_output_drop(v, len);
	if (converse(p->inner, v, deadline) < 0)
		goto inner_fail;
	vg_vencrypt_free(v);

	session *s = g_new0(session, 1);
	s->g = g;
	s->tls = p->tls != NULL;
	g_strlcpy(s->peer, p->peer, sizeof s->peer);
	vg_tls_bridge *b = NULL;
	pthread_mutex_lock(&g->lock);
	g->live++;
	if (p->tls)
		g->stats.tls++;
	else
		g->stats.plain++;
	pthread_mutex_unlock(&g->lock);
	/* The bridge owns the session and both sockets from here on. */
	if (vg_tls_bridge_start(p->tls, p->net_fd, p->inner, &b) < 0) {
		vg_warn("client %s: cannot start its bridge", p->peer);
		session_done(s, &(vg_tls_bridge_stats){0});
		g_free(p);
		return;
	}
	vg_tls_bridge_detach(b, session_done, s);
	g_free(p);
	return;
inner_fail:
	vg_warn("client %s: the server's own handshake failed on the plain side: %s", p->peer,
		vg_vencrypt_status_get(v) == VG_VENCRYPT_FAILED ? vg_vencrypt_error(v) : "no answer");
fail:
	vg_vencrypt_free(v);
	vg_tls_free(p->tls);
	close(p->net_fd);
	close(p->inner);
	g_free(p);
}

void vg_tlsgate_stats_get(vg_tlsgate *g, vg_tlsgate_stats *out)
{
	pthread_mutex_lock(&g->lock);
	*out = g->stats;
	pthread_mutex_unlock(&g->lock);
}

void vg_tlsgate_free(vg_tlsgate *g)
{
	if (!g)
		return;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&g->lock);
	while (g->live > 0 && pthread_cond_timedwait(&g->idle, &g->lock, &until) == 0)
		;
	int left = g->live;
	pthread_mutex_unlock(&g->lock);
	if (left) {
		/* A bridge still holds g: leave it to the process's exit. */
		vg_warn("%d TLS sessions still ending at exit", left);
		return;
	}
	vg_tls_ctx_free(g->ctx);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->idle);
	g_free(g);
}
