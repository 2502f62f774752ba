#!/usr/bin/env python3
"""HTTP clients good and bad for tests/e2e/test_serve_http.sh, against 127.0.0.1 only.

Each subcommand prints one line of results, key=value, and exits 0; the shell test
judges them. Every loop is bounded in count and time.
  garbage PORT           bytes that are no HTTP: the status line answered, or "closed"
  huge PORT BYTES        a GET with a header of BYTES: the status, or "closed"
  methods PORT           POST, PUT, HEAD, /, /nope: their statuses (and HEAD's body size)
  slow PORT N SECS       N clients dribbling a request a byte at a time for SECS while
                         scrapes go on: scrapes ok, the slowest scrape, clients cut off
  storm PORT N           N connections at once, each sending a GET: 200s, refused, hung
  scrapes PORT N         N scrapes over one keep-alive connection: ok, bytes of the last
  loris PORT N SECS GAP  N clients sending one byte of a request every GAP seconds for
                         SECS, a scrape every half second meanwhile (3 s to answer):
                         scrapes, scrapes ok, the slowest, when the server cut the last
                         client (-1: some never were)
  overlimit PORT N       N idle connections, then one more at once: closed how soon (or
                         "hung" after 3 s); half a second later a scrape: its status
"""
import http.client
import resource
import selectors
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


def status_of(sock, timeout=5.0):
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionError):
        pass
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    return line.split(" ")[1] if line.startswith("HTTP/") else "closed"


def one_shot(port, payload):
    with socket.create_connection((HOST, port), timeout=5) as s:
        try:
            s.sendall(payload)
        except ConnectionError:
            return "closed"
        return status_of(s)


def garbage(port):
    print("status=" + one_shot(port, b"\x00\xff\x13GARBAGE \x7f\r\n\x01\x02\r\n\r\n"))


def huge(port, size):
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\n\r\n"
    print("status=" + one_shot(port, req))


def request(port, method, path, timeout=5):
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    c.request(method, path, body=b"x" if method in ("POST", "PUT") else None)
    r = c.getresponse()
    body = r.read()
    allow = r.getheader("Allow") or ""
    c.close()
    return r.status, len(body), allow


def methods(port):
    out = []
    for method, path in (("POST", "/metrics"), ("PUT", "/metrics"), ("HEAD", "/metrics"),
                         ("GET", "/"), ("GET", "/nope")):
        status, size, allow = request(port, method, path)
        out.append(f"{method}{path}={status}")
        if method == "HEAD":
            out.append(f"head_body={size}")
        if method == "POST":
            out.append("allow=" + allow.replace(" ", ""))
    print(" ".join(out))


def scrape_once(port):
    t0 = time.monotonic()
    status, _, _ = request(port, "GET", "/metrics")
    return status, time.monotonic() - t0


def dribble(socks, byte, cut, t0):
    """One byte more of a request on each client not cut yet; when each was, into cut."""
    for i, s in enumerate(socks):
        if i in cut:
            continue
        try:
            s.send(byte)
        except OSError:
            cut[i] = time.monotonic() - t0


def slow(port, n, secs):
    socks = []
    for _ in range(n):
        socks.append(socket.create_connection((HOST, port), timeout=5))
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 10000
    end = time.monotonic() + secs
    ok = 0
    worst = 0.0
    pos = 0
    cut = {}
    while time.monotonic() < end:
        dribble(socks, req[pos:pos + 1], cut, end)
        pos += 1
        status, took = scrape_once(port)
        ok += status == 200
        worst = max(worst, took)
        time.sleep(0.2)
    for s in socks:
        s.close()
    print(f"scrapes_ok={ok} slowest_ms={int(worst * 1000)} clients_cut={len(cut)}")


def storm(port, n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, n + 256)), hard))
    sel = selectors.DefaultSelector()
    socks = []
    refused = 0
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect((HOST, port))
        except BlockingIOError:
            pass
        except OSError:
            refused += 1
            s.close()
            continue
        socks.append(s)
        sel.register(s, selectors.EVENT_WRITE, b"")
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    got200 = closed = 0
    end = time.monotonic() + 30
    while sel.get_map() and time.monotonic() < end:
        for key, ev in sel.select(timeout=1):
            s = key.fileobj
            if ev & selectors.EVENT_WRITE:
                try:
                    s.send(req)
                    sel.modify(s, selectors.EVENT_READ, b"")
                except OSError:
                    closed += 1
                    sel.unregister(s)
                    s.close()
                continue
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            data = key.data + chunk
            if chunk:
                sel.modify(s, selectors.EVENT_READ, data)
                continue
            if data.startswith(b"HTTP/1.1 200"):
                got200 += 1
            else:
                closed += 1
            sel.unregister(s)
            s.close()
    hung = len(sel.get_map())
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    print(f"ok={got200} refused={refused + closed} hung={hung}")


def scrapes(port, n):
    c = http.client.HTTPConnection(HOST, port, timeout=10)
    ok = 0
    size = 0
    for _ in range(n):
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read()
        ok += r.status == 200
        size = len(body)
        if r.getheader("Connection", "").lower() == "close":
            c.close()
            c = http.client.HTTPConnection(HOST, port, timeout=10)
    c.close()
    print(f"ok={ok} bytes={size}")


def scrape_within(port, timeout):
    t0 = time.monotonic()
    try:
        status, _, _ = request(port, "GET", "/metrics", timeout)
    except (OSError, http.client.HTTPException):
        status = 0
    return status, time.monotonic() - t0


def loris(port, n, secs, gap):
    t0 = time.monotonic()
    socks = [socket.create_connection((HOST, port), timeout=5) for _ in range(n)]
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 10000
    cut_at = {}
    pos = 0
    next_byte = t0
    scrapes = ok = 0
    worst = 0.0
    while time.monotonic() < t0 + secs:
        if time.monotonic() >= next_byte:
            dribble(socks, req[pos:pos + 1], cut_at, t0)
            pos += 1
            next_byte += gap
        # A client the server closed reads EOF (or a reset) at once.
        for i, s in enumerate(socks):
            if i in cut_at:
                continue
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    cut_at[i] = time.monotonic() - t0
            except BlockingIOError:
                pass
            except OSError:
                cut_at[i] = time.monotonic() - t0
            s.setblocking(True)
        if time.monotonic() - t0 >= 1:
            status, took = scrape_within(port, 3)
            scrapes += 1
            ok += status == 200
            worst = max(worst, took)
        time.sleep(0.5)
    for s in socks:
        s.close()
    last = max(cut_at.values()) if len(cut_at) == n else -1
    print(f"scrapes={scrapes} scrapes_ok={ok} slowest_ms={int(worst * 1000)} "
          f"cut={len(cut_at)} last_cut_s={last:.1f}")


def overlimit(port, n):
    socks = [socket.create_connection((HOST, port), timeout=5) for _ in range(n)]
    t0 = time.monotonic()
    extra = socket.create_connection((HOST, port), timeout=5)
    extra.settimeout(3)
    try:
        got = extra.recv(1)
        fate = "closed" if got == b"" else "answered"
    except socket.timeout:
        fate = "hung"
    except OSError:
        fate = "closed"
    took = time.monotonic() - t0
    extra.close()
    time.sleep(0.6)
    status, _ = scrape_within(port, 3)
    for s in socks:
        s.close()
    print(f"extra={fate} extra_ms={int(took * 1000)} scrape={status}")


def main():
    cmd, port, *rest = sys.argv[1:]
    port = int(port)
    if cmd == "garbage":
        garbage(port)
    elif cmd == "huge":
        huge(port, int(rest[0]))
    elif cmd == "methods":
        methods(port)
    elif cmd == "slow":
        slow(port, int(rest[0]), float(rest[1]))
    elif cmd == "storm":
        storm(port, int(rest[0]))
    elif cmd == "scrapes":
        scrapes(port, int(rest[0]))
    elif cmd == "loris":
        loris(port, int(rest[0]), float(rest[1]), float(rest[2]))
    elif cmd == "overlimit":
        overlimit(port, int(rest[0]))
    else:
        sys.exit(f"unknown subcommand {cmd}")


if __name__ == "__main__":
    main()
