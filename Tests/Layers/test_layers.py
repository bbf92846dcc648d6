"""The source folders form layers with arrows one way (Scripts/layers.py), and the check sees a cycle.

Run: python3 -m pytest -q Tests/Layers
"""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "Scripts", "layers.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def test_the_folders_have_no_cycle():
    result = run()
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split(" -> ") for line in result.stdout.splitlines())
    # The bottom of the core names nothing of the layers above it.
    assert lines["DocOrient/Orientation".ljust(24)] == "(nothing)"
    assert "DocOrient/Resolver" not in lines["DocOrient/Analysis".ljust(24)]
    # The lab (docorient-lab) is a top layer beside the command line: nothing shipped names it.
    assert "DocOrientLab".ljust(24) in lines
    assert not any("DocOrientLab" in uses for uses in lines.values())


def test_a_reference_back_down_the_layers_is_reported_as_a_cycle(tmp_path):
    sources = tmp_path / "Sources"
    shutil.copytree(os.path.join(ROOT, "Sources"), sources)
    # Orientation (the bottom layer) naming a type of the Resolver closes a loop.
    with open(sources / "DocOrient" / "Orientation" / "Orientation.swift", "a") as handle:
        handle.write("\nfunc layerProbe(_ budget: WorkBudget) {}\nfunc layerProbe2(_ r: Resolver) {}\n")
    result = run("--sources", str(sources))
    assert result.returncode == 1
    assert "cycle among" in result.stderr and "DocOrient/Orientation -> DocOrient/Resolver: Resolver" in result.stderr


def test_an_extension_member_used_from_a_lower_layer_is_reported_as_a_cycle(tmp_path):
    sources = tmp_path / "Sources"
    shutil.copytree(os.path.join(ROOT, "Sources"), sources)
    # A property Action adds to a standard type, used by Support (beneath Action): no type of
    # Action is named, the member alone closes the loop. A private one or a local name would not.
    with open(sources / "DocOrient" / "Action" / "Fixer.swift", "a") as handle:
        handle.write("\nextension Duration {\n    var layerProbeTicks: Double { 0 }\n}\n")
    with open(sources / "DocOrient" / "Support" / "FileIO.swift", "a") as handle:
        handle.write(
            "\nfunc layerProbe(_ d: Duration) -> Double {\n    let local = d.layerProbeTicks\n    return local\n}\n"
        )
    result = run("--sources", str(sources))
    assert result.returncode == 1
    assert "DocOrient/Support -> DocOrient/Action: layerProbeTicks" in result.stderr


def test_a_private_extension_member_or_a_local_name_is_no_dependency(tmp_path):
    sources = tmp_path / "Sources"
    shutil.copytree(os.path.join(ROOT, "Sources"), sources)
    with open(sources / "DocOrient" / "Action" / "Fixer.swift", "a") as handle:
        handle.write(
            "\nextension Duration {\n    private var layerProbeTicks: Double { 0 }\n"
            "    func layerProbeWork() { let layerProbeLocal = 1; _ = layerProbeLocal }\n}\n"
        )
    with open(sources / "DocOrient" / "Support" / "FileIO.swift", "a") as handle:
        handle.write("\nfunc layerProbe(_ d: Probe) -> Double { d.layerProbeTicks + d.layerProbeLocal }\n")
    result = run("--sources", str(sources))
    assert result.returncode == 0, result.stderr
