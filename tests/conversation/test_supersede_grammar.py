"""Closings read from grammar and value kinds (issue 28, the close side): words of change a chat uses ("raise it
to 20mg from today", "finished at 3,900", "done, but late"), an instruction reported ("says I should ..."), the old
value named ("not 10", "didn't come on the 9th, came on the 12th", "passed stage 2"), rates and stages as values,
one update per statement of a sentence, leavings said in the first person, a home said without "moved to", and what
must not close: a day's exception, an unrelated statement beside a revision."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.facts import claims_of
from memdesk.conversation.memory import Memory
from memdesk.conversation.updates import update_of, updated_by, updates_of, values_of
from memdesk.records import Scope

S = Scope(user_id="ines")
T0 = datetime(2025, 5, 5, 9, 0, tzinfo=timezone.utc)


def ends(text: str) -> set[tuple[str, str | None]]:
    return {(c.attribute, c.value) for c in claims_of(text) if c.op == "end"}


@pytest.mark.parametrize(
    "text",
    [
        "The physio says I should do 20 minutes now, not 10.",
        "my GP wants to raise it to 20mg from today",
        "Got a raise at the depot, 31 euros per hour from this month.",
        "the bake sale finished at 3,900 rupees in the end",
        "harvest done, but late, on the 29th",
        "the plumber didn't come on 9th, came on 12th",
        "passed grade 5!! grade 6 starts in March",
    ],
)
def test_words_of_change_a_chat_uses(text: str) -> None:
    assert update_of(text) is not None


@pytest.mark.parametrize("text", ["Should I raise it to 20mg from today?", "If the rent goes to 900 now, we move.", "You should do 20 minutes now."])
def test_a_wish_a_question_or_advice_is_no_update(text: str) -> None:
    assert update_of(text) is None


def test_rates_ordinals_and_stages_are_values() -> None:
    assert values_of("the day rate is now 640 per day")["money"]
    assert values_of("it came on 12th")["date"] == {"12th"}
    assert values_of("she is in group B now") == {"label group": {"group b"}}
    assert "label grade" not in values_of("in group B")  # a group is not a grade


def test_an_update_naming_the_old_value_closes_the_memory_holding_it() -> None:
    new = update_of("The physio says I should do 20 minutes now, not 10.")
    assert updated_by(new, "Knee exercises 10 minutes a day.", frozenset())
    assert not updated_by(new, "The physio is 15 minutes away.", frozenset())  # holds no 10: not the value replaced


def test_a_value_said_with_its_former_one_holds_only_the_new_one() -> None:
    new = update_of("the rent is up to 1,300 now")
    assert updated_by(new, "the rent is now 1,250, it was 1,100 in spring", frozenset()) == {"rent"}


def test_one_update_per_statement_of_a_sentence() -> None:
    got = updates_of("stall fee now 2,600 because rent went up again. parking is 700")
    assert [c.value for c in got] == ["stall fee now 2,600 because rent went up again.", "parking is 700"]
    lesson = updates_of("Ravi moved my lessons to Fridays, same time, he got a job at the college on Mondays")
    assert [c.value for c in lesson] == ["Ravi moved my lessons to Fridays, same time"]
    assert len(updates_of("I start at 6am now, Monday to Friday")) == 1


@pytest.mark.parametrize(
    "text,ended",
    [
        ("news: left Brasserie Loup. starting at the Ritz on Monday", ("ended", "Brasserie Loup")),
        ("they took me off the night run, so days only", ("ended", "night run")),
        ("And I've resigned as treasurer, too much work.", ("ended", "treasurer")),
        ("Dara retired and sold the shop", ("ended", "Dara")),
        ("Tomas left the ship, went home to Gdansk.", ("ended", "Tomas ship")),
        ("Left Casa Lobo, my notice ended Friday", ("ended", "Casa Lobo")),
        ("Pickle is adopted too, by a couple in Leith.", ("ended", "Pickle")),
        ("So I've resigned.", ("employer", None)),
        ("the nurse said to stop the ibuprofen, the swelling is gone", ("negation", "ibuprofen")),
        ("I'm not strictly vegetarian any more", ("diet", None)),
    ],
)
def test_endings_said_in_chat(text: str, ended: tuple[str, str | None]) -> None:
    assert ended in ends(text)


@pytest.mark.parametrize(
    "text", ["Bank holiday today so no cycling.", "I left Leeds at 6am", "I left Paris yesterday.", "Miso was adopted from a shelter", "Ana left the studio at 5"]
)
def test_no_ending(text: str) -> None:
    assert not {e for e in ends(text) if e[0] == "ended"}


@pytest.mark.parametrize(
    "text,home",
    [
        ("moved on Friday! Gorgie now. bus to work is 20 min", "Gorgie"),
        ("we're moving! we got a 3-room flat in Morningside", "Morningside"),
        ("live in Portobello with my two boys", "Portobello"),
    ],
)
def test_a_home_said_without_moved_to(text: str, home: str) -> None:
    assert ("residence", home, "set") in {(c.attribute, c.value, c.op) for c in claims_of(text)}



def chat(mem: Memory, *lines: str) -> list[str]:
    for i, line in enumerate(lines):
        mem.add([{"content": line, "speaker": "Ines", "role": "user", "timestamp": T0 + timedelta(days=i)}], scope=S)
    return [r.text() for r in mem.get_all(scope=S)]


def has(current: list[str], *words: str) -> bool:
    return any(all(w.lower() in t.lower() for w in words) for t in current)


def test_each_view_of_the_replaced_message_closes(mem: Memory) -> None:
    current = chat(mem, "Nia starts at Little Acorns on 2 June. Fees 380 euros per term.", "Little Acorns raised the fees, now 410 euros a term.")
    assert not has(current, "380")


def test_a_day_off_ends_nothing(mem: Memory) -> None:
    current = chat(mem, "I drive for the Westside minibus scheme on Tuesdays.", "Bank holiday today so no driving.")
    assert has(current, "minibus")


def test_a_revision_with_a_claim_that_closes_nothing_takes_back_nothing_else(mem: Memory) -> None:
    current = chat(mem, "Lunch ideas please. Nothing with peppers, Joe hates them.", "Correction to the lunch thing: I eat fish again since June.")
    assert has(current, "peppers")


@pytest.mark.parametrize(
    "text,unit",
    [
        ("I've been moved to the surgical ward from June.", "surgical ward"),
        ("and I went back to late shifts, the early ones were too hard", "late shifts"),
        ("Tom changes to Alder school after Easter", "Alder school"),
    ],
)
def test_a_transfer_changes_the_unit(text: str, unit: str) -> None:
    assert ("change", unit) in ends(text)


def test_a_transfer_closes_the_unit_of_the_same_kind(mem: Memory) -> None:
    current = chat(mem, "I work on the cardiac ward at St Anne's, three long days a week.", "I went back to the surgical ward this week.")
    assert not has(current, "cardiac")
