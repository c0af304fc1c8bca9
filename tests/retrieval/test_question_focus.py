"""What a question asks for (a person, a place, a date, a count, a name) and whether a record states one."""

from __future__ import annotations

import pytest

from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.question_focus import QUESTION_VIEW, Focus, RecordValues, asks_about_asking, only_asks, question_focus
from memdesk.retrieval.retrieve import Retriever
from tests.retrieval_store import put, store, unit  # noqa: F401  (store: the fixture)

S = Scope(user_id="u")


@pytest.mark.parametrize(
    "question, slot",
    [
        ("Who fixed Priya's boiler?", "name"),
        ("Where does Priya keep her kayak?", "place"),
        ("When is the school play?", "date"),
        ("What day does the market open?", "date"),
        ("How many cousins does Priya have?", "count"),
        ("How old is Priya's nephew?", "age"),
        ("What is Priya's parrot called?", "name"),
        ("Which bakery sells the rye loaf?", "name"),
        ("What car does Priya drive now?", "name"),  # "what <noun> <verb>": a named thing
        ("What kind of tea does Priya drink?", None),
        ("What will Priya cook?", None),  # "what" then a verb: no noun
        ("What does Priya do on Fridays?", None),  # an activity: no value kind to look for
        ("Why did Priya quit the choir?", None),
        ("How does Priya get to the office?", None),
        ("Which is better?", None),  # "which" then a verb: no noun to name
        ("", None),
        ("¿Dónde vive Priya?", None),  # another language: no focus
        ("On which date does Priya's lease end?", "date"),  # a preposition carried before the wh-phrase
        ("At what time is the ferry?", "clock"),  # a time of day (memdesk.retrieval.value_kinds)
        ("For how many nights did Priya book the cabin?", "count"),
        ("In which village does Priya's aunt live?", "name"),
        ("From where did the parcel come?", "place"),
        ("On the whole, what did Priya think of it?", None),  # a preposition opening another phrase
    ],
)
def test_question_focus_reads_the_slot_from_the_wh_word(question, slot):
    focus = question_focus(question)
    assert (focus.slot if focus else None) == slot


def test_record_values_find_new_names_places_dates_and_counts():
    v = RecordValues.of("Priya: Our plumber is Tomek Nowak, he came on Tuesday.")
    assert {"tomek", "nowak"} <= v.names and "priya" not in v.names  # the speaker label is no name it states
    assert v.date and not v.count
    assert "tuesday" not in v.names  # a weekday is a date, not a name
    v = RecordValues.of("Priya keeps the kayak at Harbour Sheds in Portree.")
    assert {"harbour", "sheds", "portree"} <= v.places
    v = RecordValues.of("Priya's friend is Oona.")
    assert v.names == {"oona"} and not v.places  # a person, not a place
    v = RecordValues.of("The choir meets every week.")
    assert not v.names and not v.date  # a sentence's first word is capitalized anyway; "every week" is no date
    assert RecordValues.of("She has three cousins.").count and RecordValues.of("She turned 41.").count
    assert RecordValues.of("The play is on 2025-06-14.").date and RecordValues.of("It opened yesterday.").date
    party = RecordValues.of("The party is on 14 January at the lido.")  # a day of the month is a date, not a count
    assert party.date and not party.count


def test_a_name_the_question_already_says_is_no_answer():
    focus = question_focus("Who is Priya's dentist?")
    assert not focus.answers(RecordValues.of("Priya hates the dentist."))  # only the subject's own name
    assert focus.answers(RecordValues.of("Priya's dentist is Dr Farah Haddad."))
    assert not focus.answers(RecordValues.of("Priya Shah sees the dentist."), frozenset({"shah"}))  # the user's name
    assert focus == Focus("name", focus.said, person=True) and "priya" in focus.said


def test_the_record_that_states_the_asked_place_ranks_over_one_that_mentions_the_topic(store):
    """Two records on the asked topic, the one only mentioning it a little closer in meaning: the one stating a place
    ("in Ormskirk") ranks first with ``focus_weight``, the other without."""
    put(store, SemanticRecord(scope=S, fact="Priya wants help planning where to live next", provenance=["topic"]),
        [1, 0.30, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="Priya rents a cottage in Ormskirk", provenance=["place"]), [1, 0.38, 0])
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Priya noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0, 0])
    question = "Where does Priya reside?"
    focused = Retriever.fused(store, K=3, focus_weight=1.0).retrieve(q, S, query_text=question, hybrid=False)
    assert focused[0].record.provenance == ["place"] and "states the place asked for" in focused[0].why
    flat = Retriever.fused(store, K=3, focus_weight=0).retrieve(q, S, query_text=question, hybrid=False)
    assert flat[0].record.provenance == ["topic"]


def test_the_focus_bonus_is_gated_an_unrelated_record_stating_a_date_gets_none(store):
    put(store, SemanticRecord(scope=S, fact="the recital is at the town hall", provenance=["topic"]), [1, 0.2, 0])
    put(store, SemanticRecord(scope=S, fact="the bins go out on Monday", provenance=["far"]), [0, 1, 0])
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"an unrelated errand {i}", provenance=[f"f{i}"]), [0.2, 1, 0.1 * i])
    hits = Retriever.fused(store, K=3, focus_weight=3.0).retrieve(unit([1, 0, 0]), S, query_text="When is the recital?", hybrid=False)
    assert hits[0].record.provenance == ["topic"]
    assert all("asked for" not in h.why for h in hits if h.record.provenance == ["far"])


@pytest.mark.parametrize(
    "text, denied, stated",
    [
        ("Priya no longer works at the Corran clinic.", {"corran"}, set()),
        ("Priya isn't at Harbour Sheds any more.", {"harbour", "sheds"}, set()),
        ("Priya doesn't live in Ormskirk anymore; she rents in Aughton now.", {"ormskirk"}, {"aughton"}),
        ("Priya left Kestrel Books and joined Fenwick Press in June.", {"kestrel", "books"}, {"fenwick", "press"}),
        ("Priya used to live in Bootle, but now she rents a cottage in Ormskirk.", {"bootle"}, {"ormskirk"}),
        ("Priya quit the Oakfield choir.", {"oakfield"}, set()),
        ("Priya moved away from Bootle.", {"bootle"}, set()),
        ("Priya works at the Corran clinic in Oban.", set(), {"corran", "oban"}),  # nothing denied
    ],
)
def test_a_value_a_clause_negates_or_leaves_is_denied_not_stated(text, denied, stated):
    v = RecordValues.of(text)
    assert v.denied_places | v.denied_names >= denied and not (v.places & denied)
    assert v.places | v.names >= stated and not ((v.denied_places | v.denied_names) & stated)


@pytest.mark.parametrize(
    "question, current",
    [
        ("Where does Priya work?", True),
        ("Where is the recital now?", True),
        ("Who is Priya's landlord?", True),
        ("How old is Priya's nephew?", True),  # "old": a count, not the past
        ("Where does Priya run before work?", True),  # "before" inside the question: not the past
        ("Where did Priya work before?", False),
        ("Where was Priya living in 2019?", False),
        ("Who was Priya's previous landlord?", False),
        ("Which choir did Priya use to sing in?", False),
        ("Where did Priya live originally?", False),
    ],
)
def test_a_question_asks_what_holds_now_unless_it_says_the_past(question, current):
    assert question_focus(question).current is current


def test_a_denied_value_does_not_answer_what_holds_now_but_answers_the_past():
    closing = RecordValues.of("Priya no longer works at the Corran clinic.")
    both = RecordValues.of("Priya left the Corran clinic; she is a vet at Glenview now.")
    now, before = question_focus("Where does Priya work?"), question_focus("Where did Priya work before?")
    assert not now.answers(closing) and now.denies(closing)
    assert now.answers(both) and not now.denies(both)  # it says the new value too: no closing statement alone
    assert before.answers(closing) and not before.denies(closing)
    dated = question_focus("When does Priya start?")
    assert not dated.denies(closing)  # only names and places are denied


def test_a_closing_statement_ranks_under_the_record_of_what_holds_now(store):
    """"Where does Priya work?": "no longer works at the Corran clinic" shares the question's word and is a little
    closer in meaning, yet says where she does not work; it ranks under the record naming where she works now, and
    says why. Asked about the past, it is not demoted."""
    put(store, SemanticRecord(scope=S, fact="Priya no longer works at the Corran clinic", provenance=["closed"]),
        [1, 0.30, 0])  # fmt: skip
    put(store, SemanticRecord(scope=S, fact="Priya started at Glenview Veterinary last month", provenance=["now"]),
        [1, 0.36, 0])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Priya noted an unrelated errand {i}", provenance=[f"f{i}"]),
            [0, 1, 0.1 * i])  # fmt: skip
    q = unit([1, 0, 0])
    now = Retriever.fused(store, K=10).retrieve(q, S, query_text="Where does Priya work?")
    assert now[0].record.provenance == ["now"]
    closed = next(h for h in now if h.record.provenance == ["closed"])
    assert "no longer holds" in closed.why
    before = Retriever.fused(store, K=10).retrieve(q, S, query_text="Where did Priya work before?")
    assert before[0].record.provenance == ["closed"] and "no longer holds" not in before[0].why
    scores = [h.score for h in now]
    assert all(0 <= s <= 1 for s in scores) and scores == sorted(scores, reverse=True)


def test_a_name_before_the_negation_is_the_clause_s_subject_not_denied():
    v = RecordValues.of("Priya's partner Tomasz isn't into sailing, but he comes for the picnic.")
    assert "tomasz" in v.names and "tomasz" not in v.denied_names
    assert question_focus("Who is Priya's partner?").answers(v)


@pytest.mark.parametrize(
    "question, role",
    [
        ("What is Priya's job?", True),
        ("What does Priya do for a living?", True),
        ("What does Priya do?", True),
        ("What was Priya's profession before she retired?", True),
        ("What does Priya do on Sundays?", False),  # an activity, not a living
        ("What job fair is Priya going to?", True),  # asks about a job all the same: the bonus is gated
    ],
)
def test_a_question_about_a_living_asks_for_an_occupation(question, role):
    focus = question_focus(question)
    assert (focus is not None and focus.slot == "role") is role


def test_a_record_states_an_occupation_by_its_noun_or_verb():
    role = question_focus("What does Priya do for work?")
    for text in ("Priya works as a data analyst.", "Priya is a pharmacist at the market chemist.",
                 "Priya trained as a midwife.", "Priya's job is running the box office."):  # fmt: skip
        assert role.answers(RecordValues.of(text)), text
    for text in ("Priya is a member of the choir.", "Priya likes working late.", "Priya is vegetarian."):
        assert not role.answers(RecordValues.of(text)), text


@pytest.mark.parametrize(
    "text, asks",
    [
        ("Noor asked: Which ferry goes to Arran on Sundays?", True),
        ("Noor asked the assistant: Can you draft a note to the landlord?", True),
        ("Noor asked: how do we get the tent dry before packing?", True),
        ("Noor asked: Noor is coeliac, does the bakery do gluten-free bread?", False),  # a statement, then a question
        ("Noor asked: The ferry is the 9:40, right?", False),  # a tag question states what it checks
    ],
)
def test_a_question_view_only_asks_when_its_asked_part_opens_an_interrogative_clause(text, asks):
    assert only_asks(text, QUESTION_VIEW) is asks
    assert not only_asks(text, "sentence")  # only the write side's question view is a question asked


def test_a_question_about_asking_is_told_apart():
    assert asks_about_asking("What did Noor ask about the ferry?")
    assert asks_about_asking("Which question did Noor have about the lease?")
    assert not asks_about_asking("Which ferry goes to Arran?")


def test_a_question_someone_asked_ranks_under_the_record_that_answers(store):
    """The stored question sits closer to a question on its topic than the answer does; demoted as a superseded record
    is (``asking_weight``), the answer ranks first, and a question about what was asked still finds the question (the
    focus bonus is off: the answer states a name the question asks for, which alone would rank it first)."""
    asked = SemanticRecord(scope=S, fact="Noor asked: Which ferry goes to Arran on Sundays?", provenance=["asked"],
                           metadata={"view": QUESTION_VIEW})  # fmt: skip
    put(store, asked, [1, 0.2, 0])
    put(store, SemanticRecord(scope=S, fact="The Sunday ferry to Arran sails from Ardrossan at 9:40", provenance=["answer"]),
        [1, 0.45, 0])  # fmt: skip
    for i in range(8):
        put(store, SemanticRecord(scope=S, fact=f"Noor noted an unrelated errand {i}", provenance=[f"f{i}"]), [0, 1, 0.1 * i])
    q = unit([1, 0, 0])
    hits = Retriever.fused(store, K=3, focus_weight=0).retrieve(q, S, query_text="Which ferry goes to Arran on Sundays?", hybrid=False)
    assert hits[0].record.provenance == ["answer"]
    flat = Retriever.fused(store, K=3, focus_weight=0, asking_weight=None).retrieve(q, S, query_text="Which ferry goes to Arran on Sundays?", hybrid=False)
    assert flat[0].record.provenance == ["asked"]
    about = Retriever.fused(store, K=3, focus_weight=0).retrieve(q, S, query_text="What did Noor ask about the Arran ferry?", hybrid=False)
    assert about[0].record.provenance == ["asked"]


@pytest.mark.parametrize(
    "question, setting",
    [
        ("Where does Priya live these days?", "home"),
        ("Where is Priya's new flat?", "home"),
        ("Where did Priya move to?", "home"),
        ("Where does Priya work now?", "work"),
        ("Where is Priya's new job?", "work"),
        ("Where is the christening?", None),  # neither: any place answers
    ],
)
def test_a_where_question_names_home_or_work(question, setting):
    assert question_focus(question).setting == setting


def test_a_record_placing_someone_at_work_does_not_answer_where_they_live():
    home, work = question_focus("Where does Priya live now?"), question_focus("Where does Priya work?")
    at_work = RecordValues.of("Priya started at Wirral General last month.")
    at_home = RecordValues.of("Priya rents a flat in Birkenhead near the park.")
    plain = RecordValues.of("The christening is at St Saviour's.")  # no setting: answers either
    assert not home.answers(at_work) and home.answers(at_home) and home.answers(plain)
    assert work.answers(at_work) and not work.answers(at_home) and work.answers(plain)


def test_a_question_about_when_something_happened_is_not_answered_by_a_plan_s_date():
    happened = question_focus("When did Priya's choir perform the Requiem?")
    upcoming = question_focus("When is Priya's choir performing the Requiem?")
    plan = RecordValues.of("The choir wants to perform the Requiem next spring, maybe in April.")
    done = RecordValues.of("The choir sang the Requiem on 12 April at St Luke's.")
    assert plan.plan and not done.plan
    assert happened.answers(done) and not happened.answers(plan)
    assert upcoming.answers(done) and upcoming.answers(plan)  # what is to come: a plan's date answers


def test_a_who_question_is_not_answered_by_a_place_name():
    """"Who ...?" asks for a person: a name that a preposition of where opens ("a flat in Portobello") is a place; "Which
    ...?" may ask for a place's name, so it still counts there."""
    who, which = question_focus("Who fixed Priya's boiler?"), question_focus("Which town did Priya pick?")
    place, person = RecordValues.of("Priya bought a flat in Portobello"), RecordValues.of("the boiler man was Dai Morgan")
    assert not who.answers(place) and who.answers(person)
    assert who.answers(RecordValues.of("the boiler is serviced by Dai Morgan"))  # "by": an agent, not a place
    assert which.answers(place)
