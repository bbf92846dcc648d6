#!/usr/bin/env python3
"""Load on `docorient serve`, beside `docorient fix` on the same files in the same run.

Starts the server on a free loopback port, sends --requests POST /v1/orientation requests from
--clients concurrent keep-alive connections, cycling over the committed samples, and reports:

- throughput (requests/s) beside the CLI's files/s (`fix --dry-run --json --jobs 2` over the same
  files, timed in this run, process start included);
- p50 and p99 latency of the requests;
- the server's peak RSS (VmHWM in /proc/PID/status) once a tenth of the requests are answered
  (request 200 of 2,000) and at the end: a leak shows as growth between the two;
- 5xx answers (503 are counted apart: they are deliberate refusals, and the request is retried);
- records that differ from the CLI's record for the same file (all keys but elapsed_ms and path).

Then it sends SIGTERM and checks that the server exits 0. Loopback only; it stops by itself
(--deadline bounds the whole load phase). Exit status 1 when a record differs, a 5xx other than
503 came back, or the server did not exit cleanly.

    python3 Benchmarks/service/load.py [--requests 2000] [--clients 8] [--binary .build-release/release/docorient]
"""

import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

from corpusgen import built

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, "Corpus", "samples")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff")
IGNORED_KEYS = ("elapsed_ms", "path")


def percentile(values, p):
    """The p-th percentile (0-100) of values, linear between the two nearest ranks."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def comparable(record):
    """The record without the keys that differ between two runs over the same bytes."""
    return {k: v for k, v in record.items() if k not in IGNORED_KEYS}


def sample_files(folder):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(IMAGE_SUFFIXES))


def cli_records(binary, files, jobs):
    """Runs `docorient fix --dry-run --json --jobs N` over files: (records by path, seconds)."""
    start = time.perf_counter()
    done = subprocess.run(
        [binary, "fix", "--dry-run", "--json", "--jobs", str(jobs), *files],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    seconds = time.perf_counter() - start
    records = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            records[os.path.abspath(record["path"])] = record
    missing = [f for f in files if f not in records]
    if missing:
        raise SystemExit(
            f"the CLI gave no record for {len(missing)} files (exit {done.returncode}): "
            f"{missing[:3]}\n{done.stderr[-2000:]}"
        )
    return records, seconds


def memory(pid):
    """(VmHWM, VmRSS) of the process in MiB, from /proc/PID/status."""
    fields = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                fields[name] = int(value.split()[0]) / 1024
    return fields["VmHWM"], fields["VmRSS"]


class Server:
    """`docorient serve --port 0` as a subprocess; `port` is read from its 'listening on' line."""

    def __init__(self, binary, max_in_flight):
        args = [binary, "serve", "--host", "127.0.0.1", "--port", "0"]
        if max_in_flight:
            args += ["--max-in-flight", str(max_in_flight)]
        self.process = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.stderr = []
        self.port = None
        deadline = time.monotonic() + 60
        while self.port is None:
            line = self.process.stderr.readline()
            if not line:
                raise SystemExit(f"the server exited before listening: {''.join(self.stderr)}")
            self.stderr.append(line)
            m = re.search(r"listening on http://[^:]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
            if time.monotonic() > deadline:
                self.process.kill()
                raise SystemExit("the server did not listen within 60 s")
        # Keep draining stderr so that a chatty server never blocks on a full pipe.
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def stop(self, timeout=60):
        """SIGTERM, then the exit status (None when it had to be killed)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def load(port, bodies, requests, clients, deadline, on_answered):
    """Sends `requests` POSTs from `clients` threads; returns one result dict per request."""
    results = [None] * requests
    next_index = [0]
    answered = [0]
    lock = threading.Lock()

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= requests or time.monotonic() > deadline:
                break
            path, body = bodies[i % len(bodies)]
            refused = 0
            start = time.perf_counter()
            while True:
                try:
                    conn.request(
                        "POST", "/v1/orientation", body=body, headers={"Content-Type": "application/octet-stream"}
                    )
                    response = conn.getresponse()
                    payload = response.read()
                except (ConnectionError, http.client.HTTPException, OSError) as error:
                    conn.close()
                    results[i] = {
                        "path": path,
                        "status": None,
                        "error": repr(error),
                        "seconds": time.perf_counter() - start,
                        "refused": refused,
                    }
                    break
                if response.status == 503 and time.monotonic() < deadline:
                    refused += 1
                    time.sleep(float(response.getheader("Retry-After", "1")))
                    continue
                results[i] = {
                    "path": path,
                    "status": response.status,
                    "body": payload,
                    "seconds": time.perf_counter() - start,
                    "refused": refused,
                }
                break
            with lock:
                answered[0] += 1
                count = answered[0]
            on_answered(count)
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r for r in results if r is not None], time.perf_counter() - start


def run(binary, requests, clients, samples=SAMPLES, cli_jobs=2, max_in_flight=None, deadline_seconds=1800):
    """The whole measurement; returns the summary dict `main` prints."""
    files = sample_files(samples)
    if not files:
        raise SystemExit(f"no images in {samples}")
    expected, cli_seconds = cli_records(binary, files, cli_jobs)
    bodies = [(f, open(f, "rb").read()) for f in files]

    server = Server(binary, max_in_flight)
    checkpoint = max(1, min(200, requests // 10))
    rss = {}

    def on_answered(count):
        if count == checkpoint:
            rss["early"] = memory(server.process.pid)

    try:
        results, seconds = load(
            server.port, bodies, requests, clients, time.monotonic() + deadline_seconds, on_answered
        )
        rss["end"] = memory(server.process.pid)
    finally:
        exit_status = server.stop()

    latencies = [r["seconds"] for r in results if r["status"] == 200]
    mismatches = []
    for r in results:
        if r["status"] != 200:
            continue
        got = comparable(json.loads(r["body"]))
        want = comparable(expected[r["path"]])
        if got != want:
            mismatches.append((os.path.basename(r["path"]), want, got))
    return {
        "requests": requests,
        "answered": len(results),
        "clients": clients,
        "files": len(files),
        "seconds": seconds,
        "throughput": len(results) / seconds if seconds else 0.0,
        "cli_seconds": cli_seconds,
        "cli_throughput": len(files) / cli_seconds,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "ok": len(latencies),
        "server_errors": sum(1 for r in results if r["status"] is not None and r["status"] >= 500),
        "failed": [r for r in results if r["status"] is None or (r["status"] != 200 and r["status"] < 500)],
        "refused_503": sum(r["refused"] for r in results),
        "checkpoint": checkpoint,
        "rss_early_mib": rss.get("early", (float("nan"),) * 2),
        "rss_end_mib": rss["end"],
        "mismatches": mismatches,
        "exit_status": exit_status,
        "server_stderr": "".join(server.stderr[-20:]),
    }


def table(s):
    rows = [
        ("requests answered", f"{s['answered']}/{s['requests']} ({s['clients']} clients, {s['files']} files)"),
        ("service throughput", f"{s['throughput']:.2f} requests/s ({s['seconds']:.1f} s)"),
        (
            "CLI fix --dry-run --jobs 2",
            f"{s['cli_throughput']:.2f} files/s ({s['files']} files, {s['cli_seconds']:.1f} s, start included)",
        ),
        ("service / CLI", f"{s['throughput'] / s['cli_throughput']:.2f}"),
        ("latency p50 / p99", f"{s['p50_ms']:.0f} ms / {s['p99_ms']:.0f} ms"),
        (
            f"peak RSS at request {s['checkpoint']}",
            f"{s['rss_early_mib'][0]:.1f} MiB (RSS {s['rss_early_mib'][1]:.1f})",
        ),
        (f"peak RSS at request {s['answered']}", f"{s['rss_end_mib'][0]:.1f} MiB (RSS {s['rss_end_mib'][1]:.1f})"),
        ("5xx (503 apart)", f"{s['server_errors']} (503 refusals retried: {s['refused_503']})"),
        ("other failures", f"{len(s['failed'])}"),
        ("records unlike the CLI's", f"{len(s['mismatches'])}"),
        ("exit after SIGTERM", f"{s['exit_status']}"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def succeeded(s):
    return (
        s["answered"] == s["requests"]
        and s["ok"] == s["requests"]
        and s["server_errors"] == 0
        and not s["mismatches"]
        and s["exit_status"] == 0
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--binary", default=built.docorient())
    ap.add_argument("--samples", default=SAMPLES, help="folder of images (default: Corpus/samples)")
    ap.add_argument("--max-in-flight", type=int, help="passed to serve (default: serve's own)")
    ap.add_argument("--deadline", type=float, default=1800, help="seconds the load phase may take at most")
    a = ap.parse_args(argv)
    if a.requests < 1 or a.clients < 1:
        ap.error("--requests and --clients must be at least 1")
    s = run(
        os.path.abspath(a.binary),
        a.requests,
        a.clients,
        a.samples,
        max_in_flight=a.max_in_flight,
        deadline_seconds=a.deadline,
    )
    print(table(s))
    for name, want, got in s["mismatches"][:3]:
        print(
            f"\n{name}: CLI {json.dumps(want, sort_keys=True)}\n{' ' * len(name)}  service {json.dumps(got, sort_keys=True)}"
        )
    for r in s["failed"][:3]:
        print(f"\n{os.path.basename(r['path'])}: status {r['status']} {r.get('error') or r.get('body', b'')[:200]!r}")
    if not succeeded(s):
        print(f"\nserver stderr (last lines):\n{s['server_stderr']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
