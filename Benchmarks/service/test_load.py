"""The load benchmark, small: 40 requests from 4 clients against the debug build, so that the
suite runs the script end to end (server start, CLI baseline, record comparison, SIGTERM).

Run: python3 -m pytest -q Benchmarks/service   (after `swift build`)
"""

import load
import pytest


def test_percentiles_interpolate_between_ranks():
    assert load.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert load.percentile([1.0, 2.0], 50) == 1.5
    assert load.percentile(list(range(101)), 99) == 99
    assert load.percentile([5.0], 99) == 5.0


def test_records_are_compared_without_time_and_path():
    a = {"path": "/x/a.jpg", "elapsed_ms": 12.5, "verdict": "agrees", "detected_orientation": 6}
    b = {"path": None, "elapsed_ms": 80.0, "verdict": "agrees", "detected_orientation": 6}
    assert load.comparable(a) == load.comparable(b)
    assert load.comparable(a) != load.comparable(dict(b, detected_orientation=8))


def test_forty_requests_from_four_clients_match_the_cli_and_the_server_drains(docorient):
    s = load.run(docorient, requests=40, clients=4, deadline_seconds=600)
    assert (s["answered"], s["ok"], s["server_errors"], s["failed"]) == (40, 40, 0, [])
    assert s["mismatches"] == [], s["mismatches"][:1]
    assert s["exit_status"] == 0
    assert s["checkpoint"] == 4 and s["rss_early_mib"][0] > 0 and s["rss_end_mib"][0] >= s["rss_early_mib"][0]
    assert s["throughput"] > 0 and s["cli_throughput"] > 0 and s["p50_ms"] <= s["p99_ms"]
    assert load.succeeded(s)
    printed = load.table(s)
    for row in (
        "requests answered",
        "service throughput",
        "CLI fix --dry-run --jobs 2",
        "latency p50 / p99",
        "peak RSS at request 4 ",
        "peak RSS at request 40 ",
        "records unlike the CLI's",
    ):
        assert row in printed


def test_options_are_checked():
    with pytest.raises(SystemExit):
        load.main(["--requests", "0"])
