"""Turns that only accept a request, take up the reply just heard or close the conversation make no record
(memdesk.conversation.reactions: accepts_request, takes_up_reply, signs_off), and a message in another language
that the English rules read as phatic makes none (router). What is said beside them with a time, a name, a number
or a reason of its own stays. Sentences written here, in no chat file."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.base import RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.reactions import accepts_request, reaction_turn, signs_off, takes_up_reply
from memdesk.conversation.router import RuleRouter
from memdesk.records import Message, RouteMask, Scope

S = Scope(user_id="ilse")
TS = datetime(2025, 3, 11, 21, 0, tzinfo=timezone.utc)


def said(text: str, role: str = "user", *, before: list[Message] | None = None) -> Utterance:
    speaker = "Ilse" if role == "user" else None
    message = Message(id="m9", role=role, speaker=speaker, content=text, timestamp=TS)
    return Utterance(message_id="m9", message=message, scope=S, context=before or [])


def user(text: str) -> Message:
    return Message(id="m8", role="user", speaker="Ilse", content=text, timestamp=TS)


def records(u: Utterance) -> list:
    [p] = RoutedExtraction(RuleRouter(), RuleExtractor()).process([u])
    return p.records


@pytest.mark.parametrize(
    "text",
    [
        "right, off to the garage to sand the door",
        "ok, going to nap a bit before my run",
        "Ha. Right I'm off for a walk. Danke!",
        "dank je, I'll sleep now, busy morning",
        "ok going to try to rest while the baby naps, night!",
    ],
)
def test_a_turn_that_only_leaves_the_conversation_makes_no_record(text: str) -> None:
    assert signs_off(text, ["Ilse"])
    assert records(said(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "I'm off to Ghent on Friday",  # a plan: a time and a place of its own
        "I sleep badly since the move",
        "going to bed early because the ferry leaves at six",  # a reason
        "I'm off work until the cast comes off",
        "off to the garage? it's raining",
    ],
)
def test_a_leave_with_a_time_a_name_or_a_reason_stays(text: str) -> None:
    assert not signs_off(text, ["Ilse"])


@pytest.mark.parametrize(
    "text",
    [
        "ahh ok that makes sense",
        "ok thanks, thats less daunting than I thought",
        "yes that's what my physio said",
        "Ha, Grandad will love that.",
    ],
)
def test_a_user_taking_up_the_reply_makes_no_record(text: str) -> None:
    assert takes_up_reply(text, ["Ilse"])
    assert records(said(text)) == []


@pytest.mark.parametrize("text", ["That's where I park the van", "that's my brother's old bike", "That makes 3 this week", "that makes sense?"])
def test_a_demonstrative_with_something_of_its_own_stays(text: str) -> None:
    assert not takes_up_reply(text, ["Ilse"])


def test_taking_up_is_read_only_when_the_user_talks_to_an_assistant() -> None:
    # between two people "that makes sense" may answer a question the other asked, so it is not read so
    peer = Message(id="m7", role="user", speaker="Jonas", content="We moved the rehearsal because the hall flooded.", timestamp=TS)
    assert records(said("ahh ok that makes sense", before=[peer]))


@pytest.mark.parametrize(
    "text",
    [
        "Of course. Send them over.",
        "Understood, short lists with the deadlines.",
        "Avec plaisir. Send me the paragraph and I'll check it, with notes in English.",
    ],
)
def test_an_assistant_accepting_a_request_gives_nothing_yet(text: str) -> None:
    assert accepts_request(text)
    u = said(text, role="assistant", before=[user("can you keep my shopping lists for me, I'll send them tonight")])
    assert reaction_turn(u)
    assert records(u) == []


@pytest.mark.parametrize(
    "text",
    [
        "Sure. Lentil soup with cumin.",  # an answer, not an acceptance
        "Of course! Book the 7:40 ferry.",  # a number
        "Of course. Send them over, but you could also photograph the receipts.",  # advice
        "Understood. Which days suit you?",  # a question
        "Noted: no nuts. Quick snack ideas: dates, oat bars, cheese.",  # ideas of its own after the instruction said back
    ],
)
def test_an_answer_or_advice_after_an_acknowledgement_stays(text: str) -> None:
    assert not accepts_request(text)


@pytest.mark.parametrize("text,role", [("danke, you're a gem", "user"), ("Hallo Ilse, wie geht es dir? What's up?", "assistant")])
def test_a_message_in_another_language_that_the_rules_read_as_phatic_makes_no_record(text: str, role: str) -> None:
    u = said(text, role=role)
    [p] = RoutedExtraction(RuleRouter(), RuleExtractor()).process([u])
    assert p.mask == RouteMask() and p.records == []


def test_a_message_in_another_language_with_words_of_its_own_stays() -> None:
    assert records(said("danke, ich wohne jetzt in Gent"))
    # a list of words in another language, glossed: the English rules may read it as phatic, so its length keeps it
    gloss = "tvättmaskin (washing machine), diskmedel (dish soap), dammsugare (vacuum), soppåse (bin bag), nyckelring (key ring)."
    assert records(said(gloss, role="assistant", before=[user("give me five Swedish words for cleaning")]))
