"""Per-scope revisions: a number per scope that moves only when a record under that scope changes.

:class:`ScopeRevisions` is told about every change a store learns of, as exact scope keys: its own
committed writes (from the writers) and other connections' commits (from the change log, see
:mod:`.database`). Each change takes the next value of one counter; the revision of a scope (exact
or partial) is the value of the last change under it. So a write to one tenant leaves every other
tenant's revision, and whatever a caller derived from its records (a lexical index, a cache of
hits), as it was.

Only the scopes asked about are remembered (least recently asked forgotten first, past ``kept``).
A scope asked about for the first time, or again after it was forgotten, gets the counter's current
value: nothing under it can have changed after that value was taken, and the value is at least
any it was given before, so a forgotten scope may look changed (a spurious rebuild for the caller)
but a changed one never looks unchanged. When a store cannot tell what changed (the embedding info
moved, the log was pruned past what it saw), every scope moves.

The last :data:`CHANGES_KEPT` changes (at most :data:`IDS_KEPT` record ids in all) are also kept as a short feed: which exact scopes each touched and, for a
write of new records reported by this store's own writers, their ids. :meth:`ScopeRevisions.additions_since`
answers "what was added under this scope since that revision" when every change under it since was such a write,
so a caller can extend what it derived instead of rebuilding it; anything else (a replace, a delete, another
connection's commit, a feed that no longer reaches back) answers None.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Iterable, Sequence

from cachetools import LRUCache

from ..records import Scope
from .codec import ScopeTuple, check_scope, scope_matches, scope_tuple
from .database import Changes, Database

REVISIONS_KEPT = 100_000
"""Scopes whose revision is remembered (about 200 bytes each)."""

CHANGES_KEPT = 4096
"""Changes kept in the feed that :meth:`ScopeRevisions.additions_since` reads."""

IDS_KEPT = 65_536
"""Record ids the feed holds at most (about 10 MB), however large the writes: the oldest changes go first."""

_Change = tuple[int, tuple[ScopeTuple, ...] | None, tuple[tuple[ScopeTuple, str], ...] | None]


def wildcards(key: ScopeTuple) -> list[ScopeTuple]:
    """The seven partial or exact scope patterns an exact scope key falls under."""
    u, a, r = key
    return [
        p
        for p in ((u, a, r), (u, a, None), (u, None, r), (None, a, r), (u, None, None), (None, a, None), (None, None, r))
        if p != (None, None, None)
    ]


class ScopeRevisions:
    """The revision of every scope a caller asks about, moved by the changes under it."""

    def __init__(self, kept: int = REVISIONS_KEPT) -> None:
        self.kept = kept
        self.counter = 0
        """Moves on every change anywhere: the store-wide revision."""
        self._stamps: LRUCache[ScopeTuple, int] = LRUCache(maxsize=kept)
        self._feed: deque[_Change] = deque()
        self._feed_ids = 0
        self._feed_lock = threading.Lock()

    def changed(self, keys: Iterable[ScopeTuple], added: Sequence[tuple[ScopeTuple, str]] | None = None) -> None:
        """Records under these exact scope keys changed; ``added``: the change was only new records, these
        (exact scope key, record id) pairs."""
        keys = tuple(keys)
        self.counter += 1
        self._remember((self.counter, keys, tuple(added) if added is not None else None))
        stamps = self._stamps
        if not stamps:
            return
        for key in keys:
            for pattern in wildcards(key):
                if pattern in stamps:
                    stamps[pattern] = self.counter

    def everything_changed(self) -> None:
        """Anything may have changed anywhere: every scope moves. The feed's earlier changes are dropped
        (an addition listed across this change could never be vouched for), so a forget another
        connection logged as "everything" leaves none of its scope keys or record ids here."""
        self.counter += 1
        with self._feed_lock:
            self._feed.clear()
            self._feed_ids = 0
        self._remember((self.counter, None, None))
        self._stamps.clear()

    def erased(self, keys: Iterable[ScopeTuple]) -> None:
        """The records under these exact scope keys were erased (a forget, an emptied scope): their
        scopes move as for :meth:`changed`, and nothing here names them afterwards. The stamps of the
        patterns they fall under are dropped (asked again, they take the counter's value, so they still
        look changed), and every change in the feed that touched them is kept only as a change of
        unknown place (no scope keys, no record ids), which :meth:`additions_since` answers with None
        for any scope it reaches back to."""
        keys = set(keys)
        self.counter += 1
        for key in keys:
            for pattern in wildcards(key):
                self._stamps.pop(pattern, None)
        with self._feed_lock:
            scrubbed: deque[_Change] = deque()
            for change in self._feed:
                counter, touched, added = change
                if touched is not None and keys.intersection(touched):
                    self._feed_ids -= len(added or ())
                    change = (counter, None, None)
                scrubbed.append(change)
            self._feed = scrubbed
        self._remember((self.counter, None, None))  # the erasure itself, named nowhere either

    def _remember(self, change: _Change) -> None:
        with self._feed_lock:
            self._feed.append(change)
            self._feed_ids += len(change[2] or ())
            while len(self._feed) > CHANGES_KEPT or self._feed_ids > IDS_KEPT:
                self._feed_ids -= len(self._feed.popleft()[2] or ())

    def apply(self, changes: Changes | None) -> list[ScopeTuple] | None:
        """Take in what another connection changed (a :meth:`Database.on_change` callback's argument);
        returns the exact scope keys it touched (None: everything)."""
        if changes is None:
            self.everything_changed()
            return None
        keys: list[ScopeTuple] = [tuple(json.loads(k)) for k in changes.scope_keys]  # type: ignore[misc]
        if keys:
            self.changed(keys)
        return keys

    def of(self, scope: Scope | None) -> int:
        """The revision of ``scope`` (None: of the whole store)."""
        if scope is None:
            return self.counter
        pattern = scope_tuple(check_scope(scope))
        if pattern == (None, None, None):
            return self.counter
        stamp = self._stamps.get(pattern)  # a hit is now the most recently asked
        if stamp is None:
            stamp = self._stamps[pattern] = self.counter  # past ``kept``, the least recently asked goes
        return stamp

    def additions_since(self, scope: Scope, revision: int) -> list[str] | None:
        """Ids of the records added under ``scope`` after ``revision`` (a value :meth:`of` gave for it), in
        the order they were written, when every change under it since was a write of new records; None
        when anything else changed under it, or the feed no longer reaches back to ``revision``."""
        check_scope(scope)
        with self._feed_lock:
            feed = list(self._feed)
        if revision >= self.counter:
            return []
        if not feed or feed[0][0] > revision + 1:
            return None
        ids: list[str] = []
        for counter, keys, added in feed:
            if counter <= revision:
                continue
            if keys is None:
                return None
            if not any(scope_matches(scope, key) for key in keys):
                continue
            if added is None:
                return None
            ids.extend(record_id for key, record_id in added if scope_matches(scope, key))
        return ids


class RevisionReads:
    """:meth:`Store.revision` and :meth:`Store.additions_since` for a record index that keeps its
    :class:`ScopeRevisions` (``revisions``) over a :class:`~.database.Database` (``db``): each reads the
    other connections' commits first."""

    db: Database
    revisions: ScopeRevisions

    def revision(self, scope: Scope | None = None) -> int:
        """Moves whenever a record under ``scope`` (None: anywhere) changes, by anyone."""
        with self.db.read("revision") as conn:
            self.db.sync(conn)
            return self.revisions.of(scope)

    def additions_since(self, scope: Scope, revision: int) -> list[str] | None:
        """The records written under ``scope`` since ``revision``, if that is all that changed there."""
        with self.db.read("revision") as conn:
            self.db.sync(conn)
            return self.revisions.additions_since(scope, revision)
