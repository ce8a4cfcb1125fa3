/* The HTTP request parser of varg-server --http, on bytes alone. */
#include <glib.h>
#include <string.h>

#include "common/vg_error.h"
#include "server/vg_http.h"

static int parse(const char *text, vg_http_request *req)
{
	return vg_http_parse(text, strlen(text), req);
}

static void test_get(void)
{
	vg_http_request req;
	const char *text = "GET /core/rfb.js?v=1#top HTTP/1.1\r\nHost: x:5900\r\n"
			   "If-Modified-Since: Fri, 22 Oct 2021 08:40:13 GMT\r\n\r\nextra";

	g_assert_cmpint(parse(text, &req), ==, VG_OK);
	g_assert_cmpint(req.method, ==, VG_HTTP_GET);
	g_assert_cmpstr(req.path, ==, "/core/rfb.js");
	g_assert_false(req.websocket);
	g_assert_cmpstr(req.if_modified_since, ==, "Fri, 22 Oct 2021 08:40:13 GMT");
	g_assert_cmpuint(req.head_len, ==, strlen(text) - strlen("extra"));
}

/* Bare LF line ends, HEAD, escapes, other methods. */
static void test_forms(void)
{
	vg_http_request req;

	g_assert_cmpint(parse("HEAD /a%20b.html HTTP/1.0\n\n", &req), ==, VG_OK);
	g_assert_cmpint(req.method, ==, VG_HTTP_HEAD);
	g_assert_cmpstr(req.path, ==, "/a b.html");
	g_assert_cmpuint(req.head_len, ==, strlen("HEAD /a%20b.html HTTP/1.0\n\n"));
	g_assert_cmpint(parse("POST /x HTTP/1.1\r\nContent-Length: 1\r\n\r\n", &req), ==, VG_OK);
	g_assert_cmpint(req.method, ==, VG_HTTP_OTHER);
	g_assert_cmpint(parse("GET /.hidden/..x HTTP/1.1\r\n\r\n", &req), ==, VG_OK);
	g_assert_cmpstr(req.path, ==, "/.hidden/..x");
}

/* Only an upgrade to WebSocket on a GET, whatever the case and order. */
static void test_websocket(void)
{
	vg_http_request req;

	g_assert_cmpint(parse("GET /websockify HTTP/1.1\r\nupgrade: WebSocket\r\n"
			      "connection: keep-alive, Upgrade\r\n\r\n", &req), ==, VG_OK);
	g_assert_true(req.websocket);
	g_assert_cmpint(parse("GET /w HTTP/1.1\r\nUpgrade: websocket\r\n\r\n", &req), ==, VG_OK);
	g_assert_false(req.websocket);
	g_assert_cmpint(parse("GET /w HTTP/1.1\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n", &req), ==, VG_OK);
	g_assert_false(req.websocket);
	g_assert_cmpint(parse("HEAD /w HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", &req), ==, VG_OK);
	g_assert_false(req.websocket);
}

static void test_incomplete(void)
{
	vg_http_request req;
	char big[VG_HTTP_HEAD_MAX + 16];

	g_assert_cmpint(parse("", &req), ==, VG_ETRUNC);
	g_assert_cmpint(parse("GET / HTTP/1.1\r\nHost: x\r\n", &req), ==, VG_ETRUNC);
	g_assert_cmpint(parse("GET / HTT", &req), ==, VG_ETRUNC);
	memset(big, 'a', sizeof big);
	memcpy(big, "GET /", 5);
	g_assert_cmpint(vg_http_parse(big, sizeof big, &req), ==, VG_ERANGE);
}

/* Whatever could leave the directory, or is not HTTP, is refused. */
static void test_refused(void)
{
	static const char *const bad_paths[] = {
		"/..", "/../etc/passwd", "/core/../../x", "/./x", "/x/.", "/%2e%2e/x", "/%2E%2e",
		"/x%2f..%2fy/..", "/a%00b", "/a%0ab", "/a%7f", "/a\tb", "/a%zz", "/a%2", "/a\\b", "/a%5cb", "x", "http://h/x", "",
	};
	static const char *const not_http[] = {
		"GET /\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / FTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nno colon\r\n\r\n", "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
	};
	static const char nul_cut[] = "GET /a/..\0x.js HTTP/1.1\r\n\r\n";
	vg_http_request req;
	char path[VG_HTTP_PATH_MAX + 64];

	for (size_t i = 0; i < G_N_ELEMENTS(bad_paths); i++) {
		g_autofree char *text = g_strdup_printf("GET %s HTTP/1.1\r\n\r\n", bad_paths[i]);

		g_assert_cmpint(parse(text, &req), ==, VG_ECORRUPT);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(not_http); i++)
		g_assert_cmpint(parse(not_http[i], &req), ==, VG_EPROTO);
	/* A raw NUL would end the name at "/a/..", past the segment check
	 * (found by fuzz_http). */
	g_assert_cmpint(vg_http_parse(nul_cut, sizeof nul_cut - 1, &req), ==, VG_ECORRUPT);
	memset(path, 'a', sizeof path);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	{
		g_autofree char *text = g_strdup_printf("GET %s HTTP/1.1\r\n\r\n", path);

		g_assert_cmpint(parse(text, &req), ==, VG_ERANGE);
	}
}

static void test_is_request(void)
{
	g_assert_true(vg_http_is_request((const uint8_t *)"GET /", 5));
	g_assert_true(vg_http_is_request((const uint8_t *)"OPTIONS", 7));
	g_assert_false(vg_http_is_request((const uint8_t *)"RFB 003.008\n", 12));
	g_assert_false(vg_http_is_request((const uint8_t *)"\x16\x03\x01\x02", 4));
	g_assert_false(vg_http_is_request((const uint8_t *)"GE", 2));
}

static void test_content_types(void)
{
	g_assert_cmpstr(vg_http_content_type("/core/rfb.js"), ==, "text/javascript; charset=utf-8");
	g_assert_cmpstr(vg_http_content_type("/VARG.HTML"), ==, "text/html; charset=utf-8");
	g_assert_cmpstr(vg_http_content_type("/x.wasm"), ==, "application/wasm");
	g_assert_cmpstr(vg_http_content_type("/a.d/noext"), ==, "application/octet-stream");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/http/get", test_get);
	g_test_add_func("/http/forms", test_forms);
	g_test_add_func("/http/websocket", test_websocket);
	g_test_add_func("/http/incomplete", test_incomplete);
	g_test_add_func("/http/refused", test_refused);
	g_test_add_func("/http/is-request", test_is_request);
	g_test_add_func("/http/content-types", test_content_types);
	return g_test_run();
}
