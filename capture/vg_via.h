/* An SSH tunnel to a VNC server behind a gateway, as vncviewer's -via:
 * a child `ssh -N -L PORT:HOST:HOSTPORT GATEWAY`, where HOST is resolved
 * on the gateway (so "localhost" means the gateway itself). The command
 * is $VARG_VIA_SSH (split as a shell would, default "ssh"): e.g.
 * "ssh -F ~/.ssh/work_config". */
#ifndef VG_VIA_H
#define VG_VIA_H

#include <glib.h>
#include <stddef.h>

typedef struct vg_via vg_via;

/* Starts the tunnel and waits (up to 60 s: ssh may ask for a password on
 * the terminal) until it listens on a free loopback port, *local_port.
 * VG_EIO with the reason in why if ssh cannot start or exits;
 * VG_ECANCELED when *cancel (may be NULL) becomes non-zero meanwhile. */
int vg_via_start(const char *gateway, const char *host, int port, const gint *cancel,
		 vg_via **out, int *local_port, char *why, size_t why_cap);

/* Stops ssh and frees v; accepts NULL. */
void vg_via_stop(vg_via *v);

#endif
