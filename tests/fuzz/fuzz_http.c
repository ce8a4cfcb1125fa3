/* libFuzzer target for the HTTP request parser of varg-server --http
 * (server/vg_http.c): any bytes, parsed as a request head. A request that
 * parses must have a path that stays inside the served directory. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "common/vg_error.h"
#include "server/vg_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vg_http_request req;

	(void)vg_http_is_request(data, size);
	if (vg_http_parse((const char *)data, size, &req) == VG_OK) {
		size_t n = strlen(req.path);

		assert(req.head_len <= size);
		assert(req.path[0] == '/');
		assert(!strstr(req.path, "/../") && !strstr(req.path, "/./"));
		assert(!(n >= 3 && strcmp(req.path + n - 3, "/..") == 0));
		assert(!strchr(req.path, '\\'));
		(void)vg_http_content_type(req.path);
	}
	return 0;
}
