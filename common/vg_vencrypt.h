/* vg_vencrypt: the start of an RFB session up to the point where TLS
 * begins, for either end, without I/O.
 *
 * It speaks the RFB version exchange (3.3, 3.7, 3.8), the security-type
 * choice, and, when type 19 (VeNCrypt) is chosen, VeNCrypt 0.2: version,
 * acknowledgement, subtype list, subtype choice and the byte that says
 * "start TLS now". It also ends a plain negotiation (type 1 None or 2 VNC
 * authentication), so that one side can be spoken on a socket and the
 * other replayed to a library on a plain stream. What follows (the TLS
 * handshake, VNC authentication, SecurityResult) is not its business.
 *
 * Bytes in, bytes out: the caller reads exactly vg_vencrypt_want() bytes
 * from its peer (more may arrive; the machine consumes only what it
 * needs, so bytes that belong to the TLS handshake are left to the
 * caller), feeds them, and sends whatever vg_vencrypt_output() holds
 * before reading again. A negotiation that fails may still leave bytes to
 * send (the server's refusal and its reason); send them, then close.
 *
 * Sequence, server side (RFB 3.8; 3.7 has no reason string; a 3.3 client
 * gets the server's choice as a u32 instead of a list):
 *   S: "RFB 003.008\n"         C: "RFB 003.00x\n"
 *   S: u8 n, n types           C: u8 type
 *   type 19:
 *   S: u8 0, u8 2 (0.2)        C: u8 0, u8 2
 *   S: u8 0 (accepted)         S: u8 m, m u32 subtypes
 *   C: u32 subtype             S: u8 1 (start TLS)
 */
#ifndef VG_VENCRYPT_H
#define VG_VENCRYPT_H

#include <stddef.h>
#include <stdint.h>

/* RFB security types. */
#define VG_RFB_SEC_INVALID 0
#define VG_RFB_SEC_NONE 1
#define VG_RFB_SEC_VNC 2
#define VG_RFB_SEC_VENCRYPT 19

/* VeNCrypt subtypes this module negotiates: the TLS family, each of which
 * is followed by the "start TLS" byte. X509* ones carry a certificate,
 * TLS* ones are anonymous. */
#define VG_VENCRYPT_TLSNONE 257
#define VG_VENCRYPT_TLSVNC 258
#define VG_VENCRYPT_TLSPLAIN 259
#define VG_VENCRYPT_X509NONE 260
#define VG_VENCRYPT_X509VNC 261
#define VG_VENCRYPT_X509PLAIN 262

/* Limits of a configuration. */
#define VG_VENCRYPT_MAX_TYPES 16
#define VG_VENCRYPT_MAX_SUBTYPES 16
/* Longest reason string read from a server; longer ones are a protocol
 * error. */
#define VG_VENCRYPT_MAX_REASON 4096

typedef struct vg_vencrypt vg_vencrypt;

typedef enum {
	VG_VENCRYPT_SERVER,
	VG_VENCRYPT_CLIENT,
} vg_vencrypt_role;

typedef enum {
	VG_VENCRYPT_RUNNING, /* wants bytes (vg_vencrypt_want) */
	VG_VENCRYPT_DONE,    /* negotiated: vg_vencrypt_result */
	VG_VENCRYPT_FAILED,  /* vg_vencrypt_error says why */
} vg_vencrypt_status;

typedef struct {
	/* Highest RFB 3.x minor version spoken: 3, 7 or 8; 0 means 8. A
	 * client answers min(this, the server's). */
	int rfb_minor;
	/* Server: the security types offered, in this order. Client: those
	 * it accepts, best first. 1..VG_VENCRYPT_MAX_TYPES of them, no 0. */
	const uint8_t *types;
	size_t n_types;
	/* The VeNCrypt subtypes, same meaning, from the TLS family above
	 * (1..VG_VENCRYPT_MAX_SUBTYPES); required when types holds 19. */
	const uint32_t *subtypes;
	size_t n_subtypes;
	/* Server: the reason sent to a client that is refused (an RFB 3.3
	 * client when no plain type is offered, a type or subtype that was
	 * not offered). NULL: a default sentence. Copied. */
	const char *reason;
} vg_vencrypt_config;

typedef struct {
	int rfb_minor;    /* the version agreed: 3, 7 or 8 */
	uint8_t type;     /* the security type chosen */
	uint32_t subtype; /* the VeNCrypt subtype (type 19), else 0 */
} vg_vencrypt_result;

/* A new negotiation for role. The config is copied. A server's first
 * output (its version) is ready at once. VG_EINVAL for a config outside
 * the limits above. Free with vg_vencrypt_free. */
int vg_vencrypt_new(vg_vencrypt_role role, const vg_vencrypt_config *cfg, vg_vencrypt **out);

void vg_vencrypt_free(vg_vencrypt *v);

/* Consumes at most len bytes of in (the count in *used), as many as the
 * negotiation needs, and advances it. Returns 0 while running or done,
 * or the failure's code (also kept): VG_EPROTO (malformed or unexpected
 * bytes), VG_ENOTSUP (a version or type we do not speak, or no type in
 * common), VG_EAUTH (the server refused, with its reason). Bytes fed
 * after the end are not consumed. */
int vg_vencrypt_feed(vg_vencrypt *v, const uint8_t *in, size_t len, size_t *used);

/* How many more bytes the next step needs (0 unless running). */
size_t vg_vencrypt_want(const vg_vencrypt *v);

/* Bytes to send to the peer now, valid until the next call on v; *len
 * gets their count (0: nothing). Drop what was sent with
 * vg_vencrypt_output_drop. */
const uint8_t *vg_vencrypt_output(const vg_vencrypt *v, size_t *len);
void vg_vencrypt_output_drop(vg_vencrypt *v, size_t n);

vg_vencrypt_status vg_vencrypt_status_get(const vg_vencrypt *v);

/* The outcome; VG_EINVAL unless done. */
int vg_vencrypt_result_get(const vg_vencrypt *v, vg_vencrypt_result *out);

/* Why it failed, for a person (static or owned by v, valid while v
 * lives); "" unless failed. A server's reason is quoted in it. */
const char *vg_vencrypt_error(const vg_vencrypt *v);

/* A name for a security type or VeNCrypt subtype ("None", "VncAuth",
 * "VeNCrypt", "X509Vnc", ...; "unknown" otherwise). Static. */
const char *vg_vencrypt_type_name(uint32_t type);

#endif
