"""A feeling at one moment, over when told, says nothing lasting about anyone (memdesk.conversation.filler.evaluation_only,
its ``_felt_then`` clauses): "I felt ...", "we were feeling ...", "that place made me so ...". What something lastingly
does to someone, how someone feels now, a feeling of every time, and what a feeling is of or comes after stay. Sentences written here, in no
chat file."""

from __future__ import annotations

import pytest

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.filler import evaluation_only
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, Scope


@pytest.mark.parametrize(
    "text",
    [
        "I felt so light and free to finally be done with it.",
        "We were all feeling so giddy.",
        "The smell of that bakery and the warmth of the oven made me so cosy and content.",
        "It left us so peaceful.",
    ],
)
def test_a_feeling_at_one_moment_says_nothing(text: str) -> None:
    assert evaluation_only(text)


@pytest.mark.parametrize(
    "text",
    [
        "I feel calm when I knit.",  # what holds
        "I'm feeling rested and ready to keep going!",  # how someone is now
        "The choir has made me feel welcome.",  # what it has done: lasting
        "Losing the allotment made me decide to move.",  # a decision, not a quality
        "Knitting makes me calm.",  # what an activity lastingly does
        "I felt calm whenever I knitted.",  # every time
        "I'm feeling much better after the operation.",  # what it comes after
        "The flood made me nervous about the basement.",  # what it is of
        "It gave me a second-hand cello.",  # a thing
        "I felt dizzy after we climbed the tower.",  # an event
        "I felt proud of Ingrid.",  # someone named
    ],
)
def test_what_lasts_or_names_something_stays(text: str) -> None:
    assert not evaluation_only(text)


def test_beside_a_fact_the_feeling_gets_no_view_of_its_own() -> None:
    text = "I felt rested and ready to keep going! I'm going to need a new tent after this trip though."
    m = Message(id="m1", role="user", speaker="Oskar", content=text)
    [p] = RoutedExtraction(RuleRouter(), RuleExtractor()).process([Utterance(message_id="m1", message=m, scope=Scope(user_id="o"), context=[])])
    sentence_views = [r.body() for r in p.records if r.metadata.get("view") == "sentence"]
    assert sentence_views and all("rested" not in t for t in sentence_views)
    assert any("rested" in r.body() for r in p.records)  # the turn view keeps every word


def test_a_speakers_name_said_short_is_the_speakers_name() -> None:
    # "Lou" for Louisa is the listener called, not someone named: the verdict says nothing
    assert evaluation_only("The pots look so shiny, Lou!", ["Louisa", "Bram"])
    assert not evaluation_only("The pots look so shiny, Lu!", ["Louisa", "Bram"])  # two letters: not read so
    assert not evaluation_only("The pots look so shiny in Leiden!", ["Louisa", "Bram"])  # a place stays a name
