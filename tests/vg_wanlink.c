/* vg_wanlink: an emulated wide-area link between two network namespaces,
 * in user space, for kernels without tc netem (sch_netem).
 *
 *   vg_wanlink --ns-a PATH --ns-b PATH --dev NAME --rate BYTES/S
 *              --delay-us US --limit PACKETS
 *
 * Creates a TUN device NAME in each namespace (PATH as in /run/netns/X)
 * and forwards every IP packet from one to the other as netem with
 * "rate R delay D limit L" would on each side's egress: a packet waits for
 * the packets before it to be serialised at R bytes per second, then
 * travels D microseconds; a packet arriving while L packets of its
 * direction are queued or travelling is dropped. Packets are MTU-sized
 * (TUN without offloads), so no segmentation offload distorts the rate.
 * Prints "vg_wanlink: ready" once both devices exist, runs until SIGINT or
 * SIGTERM, then prints per direction packets, bytes and drops on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SLOT_BYTES 2048   /* above the 1500-byte MTU the devices get */
#define MAX_LIMIT 100000

typedef struct {
	uint64_t deliver_ns;
	uint32_t len;
	uint8_t data[SLOT_BYTES];
} slot;

/* One direction: packets read from in_fd, written to out_fd. */
typedef struct {
	int in_fd, out_fd;
	slot *ring;
	uint32_t head, count;
	uint64_t free_ns;     /* when the serialiser finishes the last queued packet */
	uint64_t packets, bytes, drops;
} direction;

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Opens a TUN device called name inside the namespace at ns_path. */
static int open_tun(const char *ns_path, const char *name)
{
	struct ifreq ifr;
	int ns, fd;

	ns = open(ns_path, O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		fprintf(stderr, "vg_wanlink: %s: %s\n", ns_path, strerror(errno));
		return -1;
	}
	/* A TUN device is born in the namespace of the process that creates it. */
	if (setns(ns, CLONE_NEWNET) != 0) {
		fprintf(stderr, "vg_wanlink: cannot enter %s: %s\n", ns_path, strerror(errno));
		close(ns);
		return -1;
	}
	close(ns);
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vg_wanlink: /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
		fprintf(stderr, "vg_wanlink: creating TUN device %s in %s: %s\n", name, ns_path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads every waiting packet of d and queues or drops it. */
static void take_packets(direction *d, double ns_per_byte, uint64_t delay_ns, uint32_t limit)
{
	for (;;) {
		slot *s = &d->ring[(d->head + d->count) % limit];
		uint8_t scratch[SLOT_BYTES];
		uint8_t *buf = d->count < limit ? s->data : scratch;
		ssize_t n = read(d->in_fd, buf, SLOT_BYTES);
		uint64_t t;

		if (n <= 0)
			return;
		if (buf == scratch) {
			d->drops++;
			continue;
		}
		t = now_ns();
		if (d->free_ns < t)
			d->free_ns = t;
		d->free_ns += (uint64_t)((double)n * ns_per_byte);
		s->deliver_ns = d->free_ns + delay_ns;
		s->len = (uint32_t)n;
		d->count++;
	}
}

/* Writes the packets of d that are due; returns the next due time or 0. */
static uint64_t deliver(direction *d, uint64_t t, uint32_t limit)
{
	while (d->count > 0) {
		slot *s = &d->ring[d->head];

		if (s->deliver_ns > t)
			return s->deliver_ns;
		/* A full receiving queue loses the packet, as a wire would. */
		if (write(d->out_fd, s->data, s->len) == (ssize_t)s->len) {
			d->packets++;
			d->bytes += s->len;
		} else {
			d->drops++;
		}
		d->head = (d->head + 1) % limit;
		d->count--;
	}
	return 0;
}

static int parse_u64(const char *text, const char *what, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end || v == 0 || v > max) {
		fprintf(stderr, "vg_wanlink: %s must be a whole number from 1 to %" PRIu64 ", not '%s'\n",
			what, max, text);
		return -1;
	}
	*out = v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vg_wanlink --ns-a PATH --ns-b PATH --dev NAME --rate BYTES/S "
		"--delay-us US --limit PACKETS\n");
}

int main(int argc, char **argv)
{
	const char *ns_a = NULL, *ns_b = NULL, *dev = NULL;
	uint64_t rate = 0, delay_us = 0, limit = 0;
	direction dir[2];
	struct sigaction sa;
	sigset_t block, empty;
	double ns_per_byte;
	int i, fd_a, fd_b;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!val) {
			fprintf(stderr, "vg_wanlink: %s needs a value (try --help)\n", opt);
			return 2;
		}
		i++;
		if (!strcmp(opt, "--ns-a"))
			ns_a = val;
		else if (!strcmp(opt, "--ns-b"))
			ns_b = val;
		else if (!strcmp(opt, "--dev"))
			dev = val;
		else if (!strcmp(opt, "--rate")) {
			if (parse_u64(val, "--rate", 10000000000u, &rate))
				return 2;
		} else if (!strcmp(opt, "--delay-us")) {
			/* 0 is allowed: a link with bandwidth only. */
			if (strcmp(val, "0") && parse_u64(val, "--delay-us", 10000000u, &delay_us))
				return 2;
		} else if (!strcmp(opt, "--limit")) {
			if (parse_u64(val, "--limit", MAX_LIMIT, &limit))
				return 2;
		} else {
			fprintf(stderr, "vg_wanlink: unknown option '%s' (try --help)\n", opt);
			return 2;
		}
	}
	if (!ns_a || !ns_b || !dev || !rate || !limit) {
		fprintf(stderr, "vg_wanlink: --ns-a, --ns-b, --dev, --rate and --limit are required (try --help)\n");
		return 2;
	}
	if (strlen(dev) >= IFNAMSIZ) {
		fprintf(stderr, "vg_wanlink: device name '%s' is too long\n", dev);
		return 2;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Signals arrive only inside ppoll, so none is lost between checks. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigemptyset(&empty);
	/* Timers fire within microseconds, not the default 50 us slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	fd_a = open_tun(ns_a, dev);
	if (fd_a < 0)
		return 1;
	fd_b = open_tun(ns_b, dev);
	if (fd_b < 0)
		return 1;
	ns_per_byte = 1e9 / (double)rate;
	memset(dir, 0, sizeof dir);
	dir[0].in_fd = fd_a;
	dir[0].out_fd = fd_b;
	dir[1].in_fd = fd_b;
	dir[1].out_fd = fd_a;
	for (i = 0; i < 2; i++)
		dir[i].ring = calloc(limit, sizeof(slot));
	if (!dir[0].ring || !dir[1].ring) {
		fprintf(stderr, "vg_wanlink: out of memory for %" PRIu64 " packets\n", limit);
		return 1;
	}
	printf("vg_wanlink: ready\n");
	fflush(stdout);

	while (!stop_requested) {
		struct pollfd pfd[2] = { { fd_a, POLLIN, 0 }, { fd_b, POLLIN, 0 } };
		struct timespec ts, *tsp = NULL;
		uint64_t t = now_ns(), next = 0;

		for (i = 0; i < 2; i++) {
			uint64_t due = deliver(&dir[i], t, (uint32_t)limit);

			if (due && (!next || due < next))
				next = due;
		}
		if (next) {
			uint64_t wait = next > t ? next - t : 0;

			ts.tv_sec = (time_t)(wait / 1000000000u);
			ts.tv_nsec = (long)(wait % 1000000000u);
			tsp = &ts;
		}
		if (ppoll(pfd, 2, tsp, &empty) < 0 && errno != EINTR) {
			fprintf(stderr, "vg_wanlink: poll: %s\n", strerror(errno));
			break;
		}
		for (i = 0; i < 2; i++)
			if (pfd[i].revents & POLLIN)
				take_packets(&dir[i], ns_per_byte, delay_us * 1000u, (uint32_t)limit);
	}
	for (i = 0; i < 2; i++) {
		fprintf(stderr, "vg_wanlink: %s: %" PRIu64 " packets, %" PRIu64 " bytes, %" PRIu64
			" dropped\n", i == 0 ? "a->b" : "b->a", dir[i].packets, dir[i].bytes, dir[i].drops);
		free(dir[i].ring);
	}
	close(fd_a);
	close(fd_b);
	return 0;
}
