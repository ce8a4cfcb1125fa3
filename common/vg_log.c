#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "common/vg_log.h"

static atomic_int log_level = VG_LOG_WARN;
static const char *_Atomic log_prefix;

void vg_log_set_level(vg_log_level level)
{
	atomic_store(&log_level, (int)level);
}

vg_log_level vg_log_get_level(void)
{
	return (vg_log_level)atomic_load(&log_level);
}

void vg_log_set_prefix(const char *prefix)
{
	atomic_store(&log_prefix, prefix);
}

void vg_log(vg_log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char line[1024];
	const char *prefix;
	va_list ap;
	int n = 0;

	if ((int)level > atomic_load(&log_level))
		return;
	prefix = atomic_load(&log_prefix);
	if (prefix)
		n = snprintf(line, sizeof line, "%s: ", prefix);
	if (level != VG_LOG_INFO && n >= 0 && (size_t)n < sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "%s: ", names[level]);
	if (n >= 0 && (size_t)n < sizeof line) {
		va_start(ap, fmt);
		vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
		va_end(ap);
	}
	/* One fputs per line so that lines from threads do not interleave. */
	fprintf(stderr, "%s\n", line);
}
