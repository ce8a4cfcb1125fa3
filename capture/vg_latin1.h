/* Text as RFB carries it: cut text is ISO 8859-1 (Latin-1). */
#ifndef VG_LATIN1_H
#define VG_LATIN1_H

#include <stddef.h>

/* Returns len bytes of Latin-1 as a new NUL-terminated UTF-8 string
 * (g_free). NUL bytes in the input are dropped. */
char *vg_latin1_to_utf8(const char *latin1, size_t len);

/* Returns UTF-8 text as new Latin-1 bytes (g_free, NUL-terminated), its
 * length in *len. Characters Latin-1 lacks become '?', malformed bytes
 * are skipped, and "\r\n" becomes "\n" as RFB expects. */
char *vg_latin1_from_utf8(const char *utf8, size_t *len);

#endif
