"""Two records holding one asked attribute: the later first, asked what holds now (memdesk.retrieval.same_attribute)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.retrieve import Retriever
from memdesk.retrieval.same_attribute import asked_terms, held_terms, later_first, same_attribute
from memdesk.retrieval.stemming import StemmingTokenizer
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")
TOKENS = StemmingTokenizer()


@pytest.mark.parametrize(
    "question, terms",
    [
        ("Who is Tom's piano teacher now?", {"piano", "teacher"}),  # the owner's name is not the attribute
        ("Does Orla still swim on Thursdays?", {"swim", "thursday"}),  # a day is a value, not a name
        ("How many rupees does Kofi pay for the stall now?", {"mani", "pay", "stall"}),  # a unit of money measures any amount
        ("What does Lena play now instead of chess?", {"play", "chess"}),  # "instead" asks for a new value
        ("Who is the new club captain these days?", {"club", "captain"}),
    ],
)
def test_the_asked_terms_are_the_words_naming_the_attribute(question, terms):
    assert asked_terms(question, TOKENS, frozenset({"Lena"})) == terms


def test_a_word_inside_a_name_is_not_held():
    # "Harbour" in "the Harbour Cafe" names a place; the record says nothing of the harbour
    assert "harbour" not in held_terms("The quiz moved to the Harbour Cafe.", TOKENS)
    assert "harbour" in held_terms("Harbour walks are on Sundays. We walk to the harbour.", TOKENS)


def _vectors(*cosines_to_first: float) -> np.ndarray:
    """Unit vectors whose cosine to the first is each of ``cosines_to_first`` (the first's own is 1)."""
    return np.array([[c, np.sqrt(1 - c * c), 0.0] for c in (1.0, *cosines_to_first)], dtype=np.float32)


def test_two_records_hold_one_attribute_by_an_asked_word_a_value_kind_and_their_cosine():
    asked = asked_terms("Who is Tom's piano teacher now?", TOKENS)
    texts = [
        "Tom's piano teacher is Mrs Hale.",
        "Mrs Hale retired, so Tom has a new teacher, Mr Okafor.",  # the asked word, a person: the same attribute
        "Tom played the Piano Grand Hall last spring with Ana.",  # "Piano" only inside a name
        "Tom's teacher said the recital went well.",  # the asked word but no person named (answers: False)
        "Tom's teacher at school is Ms Pike.",  # the asked word and a person, but far apart
    ]
    answers = [True, True, True, False, True]
    same = same_attribute(texts, _vectors(0.45, 0.5, 0.5, 0.2), asked, TOKENS, answers)
    assert same[0].tolist() == [True, True, False, False, False]
    assert same[1, 0] and not same[3].any()
    assert not same_attribute(texts, _vectors(0.45, 0.5, 0.5, 0.2), asked, TOKENS, answers, least=0.5)[0, 1]
    assert not same_attribute(texts, _vectors(0.45, 0.5, 0.5, 0.2), frozenset(), TOKENS).any()  # nothing asked


def test_the_later_record_on_one_attribute_is_put_above_the_earlier():
    z = np.array([5.0, 3.0, 4.0, 0.5, 2.0])
    said = np.array([10.0, 30.0, 20.0, 40.0, np.nan])
    related = np.ones((5, 5), dtype=bool)
    out = later_first(z, said, lambda best: related[np.ix_(best, best)], gate=1.0, margin=0.01)
    # 1 (said last among those above the gate) stays; 2 goes just below it, 0 just below 2; 3 is below the gate and
    # moves nothing; 4 has no time and neither moves nor is moved
    assert out.tolist() == pytest.approx([2.98, 3.0, 2.99, 0.5, 2.0])
    assert np.argsort(-out, kind="stable").tolist()[:3] == [1, 2, 0]
    speakers = np.array(["ana", "ben", "ana", "ana", "ana"], dtype=object)  # one person's later word, not another's
    apart = later_first(z, said, lambda best: related[np.ix_(best, best)], gate=1.0, speakers=speakers)
    assert apart.tolist() == pytest.approx([3.99, 3.0, 4.0, 0.5, 2.0])
    unrelated = later_first(z, said, lambda best: np.zeros((len(best), len(best)), dtype=bool), gate=1.0)
    assert unrelated.tolist() == z.tolist()


def _said(day: int) -> dict:
    return {"said_at": datetime(2025, 3, day, tzinfo=timezone.utc).isoformat()}


def _scope(store) -> None:
    """An earlier record close to the question and a later one on the same attribute in other words: its vector is too
    far from the first's (cosine about 0.5) for one topic (``later_on_topic``: 0.6)."""
    put(store, SemanticRecord(scope=S, fact="Tom's piano teacher is Mrs Hale", provenance=["old"], metadata=_said(1)),
        [1, 0.2, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="Mrs Hale retired, so Tom's new piano teacher is Mr Okafor", provenance=["new"],
        metadata=_said(20)), [0.55, 0.1, 0.83])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Tom noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip


def test_asked_what_holds_now_the_later_record_on_the_attribute_ranks_first(store):
    _scope(store)
    q = unit([1, 0.2, 0])
    question = "Who is Tom's piano teacher now?"
    now = Retriever.fused(store, K=10, change_weight=0).retrieve(q, S, query_text=question)
    assert now[0].record.provenance == ["new"]
    assert "a later record on its topic follows it" in next(h.why for h in now if h.record.provenance == ["old"])
    off = Retriever.fused(store, K=10, change_weight=0, now_weight=0).retrieve(q, S, query_text=question)
    assert off[0].record.provenance == ["old"]  # now_weight 0: neither record is ranked for what holds now
    plain = Retriever.fused(store, K=10, change_weight=0).retrieve(q, S, query_text="Who is Tom's piano teacher?")
    assert plain[0].record.provenance == ["old"]  # not asked what holds now: the ranking's order


def test_a_later_record_sharing_only_the_owner_s_name_moves_nothing(store):
    _scope(store)
    q = unit([1, 0.2, 0])
    question = "Who is Tom's violin tutor now?"  # no asked word in either record but the name
    now = Retriever.fused(store, K=10, change_weight=0).retrieve(q, S, query_text=question)
    assert now[0].record.provenance == ["old"]
