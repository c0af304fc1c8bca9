"""``memdesk reembed`` on a store holding memories AND a reasoning bank, on SQLite and PostgreSQL.

Before issue 11 this failed after rewriting the record tables (the bank's collections were never
re-embedded), leaving a store that both the old and the new embedder refused
(EmbeddingMismatchError). Now it is checked up front, re-embeds the bank too, and resumes.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import EmbedderError, EmbeddingMismatchError, ReembedError
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder
from memdesk.reasoning.datasets import Problem
from memdesk.records import Scope
from memdesk.store.reembed import reembed_store
from memdesk.store import EmbeddingInfo, VectorTable, open_store
from tests.pg_server import postgres_server, postgres_url  # noqa: F401

ANA = Scope(user_id="ana")
PROBLEMS = [
    Problem(id=f"toy:{i}", benchmark="toy", question=f"A jar holds {i} marbles and gets 3 more. How many now?",
            answer=str(i + 3), solution=f"{i} + 3 = {i + 3}. The answer is {i + 3}.", split="train")
    for i in range(5)
]  # fmt: skip


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'reembed.db'}"
    return request.getfixturevalue("postgres_url")


def _fill(url: str, dim: int = 64) -> None:
    mem = Memory(open_store(url), HashingEmbedder(dim), RawTurnProcessor())
    mem.add([{"id": "a", "content": "Ana keeps bees on the roof"}, {"id": "b", "content": "Ana sails on Sundays"}],
            scope=ANA)  # fmt: skip
    BankBuilder(mem.store, HashingEmbedder(dim)).build("toy", "toy", PROBLEMS, [])
    mem.close()


def _info(dim: int) -> EmbeddingInfo:
    return EmbeddingInfo(model_id=f"hashing-{dim}", dim=dim)


class FailingEmbedder(HashingEmbedder):
    """Fails on its ``fail_at``-th call, as a remote embedder that goes away half-way would."""

    def __init__(self, dim: int, fail_at: int) -> None:
        super().__init__(dim)
        self.calls, self.fail_at = 0, fail_at

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == self.fail_at:
            raise EmbedderError("the embedding service went away")
        return super().embed(texts)


def test_reembed_switches_memories_and_the_bank(url: str) -> None:
    _fill(url)
    with open_store(url) as store:
        assert reembed_store(store, HashingEmbedder(128)) == 2 + 5  # two records, five bank items
    with pytest.raises(EmbeddingMismatchError):
        Memory(open_store(url), HashingEmbedder(64), RawTurnProcessor())
    new = Memory(open_store(url), HashingEmbedder(128), RawTurnProcessor())
    try:
        assert new.search("bees on the roof", scope=ANA)[0].record.provenance == ["a"]
        bank = MemoryBank(new.store, "toy")
        query = HashingEmbedder(128).embed([PROBLEMS[2].question])[0]
        assert bank.search(query, 1)[0].example.id == "toy:2"
        assert bank.manifest() is not None and bank.count() == 5
        assert reembed_store(new.store, HashingEmbedder(128)) == 0  # nothing left to do
    finally:
        new.close()


def test_an_interrupted_reembed_resumes_and_the_old_model_still_refuses(url: str) -> None:
    _fill(url)
    with open_store(url) as store:
        with pytest.raises(EmbedderError):  # records done, the bank's batch fails
            reembed_store(store, FailingEmbedder(128, fail_at=3), batch=1)
        assert store.embedding_info().model_id == "hashing-64"  # not switched: nothing half-claimed
        left = store.stale_vectors(_info(128))
        assert sum(n for n, _ in left.values()) == 5
        assert reembed_store(store, HashingEmbedder(128)) == 5  # only what was left
    with Memory(open_store(url), HashingEmbedder(128), RawTurnProcessor()) as mem:
        assert mem.search("sails", scope=ANA)[0].record.provenance == ["b"]


def test_a_collection_without_texts_is_refused_before_anything_changes(url: str) -> None:
    _fill(url)
    with open_store(url) as store:
        store.collection("opaque").put(["x"], ["{}"], np.eye(1, 64, dtype=np.float32))
        before = store.stale_vectors(_info(128))
        with pytest.raises(ReembedError) as err:
            reembed_store(store, HashingEmbedder(128))
        assert err.value.tables == ["collection 'opaque'"] and "opaque" in str(err.value)
        assert store.stale_vectors(_info(128)) == before  # nothing was rewritten
        assert store.embedding_info() == _info(64)
        store.collection("opaque").delete()
        assert reembed_store(store, HashingEmbedder(128)) == 7


def test_a_bank_written_before_migration_0002_is_moved_and_can_be_reembedded(tmp_path: Path) -> None:
    """The 0001 layout kept the manifest and rejected items in collections with placeholder vectors
    and no embedded text; 0002 moves them to documents and reads the text out of the payloads."""
    from memdesk.store import SQLITE_MIGRATIONS, SQLiteStore

    path = tmp_path / "old.db"
    SQLiteStore(path, migrations=SQLITE_MIGRATIONS[:1]).close()
    unit = np.eye(1, 64, dtype=np.float32).tobytes()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("INSERT INTO meta VALUES ('embedding_model', 'hashing-64'), ('embedding_dim', '64')")
        rows = [
            ("toy", "toy:1", '{"id": "toy:1", "embedding_text": "A jar holds marbles"}', unit, "hashing-64"),
            ("toy::meta", "manifest", '{"name": "toy"}', unit, "hashing-64"),
            ("toy::rejected", "toy:9", '{"reason": "wrong"}', unit, "hashing-64"),
        ]
        conn.executemany("INSERT INTO collection_items VALUES (?, ?, ?, ?, ?)", rows)
        conn.commit()
    with SQLiteStore(path) as store:
        assert store.collections() == ["toy"]
        assert store.documents("toy::meta").get() == [("manifest", '{"name": "toy"}')]
        assert store.documents("toy::rejected").get() == [("toy:9", '{"reason": "wrong"}')]
        table = VectorTable("collection", "toy")
        assert store.stale_page(table, _info(128)).items == [("toy:1", "A jar holds marbles")]
        assert reembed_store(store, HashingEmbedder(128)) == 1
        assert store.embedding_info() == _info(128)
