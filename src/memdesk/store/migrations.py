"""Named, transactional schema migrations, recorded in the database (SQLite and PostgreSQL alike).

A backend lists its migrations as an ordered tuple of :class:`Migration` (a name and a function
taking the backend's connection) and implements :class:`MigrationTarget`: a migrations table, a
write transaction that serializes concurrent openers, and reading/recording applied names.
:func:`apply_migrations` then applies, in order, each migration not yet recorded, each in its own
transaction together with its record, so a failing migration leaves the database at the previous
one and raises :class:`~memdesk.errors.MigrationError`. Reopening a database applies only new ones.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Generic, Protocol, Sequence, TypeVar

from ..errors import MigrationError, StoreLockedError

log = logging.getLogger(__name__)

C = TypeVar("C")
C_contra = TypeVar("C_contra", contravariant=True)


@dataclass(frozen=True)
class Migration(Generic[C]):
    """One schema change: a unique ``name`` (recorded once applied) and the function that applies it."""

    name: str
    apply: Callable[[C], None]


class MigrationTarget(Protocol[C]):
    """What :func:`apply_migrations` needs from a backend."""

    def recorded_migrations(self) -> list[str] | None:
        """Names already applied, read without a write lock; None if there is no migrations table yet."""
        ...

    def ensure_migrations_table(self) -> None:
        """Create the table of applied migrations (name, applied_at) if it does not exist."""
        ...

    def migration_transaction(self) -> AbstractContextManager[C]:
        """A write transaction that excludes other writers; commits on success, rolls back on error."""
        ...

    def applied_migrations(self, conn: C) -> list[str]:
        """Names already applied, read inside the transaction."""
        ...

    def record_migration(self, conn: C, name: str, applied_at: datetime) -> None: ...


def check_migrations(migrations: Sequence[Migration[C]]) -> None:
    """Raise MigrationError for empty or duplicate names."""
    seen: set[str] = set()
    for m in migrations:
        if not m.name or not m.name.strip():
            raise MigrationError("a migration needs a non-empty name")
        if m.name in seen:
            raise MigrationError(f"duplicate migration name {m.name!r}")
        seen.add(m.name)


def apply_migrations(target: MigrationTarget[C], migrations: Sequence[Migration[C]]) -> list[str]:
    """Apply every migration not yet recorded, in order; return the names applied now.

    Each migration runs in its own transaction with its record, and the applied set is re-read
    inside that transaction, so two processes opening a new database at once apply each one once.
    """
    check_migrations(migrations)
    try:
        recorded_before = target.recorded_migrations()
    except StoreLockedError:
        raise
    except Exception as e:
        raise MigrationError(f"cannot read the applied migrations: {e}") from e
    if recorded_before is not None and {m.name for m in migrations} <= set(recorded_before):
        _warn_unknown(recorded_before, migrations)
        return []  # up to date: no write lock taken
    try:
        target.ensure_migrations_table()
    except StoreLockedError:
        raise
    except Exception as e:
        raise MigrationError(f"cannot create the migrations table: {e}") from e
    applied_now: list[str] = []
    recorded: list[str] = []
    for m in migrations:
        try:
            with target.migration_transaction() as conn:
                recorded = target.applied_migrations(conn)
                if m.name in recorded:
                    continue
                log.info("applying migration %s", m.name)
                m.apply(conn)
                target.record_migration(conn, m.name, datetime.now(timezone.utc))
        except (StoreLockedError, MigrationError):
            raise
        except Exception as e:
            raise MigrationError(f"migration {m.name!r} failed and was rolled back: {e}") from e
        applied_now.append(m.name)
    _warn_unknown(recorded, migrations)
    return applied_now


def _warn_unknown(recorded: Sequence[str], migrations: Sequence[Migration[C]]) -> None:
    known = {m.name for m in migrations}
    unknown = [n for n in recorded if n not in known]
    if unknown:
        log.warning("database has migrations this memdesk does not know (newer version?): %s", unknown)
