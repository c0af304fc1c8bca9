"""Facts that can change: the claims a sentence makes about one of its speaker's attributes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.conversation.facts import Claim, claims_of, same_value


def keyed(text: str) -> set[tuple[str, str | None, str]]:
    return {(c.key, c.value, c.op) for c in claims_of(text)}


@pytest.mark.parametrize(
    "text,claim",
    [
        ("I moved to Bath last month.", ("residence", "Bath", "set")),
        ("We relocated to New York in May.", ("residence", "New York", "set")),
        ("I now live in Bath, not Bristol.", ("residence", "Bath", "set")),
        ("I've lived in Glasgow for six years.", ("residence", "Glasgow", "set")),
        ("I don't live in Leeds anymore.", ("residence", "Leeds", "end")),
        ("I live with my aunt in Tarbes, near the market.", ("residence", "Tarbes", "set")),
        ("We rent two rooms in Gdynia, top floor.", ("residence", "Gdynia", "set")),
        ("We rent in Mitte now.", ("residence", "Mitte", "set")),
        ("I live in a houseshare on rue Vernet with four others.", ("residence", "Vernet", "set")),
        ("I work at the library now.", ("employer", "library", "set")),
        ("I got a new job at Harbour Table.", ("employer", "Harbour Table", "set")),
        ("I no longer work at Crumb & Co. anymore.", ("employer", "Crumb & Co", "end")),
        ("I work as a graphic designer.", ("job", "graphic designer", "set")),
        ("I'm the head of science now.", ("job", "head of science", "set")),
        ("I'm dating Sam.", ("partner", "Sam", "set")),
        ("Hannah and I broke up.", ("partner", "Hannah", "end")),
        ("We broke up last month.", ("partner", None, "end")),
        ("My favourite tea is oolong.", ("favourite:tea", "oolong", "set")),
        ("Blue is my favourite colour.", ("favourite:colour", "Blue", "set")),
        ("I don't eat meat anymore.", ("liking:meat", "meat", "end")),
        ("I sold my car.", ("possession:car", "I sold my car", "end")),
        ("We have three cats now.", ("count:cat", "three", "set")),
        ("Now we have two kids.", ("count:child", "two", "set")),
        ("I'm moving to Bristol in April!", ("plan:move", "Bristol", "set")),
        ("I changed my mind about the trip.", ("revision", None, "revise")),
        ("Actually, the party is on Sunday now.", ("revision", None, "revise")),
    ],
)
def test_claims(text: str, claim: tuple[str, str | None, str]) -> None:
    assert claim in keyed(text)


@pytest.mark.parametrize(
    "text",
    ["I had a great time at the concert.", "I love this song!", "After all, we are friends.", "I'm going to bed.",
     "We moved the sofa to the other room.", "I really like your idea."],
)  # fmt: skip
def test_no_claim_where_no_attribute_changes(text: str) -> None:
    assert claims_of(text) == []


def test_same_value_and_round_trip() -> None:
    assert same_value("Harbour Table", "harbour table") and same_value("Miso", "a grey cat called Miso")
    assert not same_value("Bath", "Bristol") and not same_value(None, "Bath")
    c = Claim(attribute="favourite", slot="tea", value="oolong")
    assert Claim.from_dict(c.as_dict()) == c and c.key == "favourite:tea"


@given(st.text(max_size=120))
def test_total(text: str) -> None:
    for c in claims_of(text):
        assert c.op in ("set", "end", "revise") and (c.op != "set" or c.value)
