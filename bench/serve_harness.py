"""A real `memdesk serve` for the load benchmarks (``bench_serve_load.py``, ``bench_hostile_load.py``): the database
it serves (a SQLite file in a work folder, a PostgreSQL URL, or a throwaway pgserver) and the server process itself
(the CLI, uvicorn, on a loopback port), started and waited for until ``/healthz`` answers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def database(backend: str, postgres_url: str | None, work: Path) -> Iterator[str]:
    """The database URL to serve: a SQLite file under ``work``, ``postgres_url``, or a fresh database of a throwaway
    pgserver (the one the tests use), stopped when the block ends."""
    if backend == "sqlite":
        yield f"sqlite:///{work}/bench.db"
    elif postgres_url:
        yield postgres_url
    else:
        sys.path.insert(0, str(REPO))
        from tests.pg_server import start_server as start_pg

        pg = start_pg()
        try:
            yield pg.fresh_database()
        finally:
            pg.stop()


def start_server(database_url: str, port: int, log: Path, admin_key: str) -> subprocess.Popen:
    """`memdesk serve` on ``port`` (no MCP, warnings only), its output in ``log``; returns once it answers."""
    env = {**os.environ, "MEMDESK_DATABASE_URL": database_url, "MEMDESK_API_KEYS": admin_key}
    cmd = [sys.executable, "-m", "memdesk", "serve", "--port", str(port), "--no-mcp", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, cwd=REPO)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"memdesk serve exited with {proc.returncode}: see {log}")
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx2.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"memdesk serve did not answer within 180 s: see {log}")
