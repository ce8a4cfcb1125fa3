/* Test helper: prints a trace's records one a line, so shell tests can
 * check input events and frame times.
 *   frame T_NS N_RECTS HASH
 *   pointer T_NS X Y BUTTONS
 *   key T_NS KEYSYM DOWN
 *   marker T_NS TEXT
 *   cursor T_NS WIDTH HEIGHT HOT_X HOT_Y OPAQUE PIXHASH
 * (OPAQUE: pixels with alpha 255; PIXHASH: FNV-1a of the pixels, 16 hex
 * digits, to compare images). With VG_TRACEDUMP_CURSOR_ART set, each
 * cursor line is followed by its image, '#' opaque, '+' translucent, '.'
 * transparent.
 * Exit status 1 (after the records read) when the trace is damaged. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/vg_error.h"
#include "traces/vg_trace.h"

int main(int argc, char **argv)
{
	vg_trace_reader *r;
	vg_trace_record rec;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: vg_tracedump FILE.vtr\n");
		return 2;
	}
	if ((err = vg_trace_reader_open(argv[1], &r))) {
		fprintf(stderr, "%s: %s\n", argv[1], vg_strerror(err));
		return 1;
	}
	while ((err = vg_trace_reader_next(r, &rec, NULL)) == 1) {
		switch (rec.kind) {
		case VG_TRACE_FRAME:
			printf("frame %" PRIu64 " %zu %016" PRIx64 "\n", rec.t_ns, rec.n_rects, rec.frame_hash);
			break;
		case VG_TRACE_INPUT:
			if (rec.input == VG_TRACE_POINTER)
				printf("pointer %" PRIu64 " %d %d %u\n", rec.t_ns, rec.x, rec.y, rec.buttons);
			else
				printf("key %" PRIu64 " %u %d\n", rec.t_ns, rec.keysym, rec.down ? 1 : 0);
			break;
		case VG_TRACE_MARKER:
			printf("marker %" PRIu64 " %s\n", rec.t_ns, rec.text);
			break;
		case VG_TRACE_CURSOR: {
			size_t i, n = (size_t)rec.cursor.width * (size_t)rec.cursor.height, opaque = 0;
			uint64_t h = 0xcbf29ce484222325u;

			for (i = 0; i < n; i++) {
				uint32_t p = rec.cursor.pixels[i];

				opaque += p >> 24 == 0xff;
				for (int b = 0; b < 32; b += 8)
					h = (h ^ ((p >> b) & 0xffu)) * 0x100000001b3u;
			}
			printf("cursor %" PRIu64 " %d %d %d %d %zu %016" PRIx64 "\n", rec.t_ns, rec.cursor.width,
			       rec.cursor.height, rec.cursor.hot_x, rec.cursor.hot_y, opaque, h);
			if (getenv("VG_TRACEDUMP_CURSOR_ART"))
				for (i = 0; i < n; i++) {
					uint32_t a = rec.cursor.pixels[i] >> 24;

					putchar(a == 0xff ? '#' : a ? '+' : '.');
					if ((i + 1) % (size_t)rec.cursor.width == 0)
						putchar('\n');
				}
			break;
		}
		default:
			break;
		}
	}
	if (err < 0)
		fprintf(stderr, "%s: %s\n", argv[1], vg_trace_reader_error_text(r));
	vg_trace_reader_free(r);
	return err < 0 ? 1 : 0;
}
