/* vg_http: a browser's files on the RFB port (varg-server --http).
 *
 * A browser that opens http://host:port/ sends an HTTP request where a
 * VNC viewer would wait for the server to speak. The accept path
 * (vg_listener) reads the request's head: a WebSocket upgrade goes on to
 * LibVNCServer, which speaks RFB over it with the same authentication as
 * raw RFB; any other GET or HEAD is answered here with a file (Varg's
 * page, viewer/web/, and noVNC's files) and the connection closed. Files
 * only: no listings, nothing outside the directories, no method but GET
 * and HEAD.
 *
 * Parsing is separate from the socket, so that it is tested and fuzzed
 * on bytes alone.
 */
#ifndef VG_HTTP_H
#define VG_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest request head read; a longer one is refused (431). */
#define VG_HTTP_HEAD_MAX 8192
/* The longest decoded path. */
#define VG_HTTP_PATH_MAX 1024

typedef enum {
	VG_HTTP_GET,
	VG_HTTP_HEAD,
	VG_HTTP_OTHER             /* answered 405 */
} vg_http_method;

typedef struct {
	vg_http_method method;
	char path[VG_HTTP_PATH_MAX]; /* decoded; starts with '/'; no query */
	bool websocket;           /* an upgrade to WebSocket */
	char if_modified_since[64]; /* the header's value; empty if absent or too long */
	size_t head_len;          /* bytes of the head, its blank line included */
} vg_http_request;

/* Whether len (at least 4) bytes can begin an HTTP request: a method in
 * upper-case letters ("GET ", "HEAD", "POST"...). An RFB client sends
 * nothing first; a TLS one 0x16. */
bool vg_http_is_request(const uint8_t *buf, size_t len);

/* Parses the request head at the start of buf. VG_ETRUNC: the blank line
 * that ends the head is not there yet; VG_EPROTO: not an HTTP/1.x request
 * line or a header without a colon; VG_ERANGE: a path longer than
 * VG_HTTP_PATH_MAX, or a request line longer than VG_HTTP_HEAD_MAX; VG_ECORRUPT: a path that is not absolute, has a bad
 * escape, a control byte (raw or escaped: NUL too), a backslash, or a "."
 * or ".." segment. */
int vg_http_parse(const char *buf, size_t len, vg_http_request *req);

/* The Content-Type of a file name, by its extension. */
const char *vg_http_content_type(const char *name);

/* Varg's own page (viewer/web/varg.html), where "/" leads. */
#define VG_HTTP_PAGE "varg.html"

/* Answers req on fd (blocking; the caller sets a send timeout) from the
 * regular files under roots (NULL-terminated; the first that has the
 * file serves it): "/" is an index.html, or else a redirect to
 * VG_HTTP_PAGE or, without it, to noVNC's vnc.html. Returns the status
 * sent (200, 302, 304, 403, 404, 405), or VG_EIO when the peer went away. */
int vg_http_respond(int fd, const char *const *roots, const vg_http_request *req);

/* Sends an error status with a one-line body; VG_EIO if it could not. */
int vg_http_respond_status(int fd, int status);

/* The same with text (UTF-8, ending in a newline) as the body. */
int vg_http_respond_text(int fd, int status, const char *text);

#endif
