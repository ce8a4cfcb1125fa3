/* Command lines in the VNC family's style, shared by the programs. */
#ifndef VG_CMDLINE_H
#define VG_CMDLINE_H

#include <glib.h>
#include <stdint.h>

/* vncviewer's single-dash long options (-via, -passwd, -viewonly ...):
 * "-name" or "-name=value" becomes "--name..." when name is one of
 * entries. Short options (-v, -q) and everything after "--" stay as they
 * are. The new strings go to owned (g_free), since parsing reorders argv. */
void vg_cmdline_double_dashes(int argc, char **argv, const GOptionEntry *entries, GPtrArray *owned);

/* A size such as "4096", "500M", "20G" or "1TB" (powers of 1024) into
 * *out. VG_EINVAL for anything else, zero, or a size past 2^64. */
int vg_cmdline_parse_size(const char *text, uint64_t *out);

/* A size that must be a power of two from 2^min_log to 2^max_log, or "0"
 * (none), into *log: its log2, 0 for "0". VG_EINVAL for anything else. */
int vg_cmdline_parse_pow2(const char *text, unsigned min_log, unsigned max_log, unsigned *log);

#endif
