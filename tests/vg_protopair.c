/* A Varg sender and receiver back to back: vg_protopair.h. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "common/vg_reader.h"
#include "common/vg_seghash.h"
#include "fingerprint/proto/vg_proto.h"
#include "tests/vg_protopair.h"

bool vg_pair_pixmodel, vg_pair_no_indexed, vg_pair_no_repeat_within;
bool vg_pair_pixmodel_by_rate;

void vg_pair_configs(vg_sender_config *cfg, vg_receiver_config *rcfg, unsigned fp_bits,
		     unsigned group)
{
	vg_sender_config_init(cfg);
	cfg->fp_bits = fp_bits;
	cfg->group_size = group;
	memcpy(cfg->server_id, "0123456789abcdef", 16);
	cfg->pixmodel = vg_pair_pixmodel;
	cfg->pixmodel_by_rate = vg_pair_pixmodel_by_rate;
	cfg->indexed = !vg_pair_no_indexed;
	cfg->repeat_within = !vg_pair_no_repeat_within;
	vg_receiver_config_init(rcfg);
	rcfg->memory_budget = 16u << 20;
}

void vg_pair_init_group(vg_pair *p, int w, int h, unsigned fp_bits, unsigned group)
{
	vg_sender_config cfg;
	vg_receiver_config rcfg;

	vg_pair_configs(&cfg, &rcfg, fp_bits, group);
	g_assert_cmpint(vg_sender_new(&cfg, &p->s), ==, 0);
	g_assert_cmpint(vg_receiver_new(&rcfg, &p->r), ==, 0);
	vg_writer_init(&p->wire);
	vg_writer_init(&p->reply);
	p->server_fb = vg_pixbuf_new(w, h);
	p->viewer_fb = vg_pixbuf_new(w, h);
	p->repair = vg_region_new();
	p->segs = g_array_new(FALSE, FALSE, sizeof(vg_segdesc));
	vg_sender_hello(p->s, &p->wire);
	g_assert_cmpint(vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply), ==, 0);
	/* The reply is an RFB client message: type, u16 length, body. */
	g_assert_cmpuint(p->reply.len, >=, 3);
	g_assert_cmpuint(p->reply.data[0], ==, VG_CLIENT_MSG);
	g_assert_cmpint(vg_sender_handle(p->s, p->reply.data + 3, p->reply.len - 3, w, h, NULL), ==, 0);
	g_assert_true(vg_sender_has_viewer_hello(p->s));
	vg_writer_reset(&p->reply);
}

void vg_pair_init(vg_pair *p, int w, int h)
{
	vg_pair_init_group(p, w, h, VG_FP_BITS_DEFAULT, VG_GROUP_DEFAULT);
}

void vg_pair_clear(vg_pair *p)
{
	vg_sender_free(p->s);
	vg_receiver_free(p->r);
	vg_writer_clear(&p->wire);
	vg_writer_clear(&p->reply);
	vg_pixbuf_free(p->server_fb);
	vg_pixbuf_free(p->viewer_fb);
	vg_region_free(p->repair);
	g_array_free(p->segs, TRUE);
}

vg_segdesc vg_pair_seg(const vg_pixbuf *fb, vg_rect r, vg_orient o)
{
	vg_segdesc d = { 0 };
	vg_pixbuf v = vg_pixbuf_view(fb, r);

	d.rect = r;
	d.orient = (uint8_t)o;
	d.hash = vg_seghash(&v, o);
	return d;
}

int vg_pair_feed_replies(vg_pair *p)
{
	vg_reader rd;
	int rects = 0;

	vg_reader_init(&rd, p->reply.data, p->reply.len);
	while (vg_reader_remaining(&rd)) {
		guint8 type;
		guint16 len;
		const guint8 *body;
		vg_sender_stats st0, st1;

		g_assert_cmpint(vg_reader_u8(&rd, &type), ==, 0);
		g_assert_cmpuint(type, ==, VG_CLIENT_MSG);
		g_assert_cmpint(vg_reader_u16be(&rd, &len), ==, 0);
		g_assert_cmpint(vg_reader_ptr(&rd, len, &body), ==, 0);
		vg_sender_get_stats(p->s, &st0);
		g_assert_cmpint(vg_sender_handle(p->s, body, len, p->server_fb->width,
						 p->server_fb->height, p->repair), ==, 0);
		vg_sender_get_stats(p->s, &st1);
		rects += (int)(st1.repairs - st0.repairs);
	}
	vg_writer_reset(&p->reply);
	return rects;
}

int vg_pair_send(vg_pair *p, const vg_segdesc *segs, size_t n, const vg_region *literal_only)
{
	int err;

	vg_writer_reset(&p->wire);
	err = vg_sender_update(p->s, p->server_fb, segs, n, literal_only, &p->wire);
	if (err)
		return err;
	err = vg_receiver_handle(p->r, p->wire.data, p->wire.len, p->viewer_fb, &p->reply);
	if (err)
		g_test_message("receiver: %s", vg_receiver_error_text(p->r));
	return err;
}

int vg_pair_exchange(vg_pair *p, const vg_segdesc *segs, size_t n)
{
	int rounds = 0;

	vg_receiver_stats st;

	g_assert_cmpint(vg_pair_send(p, segs, n, NULL), ==, 0);
	while (vg_pair_feed_replies(p) > 0) {
		const vg_rect *rs;
		size_t k, nr;

		/* The viewer knows its picture is not the server's yet. */
		vg_receiver_get_stats(p->r, &st);
		g_assert_cmpuint(st.owed_pixels, >, 0);
		g_assert_cmpint(++rounds, <=, 3);
		rs = vg_region_rects(p->repair, &nr);
		g_array_set_size(p->segs, 0);
		for (k = 0; k < nr; k++) {
			vg_segdesc d = vg_pair_seg(p->server_fb, rs[k], VG_ORIENT_ROWS);
			g_array_append_val(p->segs, d);
		}
		g_assert_cmpint(vg_pair_send(p, (vg_segdesc *)p->segs->data, p->segs->len, p->repair), ==, 0);
		vg_region_clear(p->repair);
	}
	vg_receiver_get_stats(p->r, &st);
	g_assert_cmpuint(st.owed_pixels, ==, 0);
	return rounds;
}

void vg_pair_paint_tile(vg_pixbuf *fb, vg_rect r, uint32_t pattern)
{
	int32_t x, y;

	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			vg_pixbuf_row(fb, y)[x] = (pattern * 2654435761u ^ (guint32)((x - r.x) * 31 + (y - r.y) * 7)) & VG_PIXEL_MASK;
}

void vg_pair_text_band(vg_pair *p, GRand *rng, int32_t y0, int levels)
{
	vg_segdesc d[4];
	int32_t x, y, k;

	for (y = y0; y < y0 + 16; y++)
		for (x = 0; x < 64; x++) {
			int g = g_rand_int_range(rng, 0, 4) ? 255 : g_rand_int_range(rng, 0, levels);

			vg_pixbuf_row(p->server_fb, y)[x] = VG_RGB(g, g, g);
		}
	for (k = 0; k < 4; k++)
		d[k] = vg_pair_seg(p->server_fb, vg_rect_make(16 * k, y0, 16, 16), VG_ORIENT_ROWS);
	vg_pair_exchange(p, d, 4);
	g_assert_true(vg_pixbuf_equal(p->server_fb, p->viewer_fb));
}

size_t vg_pair_random_update(GRand *rng, vg_pair *p, vg_segdesc *out, int pool)
{
	size_t n = 0;
	int cols = g_rand_int_range(rng, 1, 5), c;

	for (c = 0; c < cols; c++) {
		int32_t x = g_rand_int_range(rng, 0, p->server_fb->width / 16) * 16;
		int32_t y = g_rand_int_range(rng, 0, p->server_fb->height - 8);
		int32_t end = y + g_rand_int_range(rng, 8, 120);
		bool cols_orient = g_rand_int_range(rng, 0, 5) == 0;

		end = MIN(end, p->server_fb->height);

		if (cols_orient) {
			vg_rect band = vg_rect_make(0, y, MIN(64, p->server_fb->width), MIN(16, end - y));
			int32_t pos = band.x;
			while (pos < band.x + band.w) {
				int32_t len = g_rand_int_range(rng, 1, 20);
				len = MIN(len, band.x + band.w - pos);
				vg_rect r = vg_rect_make(pos, band.y, len, band.h);
				vg_pair_paint_tile(p->server_fb, r, (guint32)g_rand_int_range(rng, 0, pool));
				out[n++] = vg_pair_seg(p->server_fb, r, VG_ORIENT_COLS);
				pos += len;
			}
			continue;
		}
		while (y < end) {
			int32_t h = g_rand_int_range(rng, 1, 24);
			vg_rect r;

			h = MIN(h, end - y);
			r = vg_rect_make(x, y, MIN(16, p->server_fb->width - x), h);
			vg_pair_paint_tile(p->server_fb, r, (guint32)g_rand_int_range(rng, 0, pool));
			out[n++] = vg_pair_seg(p->server_fb, r, VG_ORIENT_ROWS);
			y += h;
		}
	}
	/* Columns may overlap: describe the frame as it is now. */
	for (size_t k = 0; k < n; k++)
		out[k] = vg_pair_seg(p->server_fb, out[k].rect, (vg_orient)out[k].orient);
	return n;
}


void vg_pair_init_with(vg_pair *p, int w, int h, bool *choice)
{
	if (choice)
		*choice = true;
	vg_pair_init(p, w, h);
	if (choice)
		*choice = false;
}

void vg_pair_plant_junk(vg_pair *p, vg_pixbuf *junk, GRand *rng, uint64_t key, vg_rect r)
{
	vg_pixbuf v = vg_pixbuf_view(junk, vg_rect_make(0, 0, r.w, r.h));

	vg_pair_paint_tile(junk, vg_pixbuf_rect(junk), g_rand_int(rng));
	if (v.height == r.h)
		vg_receiver_seed_cache(p->r, key, &v);
}

void vg_pair_first_run(vg_writer *w, vg_rect r)
{
	vg_writer_uleb(w, vg_zigzag_encode(r.x));
	vg_writer_uleb(w, vg_zigzag_encode(r.y));
	vg_writer_uleb(w, vg_zigzag_encode(r.w));
	vg_writer_uleb(w, vg_zigzag_encode(r.h));
}

void vg_pair_zouts(vg_zout **zs, vg_zout **zpix)
{
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 3, VG_ZSTD_WINDOW_LOG_MIN, zs), ==, 0);
	g_assert_cmpint(vg_zout_new(VG_CODER_ZSTD, 3, VG_ZSTD_WINDOW_LOG_MIN, zpix), ==, 0);
}

void vg_pair_msg(vg_zout *zs, vg_zout *zpix, size_t n_checks, const uint8_t *plain, size_t n,
		 const uint8_t *pix, size_t n_pix, vg_writer *out)
{
	vg_writer chunk;
	size_t i;

	vg_writer_init(&chunk);
	vg_writer_reset(out);
	vg_writer_u8(out, VG_MSG_UPDATE);
	vg_writer_uleb(out, n_checks * 2);
	for (i = 0; i < n_checks * 20; i++)
		vg_writer_u8(out, 0x11);
	g_assert_cmpint(vg_zout_put(zs, plain, n, &chunk), ==, 0);
	vg_writer_uleb(out, chunk.len);
	vg_writer_bytes(out, chunk.data, chunk.len);
	if (n_pix)
		g_assert_cmpint(vg_zout_put(zpix, pix, n_pix, out), ==, 0);
	vg_writer_clear(&chunk);
}

/* A test run with the pairs' senders using the pixel model or not. */
typedef struct {
	bool pixmodel;
	void (*fn)(void);
} model_case;

static void with_model(gconstpointer data)
{
	const model_case *c = data;

	vg_pair_pixmodel = c->pixmodel;
	c->fn();
	vg_pair_pixmodel = false;
}

void vg_pair_add(const char *name, void (*fn)(void))
{
	int k;

	for (k = 0; k < 2; k++) {
		model_case *c = g_new(model_case, 1); /* lives as long as the run */
		char *path = g_strdup_printf("/protocol/%s/%s", k ? "pixmodel" : "literal", name);

		c->pixmodel = k == 1;
		c->fn = fn;
		g_test_add_data_func_full(path, c, with_model, g_free);
		g_free(path);
	}
}
