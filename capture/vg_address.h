/* VNC server addresses as users write them. */
#ifndef VG_ADDRESS_H
#define VG_ADDRESS_H

/* Parses "HOST::PORT" (a TCP port), "HOST:N" (display N, port 5900+N),
 * "HOST" (display 0), ":N" and "::PORT" (localhost). IPv6 literals go in
 * brackets: "[::1]:1". On success *host is a new string (g_free) and *port
 * the TCP port. VG_EINVAL for anything else. */
int vg_address_parse(const char *text, char **host, int *port);

#endif
