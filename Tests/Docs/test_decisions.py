"""Every value of Models/calibration.json is named by a page of docs/decisions, and every page is
in the index: a reader asking why a threshold is what it is finds one page that says.

Run: python3 -m pytest -q Tests/Docs
"""

import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECISIONS = os.path.join(ROOT, "docs", "decisions")


def pages():
    return sorted(name for name in os.listdir(DECISIONS) if re.fullmatch(r"\d{4}-[a-z0-9-]+\.md", name))


def test_every_calibrated_value_is_named_by_a_decision_page():
    with open(os.path.join(ROOT, "Models", "calibration.json")) as f:
        calibration = json.load(f)
    text = "".join(open(os.path.join(DECISIONS, name)).read() for name in pages())
    unnamed = [
        f"{section}.{key}"
        for section, values in calibration.items()
        if isinstance(values, dict)
        for key in values
        if not re.search(rf"`(?:{section}\.)?{key}`", text)
    ]
    assert not unnamed, f"no page of docs/decisions names {unnamed}"


def test_every_decision_page_is_in_the_index_under_its_number():
    with open(os.path.join(DECISIONS, "README.md")) as f:
        index = f.read()
    for name in pages():
        number = int(name[:4])
        assert f"| [{number}]({name}) |" in index, f"{name} is not in docs/decisions/README.md"
        with open(os.path.join(DECISIONS, name)) as f:
            assert f.readline().startswith(f"# {number}. "), f"{name} does not start with '# {number}. '"
