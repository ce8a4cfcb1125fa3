/* Levelled logging to standard error.
 *
 * Libraries report failures through return codes and leave the wording to
 * the programs; they log only warnings a program cannot see otherwise (a
 * damaged cache file dropped, for instance). The threshold is the one
 * process-wide setting in common/, set once by main().
 */
#ifndef VG_LOG_H
#define VG_LOG_H

typedef enum {
	VG_LOG_ERROR = 0,
	VG_LOG_WARN = 1,
	VG_LOG_INFO = 2,
	VG_LOG_DEBUG = 3,
} vg_log_level;

/* Messages above level are dropped. The default is VG_LOG_WARN. */
void vg_log_set_level(vg_log_level level);
vg_log_level vg_log_get_level(void);

/* Sets the program name that prefixes every line ("varg-server: ..."). The
 * string must outlive all logging; NULL means no prefix. */
void vg_log_set_prefix(const char *prefix);

/* Writes one line (a newline is added) if level passes the threshold. */
void vg_log(vg_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define vg_error(...) vg_log(VG_LOG_ERROR, __VA_ARGS__)
#define vg_warn(...)  vg_log(VG_LOG_WARN, __VA_ARGS__)
#define vg_info(...)  vg_log(VG_LOG_INFO, __VA_ARGS__)
#define vg_debug(...) vg_log(VG_LOG_DEBUG, __VA_ARGS__)

#endif
