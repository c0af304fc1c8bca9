"""Backends the Store conformance suite runs against.

To run the suite against another backend, add one line to ``BACKENDS``: a name, a function
``(request, tmp_path) -> database URL`` giving a fresh, empty database, whether a second
``open_store`` of that URL sees the same data, pytest marks (e.g. ``pytest.mark.postgres``),
``open_store`` options, and whether it keeps an in-process search cache.

PostgreSQL runs the suite with its default ``search="sql"`` (pgvector); its ``search="memory"``
mode (the record cache SQLite uses) runs the cache tests too (``CACHE_BACKENDS``).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest

from memdesk.runtime import aio
from memdesk.store import EmbeddingInfo, open_store
from memdesk.store.collection_tables import SQLDocumentSet, SQLVectorCollection
from memdesk.store.base import Store
from tests.pg_server import session_server

DIM = 32
INFO = EmbeddingInfo(model_id="test-embedder", dim=DIM)


@dataclass(frozen=True)
class Backend:
    name: str
    url: Callable[[pytest.FixtureRequest, Path], str]
    shared: bool = True
    marks: tuple[Any, ...] = field(default=())
    options: dict[str, Any] = field(default_factory=dict)
    caches: bool = True
    """Searches are answered from an in-process cache (else every search is a query)."""
    on_loop: bool = False
    """Every store call runs under ``memdesk.runtime.aio.run`` on an event loop (PostgreSQL: psycopg's async API)."""


def postgres_database(request: pytest.FixtureRequest, tmp: Path) -> str:
    """A new database on the session's PostgreSQL test server (see tests/pg_server.py)."""
    return session_server(request.config).fresh_database()


BACKENDS = [
    Backend("sqlite", lambda request, tmp: f"sqlite:///{tmp / 'memdesk.db'}"),
    Backend("sqlite-memory", lambda request, tmp: "sqlite:///:memory:", shared=False),
    Backend("postgres", postgres_database, marks=(pytest.mark.postgres,), caches=False),
    Backend("postgres-loop", postgres_database, marks=(pytest.mark.postgres,), caches=False, on_loop=True),
]
CACHE_BACKENDS = [
    *BACKENDS,
    Backend("postgres-cache", postgres_database, marks=(pytest.mark.postgres,), options={"search": "memory"}),
]


@pytest.fixture(params=[pytest.param(b, id=b.name, marks=b.marks) for b in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    return request.param


@pytest.fixture
def open_backend(backend: Backend, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens the test's database (again, for backends where that shares data); closes all at the end."""
    url = backend.url(request, tmp_path)
    opened: list[Store] = []
    loops = Loops() if backend.on_loop else None

    def _open() -> Store:
        s = open_store(url, **backend.options)
        if loops is not None:
            s = OnLoop(s, loops)  # type: ignore[assignment]
        opened.append(s)
        return s

    yield _open
    for s in opened:
        s.close()
    if loops is not None:
        loops.close()


class Loops:
    """An event loop per thread that calls a store (tests share stores between threads)."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[asyncio.AbstractEventLoop] = []

    def run(self, fn: Callable[[], Any]) -> Any:
        loop = getattr(self._local, "loop", None)
        if loop is None:
            loop = self._local.loop = asyncio.new_event_loop()
            self._all.append(loop)
        return loop.run_until_complete(aio.run(fn))

    def close(self) -> None:
        for loop in self._all:
            loop.close()


class OnLoop:
    """A store (or one of its collections) whose every method call runs under ``aio.run`` on ``loop``."""

    def __init__(self, part: Any, loops: Loops) -> None:
        self._part, self._loops = part, loops

    @property
    def wrapped(self) -> Any:
        return self._part

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._part, name)
        if not callable(value) or name.startswith("_"):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            def run() -> Any:
                result = value(*args, **kwargs)
                return list(result) if isinstance(result, Iterator) else result

            result = self._loops.run(run)
            return OnLoop(result, self._loops) if isinstance(result, (SQLVectorCollection, SQLDocumentSet)) else result

        return call

    def __enter__(self) -> "OnLoop":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture
def empty_store(open_backend: Callable[[], Store]) -> Store:
    """A fresh store with no embedding info recorded."""
    return open_backend()


@pytest.fixture
def store(empty_store: Store) -> Store:
    """A fresh store whose embedding info is ``INFO``."""
    empty_store.set_embedding_info(INFO)
    return empty_store


@pytest.fixture
def two_stores(open_backend: Callable[[], Store], backend: Backend) -> tuple[Store, Store]:
    """Two stores on one database (the first with ``INFO`` recorded); skipped where opens don't share."""
    if not backend.shared:
        pytest.skip("each open of this backend is a separate database")
    a, b = open_backend(), open_backend()
    a.set_embedding_info(INFO)
    return a, b


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
