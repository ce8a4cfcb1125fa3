/* Error codes shared by every Varg module.
 *
 * Convention: a function that can fail returns int, 0 on success and a
 * negative VG_E* code on failure. vg_strerror() turns a code into text.
 */
#ifndef VG_ERROR_H
#define VG_ERROR_H

enum {
	VG_OK = 0,
	VG_EINVAL = -1,    /* bad argument or option */
	VG_ETRUNC = -2,    /* input ended before the item was complete */
	VG_ECORRUPT = -3,  /* input is malformed or fails its checksum */
	VG_ERANGE = -4,    /* a value is outside what the format allows */
	VG_EIO = -5,       /* a read or write of a file or socket failed */
	VG_ENOENT = -6,    /* a file or item does not exist */
	VG_EZLIB = -7,     /* zlib reported an error */
	VG_ECRYPTO = -8,   /* OpenSSL reported an error */
	VG_ENOTSUP = -9,   /* a version or feature this build does not handle */
	VG_EPROTO = -10,   /* the peer broke the protocol */
	VG_EBUSY = -11,    /* the resource is locked by another process */
	VG_ENOSPC = -12,   /* no room left (output buffer, disk, capacity) */
	VG_EFORMAT = -13,  /* a file is not of the expected type */
	VG_EAUTH = -14,    /* the peer refused our credentials */
	VG_ECANCELED = -15, /* stopped on request (a signal) before it completed */
	VG_ETIMEDOUT = -16, /* the peer did not answer in time */
};

/* Returns a static, never-NULL description of code (also for unknown codes). */
const char *vg_strerror(int code);

#endif
