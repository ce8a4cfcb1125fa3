/* A 16-byte identity (a server's, a cache's) as the 32 lower-case hex
 * digits that name its directories, files and key-file entries. */
#ifndef VG_ID_H
#define VG_ID_H

#include <stdbool.h>
#include <stdint.h>

#define VG_ID_BYTES 16
#define VG_ID_HEX_LEN (2 * VG_ID_BYTES)

/* Writes id's hex digits and a terminating NUL into out. */
void vg_id_to_hex(const uint8_t id[VG_ID_BYTES], char out[VG_ID_HEX_LEN + 1]);

/* Reads the first 32 characters of text (hex digits, either case) into
 * id. False, with id untouched, when any of them is not a hex digit. */
bool vg_id_from_hex(const char *text, uint8_t id[VG_ID_BYTES]);

#endif
