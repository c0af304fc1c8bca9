"""The attribute a question asks about, its head, and the records holding it (memdesk.retrieval.question_head)."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.lexical import BM25Index
from memdesk.retrieval.question_head import asked_head, head_words, holding
from memdesk.retrieval.retrieve import Retriever
from memdesk.retrieval.stemming import StemmingTokenizer
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")
TOKENS = StemmingTokenizer()


@pytest.mark.parametrize(
    "question, head",
    [
        ("When did Priya trip over her scooter?", ["trip"]),  # the act asked about, not what it was done to
        ("Who did Priya sell her scooter to?", ["sell", "scooter"]),  # the verb and its object, up to a preposition
        ("When is Ivo's name day?", ["name", "day"]),  # the subject's owner is whose, not what
        ("On which day is Ivo's pottery lesson now?", ["pottery", "lesson"]),  # "which day": the kind of value
        ("What mark did Ivo get in geology?", ["mark"]),  # a light verb: the question word's noun names it
        ("Who coaches Ivo's rowing crew?", ["coaches", "rowing", "crew"]),  # no auxiliary: from the verb
        ("Did Priya renew the Starling policy?", ["renew", "policy"]),
        ("When did the shearing of Ivo's flock happen?", ["shearing"]),
        ("Thanks, that helps.", []),  # not a question
    ],
)
def test_the_head_is_the_predicate_past_the_subject(question, head):
    assert head_words(question) == head


def test_the_asked_terms_leave_out_words_of_now_and_the_user_s_names():
    assert asked_head("What does Priya pay for parking now?", TOKENS, frozenset({"Priya"})) == {"pay"}
    assert asked_head("Where does Priya Kaur live these days?", TOKENS, frozenset({"Priya Kaur"})) == {"live"}
    assert asked_head(None, TOKENS) == frozenset()


def test_which_records_hold_a_term_is_read_from_the_postings():
    bm25 = BM25Index(["Priya tripped on the kerb", "Priya's scooter is blue", "Priya trips often"], tokenizer=TOKENS)
    held = holding(bm25, asked_head("When did Priya trip over her scooter?", TOKENS), np.array([2, 1, 0]))
    assert held.tolist() == [True, False, True]


def _scope(store) -> None:
    """The record about the asked act ("trip") and one about the scooter it was done to, which states a date too (a
    model year), is a little closer to the question and shares its object word; both stand well above the chores."""
    put(store, SemanticRecord(scope=S, fact="Priya's scooter is a 2021 Vespa, green, Priya calls it Olive.",
        provenance=["scooter"]), [1, 0.3, 0])  # fmt: skip
    trip = "Priya had a trip on Friday (2025-03-07), slipped on wet leaves, only a bruise."
    put(store, SemanticRecord(scope=S, fact=trip, provenance=["trip"]), [1, 0.36, 0.1])
    for i in range(30):
        put(store, SemanticRecord(scope=S, fact=f"Priya mentioned an unrelated chore {i}", provenance=[f"f{i}"]),
            [0.02 * i, 1, 0.05 * (i % 7)])  # fmt: skip


def test_the_record_holding_the_asked_act_ranks_over_one_about_what_it_was_done_to(store):
    _scope(store)
    q = unit([1, 0.28, 0])
    question = "When did Priya trip over her scooter?"
    hits = Retriever.fused(store, K=10).retrieve(q, S, query_text=question)
    assert hits[0].record.provenance == ["trip"]
    assert "holds the attribute asked about" in hits[0].why  # the bonus is named in the hit's raw signals
    assert "holds the attribute asked about" not in hits[1].why
    off = Retriever.fused(store, K=10, head_weight=0).retrieve(q, S, query_text=question)
    assert off[0].record.provenance == ["scooter"]  # without the head bonus: the closer record about the scooter
