"""Large scopes on SQLite are searched through a persisted faiss HNSW graph (``store/ann.py``,
``store/ann_scopes.py``); here the threshold is set low and ``efSearch`` above the scope's size, so the
graph walk reaches every row and its top-k must be the exact top-k (recall 1.0, deterministically).
Recall at real sizes on real MiniLM vectors is measured in bench/bench_ann.py. Erasure of the graph
files: tests/conformance/test_store_erasure.py and tests/trust/test_erasure.py."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import numpy as np
import pytest

from memdesk.errors import ConfigError
from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.store import EmbeddingInfo, SQLiteStore
from memdesk.store.ann import HNSWGraph
from memdesk.store.ann_cold import GraphIndex
from memdesk.store.ann_files import read_pair, write_file
from memdesk.store.ann_scopes import LargeScopes
from memdesk.store.vector_index import VectorIndex

DIM = 32
INFO = EmbeddingInfo(model_id="ann-model", dim=DIM)
BIG = Scope(user_id="big")  # an exact scope key; searched, also the partial scope over SMALL
SMALL = Scope(user_id="big", agent_id="other")
MT = MemoryType.SEMANTIC
OPTIONS = {"ann_min_rows": 100, "ann_ef_search": 1024, "ann_background": False}


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def records(scope: Scope, n: int, start: int = 0) -> list[SemanticRecord]:
    return [SemanticRecord(scope=scope, fact=f"fact {start + i}", speaker="Ann" if i % 4 else "Bo") for i in range(n)]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "ann.db"


@pytest.fixture
def filled(path: Path):
    """A store with 400 records in BIG (300 Ann, 100 Bo) and 50 in SMALL; an exact twin on the same file."""
    rng = np.random.default_rng(7)
    store = SQLiteStore(path, **OPTIONS)
    store.set_embedding_info(INFO)
    store.write(records(BIG, 400), unit(rng, 400))
    store.write(records(SMALL, 50, 400), unit(rng, 50))
    exact = SQLiteStore(path, ann_min_rows=None)
    yield store, exact, rng
    store.close()
    exact.close()


def graph_of(store: SQLiteStore, scope: Scope = BIG):
    index = store._search.cache.loaded(MT.value, (scope.user_id, scope.agent_id, scope.run_id))
    return None if index is None else index.ann


def assert_same(store: SQLiteStore, exact: SQLiteStore, queries: np.ndarray, k: int = 10) -> None:
    """Every query, scope and speaker: the same ids as exact search, scores equal up to float32 rounding."""
    for q in queries:
        for scope in (BIG, SMALL, Scope(agent_id="other")):
            for speaker in (None, "Ann", "Bo", "nobody"):
                got = store.search(q, scope, MT, k, speaker=speaker)
                want = exact.search(q, scope, MT, k, speaker=speaker)
                assert [h.record.id for h in got] == [h.record.id for h in want]
                assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)


def test_a_large_scope_gets_a_graph_and_answers_like_exact_search(filled) -> None:
    store, exact, rng = filled
    assert_same(store, exact, unit(rng, 8))
    assert isinstance(graph_of(store), HNSWGraph) and len(graph_of(store)) == 400
    assert graph_of(store, SMALL) is None  # under the threshold: exact
    assert store._search.ann.builds == 1


def test_own_writes_replaces_and_deletes_update_the_graph(filled) -> None:
    store, exact, rng = filled
    q = unit(rng, 4)
    store.search(q[0], BIG, MT, 5)
    recs = list(store.scan(BIG, MT))
    store.write(records(BIG, 20, 1000), unit(rng, 20))
    store.replace(recs[0].model_copy(update={"fact": "rewritten"}), q[1])  # now the best hit of q[1]
    store.delete(recs[1].id)
    graph = graph_of(store)
    assert graph.dead == 2 and len(graph) == 419
    assert store.search(q[1], BIG, MT, 1)[0].record.id == recs[0].id
    assert recs[1].id not in {h.record.id for h in store.search(q[2], BIG, MT, 419)}
    assert_same(store, exact, q)
    assert store._search.ann.builds == 1  # incremental, no rebuild


def test_rows_with_the_same_vector_share_one_label(path: Path) -> None:
    """Hundreds of equal vectors (a fact said again and again) would fill HNSW's neighbour lists with
    each other and cut the rest of the graph off; they share one label instead, of mixed speakers."""
    rng = np.random.default_rng(11)
    same, other = unit(rng, 1), unit(rng, 150)
    with SQLiteStore(path, **OPTIONS) as store, SQLiteStore(path, ann_min_rows=None) as exact:
        store.set_embedding_info(INFO)
        store.write(records(BIG, 300), np.repeat(same, 300, axis=0))  # Ann and Bo alike
        store.write(records(BIG, 150, 300), other)
        assert_same(store, exact, np.concatenate([other[:4], same]))
        graph = graph_of(store)
        assert graph.labels == 151 and len(graph) == 450
        ids = [r.id for r in store.scan(BIG, MT)]
        store.replace(next(r for r in store.scan(BIG, MT) if r.id == ids[0]).model_copy(update={"fact": "moved"}), other[0])
        for i in ids[1:200]:
            store.delete(i)
        assert graph.labels == 151 and graph.dead == 0  # the shared label lives on with its last rows
        assert_same(store, exact, np.concatenate([other[:4], same]))


def test_many_deletes_rebuild_the_graph(filled) -> None:
    store, exact, rng = filled
    store.search(unit(rng, 1)[0], BIG, MT, 5)
    for r in list(store.scan(BIG, MT))[:150]:
        store.delete(r.id)
    assert_same(store, exact, unit(rng, 4))
    assert store._search.ann.builds == 2 and graph_of(store).dead == 0


def test_the_graph_is_read_back_after_a_restart_not_rebuilt(filled, path: Path) -> None:
    store, exact, rng = filled
    store.search(unit(rng, 1)[0], BIG, MT, 5)
    files = list(Path(f"{path}-ann").glob("*.hnsw"))
    assert len(files) == 1 and "big" not in files[0].name  # one file, named by a hash
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600 and stat.S_IMODE(files[0].parent.stat().st_mode) == 0o700
    store.close()
    with SQLiteStore(path, **OPTIONS) as again:
        assert_same(again, exact, unit(rng, 4))
        assert again._search.ann.builds == 0 and again._search.ann.cold == 1  # attached without the rows


def cold_entry(store: SQLiteStore):
    return store._search.cache.loaded(MT.value, ("big", None, None))


def test_a_restart_serves_a_current_file_without_loading_the_rows(filled, path: Path) -> None:
    """The file's stamp (the change-log id it reflects) is current: the first search maps the graph and
    reads only the hits' records; a write makes the graph a full one in memory; a speaker search
    loads the rows; close writes the file again with the unsaved writes, so the next restart is cheap too."""
    store, exact, rng = filled
    q = unit(rng, 4)
    store.search(q[0], BIG, MT, 5)
    store.close()
    with SQLiteStore(path, **OPTIONS) as again:
        for v in q:
            got, want = again.search(v, BIG, MT, 10), exact.search(v, BIG, MT, 10)
            assert [h.record for h in got] == [h.record for h in want]
            assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
        entry = cold_entry(again)
        assert isinstance(entry, GraphIndex) and entry.materialized is None and len(entry) == 400
        assert again._search.ann.cold == 1 and again._search.ann.builds == 0
        again.write(records(BIG, 1, 5000), q[:1])  # a new best hit for q[0]
        assert isinstance(entry.materialized, HNSWGraph) and len(entry) == 401
        assert again.search(q[0], BIG, MT, 1)[0].record.fact == "fact 5000"
        gone = again.search(q[1], BIG, MT, 1)[0].record.id
        again.delete(gone)
        assert gone not in {h.record.id for h in again.search(q[1], BIG, MT, 10)}
    with SQLiteStore(path, **OPTIONS) as third:  # close wrote the file with those two writes: served alone
        third.search(q[0], BIG, MT, 5)
        assert third._search.ann.cold == 1 and third._search.ann.builds == 0
        assert_same(third, exact, q[:2])
    with SQLiteStore(path, **OPTIONS) as fourth:
        fourth.search(q[0], BIG, MT, 5)
        assert isinstance(cold_entry(fourth), GraphIndex)
        assert_same(fourth, exact, q)  # speakers and partial scopes: the rows are loaded, the graph handed over
        assert not isinstance(cold_entry(fourth), GraphIndex)
        assert fourth._search.ann.cold == 1 and fourth._search.ann.builds == 0


def test_a_stale_file_after_another_connection_wrote_is_not_served_alone(filled, path: Path) -> None:
    store, exact, rng = filled
    q = unit(rng, 3)
    store.search(q[0], BIG, MT, 5)
    store.close()
    recs = list(exact.scan(BIG, MT))
    with SQLiteStore(path, ann_min_rows=None) as other:  # another process, no graphs of its own
        other.write(records(SMALL, 1, 7000), q[:1])  # another scope: the file stays current
    with SQLiteStore(path, **OPTIONS) as again:
        assert_same(again, exact, q[:1])
        assert again._search.ann.cold == 1
    for change in (
        lambda s: s.replace(recs[0].model_copy(update={"fact": "moved"}), q[1]),  # same count, other vector
        lambda s: s.delete(recs[1].id),
        lambda s: s.write(records(BIG, 1, 8000), q[2:]),
        lambda s: s.forget(Scope(user_id="nobody")),  # logs "everything": nothing is trusted
    ):
        with SQLiteStore(path, ann_min_rows=None) as other:
            change(other)
        with SQLiteStore(path, **OPTIONS) as again:
            for v in q:
                got = again.search(v, BIG, MT, 10)
                assert [h.record for h in got] == [h.record for h in exact.search(v, BIG, MT, 10)]
            assert again._search.ann.cold == 0 and again._search.ann.builds == 0  # reconciled, stamped again
        with SQLiteStore(path, **OPTIONS) as again:
            assert_same(again, exact, q[:1])
            assert again._search.ann.cold == 1


def test_a_file_of_another_database_is_not_served_alone(tmp_path: Path) -> None:
    """Two databases written alike have the same change-log ids and row counts; the file records which
    database it is of, so one copied over to the other is reconciled, not trusted."""
    rng = np.random.default_rng(5)
    v, q = unit(rng, 150), unit(rng, 2)
    for name in ("a.db", "b.db"):
        with SQLiteStore(tmp_path / name, **OPTIONS) as store:
            store.set_embedding_info(INFO)
            store.write(records(BIG, 150), v)
            store.search(q[0], BIG, MT, 5)
    (a,), (b,) = (list((tmp_path / f"{n}-ann").glob("*.hnsw")) for n in ("a.db", "b.db"))
    b.write_bytes(a.read_bytes())  # a's ids, not b's (the records' ids are random)
    with SQLiteStore(tmp_path / "b.db", **OPTIONS) as again, SQLiteStore(tmp_path / "b.db", ann_min_rows=None) as exact:
        assert_same(again, exact, q)
        assert again._search.ann.cold == 0  # (and rebuilt: none of its ids are b's)


def test_a_store_that_searches_exactly_still_erases_the_graph_files_on_forget(filled, path: Path) -> None:
    store, exact, rng = filled
    store.search(unit(rng, 1)[0], BIG, MT, 5)
    assert list(Path(f"{path}-ann").glob("*.hnsw"))
    store.close()
    exact.forget(BIG)  # a store opened with ann_min_rows=None
    assert list(Path(f"{path}-ann").iterdir()) == []


def test_forget_of_a_scope_served_from_its_file_leaves_no_file(filled, path: Path) -> None:
    store, _, rng = filled
    q = unit(rng, 1)[0]
    store.search(q, BIG, MT, 5)
    store.close()
    with SQLiteStore(path, **OPTIONS) as again:
        again.search(q, BIG, MT, 5)
        assert isinstance(cold_entry(again), GraphIndex)
        again.forget(BIG)
        assert list(Path(f"{path}-ann").iterdir()) == []
        assert all(h.record.scope == SMALL for h in again.search(q, BIG, MT, 5))


def test_close_writes_unsaved_graphs_but_not_one_another_connection_forgot(filled, path: Path) -> None:
    store, exact, rng = filled
    q = unit(rng, 2)
    store.search(q[0], BIG, MT, 5)
    (file,) = Path(f"{path}-ann").glob("*.hnsw")
    written = file.stat().st_mtime_ns
    store.close()  # nothing unsaved: the file is not written again
    assert file.stat().st_mtime_ns == written
    with SQLiteStore(path, **OPTIONS) as again:
        again.search(q[0], BIG, MT, 5)
        again.write(records(BIG, 3, 6000), unit(rng, 3))
        assert graph_of_entry(again).unsaved == 3
    with SQLiteStore(path, **OPTIONS) as third:  # the file close wrote holds the 3 rows: served alone
        assert len(third.search(q[1], BIG, MT, 500)) == 403 + 50  # (BIG covers SMALL too)
        assert third._search.ann.cold == 1 and third._search.ann.builds == 0
        third.write(records(BIG, 1, 7000), unit(rng, 1))  # unsaved, then another connection forgets the scope
        exact.forget(BIG)
        assert list(Path(f"{path}-ann").iterdir()) == []
    assert list(Path(f"{path}-ann").iterdir()) == []  # close took the forget in first: nothing written


def graph_of_entry(store: SQLiteStore):
    index = cold_entry(store)
    return index.materialized if isinstance(index, GraphIndex) else index.ann


def test_another_connections_writes_reach_the_graph_and_the_stale_file(filled, path: Path) -> None:
    store, exact, rng = filled
    q = unit(rng, 4)
    before = store.revision(BIG)
    store.search(q[0], BIG, MT, 5)
    recs = list(exact.scan(BIG, MT))
    with SQLiteStore(path, ann_min_rows=None) as other:  # another process, in effect
        other.write(records(BIG, 1, 2000), q[:1])  # a new best hit for q[0]
        other.replace(recs[0].model_copy(update={"fact": "moved"}), q[1])
        other.delete(recs[1].id)
    assert store.revision(BIG) != before
    assert store.search(q[0], BIG, MT, 1)[0].record.fact == "fact 2000"
    assert_same(store, exact, q)
    assert store._search.ann.builds == 1  # the file was read back and reconciled, not rebuilt
    with SQLiteStore(path, **OPTIONS) as fresh:  # the file predates those writes
        assert_same(fresh, exact, q)
        assert fresh._search.ann.builds == 0


def test_a_damaged_file_is_rebuilt(filled, path: Path, caplog) -> None:
    store, exact, rng = filled
    store.search(unit(rng, 1)[0], BIG, MT, 5)
    store.close()
    (file,) = Path(f"{path}-ann").glob("*.hnsw")
    file.write_bytes(file.read_bytes()[:200])
    with caplog.at_level(logging.WARNING), SQLiteStore(path, **OPTIONS) as again:
        assert_same(again, exact, unit(rng, 2))
        assert again._search.ann.builds == 1
    assert "not used" in caplog.text


def test_another_model_does_not_read_the_file(filled, path: Path) -> None:
    store, exact, rng = filled
    store.search(unit(rng, 1)[0], BIG, MT, 5)
    graph = graph_of(store)
    (file,) = Path(f"{path}-ann").glob("*.hnsw")
    write_file(file, graph, "another-model", 0, "")
    store.close()
    with SQLiteStore(path, **OPTIONS) as again:
        assert_same(again, exact, unit(rng, 2))
        assert again._search.ann.builds == 1


def test_delete_scope_removes_the_file(filled, path: Path) -> None:
    store, _, rng = filled
    store.search(unit(rng, 1)[0], BIG, MT, 5)
    assert list(Path(f"{path}-ann").glob("*"))
    store.delete_scope(BIG)
    assert list(Path(f"{path}-ann").glob("*")) == []
    assert store.search(unit(rng, 1)[0], BIG, MT, 5) == []


def test_a_large_collection_gets_a_persisted_graph_and_its_delete_removes_the_file(path: Path) -> None:
    rng = np.random.default_rng(13)
    v = unit(rng, 300)
    ids = [f"item{i}" for i in range(300)]
    with SQLiteStore(path, **OPTIONS) as store, SQLiteStore(path, ann_min_rows=None) as exact:
        store.set_embedding_info(INFO)
        store.collection("bank").put(ids, [f'{{"n": {i}}}' for i in range(300)], v)
        for q in unit(rng, 5):
            got, want = store.collection("bank").search(q, 10), exact.collection("bank").search(q, 10)
            assert [g[0] for g in got] == [w[0] for w in want]
        assert store._search.ann.builds == 1 and len(list(Path(f"{path}-ann").glob("*.hnsw"))) == 1
    with SQLiteStore(path, **OPTIONS) as again:
        assert again.collection("bank").search(v[7], 1)[0][0] == "item7"
        assert again._search.ann.builds == 0 and again._search.ann.reads == 1
        again.collection("bank").delete()
        assert list(Path(f"{path}-ann").glob("*")) == []


def test_an_in_memory_store_keeps_its_graphs_in_memory(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    with SQLiteStore(":memory:", **OPTIONS) as store:
        store.set_embedding_info(INFO)
        v = unit(rng, 200)
        store.write(records(BIG, 200), v)
        hits = store.search(v[3], BIG, MT, 1)
        assert hits[0].score == pytest.approx(1.0) and isinstance(graph_of(store), HNSWGraph)
    assert list(tmp_path.iterdir()) == []


def test_a_background_build_leaves_the_scope_exact_until_it_is_ready(filled, path: Path) -> None:
    store, exact, rng = filled
    q = unit(rng, 3)
    with SQLiteStore(path, ann_min_rows=100, ann_ef_search=1024) as background:
        assert_same(background, exact, q[:1])  # exact while the graph is built (or already with it)
        background._search.ann.wait()
        store.write(records(BIG, 3, 3000), q)  # written meanwhile (another connection's)
        assert_same(background, exact, q)
        assert isinstance(graph_of(background), HNSWGraph) and len(graph_of(background)) == 403
        assert background._search.ann.builds == 1


def test_forget_drops_a_build_under_way_and_leaves_no_file(filled, path: Path) -> None:
    store, _, rng = filled
    with SQLiteStore(path, ann_min_rows=100) as background:
        background.search(unit(rng, 1)[0], BIG, MT, 5)  # starts the build
        background.forget(BIG)
        background._search.ann.wait()
        assert background._search.ann._builds == {}  # white-box: the build's result is dropped
        hits = background.search(unit(rng, 1)[0], BIG, MT, 5)  # BIG is also the partial scope over SMALL
        assert hits and all(h.record.scope == SMALL for h in hits)
    assert not Path(f"{path}-ann").exists() or list(Path(f"{path}-ann").iterdir()) == []


def test_a_file_written_while_another_connection_changed_the_scope_is_removed(tmp_path: Path) -> None:
    """The race with another process's forget: after writing a file, ``attach`` takes in other commits
    (``sync``); if the scope's index was dropped meanwhile, the file it just wrote goes."""
    rng = np.random.default_rng(17)
    scopes = LargeScopes(tmp_path / "graphs", min_rows=10, background=False)
    index = VectorIndex.build(DIM, [f"r{i}" for i in range(50)], ["{}"] * 50, [None] * 50, unit(rng, 50))
    synced = []
    key = ("u", None, None)
    scopes.attach("semantic", [key], [index], "m", sync=lambda: synced.append(1), still_loaded=lambda k: True)
    assert synced == [1] and len(list((tmp_path / "graphs").iterdir())) == 1
    scopes.erase("semantic", [key])
    index.ann = None
    scopes.attach("semantic", [key], [index], "m", sync=lambda: synced.append(2), still_loaded=lambda k: False)
    assert synced == [1, 2] and list((tmp_path / "graphs").iterdir()) == []


@pytest.mark.parametrize(
    "options",
    [{"ann_min_rows": 0}, {"ann_min_rows": True}, {"ann_ef_search": 0}, {"ann_ef_search": "64"}]
    + [{"ann_ef_construction": v} for v in (0, -5, True, "200", 64.0)],
)
def test_bad_options_are_config_errors(tmp_path: Path, options) -> None:
    with pytest.raises(ConfigError):
        SQLiteStore(tmp_path / "x.db", **options)


def test_the_graph_is_built_with_the_configured_ef_construction_and_the_file_records_it(filled, path: Path) -> None:
    store, exact, rng = filled
    store.close()
    with SQLiteStore(path, ann_ef_construction=64, **OPTIONS) as built:
        built.search(unit(rng, 1)[0], BIG, MT, 5)
        assert graph_of(built)._index.hnsw.efConstruction == 64 and built._search.ann.builds == 1
    (file,) = Path(f"{path}-ann").glob("*.hnsw")
    graph, _ = read_pair(file, INFO.model_id, DIM)
    assert graph._index.hnsw.efConstruction == 64  # faiss's serialization holds it


def test_a_file_built_with_a_smaller_ef_construction_is_rebuilt_a_larger_one_kept(filled, path: Path) -> None:
    """A file written before the default was raised (faiss's default 40): served as it is until the
    rebuild is done (here in the search: ann_background=False), then written again; a store
    configured with less than a file's efConstruction serves that file alone, as any current one."""
    store, exact, rng = filled
    store.close()
    q = unit(rng, 3)
    with SQLiteStore(path, ann_ef_construction=40, **OPTIONS) as old:
        old.search(q[0], BIG, MT, 5)
    with SQLiteStore(path, ann_ef_construction=80, **OPTIONS) as upgraded:
        assert_same(upgraded, exact, q)
        scopes = upgraded._search.ann
        assert scopes.cold == 0 and scopes.builds == 1 and graph_of(upgraded)._index.hnsw.efConstruction == 80
    with SQLiteStore(path, ann_ef_construction=80, **OPTIONS) as again:  # the rebuilt graph's file, stamped
        again.search(q[0], BIG, MT, 5)
        assert again._search.ann.cold == 1 and again._search.ann.builds == 0
        assert_same(again, exact, q[:1])
    with SQLiteStore(path, ann_ef_construction=40, **OPTIONS) as lower:
        lower.search(q[0], BIG, MT, 5)
        assert lower._search.ann.cold == 1 and lower._search.ann.builds == 0


def test_the_graphs_copy_of_the_vectors_counts_against_cache_max_rows(path: Path) -> None:
    rng = np.random.default_rng(11)
    other = Scope(user_id="other")
    store = SQLiteStore(path, cache_max_rows=2000, **OPTIONS)
    try:
        store.set_embedding_info(INFO)
        store.write(records(BIG, 400), unit(rng, 400))
        store.write(records(other, 50, 400), unit(rng, 50))
        cache = store._search.cache
        store.search(unit(rng, 1)[0], other, MT, 5)
        assert cache.cached_rows == 51
        store.search(unit(rng, 1)[0], BIG, MT, 5)  # the graph is attached: 400 rows + 400 vectors in faiss
        assert isinstance(graph_of(store), HNSWGraph) and cache.cached_rows == 51 + 401 + 400
        store.write(records(BIG, 10, 500), unit(rng, 10))  # rows written go to the graph too
        assert cache.cached_rows == 51 + 411 + 410
        for record in list(store.scan(BIG))[:5]:
            assert store.delete(record.id)
        assert cache.cached_rows == 51 + 406 + 410  # a removed row leaves a dead label in the graph until a rebuild
        assert cache.cached_rows == sum(
            len(index) + 1 + (index.ann.vectors_held if index.ann else 0)
            for index in (cache.loaded(MT.value, (s.user_id, s.agent_id, s.run_id)) for s in (BIG, other))
        )
    finally:
        store.close()
    # under a cap that the graph's copy passes, the least recently searched scope is unloaded
    capped = SQLiteStore(path, cache_max_rows=850, **OPTIONS)
    try:
        capped.search(unit(rng, 1)[0], other, MT, 5)
        capped.search(unit(rng, 1)[0], BIG, MT, 5, speaker="Ann")  # rows loaded (a speaker search), the graph read
        # 406 rows + the graph's 410 vectors + other's 51 > 850
        assert graph_of(capped) is not None and capped._search.cache.loaded(MT.value, ("other", None, None)) is None
        assert capped._search.cache.cached_rows == 406 + graph_of(capped).vectors_held
    finally:
        capped.close()
