"""The Debian package, installed in a clean Debian root that has no Swift, and the service image
made from that root.

`Scripts/package-deb.sh` builds the .deb (lintian must pass); mmdebstrap makes a minimal bookworm
root from this machine's Debian sources; `apt-get install ./docorient_*.deb` inside it must pull in
everything the command needs. Then, in the root: `fix --json` gives the same records and the same
fixed files as the tree's own release build of the same commit in the same run (on every file in
Corpus/samples; `elapsed_ms` and paths apart), `serve` answers /healthz and /v1/orientation as an
unprivileged user, `man docorient-fix` renders, the completions load, the unit passes
`systemd-analyze verify` (this machine's systemd: the root has none); `Scripts/package-image.sh` makes the OCI image from the root; last,
`apt-get remove --autoremove` must leave nothing but what Debian policy allows (conffiles of
removed packages, package-manager state, logs and caches).

Downloaded .debs are kept between runs in $DOCORIENT_APT_CACHE (default ~/.cache/docorient/apt),
as apt keeps its own archive cache; only the last run's set is kept. Times of each step go to
.build-deb/times.txt, lintian's output to .build-deb/lintian.txt, the image's size and largest
packages to .build-deb/image.txt.

Run: python3 -m pytest -q Tests/Package    (as root; about 3-5 minutes after the release build)
"""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
OUT = REPO / ".build-deb"
SAMPLES = REPO / "Corpus" / "samples"
CACHE = pathlib.Path(os.environ.get("DOCORIENT_APT_CACHE", pathlib.Path.home() / ".cache/docorient/apt"))
SUITE = "bookworm"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NOBODY = "65534:65534"
# Paths a removal may leave or change by Debian policy: the package manager's own state, logs,
# caches (FHS: deletable at any time) and the dynamic loader's cache.
STATE = ("/var/lib/dpkg/", "/var/lib/apt/", "/var/cache/", "/var/log/", "/var/lib/ucf/", "/etc/ld.so.cache")

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: mmdebstrap --mode=root and chroot")

TIMES = {}
BEFORE_INSTALL = set()  # the root's paths before the package was installed


def timed(what, function, *args, **kwargs):
    start = time.monotonic()
    try:
        return function(*args, **kwargs)
    finally:
        TIMES[what] = time.monotonic() - start
        OUT.mkdir(exist_ok=True)
        (OUT / "times.txt").write_text("".join(f"{k:<40} {v:7.1f} s\n" for k, v in TIMES.items()))


def run(*command, **kwargs):
    """Runs a command, failing the test with its output when it fails."""
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    result = subprocess.run([str(c) for c in command], **kwargs)
    if result.returncode != 0 and kwargs.get("check", True) is not False:
        pytest.fail(
            f"{' '.join(map(str, command))} exited {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


def in_root(root, *command, user=None, env=(), check=True, **kwargs):
    """Runs a command in the root with a clean environment (as `user`, uid:gid, when given)."""
    userspec = [f"--userspec={user}"] if user else []
    environment = [
        "env",
        "-i",
        f"PATH={PATH}",
        "LANG=C.UTF-8",
        "HOME=/root" if not user else "HOME=/tmp",
        "DEBIAN_FRONTEND=noninteractive",
        *env,
    ]
    result = subprocess.run(
        ["chroot", *userspec, str(root), *environment, *map(str, command)], capture_output=True, text=True, **kwargs
    )
    if check and result.returncode != 0:
        pytest.fail(
            f"in the root: {' '.join(map(str, command))} exited {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


def host_sources():
    """This machine's Debian sources (deb822 files), so the root gets the versions the tree built against."""
    files = sorted(str(p) for p in pathlib.Path("/etc/apt/sources.list.d").glob("*.sources"))
    legacy = pathlib.Path("/etc/apt/sources.list")
    if legacy.exists() and re.search(r"^\s*deb\s", legacy.read_text(), re.MULTILINE):
        files.append(str(legacy))
    assert files, "no apt sources on this machine"
    return files


def paths_in(root):
    """Every path in the root but the mounted and scratch ones, as absolute paths inside it."""
    skip = {"proc", "sys", "dev", "tmp", "run"}
    found = set()
    for top in os.listdir(root):
        if top in skip:
            continue
        found.add("/" + top)
        for directory, dirs, files in os.walk(os.path.join(root, top)):
            inside = "/" + os.path.relpath(directory, root)
            found.update(f"{inside}/{name}" for name in dirs + files)
    return found


@pytest.fixture(scope="module")
def package():
    """Builds the .deb with the packaging script: (path of the .deb, the tree's release binary)."""
    result = timed("Scripts/package-deb.sh", run, REPO / "Scripts/package-deb.sh", OUT, cwd=REPO, check=False)
    if result.returncode != 0:
        pytest.fail(f"Scripts/package-deb.sh exited {result.returncode}\n{result.stderr[-6000:]}")
    deb = pathlib.Path(result.stdout.strip().splitlines()[-1])
    bin_dir = run("swift", "build", "-c", "release", "--static-swift-stdlib", "--show-bin-path", cwd=REPO).stdout
    return deb if deb.is_absolute() else REPO / deb, pathlib.Path(bin_dir.strip()) / "docorient"


@pytest.fixture(scope="module")
def root(package):
    """A minimal bookworm root with the package installed by apt from its Depends."""
    deb, _ = package
    CACHE.mkdir(parents=True, exist_ok=True)
    path = pathlib.Path(tempfile.mkdtemp(prefix="docorient-root.", dir="/tmp"))
    proc = path / "proc"
    try:
        # Merged /usr as debootstrap and Debian's images make it (the hook), rather than by the
        # usrmerge package, which would bring perl into the root and the image.
        timed(
            "mmdebstrap (variant apt, + man-db)",
            run,
            "mmdebstrap",
            "--mode=root",
            "--variant=apt",
            "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",
            "--include=man-db",
            "--skip=essential/unlink",
            "--skip=cleanup/apt/lists",
            "--skip=cleanup/apt/cache",
            '--aptopt=Acquire::Languages "none"',
            f'--setup-hook=mkdir -p "$1"/var/cache/apt/archives/ && cp -a {CACHE}/. "$1"/var/cache/apt/archives/',
            SUITE,
            path,
            *host_sources(),
        )
        run("mount", "-t", "proc", "proc", proc)
        BEFORE_INSTALL.update(paths_in(path))
        shutil.copy(deb, path / "tmp")
        result = timed(
            "apt-get install ./docorient_*.deb",
            in_root,
            path,
            "sh",
            "-c",
            "cd /tmp && apt-get install -y --no-install-recommends ./docorient_*.deb",
        )
        (OUT / "apt-install.txt").write_text(result.stdout)
        # Keep what was downloaded, and only that, for the next run.
        archives = path / "var/cache/apt/archives"
        kept = {p.name for p in archives.glob("*.deb")}
        for old in CACHE.glob("*.deb"):
            if old.name not in kept:
                old.unlink()
        for new in archives.glob("*.deb"):
            if not (CACHE / new.name).exists():
                shutil.copy2(new, CACHE / new.name)
        yield path
    finally:
        if os.path.ismount(proc):
            subprocess.run(["umount", proc])
            if os.path.ismount(proc):
                subprocess.run(["umount", "-l", proc])
        # Only the directory made above, and never across a mount that survived.
        if not os.path.ismount(proc):
            shutil.rmtree(path, ignore_errors=True)


def test_lintian_passes_with_only_the_overrides_listed(package):
    report = (OUT / "lintian.txt").read_text()
    assert not re.search(r"^[EW]: ", report, re.MULTILINE), report


def test_the_package_depends_on_what_the_binary_loads(package):
    deb, _ = package
    depends = run("dpkg-deb", "--field", deb, "Depends").stdout
    for name in (
        "libtesseract5",
        "liblept5",
        "libturbojpeg0",
        "libexif12",
        "libheif1",
        "libsqlite3-0",
        "libqpdf29",
        "tesseract-ocr-eng",
    ):
        assert re.search(rf"(^|, ){re.escape(name)}\b", depends), f"{name} missing from Depends: {depends}"
    assert "tesseract-ocr-osd" not in depends
    # The OCRmyPDF plugin runs only inside ocrmypdf's python3: suggested, never a dependency.
    assert "python3" not in depends
    assert "python3" in run("dpkg-deb", "--field", deb, "Suggests").stdout


def test_the_installed_package_pulled_in_its_dependencies_and_has_no_swift(root):
    assert in_root(root, "dpkg-query", "-W", "-f=${Status}", "docorient").stdout == "install ok installed"
    assert not (root / "usr/bin/swift").exists() and not list((root / "usr/lib").glob("**/libswiftCore.so"))
    listed = in_root(root, "dpkg", "-L", "docorient").stdout.split()
    for path in (
        "/usr/bin/docorient",
        "/usr/share/docorient/docorient_orientation.onnx",
        "/usr/share/docorient/docorient-pre-consume",
        "/usr/share/man/man1/docorient-fix.1.gz",
        "/usr/share/bash-completion/completions/docorient",
        "/usr/share/zsh/vendor-completions/_docorient",
        "/usr/share/fish/vendor_completions.d/docorient.fish",
        "/lib/systemd/system/docorient.service",
        "/usr/share/doc/docorient/copyright",
        "/usr/lib/docorient/libonnxruntime.so.1",
        "/usr/lib/python3/dist-packages/docorient_ocrmypdf.py",
    ):
        assert path in listed
    # The lab (docorient-lab: replay, the fits, the classifier's squares) is not installed.
    assert not [path for path in listed if "docorient-lab" in path or "replay" in path or "classify" in path]
    # The classifier runs in the onnxruntime library the package carries, found without settings.
    shutil.copy(SAMPLES / "0003_letter.jpg", root / "tmp/runtime-check.jpg")
    fixed = in_root(root, "docorient", "fix", "--dry-run", "--json", "/tmp/runtime-check.jpg").stdout
    record = json.loads(fixed.splitlines()[0])
    assert record["error_code"] is None and record["classifier"], fixed
    missing = in_root(root, "sh", "-c", "ldd /usr/bin/docorient | grep 'not found' || true").stdout
    assert missing == "", missing


def test_fix_gives_the_tree_builds_records_and_bytes_on_every_sample(package, root, tmp_path):
    _, tree_binary = package
    names = sorted(p.name for p in SAMPLES.iterdir() if p.is_file())
    (root / "tmp/samples").mkdir()
    (root / "tmp/fixed").mkdir()
    for name in names:
        shutil.copy(SAMPLES / name, root / "tmp/samples" / name)
    host_fixed = tmp_path / "fixed"
    host_fixed.mkdir()
    command = ["fix", "--json", "--jobs", "2", "--output"]
    tree = timed(
        "fix --json, tree release build",
        subprocess.run,
        [tree_binary, *command, host_fixed, *names],
        cwd=SAMPLES,
        capture_output=True,
        text=True,
        env={"PATH": PATH, "LANG": "C.UTF-8", "OMP_THREAD_LIMIT": "1"},
    )
    installed = timed(
        "fix --json, installed package",
        in_root,
        root,
        "sh",
        "-c",
        'cd /tmp/samples && exec docorient "$@"',
        "sh",
        *command,
        "/tmp/fixed",
        *names,
        env=["OMP_THREAD_LIMIT=1"],
        check=False,
    )
    assert installed.returncode == tree.returncode, installed.stderr

    def records(output):
        out = []
        for line in output.splitlines():
            record = json.loads(line)
            record.pop("elapsed_ms", None)
            record.pop("path", None)
            out.append(record)
        return out

    assert len(records(tree.stdout)) == len(names)
    assert records(installed.stdout) == records(tree.stdout)
    # Where records carry the classifier's probabilities, the installed command found its model in
    # /usr/share/docorient without being told.
    if any("classifier" in r for r in records(tree.stdout)):
        assert any(r.get("classifier") for r in records(installed.stdout)), installed.stdout[:2000]
    written = sorted(p.name for p in host_fixed.iterdir())
    assert sorted(p.name for p in (root / "tmp/fixed").iterdir()) == written
    for name in written:
        assert (root / "tmp/fixed" / name).read_bytes() == (host_fixed / name).read_bytes(), name


def test_the_installed_command_renders_the_report_page_from_its_compiled_in_templates(root):
    # The report's and the review's Mustache templates are compiled into the binary
    # (`.embedInCode`): the package ships no resource bundle beside it, and needs none.
    batch = root / "tmp/report-batch"
    batch.mkdir()
    for name in sorted(p.name for p in SAMPLES.iterdir() if p.suffix == ".jpg")[:2]:
        shutil.copy(SAMPLES / name, batch / name)
    in_root(root, "docorient", "fix", "--jobs", "1", "/tmp/report-batch", env=["OMP_THREAD_LIMIT=1"], check=False)
    in_root(root, "docorient", "report", "--html", "/tmp/report.html", "/tmp/report-batch")
    page = (root / "tmp/report.html").read_text()
    assert page.startswith("<!doctype html>") and "<table id=files>" in page and "applyFilters()" in page
    assert not list((root / "usr/bin").glob("*.resources")), "a resource bundle beside the binary"


def test_debian_s_ocrmypdf_runs_the_package_s_plugin_with_the_package_s_docorient(package, tmp_path):
    # On this machine (Debian's ocrmypdf is too large a download for the clean root): the package's
    # files unpacked, python3 finding the module where the package puts it, the unpacked docorient
    # finding its model and runtime beside it.
    if not os.path.exists("/usr/bin/ocrmypdf"):
        pytest.fail("Debian's ocrmypdf is not installed (Scripts/bootstrap.sh installs it)")
    deb, _ = package
    unpacked = tmp_path / "unpacked"
    run("dpkg-deb", "-x", deb, unpacked)
    import img2pdf
    import pikepdf

    source, target = tmp_path / "sideways.pdf", tmp_path / "out.pdf"
    source.write_bytes(img2pdf.convert(str(SAMPLES / "0007_invoice.jpg")))  # upright as 8: shown sideways
    environment = {
        "PATH": PATH,
        "LANG": "C.UTF-8",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(unpacked / "usr/lib/python3/dist-packages"),
        "DOCORIENT_COMMAND": str(unpacked / "usr/bin/docorient"),
    }
    command = ["/usr/bin/ocrmypdf", "--plugin", "docorient_ocrmypdf", "--rotate-pages", "--output-type", "pdf"]
    run(*command, "--tesseract-timeout", "0", source, target, env=environment)
    with pikepdf.open(target) as pdf:
        assert int(pdf.pages[0].obj.get("/Rotate", 0)) == 270


def serves_as_the_tree_build_does(tree_binary, root):
    """`docorient serve` in `root` (chroot, as nobody) answers /healthz, and /v1/orientation with the
    record the tree's own build gives for the same sample."""
    sample = SAMPLES / "0003_letter.jpg"
    server = subprocess.Popen(
        [
            "chroot",
            f"--userspec={NOBODY}",
            root,
            "/usr/bin/docorient",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": PATH, "OMP_THREAD_LIMIT": "1"},
    )
    try:
        seen, port = "", None
        deadline = time.monotonic() + 120
        while port is None and time.monotonic() < deadline:
            line = server.stderr.readline()
            if not line:
                break
            seen += line
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            port = int(match.group(1)) if match else None
        assert port, f"no listening line: {seen}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as response:
            assert response.status == 200
            assert json.loads(response.read()) == {"status": "ok"}
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/orientation",
            data=sample.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            assert response.status == 200
            record = json.loads(response.read())
        cli = run(tree_binary, "fix", "--dry-run", "--json", sample, env={"PATH": PATH, "OMP_THREAD_LIMIT": "1"})
        expected = json.loads(cli.stdout)
        for r in (record, expected):
            r.pop("elapsed_ms", None)
            r.pop("path", None)
        assert record == expected
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_serve_answers_health_and_orientation_as_an_unprivileged_user(package, root):
    _, tree_binary = package
    serves_as_the_tree_build_does(tree_binary, root)


def test_man_pages_render_for_every_command(root):
    for page in (
        "docorient",
        "docorient-fix",
        "docorient-serve",
        "docorient-undo",
        "docorient-report",
        "docorient-inspect",
        "docorient-tag",
        "docorient-bake",
    ):
        result = in_root(root, "man", "--warnings", page, env=["MANPAGER=cat", "MANWIDTH=100"])
        assert result.stderr == "", f"{page}: {result.stderr}"
        command = page.replace("-", " ")
        assert command in result.stdout, result.stdout[:2000]
    fix = in_root(root, "man", "docorient-fix", env=["MANPAGER=cat", "MANWIDTH=100"]).stdout
    assert "--dry-run" in fix and "docorient-serve" in in_root(root, "man", "docorient", env=["MANPAGER=cat"]).stdout


def test_completions_load_in_bash(root):
    result = in_root(root, "bash", "-c", ". /usr/share/bash-completion/completions/docorient && complete -p docorient")
    assert "docorient" in result.stdout


def test_the_unit_passes_systemd_analyze_verify(root, tmp_path):
    # The root has no systemd (nor needs one), so this machine's systemd checks the installed unit:
    # the same file, with ExecStart pointing at the installed binary in the root (verify checks it
    # is executable) and man finding the page its Documentation= names in the root.
    unit = (root / "lib/systemd/system/docorient.service").read_text()
    assert "\nExecStart=/usr/bin/docorient serve" in unit
    (tmp_path / "docorient.service").write_text(
        unit.replace("\nExecStart=/usr/bin/docorient", f"\nExecStart={root}/usr/bin/docorient")
    )
    environment = {"PATH": PATH, "MANPATH": f"{root}/usr/share/man"}
    result = run("systemd-analyze", "verify", tmp_path / "docorient.service", check=False, env=environment)
    security = run(
        "systemd-analyze",
        "security",
        "--offline=yes",
        "--no-pager",
        tmp_path / "docorient.service",
        check=False,
        env=environment,
    )
    (OUT / "systemd-analyze.txt").write_text(
        f"systemd-analyze verify: exit {result.returncode}\n{result.stdout}{result.stderr}\n"
        f"systemd-analyze security --offline=yes:\n{security.stdout}{security.stderr}"
    )
    assert result.returncode == 0 and result.stdout.strip() == "" and result.stderr.strip() == "", result.stderr


@pytest.fixture(scope="module")
def image(root):
    """The service image made from the tested root, unpacked by umoci: its root filesystem."""
    # The test's own tool goes first.
    in_root(root, "apt-get", "purge", "-y", "--autoremove", "man-db")
    result = timed("Scripts/package-image.sh", run, REPO / "Scripts/package-image.sh", root, OUT, cwd=REPO)
    assert result.stdout
    bundle = pathlib.Path(tempfile.mkdtemp(prefix="docorient-image.", dir="/tmp")) / "bundle"
    run("umoci", "unpack", "--image", f"{OUT / 'oci'}:latest", bundle)
    rootfs = bundle / "rootfs"
    # What a container runtime mounts: Swift reads its arguments from /proc/self/cmdline.
    run("mount", "-t", "proc", "proc", rootfs / "proc")
    try:
        yield rootfs
    finally:
        subprocess.run(["umount", rootfs / "proc"], check=False)
        shutil.rmtree(bundle.parent, ignore_errors=True)


def test_the_image_is_made_from_the_tested_root(image):
    config = json.loads(run("umoci", "stat", "--json", "--image", f"{OUT / 'oci'}:latest").stdout)
    assert config["history"], config
    manifest_config = json.loads((OUT / "image-config.json").read_text())["config"]
    assert manifest_config["Entrypoint"] == ["/usr/bin/docorient", "serve", "--host", "0.0.0.0"]
    assert manifest_config["User"] == NOBODY
    assert "OMP_THREAD_LIMIT=1" in manifest_config["Env"]
    assert manifest_config["Labels"]["org.opencontainers.image.licenses"] == "Apache-2.0"
    assert (OUT / "image.txt").read_text()


def test_the_image_holds_the_service_and_no_shell_and_is_at_most_250_mb(package, image):
    _, tree_binary = package
    serves_as_the_tree_build_does(tree_binary, image)
    # Only what the service runs: no shell, no package manager (Packaging/image_files.py).
    for absent in ("usr/bin/bash", "usr/bin/sh", "usr/bin/apt-get", "usr/bin/dpkg", "usr/bin/perl"):
        assert not os.path.lexists(image / absent), absent
    listed = run("dpkg-query", f"--admindir={image / 'var/lib/dpkg'}", "-W", "-f=${Package}\n").stdout.split()
    assert "docorient" in listed and "libtesseract5" in listed and "dpkg" not in listed
    unpacked = int(run("du", "-s", "-x", "-B1", "--apparent-size", image).stdout.split()[0])
    assert unpacked <= 250e6, f"the image unpacks to {unpacked / 1e6:.1f} MB"


def test_remove_leaves_only_what_policy_allows(root):
    in_root(root, "apt-get", "remove", "-y", "--autoremove", "docorient")
    status = in_root(root, "dpkg-query", "-W", "-f=${db:Status-Abbrev}", "docorient", check=False).stdout
    assert status.strip() in ("", "un"), f"docorient left in state {status!r}"
    # Conffiles of packages removed but not purged stay, by policy (and apt-get purge takes them).
    removed = in_root(root, "dpkg-query", "-W", "-f=${db:Status-Abbrev} ${Package}\n").stdout
    conffiles = set()
    for line in removed.splitlines():
        abbrev, name = line.split(maxsplit=1)
        if abbrev.startswith("rc"):
            listed = in_root(root, "dpkg-query", "-W", "-f=${Conffiles}\n", name).stdout
            conffiles.update(entry.split()[0] for entry in listed.splitlines() if entry.strip())
    left = sorted(
        p
        for p in paths_in(root) - BEFORE_INSTALL
        if not p.startswith(STATE) and not any(c == p or c.startswith(p + "/") for c in conffiles)
    )
    assert left == [], f"left behind after apt-get remove: {left}"
