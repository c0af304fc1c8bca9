"""What differs between SQL backends, as one object: :class:`Dialect`.

The shared SQL store (:mod:`.sqlstore` and the parts it is composed of) is written once against
this protocol; :class:`~memdesk.store.sqlite.SQLiteDialect` and
:class:`~memdesk.store.postgres.PostgresDialect` implement it. A new SQL backend is a dialect,
its connection and its migrations.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterator, Protocol, Sequence

import numpy as np

from .base import EmbeddingInfo
from .schema import CHUNK

if TYPE_CHECKING:
    from .sql_filter import JsonRef, TextFunctions


class Dialect(Protocol):
    param: str
    """The parameter mark (``?`` or ``%s``)."""
    vector_mark: str
    """The mark of a vector parameter (one :meth:`vector_param` value)."""
    time_mark: str
    """The mark of a record's time query column (an ISO-8601 string parameter)."""
    position: str
    """The column that orders ``scopes``, ``collection_items``, ``documents`` and ``migrations`` by insertion."""
    load_page: int | None
    """Rows per page when loading a scope's vectors into the cache; None: one query."""
    db_error: type[Exception]
    """The driver's base exception, turned into a :mod:`memdesk.errors` one by :meth:`store_error`."""

    def store_error(self, e: Exception, what: str) -> Exception:
        """The :mod:`memdesk.errors` exception for a driver error ``e`` raised while doing ``what``."""
        ...

    def write_transaction(self, conn: Any, what: str) -> AbstractContextManager[int | None]:
        """One write transaction, serialized with every other writer: committed on success, else
        rolled back, driver errors raised as :meth:`store_error`. Yields the change counter this
        transaction set (None where the database moves it by itself, see :meth:`read_version`)."""
        ...

    def read_version(self, conn: Any) -> int:
        """A counter that moves when another connection commits."""
        ...

    def now(self) -> Any:
        """The current time as the dialect stores ``changed_at`` and ``created_at``."""
        ...

    def time_from_db(self, value: Any) -> datetime:
        """A ``changed_at`` or ``applied_at`` value as read back."""
        ...

    def vector_param(self, vector: np.ndarray) -> Any:
        """One float32 vector as the parameter :attr:`vector_mark` binds."""
        ...

    def vector_cursor(self, conn: Any) -> Any:
        """Something with ``execute(sql, params)`` whose rows give vectors as little-endian float32 bytes."""
        ...

    def executemany(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def bulk_insert(self, conn: Any, table: str, columns: str, rows: Sequence[Sequence[Any]]) -> None:
        """Insert many new rows (``columns`` comma-separated; values as for an ``INSERT`` with :attr:`param`,
        :attr:`time_mark` and :attr:`vector_mark` marks) in one statement where the database has one for it
        (PostgreSQL: ``COPY``); a clash with a unique key is an error (the caller checked for clashes first)."""
        ...

    def id_chunks(self, column: str, ids: Sequence[str], size: int = CHUNK) -> Iterator[tuple[str, list[Any]]]:
        """(condition, parameters) pairs selecting rows whose ``column`` is in ``ids``, together covering all."""
        ...

    def next_seqs(self, conn: Any, n: int) -> list[int]:
        """``n`` new record ``seq`` values, ascending (inside a write transaction)."""
        ...

    def delete_returning(self, conn: Any, table: str, where: str, params: list[Any], columns: str) -> list[Any]:
        """Delete the rows of ``table`` matching ``where``; return their ``columns``."""
        ...

    def after_erase(self, conn: Any) -> None:
        """Remove what the database keeps of just-deleted rows where the backend can (outside a
        transaction; after a forget or a delete): SQLite checkpoints and truncates its WAL; PostgreSQL
        leaves it to VACUUM."""
        ...

    def vacuum(self, conn: Any) -> None:
        """Rewrite the database so that no free space keeps bytes of rows deleted before (outside a
        transaction): SQLite ``VACUUM`` then a WAL checkpoint; PostgreSQL ``VACUUM FULL`` of memdesk's tables."""
        ...

    def set_vector_dim(self, conn: Any, dim: int | None) -> None:
        """Declare the vector columns' dimension (None: any), inside a write transaction, where the
        backend types its vector columns by dimension; a no-op elsewhere."""
        ...

    def vector_size(self, info: EmbeddingInfo) -> tuple[str, int]:
        """(SQL expression of a stored vector's size, its value for a vector of ``info``'s dimension)."""
        ...

    json_kinds: dict[str, tuple[str, ...]]
    """The backend's names of the JSON types ``string``, ``number``, ``bool``, ``null`` (see :mod:`.sql_filter`)."""

    text_functions: "TextFunctions"
    """The backend's SQL for substrings, byte and character lengths, ASCII lowering and bytewise comparison."""

    def json_field(self, field: str) -> str:
        """SQL of a top-level field of a row's ``record`` JSON as text (``field`` is memdesk's own name)."""
        ...

    def json_metadata(self, key: str, *, shared: bool = False) -> "JsonRef | None":
        """Expressions of ``record.metadata[key]``, the key bound as a parameter; None where the backend
        cannot address that key safely (the condition is then checked in Python only). With ``shared``, for a
        row with shared metadata: the record's own key, else the shared one (:mod:`.shared_metadata`)."""
        ...

    def json_guard(self, condition: str, params: list[Any], *, shared: bool = False) -> tuple[str, list[Any]]:
        """``condition`` made safe on every row (rows whose JSON the backend's JSON type refuses pass)."""
        ...
