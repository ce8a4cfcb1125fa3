#include "server/vg_refine.h"

#include <glib.h>
#include <netinet/in.h>
#include <stddef.h>
#include <linux/tcp.h>
#include <string.h>
#include <sys/socket.h>

#include "common/vg_error.h"
#include "fingerprint/codec/vg_approx.h"

/* How long a delivered rate stays the estimate: a few large updates'
 * worth, so that the quiet moments between them do not count. */
#define RATE_MEMORY_NS (5 * G_GUINT64_CONSTANT(1000000000))

struct vg_refine {
	vg_refine_config cfg;
	uint64_t rate;        /* the highest delivered rate lately */
	uint64_t rate_ns;     /* when it was seen */
	uint64_t cwnd_rate;
	uint64_t queued;
	uint64_t one_way_us;  /* half the least round trip seen; 0: not known */
	double bpp;           /* wire bytes a literal pixel, moving average */
	bool bpp_measured;    /* ... from at least one large update */
	double code_ns;       /* the sender's time a literal pixel, likewise */
	double approx_bpp;    /* wire bytes a shrunk pixel, likewise */
};

int vg_refine_read_socket(int fd, vg_path_sample *out)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;

	memset(out, 0, sizeof *out);
	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		return VG_EIO;
	out->rate = ti.tcpi_delivery_rate;
	out->rtt_us = ti.tcpi_rtt;
	if (len >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof ti.tcpi_min_rtt)
		out->min_rtt_us = ti.tcpi_min_rtt;
	if (ti.tcpi_rtt > 0)
		out->cwnd_rate = (uint64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss * 1000000u / ti.tcpi_rtt;
	out->queued = (uint64_t)ti.tcpi_notsent_bytes + (uint64_t)ti.tcpi_unacked * ti.tcpi_snd_mss;
	return VG_OK;
}

uint64_t vg_path_rtt_us(const vg_path_sample *p)
{
	return p->min_rtt_us ? p->min_rtt_us : p->rtt_us;
}

vg_refine *vg_refine_new(const vg_refine_config *cfg)
{
	vg_refine *rf = g_new0(vg_refine, 1);

	rf->cfg = *cfg;
	/* A guess, replaced by what the first large updates cost. */
	rf->bpp = 0.25;
	/* Shrunk pixels mix colours at block edges: they cost more each. */
	rf->approx_bpp = 2 * rf->bpp;
	return rf;
}

void vg_refine_free(vg_refine *rf)
{
	g_free(rf);
}

void vg_refine_observe(vg_refine *rf, uint64_t now_ns, const vg_path_sample *p)
{
	if (p->rate >= rf->rate || now_ns - rf->rate_ns > RATE_MEMORY_NS) {
		rf->rate = p->rate;
		rf->rate_ns = now_ns;
	}
	rf->cwnd_rate = p->cwnd_rate;
	rf->queued = p->queued;
	if (vg_path_rtt_us(p))
		rf->one_way_us = vg_path_rtt_us(p) / 2;
}

/* A moving average a quarter of the way towards one update's figure. */
static double toward(double average, double sample)
{
	return 0.75 * average + 0.25 * sample;
}

/* Moves a bytes-a-pixel average towards one update's cost; updates of a
 * few pixels say little about the next large one: false for those. */
static bool learn_bpp(double *bpp, uint64_t pixels, uint64_t min_pixels, uint64_t wire_bytes)
{
	if (pixels < min_pixels)
		return false;
	*bpp = toward(*bpp, (double)wire_bytes / (double)pixels);
	return true;
}

void vg_refine_coded(vg_refine *rf, uint64_t pixels, uint64_t wire_bytes, uint64_t code_ns)
{
	if (learn_bpp(&rf->bpp, pixels, 4096, wire_bytes)) {
		double ns = (double)code_ns / (double)pixels;

		rf->code_ns = rf->bpp_measured ? toward(rf->code_ns, ns) : ns;
		rf->bpp_measured = true;
	}
}

void vg_refine_approx_coded(vg_refine *rf, uint64_t pixels, unsigned factor, uint64_t wire_bytes)
{
	learn_bpp(&rf->approx_bpp, pixels / ((uint64_t)factor * factor), 256, wire_bytes);
}

static double budget_bytes(const vg_refine *rf)
{
	return (double)vg_refine_rate(rf) * rf->cfg.budget_ms / 1000.0;
}

uint64_t vg_refine_known_rate(const vg_refine *rf)
{
	return rf->bpp_measured ? vg_refine_rate(rf) : 0;
}

uint64_t vg_refine_chunk_pixels(const vg_refine *rf)
{
	double room;

	if (rf->cfg.budget_ms == 0 || vg_refine_rate(rf) == 0)
		return UINT64_MAX;
	room = MAX(budget_bytes(rf) - (double)rf->queued, budget_bytes(rf) / 4);
	return (uint64_t)(room / rf->bpp) + 1;
}

uint64_t vg_refine_band_pixels(const vg_refine *rf)
{
	/* Not before a large update has gone: until then the rate is the
	 * handshake's and the bytes a pixel a guess, both far too low, and
	 * a connection's first page would go in many small bands (measured:
	 * later than in one, doc/results.md). */
	if (rf->cfg.band_ms == 0 || vg_refine_rate(rf) == 0 || !rf->bpp_measured)
		return UINT64_MAX;
	return (uint64_t)((double)vg_refine_rate(rf) * rf->cfg.band_ms / 1000.0 / rf->bpp) + 1;
}

bool vg_refine_band_worth(const vg_refine *rf, uint64_t missed_px, uint64_t waited_ns)
{
	double px = (double)missed_px, coding_ms, link_ms;

	if (rf->cfg.first_paint_ms == 0)
		return true;
	if (vg_refine_rate(rf) == 0)
		return false;
	coding_ms = 2 * rf->code_ns * px / 1e6;
	link_ms = (double)rf->one_way_us / 1000.0 +
		  ((double)rf->queued + rf->bpp * px) * 1000.0 / (double)vg_refine_rate(rf);
	return (double)waited_ns / 1e6 + coding_ms + link_ms > rf->cfg.first_paint_ms;
}

uint64_t vg_refine_rate(const vg_refine *rf)
{
	if (rf->cfg.fixed_rate)
		return rf->cfg.fixed_rate;
	return rf->rate ? rf->rate : rf->cwnd_rate;
}

unsigned vg_refine_factor(const vg_refine *rf, uint64_t exact_px, uint64_t approx_px,
			  uint64_t approx_bytes)
{
	double budget, base, exact, shrunk = 0;
	unsigned f;

	if (rf->cfg.budget_ms == 0 || vg_refine_rate(rf) == 0 || approx_px == 0)
		return 0;
	budget = budget_bytes(rf);
	base = (double)rf->queued + rf->bpp * (double)exact_px;
	exact = approx_bytes ? (double)approx_bytes : rf->bpp * (double)approx_px;
	if (base + exact <= budget)
		return 0;
	/* The sharpest approximation that fits the budget and is much
	 * cheaper than the exact pixels (else not worth a second sending);
	 * past the budget even at the coarsest, the coarsest. */
	for (f = VG_APPROX_FACTOR_MIN; f <= VG_APPROX_FACTOR_MAX; f *= 2) {
		shrunk = rf->approx_bpp * (double)approx_px / (f * f);
		if (base + shrunk <= budget && shrunk * 4 <= exact)
			return f;
	}
	return shrunk * 4 <= exact ? VG_APPROX_FACTOR_MAX : 0;
}
