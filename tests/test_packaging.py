"""The wheel works on its own: built from this checkout, installed into a fresh virtual environment outside
it, and run from an empty working directory with no benchmark data and no network.

The fresh environment gets memdesk from the wheel and nothing else; its dependencies are found through a
``.pth`` line naming this interpreter's site-packages (the wheel's own install must not need the network, and
CI has no index of wheels to offer it). The commands run in a new network namespace (``unshare -rn``: no
interface but a downed loopback) where the kernel allows it, which is the case on this project's machines and
CI; elsewhere they run with every proxy pointed at a closed port, and the test says so in its output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHAT = [
    {"speaker": "Ana", "content": "I adopted a grey cat called Mochi last spring.", "timestamp": "2024-05-02T10:00:00Z"},
    {"speaker": "Ana", "content": "My brother Luis lives in Valencia and teaches chemistry.", "timestamp": "2024-05-02T10:01:00Z"},
]


def _no_network_prefix() -> list[str]:
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn"]
    return []


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A virtual environment holding only the memdesk wheel, and a function to run commands in it."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src-copy"  # build from a copy: building writes build/ and egg-info where it runs
    shutil.copytree(REPO / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "NOTICE"):
        shutil.copy(REPO / name, src / name)
    dist = root / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(dist), str(src)],
        check=True, capture_output=True,
    )
    (wheel,) = dist.glob("memdesk-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "memdesk_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    work = root / "work"  # an empty working directory, far from the checkout and its ../shared/data
    work.mkdir()
    home = root / "home"
    env = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    env.update(
        PATH=f"{venv / 'bin'}:/usr/bin:/bin", HOME=str(home), XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"), LANG="C.UTF-8",
    )
    prefix = _no_network_prefix()
    if not prefix:
        closed = "http://127.0.0.1:9"
        env.update(HTTP_PROXY=closed, HTTPS_PROXY=closed, ALL_PROXY=closed, http_proxy=closed, https_proxy=closed)
        print("unshare -rn is not allowed here: commands run with every proxy pointed at a closed port")

    def run(*args: str) -> subprocess.CompletedProcess:
        r = subprocess.run([*prefix, *args], cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        return r

    return run, work, venv


def test_memdesk_comes_from_the_wheel_not_the_checkout(fresh):
    run, _, venv = fresh
    where = run("python", "-c", "import memdesk; print(memdesk.__file__)").stdout.strip()
    assert where.startswith(str(venv)) and not where.startswith(str(REPO))


def test_demo_runs_from_the_wheel_in_an_empty_directory(fresh):
    run, work, _ = fresh
    r = run("memdesk", "demo", "--json")
    report = json.loads(r.stdout)
    assert "session 4/4" in r.stderr and report["scope"]["user_id"] == "demo"
    assert all(n > 0 for n in report["stored"].values()) and len(report["answers"]) == 7
    assert sum(bool(a["gold_retrieved"]) for a in report["answers"]) == 7
    assert "Q1:" in run("memdesk", "demo").stdout  # and as text, a second time (nothing stored twice)
    assert list(work.iterdir()) == []  # the default database lives in the user data dir, not here


def test_ingest_then_search_from_the_wheel(fresh):
    run, work, _ = fresh
    (work / "notes.jsonl").write_text("\n".join(json.dumps(m) for m in CHAT) + "\n")
    try:
        out = run("memdesk", "ingest", "notes.jsonl").stdout
        assert "into user=default,run=notes" in out
        hits = json.loads(run("memdesk", "search", "Where does Luis live?", "--json").stdout)
        assert hits and "Valencia" in hits[0]["text"]
    finally:
        (work / "notes.jsonl").unlink()
