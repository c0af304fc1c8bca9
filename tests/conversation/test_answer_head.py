"""How much of a question's head a record holds (memdesk.conversation.answer_head) and the answers it picks
(answer_choice); the head itself: tests/retrieval/test_question_head.py."""

from __future__ import annotations

from memdesk.conversation.answer import NOT_DIRECT, ExtractiveAnswerer
from memdesk.conversation.answer_choice import choose
from memdesk.conversation.answer_head import held, text_stems
from memdesk.hits import Evidence, SearchHit
from memdesk.records import MemoryType, Scope, SemanticRecord
from memdesk.retrieval.question_head import NOUN_WEIGHT, asked_head
from memdesk.retrieval.stemming import stem

SCOPE = Scope(user_id="u")


def said(text: str, day: int = 1) -> SemanticRecord:
    return SemanticRecord(
        scope=SCOPE, speaker="Tomas", fact=text, metadata={"said_at": f"2025-03-{day:02d}T10:00:00+00:00"}
    )


def ranked(*records: SemanticRecord, top: float = 0.6) -> list[SearchHit]:
    """Hits best first, the first scored ``top`` (by default one the ranking is sure of)."""
    n = len(records)
    return [
        SearchHit(record=r, score=top * (1 - i / n), memory_type=MemoryType.SEMANTIC, rank=i, why="test")
        for i, r in enumerate(records)
    ]



def test_text_stems_hold_an_irregular_past_by_its_base_and_a_ment_noun_by_its_verb():
    assert stem("pay") in text_stems("Priya paid it off on Friday")
    assert stem("fall") in text_stems("Tomas fell in the garden")
    assert stem("treat") in text_stems("Treatment done with oxalic acid")


def test_held_weighs_the_head_words_a_text_holds():
    head = asked_head("Which bakery does Priya work at now?")
    assert head is not None
    assert held(head, text_stems("Priya works weekends at a bakery")) == NOUN_WEIGHT + 1.0
    assert held(head, text_stems("Priya worked late")) == 1.0
    assert held(head, text_stems("Priya likes rye bread")) == 0


def test_a_when_did_question_is_answered_by_the_record_telling_the_event():
    ev = ranked(
        said("Tomas bought a new ladder on 5 March, a red aluminium one.", 6),  # the ladder and a date, not the fall
        said("Tomas fell from the old ladder on 3 March, only a bruised elbow.", 3),
        said("Tomas paints the shed in spring."),
        said("Tomas keeps two goats."),
        said("Tomas likes strong coffee."),
    )
    assert choose("When did Tomas fall off the ladder?", ev).answer is ev[1]


def test_the_event_of_another_subject_does_not_answer():
    ev = ranked(
        said("Tomas's neighbour Mr Evans is in hospital since 2 January."),  # the subject, not the verb
        said("The old van finally fell apart on 3 March.", 3),  # the verb, of something else
        said("Tomas paints the shed in spring."),
        said("Tomas keeps two goats."),
        said("Tomas likes strong coffee."),
    )
    assert choose("When did Mr Evans fall ill?", ev).answer is ev[0]


def test_a_hit_stating_the_asked_value_of_the_asked_thing_answers_over_a_closer_one_stating_none():
    ev = ranked(
        said("Tomas's cataract surgery on the left eye is booked."),  # closest, says no date
        said("The surgery moved to 26 March, the surgeon is away.", 10),
        said("Tomas paints the shed in spring."),
        said("Tomas keeps two goats."),
        said("Tomas likes strong coffee."),
    )
    answer = ExtractiveAnswerer(label="").answer("When is Tomas's cataract surgery?", Evidence(hits=ev, text="x", tokens=1))
    assert answer.answer.startswith("The surgery moved to 26 March") and NOT_DIRECT not in answer.answer


def test_a_hit_stating_a_value_of_something_else_leaves_the_closest_with_the_label():
    ev = ranked(
        said("Tomas's cataract surgery on the left eye is booked."),
        said("Tomas's brother visits on 26 March.", 10),  # a date, of the visit
        said("Tomas paints the shed in spring."),
        said("Tomas keeps two goats."),
        said("Tomas likes strong coffee."),
    )
    answer = ExtractiveAnswerer(label="").answer("When is Tomas's cataract surgery?", Evidence(hits=ev, text="x", tokens=1))
    assert answer.answer.startswith(NOT_DIRECT) and "cataract" in answer.answer


def test_a_question_asking_for_a_set_is_answered_by_every_hit_naming_items_of_it():
    ev = ranked(
        said("Tomas finished a commission in Ashford, a walnut staircase for Mrs Hale."),
        said("Tomas keeps two goats."),
        said("New commission: a kitchen for the Brennans in Rye.", 4),
        said("Tomas likes strong coffee."),
        said("Tomas paints the shed in spring."),
    )
    text = ExtractiveAnswerer(label="").answer("Which commissions has Tomas mentioned?", Evidence(hits=ev, text="x", tokens=1)).answer
    assert "Mrs Hale" in text and "Also: New commission: a kitchen for the Brennans" in text and "goats" not in text


def test_no_parts_for_a_set_asked_as_it_is_now():
    ev = ranked(
        said("Tomas is on a commission in Ashford, a walnut staircase for Mrs Hale."),
        said("Tomas keeps two goats."),
        said("Tomas finished a commission for the Brennans in Rye.", 4),  # an older item is no part of the set now
        said("Tomas likes strong coffee."),
        said("Tomas paints the shed in spring."),
    )
    text = ExtractiveAnswerer(label="").answer("Which commissions does Tomas have now?", Evidence(hits=ev, text="x", tokens=1)).answer
    assert "Mrs Hale" in text and "Also:" not in text


def test_a_later_statement_of_the_kind_of_another_attribute_does_not_replace_the_answer_now():
    ev = ranked(
        said("The doctor changed the insulin to 10 units.", 5),
        said("Tomas takes the bus each morning now, 3 stops.", 9),  # later, a count, the question's verb: not insulin
        said("Tomas keeps two goats."),
        said("Tomas likes strong coffee."),
        said("Tomas paints the shed in spring."),
        top=0.15,
    )
    assert choose("How many units of insulin does Tomas take each morning now?", ev).answer is ev[0]
