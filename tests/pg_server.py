"""A real PostgreSQL server with pgvector for the test session, and a fresh database per test.

The server is ``pgserver`` (a PyPI wheel carrying PostgreSQL 16 + pgvector, started as a child
process over a Unix socket, root is fine) in a temporary folder, started once per session and
stopped (folder deleted) at the end. Set ``MEMDESK_TEST_POSTGRES_URL`` to a
``postgresql://user:pass@host/db`` URL to use your own server instead (its role needs
CREATEDB; pgvector must be installed there); the test databases are dropped at the end.

A server that cannot start FAILS every postgres test, loudly, unless ``MEMDESK_SKIP_POSTGRES=1``
is set, which skips them instead. ``pytest -m "not postgres"`` deselects them.

Usage: the ``postgres_server`` / ``postgres_url`` fixtures below (import them into a test
module), or :func:`session_server` with a pytest ``config`` (the conformance backends).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit, urlunsplit

import pytest

ENV_URL = "MEMDESK_TEST_POSTGRES_URL"
ENV_SKIP = "MEMDESK_SKIP_POSTGRES"

log = logging.getLogger(__name__)


def database_url(url: str, dbname: str) -> str:
    """``url`` pointing at another database (the path part of a postgresql:// URL)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(f"{ENV_URL} must be a postgresql:// URL, got {url!r}")
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, parts.query, parts.fragment))


class PgTestServer:
    """A server the tests may create databases on."""

    def __init__(self, admin_url: str, stop: Callable[[], None] | None = None, started_in_s: float = 0.0) -> None:
        self.admin_url = admin_url
        self.started_in_s = started_in_s
        self._stop = stop
        self._created: list[str] = []
        self._admin: Any = None  # psycopg connection, opened on first use
        self._prefix = f"memdesk_test_{os.getpid()}_"
        self._made = 0

    def execute(self, statement: str, dbname: str | None = None) -> list[tuple[Any, ...]]:
        """Run one statement as the admin (autocommit) and return its rows."""
        import psycopg

        if dbname is not None:
            with psycopg.connect(database_url(self.admin_url, dbname), autocommit=True) as conn:
                cur = conn.execute(statement)
                return cur.fetchall() if cur.description else []
        if self._admin is None or self._admin.closed:
            self._admin = psycopg.connect(self.admin_url, autocommit=True)
        cur = self._admin.execute(statement)
        return cur.fetchall() if cur.description else []

    def fresh_database(self) -> str:
        """Create an empty database; returns its postgresql:// URL."""
        self._made += 1
        name = f"{self._prefix}{self._made}"
        self.execute(f'DROP DATABASE IF EXISTS "{name}"')
        self.execute(f'CREATE DATABASE "{name}"')
        self._created.append(name)
        return database_url(self.admin_url, name)

    def drop_created(self) -> None:
        """Drop the databases made so far (a test's, after its fixtures are torn down), so the server's
        folder stays small and the session ends quickly (one database is about 1,000 files)."""
        for name in list(self._created):
            try:
                self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except Exception:  # noqa: BLE001 - kept for stop() to try again
                log.warning("could not drop test database %s", name, exc_info=True)
                continue
            self._created.remove(name)

    def stop(self) -> None:
        """Drop the test databases (on a user's server) or stop and delete our own server."""
        try:
            if self._stop is not None:
                self._close_admin()
                self._stop()
                return
            for name in self._created:
                try:
                    self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                except Exception:  # noqa: BLE001 - best effort on someone else's server
                    log.warning("could not drop test database %s", name, exc_info=True)
        finally:
            self._close_admin()

    def _close_admin(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None


def start_server() -> PgTestServer:
    """The user's server (``MEMDESK_TEST_POSTGRES_URL``) or a fresh pgserver in a temporary folder."""
    url = os.environ.get(ENV_URL, "").strip()
    if url:
        server = PgTestServer(url)
        server.execute("SELECT 1")
        return server
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    root = Path(tempfile.mkdtemp(prefix="memdesk-pg-"))
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            handle = pgserver.get_server(root / "pgdata", cleanup_mode="delete")
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    elapsed = time.perf_counter() - started

    def stop() -> None:
        try:
            handle.cleanup()
        finally:
            shutil.rmtree(root, ignore_errors=True)

    server = PgTestServer(handle.get_uri(), stop=stop, started_in_s=elapsed)
    try:  # a throwaway server: durability only costs time
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            server.execute(f"ALTER SYSTEM SET {setting}")
        server.execute("SELECT pg_reload_conf()")
    except BaseException:
        stop()
        raise
    log.info("PostgreSQL test server started in %.2f s at %s", elapsed, server.admin_url)
    return server


_SERVER = pytest.StashKey[PgTestServer]()
_FAILURE = pytest.StashKey[str]()


def session_server(config: pytest.Config) -> PgTestServer:
    """The session's server, started on first use; fails (or skips, with MEMDESK_SKIP_POSTGRES=1) if it cannot start."""
    server = config.stash.get(_SERVER, None)
    if server is not None:
        return server
    failure = config.stash.get(_FAILURE, None)
    if failure is None:
        try:
            server = start_server()
        except Exception as e:  # noqa: BLE001 - reported to every postgres test below
            failure = f"cannot start a PostgreSQL test server: {type(e).__name__}: {e}"
            config.stash[_FAILURE] = failure
        else:
            config.stash[_SERVER] = server
            config.add_cleanup(server.stop)
            return server
    if os.environ.get(ENV_SKIP, "").strip() in ("1", "true", "yes"):
        pytest.skip(f"{failure} ({ENV_SKIP} is set)")
    pytest.fail(f"{failure}\nSet {ENV_URL} to use your own server, or {ENV_SKIP}=1 to skip these tests.", pytrace=False)


def drop_test_databases(config: pytest.Config) -> None:
    """Drop the databases the finished test made (called after each test's teardown by tests/conftest.py)."""
    server = config.stash.get(_SERVER, None)
    if server is not None:
        server.drop_created()


@pytest.fixture(scope="session")
def postgres_server(request: pytest.FixtureRequest) -> PgTestServer:
    return session_server(request.config)


@pytest.fixture
def postgres_url(postgres_server: PgTestServer) -> str:
    """A postgresql:// URL of a new, empty database."""
    return postgres_server.fresh_database()
