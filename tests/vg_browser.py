#!/usr/bin/python3
"""Drives a headless Chromium through its DevTools protocol for the browser
tests: opens a page, waits until its canvas shows exactly a reference
image, presses keys, reads values from the page.

  vg_browser.py canvas URL REF.png OUT.png [--timeout S] [--status-js JS]
                 [--print-js JS] [--then JS]
      Waits until the page's first canvas holds REF.png's pixels; writes
      the canvas to OUT.png either way. Exit 0 when they matched, 1 when
      not within the timeout (the differing pixels are counted). Then
      prints the value of --print-js and runs --then, awaiting it.
  vg_browser.py eval URL JS [--timeout S] [--then JS2]
      Waits until JS (an expression) is truthy; then runs JS2 if given,
      awaits it and waits a second more. Prints JS's value. Exit 1 on
      timeout.
  vg_browser.py screenshot URL OUT.png --after-js JS [--timeout S] [--size WxH]
      Waits until JS is truthy, then saves a screenshot of the page.

Chromium is started for each call with a profile of its own (under
$VG_BROWSER_PROFILE if set, else a temporary directory) and stopped at
the end. Needs python3-websocket (websocket-client).
"""
import argparse
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

import websocket


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("vg_browser: no chromium on PATH (scripts/setup installs it)")


class Browser:
    def __init__(self, profile=None, width=1400, height=1000):
        self.own_profile = profile is None
        self.profile = profile or tempfile.mkdtemp(prefix="vg-chromium.")
        os.makedirs(self.profile, exist_ok=True)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        if os.path.exists(port_file):
            os.unlink(port_file)
        self.proc = subprocess.Popen(
            [chromium_binary(), "--headless=new", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-renderer-backgrounding",
             "--disable-background-timer-throttling", "--mute-audio",
             "--force-device-scale-factor=1", f"--window-size={width},{height}",
             "--remote-debugging-port=0", "--remote-allow-origins=*",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if self.proc.poll() is not None or time.time() > deadline:
                self.close()
                sys.exit("vg_browser: chromium did not start")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = []
        while not pages:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                pages = [p for p in json.load(r) if p.get("type") == "page"]
            if not pages:
                time.sleep(0.1)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"],
                                              timeout=60, suppress_origin=True)
        self.next_id = 0
        self.console = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if msg.get("method") == "Runtime.consoleAPICalled":
                args = msg["params"].get("args", [])
                self.console.append(" ".join(str(a.get("value", a.get("description", "")))
                                             for a in args))
            elif msg.get("method") == "Runtime.exceptionThrown":
                d = msg["params"].get("exceptionDetails", {})
                self.console.append("exception: " + d.get("exception", {}).get(
                    "description", d.get("text", "")))

    def evaluate(self, expr, await_promise=False):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=await_promise)
        if "exceptionDetails" in r:
            return None
        return r["result"].get("value")

    def open(self, url):
        self.call("Runtime.enable")
        self.call("Page.enable")
        self.call("Page.navigate", url=url)

    def wait_for(self, expr, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.evaluate(expr)
            if value:
                return value
            time.sleep(0.2)
        return None

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.own_profile:
            shutil.rmtree(self.profile, ignore_errors=True)


def read_png(path):
    """An 8-bit, non-interlaced PNG (grey, RGB, RGBA) as (w, h, RGB bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or ctype not in (0, 2, 6):
                raise ValueError(f"{path}: PNG kind not handled")
            bpp = {0: 1, 2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = bytearray(stride * h)
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    if bpp == 3:
        return w, h, bytes(out)
    rgb = bytearray(w * h * 3)
    for i in range(w * h):
        if bpp == 4:
            rgb[i * 3:i * 3 + 3] = out[i * 4:i * 4 + 3]
        else:
            rgb[i * 3:i * 3 + 3] = bytes([out[i]]) * 3
    return w, h, bytes(rgb)


def write_png(path, w, h, rgb):
    raw = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


# The page's first canvas as [width, height, base64 of its RGBA pixels].
CANVAS_JS = """(() => {
  const c = document.querySelector('canvas');
  if (!c || !c.width || !c.height) return null;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let s = '';
  for (let i = 0; i < d.length; i += 32768)
    s += String.fromCharCode.apply(null, d.subarray(i, i + 32768));
  return [c.width, c.height, btoa(s)];
})()"""


def canvas_rgb(browser):
    v = browser.evaluate(CANVAS_JS)
    if not v:
        return None
    w, h, b64 = v
    rgba = base64.b64decode(b64)
    rgb = bytearray(w * h * 3)
    rgb[0::3] = rgba[0::4]
    rgb[1::3] = rgba[1::4]
    rgb[2::3] = rgba[2::4]
    return w, h, bytes(rgb)


def cmd_canvas(args):
    rw, rh, ref = read_png(args.ref)
    b = Browser(os.environ.get("VG_BROWSER_PROFILE"))
    last = None
    try:
        b.open(args.url)
        deadline = time.time() + args.timeout
        while time.time() < deadline:
            last = canvas_rgb(b)
            if last and last[:2] == (rw, rh) and last[2] == ref:
                break
            time.sleep(0.5)
        status = b.evaluate(args.status_js) if args.status_js else None
        if args.print_js:
            value = b.evaluate(args.print_js)
            print(json.dumps(value))
            if value is None:
                b.evaluate("0")  # collects the console messages sent so far
                print("vg_browser: --print-js gave nothing; the page's console:\n  "
                      + "\n  ".join(b.console[-20:]), file=sys.stderr)
        if args.then:
            b.evaluate(args.then, await_promise=True)
    finally:
        b.close()
    if not last:
        print("vg_browser: the page never showed a canvas"
              + (f" (page says: {status})" if status else ""), file=sys.stderr)
        return 1
    write_png(args.out, *last)
    if last[:2] != (rw, rh):
        print(f"vg_browser: canvas {last[0]}x{last[1]}, reference {rw}x{rh}", file=sys.stderr)
        return 1
    diff = sum(1 for i in range(0, len(ref), 3) if ref[i:i + 3] != last[2][i:i + 3])
    if diff:
        print(f"vg_browser: {diff} of {rw * rh} pixels differ after {args.timeout} s"
              + (f" (page says: {status})" if status else ""), file=sys.stderr)
        return 1
    return 0


def cmd_eval(args):
    b = Browser(os.environ.get("VG_BROWSER_PROFILE"))
    try:
        b.open(args.url)
        value = b.wait_for(args.js, args.timeout)
        if value and args.then:
            b.evaluate(args.then, await_promise=True)
            time.sleep(1)
        status = b.evaluate("window.varg && varg.status()")
    finally:
        b.close()
    if not value:
        print(f"vg_browser: '{args.js}' not true within {args.timeout} s"
              + (f" (page says: {status})" if status else "")
              + "; the page's console:\n  " + "\n  ".join(b.console[-20:]), file=sys.stderr)
        return 1
    print(value if isinstance(value, str) else json.dumps(value))
    return 0


def cmd_screenshot(args):
    w, h = (int(v) for v in args.size.split("x"))
    b = Browser(os.environ.get("VG_BROWSER_PROFILE"), w, h)
    try:
        b.open(args.url)
        if not b.wait_for(args.after_js, args.timeout):
            print(f"vg_browser: '{args.after_js}' not true within {args.timeout} s", file=sys.stderr)
            return 1
        time.sleep(1)
        shot = b.call("Page.captureScreenshot", format="png")
    finally:
        b.close()
    with open(args.out, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("canvas")
    c.add_argument("url")
    c.add_argument("ref")
    c.add_argument("out")
    c.add_argument("--timeout", type=float, default=60)
    c.add_argument("--status-js", help="an expression whose value is reported on failure")
    c.add_argument("--print-js", help="an expression whose value is printed (JSON) at the end")
    c.add_argument("--then", help="an expression run (and awaited) at the end")
    e = sub.add_parser("eval")
    e.add_argument("url")
    e.add_argument("js")
    e.add_argument("--timeout", type=float, default=30)
    e.add_argument("--then")
    s = sub.add_parser("screenshot")
    s.add_argument("url")
    s.add_argument("out")
    s.add_argument("--after-js", required=True)
    s.add_argument("--timeout", type=float, default=30)
    s.add_argument("--size", default="1400x1000", help="the window, WIDTHxHEIGHT")
    args = ap.parse_args()
    return {"canvas": cmd_canvas, "eval": cmd_eval, "screenshot": cmd_screenshot}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
