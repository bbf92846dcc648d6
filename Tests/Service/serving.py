"""Starting `docorient serve` for a test and reading what it reports (loopback only)."""

import http.client
import os
import re
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, "Corpus", "samples")
LARGE = os.path.join(SAMPLES, "0008_invoice.jpg")  # the largest committed sample
SMALL = os.path.join(SAMPLES, "0003_letter.jpg")


class Server:
    """`BINARY serve --port 0 ARGS` on 127.0.0.1 (BINARY: a docorient, the tests' `docorient` fixture);
    its stderr (the access log) goes to a file."""

    def __init__(self, binary, *args, log_path):
        self.log_path = log_path
        self.log = open(log_path, "w+")
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", *args], stderr=self.log, stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 120
        self.port = None
        while self.port is None and time.monotonic() < deadline and self.process.poll() is None:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(log_path).read())
            self.port = int(m.group(1)) if m else None
            time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise AssertionError(f"no listening line: {open(log_path).read()[-2000:]}")

    @property
    def pid(self):
        return self.process.pid

    def text(self):
        return open(self.log_path).read()

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()


def until(condition, what, seconds=60):
    """Waits for `condition()` to hold, polling; raises naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def metrics(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    return text


def gauge(text, name):
    m = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    return float(m.group(1)) if m else None


def counted(text, endpoint, status):
    m = re.search(
        rf'^docorient_http_requests_total\{{endpoint="{re.escape(endpoint)}",status="{status}"\}} (\S+)$',
        text,
        re.MULTILINE,
    )
    return float(m.group(1)) if m else 0.0


def server_errors(text):
    """Requests answered with a 5xx other than 503 (the OCR engines busy), by the metrics."""
    return sum(
        float(v)
        for v in re.findall(r'^docorient_http_requests_total\{[^}]*status="5(?!03)\d\d"\} (\S+)$', text, re.MULTILINE)
    )


def post(port, path, body, timeout=60, headers=None):
    """(status, body bytes, seconds) of one request on a new connection."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("POST", path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data, time.monotonic() - start


def memory_mib(pid):
    """(VmHWM, VmRSS) of the process in MiB."""
    fields = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
    return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmHWM", "VmRSS"))
