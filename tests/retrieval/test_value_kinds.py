"""Values a question asks for beyond a name, a place, a date or a count (money, a duration, a time of day, who someone
is), whether a record states one, and the fused path ranking the record with the value over one only on the topic."""

from __future__ import annotations

import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.question_focus import RecordValues, question_focus
from memdesk.retrieval.retrieve import Retriever
from memdesk.retrieval.value_kinds import asked_kind, stated_kinds
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


@pytest.mark.parametrize(
    "question, slot",
    [
        ("How much is the rent on Tobias's studio?", "money"),
        ("How much did the sofa cost in the end?", "money"),
        ("What is the deposit for the allotment?", "money"),
        ("What is Tobias's monthly budget for groceries?", "money"),
        ("What fee does the climbing gym charge?", "money"),
        ("What does the ferry cost per crossing?", "money"),
        ("How much does the parcel weigh?", "amount"),  # money or a measured quantity
        ("What does Tobias like to keep the budget in?", None),  # the money noun is not what is asked
        ("How long is the drive to the coast?", "duration"),
        ("For how long will the pool be closed?", "duration"),
        ("How much time does the glaze need?", "duration"),
        ("How long ago did Tobias move?", None),  # a point in time, not a length
        ("What time does the ferry leave?", "clock"),
        ("Until what time is the library open?", "clock"),
        ("What time zone is Tobias in?", None),  # "time" before a noun: not a time of day
        ("What qualifying time did Tobias set himself?", "time"),  # a noun before "time": a duration or a clock time
        ("Who is Ottilie?", "identity"),
        ("Who is Dr. Brandt?", "identity"),
        ("Who is Tobias's landlord?", None),  # a relation asked: a name (question_focus's "name" slot)
        ("What is the dog called?", None),
    ],
)
def test_asked_kind_reads_the_value_from_the_question_form(question, slot):
    kind = asked_kind(question)
    assert (kind[0] if kind else None) == slot


@pytest.mark.parametrize(
    "text, kinds",
    [
        ("The studio is £740 a month, bills included.", {"money", "duration"}),
        ("We paid 1.450 kr for the sofa.", {"money"}),
        ("Tobias rents two rooms on the 4th floor, no lift.", set()),  # a count and an ordinal: no amount
        ("Groceries budget is 90k won now.", {"money"}),
        ("The parcel came to 3.2 kg.", {"quantity"}),
        ("The glaze needs 45 minutes at low heat.", {"duration"}),
        ("Tobias moved three weeks ago.", set()),  # a past point, not a length
        ("Ferry leaves at 7:40, check-in closes at 7pm.", {"clock"}),
        ("Tobias finished the relay in 2:03:45.", {"duration"}),
        ("Ottilie, Tobias's neighbour, feeds the cat.", {"identity"}),
        ("Ottilie came round for tea.", set()),
        ("Ottilie is a cartographer.", {"identity"}),
    ],
)
def test_stated_kinds_find_the_values_a_record_states(text, kinds):
    assert stated_kinds(text) == kinds


def test_a_focus_on_money_is_answered_by_an_amount_not_by_a_count():
    focus = question_focus("How much is the rent on Tobias's studio?")
    assert focus is not None and focus.slot == "money"
    assert focus.answers(RecordValues.of("Rent for the studio is €615."))
    assert not focus.answers(RecordValues.of("The studio has two rooms and a tiny balcony."))
    assert not focus.answers(RecordValues.of("Tobias is fed up with the rent, the landlord never fixes anything."))


def test_weekdays_in_the_plural_and_days_from_now_are_dates():
    assert RecordValues.of("Choir practice is Wednesdays at 8.").date
    assert RecordValues.of("The new bakery opens in two weeks.").date


@pytest.mark.parametrize(
    "question, topical, valued",
    [
        ("How much is the rent on Tobias's studio?", "Tobias complains the studio rent is too high for 2 rooms",
         "For the studio Tobias pays 720 euros"),
        ("Who is Ottilie?", "Yesterday Ottilie came round with Bruno", "Ottilie is Tobias's neighbour from upstairs"),
        ("How long is the drive to the coast?", "The drive to the coast starts at 7:30 on Saturday",
         "Getting to the coast takes about 90 minutes by car"),
    ],
)
def test_the_record_with_the_asked_value_outranks_the_one_only_on_the_topic(store, question, topical, valued):
    """Both records are on the question's topic, the topical one is a little closer in meaning and states a value of
    another kind (a count for an amount, another name for who someone is, a time of day for a length); the one stating
    a value of the asked kind ranks first, and says why. Unrelated records stay below both (the bonus is gated)."""
    put(store, SemanticRecord(scope=S, fact=topical, provenance=["topic"]), [1, 0.30, 0])
    put(store, SemanticRecord(scope=S, fact=valued, provenance=["value"]), [1, 0.42, 0])
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Tobias paid 30 euros for errand {i}, it took 20 minutes", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    hits = Retriever.fused(store, K=10).retrieve(unit([1, 0, 0]), S, query_text=question)
    assert [h.record.provenance[0] for h in hits[:2]] == ["value", "topic"]
    assert "asked for" in hits[0].why


def test_the_focus_bonus_counts_more_in_a_small_scope():
    """Up to twice the weight in a scope of a few records, tending to the weight in a big one."""
    from memdesk.retrieval.question_focus import FOCUS_SCOPE, focus_scale

    assert focus_scale(0) == 2.0 and focus_scale(int(FOCUS_SCOPE)) == 1.5
    sizes = [10, 50, 200, 1000, 100_000]
    assert [focus_scale(n) for n in sizes] == sorted((focus_scale(n) for n in sizes), reverse=True)
    assert 1.0 < focus_scale(100_000) < 1.01


def test_an_occupation_places_someone_at_work_not_at_home():
    """"Where does Priya live?" is not answered by where she works: an occupation at a place is a work setting."""
    at_work = RecordValues.of("Priya is a midwife at the Ardmore clinic in Kelso.")
    assert "work" in at_work.settings
    assert not question_focus("Where does Priya live?").answers(at_work)
    assert question_focus("Where does Priya work?").answers(at_work)
    assert question_focus("Where does Priya live?").answers(RecordValues.of("Priya has a cottage in Kelso."))


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("Our son Ozzie is 6 and loves trains", True),
        ("Our cat Mumble, 12, sleeps all day", True),
        ("the twins Pia (3) and Lev (3) start nursery", True),
        ("Grandad turned 90 last week", True),
        ("the puppy is 10 weeks old", True),
        ("Ozzie's shift is 5am-1pm at the depot", False),
        ("Rent is 650 a month", False),
        ("The fair is on Thursday 22 May", False),
        ("Gate 5 opens at noon", False),
    ],
)
def test_an_age_is_a_number_of_years_said_of_someone_not_any_number(text, age):
    assert ("age" in stated_kinds(text)) is age


def test_how_old_asks_for_an_age():
    assert asked_kind("How old is Ozzie?") == ("age", frozenset({"age"}))
    focus = question_focus("How old is Ozzie?")
    assert focus.answers(RecordValues.of("Our son Ozzie is 6 and loves trains"))
    assert not focus.answers(RecordValues.of("Ozzie's shift is 5am-1pm, so Mumble waits"))


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("Packing plan: 1. Passports in the blue folder 2. Chargers", True),
        ("Before the trip it helps to: 1) water the plants, 2) stop the post", True),
        ("Week 2: knots and splices every evening", True),
        ("Tue/Thu: porridge with banana", True),
        ("Can you make Ozzie a revision plan, 4 weeks, 2 hours a night?", False),
        ("Ozzie needs a reminder system, every 2 months, next one due 1 March.", False),
        ("The fair is on 1 May.", False),
    ],
)
def test_an_item_of_a_plan_is_a_numbered_item_or_a_day_heading_what_to_do(text, steps):
    assert ("steps" in stated_kinds(text)) is steps


def test_a_question_about_what_a_plan_says_is_answered_by_an_item_of_it():
    focus = question_focus("What was week 2 of the sailing plan?")
    assert focus is not None and focus.slot == "steps"
    assert focus.answers(RecordValues.of("Sailing plan, week 2: knots and splices every evening"))
    assert not focus.answers(RecordValues.of("Can you make Ozzie a sailing plan, 4 weeks, 2 hours a night?"))
    assert question_focus("When is the first lesson of the sailing plan?").slot == "date"  # a wh-slot comes first
