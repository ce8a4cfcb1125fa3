#include "server/vg_http.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "common/vg_error.h"

/* Where "/" leads without an index.html or VG_HTTP_PAGE: noVNC's own
 * page, connecting at once to the port it was served from. */
#define NOVNC_PAGE "vnc.html?autoconnect=true"

bool vg_http_is_request(const uint8_t *buf, size_t len)
{
	/* A method is upper-case letters; the shortest, GET, then a space.
	 * "RFB " is an RFB client that spoke first: LibVNCServer's. */
	if (len < 4 || memcmp(buf, "RFB ", 4) == 0)
		return false;
	for (size_t i = 0; i < 4; i++)
		if (!(buf[i] >= 'A' && buf[i] <= 'Z') && !(i == 3 && buf[i] == ' '))
			return false;
	return true;
}

/* The length of the line at p (without its end), its end's length in
 * *eol (2 for CRLF, 1 for a bare LF); -1 if no line end before end. */
static long line_at(const char *p, const char *end, int *eol)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	if (!nl)
		return -1;
	*eol = (nl > p && nl[-1] == '\r') ? 2 : 1;
	return (long)(nl - p) - (*eol - 1);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Whether the len bytes at s are the segment "." or "..". */
static bool dot_segment(const char *s, size_t len)
{
	return (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.');
}

/* Decodes the path of the target (n bytes at t, query and fragment cut)
 * into out, refusing what could leave the directory. */
static int decode_path(const char *t, size_t n, char out[VG_HTTP_PATH_MAX])
{
	size_t i, o = 0, seg = 1;

	if (n == 0 || t[0] != '/')
		return VG_ECORRUPT;
	for (i = 0; i < n; i++) {
		char c = t[i];

		if (c == '?' || c == '#')
			break;
		if (c == '%') {
			int hi = i + 2 < n ? hex_digit(t[i + 1]) : -1;
			int lo = i + 2 < n ? hex_digit(t[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return VG_ECORRUPT;
			c = (char)(hi * 16 + lo);
			i += 2;
		}
		/* Control bytes, raw or escaped, would cut or confuse the name. */
		if (c == '\\' || (unsigned char)c < 0x20 || c == 0x7f)
			return VG_ECORRUPT;
		if (o + 1 >= VG_HTTP_PATH_MAX)
			return VG_ERANGE;
		out[o++] = c;
		if (c == '/') {
			/* The segment that just ended. */
			if (dot_segment(out + seg, o - 1 - seg))
				return VG_ECORRUPT;
			seg = o;
		}
	}
	out[o] = '\0';
	return dot_segment(out + seg, o - seg) ? VG_ECORRUPT : VG_OK;
}

/* Whether the comma-separated list of n bytes at v holds token. */
static bool has_token(const char *v, size_t n, const char *token)
{
	size_t tl = strlen(token), i = 0;

	while (i < n) {
		size_t start, end;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		start = i;
		while (i < n && v[i] != ',')
			i++;
		end = i;
		while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t'))
			end--;
		if (end - start == tl && strncasecmp(v + start, token, tl) == 0)
			return true;
	}
	return false;
}

int vg_http_parse(const char *buf, size_t len, vg_http_request *req)
{
	const char *p = buf, *end = buf + len, *sp1, *sp2;
	bool upgrade_ws = false, conn_upgrade = false;
	long n;
	int eol, err;

	memset(req, 0, sizeof *req);
	/* The request line: METHOD SP TARGET SP HTTP/1.x */
	if ((n = line_at(p, end, &eol)) < 0)
		return len >= VG_HTTP_HEAD_MAX ? VG_ERANGE : VG_ETRUNC;
	sp1 = memchr(p, ' ', (size_t)n);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(p + n - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || p + n - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return VG_EPROTO;
	if (sp1 - p == 3 && memcmp(p, "GET", 3) == 0)
		req->method = VG_HTTP_GET;
	else if (sp1 - p == 4 && memcmp(p, "HEAD", 4) == 0)
		req->method = VG_HTTP_HEAD;
	else
		req->method = VG_HTTP_OTHER;
	if ((err = decode_path(sp1 + 1, (size_t)(sp2 - sp1 - 1), req->path)))
		return err;
	p += n + eol;
	/* Headers, up to the blank line. */
	for (;;) {
		const char *colon, *v;
		size_t vn;

		if ((n = line_at(p, end, &eol)) < 0)
			return VG_ETRUNC;
		if (n == 0) {
			p += eol;
			break;
		}
		if (!(colon = memchr(p, ':', (size_t)n)) || colon == p)
			return VG_EPROTO;
		v = colon + 1;
		while (v < p + n && (*v == ' ' || *v == '\t'))
			v++;
		vn = (size_t)(p + n - v);
		while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
			vn--;
#define IS(name) ((size_t)(colon - p) == sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0)
		if (IS("Upgrade"))
			upgrade_ws = has_token(v, vn, "websocket");
		else if (IS("Connection"))
			conn_upgrade = has_token(v, vn, "upgrade");
		else if (IS("If-Modified-Since") && vn < sizeof req->if_modified_since) {
			memcpy(req->if_modified_since, v, vn);
			req->if_modified_since[vn] = '\0';
		}
#undef IS
		p += n + eol;
	}
	req->websocket = upgrade_ws && conn_upgrade && req->method == VG_HTTP_GET;
	req->head_len = (size_t)(p - buf);
	return VG_OK;
}

const char *vg_http_content_type(const char *name)
{
	static const struct { const char *ext, *type; } types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".wasm", "application/wasm" },
		{ ".png", "image/png" },
		{ ".svg", "image/svg+xml" },
		{ ".ico", "image/x-icon" },
		{ ".oga", "audio/ogg" },
		{ ".ogg", "audio/ogg" },
		{ ".mp3", "audio/mpeg" },
		{ ".woff", "font/woff" },
		{ ".woff2", "font/woff2" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	const char *dot = strrchr(name, '.');

	if (dot && !strchr(dot, '/'))
		for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
			if (strcasecmp(dot, types[i].ext) == 0)
				return types[i].type;
	return "application/octet-stream";
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 302: return "Found";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	default: return "Internal Server Error";
	}
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return VG_EIO;
		p += n;
		len -= (size_t)n;
	}
	return VG_OK;
}

/* An HTTP date, in English whatever the locale. */
static void http_date(time_t t, char out[40])
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, 40, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
		 months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Writes a head; extra holds more header lines, each ending in CRLF. */
static int send_head(int fd, int status, const char *extra)
{
	char head[1024];
	int n = snprintf(head, sizeof head,
			 "HTTP/1.1 %d %s\r\nServer: varg-server\r\nConnection: close\r\n"
			 "X-Content-Type-Options: nosniff\r\n%s\r\n",
			 status, reason(status), extra);

	if (n < 0 || (size_t)n >= sizeof head)
		return VG_EIO;
	return send_all(fd, head, (size_t)n);
}

int vg_http_respond_text(int fd, int status, const char *text)
{
	char extra[160];
	size_t n = strlen(text);

	snprintf(extra, sizeof extra, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n", n);
	if (send_head(fd, status, extra))
		return VG_EIO;
	return send_all(fd, text, n);
}

int vg_http_respond_status(int fd, int status)
{
	char body[80];

	snprintf(body, sizeof body, "%d %s\n", status, reason(status));
	return vg_http_respond_text(fd, status, body);
}

/* Whether path (resolved) lies inside dir (resolved). */
static bool inside(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Opens the regular file that path names under root: VG_OK with *fd and
 * *st, VG_ENOENT when there is none, VG_EINVAL when it lies outside root
 * (through a symbolic link) or is not a regular file. */
static int open_under(const char *root, const char *path, int *fd, struct stat *st)
{
	char *want = g_strconcat(root, path, NULL), *real_root = NULL, *real = NULL;
	int err = VG_ENOENT;

	*fd = -1;
	if (!(real = realpath(want, NULL)))
		goto out;
	err = VG_EINVAL;
	if (!(real_root = realpath(root, NULL)) || !inside(real_root, real))
		goto out;
	if ((*fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		err = errno == ENOENT ? VG_ENOENT : VG_EINVAL;
		goto out;
	}
	if (fstat(*fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(*fd);
		*fd = -1;
		goto out;
	}
	err = VG_OK;
out:
	free(real);
	free(real_root);
	g_free(want);
	return err;
}

static int send_file(int sock, const char *root, const vg_http_request *req)
{
	char extra[512], date[40], buf[65536];
	struct stat st;
	int fd, err = open_under(root, req->path, &fd, &st);
	int status = 200;
	off_t left;

	if (err) {
		status = err == VG_ENOENT ? 404 : 403;
		return vg_http_respond_status(sock, status) ? VG_EIO : status;
	}
	http_date(st.st_mtime, date);
	if (req->if_modified_since[0] && strcmp(req->if_modified_since, date) == 0) {
		snprintf(extra, sizeof extra, "Last-Modified: %s\r\n", date);
		close(fd);
		return send_head(sock, 304, extra) ? VG_EIO : 304;
	}
	/* Cached, but asked again before use: a changed file is seen at once. */
	snprintf(extra, sizeof extra,
		 "Content-Type: %s\r\nContent-Length: %lld\r\nLast-Modified: %s\r\nCache-Control: no-cache\r\n",
		 vg_http_content_type(req->path), (long long)st.st_size, date);
	if (send_head(sock, 200, extra) != VG_OK)
		status = VG_EIO;
	if (status != 200 || req->method == VG_HTTP_HEAD) {
		close(fd);
		return status;
	}
	for (left = st.st_size; left > 0;) {
		ssize_t n = read(fd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		/* A file that shrank under us: the peer sees a short body. */
		if (n <= 0 || send_all(sock, buf, (size_t)n)) {
			status = VG_EIO;
			break;
		}
		left -= n;
	}
	close(fd);
	return status;
}

/* The first root that holds a regular file at path, or NULL. */
static const char *root_with(const char *const *roots, const char *path)
{
	for (; *roots; roots++) {
		g_autofree char *file = g_strconcat(*roots, path, NULL);

		if (g_file_test(file, G_FILE_TEST_IS_REGULAR))
			return *roots;
	}
	return NULL;
}

int vg_http_respond(int fd, const char *const *roots, const vg_http_request *req)
{
	vg_http_request r = *req;
	const char *root;

	if (req->method == VG_HTTP_OTHER) {
		if (send_head(fd, 405, "Allow: GET, HEAD\r\nContent-Length: 0\r\n"))
			return VG_EIO;
		return 405;
	}
	if (strcmp(req->path, "/") == 0) {
		if (!root_with(roots, "/index.html")) {
			const char *to = root_with(roots, "/" VG_HTTP_PAGE) ? VG_HTTP_PAGE : NOVNC_PAGE;
			char extra[160];

			snprintf(extra, sizeof extra, "Location: /%s\r\nContent-Length: 0\r\n", to);
			return send_head(fd, 302, extra) ? VG_EIO : 302;
		}
		g_strlcpy(r.path, "/index.html", sizeof r.path);
	}
	root = root_with(roots, r.path);
	return send_file(fd, root ? root : roots[0], &r);
}
