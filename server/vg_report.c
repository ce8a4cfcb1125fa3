#include "server/vg_report.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"

/* The running report's pipe, for the SIGUSR1 handler: printing is not
 * async-signal-safe, so the handler writes a byte and the status thread
 * prints. */
static volatile sig_atomic_t summary_fd = -1;

/* Connected viewers listed in the JSON, at most. */
#define MAX_CONNECTED 1024

struct vg_report {
	vg_server *srv;
	const char *prog;
	int interval;
	int pipe[2];              /* a byte: summary; 'q': stop */
	GThread *thread;
};

static double ms(double ns)
{
	return ns / 1e6;
}

/* Share of fingerprinted segments the viewers' caches held, in %. */
static double belief_hit_rate(uint64_t fingerprints, uint64_t misses)
{
	return fingerprints ? 100.0 * (double)(fingerprints - MIN(misses, fingerprints)) /
				      (double)fingerprints : 0.0;
}

static void print_stats_line(vg_server *srv)
{
	vg_server_stats st;
	vg_monitor_summary sum;
	char extra[160] = "";

	vg_server_get_stats(srv, &st);
	if (vg_server_get_summary(srv, &sum) && sum.varg[VG_STAGE_LATENCY].n)
		g_snprintf(extra, sizeof extra, "; Varg: ratio %.1f:1, latency p50 %.1f ms, p99 %.1f ms",
			   sum.window_sent ? (double)sum.window_raw / (double)sum.window_sent : 0.0,
			   ms((double)sum.varg[VG_STAGE_LATENCY].p50_ns),
			   ms((double)sum.varg[VG_STAGE_LATENCY].p99_ns));
	vg_info("status: %" G_GUINT64_FORMAT " clients (%" G_GUINT64_FORMAT " so far, %" G_GUINT64_FORMAT
		" Varg), %" G_GUINT64_FORMAT " updates, %" G_GUINT64_FORMAT " bytes sent, shared %"
		G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "%s",
		st.clients_now, st.clients_total, st.varg_clients, st.updates_sent, st.bytes_sent,
		st.shared_hits, st.shared_hits + st.shared_misses, extra);
}

/* The SIGUSR1 summary, on stderr as one block. */
static void print_summary(vg_server *srv, const char *prog)
{
	g_autoptr(GString) out = g_string_new(NULL);
	vg_server_viewer viewers[64];
	vg_monitor_summary sum;
	vg_server_stats st;
	size_t n, i;
	int k;

	g_string_append_printf(out, "%s: summary\n", prog);
	vg_server_get_stats(srv, &st);
	g_string_append_printf(out, "  clients: %" G_GUINT64_FORMAT " now, %" G_GUINT64_FORMAT
			       " so far (%" G_GUINT64_FORMAT " Varg); %" G_GUINT64_FORMAT
			       " updates, %" G_GUINT64_FORMAT " bytes sent\n",
			       st.clients_now, st.clients_total, st.varg_clients, st.updates_sent,
			       st.bytes_sent);
	g_string_append_printf(out, "  cache beliefs: %" G_GUINT64_FORMAT " fingerprinted segments, %"
			       G_GUINT64_FORMAT " misses, hit rate %.2f %%\n",
			       st.fingerprints, st.repairs, belief_hit_rate(st.fingerprints, st.repairs));
	g_string_append_printf(out, "  shared segmentation: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
			       " misses, %" G_GUINT64_FORMAT " unshared, %" G_GUINT64_FORMAT
			       " waits (%.1f ms), %" G_GUINT64_FORMAT " evictions\n",
			       st.shared_hits, st.shared_misses, st.unshared, st.shared_waits,
			       ms((double)st.shared_wait_ns), st.shared_evictions);
	if (vg_server_get_summary(srv, &sum)) {
		g_string_append_printf(out, "  last %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				       " updates, ms: mean / p50 / p99 / max\n", sum.window, sum.updates);
		for (k = 0; k < VG_STAGE_COUNT; k++) {
			const vg_stage_summary *v = &sum.varg[k];

			if (v->n)
				g_string_append_printf(out, "    varg  %-9s %8.3f %8.3f %8.3f %8.3f\n",
						       vg_stage_name((vg_stage)k), ms(v->mean_ns),
						       ms((double)v->p50_ns), ms((double)v->p99_ns),
						       ms((double)v->max_ns));
		}
		for (k = VG_STAGE_WRITE; k <= VG_STAGE_LATENCY; k++) {
			const vg_stage_summary *v = &sum.stock[k];

			if (v->n)
				g_string_append_printf(out, "    stock %-9s %8.3f %8.3f %8.3f %8.3f\n",
						       k == VG_STAGE_WRITE ? "encode" : vg_stage_name((vg_stage)k),
						       ms(v->mean_ns), ms((double)v->p50_ns),
						       ms((double)v->p99_ns), ms((double)v->max_ns));
		}
		g_string_append_printf(out, "  Varg ratio raw/sent: %.1f:1 now (%" G_GUINT64_FORMAT
				       " of the last updates shared), %.1f:1 since the start\n",
				       sum.window_sent ? (double)sum.window_raw / (double)sum.window_sent : 0.0,
				       sum.window_shared,
				       sum.sent_bytes ? (double)sum.raw_bytes / (double)sum.sent_bytes : 0.0);
	}
	n = vg_server_list_viewers(srv, viewers, G_N_ELEMENTS(viewers));
	for (i = 0; i < n; i++) {
		g_string_append_printf(out, "  viewer %s: %s, %" G_GUINT64_FORMAT " bytes, %"
				       G_GUINT64_FORMAT " updates", viewers[i].host, viewers[i].encoding,
				       viewers[i].bytes_sent, viewers[i].updates);
		if (viewers[i].varg)
			g_string_append_printf(out, ", belief hit rate %.2f %%",
					       belief_hit_rate(viewers[i].fingerprints, viewers[i].misses));
		g_string_append_c(out, '\n');
	}
	fputs(out->str, stderr);
	fflush(stderr);
}

/* A JSON string of a host name: anything outside printable ASCII, and
 * the quote and backslash, as \u escapes. */
static void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void put_viewer(FILE *f, const vg_server_viewer *v, bool connected, bool last)
{
	fputs("    { \"host\": ", f);
	put_json_string(f, v->host);
	fprintf(f, ", \"encoding\": \"%s\", \"connected\": %s, \"bytes_sent\": %" G_GUINT64_FORMAT
		", \"updates\": %" G_GUINT64_FORMAT " }%s\n",
		v->encoding, connected ? "true" : "false", v->bytes_sent, v->updates, last ? "" : ",");
}

int vg_report_write_json(const char *path, vg_server *srv, uint64_t frames,
			 const vg_report_upstream *up)
{
	vg_server_viewer *viewers;
	size_t n_past, n, i;
	vg_server_stats st;
	FILE *f = fopen(path, "w");
	int err = VG_OK;

	if (!f)
		return VG_EIO;
	/* Those gone, oldest first, then those connected. */
	viewers = g_new(vg_server_viewer, VG_PAST_VIEWERS + MAX_CONNECTED);
	n_past = vg_server_list_past_viewers(srv, viewers, VG_PAST_VIEWERS);
	n = n_past + vg_server_list_viewers(srv, viewers + n_past, MAX_CONNECTED);
	vg_server_get_stats(srv, &st);
	fprintf(f,
		"{\n  \"clients_total\": %" G_GUINT64_FORMAT ",\n  \"varg_clients\": %" G_GUINT64_FORMAT
		",\n  \"frames\": %" G_GUINT64_FORMAT ",\n  \"updates_sent\": %" G_GUINT64_FORMAT
		",\n  \"bytes_sent\": %" G_GUINT64_FORMAT ",\n  \"varg_updates\": %" G_GUINT64_FORMAT
		",\n  \"varg_bytes\": %" G_GUINT64_FORMAT ",\n  \"fingerprints\": %" G_GUINT64_FORMAT
		",\n  \"literals\": %" G_GUINT64_FORMAT ",\n  \"repairs\": %" G_GUINT64_FORMAT
		",\n  \"resizes\": %" G_GUINT64_FORMAT ",\n  \"shared_updates\": %" G_GUINT64_FORMAT
		",\n  \"shared_hits\": %" G_GUINT64_FORMAT ",\n  \"shared_misses\": %" G_GUINT64_FORMAT
		",\n  \"shared_waits\": %" G_GUINT64_FORMAT ",\n",
		st.clients_total, st.varg_clients, frames, st.updates_sent, st.bytes_sent, st.varg_updates,
		st.varg_bytes, st.fingerprints, st.literals, st.repairs, st.resizes, st.shared_updates,
		st.shared_hits, st.shared_misses, st.shared_waits);
	if (up)
		fprintf(f, "  \"upstream_bytes_received\": %" G_GUINT64_FORMAT
			",\n  \"upstream_updates\": %" G_GUINT64_FORMAT
			",\n  \"upstream_cache_hits\": %" G_GUINT64_FORMAT
			",\n  \"upstream_cache_misses\": %" G_GUINT64_FORMAT
			",\n  \"upstream_connections\": %" G_GUINT64_FORMAT ",\n",
			up->bytes_received, up->updates, up->cache_hits, up->cache_misses,
			up->connections);
	fputs("  \"viewers\": [\n", f);
	for (i = 0; i < n; i++)
		put_viewer(f, &viewers[i], i >= n_past, i + 1 == n);
	fputs("  ]\n}\n", f);
	if (ferror(f))
		err = VG_EIO;
	if (fclose(f) != 0)
		err = VG_EIO;
	g_free(viewers);
	return err;
}

static gpointer status_thread(gpointer data)
{
	vg_report *r = data;
	gint64 next = g_get_monotonic_time() + (gint64)r->interval * G_TIME_SPAN_SECOND;

	for (;;) {
		struct pollfd pfd = { .fd = r->pipe[0], .events = POLLIN };
		gint64 now = g_get_monotonic_time();
		int timeout = -1;
		char b;

		if (r->interval > 0)
			timeout = now >= next ? 0 : (int)((next - now + 999) / 1000);
		if (poll(&pfd, 1, timeout) > 0) {
			if (read(r->pipe[0], &b, 1) == 1) {
				if (b == 'q')
					break;
				print_summary(r->srv, r->prog);
			}
			continue;
		}
		if (r->interval > 0 && g_get_monotonic_time() >= next) {
			print_stats_line(r->srv);
			next += (gint64)r->interval * G_TIME_SPAN_SECOND;
		}
	}
	return NULL;
}

static void on_usr1(int sig)
{
	int saved = errno;
	char b = 's';

	(void)sig;
	if (summary_fd >= 0 && write(summary_fd, &b, 1) < 0) {
		/* Full pipe: a summary is already due. */
	}
	errno = saved;
}

void vg_report_catch_signals(void (*on_stop)(int sig))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

vg_report *vg_report_start(vg_server *srv, const char *prog, int interval)
{
	vg_report *r = g_new0(vg_report, 1);

	if (pipe(r->pipe) != 0) {
		vg_warn("cannot make a pipe: no status lines and no SIGUSR1 summary");
		g_free(r);
		return NULL;
	}
	fcntl(r->pipe[1], F_SETFL, O_NONBLOCK);
	r->srv = srv;
	r->prog = prog;
	r->interval = interval;
	r->thread = g_thread_new("status", status_thread, r);
	summary_fd = r->pipe[1];
	return r;
}

void vg_report_stop(vg_report *r)
{
	char q = 'q';

	if (!r)
		return;
	summary_fd = -1;
	/* Blocking again: the 'q' must not be lost to a full pipe. */
	fcntl(r->pipe[1], F_SETFL, 0);
	while (write(r->pipe[1], &q, 1) < 0 && errno == EINTR)
		;
	g_thread_join(r->thread);
	close(r->pipe[0]);
	close(r->pipe[1]);
	g_free(r);
}
