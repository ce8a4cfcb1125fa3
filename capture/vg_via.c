#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "common/vg_log.h"
#include "capture/vg_via.h"

#define WAIT_MS 60000

struct vg_via {
	GPid pid;
	bool running;
};

/* Binds 127.0.0.1:port (0: any free port); returns the socket or -1. */
static int bind_loopback(int port, int *bound)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		close(fd);
		return -1;
	}
	if (bound)
		*bound = ntohs(a.sin_port);
	return fd;
}

/* ssh must not outlive us, even if we are killed. */
static void child_setup(gpointer data)
{
	(void)data;
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

int vg_via_start(const char *gateway, const char *host, int port, const gint *cancel,
		 vg_via **out, int *local_port, char *why, size_t why_cap)
{
	const char *cmd = g_getenv("VARG_VIA_SSH");
	g_auto(GStrv) base = NULL;
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	g_autofree char *forward = NULL;
	vg_via *v;
	int fd, lp, i, status;

	if (!g_shell_parse_argv(cmd && *cmd ? cmd : "ssh", NULL, &base, &error)) {
		snprintf(why, why_cap, "VARG_VIA_SSH: %s", error->message);
		return VG_EINVAL;
	}
	/* Find a free port, then let it go for ssh to take. */
	fd = bind_loopback(0, &lp);
	if (fd < 0) {
		snprintf(why, why_cap, "no free local port: %s", g_strerror(errno));
		return VG_EIO;
	}
	close(fd);
	forward = g_strdup_printf(strchr(host, ':') ? "127.0.0.1:%d:[%s]:%d" : "127.0.0.1:%d:%s:%d",
				  lp, host, port);
	for (i = 0; base[i]; i++)
		g_ptr_array_add(argv, g_strdup(base[i]));
	g_ptr_array_add(argv, g_strdup("-N"));
	g_ptr_array_add(argv, g_strdup("-o"));
	g_ptr_array_add(argv, g_strdup("ExitOnForwardFailure=yes"));
	g_ptr_array_add(argv, g_strdup("-L"));
	g_ptr_array_add(argv, g_strdup(forward));
	g_ptr_array_add(argv, g_strdup("--"));
	g_ptr_array_add(argv, g_strdup(gateway));
	g_ptr_array_add(argv, NULL);

	v = g_new0(vg_via, 1);
	if (!g_spawn_async(NULL, (char **)argv->pdata, NULL,
			   G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, child_setup, NULL,
			   &v->pid, &error)) {
		snprintf(why, why_cap, "cannot start %s: %s", base[0], error->message);
		g_free(v);
		return VG_EIO;
	}
	v->running = true;
	vg_debug("via %s: ssh pid %d forwards 127.0.0.1:%d to %s", gateway, (int)v->pid, lp, forward);
	/* Listening is visible without connecting (which would open a
	 * channel to the server): our bind fails once ssh holds the port. */
	for (i = 0; i < WAIT_MS / 50; i++) {
		if (cancel && g_atomic_int_get(cancel)) {
			snprintf(why, why_cap, "stopped while waiting for the tunnel");
			vg_via_stop(v);
			return VG_ECANCELED;
		}
		if (waitpid(v->pid, &status, WNOHANG) == v->pid) {
			v->running = false;
			snprintf(why, why_cap, "ssh to %s exited (status %d) before the tunnel was up",
				 gateway, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			vg_via_stop(v);
			return VG_EIO;
		}
		fd = bind_loopback(lp, NULL);
		if (fd < 0 && errno == EADDRINUSE) {
			*local_port = lp;
			*out = v;
			return VG_OK;
		}
		if (fd >= 0)
			close(fd);
		g_usleep(50000);
	}
	snprintf(why, why_cap, "ssh to %s did not open the tunnel within %d s", gateway, WAIT_MS / 1000);
	vg_via_stop(v);
	return VG_EIO;
}

void vg_via_stop(vg_via *v)
{
	int status;

	if (!v)
		return;
	if (v->running) {
		kill(v->pid, SIGTERM);
		waitpid(v->pid, &status, 0);
	}
	g_spawn_close_pid(v->pid);
	g_free(v);
}
