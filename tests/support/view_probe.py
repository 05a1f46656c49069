#!/usr/bin/env python3
"""Hostile requests against a running `strata view` (docs/VIEWER.md, "Safe by default").

    view_probe.py HOST PORT

Each case sends what a hostile or broken client would and checks the status the server answers
and that it goes on serving: traversal in every encoding, a symbolic link or FIFO among the
files, an oversized header, a body, other methods, a malformed request, a foreign Host header,
a thousand idle connections, a slow client, a request flood on one connection and on many.
Prints a line per case; exit 0 when all held, 1 otherwise.
"""
import resource
import socket
import sys
import threading
import time

HOST, PORT = sys.argv[1], int(sys.argv[2])
problems = []


def raw(request: bytes, timeout=10.0):
    """The server's whole answer to one request on a fresh connection (it closes, or times out)."""
    with socket.create_connection((HOST, PORT), timeout=timeout) as s:
        try:
            s.sendall(request)
            s.shutdown(socket.SHUT_WR)
        except OSError:  # the server answered and closed before it had all of it
            pass
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return data


def status_of(answer: bytes):
    try:
        return int(answer.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def get(path, headers=b""):
    return raw(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n" % PORT + headers + b"\r\n")


def expect(name, answer, statuses):
    status = status_of(answer)
    ok = status in statuses and b"root:x:0" not in answer
    print(f"{'ok' if ok else 'FAIL'} {name}: {status}")
    if not ok:
        problems.append(f"{name}: status {status}, expected {statuses}: {answer[:200]!r}")


def alive(name):
    expect(f"{name}: then a plain request is served", get(b"/api/studies"), {200})


# Traversal, in every encoding a path can carry it.
for path in [b"/../../../../etc/passwd", b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd", b"/..%2f..%2f..%2fetc%2fpasswd",
             b"/%252e%252e%252f%252e%252e%252fetc%252fpasswd", b"/api/studies/0/../../../../etc/passwd",
             b"/api/studies/../../etc/passwd", b"//etc/passwd", b"/api/studies/0/observations/..%2f..%2f..%2fetc%2fpasswd",
             b"/api/studies/%2e%2e/observations", b"/.%00./etc/passwd", b"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
             b"/api/studies/0/observations/0/../../../../../../etc/passwd", b"/app.js/../../etc/passwd",
             b"/api/studies/99999999999999999999999/observations", b"/api/studies/-1/observations/0",
             b"/api/studies/0/observations/18446744073709551616"]:
    expect(f"traversal {path.decode()}", get(path), {400, 404})

# A request that is not a GET, or not well formed, or too large.
expect("POST", raw(b"POST /api/studies HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 0\r\n\r\n" % PORT), {405})
expect("DELETE", raw(b"DELETE / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % PORT), {405})
expect("a body", raw(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 10\r\n\r\n0123456789" % PORT), {413})
expect("garbage", raw(b"GARBAGE\x00\x01 not http\r\n\r\n"), {400})
expect("an absurd version", raw(b"GET / HTTP/9.7\r\nHost: x\r\n\r\n"), {400, 421, 505})
expect("a 20 kB header", get(b"/", b"X-Big: " + b"a" * 20000 + b"\r\n"), {431})
expect("a thousand headers", get(b"/", b"".join(b"X-%d: y\r\n" % i for i in range(1000))), {431})
expect("a foreign Host", raw(b"GET /api/studies HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"), {421})
expect("no Host", raw(b"GET /api/studies HTTP/1.1\r\nConnection: close\r\n\r\n"), {421})
alive("after the malformed requests")

# A thousand idle connections: the server keeps its bound (closing the oldest idle ones) and serves.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
idle = []
for _ in range(1000):
    try:
        idle.append(socket.create_connection((HOST, PORT), timeout=5))
    except OSError as e:
        problems.append(f"idle connection {len(idle)}: {e}")
        break
t0 = time.monotonic()
expect("a request beside 1000 idle connections", get(b"/api/studies"), {200})
print(f"   (answered in {time.monotonic() - t0:.2f} s)")
closed = 0
for s in idle:
    s.settimeout(0.01)
    try:
        if s.recv(1) == b"":
            closed += 1
    except (socket.timeout, BlockingIOError):
        pass
    except OSError:
        closed += 1
    s.close()
print(f"ok the server closed {closed} of the 1000 idle connections to stay within its bound")
if closed < 800:
    problems.append(f"only {closed} of 1000 idle connections were closed: the bound is not held")

# A slow client: a byte every half second never makes a request; it is cut off, others are served.
slow = {"closed_after": None, "sent": 0}
SLOW_REQUEST = b"GET /api/studies HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"z" * 200


def slow_client():
    s = socket.create_connection((HOST, PORT))
    start = time.monotonic()
    try:
        for byte in SLOW_REQUEST:
            s.sendall(bytes([byte]))
            slow["sent"] += 1
            time.sleep(0.5)
    except OSError:
        pass
    slow["closed_after"] = time.monotonic() - start
    s.close()


slow_thread = threading.Thread(target=slow_client)
slow_thread.start()

# A flood on one connection: requests as fast as the answers come, beyond the rate; the one past
# it is refused with 429 and the connection closed; the server goes on.
def flood_one_connection(count):
    served = refused = 0
    with socket.create_connection((HOST, PORT), timeout=10) as s:
        reader = s.makefile("rb")
        for _ in range(count):
            try:
                s.sendall(b"GET /app.css HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % PORT)
                status = status_of(reader.readline())
            except OSError:
                break
            if status is None:
                break
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            reader.read(length)
            served += status == 200
            refused += status == 429
            if status != 200:
                break
    return served, refused


served, refused = flood_one_connection(1000)
print(f"{'ok' if refused == 1 and served < 1000 else 'FAIL'} a flood of 1000 on one connection: {served} served, {refused} refused, then closed")
if refused != 1 or served >= 1000:
    problems.append(f"flood on one connection: {served} served, {refused} refused")

# A flood on many connections at once.
statuses = []


def flooder():
    for _ in range(20):
        try:
            statuses.append(status_of(get(b"/api/studies")))
        except OSError:
            statuses.append(None)


threads = [threading.Thread(target=flooder) for _ in range(30)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"ok 600 requests from 30 clients at once: {statuses.count(200)} served, {len(statuses) - statuses.count(200)} not")
alive("after the floods")

slow_thread.join()
# Cut off before it could finish its request (it would take 115 s), whatever the machine's load.
if slow["sent"] >= len(SLOW_REQUEST):
    problems.append(f"the slow client was not cut off (it sent its {slow['sent']} bytes in {slow['closed_after']:.1f} s)")
else:
    print(f"ok a slow client cut off after {slow['sent']} of {len(SLOW_REQUEST)} bytes, {slow['closed_after']:.1f} s")

for p in problems:
    print(f"view_probe: {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
