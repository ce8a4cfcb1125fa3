/* libFuzzer target for the belief file parser: any bytes load or are
 * refused without a crash; a refused image leaves the table unchanged; a
 * loaded one saves back to an image that loads again to the same count
 * and the same history. */
#include <assert.h>
#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/vg_error.h"
#include "fingerprint/proto/vg_beliefs.h"
#include "fingerprint/proto/vg_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vg_beliefs_tag tag;
	vg_beliefs *b = vg_beliefs_new(), *c;
	vg_history *win = vg_history_new(VG_HISTORY_MAX, false), *win2 = vg_history_new(VG_HISTORY_MAX, false);
	vg_writer w;
	int err;

	/* Take the tag from the input, so that sound images get loaded. */
	memset(&tag, 0, sizeof tag);
	if (size >= 48) {
		tag.fp_bits = data[12];
		memcpy(tag.server_id, data + 16, 16);
		memcpy(tag.cache_id, data + 32, 16);
	}
	vg_beliefs_set_budget(b, UINT64_C(1) << 32);
	vg_beliefs_put(b, 1, 1, 1);
	err = vg_beliefs_load(b, &tag, data, size, win);
	if (err) {
		assert(vg_beliefs_count(b) == 1);
		assert(vg_history_len(win) == 0);
	} else {
		vg_writer_init(&w);
		vg_beliefs_save(b, &tag, SIZE_MAX, win, &w);
		c = vg_beliefs_new();
		vg_beliefs_set_budget(c, UINT64_C(1) << 32);
		assert(vg_beliefs_load(c, &tag, w.data, w.len, win2) == 0);
		assert(vg_beliefs_count(c) == vg_beliefs_count(b));
		/* The history comes back item for item. */
		assert(vg_history_len(win2) == vg_history_len(win));
		for (size_t i = 0; i < vg_history_len(win); i++)
			assert(memcmp(vg_history_at(win2, i), vg_history_at(win, i),
				      sizeof(vg_repeat_item)) == 0);
		vg_beliefs_free(c);
		vg_writer_clear(&w);
	}
	vg_beliefs_free(b);
	vg_history_free(win);
	vg_history_free(win2);
	return 0;
}
