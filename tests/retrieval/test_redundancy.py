"""The turn-level redundancy penalty: records bringing new messages are packed before ones repeating a message."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.errors import InvalidInputError
from memdesk.hits import SearchHit
from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.retrieval.redundancy import demote_repeated
from memdesk.retrieval.retrieve import Retriever
from memdesk.store import open_store

S = Scope(user_id="u")


def hit(text, prov, score, view=None):
    record = SemanticRecord(scope=S, fact=text, provenance=prov, metadata={"view": view} if view else {})
    return SearchHit(record=record, score=score, memory_type=MemoryType.SEMANTIC, rank=0, why="test")


def order(hits, penalty):
    return [h.record.fact for h in demote_repeated(hits, penalty)]


def test_a_repeat_of_a_shown_message_goes_after_new_messages_within_the_penalty():
    ranked = [hit("Ana moved to Porto", ["m1"], 3.0), hit("Ben asked where. Ana: Porto", ["m1", "m0"], 2.8),
              hit("Ana adopted a cat", ["m5"], 2.5), hit("Ana plays chess", ["m7"], 1.0)]  # fmt: skip
    assert order(ranked, 0.5) == ["Ana moved to Porto", "Ana adopted a cat", "Ben asked where. Ana: Porto", "Ana plays chess"]
    assert order(ranked, 0.1) == [h.record.fact for h in ranked]  # 2.7 still beats 2.5
    assert order(ranked, 0.0) == [h.record.fact for h in ranked]


def test_statements_of_one_message_are_separate_facts_and_never_demoted():
    ranked = [hit("Ana moved to Porto", ["m1"], 3.0, "statement"), hit("Ana works at a bakery", ["m1"], 2.9, "statement"),
              hit("Ana adopted a cat", ["m5"], 2.5)]  # fmt: skip
    assert order(ranked, 1.0) == ["Ana moved to Porto", "Ana works at a bakery", "Ana adopted a cat"]


def test_a_hit_queued_before_its_message_was_shown_is_demoted_when_released():
    # the second hit arrives before the first is released (equal scores), then shares m1 with it
    ranked = [hit("a", ["m1"], 2.0), hit("b", ["m1", "m2"], 2.0), hit("c", ["m3"], 1.8)]
    assert order(ranked, 0.5) == ["a", "c", "b"]


@given(st.lists(st.tuples(st.integers(0, 6), st.floats(-3, 3)), max_size=25), st.floats(0, 3))
def test_every_hit_comes_out_once_and_new_messages_keep_their_order(items, penalty):
    ranked = sorted((hit(f"r{i}", [f"m{m}"], s) for i, (m, s) in enumerate(items)), key=lambda h: -h.score)
    out = list(demote_repeated(ranked, penalty))
    assert sorted(h.record.fact for h in out) == sorted(h.record.fact for h in ranked)
    firsts = [h for h in out if h is next(x for x in out if x.record.provenance == h.record.provenance)]
    assert [h.score for h in firsts] == sorted((h.score for h in firsts), reverse=True)


def test_a_negative_penalty_is_refused(tmp_path):
    with pytest.raises(InvalidInputError):
        list(demote_repeated([], -1.0))
    store = open_store(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        with pytest.raises(InvalidInputError):
            Retriever.fused(store, redundancy_penalty=-0.5)
    finally:
        store.close()
