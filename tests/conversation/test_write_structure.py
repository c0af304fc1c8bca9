"""What is written, by structure (issue 28): reactions whose numbers are the news said back, a phrase in another
language with nothing to anchor a fact. Sentences
written here, in no chat file."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import Utterance
from memdesk.conversation.reactions import asks_for_something, gives_something
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, Scope

S = Scope(user_id="ines")
TS = datetime(2025, 6, 2, 18, 0, tzinfo=timezone.utc)


def _utt(text: str, speaker: str, *, context: list[Message] | None = None, role: str = "user") -> Utterance:
    msg = Message(id="m9", role=role, speaker=speaker, content=text, timestamp=TS)
    return Utterance(message_id="m9", message=msg, scope=S, context=context or [])


def _said(text: str, speaker: str, role: str) -> Message:
    return Message(id="m8", role=role, speaker=speaker, content=text, timestamp=TS)


@pytest.mark.parametrize(
    ("said", "told"),
    [
        # fragments under a judging last clause: the numbers are the news said back (worked out or rounded)
        ("Learning the oboe at 59 and already in a quintet, that's brilliant.", "I'm 62 and took up the oboe three years ago."),
        ("Below 200 two weeks ahead of plan, congratulations!", "I cut the build time from 340 to 190 seconds."),
        # "you'd" + participle is "you had": a sympathy of many words gives nothing
        ("I'm so sorry, Ines. You'd looked after her for years. It sounds like she had real friends around her at the end.",
         "My old neighbour Rosa died on Friday."),
    ],
)
def test_a_reaction_that_says_the_news_back_gives_nothing(said: str, told: str) -> None:
    assert not gives_something(said, told)


@pytest.mark.parametrize(
    "said",
    [
        "At 59 you could join a second quintet, that's brilliant.",  # advice with a number of its own
        "You'd better book the hall by 14 July.",
        "Great. The ferry leaves at 7:15 from pier 3.",
    ],
)
def test_a_reply_with_something_of_its_own_still_gives(said: str) -> None:
    assert gives_something(said, "I'm 62 and took up the oboe.")


def test_a_verb_of_asking_after_a_subject_is_no_request() -> None:
    assert not asks_for_something("The owner agreed to let me go early if I find a new tenant.")
    assert asks_for_something("Find a new tenant for me.")


@pytest.mark.parametrize("text", ["Ja ja. Hasta luego.", "Dobranoc, dzięki!"])
def test_a_short_phrase_in_another_language_makes_no_record(text: str) -> None:
    ctx = [_said("Your appointment is noted.", "Desk", "assistant")]
    assert not RuleRouter().route(_utt(text, "Ines", context=ctx)).bits


@pytest.mark.parametrize("text", ["Vivo en Oporto.", "Tengo 3 gatos.", "我明天去北京。"])
def test_another_language_with_a_name_a_number_or_no_capitals_is_kept(text: str) -> None:
    ctx = [_said("Your appointment is noted.", "Desk", "assistant")]
    assert RuleRouter().route(_utt(text, "Ines", context=ctx)).bits



@pytest.mark.parametrize(
    ("said", "told"),
    [
        # a clause of content after a comma is no verdict, however the rules read it alone
        (("Rewriting the whole CSV on each save is slow. One fix: a small key-value store such as LMDB, which lets you change "
          "single entries; or a log you append to if you read everything at start anyway."), "The app saves one big CSV file."),
        # steps put to the listener, and a third person's part in a plan, are advice
        ("Fair enough. Then book the van early: 40 guests probably means two trips, so work out who drives when.", "We invited 40 guests."),
        ("Having a nurse as a flatmate is handy! She could check your dressing for you.", "My new flatmate is a nurse."),
    ],
)
def test_a_reply_that_advises_still_gives(said: str, told: str) -> None:
    assert gives_something(said, told)


@pytest.mark.parametrize("said", ["Give Pip a scratch behind the ears from me.", "Be careful on the ice tonight, Wilf."])
def test_a_wish_said_as_an_imperative_gives_nothing(said: str) -> None:
    assert not gives_something(said, "Off to the lake with Pip now.")
