#!/usr/bin/env python3
"""Test helper: a VeNCrypt client and relays, for the TLS tests.

  vg_tlsprobe.py connect PORT [--ca FILE] [--count N] [--stall S]
      N clients at once (default 1): RFB 3.8, VeNCrypt 0.2, the server's
      X509 subtype, the TLS handshake (verified against FILE, name
      127.0.0.1, when given), then the first message of the inner
      security type (VncAuth's challenge or None's SecurityResult).
      Prints "ok N SUBTYPE PROTOCOL" or "failed N: WHY". With --stall,
      stops after the start-TLS byte and holds the socket S seconds.
  vg_tlsprobe.py negotiate-proxy LISTEN PORT
      For one connection on LISTEN: does the VeNCrypt negotiation with
      the server at PORT, then relays bytes as they are, so that a TLS
      client (openssl s_client) does the handshake itself.
  vg_tlsprobe.py record LISTEN PORT FILE
      Relays connections on LISTEN to PORT, writing each one's bytes
      from the server to FILE.N; prints "port LISTEN" once listening.
  vg_tlsprobe.py time HOST PORT [--tls]
      Milliseconds from connect to the ServerInit of a server without a
      password: security type None, or with --tls VeNCrypt X509None and
      the TLS handshake (not verified: this times, it does not trust).
"""
import socket
import ssl
import sys
import threading
import time


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("server closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def negotiate(s):
    """RFB 3.8 and VeNCrypt up to the start-TLS byte; returns the subtype."""
    version = read_exact(s, 12)
    if not version.startswith(b"RFB 003."):
        raise ValueError("not RFB: %r" % version)
    s.sendall(b"RFB 003.008\n")
    n = read_exact(s, 1)[0]
    if n == 0:
        length = int.from_bytes(read_exact(s, 4), "big")
        raise ValueError("refused: %s" % read_exact(s, length).decode("latin-1"))
    types = read_exact(s, n)
    if 19 not in types:
        raise ValueError("no VeNCrypt in %s" % list(types))
    s.sendall(bytes([19]))
    if read_exact(s, 2) != b"\x00\x02":
        raise ValueError("not VeNCrypt 0.2")
    s.sendall(b"\x00\x02")
    if read_exact(s, 1) != b"\x00":
        raise ValueError("VeNCrypt 0.2 refused")
    m = read_exact(s, 1)[0]
    subs = [int.from_bytes(read_exact(s, 4), "big") for _ in range(m)]
    sub = next((x for x in subs if x in (260, 261)), None)
    if sub is None:
        raise ValueError("no X509 subtype in %s" % subs)
    s.sendall(sub.to_bytes(4, "big"))
    if read_exact(s, 1) != b"\x01":
        raise ValueError("subtype refused")
    return sub


def one_client(port, ca, stall, results, i):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        sub = negotiate(s)
        if stall:
            time.sleep(stall)
            s.close()
            results[i] = "stalled"
            return
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if ca:
            ctx.load_verify_locations(ca)
        else:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        t = ctx.wrap_socket(s, server_hostname="127.0.0.1")
        first = read_exact(t, 16 if sub == 261 else 4)
        if sub == 260 and first != b"\x00\x00\x00\x00":
            raise ValueError("SecurityResult %r" % first)
        results[i] = "ok %d %s" % (sub, t.version())
        t.close()
    except Exception as e:  # noqa: BLE001 - the reason is the result
        results[i] = "failed: %s" % e


def connect(args):
    port = int(args[0])
    ca, count, stall = None, 1, 0.0
    rest = args[1:]
    while rest:
        opt, val, rest = rest[0], rest[1], rest[2:]
        if opt == "--ca":
            ca = val
        elif opt == "--count":
            count = int(val)
        elif opt == "--stall":
            stall = float(val)
        else:
            sys.exit("unknown option " + opt)
    results = [None] * count
    threads = [threading.Thread(target=one_client, args=(port, ca, stall, results, i)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = [r for r in results if not (r or "").startswith(("ok", "stalled"))]
    if bad:
        print("failed %d: %s" % (len(bad), bad[0]))
        return 1
    print("%s %d %s" % (results[0].split()[0], count, " ".join(results[0].split()[1:])))
    return 0


def pump(a, b, log=None):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            if log:
                log.write(data)
            b.sendall(data)
    except OSError:
        pass
    finally:
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        if log:
            log.close()


def listener(port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(16)
    print("port %d" % ls.getsockname()[1], flush=True)
    return ls


def negotiate_proxy(args):
    ls = listener(int(args[0]))
    c, _ = ls.accept()
    s = socket.create_connection(("127.0.0.1", int(args[1])))
    negotiate(s)
    t = threading.Thread(target=pump, args=(s, c))
    t.start()
    pump(c, s)
    t.join()
    return 0


def record(args):
    ls = listener(int(args[0]))
    n = 0
    while True:
        c, _ = ls.accept()
        s = socket.create_connection(("127.0.0.1", int(args[1])))
        n += 1
        log = open("%s.%d" % (args[2], n), "wb")
        threading.Thread(target=pump, args=(s, c, log), daemon=True).start()
        threading.Thread(target=pump, args=(c, s), daemon=True).start()


def time_to_init(args):
    host, port, tls = args[0], int(args[1]), "--tls" in args[2:]
    t0 = time.monotonic()
    s = socket.create_connection((host, port), timeout=60)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls:
        if negotiate(s) != 260:
            sys.exit("time: the server wants a password (X509Vnc)")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        s = ctx.wrap_socket(s, server_hostname=host)
    else:
        read_exact(s, 12)
        s.sendall(b"RFB 003.008\n")
        types = read_exact(s, read_exact(s, 1)[0])
        if 1 not in types:
            sys.exit("time: no security type None in %s" % list(types))
        s.sendall(b"\x01")
    if read_exact(s, 4) != b"\x00\x00\x00\x00":
        sys.exit("time: security refused")
    s.sendall(b"\x01")
    head = read_exact(s, 24)
    read_exact(s, int.from_bytes(head[20:24], "big"))
    print("%.1f" % ((time.monotonic() - t0) * 1000))
    s.close()
    return 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "connect":
        return connect(args)
    if cmd == "negotiate-proxy":
        return negotiate_proxy(args)
    if cmd == "record":
        return record(args)
    if cmd == "time":
        return time_to_init(args)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
