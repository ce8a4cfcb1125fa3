#include "capture/vg_dial.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_time.h"

/* How often a wait looks at the cancel flag and the clock. */
#define SLICE_MS 50

static int stopped(const gint *cancel, uint64_t deadline_ns)
{
	if (cancel && g_atomic_int_get(cancel))
		return VG_ECANCELED;
	if (vg_time_ns() >= deadline_ns)
		return VG_ETIMEDOUT;
	return 0;
}

/* One address: 0 and the connected socket, or an error. */
static int dial_one(const struct addrinfo *ai, uint64_t deadline_ns, const gint *cancel,
		    int *fd_out, int *sys_err)
{
	int one = 1, err = 0, fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
					  ai->ai_protocol);
	socklen_t len = sizeof err;

	if (fd < 0) {
		*sys_err = errno;
		return VG_EIO;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int r;

		if (errno != EINPROGRESS) {
			*sys_err = errno;
			close(fd);
			return VG_EIO;
		}
		for (;;) {
			if ((r = stopped(cancel, deadline_ns))) {
				close(fd);
				return r;
			}
			r = poll(&p, 1, SLICE_MS);
			if (r > 0)
				break;
			if (r < 0 && errno != EINTR) {
				*sys_err = errno;
				close(fd);
				return VG_EIO;
			}
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err) {
			*sys_err = err ? err : errno;
			close(fd);
			return VG_EIO;
		}
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	*fd_out = fd;
	return 0;
}

int vg_dial(const char *host, int port, uint64_t deadline_ns, const gint *cancel,
	    int *fd, char *why, size_t why_cap)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *res = NULL;
	char service[16];
	int r, sys_err = 0, err = VG_EIO;

	snprintf(service, sizeof service, "%d", port);
	if ((r = getaddrinfo(host, service, &hints, &res)) != 0) {
		snprintf(why, why_cap, "cannot resolve '%s': %s", host, gai_strerror(r));
		return VG_EIO;
	}
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		err = dial_one(ai, deadline_ns, cancel, fd, &sys_err);
		if (err != VG_EIO)
			break;
	}
	freeaddrinfo(res);
	if (err == VG_ETIMEDOUT)
		snprintf(why, why_cap, "no connection within the connect timeout");
	else if (err == VG_ECANCELED)
		snprintf(why, why_cap, "stopped while connecting");
	else if (err)
		snprintf(why, why_cap, "cannot connect: %s", g_strerror(sys_err));
	return err;
}

struct vg_dial_watch {
	int fd;                   /* our duplicate: LibVNCClient may close its own */
	const gint *cancel;
	uint64_t deadline_ns;     /* moved by the watch thread while paused */
	gint paused;
	gint done;
	gint fired;               /* 0, VG_ECANCELED or VG_ETIMEDOUT */
	GThread *thread;
};

static gpointer watch_run(gpointer data)
{
	vg_dial_watch *w = data;

	while (!g_atomic_int_get(&w->done)) {
		int r;

		if (g_atomic_int_get(&w->paused))
			w->deadline_ns += SLICE_MS * 1000000ull;
		if ((r = stopped(w->cancel, w->deadline_ns))) {
			g_atomic_int_set(&w->fired, r);
			/* The handshake's reads now see the end of the stream. */
			shutdown(w->fd, SHUT_RDWR);
			break;
		}
		g_usleep(SLICE_MS * 1000);
	}
	return NULL;
}

vg_dial_watch *vg_dial_watch_start(int fd, uint64_t deadline_ns, const gint *cancel)
{
	vg_dial_watch *w = g_new0(vg_dial_watch, 1);

	/* Shut down through a duplicate: once the handshake fails,
	 * LibVNCClient closes fd and its number may be reused at once. */
	w->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	w->cancel = cancel;
	w->deadline_ns = deadline_ns;
	w->thread = g_thread_new("varg-dial-watch", watch_run, w);
	return w;
}

void vg_dial_watch_pause(vg_dial_watch *w, int paused)
{
	if (w)
		g_atomic_int_set(&w->paused, paused);
}

int vg_dial_watch_stop(vg_dial_watch *w)
{
	int fired;

	if (!w)
		return 0;
	g_atomic_int_set(&w->done, 1);
	g_thread_join(w->thread);
	fired = g_atomic_int_get(&w->fired);
	if (w->fd >= 0)
		close(w->fd);
	g_free(w);
	return fired;
}
