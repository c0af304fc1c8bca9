"""The remainder (issue 28, eighth session): a memory stating several facts, one of which a new message changes, keeps
the facts that still hold (its own words less the parts that changed) and the part that changed becomes a closed
record of its own, instead of the whole memory closing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.claims import Claim
from memdesk.conversation.endings import reversal
from memdesk.conversation.memory import Memory
from memdesk.conversation.remainder import kept_part, parts, remainder
from memdesk.conversation.updates import update_of, values_of
from memdesk.errors import RecordNotFoundError
from memdesk.records import Scope, SemanticRecord

S = Scope(user_id="nadia")
T0 = datetime(2025, 9, 1, 8, 0, tzinfo=timezone.utc)


def fact(text: str) -> SemanticRecord:
    return SemanticRecord(scope=S, fact=text, speaker="Nadia", provenance=["m1"])


def update(text: str) -> list[Claim]:
    claim = update_of(text)
    assert claim is not None
    return [claim]


def change(text: str) -> list[Claim]:
    return [Claim(attribute="change", value=text, op="end")]


def test_a_statement_is_read_as_its_clauses() -> None:
    text = "Nadia works nights at the depot, 10pm to 6am. She lives in Hove with her cat Miso; it is 3,500 a month"
    assert [text[a:b] for a, b in parts(text)] == [
        "Nadia works nights at the depot", "10pm to 6am.", "She lives in Hove", "with her cat Miso;", "it is 3,500 a month",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "old,said,claims,kept,went",
    [
        # a new shift: the hours go, and the shift word with them; the workplace stays
        ("Nadia works nights packing at the Orchard Foods depot, 10pm to 6am", "Nadia is on day shift now, 8am to 4pm",
         update("I am on day shift now, 8am to 4pm"), "Nadia works packing at the Orchard Foods depot", "nights, 10pm to 6am"),
        # "on days" names the day shift too: "works nights" does not outlive it
        ("Tomas works nights as a porter at the Leeds General, 10pm to 8am", "Tomas is on days from June, 7am to 7pm",
         update("I'm on days from June, 7am to 7pm"), "Tomas works as a porter at the Leeds General", "nights, 10pm to 8am"),
        # a new price: the part saying the old one goes whole (an amount is never cut out of its clause)
        ("Ines sells her honey to the Larder deli in Frome, 9 pounds a jar.", "The deli raised the honey price, now 11 pounds a jar.",
         update("The deli raised the honey price, now 11 pounds a jar."), "Ines sells her honey to the Larder deli in Frome", "9 pounds a jar."),
        # a new day: the day goes with its preposition, the time the change does not touch stays
        ("Nadia sees Dr Osei at the Brook clinic on Tuesdays at 9am, with her sister Ama.", "Dr Osei moved me to Thursdays now.",
         update("Dr Osei moved me to Thursdays now."), "Nadia sees Dr Osei at the Brook clinic at 9am, with her sister Ama.", "on Tuesdays"),
        # a weekday written with the date that changed goes with it, even when the new message names that weekday
        ("Nadia's son Kobi turn 8 on Saturday 15 May, party at the rec hall that day",
         "party moving to Sunday 16th, my sister has a wedding job on the Saturday",
         update("party moving to Sunday 16th, my sister has a wedding job on the Saturday"),
         "Nadia's son Kobi turn 8, party at the rec hall that day", "on Saturday 15 May"),
        # a reversal takes back the clause it negates, not the other one
        ("Nadia doesn't eat beef, and no shellfish please, it makes Nadia ill.", "Nadia eats beef again, but still no shellfish.",
         [reversal("I eat beef again")], "No shellfish please, it makes Nadia ill.", "Nadia doesn't eat beef"),
    ],
)  # fmt: skip
def test_what_changed_goes_and_the_rest_of_the_statement_stays(old: str, said: str, claims: list[Claim], kept: str, went: str) -> None:
    assert remainder(fact(old), said, claims) == (kept, went)


@pytest.mark.parametrize(
    "old,said,claims",
    [
        # the value was what the clause said: cutting it would leave "The exam is and ..."
        ("The exam is on 14 March and Nadia is nervous about the essay part", "The exam moved to 21 March.", update("The exam moved to 21 March.")),
        # an apposition goes with what it names
        ("We want a gas hob in the kitchen, a Neff N70.", "We changed our minds about the gas hob.", change("We changed our minds about the gas hob")),
        # "only" was said of the whole: taking cheques again ends it too
        ("We take card payments only, no cheques.", "We take cheques again.", [reversal("We take cheques again.")]),
        # "from December" says when the change starts, not a new day of the club: nothing in it is told apart
        ("Pia runs a chess club at the library on the first Monday of every month.", "Tom will host the chess club from December now.",
         update("Tom will host the chess club from December now.")),
        # a postponement changes the day even where its message gives no new one
        ("Our first field trip is on 4 May, kayaking at Loch Ard.", "The kayaking trip was postponed.", change("The kayaking trip was postponed")),
        # a bare number may be any amount: no amount stays beside it
        ("1 litre is 96 pence at the Quay pumps, Nadia uses about 40 litres a trip.", "diesel went up to 98 now", update("diesel went up to 98 now")),
    ],
)  # fmt: skip
def test_a_statement_with_nothing_left_that_holds_closes_whole(old: str, said: str, claims: list[Claim]) -> None:
    assert remainder(fact(old), said, claims) is None


def test_a_remainder_keeps_no_value_of_the_kind_that_changed() -> None:
    old = "Nadia drives the school bus for Ridgeway Coaches at 7:15, route 4 to Hollins Green, and does the run back at 3:30"
    claims = update("Ridgeway moved my morning run to 6:50 now")
    got = remainder(fact(old), "Ridgeway moved my morning run to 6:50 now", claims)
    assert got is not None and "Ridgeway Coaches" in got[0]
    assert "clock" not in values_of(got[0])



def said(mem: Memory, *lines: str, scope: Scope = S) -> list[str]:
    """The lines added one message each; their message ids."""
    return [
        mem.add([{"content": line, "speaker": "Nadia", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=scope).message_ids[0]
        for i, line in enumerate(lines)
    ]


@pytest.mark.parametrize(
    "first,change_said,gone,kept",
    [
        ("I don't eat beef, and no shellfish please, it makes me ill.", "I eat beef again these days, but still no shellfish.", "beef", "shellfish"),
        ("I have a wooden dinghy called Puffin, a Tohatsu 6hp outboard, and two oars.", "I sold the old 6hp outboard and bought a 9.9hp one.", "6hp", "Puffin"),
        ("My driving test is on 14 March at the Wood Green test centre.", "The driving test moved to 28 March, the examiner is off sick.", "14 March", "Wood Green"),
        ("Ines sells her honey to the Larder deli in Frome, 9 pounds a jar.", "The deli raised the honey price, now 11 pounds a jar.", "9 pounds", "Larder"),
    ],
)  # fmt: skip
def test_the_first_message_keeps_what_still_holds(mem: Memory, first: str, change_said: str, gone: str, kept: str) -> None:
    message = said(mem, first, change_said)[0]
    mine = [r for r in mem.get_all(scope=S, filters={"include_superseded": True}) if r.provenance[0] == message]
    current = {r.id for r in mem.get_all(scope=S) if r.valid_to is None}
    # what still holds is current, in every record of the first message that says it
    assert any(kept in r.text() for r in mine) and all(r.id in current for r in mine if kept in r.text())
    # what changed is closed wherever the first message said it, and kept in a closed record of its own
    assert all(r.id not in current for r in mine if gone in r.text())
    split = [r for r in mine if r.metadata.get("split_from")]
    assert split and all(r.superseded_by and r.valid_to for r in split) and not any(kept in r.text() for r in split)


def test_a_remainder_closes_in_turn_and_forget_takes_every_part(mem: Memory) -> None:
    said(mem, "I have a wooden dinghy called Puffin, a Tohatsu 6hp outboard, and two oars.", "I sold the old 6hp outboard and bought a 9.9hp one.")
    assert any("Puffin" in r.text() for r in mem.get_all(scope=S) if r.valid_to is None)
    mem.add([{"content": "I sold Puffin last week, the dinghy is gone.", "speaker": "Nadia", "role": "user", "timestamp": T0 + timedelta(days=9)}], scope=S)
    assert not any("Puffin" in r.text() and "has" in r.text() for r in mem.get_all(scope=S) if r.valid_to is None)
    every = [r.id for r in mem.get_all(scope=S, filters={"include_superseded": True})]
    assert any(mem.history(i, scope=S)[1:] for i in every)  # a narrowed record keeps its earlier version
    mem.forget(scope=S)
    assert mem.get_all(scope=S, filters={"include_superseded": True}) == []
    for record_id in every:  # the versions before a narrowing go too
        with pytest.raises(RecordNotFoundError):
            mem.history(record_id, scope=S)


def test_a_split_stays_in_its_scope(mem: Memory) -> None:
    other = Scope(user_id="nadia", agent_id="travel")
    said(mem, "I have a wooden dinghy called Puffin, a Tohatsu 6hp outboard, and two oars.", scope=other)
    before = [(r.id, r.text(), r.valid_to) for r in mem.get_all(scope=other, filters={"include_superseded": True})]
    said(mem, "I have a wooden dinghy called Puffin, a Tohatsu 6hp outboard, and two oars.", "I sold the old 6hp outboard and bought a 9.9hp one.")
    assert [(r.id, r.text(), r.valid_to) for r in mem.get_all(scope=other, filters={"include_superseded": True})] == before
    split = [r for r in mem.get_all(scope=S, filters={"include_superseded": True}) if r.metadata.get("split_from")]
    assert split and all(r.scope == S for r in split)


def test_a_remainder_keeps_the_time_it_was_read_with_when_no_time_went() -> None:
    when = datetime(2025, 5, 31, tzinfo=timezone.utc)
    old = SemanticRecord(scope=S, fact="We need 20 volunteers for the beach clean, and the crates packed by the 31st (2025-05-31).",
                         speaker="Nadia", provenance=["m1"], event_time=when, temporal_anchor="2025-05-31", ingest_time=T0)  # fmt: skip
    new = SemanticRecord(scope=S, fact="We have 26 volunteers now.", speaker="Nadia", provenance=["m2"], ingest_time=T0 + timedelta(days=3))
    got = kept_part(old, new, [new], update("We have 26 volunteers now."), [], T0 + timedelta(days=3))
    assert got is not None
    kept, went = got
    assert "crates" in kept.text() and "20 volunteers" not in kept.text() and kept.id == old.id
    assert (kept.event_time, kept.temporal_anchor) == (when, "2025-05-31")
    assert went.id != old.id and "20 volunteers" in went.text() and went.superseded_by == new.id
    assert went.metadata["split_from"] == old.id and old.text() in went.embed_text()
    assert (went.event_time, went.temporal_anchor) == (when, "2025-05-31")
