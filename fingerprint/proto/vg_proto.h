/* Varg wire protocol constants. doc/protocol.md describes every byte.
 *
 * Varg rides inside RFB 3.x: the viewer lists VG_ENCODING in SetEncodings;
 * the server then sends rectangles of that encoding, whose body is
 * `u32 length` followed by `length` bytes of one Varg message. The viewer
 * speaks back with RFB client message type VG_CLIENT_MSG.
 */
#ifndef VG_PROTO_H
#define VG_PROTO_H

#include <stdbool.h>
#include <stdint.h>

/* "VARG" in ASCII. RFB has no private range; this value lies in the gap
 * between H.264 (0x48323634) and VMware's 0x574d56xx block, which the
 * rfbproto encoding registry leaves unassigned. */
#define VG_ENCODING 0x56415247

/* RFB client-to-server message type used by Varg viewers; no registry
 * entry uses it (types 248-255 are all taken). */
#define VG_CLIENT_MSG 200

/* Protocol version 1.0, in both HELLOs: the major number in the high
 * nibble, the minor in the low one. Each end refuses any other version
 * (VG_ENOTSUP): there is one wire format, no per-feature negotiation. */
#define VG_PROTO_VERSION 0x10
#define VG_PROTO_MAJOR(v) ((unsigned)(v) >> 4)
#define VG_PROTO_MINOR(v) ((unsigned)(v) & 15)

/* Server-to-viewer message kinds (first byte of a Varg rectangle body). */
enum {
	VG_MSG_HELLO = 1,  /* protocol parameters; first Varg rectangle */
	VG_MSG_UPDATE = 2, /* segments of an update, compressed */
	VG_MSG_PONG = 3,   /* echoes a viewer's PING token */
	VG_MSG_HISTORY = 4, /* the saved history is restored */
	VG_MSG_APPROX = 5,  /* missed regions at a lower resolution, exact later */
	VG_MSG_CURSOR = 6,  /* the pointer's shape (vg_cursorlist.h); only to a
			     * viewer that listed VG_CURSOR_ENCODING */
};

/* Viewer-to-server message kinds (after VG_CLIENT_MSG). */
enum {
	VG_VMSG_HELLO = 1,  /* the viewer's version, cache identity and size */
	VG_VMSG_REPAIR = 2, /* rectangles to send again as pixels */
	VG_VMSG_PING = 3,   /* u32 token, answered at once by a PONG */
};

/* Body length of PING and PONG: kind and a u32 token. */
#define VG_PING_LEN 5

/* HELLO flags; the other bits are 0 (a viewer refuses them). */
#define VG_HELLO_NO_PERSIST 0x01 /* the viewer must not keep segments on disk */
#define VG_HELLO_AHEAD 0x02     /* the first UPDATE follows at once, coded for the
				 * viewer's announced capabilities */
#define VG_HELLO_FLAGS (VG_HELLO_NO_PERSIST | VG_HELLO_AHEAD)

/* VIEWER HELLO flags: what a viewer really differs in besides its cache
 * capacity and zstd window; the other bits are 0 (a server refuses them). */
#define VG_VHELLO_EPHEMERAL 0x01 /* the cache identity lives for this connection only */
#define VG_VHELLO_LEAN 0x02      /* the viewer keeps no pixel model (its tables take
				  * about 8 MB): literal pixels by the literal
				  * methods only */
#define VG_VHELLO_EXACT 0x04     /* exact pixels only: never an APPROX */
/* Bits 3-7: the revision of the pixel model the viewer decodes
 * (VG_PIXMODEL_REVISION, 1..31; 0 when lean): a server whose model is
 * another revision codes for it by the literal methods, as for a lean
 * viewer, so builds of different models still agree on every pixel. */
#define VG_VHELLO_MODEL_SHIFT 3
#define VG_VHELLO_MODEL_MASK 0xf8
#define VG_VHELLO_MODEL(flags) ((unsigned)((flags) & VG_VHELLO_MODEL_MASK) >> VG_VHELLO_MODEL_SHIFT)

/* A viewer's capabilities, announced ahead of the HELLO as three
 * pseudo-encodings in SetEncodings after VG_ENCODING (any other server
 * ignores them), so the server can code the first update without waiting
 * a round trip for the VIEWER HELLO. The low byte carries the value: the
 * VIEWER HELLO flags it will send (VG_CAPS_VHELLO_FLAGS only), its zstd
 * window log, and the floor of log2 of its cache capacity in bytes (0: no
 * cache). The third byte, 0x10, is the version: a server of another
 * version does not know these numbers and ignores them. */
#define VG_CAPS_FLAGS 0x56481000
#define VG_CAPS_WINDOW 0x56481100
#define VG_CAPS_CAPACITY 0x56481200
#define VG_CAPS_COUNT 3
#define VG_CAPS_VHELLO_FLAGS (VG_VHELLO_LEAN | VG_VHELLO_EXACT | VG_VHELLO_MODEL_MASK)

/* A pseudo-encoding a viewer lists, after VG_ENCODING and beside RFB's
 * rich cursor, to take the pointer's shape as CURSOR messages: compressed,
 * with its alpha, and named by its place in a list of recent shapes once
 * sent. A server that does not know it ignores it and sends rich cursors. */
#define VG_CURSOR_ENCODING 0x56481301

/* Which of the three an encoding number is (0, 1, 2), or -1 for none. */
static inline int vg_caps_index(int32_t encoding)
{
	uint32_t i = ((uint32_t)encoding - (uint32_t)VG_CAPS_FLAGS) >> 8;

	return i < VG_CAPS_COUNT ? (int)i : -1;
}

/* An UPDATE's first uleb is n_checks * 2 + VG_UPDATE_MODEL when its
 * pixel chunk is coded by the pixel model (the sender's choice per
 * update), n_checks * 2 when by the literal methods through the pixel
 * stream. */
#define VG_UPDATE_MODEL 1

/* A run's orientation byte beyond vg_orient's: a MOVE run, no segments; a
 * zigzag uleb dx and dy follow, and the viewer copies its own pixels at
 * the run's rectangle - (dx, dy), as they were before the update. */
#define VG_RUN_MOVE 2

/* Segment operations inside an update; each item starts with
 * uleb(length * 4 + op). */
enum {
	VG_OP_LITERAL = 0,     /* pixels follow, 3 bytes each (B, G, R) */
	VG_OP_FINGERPRINT = 1, /* the optimistic fingerprint follows */
	VG_OP_CHECK = 2,       /* length 0; SHA-1 of the group just ended */
	VG_OP_REPEAT = 3,      /* the length field is a count; a uleb offset
				* follows: items of the previous update's list */
};

/* Both ends remember the (length, key) of the last VG_REPEAT_WINDOW
 * segments of earlier updates, oldest first, for REPEAT to point into. */
#define VG_REPEAT_WINDOW 16384

/* ... and of the last VG_HISTORY_MAX keyed LITERAL segments sent between
 * one server and one viewer cache, across sessions (vg_history.h). REPEAT
 * offsets from the window's length on point into it. */
#define VG_HISTORY_MAX 262144

/* Signed numbers on the wire (run rectangles' differences, moves, near
 * REPEAT offsets) are zigzag-coded: 0, -1, 1, -2 ... as 0, 1, 2, 3 ... */
static inline uint64_t vg_zigzag_encode(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t vg_zigzag_decode(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* REPEAT offsets. Values up to 2 * VG_RECENT_NEAR are the zigzag-coded
 * difference from where the update's previous REPEAT ended (0: carry on
 * there); a larger value v names the item v - 2 * VG_RECENT_NEAR - 1
 * places back from the newest, counting this update's items so far first
 * (n_cur), then the window's (n_win), then the history's (n_hist). What was shown lately is then a small number
 * wherever the last REPEAT pointed: a terminal's common glyphs, a table's
 * common cells. Positions are the ones REPEAT always names: the window,
 * then the history, then this update. */
#define VG_RECENT_NEAR 8

static inline uint64_t vg_recent_encode(uint64_t at, uint64_t expect, uint64_t n_win,
					uint64_t n_hist, uint64_t n_cur)
{
	uint64_t wh = n_win + n_hist, back;

	if (at + VG_RECENT_NEAR >= expect && at <= expect + VG_RECENT_NEAR)
		return vg_zigzag_encode((int64_t)at - (int64_t)expect);
	if (at >= wh)
		back = wh + n_cur - 1 - at;
	else if (at < n_win)
		back = n_cur + (n_win - 1 - at);
	else
		back = n_cur + n_win + (wh - 1 - at);
	return back + 2 * VG_RECENT_NEAR + 1;
}

/* The position v names; false before the first item or past the oldest. */
static inline bool vg_recent_decode(uint64_t v, uint64_t expect, uint64_t n_win,
				    uint64_t n_hist, uint64_t n_cur, uint64_t *at)
{
	uint64_t wh = n_win + n_hist;
	int64_t delta;

	if (v <= 2 * VG_RECENT_NEAR) {
		delta = vg_zigzag_decode(v);
		if (delta < -(int64_t)expect)
			return false;
		*at = (uint64_t)((int64_t)expect + delta);
		return true;
	}
	v -= 2 * VG_RECENT_NEAR + 1;
	if (v < n_cur) {
		*at = wh + n_cur - 1 - v;
		return true;
	}
	v -= n_cur;
	if (v < n_win) {
		*at = n_win - 1 - v;
		return true;
	}
	v -= n_win;
	if (v < n_hist) {
		*at = wh - 1 - v;
		return true;
	}
	return false;
}

/* The optimistic fingerprint of a segment: the low bits of its content
 * hash (common/vg_seghash.h). Sender, receiver and cache use this alone. */
static inline uint64_t vg_fp_key(uint64_t hash, unsigned bits)
{
	return bits >= 64 ? hash : hash & ((UINT64_C(1) << bits) - 1);
}

/* Optimistic fingerprint widths and group sizes a peer may announce. */
#define VG_FP_BITS_MIN 8
#define VG_FP_BITS_MAX 64
#define VG_FP_BITS_DEFAULT 40
#define VG_GROUP_DEFAULT 20

/* Largest segment, in bytes of 32-bit pixels, that is ever fingerprinted
 * (and so cached): larger ones always travel as pixels. */
#define VG_MAX_CACHED_SEGMENT (1u << 20)

/* Most rectangles in one REPAIR message. */
#define VG_MAX_REPAIR_RECTS 4096

/* Upper bound on a Varg rectangle body, whatever the framebuffer: a whole
 * 16384x16384 frame of literal pixels compresses to less than this. */
#define VG_MAX_BODY (1u << 30)

/* Largest viewer message body (its length field is 16 bits). */
#define VG_MAX_VMSG 0xffff

#endif
