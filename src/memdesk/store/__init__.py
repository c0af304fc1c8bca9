"""Stores: the store protocols (:mod:`.base`), the SQL backends and :func:`open_store`.

Database URLs:

- ``sqlite:///relative/path.db`` and ``sqlite:////absolute/path.db`` (three slashes, then the path);
- ``sqlite:///:memory:`` (or ``sqlite://``) for a private in-memory database;
- ``postgresql://...`` or ``postgres://...`` (a libpq URL; ``postgresql+psycopg://`` is accepted too):
  the PostgreSQL backend (:class:`~memdesk.store.postgres.PostgresStore`), which needs the
  ``postgres`` extra (psycopg 3) and a server with the pgvector extension.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..text.redaction import mask_secrets
from .base import (
    Collections,
    DocumentSet,
    EmbeddingInfo,
    EmbeddingPin,
    Forgotten,
    KeyStore,
    MessageLog,
    Page,
    RecordQuery,
    RecordStore,
    ScoredRecord,
    Store,
    VectorCollection,
    VectorMaintenance,
    VectorTable,
)
from .ann import DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH
from .ann_scopes import DEFAULT_ANN_MIN_ROWS
from .ivf import IVFIndex
from .migrations import Migration, apply_migrations
from .search_cache import DEFAULT_CACHE_MAX_ROWS
from .sqlite import SQLITE_MIGRATIONS, SQLiteStore
from .sqlstore import SQLStore

__all__ = [
    "Collections",
    "DEFAULT_ANN_MIN_ROWS",
    "DEFAULT_CACHE_MAX_ROWS",
    "DocumentSet",
    "EmbeddingInfo",
    "EmbeddingPin",
    "IVFIndex",
    "MessageLog",
    "Migration",
    "Forgotten",
    "KeyStore",
    "Page",
    "RecordQuery",
    "RecordStore",
    "SQLITE_MIGRATIONS",
    "SQLStore",
    "SQLiteStore",
    "ScoredRecord",
    "Store",
    "VectorCollection",
    "VectorMaintenance",
    "VectorTable",
    "apply_migrations",
    "open_store",
    "sqlite_path",
]

_SQLITE_PREFIX = "sqlite:///"


def __getattr__(name: str) -> object:
    """``PostgresStore`` on demand: importing this package must not require psycopg."""
    if name == "PostgresStore":
        from .postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sqlite_path(url: str) -> str:
    """The file path (or ``":memory:"``) of a ``sqlite:///`` URL; ConfigError if it is not one."""
    if url in ("sqlite://", "sqlite:///:memory:"):
        return ":memory:"
    if not url.startswith(_SQLITE_PREFIX) or len(url) == len(_SQLITE_PREFIX):
        raise ConfigError(f"invalid SQLite URL {mask_secrets(url)!r}: use sqlite:///PATH or sqlite:///:memory:")
    path = url[len(_SQLITE_PREFIX) :]
    if "?" in path or "\x00" in path:
        raise ConfigError(f"invalid SQLite URL {mask_secrets(url)!r}: query strings are not supported")
    return path


def open_store(
    url: str,
    *,
    busy_timeout_ms: int = 5000,
    cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS,
    search: str | None = None,
    ann_min_rows: int | None = DEFAULT_ANN_MIN_ROWS,
    ann_ef_search: int = DEFAULT_EF_SEARCH,
    ann_ef_construction: int = DEFAULT_EF_CONSTRUCTION,
) -> Store:
    """Open (creating and migrating if needed) the store a database URL names.

    ``cache_max_rows`` bounds the record vectors kept in memory for search (least recently searched
    scopes are unloaded first and reloaded on their next search); None keeps every loaded scope.
    ``search`` (PostgreSQL only): ``"sql"`` (the default there: pgvector inside the database, no
    vectors kept in the process) or ``"memory"`` (the in-process cache SQLite always uses).
    ``ann_min_rows`` / ``ann_ef_search`` / ``ann_ef_construction`` (SQLite only): a scope with at least
    that many records of a type is searched through a persisted faiss HNSW graph, built with that
    ``efConstruction`` and walked with that ``efSearch`` (None: every search exact); PostgreSQL's large scopes get pgvector HNSW indexes through ``index_large_scopes()``.

    ConfigError for an unknown scheme, a malformed URL, or a PostgreSQL URL without psycopg
    installed; StoreError if the PostgreSQL server cannot be reached.
    """
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"a database URL must be a non-empty string, got {url!r}" if isinstance(url, str) else
                          f"a database URL must be a non-empty string, got {type(url).__name__}")  # fmt: skip
    url = url.strip()
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "sqlite":
        if search not in (None, "memory"):
            raise ConfigError(f"SQLite searches in memory; search={search!r} is for PostgreSQL")
        return SQLiteStore(
            sqlite_path(url),
            busy_timeout_ms=busy_timeout_ms,
            cache_max_rows=cache_max_rows,
            ann_min_rows=ann_min_rows,
            ann_ef_search=ann_ef_search,
            ann_ef_construction=ann_ef_construction,
        )
    if scheme in ("postgresql", "postgres") or scheme.startswith("postgresql+"):
        return _open_postgres("postgresql" + url[len(scheme) :], busy_timeout_ms, cache_max_rows, search or "sql")
    shown = scheme or mask_secrets(url)  # a libpq "host=... password=..." string has no scheme
    raise ConfigError(f"unknown database URL scheme {shown!r}: use sqlite:///PATH or postgresql://...")


def _open_postgres(url: str, busy_timeout_ms: int, cache_max_rows: int | None, search: str) -> Store:
    """A :class:`~memdesk.store.postgres.PostgresStore`, importing psycopg only now (an optional dependency)."""
    try:
        from .postgres import PostgresStore
    except ImportError as e:
        if (e.name or "").split(".")[0] != "psycopg":
            raise
        raise ConfigError(
            "the PostgreSQL backend needs psycopg 3: pip install 'memdesk[postgres]' (or 'psycopg[binary]')"
        ) from e
    return PostgresStore(url, busy_timeout_ms=busy_timeout_ms, cache_max_rows=cache_max_rows, search=search)
