"""The offline answer read by the question's structure: the asked kind of value (weekdays), the asked list position,
the statement of the answer's own message that holds what is asked, a sure first hit kept, negation read in its
clause, and what held before a change (memdesk.conversation.answer_choice, answer_kinds, answer_siblings)."""

from __future__ import annotations

from memdesk.conversation.answer_choice import choose
from memdesk.conversation.answer_kinds import asks_days, names_days
from memdesk.conversation.answer_siblings import LAST, asked_position, item_numbers
from memdesk.hits import SearchHit
from memdesk.records import MemoryType, Scope, SemanticRecord

SCOPE = Scope(user_id="u")


def said(text: str, message: str, day: int = 1, *, role: str = "user", **update) -> SemanticRecord:
    """A record of message ``message``, said on 2025-03-``day``."""
    r = SemanticRecord(scope=SCOPE, speaker="Ilse", fact=text, provenance=[message], role=role)
    return r.model_copy(update={"metadata": {"said_at": f"2025-03-{day:02d}T10:00:00+00:00"}, **update})


def ranked(*records: SemanticRecord, scores: tuple[float, ...]) -> list[SearchHit]:
    return [
        SearchHit(record=r, score=s, memory_type=MemoryType.SEMANTIC, rank=i, why="test")
        for i, (r, s) in enumerate(zip(records, scores))
    ]


def text(choice) -> str:
    return choice.answer.record.text()


def test_weekdays_answer_a_question_asking_which_days():
    assert asks_days("Which days does Ilse go to the pool now?") and asks_days("On which evenings is the choir?")
    assert not asks_days("Which pool does Ilse swim in?") and not asks_days("When does Ilse swim?")
    assert names_days("the pool has lanes on Tue, Thu and Sat now") and names_days("Ilse goes Mondays and Fridays")
    assert not names_days("Ilse swims at the Westbad pool with Greta")
    ev = ranked(
        said("The Westbad gives her a lane on Tue and Thu now.", "m5", 5),
        said("Ilse goes to the day clinic with her neighbour Greta.", "m1"),
        said("Ilse bought a red bicycle.", "m2", 2),
        said("Ilse's landlord is Mr Brandt.", "m3", 3),
        said("Ilse reads crime novels.", "m4", 4),
        scores=(0.41, 0.1, 0.05, 0.04, 0.03),
    )
    assert "Tue and Thu" in text(choose("Which days does Ilse go to the pool now?", ev))


def test_the_list_item_at_the_asked_position_answers():
    assert asked_position("What should Ilse check first?") == 1
    assert asked_position("What is step 3 of the plan?") == 3
    assert asked_position("What is the last step of the checklist?") == LAST
    assert asked_position("Where does Ilse live?") is None
    assert item_numbers("Before you sign: 1) the deposit, 2) the notice period") == (1, 2)
    assert item_numbers("a 2.5 km loop") == ()
    steps = ("Ask for the meter readings.", "Photograph the walls.", "Keep the keys receipt.")
    items = [said(f"{n}. {t}", "m7", 7, role="assistant") for n, t in enumerate(steps, 1)]
    ev = ranked(items[2], items[0], items[1], said("Ilse moves flats in April.", "m2", 2), scores=(0.4, 0.3, 0.2, 0.1))
    assert text(choose("What did the assistant tell Ilse to do first at the handover?", ev)).startswith("1.")
    last = choose("What is the last step of the handover list?", ranked(*items, scores=(0.4, 0.3, 0.2)))
    assert text(last).startswith("3.")
    mates = {items[2].id: [items[0], items[1]]}  # the asked item ranked out of the evidence: read from the message
    c = choose("What should Ilse do first?", ranked(items[2], scores=(0.4,)), mates=lambda r: mates.get(r.id, []))
    assert text(c).startswith("1.")


def test_the_statement_of_the_answer_s_message_holding_what_is_asked_answers():
    age = said("Ilse's daughter Mira is 7.", "m4", 4)
    sport = said("She plays water polo on Saturday mornings.", "m4", 4)
    other = said("Ilse's brother plays chess online.", "m9", 9)
    ev = ranked(age, other, sport, scores=(0.7, 0.3, 0.2))
    assert text(choose("What sport does Ilse's daughter play?", ev)) == sport.text()
    # the statement ranked out of the evidence: read from the answer's message
    c = choose("What sport does Ilse's daughter play?", ranked(age, other, scores=(0.7, 0.3)), mates=lambda r: [sport])
    assert text(c) == sport.text()
    # an answer stating the asked kind is not left for a statement of its message stating none
    truck = said("Ilse drives the Volvo now while the Scania is repaired.", "m6", 6)
    swap = said("Ilse swapped trucks.", "m6", 6)
    c = choose("Which truck did Ilse drive while the Scania was repaired?", ranked(truck, swap, scores=(0.5, 0.4)))
    assert text(c) == truck.text()


FILLER = ("Ilse bought a red bicycle.", "Ilse's landlord is Mr Brandt.", "Ilse reads crime novels.")


def fillers(first: int = 20) -> list[SemanticRecord]:
    return [said(t, f"m{first + i}", 2) for i, t in enumerate(FILLER)]


def test_a_sure_first_hit_stating_the_asked_value_is_kept():
    new = said("The allotment fee went up to €120 a year.", "m8", 8)
    old = said("Ilse paid €90 allotment fee for the plot at the Lindenweg garden.", "m2", 2)
    ev = ranked(new, old, *fillers(), scores=(0.35, 0.14, 0.05, 0.04, 0.03))
    assert text(choose("How much is the allotment fee for Ilse's plot at the Lindenweg garden?", ev)) == new.text()


def test_a_negation_closes_what_its_own_clause_names():
    took = said("Ilse took on Sunday shifts at the Kestrel bakery for extra money.", "m2", 2)
    class_ = said("Ilse is not going to the pottery class anymore, since Ilse has Sunday shifts at the bakery.", "m6",
                  6)
    ev = ranked(took, class_, *fillers(), scores=(0.8, 0.3, 0.05, 0.04, 0.03))
    assert text(choose("Who does Ilse do Sunday shifts for?", ev)) == took.text()
    stopped = said("Ilse no longer works Sunday shifts at the Kestrel bakery.", "m9", 9)
    ev = ranked(took, stopped, *fillers(), scores=(0.8, 0.3, 0.05, 0.04, 0.03))
    assert choose("Who does Ilse do Sunday shifts for?", ev).answer is not ev[0]


def test_what_held_before_is_not_a_replaced_record_that_does_not_say_it():
    limit = said("the treasurer signs off anything over 500", "m3", 3)
    chair = said("the chair is Mr Okafor", "m3", 3, superseded_by="later")  # same message, another attribute, replaced
    chair = chair.model_copy(update={"metadata": {**chair.metadata, "embed_context": "old limit for sign-off"}})
    ev = ranked(limit, chair, *fillers(), scores=(0.42, 0.07, 0.05, 0.04, 0.03))
    assert text(choose("What was the old spending limit for sign-off?", ev)) == limit.text()
    unrelated = said("Ilse's son started sleeping 6 hour stretches", "m5", 5, superseded_by="later")
    hours = said("Ilse works 8-16 at the Linden pharmacy", "m2", 2)
    moved = said("the pharmacy moved Ilse to 9-17 from May", "m7", 7)
    ev = ranked(hours, moved, unrelated, *fillers(), scores=(0.42, 0.28, 0.03, 0.02, 0.01, 0.01))
    assert text(choose("What hours did Ilse work before the change?", ev)) == hours.text()


def test_what_held_before_is_the_adjunct_cut_from_the_first_hit_s_statement():
    race = said("Ilse's club entered her for the Lakeside relay", "m4", 4)
    when = said("on Sunday 4 May.", "m4", 4, superseded_by="later")  # the date, cut from the same statement, moved since
    when = when.model_copy(update={"metadata": {**when.metadata, "embed_context": race.text()}})
    ev = ranked(race, when, *fillers(), scores=(0.8, 0.77, 0.05, 0.04, 0.03))
    assert text(choose("What was the original date of the Lakeside relay?", ev)) == when.text()


def test_a_question_about_the_past_reads_a_replaced_statement_of_the_answer_s_message_beside_it():
    from memdesk.conversation.answer import ExtractiveAnswerer
    from memdesk.hits import Evidence

    runs = said("Ilse's passport runs out and she needs to book the renewal.", "m3", 3)
    day = said("on 3 April", "m3", 3, superseded_by="later")  # its date, cut off, closed by a later change
    ev = ranked(runs, said("Renewal done on the 10th, new passport by post.", "m8", 8), day, *fillers(),
                scores=(0.36, 0.21, 0.12, 0.05, 0.04, 0.03))
    answer = ExtractiveAnswerer().answer("When did Ilse's passport run out?", Evidence(hits=ev, text="x", tokens=1))
    assert "on 3 April" in answer.answer and runs.text() in answer.answer
