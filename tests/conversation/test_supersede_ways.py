"""More ways a change is said (issue 28, fourth session): a dropped subject, accented names, a workplace named by a
common noun, a job got with no employer named, things that end by being over, closing or left for, amounts in
any currency, rates, percentages, spans of the clock, and replies that restate a value that went."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.endings import ended_claims, mentions
from memdesk.conversation.facts import claims_of, with_subject
from memdesk.conversation.memory import Memory
from memdesk.conversation.replies import old_values, restates
from memdesk.conversation.updates import topic_terms, update_of, values_of
from memdesk.records import Scope

S = Scope(user_id="ines")
T0 = datetime(2025, 5, 6, 9, 0, tzinfo=timezone.utc)


def keyed(text: str) -> set[tuple[str, str | None, str]]:
    return {(c.key, c.value, c.op) for c in claims_of(text)}


@pytest.mark.parametrize(
    "text,subjected",
    [
        ("Moved to Hove on Friday.", "I moved to Hove on Friday."),
        ("Update: sold the piano last week.", "Update: I sold the piano last week."),
        ("Finally quit the agency!", "Finally I quit the agency!"),
        ("Speed is what matters.", "Speed is what matters."),  # a noun, not a verb
        ("Red suits you.", "Red suits you."),
    ],
)
def test_a_dropped_subject_is_the_speaker(text: str, subjected: str) -> None:
    assert with_subject(text) == subjected


@pytest.mark.parametrize(
    "text,claim",
    [
        ("Relocated to Santa Cruz de Tenerife in March.", ("residence", "Santa Cruz de Tenerife", "set")),
        ("We moved to Vila Nova de Gaia last month.", ("residence", "Vila Nova de Gaia", "set")),
        ("Émile and I split up in the spring.", ("partner", "Émile", "end")),
        ("I'm seeing Øystein now.", ("partner", "Øystein", "set")),
        ("I'm a line cook at a seafood restaurant by the harbour.", ("employer", "seafood restaurant", "set")),
        ("I work weekends at a garden centre shop.", ("employer", "garden centre shop", "set")),
        ("I handed in my notice at the clinic.", ("employer", "clinic", "end")),
        ("Left the bakery on Friday, bittersweet.", ("employer", "bakery", "end")),
        ("Monday was my first day at Orla Health.", ("employer", "Orla Health", "set")),
        ("My first week in the Tidewater office went fine.", ("employer", "Tidewater", "set")),
        ("Guess what, I got a job!", ("employer", "job", "set")),
        ("Started a new job this week, it's a lot.", ("employer", "new job", "set")),
        ("I've jacked in the saxophone.", ("negation", "saxophone", "end")),
    ],
)
def test_more_ways_of_saying_a_change(text: str, claim: tuple[str, str | None, str]) -> None:
    assert claim in keyed(text)


@pytest.mark.parametrize(
    "text",
    [
        "Tomorrow is my first day at school, says my nephew.",  # lowercase: no named employer
        "I left the keys at the bakery.",  # left something somewhere: no workplace left
        "Tomorrow is my first appointment.",
        "My job interview went well!",
    ],
)
def test_no_employer_change_where_none_is_said(text: str) -> None:
    assert not any(k == "employer" for k, _, _ in keyed(text))
    assert not any(k.startswith("role") for k, _, _ in keyed(text))


@pytest.mark.parametrize(
    "text,thing",
    [
        ("Lent is over, so chocolate is back.", "Lent"),
        ("The festival is off this year.", "festival"),
        ("Harbour Books is closing down in June.", "Harbour Books"),
        ("Marek left for Gdynia in the summer.", "Marek"),
        ("Also Tilde died in her sleep.", "Tilde"),  # a clause opener is no part of the name
        ("No more early morning swims for me.", "early morning swims"),
    ],
)
def test_things_that_end(text: str, thing: str) -> None:
    assert thing in {c.value for c in ended_claims(text)}


@pytest.mark.parametrize(
    "text",
    [
        "Nadia quit smoking last year.",
        "If the festival is off we'll stay home.",
        "Not sure the course is over yet.",
        "The roof is finished at last.",  # a thing made is finished, and stays
    ],
)
def test_no_thing_ends_where_nothing_does(text: str) -> None:
    assert not ended_claims(text)


def test_a_long_thing_is_named_by_all_but_one_of_its_words() -> None:
    assert mentions("dodgy gas boiler", "The gas boiler leaks.")
    assert not mentions("dodgy gas boiler", "The gas kettle leaks.")
    assert not mentions("gas hob", "The hob is electric.")  # two words: both


@pytest.mark.parametrize(
    "text,kind,value",
    [
        ("Rent is 9,500 rupees a month.", "money", "9500 rupees"),
        ("She earns 2 million naira a year.", "money", "2 million naira"),
        ("My tutor charges 30 an hour.", "money", "30 an hour"),
        ("Savings are up to 12% of my pay.", "percent", "12"),
        ("I work 9pm to 5am on Sundays.", "clock", "9pm 5am"),
    ],
)
def test_amounts_rates_percentages_and_spans(text: str, kind: str, value: str) -> None:
    assert value in values_of(text).get(kind, set())


def test_a_span_of_the_clock_is_one_value_and_a_currency_says_what_an_amount_is_of() -> None:
    assert values_of("on lates, 2pm to 10pm")["clock"] != values_of("on earlies now, 10pm to 2pm")["clock"]
    assert "rupe" in topic_terms("Rent is 9,500 rupees a month.")  # the stem of "rupees"
    assert update_of("Bumped my prices, starting Monday: 40 an hour.") is not None
    assert update_of("Small change: the course starts a week later, on 9 June.") is not None


def test_a_reply_that_restates_the_old_value_goes_with_it() -> None:
    typed, named = old_values("My rent is 9,500 rupees a month.", [], "Rent went up to 11,000 rupees.")
    assert restates("On 9,500 rupees, keep 3,000 aside for food.", typed, named)
    assert not restates("Keep a third aside for food.", typed, named)



def said(mem: Memory, *turns: tuple[str, str]) -> list[str]:
    """Add each (role, line) a minute apart; the current memories' texts."""
    for i, (role, line) in enumerate(turns):
        who = "Ines" if role == "user" else "Assistant"
        mem.add([{"content": line, "speaker": who, "role": role, "timestamp": T0 + timedelta(minutes=i)}], scope=S)
    return [r.text() for r in mem.get_all(scope=S)]


def test_replies_follow_the_value_they_restate(mem: Memory) -> None:
    now = said(
        mem,
        ("user", "My rent is 9,500 rupees a month and I want to save more."),
        ("assistant", "With rent at 9,500 rupees, try putting 2,000 rupees aside first."),
        ("user", "My rent went up to 11,000 rupees from June."),
    )
    assert not any("9,500" in t for t in now)
    assert any("11,000" in t for t in now)


def test_a_new_job_closes_the_old_workplace_not_the_home(mem: Memory) -> None:
    now = said(
        mem,
        ("user", "I'm a sous chef at a tapas restaurant in Gràcia."),
        ("user", "I live in Sants with two flatmates."),
        ("user", "Big news: got a new job! Monday was my first day at Cala Foods."),
    )
    assert not any("tapas" in t for t in now)
    assert any("Sants" in t for t in now)


@pytest.mark.parametrize(
    "text,claim",
    [
        ("And Bronagh is moving to Galway!", ("residence:bronagh", "Galway", "set")),
        ("So Wiktor has moved back to Poznań.", ("residence:wiktor", "Poznań", "set")),
        ("My cousin Dara is moving to Cork in May.", ("residence:cousin dara", "Cork", "set")),
        ("I'm living with my aunt in Tralee now.", ("residence", "Tralee", "set")),
        ("We moved out of our flat in Rathmines.", ("residence", "Rathmines", "end")),
    ],
)
def test_homes_that_move(text: str, claim: tuple[str, str | None, str]) -> None:
    assert claim in keyed(text)


def test_a_named_persons_move_closes_their_home_not_the_speakers() -> None:
    from memdesk.conversation.supersede import replaces

    theirs = next(c for c in claims_of("Wiktor is moving to Gdańsk.") if c.attribute == "residence")
    assert replaces(theirs, next(c for c in claims_of("My brother Wiktor lives in Poznań.") if c.attribute == "residence"))
    assert not replaces(theirs, next(c for c in claims_of("I live in Łódź.") if c.attribute == "residence"))


@pytest.mark.parametrize(
    "text,old,closes",
    [
        ("I walk the dog at lunchtime now, not in the evening.", "I walk the dog in the evening.", True),
        ("We do the big shop on Saturdays now instead of Thursdays.", "We do the big shop on Thursdays.", True),
        ("Rent is 900 a month now instead of 850.", "Rent is 850 a month.", True),
        ("I walk the dog at lunchtime now, not in the evening.", "I read in the evening.", False),  # not what the value is of
        ("I walk the dog at lunchtime now, not in the evening.", "I never walk the dog in the evening.", False),
        ("If we shop on Saturdays now instead of Thursdays, fine.", "We do the big shop on Thursdays.", False),
    ],
)
def test_a_new_value_said_against_the_old_one(text: str, old: str, closes: bool) -> None:
    from memdesk.conversation.topics import contrast_claim, contrasts

    claim = contrast_claim(text)
    assert (claim is not None and contrasts(claim, old)) is closes


def test_a_phone_number_is_one_value() -> None:
    assert values_of("Call me on 44 7911 1234 after six.")["number"] == {"44 7911 1234"}
    assert "number" not in values_of("We paid 1,200 in 2024.")


@pytest.mark.parametrize(
    "sentence,statements",
    [
        (
            "Quick one: I live in Ghent with my cat Pippa, a shy tabby, and she's been off her food since Monday.",
            ["Quick one: I live in Ghent.", "My cat is called Pippa, a shy tabby.", "She's been off her food since Monday."],
        ),
        (
            "I rent a room in Salford with him, he's in his final year of medicine.",
            ["I rent a room in Salford with him.", "He's in his final year of medicine."],
        ),
        ("We live in Brno with our dog, Fík.", ["We live in Brno.", "Our dog is called Fík."]),
        ("I asked Noor, she said yes.", ["I asked Noor, she said yes."]),  # too short to stand alone
    ],
)
def test_a_compound_statement_becomes_statements(sentence: str, statements: list[str]) -> None:
    from memdesk.conversation.atoms import atoms

    assert atoms(sentence) == statements


@pytest.mark.parametrize(
    "text,thing",
    [
        ("Then Leon left Brightside Academy.", "Leon Brightside Academy"),  # Leon at the academy, not Leon
        ("Priti resigned from the committee.", "Priti committee"),
        ("Halvard left for Tromsø in June.", "Halvard"),  # gone away
    ],
)
def test_someone_leaving_a_place_ends_them_there(text: str, thing: str) -> None:
    assert thing in {c.value for c in ended_claims(text)}


def test_a_move_closes_the_home_not_the_pet_beside_it(mem: Memory) -> None:
    now = said(
        mem,
        ("user", "Random question: I live in Utrecht with my rabbit Mochi, a lop, and she's been sneezing since Friday."),
        ("user", "We moved to Leiden last week!"),
    )
    assert not any("Utrecht" in t for t in now)
    assert any("Mochi" in t for t in now)


def test_a_new_value_closes_its_sentence_not_the_rest_of_the_turn(mem: Memory) -> None:
    now = said(
        mem,
        ("user", "My grandad Ewan is 88 and lives with us in Ayr. He takes levothyroxine 50 mcg every morning."),
        ("user", "The GP raised his levothyroxine to 75 mcg."),
    )
    assert not any("50 mcg" in t for t in now)
    assert any("Ayr" in t for t in now)


def test_what_someone_is_and_what_they_do_are_two_statements_and_a_value_stays_with_its_cause() -> None:
    from memdesk.conversation.atoms import atoms

    assert atoms("My niece Aoife is 14, in second year, and plays camogie on Saturdays.") == [
        "My niece Aoife is 14, in second year.", "My niece Aoife plays camogie on Saturdays."
    ]
    assert atoms("My dad is 70, and his wife is 68.") == ["My dad is 70, and his wife is 68."]
    assert atoms("Three hens died, so we're down to nine now.", clauses=False) == ["Three hens died, so we're down to nine now."]


def test_amounts_in_two_currencies_are_of_two_things() -> None:
    from memdesk.conversation.updates import update_of, updated_by

    earned = update_of("Now I earn 3,400 dirhams a month at the hotel.")
    assert not updated_by(earned, "I send 15,000 pesos a month home from my hotel pay.", frozenset())
    assert updated_by(earned, "My hotel pay is 2,800 dirhams a month.", frozenset())
    rate = update_of("New rate from May: 60 an hour.")
    assert updated_by(rate, "My rate is 50 euros an hour.", frozenset())


def test_the_old_value_named_in_a_change_is_not_a_new_one() -> None:
    from memdesk.conversation.updates import new_only

    assert values_of(new_only("Now I can pay 300 a month into savings instead of 200.")) == {"money": {"300 month"}}
    assert values_of(new_only("I take it at 9pm now, not at 7am.")) == {"clock": {"9pm"}}
    typed, _ = old_values("I put 200 a month into savings.", [], "Now I can pay 300 a month into savings instead of 200.")
    assert restates("On 200 a month you'll reach the goal by 2027.", typed, set())
