/* vg_listener: varg-server's accept path, in front of LibVNCServer.
 *
 * LibVNCServer 0.9.14 peeks at a new connection's first 4 bytes to tell
 * WebSocket clients from RFB ones (webSocketsCheck). Its peek loops
 * without end, at full CPU, when 1-3 bytes are queued: recv(MSG_PEEK)
 * returns the short count, errno still says EAGAIN from before and select
 * reports the socket readable at once. That loop runs in the thread that
 * accepts, so one peer that sends two bytes stops every later connection
 * and the server's shutdown (doc/security.md).
 *
 * So the server listens itself. Each accepted connection is screened on a
 * thread of its own: a peer that has sent nothing is handed over at once
 * (RFB clients wait for the server to speak); one that has sent 1-3 bytes
 * gets screen_ms to send a fourth, or is closed; one that closes before
 * is closed. Good connections go to the handover callback one at a time
 * (LibVNCServer's rfbNewClient is not safe to run twice at once). A peer
 * can still time its bytes to land after the screening, inside the
 * library's peek: a handover still running after handover_ms has its
 * connection dissolved (connect with AF_UNSPEC on a duplicate of the
 * socket, which no other file can have taken), so the peek sees an error
 * and the library drops the client. WebSocket and TLS clients send 4 or
 * more bytes at once and pass.
 *
 * With an HTTP root, a request for a file is answered on the screening
 * thread (server/vg_http.h) and only WebSocket upgrades go on. On a port
 * shared with RFB a connection that stays silent for a second is taken
 * for an RFB client and greeted, so a browser that opens a connection
 * ahead of need and sends its request later meets RFB's greeting. A
 * listener for browsers only (http_only) greets nobody: a connection gets
 * idle_ms to send its request, and what is not HTTP (or TLS, with a TLS
 * context) is dropped.
 *
 * A gate, when given, runs next on the same thread (the server's TLS,
 * server/vg_tlsgate.h): a peer that stalls it holds only its own thread,
 * and the handover watches the socket the gate handed over.
 *
 * With an HTTP root and a TLS context, a browser may also come with TLS
 * (https://, wss://): a connection whose first byte is 0x16 (a TLS
 * handshake record; HTTP begins with a letter, RFB clients send nothing
 * first) gets the TLS handshake on the screening thread, within
 * screen_ms, then a bridge (capture/vg_tls.h) whose plain end is served
 * like a plain connection: files answered, a WebSocket upgrade handed
 * over, past the gate (it is encrypted already), with the network peer's
 * address. Inside TLS only HTTP is taken. With tls_required, plain HTTP
 * requests, WebSocket upgrades included, are refused (403, saying to use
 * https://): a page never reaches the server unencrypted.
 */
#ifndef VG_LISTENER_H
#define VG_LISTENER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/vg_tls.h"

typedef struct vg_listener vg_listener;

/* Called on one screening thread at a time with a connected socket,
 * which it owns from then on (it closes it when done with it), and the
 * peer's numeric address (valid during the call). A wss:// upgrade comes
 * as the plain end of its TLS bridge (a socketpair, request head still
 * queued; the bridge runs until it is closed or the peer goes), and so
 * does what a gate bridges. Then path_fd is a duplicate of the network
 * socket behind the bridge, for what only it can tell (TCP_INFO: the
 * round trip, the rate); the callee owns it and closes it. It does not
 * keep the connection up: the bridge shuts the socket down when it ends.
 * Otherwise path_fd is -1 and fd is the network socket itself. */
typedef void (*vg_listener_handover_cb)(void *user, int fd, int path_fd, const char *peer);

/* A gate (optional): called on the screening thread, many at once, with
 * every connection that is not an HTTP request for a file, before its
 * handover. It may speak with the peer, and returns the socket to hand
 * over in fd's place (fd itself, or another it then owns along with fd),
 * or -1 to drop the connection (it has closed fd). For every socket it
 * returned, gate_done_cb gets its *state on the same thread after the
 * handover (handed: whether it took place; if not, the listener closes
 * the returned socket), outside the handover's one-at-a-time lock and
 * free of handover_ms: it keeps its own deadline, and is cut only when
 * the listener stops. */
typedef int (*vg_listener_gate_cb)(void *user, int fd, const char *peer, void **state);
typedef void (*vg_listener_gate_done_cb)(void *user, void *state, int handed);

typedef struct {
	in_addr_t addr;           /* address to listen on (network order) */
	int port;                 /* 0: the first free port from 5900 on */
	int screen_ms;            /* time for a peer with 1-3 bytes to send more; 0: 2000 */
	int handover_ms;          /* longest handover before the connection is cut; 0: 3000 */
	int max_pending;          /* connections being screened at once; 0: 64 */
	const char *const *http_roots; /* answer HTTP requests with files from
				   * these directories (NULL-terminated, looked
				   * in in order; server/vg_http.h); NULL: every
				   * connection goes to the handover callback */
	vg_tls_ctx *tls;          /* with http_roots: serve https:// and wss://
				   * too, with this context (the caller's; it
				   * outlives the listener); NULL: no TLS */
	bool tls_required;        /* with tls: refuse plain HTTP and ws:// */
	bool http_only;           /* with http_roots: browsers only, no RFB
				   * (a port of their own) */
	int idle_ms;              /* with http_only: how long a connection may
				   * be silent before its request; 0: 10000 */
	vg_listener_handover_cb handover_cb;
	vg_listener_gate_cb gate_cb;          /* NULL: no gate */
	vg_listener_gate_done_cb gate_done_cb; /* with gate_cb */
	void *user;
} vg_listener_config;

typedef struct {
	uint64_t accepted;        /* connections accepted */
	uint64_t handed_over;     /* of which passed to the handover callback */
	uint64_t dropped;         /* closed by the screening or the gate (or over max_pending) */
	uint64_t cut;             /* handovers cut after handover_ms */
	uint64_t http_answered;   /* HTTP requests answered (with http_root) */
	uint64_t tls_accepted;    /* TLS handshakes that succeeded (with tls) */
	uint64_t tls_failed;      /* and those that failed or timed out */
} vg_listener_stats;

/* Binds and listens; accepts nothing before vg_listener_start. Errors:
 * VG_EIO (the port, or with port 0 every port up to 6099, is taken).
 * Free with vg_listener_free. */
int vg_listener_new(const vg_listener_config *cfg, vg_listener **out);

/* Starts accepting on a thread of its own. VG_EIO if it cannot start. */
int vg_listener_start(vg_listener *l);

/* The port it listens on. */
int vg_listener_port(const vg_listener *l);

void vg_listener_stats_get(vg_listener *l, vg_listener_stats *out);

/* Stops accepting, cuts every handover in progress, waits (at most a few
 * seconds) for the screening threads and frees l. NULL is fine. */
void vg_listener_free(vg_listener *l);

#endif
