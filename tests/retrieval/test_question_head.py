"""The attribute a question asks about, its head, and the records holding it (memdesk.retrieval.question_head)."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.lexical import BM25Index
from memdesk.retrieval.question_head import NOUN_WEIGHT, asked_head, head_terms, holding
from memdesk.retrieval.retrieve import Retriever
from memdesk.retrieval.stemming import StemmingTokenizer, stem
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")
TOKENS = StemmingTokenizer()


@pytest.mark.parametrize(
    "question, words",
    [
        ("When did Priya trip over her scooter?", ("trip",)),  # the act asked about, not what it was done to
        ("Who did Priya sell her scooter to?", ("sell",)),  # the verb past the subject, not its object
        ("On which day is Ivo's pottery lesson now?", ("pottery", "lesson")),  # "which day": the kind of value
        ("What mark did Ivo get in geology?", ("mark",)),  # a light verb: the question word's noun names it
        ("Who coaches Ivo's rowing crew?", ("coaches",)),  # no auxiliary: the verb after the wh-word
        ("When did the shearing of Ivo's flock happen?", ("shearing",)),
    ],
)
def test_the_head_words_as_the_question_writes_them(question, words):
    head = asked_head(question)
    assert head is not None and head.words == words


@pytest.mark.parametrize("question", ["Did Priya renew the Starling policy?", "When is Ivo's name day?", "Thanks."])
def test_no_head_for_a_yes_no_question_a_kind_noun_alone_or_no_question(question):
    assert asked_head(question) is None
    assert head_terms(question, TOKENS) == frozenset()


def test_the_read_path_looks_for_the_predicate_the_wh_phrase_only_when_nothing_else_is_left():
    head = asked_head("Which firm does Arjun work for?")
    assert head is not None and head.words == ("firm", "work") and head.predicate == ("work",)
    assert head_terms("Which firm does Arjun work for?", TOKENS) == {"work"}  # a firm's name is of the kind, not it
    grade = asked_head("What grade did Ana get?")
    assert grade is not None and grade.predicate == ("grade",)  # a light verb: the wh-phrase names the attribute
    run = asked_head("When is the Harbour Run now?")
    assert run is not None and run.kind == () and run.predicate == ("Harbour", "Run")


def test_the_head_terms_leave_out_words_of_now_and_the_user_s_names():
    assert head_terms("What does Priya pay for parking now?", TOKENS, frozenset({"Priya"})) == {"pay"}
    assert head_terms("Where does Priya Kaur live these days?", TOKENS, frozenset({"Priya Kaur"})) == {"live"}
    assert head_terms("How much does Priya Kaur pay for rent now?", TOKENS, frozenset({"Priya Kaur"})) == {"pay"}
    assert head_terms(None, TOKENS) == frozenset()


def test_which_records_hold_a_term_is_read_from_the_postings():
    bm25 = BM25Index(["Priya tripped on the kerb", "Priya's scooter is blue", "Priya trips often"], tokenizer=TOKENS)
    held = holding(bm25, head_terms("When did Priya trip over her scooter?", TOKENS), np.array([2, 1, 0]))
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


def weights(question: str) -> dict[str, float]:
    head = asked_head(question)
    assert head is not None
    return dict(head.weights)


def test_the_head_is_the_wh_noun_and_the_verb_after_the_subject():
    assert weights("Which bakery does Priya work at now?") == {stem("bakery"): NOUN_WEIGHT, stem("work"): 1.0}
    assert weights("When did Tomas fall off the ladder?") == {stem("fall"): 1.0}
    assert weights("When did the village choir perform?") == {stem("perform"): 1.0}
    assert weights("Which language should the helper answer Lena in?") == {stem("language"): NOUN_WEIGHT, stem("answer"): 1.0}


def test_a_question_with_be_asks_of_its_subject_and_a_kind_noun_of_what_follows_of():
    assert weights("How much is the rent in Leeds?") == {stem("rent"): NOUN_WEIGHT}
    assert weights("What are the names of Omar's cousins?") == {stem("cousins"): NOUN_WEIGHT}
    assert weights("When was the harbour fair held?") == {stem("harbour"): 1.0, stem("fair"): NOUN_WEIGHT, stem("hold"): 1.0}


def test_no_head_without_a_wh_word_or_with_only_light_verbs_and_kind_nouns():
    assert asked_head("Does Tomas still drive?") is None
    assert asked_head("What did the assistant say?") is None
    assert asked_head("On what day did Tomas go?") is None


def test_past_event_reads_when_did_and_the_subject_names():
    head = asked_head("When did Tomas fall off the ladder?")
    assert head is not None and head.past_event() and head.names == (stem("tomas"),)
    later = asked_head("When is the harbour fair?")
    assert later is not None and not later.past_event()
    passive = asked_head("When was the garden fence painted?")
    assert passive is not None and passive.past_event() and passive.verb == stem("paint")



def test_the_subject_s_name_is_no_head_word_when_the_wh_phrase_names_one():
    assert weights("Which team was Lena picked for?") == {stem("team"): NOUN_WEIGHT, stem("pick"): 1.0}
    assert weights("When is the Harbour Run now?") == {stem("harbour"): 1.0, stem("run"): NOUN_WEIGHT}
