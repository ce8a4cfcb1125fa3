/* vg_vencrypt: RFB version, security type and VeNCrypt 0.2 negotiation,
 * bytes in and bytes out (see vg_vencrypt.h). */
#include "common/vg_vencrypt.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"

/* What the machine waits for next. */
typedef enum {
	STEP_VERSION,        /* 12 bytes "RFB xxx.yyy\n" */
	STEP_TYPE_CHOICE,    /* server: u8 chosen type */
	STEP_TYPE33,         /* client 3.3: u32 type chosen by the server */
	STEP_TYPE_COUNT,     /* client: u8 n */
	STEP_TYPE_LIST,      /* client: n u8 */
	STEP_REASON_LEN,     /* client: u32 length of the server's reason */
	STEP_REASON,         /* client: the reason */
	STEP_VC_VERSION,     /* both: u8 major, u8 minor of VeNCrypt */
	STEP_VC_ACK,         /* client: u8, 0 accepts our version */
	STEP_SUB_COUNT,      /* client: u8 m */
	STEP_SUB_LIST,       /* client: m u32 */
	STEP_SUB_CHOICE,     /* server: u32 subtype */
	STEP_START_TLS,      /* client: u8, 1 means go */
	STEP_END,
} step;

/* Room for the longest message out: a reason (u32 result, u32 length,
 * the text) or the subtype list. */
#define OUT_CAP (16 + 4 * VG_VENCRYPT_MAX_SUBTYPES + VG_VENCRYPT_MAX_REASON)
#define ERR_CAP (160 + VG_VENCRYPT_MAX_REASON)

struct vg_vencrypt {
	vg_vencrypt_role role;
	vg_vencrypt_status status;
	step step;
	size_t want;             /* bytes the step needs */
	size_t have;             /* of which in acc */
	uint8_t acc[VG_VENCRYPT_MAX_REASON];
	uint8_t out[OUT_CAP];
	size_t out_len;
	int max_minor;
	uint8_t types[VG_VENCRYPT_MAX_TYPES];
	size_t n_types;
	uint32_t subtypes[VG_VENCRYPT_MAX_SUBTYPES];
	size_t n_subtypes;
	char reason[VG_VENCRYPT_MAX_REASON];
	vg_vencrypt_result result;
	int code;
	char error[ERR_CAP];
};

const char *vg_vencrypt_type_name(uint32_t type)
{
	switch (type) {
	case VG_RFB_SEC_INVALID: return "Invalid";
	case VG_RFB_SEC_NONE: return "None";
	case VG_RFB_SEC_VNC: return "VncAuth";
	case VG_RFB_SEC_VENCRYPT: return "VeNCrypt";
	case 256: return "Plain";
	case VG_VENCRYPT_TLSNONE: return "TLSNone";
	case VG_VENCRYPT_TLSVNC: return "TLSVnc";
	case VG_VENCRYPT_TLSPLAIN: return "TLSPlain";
	case VG_VENCRYPT_X509NONE: return "X509None";
	case VG_VENCRYPT_X509VNC: return "X509Vnc";
	case VG_VENCRYPT_X509PLAIN: return "X509Plain";
	default: return "unknown";
	}
}

static bool is_tls_subtype(uint32_t s)
{
	return s >= VG_VENCRYPT_TLSNONE && s <= VG_VENCRYPT_X509PLAIN;
}

static bool has_type(const vg_vencrypt *v, uint8_t t)
{
	for (size_t i = 0; i < v->n_types; i++)
		if (v->types[i] == t)
			return true;
	return false;
}

static bool has_subtype(const vg_vencrypt *v, uint32_t s)
{
	for (size_t i = 0; i < v->n_subtypes; i++)
		if (v->subtypes[i] == s)
			return true;
	return false;
}

static void put_u8(vg_vencrypt *v, uint8_t b)
{
	/* OUT_CAP holds the longest message, and every message is sent whole
	 * before the next step reads (the caller's contract); a caller that
	 * does not send its output only loses bytes here, never memory. */
	if (v->out_len < OUT_CAP)
		v->out[v->out_len++] = b;
}

static void put_u32(vg_vencrypt *v, uint32_t x)
{
	put_u8(v, (uint8_t)(x >> 24));
	put_u8(v, (uint8_t)(x >> 16));
	put_u8(v, (uint8_t)(x >> 8));
	put_u8(v, (uint8_t)x);
}

static void put_bytes(vg_vencrypt *v, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		put_u8(v, b[i]);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void expect(vg_vencrypt *v, step s, size_t n)
{
	v->step = s;
	v->want = n;
	v->have = 0;
}

static void done(vg_vencrypt *v)
{
	v->step = STEP_END;
	v->want = 0;
	v->status = VG_VENCRYPT_DONE;
}

__attribute__((format(printf, 3, 4)))
static int fail(vg_vencrypt *v, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->error, sizeof v->error, fmt, ap);
	va_end(ap);
	v->step = STEP_END;
	v->want = 0;
	v->status = VG_VENCRYPT_FAILED;
	v->code = code;
	return code;
}

/* A server's refusal after a type was chosen: SecurityResult "failed",
 * with the reason from RFB 3.8 on. */
static void put_refusal(vg_vencrypt *v)
{
	put_u32(v, 1);
	if (v->result.rfb_minor >= 8) {
		size_t n = strlen(v->reason);
		put_u32(v, (uint32_t)n);
		put_bytes(v, v->reason, n);
	}
}

static void put_version(vg_vencrypt *v, int minor)
{
	char s[13];
	snprintf(s, sizeof s, "RFB 003.%03d\n", minor);
	put_bytes(v, s, 12);
}

/* Text fit for a message: printable ASCII, the rest as '?'. */
static void printable(char *dst, size_t cap, const uint8_t *src, size_t n)
{
	size_t i;
	for (i = 0; i < n && i + 1 < cap; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = 0;
}

static int parse_version(vg_vencrypt *v, int *minor)
{
	const uint8_t *p = v->acc;
	int major = 0, mi = 0;
	if (memcmp(p, "RFB ", 4) != 0 || p[7] != '.' || p[11] != '\n')
		goto bad;
	for (int i = 4; i < 11; i++) {
		if (i == 7)
			continue;
		if (p[i] < '0' || p[i] > '9')
			goto bad;
		if (i < 7)
			major = major * 10 + (p[i] - '0');
		else
			mi = mi * 10 + (p[i] - '0');
	}
	if (major != 3 || mi < 3)
		return fail(v, VG_ENOTSUP, "peer speaks RFB %d.%d, not 3.3 or later", major, mi);
	/* 3.4 and 3.6 are old UltraVNC names for 3.3; anything past 3.8
	 * (Apple's 3.889 among them) speaks 3.8's handshake. */
	*minor = mi >= 8 ? 8 : mi == 7 ? 7 : 3;
	return 0;
bad:;
	char s[16];
	printable(s, sizeof s, p, 12);
	return fail(v, VG_EPROTO, "peer did not send an RFB version (got \"%s\")", s);
}

/* The peer's version, agreed down to ours: the result's minor. */
static int take_version(vg_vencrypt *v)
{
	int minor = 0;
	int rc = parse_version(v, &minor);
	if (rc < 0)
		return rc;
	v->result.rfb_minor = minor > v->max_minor ? v->max_minor : minor;
	return 0;
}

/* --- server --- */

static int server_step(vg_vencrypt *v)
{
	const uint8_t *a = v->acc;
	switch (v->step) {
	case STEP_VERSION: {
		int rc = take_version(v);
		if (rc < 0)
			return rc;
		if (v->result.rfb_minor == 3) {
			/* RFB 3.3: the server chooses; only a plain type can
			 * be chosen, since VeNCrypt needs a list. */
			for (size_t i = 0; i < v->n_types; i++) {
				if (v->types[i] == VG_RFB_SEC_NONE || v->types[i] == VG_RFB_SEC_VNC) {
					v->result.type = v->types[i];
					put_u32(v, v->types[i]);
					done(v);
					return 0;
				}
			}
			size_t n = strlen(v->reason);
			put_u32(v, 0);
			put_u32(v, (uint32_t)n);
			put_bytes(v, v->reason, n);
			return fail(v, VG_ENOTSUP, "client speaks RFB 3.3, which has no VeNCrypt; refused");
		}
		put_u8(v, (uint8_t)v->n_types);
		put_bytes(v, v->types, v->n_types);
		expect(v, STEP_TYPE_CHOICE, 1);
		return 0;
	}
	case STEP_TYPE_CHOICE:
		if (!has_type(v, a[0])) {
			put_refusal(v);
			return fail(v, VG_ENOTSUP, "client chose security type %u (%s), which was not offered",
				    a[0], vg_vencrypt_type_name(a[0]));
		}
		v->result.type = a[0];
		if (a[0] != VG_RFB_SEC_VENCRYPT) {
			done(v);
			return 0;
		}
		put_u8(v, 0);
		put_u8(v, 2);
		expect(v, STEP_VC_VERSION, 2);
		return 0;
	case STEP_VC_VERSION:
		if (a[0] != 0 || a[1] != 2) {
			put_u8(v, 255);
			return fail(v, VG_ENOTSUP, "client speaks VeNCrypt %u.%u, not 0.2", a[0], a[1]);
		}
		put_u8(v, 0);
		put_u8(v, (uint8_t)v->n_subtypes);
		for (size_t i = 0; i < v->n_subtypes; i++)
			put_u32(v, v->subtypes[i]);
		expect(v, STEP_SUB_CHOICE, 4);
		return 0;
	case STEP_SUB_CHOICE: {
		uint32_t s = get_u32(a);
		if (!has_subtype(v, s)) {
			put_u8(v, 0);
			return fail(v, VG_ENOTSUP, "client chose VeNCrypt subtype %u (%s), which was not offered",
				    s, vg_vencrypt_type_name(s));
		}
		v->result.subtype = s;
		put_u8(v, 1);
		done(v);
		return 0;
	}
	default:
		return fail(v, VG_EPROTO, "negotiation in an impossible state");
	}
}

/* --- client --- */

static int client_choose_type(vg_vencrypt *v, const uint8_t *offered, size_t n)
{
	for (size_t i = 0; i < v->n_types; i++) {
		for (size_t j = 0; j < n; j++) {
			if (offered[j] != v->types[i])
				continue;
			v->result.type = v->types[i];
			put_u8(v, v->types[i]);
			if (v->types[i] == VG_RFB_SEC_VENCRYPT)
				expect(v, STEP_VC_VERSION, 2);
			else
				done(v);
			return 0;
		}
	}
	char list[4 * 255 + 1] = "";
	size_t at = 0;
	for (size_t j = 0; j < n && at + 5 < sizeof list; j++)
		at += (size_t)snprintf(list + at, sizeof list - at, "%s%u", j ? "," : "", offered[j]);
	return fail(v, VG_ENOTSUP, "server offers security types %s, none of which this end accepts", list);
}

static int client_step(vg_vencrypt *v)
{
	const uint8_t *a = v->acc;
	switch (v->step) {
	case STEP_VERSION: {
		int rc = take_version(v);
		if (rc < 0)
			return rc;
		put_version(v, v->result.rfb_minor);
		if (v->result.rfb_minor == 3)
			expect(v, STEP_TYPE33, 4);
		else
			expect(v, STEP_TYPE_COUNT, 1);
		return 0;
	}
	case STEP_TYPE33: {
		uint32_t t = get_u32(a);
		if (t == VG_RFB_SEC_INVALID) {
			expect(v, STEP_REASON_LEN, 4);
			return 0;
		}
		if (t > 255 || t == VG_RFB_SEC_VENCRYPT || !has_type(v, (uint8_t)t))
			return fail(v, VG_ENOTSUP, "server chose security type %u (%s), which this end does not accept",
				    t, vg_vencrypt_type_name(t));
		v->result.type = (uint8_t)t;
		done(v);
		return 0;
	}
	case STEP_TYPE_COUNT:
		if (a[0] == 0)
			expect(v, STEP_REASON_LEN, 4);
		else
			expect(v, STEP_TYPE_LIST, a[0]);
		return 0;
	case STEP_TYPE_LIST:
		return client_choose_type(v, a, v->want);
	case STEP_REASON_LEN: {
		uint32_t n = get_u32(a);
		if (n > VG_VENCRYPT_MAX_REASON)
			return fail(v, VG_EPROTO, "server refused the connection with a reason of %u bytes", n);
		if (n == 0)
			return fail(v, VG_EAUTH, "server refused the connection (no reason given)");
		expect(v, STEP_REASON, n);
		return 0;
	}
	case STEP_REASON: {
		char r[VG_VENCRYPT_MAX_REASON + 1];
		printable(r, sizeof r, a, v->want);
		return fail(v, VG_EAUTH, "server refused the connection: %s", r);
	}
	case STEP_VC_VERSION:
		if (a[0] != 0 || a[1] < 2)
			return fail(v, VG_ENOTSUP, "server speaks VeNCrypt %u.%u; this end speaks 0.2 only", a[0], a[1]);
		put_u8(v, 0);
		put_u8(v, 2);
		expect(v, STEP_VC_ACK, 1);
		return 0;
	case STEP_VC_ACK:
		if (a[0] != 0)
			return fail(v, VG_ENOTSUP, "server refused VeNCrypt version 0.2");
		expect(v, STEP_SUB_COUNT, 1);
		return 0;
	case STEP_SUB_COUNT:
		if (a[0] == 0)
			return fail(v, VG_EPROTO, "server offers no VeNCrypt subtype");
		expect(v, STEP_SUB_LIST, 4u * a[0]);
		return 0;
	case STEP_SUB_LIST: {
		size_t n = v->want / 4;
		for (size_t i = 0; i < v->n_subtypes; i++) {
			for (size_t j = 0; j < n; j++) {
				if (get_u32(a + 4 * j) != v->subtypes[i])
					continue;
				v->result.subtype = v->subtypes[i];
				put_u32(v, v->subtypes[i]);
				expect(v, STEP_START_TLS, 1);
				return 0;
			}
		}
		char list[12 * 255 + 1] = "";
		size_t at = 0;
		for (size_t j = 0; j < n && at + 13 < sizeof list; j++)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", j ? "," : "",
					       vg_vencrypt_type_name(get_u32(a + 4 * j)));
		return fail(v, VG_ENOTSUP, "server offers VeNCrypt subtypes %s, none of which this end accepts", list);
	}
	case STEP_START_TLS:
		if (a[0] != 1)
			return fail(v, VG_EAUTH, "server refused VeNCrypt subtype %s",
				    vg_vencrypt_type_name(v->result.subtype));
		done(v);
		return 0;
	default:
		return fail(v, VG_EPROTO, "negotiation in an impossible state");
	}
}

int vg_vencrypt_new(vg_vencrypt_role role, const vg_vencrypt_config *cfg, vg_vencrypt **out)
{
	*out = NULL;
	if (!cfg || cfg->n_types == 0 || cfg->n_types > VG_VENCRYPT_MAX_TYPES || !cfg->types ||
	    cfg->n_subtypes > VG_VENCRYPT_MAX_SUBTYPES || (cfg->n_subtypes && !cfg->subtypes))
		return VG_EINVAL;
	if (cfg->rfb_minor != 0 && cfg->rfb_minor != 3 && cfg->rfb_minor != 7 && cfg->rfb_minor != 8)
		return VG_EINVAL;
	if (role != VG_VENCRYPT_SERVER && role != VG_VENCRYPT_CLIENT)
		return VG_EINVAL;
	bool vencrypt = false;
	for (size_t i = 0; i < cfg->n_types; i++) {
		if (cfg->types[i] == VG_RFB_SEC_INVALID)
			return VG_EINVAL;
		vencrypt |= cfg->types[i] == VG_RFB_SEC_VENCRYPT;
	}
	if (vencrypt && cfg->n_subtypes == 0)
		return VG_EINVAL;
	for (size_t i = 0; i < cfg->n_subtypes; i++)
		if (!is_tls_subtype(cfg->subtypes[i]))
			return VG_EINVAL;

	vg_vencrypt *v = calloc(1, sizeof *v);
	if (!v)
		abort();
	v->role = role;
	v->status = VG_VENCRYPT_RUNNING;
	v->max_minor = cfg->rfb_minor ? cfg->rfb_minor : 8;
	memcpy(v->types, cfg->types, cfg->n_types);
	v->n_types = cfg->n_types;
	if (cfg->n_subtypes)
		memcpy(v->subtypes, cfg->subtypes, cfg->n_subtypes * sizeof *cfg->subtypes);
	v->n_subtypes = cfg->n_subtypes;
	snprintf(v->reason, sizeof v->reason, "%s",
		 cfg->reason ? cfg->reason : "this server offers no security type this viewer accepts");
	expect(v, STEP_VERSION, 12);
	if (role == VG_VENCRYPT_SERVER)
		put_version(v, v->max_minor);
	*out = v;
	return 0;
}

void vg_vencrypt_free(vg_vencrypt *v)
{
	free(v);
}

int vg_vencrypt_feed(vg_vencrypt *v, const uint8_t *in, size_t len, size_t *used)
{
	size_t pos = 0;
	int rc = 0;
	while (v->status == VG_VENCRYPT_RUNNING && pos < len) {
		size_t n = v->want - v->have;
		if (n > len - pos)
			n = len - pos;
		memcpy(v->acc + v->have, in + pos, n);
		v->have += n;
		pos += n;
		if (v->have < v->want)
			break;
		rc = v->role == VG_VENCRYPT_SERVER ? server_step(v) : client_step(v);
		if (rc < 0)
			break;
	}
	if (used)
		*used = pos;
	return v->status == VG_VENCRYPT_FAILED ? v->code : rc;
}

size_t vg_vencrypt_want(const vg_vencrypt *v)
{
	return v->status == VG_VENCRYPT_RUNNING ? v->want - v->have : 0;
}

const uint8_t *vg_vencrypt_output(const vg_vencrypt *v, size_t *len)
{
	*len = v->out_len;
	return v->out;
}

void vg_vencrypt_output_drop(vg_vencrypt *v, size_t n)
{
	if (n >= v->out_len) {
		v->out_len = 0;
		return;
	}
	memmove(v->out, v->out + n, v->out_len - n);
	v->out_len -= n;
}

vg_vencrypt_status vg_vencrypt_status_get(const vg_vencrypt *v)
{
	return v->status;
}

int vg_vencrypt_result_get(const vg_vencrypt *v, vg_vencrypt_result *out)
{
	if (v->status != VG_VENCRYPT_DONE)
		return VG_EINVAL;
	*out = v->result;
	return 0;
}

const char *vg_vencrypt_error(const vg_vencrypt *v)
{
	return v->status == VG_VENCRYPT_FAILED ? v->error : "";
}
