/* A Varg sender and receiver joined back to back, for the protocol's
 * tests (test_hello, test_update, test_repeat, test_moves, test_vectors):
 * the pair says HELLO on creation, and helpers send segments, feed the
 * viewer's replies back and repair until both pictures agree, or frame
 * hand-made UPDATEs as the sender would. Every helper asserts (GLib's
 * g_assert) instead of returning an error, except where it says. */
#ifndef VG_PROTOPAIR_H
#define VG_PROTOPAIR_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "common/vg_segdesc.h"
#include "common/vg_writer.h"
#include "fingerprint/codec/vg_zstream.h"
#include "fingerprint/proto/vg_receiver.h"
#include "fingerprint/proto/vg_sender.h"

typedef struct {
	vg_sender *s;
	vg_receiver *r;
	vg_writer wire, reply;
	vg_pixbuf *server_fb, *viewer_fb;
	vg_region *repair;
	GArray *segs;
} vg_pair;

/* The sender's choices for the next pair: the pixel model (off by
 * default here, so that hand-made updates and the literal methods are
 * tested apart), and the ablations. */
extern bool vg_pair_pixmodel, vg_pair_no_indexed, vg_pair_no_repeat_within;

/* With it, the pixel model and the literal methods per update, by the
 * rate the test sets (vg_sender_set_rate). */
extern bool vg_pair_pixmodel_by_rate;

/* Where the flags sit: in a HELLO as the sender writes it, and in a
 * VIEWER HELLO after its type, u16 length, kind, version, identity (16)
 * and capacity (8). */
#define VG_PAIR_HELLO_FLAGS_AT 20
#define VG_PAIR_VHELLO_FLAGS_AT (3 + 2 + 16 + 8)

/* The configurations of a pair's sender and viewer, as vg_pair_init_group
 * makes them. */
void vg_pair_configs(vg_sender_config *cfg, vg_receiver_config *rcfg, unsigned fp_bits,
		     unsigned group);

/* A pair of w x h pictures, fingerprints of fp_bits, groups of group,
 * past both HELLOs; a viewer cache in memory of 16 MB. */
void vg_pair_init_group(vg_pair *p, int w, int h, unsigned fp_bits, unsigned group);
void vg_pair_init(vg_pair *p, int w, int h);

/* vg_pair_init with *choice set for the pair's start only (NULL: none). */
void vg_pair_init_with(vg_pair *p, int w, int h, bool *choice);

void vg_pair_clear(vg_pair *p);

/* The descriptor of r of fb, cut along o. */
vg_segdesc vg_pair_seg(const vg_pixbuf *fb, vg_rect r, vg_orient o);

/* Feeds the viewer's replies to the sender; returns how many rectangles
 * it asked to be repaired (added to p->repair). */
int vg_pair_feed_replies(vg_pair *p);

/* One update of segs to the viewer; returns the sender's or the
 * receiver's error. */
int vg_pair_send(vg_pair *p, const vg_segdesc *segs, size_t n, const vg_region *literal_only);

/* Sends segs, then repairs until the viewer asks for nothing more, as the
 * server does. Returns the number of repair rounds. */
int vg_pair_exchange(vg_pair *p, const vg_segdesc *segs, size_t n);

/* Paints r of fb with a tile of the pool, numbered pattern. */
void vg_pair_paint_tile(vg_pixbuf *fb, vg_rect r, uint32_t pattern);

/* Anti-aliased text, as it were, in the 64 x 16 band of rows y..y+15 of
 * p's server picture: white, and a quarter of the pixels grey levels below
 * levels, too many for a palette. Exchanges it as four 16 x 16 segments
 * and asserts both pictures agree. */
void vg_pair_text_band(vg_pair *p, GRand *rng, int32_t y, int levels);

/* One update: a few 16-pixel columns, each cut into segments of random
 * heights whose pixels come from a pool of tiles, so repeats are common;
 * out must hold 4096. Returns how many. */
size_t vg_pair_random_update(GRand *rng, vg_pair *p, vg_segdesc *out, int pool);

/* Seeds the viewer's cache under key with junk's pixels, freshly painted,
 * when junk is tall enough to stand in for r: wrong pixels that only the
 * group's SHA-1 (or a REPEAT's content hash) can tell apart. */
void vg_pair_plant_junk(vg_pair *p, vg_pixbuf *junk, GRand *rng, uint64_t key, vg_rect r);

/* A hand-made update's first run rectangle: differences from the empty
 * rectangle at 0,0. */
void vg_pair_first_run(vg_writer *w, vg_rect r);

/* A pair of streams as the server's for hand-made updates. */
void vg_pair_zouts(vg_zout **zs, vg_zout **zpix);

/* Frames a hand-made update as the sender would: kind, the head (n_checks
 * digests, all 0x11; literal methods), the structure chunk with its
 * length, the pixel chunk through zpix (none when n_pix is 0). */
void vg_pair_msg(vg_zout *zs, vg_zout *zpix, size_t n_checks, const uint8_t *plain, size_t n,
		 const uint8_t *pix, size_t n_pix, vg_writer *out);

/* Registers fn as /protocol/literal/name and /protocol/pixmodel/name: its
 * pairs' senders without and with the pixel model. */
void vg_pair_add(const char *name, void (*fn)(void));

#endif
