/* vg_authguard: slows down password guessing, per source address.
 *
 * A VNC password is at most 8 characters checked by DES challenge and
 * response, so each try must cost the guesser time. Each address may fail
 * VG_AUTHGUARD_FREE times in a row; every further failure refuses new
 * connections from it for a while, 10 s after the first, doubling with
 * each failure up to an hour. A success forgets the address. Addresses
 * are kept in a table of at most VG_AUTHGUARD_MAX entries; when it is
 * full, the entry whose block ends first goes. Not thread-safe: the
 * caller serialises calls. No I/O, no clock of its own (times are passed
 * in, as nanoseconds of a monotonic clock).
 */
#ifndef VG_AUTHGUARD_H
#define VG_AUTHGUARD_H

#include <stdbool.h>
#include <stdint.h>

#define VG_AUTHGUARD_FREE 3
#define VG_AUTHGUARD_MAX 1024
#define VG_AUTHGUARD_FIRST_S 10
#define VG_AUTHGUARD_MAX_S 3600

typedef struct vg_authguard vg_authguard;

/* Returns a new, empty guard; free with vg_authguard_free (NULL is fine). */
vg_authguard *vg_authguard_new(void);
void vg_authguard_free(vg_authguard *g);

/* Seconds (rounded up) until addr may try again at now_ns; 0 if it may
 * now. */
unsigned vg_authguard_blocked_s(const vg_authguard *g, const char *addr, uint64_t now_ns);

/* Records a failed password from addr at now_ns. Returns the seconds it
 * is now blocked for (0 while it has free tries left). */
unsigned vg_authguard_failed(vg_authguard *g, const char *addr, uint64_t now_ns);

/* Records a good password from addr: its failures are forgotten. */
void vg_authguard_succeeded(vg_authguard *g, const char *addr);

#endif
