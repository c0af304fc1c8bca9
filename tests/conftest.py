"""Shared fixtures: real SQLite stores in tmp dirs, the hashing embedder for speed, data paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("MEMDESK_ALLOW_MODEL_REQUESTS", "0")

# No wall-clock assertions in unit tests: hypothesis' per-example deadline (200 ms) fails examples
# that are merely slow on a loaded shared machine.
settings.register_profile("memdesk", deadline=None)
settings.load_profile("memdesk")

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("MEMDESK_DATA_DIR", REPO.parent / "shared" / "data"))


@pytest.fixture
def locomo_path() -> Path:
    p = data_dir() / "locomo" / "locomo_dev5.json"
    if not p.exists():
        pytest.skip(f"LoCoMo data not found at {p}")
    return p


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database on each store backend: a SQLite file, and a database on the session's
    PostgreSQL + pgvector test server (tests/pg_server.py)."""
    if request.param == "postgres":
        from tests.pg_server import session_server

        return session_server(request.config).fresh_database()
    return f"sqlite:///{tmp_path}/memdesk.db"


@pytest.fixture(scope="session")
def minilm():
    from memdesk.embed import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture
def run(tmp_path, monkeypatch):
    """Invoke the ``memdesk`` command line (click's runner) on a real SQLite file with the hashing embedder."""
    from click.testing import CliRunner

    from memdesk.cli.app import main

    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/cli.db")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hashing")
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    runner = CliRunner()

    def invoke(*args: str, ok: bool = True):
        result = runner.invoke(main, list(args))
        if ok:
            assert result.exit_code == 0, result.output + str(result.exception)
        return result

    return invoke


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test's fixtures are torn down, drop the PostgreSQL databases it made: the test server's folder
    stays small, so the run ends promptly after its summary (no test keeps a database for a later one)."""
    try:
        return (yield)
    finally:
        from tests.pg_server import drop_test_databases

        drop_test_databases(item.config)
