// Varg in the browser: the viewer side of the protocol, compiled to
// WebAssembly (viewer/web/vg_webviewer.c over fingerprint/proto/vg_receiver.c),
// plugged into noVNC's RFB client as the decoder of the Varg encoding.
//
// noVNC reads each rectangle's header; for the Varg encoding this decoder
// reads the body (a u32 length, then the message), hands it to the
// receiver, which draws into its framebuffer, checks the SHA-1 groups and
// answers (VIEWER HELLO, REPAIR) as varg-viewer does; the rectangle is
// then copied onto noVNC's canvas and the answers sent on noVNC's socket.
// The segment cache lives in the module's file system under /varg-cache,
// kept in IndexedDB (IDBFS): a page reloaded later starts warm.

import createVargModule from './varg-wasm.js';

export const VARG_ENCODING = 0x56415247;
const CACHE_DIR = '/varg-cache';
// noVNC's send queue holds 10 KiB: longer answers go in pieces.
const SEND_PIECE = 8192;

// How long the cache may take to load from IndexedDB before the page
// goes on without it: a store that a closing browser or another tab
// still holds can keep IndexedDB from answering at all.
const CACHE_LOAD_MS = 5000;

// Loads the module and its cache from IndexedDB. persistent: keep the
// cache across page loads (false: memory only, as --no-persistent-cache).
// A store that cannot be read, or not in time, costs the cache, not
// Varg: mod.vargPersistent then says false, and the cache lives in memory.
export async function loadVarg(persistent) {
    const mod = await createVargModule();
    mod.vargPersistent = false;
    if (persistent) {
        mod.FS.mkdir(CACHE_DIR);
        try {
            mod.FS.mount(mod.IDBFS, {}, CACHE_DIR);
            await Promise.race([syncCache(mod, true), new Promise((_, reject) =>
                setTimeout(() => reject(new Error('no answer in ' + CACHE_LOAD_MS + ' ms')),
                           CACHE_LOAD_MS))]);
            mod.vargPersistent = true;
        } catch (e) {
            console.log('Varg: cache not loaded from IndexedDB (' + e + '); keeping it in memory');
        }
    }
    return mod;
}

// Copies the module's cache files to IndexedDB (toDisk false: the other
// way, at load).
function syncCache(mod, fromDisk) {
    return new Promise((resolve, reject) =>
        mod.FS.syncfs(fromDisk, err => (err ? reject(err) : resolve())));
}

export class VargDecoder {
    // rfb: noVNC's RFB object (for the framebuffer size and the socket);
    // the decoder opens the receiver at the first Varg rectangle.
    // requests: update requests kept in flight, 1..8, as varg-viewer
    // --requests (doc/protocol.md, "Update credits").
    constructor(mod, rfb, persistent, cacheMB, requests) {
        this._mod = mod;
        this._rfb = rfb;
        this._persistent = persistent;
        this._cacheMB = cacheMB;
        this._requests = Math.min(8, Math.max(1, requests || 3));
        this._open = false;
        this._credited = false;
        this._dirty = false;
        this._syncing = null;
        this.bytes = 0;          // Varg bodies and their headers received
        this.rects = 0;
        this.decodeMs = 0;       // time spent in the receiver
        this.error = null;
    }

    decodeRect(x, y, width, height, sock, display) {
        const mod = this._mod;

        if (sock.rQwait('Varg length', 4))
            return false;
        const head = sock.rQslice(0, 4);
        const len = ((head[0] << 24) | (head[1] << 16) | (head[2] << 8) | head[3]) >>> 0;
        if (sock.rQwait('Varg body', 4 + len))
            return false;
        if (!this._open)
            this._openReceiver();
        sock.rQskipBytes(4);
        // The buffer may grow the module's memory: take HEAPU8 after it.
        const at = mod._vgw_buffer(len);
        sock.rQshiftTo(mod.HEAPU8.subarray(at, at + len), len);
        const t0 = performance.now();
        const err = mod._vgw_handle(len, x, y, width, height);
        this.decodeMs += performance.now() - t0;
        this.bytes += 12 + 4 + len;
        this.rects++;
        if (err < 0) {
            this.error = mod.UTF8ToString(mod._vgw_error());
            throw new Error('Varg: ' + this.error);
        }
        this._sendReplies(sock);
        if (!this._credited)
            this._addCredits(sock);
        if (width > 0 && height > 0) {
            const rgba = mod._vgw_rgba();
            const pixels = mod.HEAPU8.subarray(rgba, rgba + width * height * 4);
            // Drawn at once from the module's memory; a queued image is
            // kept for later, and noVNC 1.3 copies it from its buffer's
            // start, so it gets a buffer of its own.
            display.blitImage(x, y, width, height,
                              display.pending() ? pixels.slice() : pixels, 0);
            this._dirty = true;
        }
        return true;
    }

    _openReceiver() {
        const err = this._mod._vgw_open(this._rfb._fbWidth, this._rfb._fbHeight,
                                        this._persistent ? 1 : 0, this._cacheMB);
        if (err < 0)
            throw new Error('Varg: cannot open the receiver (' + err + ')');
        this._open = true;
    }

    // noVNC keeps one request in flight, sending the next after each
    // update; after the HELLO and its answer the rest are added once, so
    // that updates follow each other without a round trip between them.
    _addCredits(sock) {
        const w = this._rfb._fbWidth, h = this._rfb._fbHeight;
        const req = new Uint8Array([3, 1, 0, 0, 0, 0, w >> 8, w & 255, h >> 8, h & 255]);

        this._credited = true;
        for (let i = 1; i < this._requests; i++)
            sock.send(req);
    }

    _sendReplies(sock) {
        const mod = this._mod;
        const n = mod._vgw_reply_len();

        if (n === 0)
            return;
        const at = mod._vgw_reply();
        const bytes = mod.HEAPU8.slice(at, at + n);
        mod._vgw_reply_clear();
        for (let i = 0; i < n; i += SEND_PIECE)
            sock.send(bytes.subarray(i, Math.min(n, i + SEND_PIECE)));
    }

    // A desktop-size change: the receiver's framebuffer follows.
    resize(width, height) {
        if (this._open)
            this._mod._vgw_resize(width, height);
    }

    stats() {
        const s = { bytes: this.bytes, rects: this.rects,
                    decode_ms: Math.round(this.decodeMs * 10) / 10 };
        if (this._open) {
            for (const name of ['updates', 'segments', 'literal_segments', 'cache_hits',
                                'cache_misses', 'repeats', 'checks', 'check_failures',
                                'repairs_sent', 'cache_entries', 'persistent'])
                s[name] = this._mod.ccall('vgw_stat', 'number', ['string'], [name]);
        }
        return s;
    }

    // Empties the cache, here and in IndexedDB; the cache takes a new
    // identity, so the server believes nothing of it (as varg-viewer
    // --clear-cache). Only while connected: the cache opens at the HELLO.
    async clearCache() {
        if (!this._open)
            return false;
        this._mod._vgw_clear_cache();
        this._dirty = true;
        await this._syncing;
        await this.save();
        return true;
    }

    // Saves what changed in the cache to IndexedDB; one save at a time.
    async save() {
        if (!this._persistent || !this._dirty || this._syncing)
            return this._syncing;
        this._dirty = false;
        this._syncing = syncCache(this._mod, false).finally(() => { this._syncing = null; });
        return this._syncing;
    }

    // Ends the session: the receiver writes its cache and history, which
    // then go to IndexedDB.
    async close() {
        if (this._open) {
            this._mod._vgw_close();
            this._open = false;
            this._dirty = true;
        }
        await this._syncing;
        await this.save();
    }
}

// The pixel format Varg asks for: 32 bits, depth 24, little-endian, red
// at bit 16, as the server's own frame (doc/protocol.md). noVNC asks for
// red at bit 0; its own decoders are not used once Varg is spoken, but a
// cursor shape still comes in this format, so it is swapped back.
export function useVargPixelFormat(RFB, rfb) {
    RFB.messages.pixelFormat = (sock) => {
        const msg = new Uint8Array(20);
        msg.set([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0]);
        sock.send(msg);
    };
    const updateCursor = rfb._updateCursor.bind(rfb);
    rfb._updateCursor = (rgba, hotx, hoty, w, h) => {
        for (let i = 0; i + 3 < rgba.length; i += 4) {
            const r = rgba[i];
            rgba[i] = rgba[i + 2];
            rgba[i + 2] = r;
        }
        updateCursor(rgba, hotx, hoty, w, h);
    };
}
