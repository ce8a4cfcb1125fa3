/* A server program's settings: their defaults, and the option that is
 * not a plain number or string. */
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "fingerprint/proto/vg_proto.h"
#include "pipeline/vg_workers.h"
#include "server/vg_serverconfig.h"

int vg_server_pixmodel_option(const char *s, vg_server_pixmodel *out)
{
	if (!strcmp(s, "auto"))
		*out = VG_SERVER_PIXMODEL_AUTO;
	else if (!strcmp(s, "on"))
		*out = VG_SERVER_PIXMODEL_ON;
	else if (!strcmp(s, "off"))
		*out = VG_SERVER_PIXMODEL_OFF;
	else {
		vg_error("--pixel-model must be auto, on or off");
		return VG_EINVAL;
	}
	return VG_OK;
}

void vg_server_config_init(vg_server_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->port = 5900;
	cfg->listen = "127.0.0.1";
	cfg->zstd_level = VG_SERVER_ZSTD_AUTO;
	cfg->pixmodel = VG_SERVER_PIXMODEL_AUTO;
	cfg->fp_bits = VG_FP_BITS_DEFAULT;
	cfg->group_size = VG_GROUP_DEFAULT;
	cfg->desktop_name = "varg";
	cfg->defer_ms = 5;
	cfg->band_ms = VG_SERVER_BAND_MS;
	cfg->first_paint_ms = VG_SERVER_FIRST_PAINT_MS;
	cfg->threads = vg_workers_default_threads();
}

int vg_server_tls_options(bool tls, bool no_tls, const char *cert, const char *key, vg_server_config *cfg)
{
	if (tls && no_tls) {
		vg_error("--tls and --no-tls exclude each other");
		return VG_EINVAL;
	}
	if (!cert != !key) {
		vg_error("--tls-cert and --tls-key go together");
		return VG_EINVAL;
	}
	if (no_tls && cert) {
		vg_error("--tls-cert and --tls-key need TLS: drop --no-tls");
		return VG_EINVAL;
	}
	cfg->tls = tls ? VG_SERVER_TLS_REQUIRE : no_tls ? VG_SERVER_TLS_OFF : VG_SERVER_TLS_OFFER;
	cfg->tls_cert = cert;
	cfg->tls_key = key;
	return VG_OK;
}
