"""The service's OpenAPI document (API/openapi.json): a valid OpenAPI 3 document
(openapi-spec-validator), embedded up to date in the binary (API/embed.py --check), served as is,
and true of the running service: schemathesis fuzzes every operation of the served document, as
an API's users' tools would, with every check it has, and finds no 5xx, no answer outside the
document and no schema-valid request rejected.

Bounded: each request 30 s, the whole run 240 s. Each operation gets schemathesis's coverage
phase and 50 fuzzed examples, once. No --max-time: schemathesis 4 takes it as a budget to fill by
fuzzing again, which adds requests but no status of any endpoint.

Run: python3 -m pytest -q Tests/Service/test_openapi.py   (after `swift build`)
"""

import http.client
import json
import os
import re
import subprocess
import sys

from serving import ROOT, Server, counted, metrics, server_errors

DOCUMENT = os.path.join(ROOT, "API", "openapi.json")

# The files schemathesis sends as the request bodies' media types it has no sample of (TIFF, HEIC,
# PDF): with them every check runs (`-c all`), positive_data_acceptance included, as the document
# declares the bodies by their real media types.
HOOKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemathesis_media.py")


def test_the_document_is_valid_openapi():
    from openapi_spec_validator import validate
    from openapi_spec_validator.readers import read_from_filename

    spec, _ = read_from_filename(DOCUMENT)
    validate(spec)


def test_the_binary_embeds_the_document_as_it_is():
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "API", "embed.py"), "--check"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_schemathesis_finds_no_server_error_and_no_answer_outside_the_document(docorient, tmp_path):
    server = Server(docorient, log_path=str(tmp_path / "serve.log"))
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/openapi.json")
        served = json.loads(conn.getresponse().read())
        conn.close()
        assert served == json.load(open(DOCUMENT))

        done = subprocess.run(
            [
                "schemathesis",
                "run",
                f"http://127.0.0.1:{server.port}/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                "50",
                "--seed",
                "35",
                "--workers",
                "1",
                "--request-timeout",
                "30",
                "--no-color",
            ],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=str(tmp_path),
            env={**os.environ, "SCHEMATHESIS_HOOKS": HOOKS},
        )
        summary = done.stdout[done.stdout.find("SUMMARY") :]
        print("\n" + summary)
        assert done.returncode == 0, done.stdout[-6000:]
        m = re.search(r"(\d+) generated, (\d+) passed", summary)
        assert m and int(m.group(1)) >= 50 and m.group(1) == m.group(2), summary
        counts = metrics(server.port)
        assert server_errors(counts) == 0
        # Schema-valid images reached both image endpoints and were read.
        assert counted(counts, "/v1/fix", 200) > 0 and counted(counts, "/v1/orientation", 200) > 0, counts
        assert server.process.poll() is None
    finally:
        server.stop()
