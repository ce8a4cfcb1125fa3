/* The viewer's security handshake, then a plain stream for LibVNCClient.
 *
 * The negotiation itself (version, security type, VeNCrypt) is
 * common/vg_vencrypt's, spoken here on the socket. What LibVNCClient then
 * reads first on the plain end (the "prologue") is written there by the
 * channel: the version agreed and the one security type to choose. It
 * answers with its version (12 bytes) and, from RFB 3.7 on, its choice (1
 * byte); the server had those from the channel already, so the bridge
 * drops them. Everything after passes through. */
#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capture/vg_channel.h"
#include "common/vg_error.h"
#include "common/vg_log.h"
#include "common/vg_time.h"
#include "common/vg_vencrypt.h"

#define RFB_VERSION_LEN 12

struct vg_channel {
	int net_fd;               /* kept open by the bridge until it is freed */
	vg_tls_bridge *bridge;
	vg_channel_info info;
};

/* Waits for fd to be ready for events by the deadline: 0, VG_ETIMEDOUT or
 * VG_EIO. */
static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int r;

	for (;;) {
		now = vg_time_ns();
		if (now >= deadline_ns)
			return VG_ETIMEDOUT;
		r = poll(&p, 1, (int)MIN((deadline_ns - now) / 1000000 + 1, 1000));
		if (r > 0)
			return VG_OK;
		if (r < 0 && errno != EINTR)
			return VG_EIO;
	}
}

/* Reads exactly n bytes: 0, VG_EIO (closed or failed), VG_ETIMEDOUT. */
static int read_full(int fd, uint8_t *p, size_t n, uint64_t deadline_ns)
{
	ssize_t r;
	int err;

	while (n) {
		r = recv(fd, p, n, 0);
		if (r > 0) {
			p += r;
			n -= (size_t)r;
		} else if (r == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
			return VG_EIO;
		} else if (errno != EINTR && (err = wait_fd(fd, POLLIN, deadline_ns))) {
			return err;
		}
	}
	return VG_OK;
}

/* Writes all n bytes: 0, VG_EIO, VG_ETIMEDOUT. */
static int write_all(int fd, const uint8_t *p, size_t n, uint64_t deadline_ns)
{
	ssize_t r;
	int err;

	while (n) {
		r = send(fd, p, n, MSG_NOSIGNAL);
		if (r > 0) {
			p += r;
			n -= (size_t)r;
		} else if (r == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
			return VG_EIO;
		} else if (errno != EINTR && (err = wait_fd(fd, POLLOUT, deadline_ns))) {
			return err;
		}
	}
	return VG_OK;
}

/* Speaks v with the server until it is done or failed: 0, or VG_EIO /
 * VG_ETIMEDOUT from the socket, or the negotiation's own code. Reads only
 * what the negotiation asks for: the TLS handshake's bytes stay in the
 * socket. */
static int negotiate(vg_vencrypt *v, int fd, uint64_t deadline_ns)
{
	uint8_t buf[VG_VENCRYPT_MAX_REASON];
	const uint8_t *out;
	size_t want, len, used;
	int err;

	for (;;) {
		out = vg_vencrypt_output(v, &len);
		if (len) {
			if ((err = write_all(fd, out, len, deadline_ns)))
				return err;
			vg_vencrypt_output_drop(v, len);
		}
		if (vg_vencrypt_status_get(v) != VG_VENCRYPT_RUNNING)
			return vg_vencrypt_status_get(v) == VG_VENCRYPT_DONE ? VG_OK : VG_EPROTO;
		want = MIN(vg_vencrypt_want(v), sizeof buf);
		if ((err = read_full(fd, buf, want, deadline_ns)))
			return err;
		if ((err = vg_vencrypt_feed(v, buf, want, &used)))
			return err;
	}
}

/* The name the known hosts file keeps the server under: through a
 * gateway, the host is named on it, and the same name through another
 * gateway may be another server. */
static char *known_name(const vg_channel_config *cfg)
{
	return cfg->via ? g_strdup_printf("%s via %s", cfg->host, cfg->via) : g_strdup(cfg->host);
}

/* Whether the certificate whose fingerprint is fp may be trusted, after
 * the CA file (if any) accepted it: the pinned fingerprint, else the
 * known hosts. Sets ch->info.trust; VG_ECRYPTO with the reason in why
 * when not. */
static int check_fingerprint(vg_channel *ch, const vg_channel_config *cfg, const uint8_t fp[VG_TLS_FP_LEN],
			     char *why, size_t why_cap)
{
	g_autofree char *name = known_name(cfg), *path = NULL;
	uint8_t known[VG_TLS_FP_LEN];
	char other[VG_TLS_FP_TEXT];
	const char *now = ch->info.fingerprint;
	int err;

	if (cfg->fingerprint) {
		if (memcmp(fp, cfg->fingerprint, VG_TLS_FP_LEN) != 0) {
			vg_tls_fingerprint_format(cfg->fingerprint, other);
			snprintf(why, why_cap, "the server's TLS certificate is SHA-256 %s, not %s as "
				 "--tls-fingerprint says", now, other);
			return VG_ECRYPTO;
		}
		ch->info.trust = "pinned";
		/* The way to accept a new certificate: remember the pinned one. */
		if (cfg->trust_dir && (err = vg_knownhosts_remember(cfg->trust_dir, name, cfg->port, fp)))
			vg_warn("cannot remember the certificate of %s::%d in %s: %s", name, cfg->port,
				cfg->trust_dir, vg_strerror(err));
		return VG_OK;
	}
	if (cfg->ca_file) {
		ch->info.trust = "ca";
		return VG_OK;
	}
	path = vg_knownhosts_path(cfg->trust_dir);
	err = vg_knownhosts_lookup(cfg->trust_dir, name, cfg->port, known);
	if (err == VG_ENOENT) {
		/* First use trusts in any case; a store that cannot be
		 * written only means the next connection is a first use too. */
		ch->info.trust = "first use";
		if ((err = vg_knownhosts_remember(cfg->trust_dir, name, cfg->port, fp)))
			vg_warn("%s::%d: cannot remember its TLS certificate (SHA-256 %s) in %s: %s", name,
				cfg->port, now, path, vg_strerror(err));
		else
			vg_info("%s::%d: its TLS certificate, SHA-256 %s, is remembered in %s", name, cfg->port,
				now, path);
		return VG_OK;
	}
	if (err) {
		snprintf(why, why_cap, "the known hosts file %s cannot be read (%s): move it away, or use "
			 "--tls-fingerprint or --tls-ca", path, vg_strerror(err));
		return VG_ECRYPTO;
	}
	if (memcmp(fp, known, VG_TLS_FP_LEN) != 0) {
		vg_tls_fingerprint_format(known, other);
		snprintf(why, why_cap, "the server's TLS certificate has CHANGED: SHA-256 %s was remembered "
			 "(%s), it is now %s; if you expect the change, connect once with --tls-fingerprint %s",
			 other, path, now, now);
		return VG_ECRYPTO;
	}
	ch->info.trust = "known";
	return VG_OK;
}

/* TLS on the socket after VeNCrypt said "go", and the certificate's
 * check. On success *tls is the session. */
static int start_tls(vg_channel *ch, const vg_channel_config *cfg, vg_tls **tls, char *why, size_t why_cap)
{
	vg_tls_ctx *ctx = NULL;
	uint8_t fp[VG_TLS_FP_LEN];
	char err_text[256] = "";
	uint64_t now = vg_time_ns();
	int err, ms;

	*tls = NULL;
	if ((err = vg_tls_client_new(cfg->ca_file, &ctx, err_text, sizeof err_text))) {
		snprintf(why, why_cap, "%s", err_text);
		err = VG_ECRYPTO;
		goto out;
	}
	ms = now < cfg->deadline_ns ? (int)MAX((cfg->deadline_ns - now) / 1000000, 1) : 1;
	err = vg_tls_handshake(ctx, ch->net_fd, cfg->host, ms, tls, err_text, sizeof err_text);
	if (err == VG_EAUTH) {
		snprintf(why, why_cap, "the server's TLS certificate is not trusted by %s: %s", cfg->ca_file,
			 err_text);
		err = VG_ECRYPTO;
		goto out;
	}
	if (err) {
		snprintf(why, why_cap, "TLS handshake failed: %s", err_text);
		if (err == VG_EPROTO)
			err = VG_ECRYPTO;
		goto out;
	}
	if (vg_tls_peer_fingerprint(*tls, fp)) {
		snprintf(why, why_cap, "the server showed no TLS certificate");
		err = VG_ECRYPTO;
		goto out;
	}
	ch->info.encrypted = true;
	snprintf(ch->info.version, sizeof ch->info.version, "%s", vg_tls_protocol(*tls));
	snprintf(ch->info.cipher, sizeof ch->info.cipher, "%s", vg_tls_cipher(*tls));
	vg_tls_fingerprint_format(fp, ch->info.fingerprint);
	err = check_fingerprint(ch, cfg, fp, why, why_cap);
out:
	if (err) {
		vg_tls_free(*tls);
		*tls = NULL;
	}
	vg_tls_ctx_free(ctx);
	return err;
}

/* What LibVNCClient reads first: the version and the one security type.
 * Over VeNCrypt it is told RFB 3.8, so that it reads the SecurityResult
 * the server sends after VeNCrypt whatever the subtype (in 3.7 a server
 * sends one for every type but None, and VeNCrypt is not None). Returns
 * the prologue's length; *drop gets how much LibVNCClient answers. */
static size_t prologue(const vg_vencrypt_result *r, uint8_t *p, size_t *drop)
{
	int minor = r->type == VG_RFB_SEC_VENCRYPT ? 8 : r->rfb_minor;
	uint8_t type = r->type;
	char version[RFB_VERSION_LEN + 1];

	if (r->type == VG_RFB_SEC_VENCRYPT)
		type = r->subtype == VG_VENCRYPT_X509VNC ? VG_RFB_SEC_VNC : VG_RFB_SEC_NONE;
	snprintf(version, sizeof version, "RFB 003.%03d\n", minor);
	memcpy(p, version, RFB_VERSION_LEN);
	if (minor == 3) {
		/* The server's choice, a u32. */
		memset(p + RFB_VERSION_LEN, 0, 3);
		p[RFB_VERSION_LEN + 3] = type;
		*drop = RFB_VERSION_LEN;
		return RFB_VERSION_LEN + 4;
	}
	p[RFB_VERSION_LEN] = 1;
	p[RFB_VERSION_LEN + 1] = type;
	*drop = RFB_VERSION_LEN + 1;
	return RFB_VERSION_LEN + 2;
}

int vg_channel_open(int net_fd, const vg_channel_config *cfg, vg_channel **out, int *plain_fd,
		    char *why, size_t why_cap)
{
	/* TLS first; plain types only when TLS is not required. X509None
	 * before X509Vnc: a server that offers both lets in without a
	 * password, and the session is encrypted either way. */
	static const uint8_t types[] = { VG_RFB_SEC_VENCRYPT, VG_RFB_SEC_NONE, VG_RFB_SEC_VNC };
	static const uint32_t subtypes[] = { VG_VENCRYPT_X509NONE, VG_VENCRYPT_X509VNC };
	vg_vencrypt_config vcfg = { .rfb_minor = 8, .types = types, .n_types = cfg->tls_required ? 1 : 3,
				    .subtypes = subtypes, .n_subtypes = G_N_ELEMENTS(subtypes) };
	vg_channel *ch = g_new0(vg_channel, 1);
	vg_vencrypt *v = NULL;
	vg_vencrypt_result r;
	vg_tls *tls = NULL;
	uint8_t pro[RFB_VERSION_LEN + 4];
	size_t pro_len, drop;
	int sv[2] = { -1, -1 };
	int err;

	*out = NULL;
	*plain_fd = -1;
	ch->net_fd = net_fd;
	if (why && why_cap)
		why[0] = '\0';
	if ((err = vg_vencrypt_new(VG_VENCRYPT_CLIENT, &vcfg, &v)))
		goto out;
	err = negotiate(v, net_fd, cfg->deadline_ns);
	if (err == VG_ENOTSUP && cfg->tls_required) {
		snprintf(why, why_cap, "the server does not offer TLS (VeNCrypt with X509None or X509Vnc), "
			 "which --tls requires: %s", vg_vencrypt_error(v));
		err = VG_ECRYPTO;
		goto out;
	}
	if (err == VG_EIO || err == VG_ETIMEDOUT) {
		snprintf(why, why_cap, err == VG_EIO ? "the server closed the connection in the handshake"
						     : "the server did not complete the handshake in time");
		goto out;
	}
	if (err) {
		/* A server that refuses before authentication (with a reason)
		 * may let us in later: not a refused password. */
		snprintf(why, why_cap, "%s", vg_vencrypt_error(v));
		err = err == VG_EAUTH ? VG_EIO : VG_EPROTO;
		goto out;
	}
	vg_vencrypt_result_get(v, &r);
	if (r.type == VG_RFB_SEC_VENCRYPT && (err = start_tls(ch, cfg, &tls, why, why_cap)))
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		snprintf(why, why_cap, "socketpair: %s", g_strerror(errno));
		err = VG_EIO;
		goto out;
	}
	/* A few bytes into an empty socket buffer: never blocks. */
	pro_len = prologue(&r, pro, &drop);
	if (write(sv[1], pro, pro_len) != (ssize_t)pro_len) {
		snprintf(why, why_cap, "cannot write to the plain end: %s", g_strerror(errno));
		err = VG_EIO;
		goto out;
	}
	/* The bridge owns the session, the socket and its end from here. */
	err = vg_tls_bridge_start_dropping(tls, net_fd, sv[1], drop, &ch->bridge);
	tls = NULL;
	sv[1] = -1;
	if (err) {
		ch->net_fd = -1;
		snprintf(why, why_cap, "cannot start the bridge thread");
		goto out;
	}
	*plain_fd = sv[0];
	sv[0] = -1;
	*out = ch;
	ch = NULL;
out:
	vg_vencrypt_free(v);
	vg_tls_free(tls);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	vg_channel_free(ch);
	return err;
}

void vg_channel_get_info(const vg_channel *ch, vg_channel_info *info)
{
	*info = ch->info;
}

int vg_channel_net_fd(const vg_channel *ch)
{
	return ch->net_fd;
}

void vg_channel_free(vg_channel *ch)
{
	if (!ch)
		return;
	if (ch->bridge)
		vg_tls_bridge_free(ch->bridge);
	else if (ch->net_fd >= 0)
		close(ch->net_fd);
	g_free(ch);
}
