"""`docorient serve` under slow and idle clients, on the real binary over loopback (issue 35).

- 50 connections send the head of a 1 MB upload, then 1 byte a second; 300 connections open and
  send nothing; 5 connections send their headers a byte a second. Beside them, a normal client is
  answered 200 within 5 s; the trickling uploads are answered 408 and closed by the server (the
  default limits: at least 2 KiB/s over 10 s windows, headers within 10 s), well within 90 s; the
  server's peak RSS stays under 400 MB.
- SIGTERM with 10 slow uploads open (the rate limit off, so that only the shutdown grace ends them)
  and 6 requests queued or being decided: new connections are refused at once, the 6 get their
  200, the uploads are cut after --shutdown-grace, the process exits 0 within 35 s.
- A client that sends a request and never reads its answer is disconnected once the answer has
  filled the server's buffer for a whole rate window.

Every loop is bounded in time; the test fails rather than hangs.

Run: python3 -m pytest -q Tests/Service/test_slow_clients.py   (after `swift build`)
"""

import select
import signal
import socket
import threading
import time

import pytest
from serving import (
    LARGE,
    SMALL,
    Server,
    counted,
    gauge,
    memory_mib,
    metrics,
    post,
    server_errors,
    until,
)

UPLOAD_HEAD = (
    b"POST /v1/orientation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
    b"Content-Length: 1048576\r\n\r\n"
)


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setblocking(False)
    return sock


class Trickle:
    """Connections that each send `head` (all at once, or a byte a second with `slow_head`), then
    one body byte a second, until the server closes them or `seconds` pass."""

    def __init__(self, port, count, head, slow_head=False):
        self.socks = [connect(port) for _ in range(count)]
        self.pending = {s: (head if slow_head else b"") for s in self.socks}
        if not slow_head:
            for s in self.socks:
                s.sendall(head)
        self.closed_after = {}
        self.answers = {}
        self.start = time.monotonic()

    def tick(self):
        """Sends one byte on each open connection and notes the ones the server ended."""
        now = time.monotonic() - self.start
        for s in self.socks:
            if s in self.closed_after:
                continue
            readable, _, _ = select.select([s], [], [], 0)
            if readable:
                try:
                    data = s.recv(65536)
                except (ConnectionResetError, BlockingIOError):
                    data = b""
                if data:
                    self.answers[s] = self.answers.get(s, b"") + data
                    continue
                self.closed_after[s] = now
                continue
            rest = self.pending[s]
            byte, self.pending[s] = (rest[:1], rest[1:]) if rest else (b"x", b"")
            try:
                s.send(byte)
            except (BrokenPipeError, ConnectionResetError):
                self.closed_after[s] = now

    def run(self, seconds, until_all_closed=True):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.tick()
            if until_all_closed and len(self.closed_after) == len(self.socks):
                return
            time.sleep(1)

    def statuses(self):
        return sorted({int(a.split(b" ")[1]) for a in self.answers.values() if a.startswith(b"HTTP/1.1 ")})

    def close(self):
        for s in self.socks:
            s.close()


@pytest.fixture
def log_path(tmp_path):
    return str(tmp_path / "serve.log")


def test_trickling_and_idle_connections_neither_starve_a_normal_client_nor_stay_open(docorient, log_path):
    server = Server(docorient, log_path=log_path)
    try:
        idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(300)]
        uploads = Trickle(server.port, 50, UPLOAD_HEAD)
        heads = Trickle(server.port, 5, UPLOAD_HEAD, slow_head=True)
        for _ in range(3):
            uploads.tick()
            heads.tick()
            time.sleep(1)
        until(
            lambda: gauge(metrics(server.port), "docorient_http_uploads_in_progress") == 50,
            "the 50 uploads to be in progress",
            seconds=20,
        )

        status, body, seconds = post(server.port, "/v1/orientation", open(SMALL, "rb").read(), timeout=30)
        print(f"\nnormal request beside 50 trickling uploads and 300 idle connections: {status} in {seconds:.2f} s")
        assert status == 200 and b'"verdict"' in body
        assert seconds < 5

        # Both kinds of trickle go on together until the server has closed every one (90 s at most).
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and (len(uploads.closed_after) < 50 or len(heads.closed_after) < 5):
            uploads.tick()
            heads.tick()
            time.sleep(1)
        upload_times = sorted(uploads.closed_after.values())
        head_times = sorted(heads.closed_after.values())
        print(
            f"trickling uploads closed: {len(upload_times)}/50, after {upload_times[0]:.1f}-{upload_times[-1]:.1f} s;"
            f" slow heads closed: {len(head_times)}/5, after {head_times[0]:.1f}-{head_times[-1]:.1f} s"
        )
        assert len(upload_times) == 50 and upload_times[-1] < 90
        assert uploads.statuses() == [408], "the trickling uploads are answered 408"
        assert len(head_times) == 5 and head_times[-1] < 30
        assert heads.statuses() == [408]

        text = metrics(server.port)
        assert counted(text, "/v1/orientation", 408) == 50
        assert counted(text, "/v1/orientation", 503) == 0 and server_errors(text) == 0
        assert gauge(text, "docorient_http_uploads_in_progress") == 0
        peak, rss = memory_mib(server.pid)
        print(f"server peak RSS {peak:.1f} MiB (RSS now {rss:.1f} MiB)")
        assert peak < 400

        # The idle connections are still open (the idle limit is 75 s) and still usable.
        idle[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert idle[0].recv(4096).startswith(b"HTTP/1.1 200")
        for s in idle:
            s.close()
        uploads.close()
        heads.close()
        assert server.process.poll() is None
    finally:
        server.stop()


def test_sigterm_answers_the_requests_being_decided_cuts_slow_uploads_and_exits_0(docorient, log_path):
    # --body-min-rate 0: nothing but the shutdown grace ends the slow uploads.
    server = Server(docorient, "--body-min-rate", "0", "--shutdown-grace", "5", log_path=log_path)
    try:
        uploads = Trickle(server.port, 10, UPLOAD_HEAD)
        uploads.tick()
        until(
            lambda: gauge(metrics(server.port), "docorient_http_uploads_in_progress") == 10,
            "the 10 uploads to be in progress",
            seconds=20,
        )

        image = open(LARGE, "rb").read()
        answers = []

        def decide():
            try:
                answers.append(post(server.port, "/v1/orientation", image, timeout=60)[0])
            except OSError as error:
                answers.append(error)

        clients = [threading.Thread(target=decide) for _ in range(6)]
        for c in clients:
            c.start()
        # Six at the engines (two decided at once on two engines, the rest queued) when the signal comes.
        until(
            lambda: gauge(metrics(server.port), "docorient_http_requests_in_flight") >= 4,
            "requests at the engines",
            seconds=30,
        )
        start = time.monotonic()
        server.process.send_signal(signal.SIGTERM)

        def refused():
            try:
                socket.create_connection(("127.0.0.1", server.port), timeout=5).close()
                return False
            except ConnectionRefusedError:
                return True

        until(refused, "new connections to be refused", seconds=5)
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and server.process.poll() is None:
            uploads.tick()
            time.sleep(0.5)
        status = server.process.poll()
        seconds = time.monotonic() - start
        for c in clients:
            c.join(timeout=60)
        uploads.tick()
        print(
            f"\nSIGTERM with 10 slow uploads and {len(clients)} requests at the engines: exit {status} "
            f"after {seconds:.1f} s; answers {answers}; uploads cut {len(uploads.closed_after)}/10"
        )
        assert status == 0 and seconds < 35
        assert answers == [200] * 6, "every request at the engines gets its answer"
        assert len(uploads.closed_after) == 10
        uploads.close()
    finally:
        server.stop()


def test_a_client_that_does_not_read_its_answer_is_disconnected(docorient, log_path):
    server = Server(docorient, "--body-rate-window", "3", log_path=log_path)
    try:
        # The answer is the fixed image, as large as the upload: 7 MB (the invoice with 100 empty
        # APP15 segments), more than the kernel's socket buffers take on loopback (4 MB at most),
        # so that the rest waits in the server's memory while the client reads nothing.
        original = open(LARGE, "rb").read()
        padding = b"".join(b"\xff\xef\xff\xff" + bytes(65533) for _ in range(100))
        image = original[:2] + padding + original[2:]
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(
            b"POST /v1/fix?mode=tag HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % len(image) + image
        )
        start = time.monotonic()
        until(lambda: counted(metrics(server.port), "/v1/fix", 200) == 1, "the answer to be made", seconds=60)
        time.sleep(8)  # reads nothing for more than the 3 s window
        sock.settimeout(10)
        received = b""
        ended = False
        while time.monotonic() - start < 60:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                ended = True
                break
            except TimeoutError:
                break
            if not chunk:
                ended = True
                break
            received += chunk
        sock.close()
        print(f"\na client reading nothing got {len(received)} of about {len(image)} bytes, then the server closed")
        assert ended and len(received) < len(image), "the server closed the connection before the answer was read"
        status, _, _ = post(server.port, "/v1/orientation", open(SMALL, "rb").read())
        assert status == 200
    finally:
        server.stop()
