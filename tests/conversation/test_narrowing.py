"""Narrowing (issue 28, sixth session): a memory joining several statements of a message keeps the statements a new
memory does not supersede, and goes when all of them do."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.narrowing import kept_text, narrow, narrowings, statements_of
from memdesk.records import Scope, SemanticRecord

S = Scope(user_id="ravi")
T0 = datetime(2025, 9, 1, 8, 0, tzinfo=timezone.utc)


def fact(text: str, message: str = "m1", **meta) -> SemanticRecord:
    return SemanticRecord(scope=S, fact=text, speaker="Ravi", provenance=[message], metadata=meta)


A = fact("Ravi's dentist is on 4 March.", claims=[{"attribute": "update", "value": "x", "op": "end"}])
B = fact("Ravi's sister Mina marries on 20 June.")
JOINED = fact("Ravi's dentist is on 4 March. Ravi's sister Mina marries on 20 June.")
OTHER = fact("Ravi's sister Mina marries on 20 June.", message="m2")


def test_a_joined_view_holds_the_statements_of_its_message() -> None:
    assert statements_of(JOINED, [A, B, JOINED, OTHER]) == [A, B]  # not the same words said in another message
    assert statements_of(A, [A, B, JOINED]) == []  # a statement joins nothing
    assert statements_of(JOINED, [A, JOINED]) == [A]


def test_a_narrowed_view_says_its_statements_in_their_order() -> None:
    assert kept_text(JOINED, [B]) == B.text()
    assert kept_text(JOINED, [B, A]) == JOINED.text()


def test_a_view_keeps_what_still_holds_and_goes_when_nothing_does() -> None:
    close, keep = narrowings([A, B, JOINED], {A.id, JOINED.id})
    assert close == {A.id} and keep == {JOINED.id: (B.text(), [A])}
    close, keep = narrowings([A, B, JOINED], {A.id})  # the view itself was not to close: narrowed all the same
    assert close == {A.id} and keep == {JOINED.id: (B.text(), [A])}
    close, keep = narrowings([A, JOINED], {A.id})  # what it says beside the statement that went goes with it
    assert close == {A.id, JOINED.id} and keep == {}
    close, keep = narrowings([A, B, JOINED], {A.id, B.id})
    assert close == {A.id, B.id, JOINED.id} and keep == {}
    assert narrowings([A, B, JOINED], {OTHER.id}) == ({OTHER.id}, {})


def test_a_narrowed_view_says_and_claims_only_what_it_keeps() -> None:
    joined = JOINED.model_copy(update={"metadata": {"claims": A.metadata["claims"] + [{"attribute": "plan", "op": "set"}]}})
    got = narrow(joined, B.text(), [A], by="new1")
    assert got.id == JOINED.id and got.text() == B.text()
    assert got.metadata["narrowed_by"] == "new1" and got.metadata["claims"] == [{"attribute": "plan", "op": "set"}]
    assert "claims" not in narrow(JOINED, B.text(), [A], by="n").metadata



def said(mem: Memory, *lines: str) -> list[str]:
    for i, line in enumerate(lines):
        mem.add([{"content": line, "speaker": "Ravi", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S)
    return [r.text() for r in mem.get_all(scope=S)]


@pytest.mark.parametrize(
    "first,change,gone,kept",
    [
        ("Two dates for you. The optician is on Friday 12 September. My nephew Arjun turns 18 on 30 October.",
         "The optician rang, my appointment moved to 19 September.", "12 September", "Arjun"),
        ("Our budget for the loft is 30,000 pounds. The builder, Corrie Lofts, can start in spring.",
         "The loft budget went up to 34,000 pounds.", "30,000", "Corrie"),
        ("I have a hearing test on 2 October. Also my landlord put the rent up, it is 950 a month now.",
         "The audiology clinic moved my hearing test to 9 October.", "2 October", "950"),
    ],
)
def test_what_changed_goes_and_what_was_said_beside_it_stays(mem: Memory, first: str, change: str, gone: str, kept: str) -> None:
    now = said(mem, first, change)
    assert not any(gone in t for t in now)
    assert any(kept in t for t in now)
    stored = mem.get_all(scope=S, filters={"include_superseded": True})
    assert all(r.superseded_by is None for r in stored if kept in r.text())


@pytest.mark.parametrize(
    "first,change,gone,kept",
    [
        ("Two things: my car's MOT is on 4 May, and my son Leo has his violin recital on 9 May.",
         "The garage moved the MOT to 11 May.", "4 May", "Leo"),
        ("Heads up, the boiler service is booked for 3 June and our team dinner is on 12 June.",
         "The boiler service got moved to 10 June, the engineer is off.", "3 June", "dinner"),
        ("Remember that my dentist is on 8 July, and also my sister Noor lands at Heathrow on 15 July.",
         "Change: the dentist is now on 22 July.", "8 July", "Noor"),
    ],
)
def test_a_sentence_of_two_values_is_two_statements(mem: Memory, first: str, change: str, gone: str, kept: str) -> None:
    now = said(mem, first, change)
    assert not any(gone in t for t in now)
    stored = mem.get_all(scope=S, filters={"include_superseded": True})
    assert any(kept in t for t in now) and all(r.superseded_by is None for r in stored if kept in r.text())
