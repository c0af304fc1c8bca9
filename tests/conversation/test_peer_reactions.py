"""A peer's reaction to what the listener told, in words of the speaker's own, by structure
(memdesk.conversation.reactions.reaction_clause, memdesk.conversation.filler.reaction_only), and what the rule extractor
makes of it: what the listener is or has, the speaker's attitude toward it, an evaluation of it, encouragement and
truisms make no record of their own; anything of the speaker's own keeps one. Sentences written here."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.filler import reaction_only, says_nothing
from memdesk.conversation.reactions import reaction_clause
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, Scope

NAMES = ["Ines", "Ravi"]
S = Scope(user_id="ines")
TS = datetime(2025, 4, 2, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("clause", "kind"),
    [
        ("your boots must have a story for every trail", "listener"),
        ("i love how the mural shows the street you grew up on", "attitude"),
        ("i'm sure your pupils are thrilled with the new timetable", "attitude"),
        ("i bet it was a long drive", "attitude"),
        ("it means a lot to me that you liked the scarf", "attitude"),
        ("it's lovely that you get to walk the dogs by the canal", "evaluates"),
        ("cool that you kept the old piano", "evaluates"),
        ("keep doing what you're doing", "encourages"),
        ("cats are wonderful company", "truism"),
        ("being tidy is half the battle in a small flat", "truism"),
        ("everyone needs a quiet corner now and then", "truism"),
        ("it just shows that everyone needs a quiet corner", "truism"),
    ],
)
def test_a_reaction_is_read_by_its_structure(clause: str, kind: str) -> None:
    assert reaction_clause(clause) == kind


@pytest.mark.parametrize(
    "clause",
    [
        "i love hiking in the fells",  # a liking of the speaker's: not "love how"
        "i hope i can come to the recital",  # the speaker after the attitude
        "i'm sure my sister would lend you the tent",  # the speaker's own
        "you should try the night class",  # advice
        "enjoy a coffee at my place",  # something of the speaker's
        "trains are cheaper with our railcard",  # the speaker's own thing in a truism
        "i bet i can beat you at chess",  # the speaker after a guess
        "the bakery closes early on mondays",  # a determined subject: a fact of something
    ],
)
def test_the_speakers_own_advice_or_a_thing_is_not_a_reaction(clause: str) -> None:
    assert reaction_clause(clause) is None


@pytest.mark.parametrize(
    "text",
    [
        "Your boots must have a story for every trail.",
        "I love how the mural shows the street you grew up on.",
        "Wow, it's lovely that you get to walk the dogs by the canal.",
        "Cats are wonderful company - they can be so loyal.",
        "Keep doing what you're doing, I'm here for you!",
    ],
)
def test_a_sentence_of_reactions_only_says_nothing(text: str) -> None:
    assert reaction_only(text, NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "Your boots must have a story for every trail with Odile.",  # a name other than the speakers'
        "Cats are wonderful company, but mine ate my sandwich.",  # the speaker's own beside a truism
        "Everyone loved the cake I baked.",  # an event
        "You mentioned the allotment last time, and I think I'll rent one too.",  # the speaker's plan
        "Cats are wonderful company - they ate 3 tins today.",  # a number
        "I'm sure your pupils are thrilled with the new timetable?",  # a question
        "I love how we can visit you anytime.",  # a plan with the listener
        "Fees are more.",  # a fact of a kind, not a verdict on it
        "Swimming is off for now.",
        "You get one row per plot with its count.",  # what the listener gets, not a verdict on it
    ],
)
def test_a_name_a_number_an_event_or_the_speakers_own_keeps_the_sentence(text: str) -> None:
    assert not reaction_only(text, NAMES)


def _views(text: str, previous: str) -> dict[str, list[str]]:
    before = Message(id="m1", speaker="Ravi", content=previous, timestamp=TS)
    u = Utterance(message_id="m2", message=Message(id="m2", speaker="Ines", content=text, timestamp=TS), scope=S, context=[before])
    [p] = RoutedExtraction(RuleRouter(), RuleExtractor()).process([u])
    out: dict[str, list[str]] = {}
    for r in p.records:
        out.setdefault(str(r.metadata.get("view")), []).append(r.text())
    return out


def test_a_reply_of_reactions_only_makes_no_record() -> None:
    assert _views("Your boots must have a story for every trail. I love how the photo shows the ridge you climbed.", "Here are my old boots.") == {}


def test_a_reaction_beside_a_fact_gets_no_sentence_view_but_stays_in_the_reply() -> None:
    made = _views("Your boots must have a story for every trail. We bought new tents for the scouts last week.", "Here are my old boots.")
    assert any("tents" in t for t in made["sentence"])
    assert not any("boots" in t for t in made["sentence"])
    assert any("boots" in t and "tents" in t for t in made["context"])


def test_an_answer_to_a_question_about_something_keeps_its_record() -> None:
    made = _views("Your boots must have a story for every trail.", "What do you think of my old boots?")
    assert any("boots" in t for ts in made.values() for t in ts)


def test_an_image_caption_or_an_instruction_never_says_nothing() -> None:
    class Sentence:
        def __init__(self, text: str, **kw: object) -> None:
            self.text, self.times = text, []
            self.__dict__.update(kw)

    assert says_nothing(Sentence("Your boots must have a story for every trail."), NAMES)
    assert not says_nothing(Sentence("Your boots must have a story for every trail.", image=True), NAMES)
    assert not says_nothing(Sentence("Your replies can be shorter.", procedural=True), NAMES)
