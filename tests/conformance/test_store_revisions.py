"""``Store.revision(scope)``: moves when a record under the scope changes, and stays put otherwise,
whoever wrote (this store or another connection)."""

from __future__ import annotations

import pytest

from memdesk.errors import InvalidScopeError
from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.store.base import Store

from .conftest import INFO
from .helpers import unit

ANN, BOB = Scope(user_id="ann"), Scope(user_id="bob")
ANN_A1, ANN_A2 = Scope(user_id="ann", agent_id="a1"), Scope(user_id="ann", agent_id="a2")
A1 = Scope(agent_id="a1")
WATCHED = (ANN, BOB, ANN_A1, ANN_A2, A1)


def revisions(store: Store) -> dict[Scope, int]:
    return {s: store.revision(s) for s in WATCHED}


def moved(before: dict[Scope, int], after: dict[Scope, int]) -> set[Scope]:
    return {s for s in before if before[s] != after[s]}


def test_a_change_moves_the_revisions_of_the_scopes_over_it_and_no_others(store: Store, rng) -> None:
    v = unit(rng, 8)
    start = revisions(store)
    assert revisions(store) == start  # asking changes nothing
    ann_a1 = [SemanticRecord(scope=ANN_A1, fact=f"a{i}") for i in range(3)]
    bob = [SemanticRecord(scope=BOB, fact="b0")]
    store.write(bob, v[3:4])
    after_bob = revisions(store)
    assert moved(start, after_bob) == {BOB}
    everything = store.revision()
    for change, expected in (
        (lambda: store.write(ann_a1, v[:3]), {ANN, ANN_A1, A1}),
        (lambda: store.replace(ann_a1[0].model_copy(update={"fact": "changed"}), v[4]), {ANN, ANN_A1, A1}),
        (lambda: store.delete(ann_a1[1].id), {ANN, ANN_A1, A1}),
        (lambda: store.write([SemanticRecord(scope=ANN_A2, fact="x")], v[5:6]), {ANN, ANN_A2}),
        (lambda: store.delete_scope(ANN_A1), {ANN, ANN_A1, A1}),
    ):
        before = revisions(store)
        change()
        after = revisions(store)
        assert moved(before, after) == expected
        assert store.revision() != everything  # the store-wide revision moves with every change
        everything = store.revision()
        store.search(v[0], ANN, MemoryType.SEMANTIC, 3)  # reads move nothing
        list(store.scan(ANN))
        assert revisions(store) == after


def test_another_connections_commit_moves_only_the_scopes_it_wrote(two_stores: tuple[Store, Store], rng) -> None:
    a, b = two_stores
    v = unit(rng, 4)
    a.write([SemanticRecord(scope=ANN_A1, fact="a0")], v[:1])
    before = revisions(a)
    b.write([SemanticRecord(scope=BOB, fact="from b")], v[1:2])
    assert moved(before, revisions(a)) == {BOB}
    before = revisions(a)
    b.write([SemanticRecord(scope=ANN_A2, fact="from b")], v[2:3])
    a.write([SemanticRecord(scope=BOB, fact="a after b")], v[3:4])  # a's own commit right after b's
    assert moved(before, revisions(a)) == {ANN, ANN_A2, BOB}
    before = revisions(a)
    a.set_embedding_info(INFO)  # the same info again: nothing changes
    assert revisions(a) == before


def test_revision_rejects_a_bad_scope(store: Store) -> None:
    with pytest.raises(InvalidScopeError):
        store.revision("ann")  # type: ignore[arg-type]


def test_additions_since_lists_new_records_until_anything_else_changes_under_the_scope(store: Store, rng) -> None:
    v = unit(rng, 8)
    ann, bob = store.revision(ANN), store.revision(BOB)
    assert store.additions_since(ANN, ann) == []
    first = [SemanticRecord(scope=ANN_A1, fact=f"a{i}") for i in range(2)]
    store.write(first, v[:2])
    store.write([SemanticRecord(scope=BOB, fact="b0")], v[2:3])  # another scope: not listed under ANN
    later = SemanticRecord(scope=ANN_A2, fact="a2")
    store.write([later], v[3:4])
    assert store.additions_since(ANN, ann) == [first[0].id, first[1].id, later.id]  # in the order written
    assert store.additions_since(ANN_A2, store.revision(ANN_A2)) == []
    mid = store.revision(ANN)
    assert store.additions_since(BOB, bob) is not None and len(store.additions_since(BOB, bob)) == 1  # type: ignore[arg-type]
    store.replace(first[0].model_copy(update={"fact": "changed"}), v[4])  # not an addition: nothing to extend
    assert store.additions_since(ANN, ann) is None and store.additions_since(ANN, mid) is None
    after = store.revision(ANN)
    store.write([SemanticRecord(scope=ANN, fact="a3")], v[5:6])
    assert len(store.additions_since(ANN, after) or []) == 1
    store.delete(later.id)
    assert store.additions_since(ANN, after) is None
    assert store.additions_since(BOB, bob) is not None  # nothing but additions under BOB all along
    with pytest.raises(InvalidScopeError):
        store.additions_since("ann", 0)  # type: ignore[arg-type]


def test_another_connections_write_is_not_an_addition_it_can_list(two_stores: tuple[Store, Store], rng) -> None:
    a, b = two_stores
    v = unit(rng, 2)
    before = a.revision(ANN)
    b.write([SemanticRecord(scope=ANN_A1, fact="from b")], v[:1])
    assert a.revision(ANN) != before and a.additions_since(ANN, before) is None
    now = a.revision(BOB)
    b.write([SemanticRecord(scope=ANN_A2, fact="from b again")], v[1:2])
    assert a.additions_since(BOB, now) == []  # b wrote elsewhere: nothing changed under BOB


def test_the_feed_forgets_its_oldest_changes_and_then_cannot_vouch_for_them(monkeypatch) -> None:
    from memdesk.store import revisions

    monkeypatch.setattr(revisions, "IDS_KEPT", 5)
    feed = revisions.ScopeRevisions()
    start = feed.of(ANN)
    key = ("ann", None, None)
    feed.changed([key], added=[(key, "r1"), (key, "r2"), (key, "r3")])
    mid = feed.of(ANN)
    feed.changed([key], added=[(key, "r4"), (key, "r5"), (key, "r6")])  # 6 ids > 5: the first write is forgotten
    assert feed.additions_since(ANN, start) is None
    assert feed.additions_since(ANN, mid) == ["r4", "r5", "r6"]


def _held(store: Store) -> str:
    """What the store's revisions hold in memory (the stamps' scope patterns, the feed's changes), as text."""
    revisions = store._search.revisions  # type: ignore[attr-defined]
    return repr(dict(revisions._stamps)) + repr(list(revisions._feed))


def test_a_forget_leaves_no_scope_key_or_record_id_of_it_in_the_revisions(store: Store, rng) -> None:
    """The revisions keep scope keys and record ids (no text) of recent changes; after a forget none of the
    forgotten scope's is left, its scopes still look changed, and another tenant's additions stay listed."""
    v = unit(rng, 4)
    ann = [SemanticRecord(scope=ANN_A1, fact="a0"), SemanticRecord(scope=ANN, fact="a1")]
    bob = SemanticRecord(scope=BOB, fact="b0")
    before = {s: store.revision(s) for s in (ANN, ANN_A1, A1, BOB)}
    store.write(ann, v[:2])
    store.write([bob], v[2:3])
    assert "'ann'" in _held(store) and ann[0].id in _held(store)
    mid = {s: store.revision(s) for s in (ANN, ANN_A1, BOB)}
    store.forget(ANN, wildcard=True)
    held = _held(store)
    assert "'ann'" not in held and not any(r.id in held for r in ann)
    assert store.revision(ANN) != mid[ANN] and store.revision(ANN_A1) != mid[ANN_A1]
    assert store.additions_since(ANN, before[ANN]) is None and store.additions_since(ANN, mid[ANN]) is None
    assert store.revision(BOB) == mid[BOB]  # nothing of bob's changed
    # the forget stays in the feed as a change of unnamed place: an index of bob's built before it is
    # still current (its revision did not move), and after bob's next write it is rebuilt once, not extended
    assert store.additions_since(BOB, mid[BOB]) is None
    store.write([SemanticRecord(scope=BOB, fact="b1")], v[3:4])
    assert store.additions_since(BOB, mid[BOB]) is None
    rebuilt = store.revision(BOB)
    bob3 = SemanticRecord(scope=BOB, fact="b2")
    store.write([bob3], v[3:4])
    assert store.additions_since(BOB, rebuilt) == [bob3.id]


def test_everything_changed_empties_the_feed_it_could_not_vouch_across() -> None:
    """Another connection's forget reaches this store as "everything changed": the feed's earlier changes,
    which name scopes and record ids, go (no later question could be answered from them anyway)."""
    from memdesk.store.revisions import ScopeRevisions

    feed = ScopeRevisions()
    key = ("ann", None, None)
    start = feed.of(ANN)
    feed.changed([key], added=[(key, "r1")])
    assert feed.additions_since(ANN, start) == ["r1"]
    feed.everything_changed()
    assert "ann" not in repr(list(feed._feed)) and "r1" not in repr(list(feed._feed))
    assert feed.additions_since(ANN, start) is None
    now = feed.of(ANN)
    feed.changed([key], added=[(key, "r2")])
    assert feed.additions_since(ANN, now) == ["r2"]
