"""Whose occupation a question asks for, and whose a record states: a record stating someone else's gets no focus
bonus."""

from __future__ import annotations

import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.question_focus import RecordValues, question_focus
from memdesk.retrieval.question_role import asked_person, role_subjects, whose_role
from memdesk.retrieval.retrieve import Retriever
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


@pytest.mark.parametrize(
    "question, asked",
    [
        ("What is Priya's job?", ("priya", True)),
        ("What did Priya's uncle do for a living?", ("uncle", False)),  # the possessed noun heads the subject
        ("What does Priya's lodger Tomas do?", ("tomas", True)),
        ("What job is Tomas doing from June?", ("tomas", True)),
        ("What is the job of the week?", None),
    ],
)
def test_the_asked_person_is_the_head_of_the_question_s_subject(question, asked):
    assert asked_person(question) == asked


@pytest.mark.parametrize(
    "text, subjects",
    [
        ("her lodger Tomas is a tram driver", {"lodger", "tomas"}),
        ("Priya's uncle will help, he was a stonemason for years", {""}),  # a pronoun leaves it open
        ("Tomas has been promoted to depot supervisor", {"tomas"}),  # a verb of taking a post, auxiliaries skipped
        ("Priya started as a junior analyst at the council", {"priya"}),
        ("Tomas has started a new job as a courier", {"tomas"}),  # "job as": the nearest name before it
        ("Priya's cousin is a glassblower", {"cousin"}),  # a common noun before the verb is the subject
        ("Priya's aunt Vera is a midwife", {"aunt", "vera"}),  # the relation a name stands beside
        ("and Tomas is a courier", {"tomas"}),
        ("Priya rides a tram to the market", set()),  # no occupation
    ],
)
def test_the_subject_of_an_occupation_is_read_before_its_verb(text, subjects):
    assert role_subjects(text) == frozenset(subjects)


def test_an_occupation_answers_only_the_asked_person_s_question():
    tomas = question_focus("What is Tomas's job?")
    assert tomas.answers(RecordValues.of("and Tomas is a tram driver"))
    assert not tomas.answers(RecordValues.of("her cousin Ilse is a tram driver"))
    assert tomas.answers(RecordValues.of("he is a tram driver"))  # a pronoun: may be his
    assert whose_role(frozenset({"priya"}), ("pree", True), {"priya"})  # another name of the user's
    assert not whose_role(frozenset({"priya"}), ("uncle", False), {"priya"})  # the user's, not her uncle's


def test_the_asked_person_s_occupation_ranks_over_another_s(store):
    """Two occupations in one household: the other person's record a little closer to the question ranks under the
    asked person's, whose occupation the focus bonus now reads ("bus mechanic")."""
    put(store, SemanticRecord(scope=S, fact="partner Ilse is a ward nurse at the infirmary", speaker="Priya", provenance=["other"]),
        [1, 0.30, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="and Tomas is a bus mechanic at the depot", speaker="Priya", provenance=["his"]),
        [1, 0.36, 0])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Priya noted an unrelated errand {i}", speaker="Priya", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    hits = Retriever.fused(store, K=3).retrieve(unit([1, 0, 0]), S, query_text="What is Tomas's job?", hybrid=False)
    assert hits[0].record.provenance == ["his"]
