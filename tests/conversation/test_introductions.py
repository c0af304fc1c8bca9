"""A self-introduction is written as one record per fact (issue 28: "a record says one thing"), each keeping the
message's speaker, date and provenance; sentences invented for these tests."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.atoms import atoms, introduction
from memdesk.conversation.base import Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, Scope

TS = datetime(2025, 3, 4, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "sentence, expected",
    [
        (
            "I'm Tomasz Brenner, 58, retired tram driver, I live in Ostrava with my sister.",
            ["I'm Tomasz Brenner, 58.", "I'm retired tram driver.", "I live in Ostrava.", "I live with my sister."],
        ),
        ("Wilma Achterberg here, 72, former ferry pilot.", ["Wilma Achterberg here, 72.", "I'm former ferry pilot."]),
        ("Orla, 41, beekeeper, Dunmore East, Waterford.", ["I'm Orla, 41.", "I'm beekeeper.", "I'm in Dunmore East, Waterford."]),
        ("I am Kwesi, from Tamale, I teach chemistry at a night school.", ["I am Kwesi, from Tamale.", "I teach chemistry at a night school."]),
        ("81, retired glassblower, Murano.", ["I'm 81.", "I'm retired glassblower.", "I'm in Murano."]),
        (
            "Ilkka Rautio, 70, retired skipper, last 12 years on the Vaasa line.",  # a number that is no age: with the item before
            ["I'm Ilkka Rautio, 70.", "I'm retired skipper, last 12 years on the Vaasa line."],
        ),
    ],
)
def test_an_introduction_is_a_statement_per_fact(sentence: str, expected: list[str]) -> None:
    assert introduction(sentence) == expected
    assert atoms(sentence) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm Tomasz.",  # one statement: nothing to split
        "I'm Tomasz, retired tram driver.",  # the name stays with its one fact
        "58, sold the farm so I could mind my aunt, Petra.",  # a clause, and a relative's name
        "Bo here, 58, sold the farm, retired to the coast.",  # a verb's past: a clause, not what Bo is
        "Wilma here, 72, with my brother, Anton.",  # a relative's name is not where the speaker is
        "Tuesday, 10 am at the clinic.",  # a day before a time, not a name before an age
        "7, maybe 9 people, all friends.",  # a count before a number, not an age before what someone is
        "I'm glad, the plumber came early.",  # a feeling, not a name
    ],
)
def test_what_is_no_introduction_stays_whole(sentence: str) -> None:
    assert introduction(sentence) is None


def test_the_extractor_writes_each_fact_with_the_message_speaker_and_date() -> None:
    text = "Hi! I'm Tomasz Brenner, 58, retired tram driver, I live in Ostrava with my sister."
    u = Utterance(message_id="t-m3", message=Message(id="t-m3", speaker="Tomasz", role="user", content=text, timestamp=TS),
                  scope=Scope(user_id="u9"), context=[])  # fmt: skip
    records = RuleExtractor().extract(u, RuleRouter().route(u))
    texts = [r.text() for r in records]
    assert any(t.startswith("Tomasz is Tomasz Brenner, 58") for t in texts)
    assert "Tomasz is retired tram driver." in texts
    assert any(t.startswith("Tomasz lives in Ostrava") for t in texts)
    assert not any("58" in t and "Ostrava" in t for t in texts)  # no record joins the age and the home
    assert all(r.provenance == ["t-m3"] and r.speaker == "Tomasz" and r.event_time == TS for r in records)
