/* What vg_approx_enc.c takes from vg_approx.c: the state's scratch
 * picture. Private to fingerprint/codec/. */
#ifndef VG_APPROXPRIV_H
#define VG_APPROXPRIV_H

#include "common/vg_pixbuf.h"
#include "common/vg_rect.h"
#include "fingerprint/codec/vg_approx.h"

/* Sets *small to ax's scratch picture, grown to hold at least s (it stays
 * ax's, valid until the next call). VG_ERANGE when it cannot be that
 * large. */
int vg__approx_scratch(vg_approx *ax, vg_rect s, vg_pixbuf **small);

#endif
