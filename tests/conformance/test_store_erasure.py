"""``Store.forget``: a forgotten scope leaves no row that holds its text, on every backend.

The rows are read back with plain SQL over every table of the database (:meth:`Native.rows_text`),
so a table the store forgot to clear (history, messages, scopes...) is caught whatever it is.
The byte-level scan of the SQLite files is ``tests/trust/test_erasure.py``.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.records import EpisodicRecord, HistoryEvent, MemoryType, RawMessage, Scope, SemanticRecord
from memdesk.store import SQLiteStore, sqlite_path
from memdesk.store.ann_scopes import file_stem
from memdesk.store.base import Forgotten, Store

from .conftest import INFO
from .helpers import native_for, unit

ALICE = Scope(user_id="alice")
ALICE_BOT = Scope(user_id="alice", agent_id="bot")
BOB = Scope(user_id="bob")
BOB_BOT = Scope(user_id="bob", agent_id="bot")


def _secret(scope: Scope, n: int) -> str:
    return f"zq{scope.user_id}{scope.agent_id or ''}secret{n}x"


def _fill(store: Store, scope: Scope, rng: np.random.Generator) -> list[str]:
    """Records (one updated twice, one deleted: its text goes, a tombstone stays), messages and history for
    ``scope``, every text a secret."""
    now = datetime.now(timezone.utc)
    msgs = [  # m0's metadata is long: its records share one stored copy (memdesk.store.shared_metadata)
        RawMessage(id=f"m{i}", scope=scope, speaker="Al", role="user", content=f"my pin is {_secret(scope, 10 + i)}",
                   timestamp=None, ingest_time=now, metadata={"note": _secret(scope, 20 + i), "scan": _secret(scope, 30 + i) * i * 80})
        for i in range(2)
    ]  # fmt: skip
    said = msgs[1].metadata
    recs = [SemanticRecord(scope=scope, fact=f"{_secret(scope, i)} is the code", provenance=["m1"], metadata={**said, "n": i})
            for i in range(3)]  # fmt: skip
    recs[1] = recs[1].model_copy(update={"metadata": {"own": _secret(scope, 32) * 80}})  # deleted: its copy goes with it
    recs.append(EpisodicRecord(scope=scope, title=_secret(scope, 3), summary=f"met at {_secret(scope, 4)} ☕"))
    store.write(recs, unit(rng, len(recs)), messages=msgs)
    store.replace(recs[0].model_copy(update={"fact": f"{_secret(scope, 5)} now"}), unit(rng, 1)[0])
    store.replace(recs[0].model_copy(update={"fact": f"{_secret(scope, 6)} later"}), unit(rng, 1)[0])
    store.delete(recs[1].id)
    return [r.id for r in recs]


def _secrets(scope: Scope) -> list[str]:
    return [_secret(scope, i) for i in (*range(7), 10, 11, 20, 21, 31, 32)]


def test_forget_leaves_no_row_with_the_scopes_text_and_keeps_the_others(store: Store, rng) -> None:
    alice_ids = _fill(store, ALICE, rng)
    bob_ids = _fill(store, BOB, rng)
    native = native_for(store)
    before = native.rows_text(store)
    # the deleted record's text and its own long metadata went with its delete (a tombstone stays)
    deleted = {_secret(ALICE, 1), _secret(BOB, 1), _secret(ALICE, 32), _secret(BOB, 32)}
    assert [s for s in _secrets(ALICE) + _secrets(BOB) if s not in before] == sorted(deleted)  # the check sees the rest
    assert len(store.search(unit(rng, 1)[0], ALICE, MemoryType.SEMANTIC, 5)) == 2  # warm the search cache

    got = store.forget(ALICE)

    assert got == Forgotten(records=3, messages=2, history=3 + 1 + 1 + 1, scopes=1)
    after = native.rows_text(store)
    assert [s for s in _secrets(ALICE) if s in after] == []
    assert all(s in after for s in _secrets(BOB) if s not in deleted)
    assert all(store.history(i) == [] and store.get(i) is None for i in alice_ids)
    assert store.search(unit(rng, 1)[0], ALICE, MemoryType.SEMANTIC, 5) == []
    assert store.messages(ALICE) == [] and not store.has_scope(ALICE)
    assert [e.event for e in store.history(bob_ids[0])] == [HistoryEvent.ADD, HistoryEvent.UPDATE, HistoryEvent.UPDATE]
    assert store.count(BOB) == 3 and len(store.messages(BOB)) == 2
    assert store.forget(ALICE) == Forgotten()  # nothing left to forget
    _fill(store, ALICE, rng)  # the scope can be used again
    assert store.count(ALICE) == 3


def test_forget_is_exact_unless_wildcard(store: Store, rng) -> None:
    for scope in (ALICE, ALICE_BOT, BOB_BOT):
        _fill(store, scope, rng)
    assert store.forget(ALICE).records == 3  # the exact scope: alice under agent bot stays
    assert store.count(ALICE_BOT) == 3 and store.has_scope(ALICE_BOT)
    _fill(store, ALICE, rng)
    assert store.forget(ALICE, wildcard=True).records == 6  # every scope under user alice
    assert store.count(ALICE) == 0 and store.count(BOB_BOT) == 3
    text = native_for(store).rows_text(store)
    assert [s for s in _secrets(ALICE) + _secrets(ALICE_BOT) if s in text] == []
    # a wildcard on the agent reaches every user's scope under it (an admin's call)
    _fill(store, ALICE_BOT, rng)
    assert store.forget(Scope(agent_id="bot"), wildcard=True).records == 6
    assert store.count() == 0


def test_forget_finds_records_deleted_before_it(store: Store, rng) -> None:
    """A scope whose records were all deleted one by one still has their tombstones: forget erases them."""
    ids = _fill(store, ALICE, rng)
    for i in ids:
        store.delete(i)
    assert store.count(ALICE) == 0 and store.history(ids[0])
    got = store.forget(ALICE, wildcard=True)
    assert got.records == 0 and got.history == 4  # the tombstones
    assert all(store.history(i) == [] for i in ids)
    assert [s for s in _secrets(ALICE) if s in native_for(store).rows_text(store)] == []


def test_forget_erases_the_collections_the_scope_owns_in_the_same_call(store: Store, rng) -> None:
    """``collections=``: what the scope owns outside the record tables (its reasoning banks) goes too, searched
    once so its vectors are cached; a collection not named stays."""
    _fill(store, ALICE, rng)
    for name, who in (("tenant:a/bank", "alice"), ("tenant:b/bank", "bob")):
        store.collection(name).put(["e1", "e2"], [f'{{"p": "zq{who}example"}}'] * 2, unit(rng, 2), [f"zq{who}embedded"] * 2)
        store.documents(f"{name}::meta").put(["manifest"], [f'{{"n": "zq{who}manifest"}}'])
        assert len(store.collection(name).search(unit(rng, 1)[0], 2)) == 2
    native = native_for(store)
    got = store.forget(ALICE, collections=["tenant:a/bank", "tenant:a/bank::meta", "tenant:a/bank::rejected"])
    assert got.collection_items == 3 and got.records > 0
    after = native.rows_text(store)
    assert not any(w in after for w in ("zqaliceexample", "zqaliceembedded", "zqalicemanifest"))
    assert all(w in after for w in ("zqbobexample", "zqbobembedded", "zqbobmanifest"))
    assert store.collection("tenant:a/bank").search(unit(rng, 1)[0], 2) == [] and store.collection("tenant:a/bank").count() == 0
    assert store.collections() == ["tenant:b/bank"] and store.collection("tenant:b/bank").count() == 2


def test_forget_erases_the_scopes_search_index_files(backend, request, tmp_path) -> None:
    """The HNSW graph files a file-backed store keeps beside the database (``<db>-ann/``) go with the
    scope: after ``forget`` no file under the database's folder holds a forgotten record's id or vector,
    while the other scope's graph file stays. (PostgreSQL's HNSW indexes live in the server; dropping
    them on forget is tested in tests/store/test_pg_search.py.)"""
    if backend.name != "sqlite":
        pytest.skip("only a file-backed SQLite store keeps index files")
    path = sqlite_path(backend.url(request, tmp_path))
    rng = np.random.default_rng(5)
    with SQLiteStore(path, ann_min_rows=2, ann_background=False) as store:
        store.set_embedding_info(INFO)
        vectors = {}
        for scope in (ALICE, BOB):
            recs = [SemanticRecord(scope=scope, fact=f"{_secret(scope, i)} fact") for i in range(4)]
            vectors[scope.user_id] = v = unit(rng, 4)
            store.write(recs, v)
            assert len(store.search(v[0], scope, MemoryType.SEMANTIC, 3)) == 3  # builds the graph, writes its file
        alice_ids = [r.id for r in store.scan(ALICE)]
        folder = tmp_path / "memdesk.db-ann"
        assert len(list(folder.iterdir())) == 2  # one graph per scope
        before = b"".join(p.read_bytes() for p in folder.iterdir())
        assert all(i.encode() in before for i in alice_ids)  # the scan can see them

        store.forget(ALICE)

        names = sorted(p.name for p in folder.iterdir())
        assert names == [f"{file_stem('semantic', ('bob', None, None))}.hnsw"]
        files = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
        graphs = b"".join(p.read_bytes() for p in folder.iterdir())
        assert [i for i in alice_ids if i.encode() in graphs] == []  # (the database's b-tree keeps some ids)
        assert [n for n, row in enumerate(vectors["alice"]) if row.tobytes() in files] == []
        assert all(row.tobytes() in files for row in vectors["bob"])  # bob's stay, in the database and his graph
        assert store.search(vectors["alice"][0], ALICE, MemoryType.SEMANTIC, 3) == []


def test_vacuum_keeps_everything_and_the_store_stays_usable(store: Store, rng) -> None:
    ids = _fill(store, BOB, rng)
    before = native_for(store).rows_text(store)
    store.forget(BOB)
    kept = _fill(store, ALICE, rng)
    store.vacuum()
    after = native_for(store).rows_text(store)
    assert [s for s in _secrets(BOB) if s in after] == [] and all(store.get(i) is None for i in ids)
    assert all(s in after for s in _secrets(ALICE) if s not in (_secret(ALICE, 1), _secret(ALICE, 32))) and _secret(BOB, 0) in before
    assert store.count(ALICE) == 3 and store.get(kept[0]) is not None
    assert [e.event for e in store.history(kept[0])] == [HistoryEvent.ADD, HistoryEvent.UPDATE, HistoryEvent.UPDATE]
    assert len(store.search(unit(rng, 1)[0], ALICE, MemoryType.SEMANTIC, 5)) == 2
    _fill(store, BOB, rng)  # and it takes writes again
    assert store.count(BOB) == 3
