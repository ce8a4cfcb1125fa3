/* Another VNC server as the server's source (proxy mode): its screen
 * through the LibVNCClient mirror, clients' input and clipboard passed
 * to it, its clipboard passed back, its size changes passed on as a
 * resize. Same shape as the trace and X sources.
 */
#ifndef VG_VNCSOURCE_H
#define VG_VNCSOURCE_H

#include <signal.h>

#include "server/vg_server.h"

typedef struct vg_vncsource vg_vncsource;

/* Connects to HOST:PORT (addr; a port below 100 is a display number,
 * 5900 + N, as VNC viewers read it), answering VNC authentication with
 * password if not NULL. VG_EINVAL for a bad address, VG_EIO when the
 * connection or handshake fails; the error is logged. */
int vg_vncsource_open(const char *addr, const char *password, vg_vncsource **out);

int32_t vg_vncsource_width(const vg_vncsource *v);
int32_t vg_vncsource_height(const vg_vncsource *v);

/* Fills in where clients' input goes (for vg_server_config.input). */
void vg_vncsource_input(vg_vncsource *v, vg_server_input *in);

/* Mirrors the server into srv until *stop becomes non-zero. Returns 0,
 * or VG_EIO when the server went away (vg_vncsource_error_text()). */
int vg_vncsource_run(vg_vncsource *v, vg_server *srv, const volatile sig_atomic_t *stop);

const char *vg_vncsource_error_text(const vg_vncsource *v);

void vg_vncsource_free(vg_vncsource *v);

#endif
