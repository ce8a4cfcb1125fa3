/* Varg wire protocol constants. doc/protocol.md describes every byte.
 *
 * Varg rides inside RFB 3.x: the viewer lists VG_ENCODING in SetEncodings;
 * the server then sends rectangles of that encoding, whose body is
 * `u32 length` followed by `length` bytes of one Varg message. The viewer
 * speaks back with RFB client message type VG_CLIENT_MSG.
 */
#ifndef VG_PROTO_H
#define VG_PROTO_H

/* "VARG" in ASCII. RFB has no private range; this value lies in the gap
 * between H.264 (0x48323634) and VMware's 0x574d56xx block, which the
 * rfbproto encoding registry leaves unassigned. */
#define VG_ENCODING 0x56415247

/* RFB client-to-server message type used by Varg viewers; no registry
 * entry uses it (types 248-255 are all taken). */
#define VG_CLIENT_MSG 200

#define VG_PROTO_VERSION 1

/* Server-to-viewer message kinds (first byte of a Varg rectangle body). */
enum {
	VG_MSG_HELLO = 1,  /* protocol parameters; first Varg rectangle */
	VG_MSG_UPDATE = 2, /* segments of an update, deflated */
};

/* Viewer-to-server message kinds (after VG_CLIENT_MSG). */
enum {
	VG_VMSG_HELLO = 1, /* the viewer's version and cache identity */
};

/* Segment operations inside an update. */
enum {
	VG_OP_LITERAL = 0, /* pixels follow, 3 bytes each (B, G, R) */
};

/* Upper bound on a Varg rectangle body, whatever the framebuffer: a whole
 * 16384x16384 frame of literal pixels deflates to less than this. */
#define VG_MAX_BODY (1u << 30)

/* Largest viewer message body (its length field is 16 bits). */
#define VG_MAX_VMSG 0xffff

#endif
