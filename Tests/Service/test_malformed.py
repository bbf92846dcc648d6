"""Malformed HTTP against `docorient serve` (the real binary, loopback): 50 requests of the kinds
a hostile or broken client sends (random bytes, bad or huge Content-Length, bad chunked
encoding, 100 KB request lines and headers, stalled heads and bodies). Each gets a 4xx or a
closed connection within the server's limits: never a 5xx, a crash or a connection left
hanging; afterwards the server answers normally.

Short limits (--header-timeout 2, --body-rate-window 2) keep the stalled kinds quick.

Run: python3 -m pytest -q Tests/Service/test_malformed.py   (after `swift build`)
"""

import random
import socket
import threading
import time

from serving import SMALL, Server, metrics, post, server_errors

H = b"Host: 127.0.0.1\r\n"
ORIENTATION = b"POST /v1/orientation HTTP/1.1"
FIX = b"POST /v1/fix HTTP/1.1"
HEALTH = b"GET /healthz HTTP/1.1"


def request(line, rest=b"\r\n"):
    """`line` (method, target, version), the Host header, then `rest`: more headers, the blank
    line and a body, or whatever breaks them."""
    return line + b"\r\n" + H + rest


def kinds():
    rng = random.Random(35)
    cases = {
        "negative content-length": request(ORIENTATION, b"Content-Length: -1\r\n\r\n"),
        "overflowing content-length": request(ORIENTATION, b"Content-Length: 99999999999999999999999\r\n\r\n"),
        "huge content-length": request(ORIENTATION, b"Content-Length: 1000000000000\r\n\r\nab"),
        "non-numeric content-length": request(FIX, b"Content-Length: 12abc\r\n\r\n"),
        "two content-lengths": request(ORIENTATION, b"Content-Length: 5\r\nContent-Length: 7\r\n\r\nhello"),
        "content-length and chunked": request(
            ORIENTATION, b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n"
        ),
        "bad chunk size": request(ORIENTATION, b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabcd\r\n0\r\n\r\n"),
        "chunk longer than declared": request(FIX, b"Transfer-Encoding: chunked\r\n\r\n2\r\nabcdefgh\r\n0\r\n\r\n"),
        "chunk size overflow": request(
            ORIENTATION, b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nab\r\n"
        ),
        "chunked without the last chunk": request(ORIENTATION, b"Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n"),
        "unknown transfer-encoding": request(ORIENTATION, b"Transfer-Encoding: gzip, rot13\r\n\r\nabcd"),
        "100 KB request line": request(b"GET /" + b"a" * 100_000 + b" HTTP/1.1"),
        "100 KB query": request(b"POST /v1/fix?mode=" + b"b" * 100_000 + b" HTTP/1.1", b"Content-Length: 0\r\n\r\n"),
        "100 KB header": request(HEALTH, b"X-Big: " + b"c" * 100_000 + b"\r\n\r\n"),
        "5,000 headers": request(HEALTH, b"".join(b"X-%d: v\r\n" % i for i in range(5000)) + b"\r\n"),
        "100 KB request id": request(HEALTH, b"X-Request-ID: " + b"d" * 100_000 + b"\r\n\r\n"),
        "unknown method": request(b"BREW /v1/orientation HTTP/1.1"),
        "HTTP/9.9": request(b"GET /healthz HTTP/9.9"),
        "no version": b"GET /healthz\r\n\r\n",
        "bare LF": b"GET /healthz HTTP/1.1\n" + H.replace(b"\r\n", b"\n") + b"\n",
        "NUL in header": request(HEALTH, b"X-A: a\x00b\r\n\r\n"),
        "space before colon": request(HEALTH, b"X-A : b\r\n\r\n"),
        "header without colon": request(HEALTH, b"nonsense\r\n\r\n"),
        "obsolete line folding": request(HEALTH, b"X-A: a\r\n b\r\n\r\n"),
        "non-UTF-8 path": request(b"GET /\xff\xfe HTTP/1.1"),
        "percent garbage in mode": request(b"POST /v1/fix?mode=%ZZ%00 HTTP/1.1", b"Content-Length: 3\r\n\r\nabc"),
        "mode bake-trim": request(b"POST /v1/fix?mode=bake-trim HTTP/1.1", b"Content-Length: 3\r\n\r\nabc"),
        "space inside the target": request(b"GET /heal thz HTTP/1.1"),
        "stalled head": request(ORIENTATION, b""),
        "stalled body": request(ORIENTATION, b"Content-Length: 5000\r\n\r\nab"),
        "expect 100-continue, too large": request(
            ORIENTATION, b"Expect: 100-continue\r\nContent-Length: 999999999999\r\n\r\n"
        ),
        "empty body": request(ORIENTATION, b"Content-Length: 0\r\n\r\n"),
        "not an image": request(ORIENTATION, b"Content-Length: 11\r\n\r\nhello world"),
        "truncated JPEG header": request(
            b"POST /v1/fix?mode=bake HTTP/1.1", b"Content-Length: 4\r\n\r\n\xff\xd8\xff\xe1"
        ),
    }
    for i in range(50 - len(cases)):
        cases[f"random bytes {i}"] = bytes(rng.randrange(256) for _ in range(rng.choice([1, 17, 300, 5000])))
    return cases


def exchange(port, data, seconds=20):
    """Sends data; returns (first status or None, whether the connection ended, seconds)."""
    start = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    received = b""
    ended = False
    try:
        sock.sendall(data)
        while time.monotonic() - start < seconds:
            chunk = sock.recv(65536)
            if not chunk:
                ended = True
                break
            received += chunk
            if b"\r\n\r\n" in received:
                break
    except (ConnectionResetError, BrokenPipeError):
        ended = True
    except TimeoutError:
        pass
    finally:
        sock.close()
    status = int(received.split(b" ")[1]) if received.startswith(b"HTTP/1.1 ") else None
    return status, ended, time.monotonic() - start


def test_fifty_malformed_requests_get_a_4xx_or_a_closed_connection_never_a_5xx(docorient, tmp_path):
    server = Server(docorient, "--header-timeout", "2", "--body-rate-window", "2", log_path=str(tmp_path / "serve.log"))
    try:
        cases = kinds()
        assert len(cases) == 50
        results = {}

        def run(name, data):
            results[name] = exchange(server.port, data)

        threads = [threading.Thread(target=run, args=item) for item in cases.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        print()
        for name in cases:
            status, ended, seconds = results[name]
            print(f"  {name:34s} {status or '-':>4} {'closed' if ended else 'open':6s} {seconds:5.1f} s")
        for name, (status, ended, seconds) in results.items():
            assert status is None or 400 <= status < 500, f"{name}: {status}"
            assert status is not None or ended, f"{name}: no answer and the connection left open"
            assert seconds < 15, f"{name}: took {seconds:.1f} s"
        assert server.process.poll() is None, "the server is still running"
        assert server_errors(metrics(server.port)) == 0
        status, body, _ = post(server.port, "/v1/orientation", open(SMALL, "rb").read())
        assert status == 200 and b'"verdict"' in body
    finally:
        server.stop()
