"""Reading an export file back into a store (any backend), keeping ids, times, versions and provenance.

Two passes over the file: the first validates every line (a malformed line or a file cut short is refused
before anything is written) and asks the store which of its record ids, messages and banks it already holds;
with ``on_conflict="fail"`` (the default) any clash raises :class:`~memdesk.errors.ImportConflictError` and
nothing is written. The second writes in batches, each one store transaction (:meth:`Portability.restore`):
a record with its history entries, tombstones of deleted records, raw messages with their status, then banks.

Vectors are used as they are when the file carries them and they were written by the importing embedder (same
model id and dimension); otherwise each record is embedded again from its text (and each bank example from its
``embedding_text``) and stamped with the new model. An import interrupted between batches is resumed by running
it again with ``on_conflict="skip"``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np
from pydantic import Field

from ..embed.base import Embedder
from ..errors import ImportConflictError, MalformedFileError
from ..records import HistoryEntry, MemoryRecord, RawMessage
from ..store.base import EmbeddingInfo, Store
from ..store.portable import OnConflict, check_on_conflict
from .format import (
    BankItemLine, BankLine, Body, DeletedLine, Header, KindCounts, MessageLine, RecordLine, decode_vector, read_file,
)  # fmt: skip

BATCH = 500


class ImportResult(KindCounts):
    """What an import wrote and skipped."""

    replaced: int = 0
    skipped: int = Field(default=0, description="Records, messages and banks the store held already (on_conflict='skip').")
    reembedded: bool = Field(description="True when the file's vectors were not used and the texts were embedded again.")


def _lines(path: str | Path) -> tuple[Header, Iterator[tuple[int, Body]], IO[str]]:
    stream = open(path, encoding="utf-8")  # noqa: SIM115 - closed by the caller
    try:
        header, body = read_file(stream, str(path))
    except BaseException:
        stream.close()
        raise
    return header, body, stream


def _bank_conflicts(store: Store, collection: str) -> bool:
    from ..reasoning.bank import MemoryBank

    return any(store.documents(t).count() for t in MemoryBank(store, collection).tables()[1:]) or bool(
        store.collection(collection).count()
    )


def _check(store: Store, path: str | Path) -> list[str]:
    """Validate every line; the clashes with the store (empty list: none)."""
    header, body, stream = _lines(path)
    conflicts: list[str] = []
    records: list[MemoryRecord] = []
    history: list[HistoryEntry] = []
    messages: list[RawMessage] = []

    def flush() -> None:
        if records or history or messages:
            conflicts.extend(store.restore(records, None, history=history, messages=messages, check_only=True).conflicts)
        records.clear(), history.clear(), messages.clear()

    with stream:
        for n, item in body:
            if isinstance(item, RecordLine):
                records.append(item.record)
                history.extend(item.history)
                if header.vectors and item.vector is None:
                    raise MalformedFileError(str(path), f"line {n}: the header says vectors, the record has none")
            elif isinstance(item, DeletedLine):
                history.extend(item.history)
            elif isinstance(item, MessageLine):
                messages.append(item.message)
            elif isinstance(item, BankLine) and _bank_conflicts(store, item.collection):
                conflicts.append(f"bank:{item.collection}")
            if len(records) + len(messages) + len(history) >= BATCH * 4:
                flush()
        flush()
    return conflicts


class _Writer:
    """The second pass: batches of records, tombstones and messages, then banks."""

    def __init__(self, store: Store, embedder: Embedder, header: Header, on_conflict: OnConflict, path: str) -> None:
        self.store, self.embedder, self.on_conflict, self.path = store, embedder, on_conflict, path
        info = EmbeddingInfo(model_id=embedder.model_id, dim=embedder.dim)
        self.use_vectors = header.vectors and header.embedder == info
        self.dim = info.dim
        self.result = ImportResult(reembedded=not self.use_vectors)
        self.records: list[RecordLine] = []
        self.history: list[HistoryEntry] = []
        self.messages: list[RawMessage] = []
        self.skipped_banks: set[str] = set()
        self.pending_items: list[BankItemLine] = []

    def add(self, n: int, item: Body) -> None:
        if isinstance(item, RecordLine):
            self.records.append(item)
            self.history.extend(item.history)
        elif isinstance(item, DeletedLine):
            self.history.extend(item.history)
        elif isinstance(item, MessageLine):
            self.messages.append(item.message)
        elif isinstance(item, BankLine):
            self.flush()
            self.bank(item)
        elif isinstance(item, BankItemLine):
            if item.collection not in self.skipped_banks:
                self.pending_items.append(item)
                if len(self.pending_items) >= BATCH:
                    self.flush_items()
        if len(self.records) >= BATCH or len(self.history) + len(self.messages) >= BATCH * 4:
            self.flush()

    def _vectors(self, lines: list[RecordLine]) -> tuple[list[MemoryRecord], np.ndarray]:
        if self.use_vectors:
            where = f"{self.path}: a record vector"
            return [x.record for x in lines], np.vstack([decode_vector(x.vector or "", self.dim, where) for x in lines])
        recs = [x.record.model_copy(update={"embedding_model": self.embedder.model_id}) for x in lines]
        return recs, np.asarray(self.embedder.embed([r.embed_text() for r in recs]), dtype=np.float32)

    def flush(self) -> None:
        if not (self.records or self.history or self.messages):
            return
        recs, matrix = self._vectors(self.records) if self.records else ([], None)
        done = self.store.restore(recs, matrix, history=self.history, messages=self.messages, on_conflict=self.on_conflict)
        r = self.result
        r.records += done.records
        r.history += done.history
        r.messages += done.messages
        r.replaced += done.replaced
        r.skipped += len(done.skipped_records) + len(done.skipped_messages)
        self.records, self.history, self.messages = [], [], []

    def bank(self, line: BankLine) -> None:
        from ..reasoning.bank import MemoryBank

        if _bank_conflicts(self.store, line.collection):
            if self.on_conflict == "skip":
                self.skipped_banks.add(line.collection)
                self.result.skipped += 1
                return
            if self.on_conflict == "fail":  # the store changed since the first pass
                raise ImportConflictError(f"bank {line.collection!r} exists", [f"bank:{line.collection}"])
            for table in MemoryBank(self.store, line.collection).tables()[1:]:
                self.store.documents(table).delete()
            self.store.collection(line.collection).delete()
            self.result.replaced += 1
        for name, items in line.documents.items():
            self.store.documents(name).put([i for i, _ in items], [p for _, p in items])
        self.result.banks += 1

    def flush_items(self) -> None:
        items, self.pending_items = self.pending_items, []
        if not items:
            return
        texts = [_embedding_text(x.payload) for x in items]
        if self.use_vectors:
            matrix = np.vstack([decode_vector(x.vector or "", self.dim, f"{self.path}: bank item {x.id}") for x in items])
        else:
            matrix = np.asarray(self.embedder.embed([t or "" for t in texts]), dtype=np.float32)
        for collection in dict.fromkeys(x.collection for x in items):
            rows = [i for i, x in enumerate(items) if x.collection == collection]
            self.store.collection(collection).put(
                [items[i].id for i in rows], [items[i].payload for i in rows], matrix[rows], [texts[i] for i in rows]
            )
        self.result.bank_items += len(items)


def _embedding_text(payload: str) -> Any:
    try:
        return json.loads(payload).get("embedding_text")
    except (ValueError, AttributeError):
        return None


def import_file(store: Store, embedder: Embedder, path: str | Path, *, on_conflict: OnConflict = "fail") -> ImportResult:
    """Restore an export file into ``store``; see the module docstring."""
    on_conflict = check_on_conflict(on_conflict)
    conflicts = _check(store, path)
    if conflicts and on_conflict == "fail":
        raise ImportConflictError(
            f"{len(conflicts)} items of {path} are already in the store (e.g. {conflicts[:3]}): nothing was written; "
            "import with on_conflict 'skip' (keep the stored ones) or 'replace' (take the file's)",
            conflicts[:100],
        )
    header, body, stream = _lines(path)
    if store.embedding_info() is None:
        store.set_embedding_info(EmbeddingInfo(model_id=embedder.model_id, dim=embedder.dim))
    writer = _Writer(store, embedder, header, on_conflict, str(path))
    with stream:
        for n, item in body:
            writer.add(n, item)
        writer.flush()
        writer.flush_items()
    return writer.result


__all__ = ["ImportResult", "import_file"]
