"""Records closed part by part (issue 28, twelfth session): a memory giving several values or things side by side
keeps the items a later change is not about (:mod:`memdesk.conversation.compound`, read by
:mod:`memdesk.conversation.remainder`)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.claims import Claim
from memdesk.conversation.compound import item_cut, named_words, of_what_changed, sibling, value_items
from memdesk.conversation.memory import Memory
from memdesk.conversation.remainder import parts, remainder
from memdesk.conversation.updates import update_of
from memdesk.records import Scope, SemanticRecord

S = Scope(user_id="tariq")
T0 = datetime(2025, 9, 1, 8, 0, tzinfo=timezone.utc)


def fact(text: str) -> SemanticRecord:
    return SemanticRecord(scope=S, fact=text, speaker="Tariq", provenance=["m1"])


def update(text: str) -> list[Claim]:
    claim = update_of(text)
    assert claim is not None
    return [claim]


def test_two_values_joined_by_and_are_two_items() -> None:
    text = "Tariq keeps 12 ewes and 3 rams on the hill"
    assert [text[a:b] for a, b in parts(text)] == ["Tariq keeps 12 ewes", "and 3 rams on the hill"]
    assert [text[a:b] for a, b in value_items(text, 0, len(text))] == ["Tariq keeps 12 ewes", "and 3 rams on the hill"]
    # no value on one side: one item ("salt and pepper", "Tom and I")
    plain = "Tariq sells 40 jars of pickle and chutney"
    assert value_items(plain, 0, len(plain)) == [(0, len(plain))]
    # days joined by "and" are one schedule, not two items ("so I swim [every Monday] and Friday evening" would be left)
    days = "so Tariq swims every Monday and Friday evening after the market"
    assert value_items(days, 0, len(days)) == [(0, len(days))]


def test_an_item_named_by_other_words_keeps_its_value() -> None:
    texts = ["the ferry fare from Oban is 18 pounds this summer.", "bike ticket 4 pounds"]
    claims = update("the ferry went up, Calmac charging 21 now")
    stales = [[("money", (36, 45))], [("money", (12, 20))]]
    assert of_what_changed(texts, stales, claims, frozenset()) == [[("money", (36, 45))], []]
    # an item with no word of its own cannot be told apart: it changes with the named one
    assert of_what_changed([texts[0], "and 4 back"], stales, claims, frozenset()) == stales


def test_items_beside_each_other_are_not_details() -> None:
    assert sibling("a shave from 150", "a beard trim is 300 rupees")
    assert not sibling("60 km", "the Hebden Hill Climb")
    assert not sibling("it is 150 now", "a beard trim is 300 rupees")


def test_an_end_takes_only_the_item_of_a_list_it_names() -> None:
    named = named_words([Claim(attribute="change", value="I stopped selling the lime chutney", op="end")], [])
    assert item_cut("Tariq sells mango pickle and lime chutney at the Sunday market.", named) == (
        "Tariq sells mango pickle at the Sunday market.", "and lime chutney"
    )  # fmt: skip
    assert item_cut("Tariq sells lime chutney at the Sunday market.", named) is None  # no list: the part goes whole


def test_a_date_after_a_verb_is_not_cut_from_it() -> None:
    # "ends 26 March": the date is what the verb says; cutting it would leave "ends"
    old = "Module 3 of the course started today, Food Safety, ends 26 March"
    got = remainder(fact(old), "Module 3 now ends 9 April", update("Module 3 now ends 9 April"))
    assert got is None or not got[0].rstrip(".").endswith("ends")


@pytest.mark.parametrize(
    "old,said,kept,went",
    [
        # a list of prices: the one named changes, the other keeps its price
        ("The ferry fare from Oban is 18 pounds this summer. steep. bike ticket 4 pounds", "the ferry went up, Calmac charging 21 now",
         "Steep. bike ticket 4 pounds", "The ferry fare from Oban is 18 pounds this summer."),
        # counts joined by "and": the rams stay
        ("Tariq keeps 12 ewes and 3 rams on the hill", "So 15 ewes now", "3 rams on the hill", "Tariq keeps 12 ewes"),
    ],
)  # fmt: skip
def test_a_new_value_closes_its_item_only(old: str, said: str, kept: str, went: str) -> None:
    assert remainder(fact(old), said, update(said)) == (kept, went)


def said(mem: Memory, *lines: str) -> list[str]:
    return [
        mem.add([{"content": line, "speaker": "Tariq", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S).message_ids[0]
        for i, line in enumerate(lines)
    ]


@pytest.mark.parametrize(
    "first,change_said,gone,kept",
    [
        # a list of values in two sentences: the lobster price is not the crab's
        ("the crab price from Morven Fish is 3.10 a kilo this month. awful. lobster 21 a kilo", "crab went up, Morven is giving 3.60 now", "3.10", "lobster 21"),
        # one dose of two changes
        ("She takes warfarin, 5 mg every evening, and bisoprolol 2.5 in the morning.", "The GP changed the warfarin to 4 mg.", "5 mg", "bisoprolol"),
        # counts joined by "and"
        ("We have 14 beehives and 6 alpacas", "So 8 alpacas now", "6 alpacas", "14 beehives"),
        # a rescheduled race keeps its name and distance, the date goes
        ("I'm training for the Hebden Hill Climb, 40 km, on June 7", "the Hebden Hill Climb got moved to June 21", "June 7", "40 km"),
        # a date right after a noun is its adjunct: the place stays
        ("my knee is sore, they sent me to a physio, appointment 4 June in Leeds", "the physio moved my appointment to 11 June", "4 June", "Leeds"),
        # a day said with "every": the place and the time stay
        ("choir practice is every Tuesday 7pm at St Anne's hall, the director is strict but fair", "from May practice moves to Thursdays 7pm, same place",
         "Tuesday", "St Anne"),
        # "the end of March" goes whole, not "of March"
        ("I'm on placement at the Riverside Trust in Hull until the end of March.", "my placement got extended, I'm staying until the end of June now",
         "March", "Trust in Hull."),
        # one item of a list stopped
        ("I sell mango pickle and lime chutney at the Sunday market in Frome.", "I stopped the lime chutney, the jars cost too much.", "chutney", "mango pickle"),
    ],
)  # fmt: skip
def test_a_later_change_closes_only_the_part_it_is_about(mem: Memory, first: str, change_said: str, gone: str, kept: str) -> None:
    message = said(mem, first, change_said)[0]
    mine = [r for r in mem.get_all(scope=S, filters={"include_superseded": True}) if r.provenance[0] == message]
    current = {r.id for r in mem.get_all(scope=S) if r.valid_to is None}
    assert any(kept in r.text() and r.id in current for r in mine)  # what still holds is current
    assert all(r.id not in current for r in mine if gone in r.text())  # what changed is closed
    assert any(gone in r.text() for r in mine)  # and kept, closed, in a record of its own


def test_a_bare_new_number_closes_an_amount(mem: Memory) -> None:
    # "rent is 950 now": a bare number may be any amount, so it changes the rent said in pounds
    message = said(mem, "I rent a lock-up garage for 900 pounds a month from Harlow council.", "rent is 950 now from this month")[0]
    current = [r.text() for r in mem.get_all(scope=S) if r.valid_to is None and r.provenance[0] == message]
    assert not any("900 pounds" in t for t in current)
    # the price was an adjunct after "for": the garage and the council stay current
    assert any("Harlow council" in t for t in current)



def test_a_bare_number_is_one_with_nothing_it_counts_after_it() -> None:
    from memdesk.conversation.updates import bare_amounts

    assert bare_amounts("rent is 950 now from this month") == {"950"}
    assert bare_amounts("the fee is 450, paid in cash") == {"450"}
    assert bare_amounts("We'll take 4 kg of rice") == set()  # a unit: it counts kilos
    assert bare_amounts("So 11 goats now") == set()
    assert bare_amounts("the race got moved to June 21") == set()  # a day of a date
