"""Small talk by structure, from either role: an address that opens a conversation in any language, an assistant's
promise to keep a standing instruction, a reply that only takes up an action on what the other said; and earlier
turns that name the same person lend a lone day its month."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memdesk.conversation.base import Utterance
from memdesk.conversation.router import RuleRouter, earlier_text
from memdesk.records import Message, Scope

SCOPE = Scope(user_id="u1")
TS = datetime(2031, 3, 4, 18, 0, tzinfo=timezone.utc)


def _utt(text: str, *, role: str = "user", speaker: str = "Ilse", before: list[Message] | None = None) -> Utterance:
    msg = Message(id="m9", speaker=speaker, role=role, content=text, timestamp=TS)
    return Utterance(message_id="m9", message=msg, scope=SCOPE, context=list(before or []))


def _said(text: str, *, role: str = "user", speaker: str = "Ilse", ago: timedelta = timedelta(minutes=2)) -> Message:
    return Message(id=f"m{abs(hash(text)) % 1000}", speaker=speaker, role=role, content=text, timestamp=TS - ago)


@pytest.mark.parametrize(
    ("text", "role", "speaker"),
    [
        ("Dia duit Ilse! How can I help?", "assistant", "Desk"),
        ("Tere hommikust, Ilse. How can I help?", "assistant", "Desk"),
        ("Moien Desk", "user", "Ilse"),
    ],
)
def test_an_address_opening_a_conversation_makes_no_record(text: str, role: str, speaker: str) -> None:
    assert str(RuleRouter().route(_utt(text, role=role, speaker=speaker))) == "000"


def test_an_opening_with_news_or_a_place_is_kept() -> None:
    assert str(RuleRouter().route(_utt("Landed in Lisbon!"))) != "000"
    assert str(RuleRouter().route(_utt("Dia duit Desk! My kiln arrives on Friday."))) != "000"


def test_a_promise_to_keep_a_standing_instruction_makes_no_record() -> None:
    before = [_said("please always give me the totals as a table when I ask")]
    assert str(RuleRouter().route(_utt("Sure, I'll use a table.", role="assistant", speaker="Desk", before=before))) == "000"
    asked = [_said("can you give me the totals as a table?")]
    assert str(RuleRouter().route(_utt("Sure, I'll use a table.", role="assistant", speaker="Desk", before=asked))) != "000"


@pytest.mark.parametrize("text", ["yeah fair, will ring them", "ok, I'll email her"])
def test_taking_up_an_action_on_what_was_said_makes_no_record(text: str) -> None:
    before = [_said("Check the dose with your vet first.", role="assistant", speaker="Desk")]
    assert str(RuleRouter().route(_utt(text, before=before))) == "000"


@pytest.mark.parametrize("text", ["I sold it.", "ok will ask Marta", "My neighbour Ana will ring them"])
def test_news_or_a_name_is_kept(text: str) -> None:
    before = [_said("How is the old van?", role="assistant", speaker="Desk")]
    assert str(RuleRouter().route(_utt(text, before=before))) != "000"


def test_an_earlier_turn_naming_the_same_person_lends_its_month() -> None:
    old = _said("The roofers start on 9 April, Kasia's crew.", ago=timedelta(days=12))
    other = _said("The piano tuner comes on 9 April.", ago=timedelta(days=12))
    assert "9 April" in earlier_text(_utt("Kasia says they can't come till the 14th now.", before=[old]))
    assert earlier_text(_utt("Kasia says they can't come till the 14th now.", before=[other])) == ""


def test_an_address_returning_a_greeting_makes_no_record() -> None:
    before = [_said("hoi, you there?", ago=timedelta(minutes=1))]
    assert str(RuleRouter().route(_utt("Dia duit, Ilse! I'm here.", role="assistant", speaker="Desk", before=before))) == "000"


def test_a_demonstrative_object_takes_up_the_advice_too() -> None:
    before = [_said("Try three slow lunges each side after work.", role="assistant", speaker="Desk")]
    assert str(RuleRouter().route(_utt("ok thanks, going to try those lunges", before=before))) == "000"
    assert str(RuleRouter().route(_utt("ok, going to book that physio", before=before))) == "000"
    assert str(RuleRouter().route(_utt("ok thanks, sold those lunges to Pedro", before=before))) != "000"
    between = [*before, _said("also the tram from Praga takes 25 minutes", ago=timedelta(minutes=1))]
    assert str(RuleRouter().route(_utt("ok thanks, going to try those lunges", before=between))) == "000"  # advice two turns back
    peer = [_said("You should read that novel about the lighthouse keeper.", speaker="Tomas")]
    assert str(RuleRouter().route(_utt("ok, going to try those lunges", before=peer))) != "000"  # a peer's plan of their own


@pytest.mark.parametrize(
    "text",
    ["Evening. My nephew put this on my phone, hope I'm pressing the right things", "Hallo! my niece says you can help with the bees"],
)
def test_a_first_turn_about_the_chat_itself_makes_no_record(text: str) -> None:
    assert str(RuleRouter().route(_utt(text))) == "000"


@pytest.mark.parametrize(
    "text",
    ["My nephew put this on my phone. I keep 40 hens in Tullamore.", "hello, I bake bread for the Friday market",
     "I keep hens and I'd like you to remember the details", "I'm a welder, so I need you to keep my shifts straight",
     "I want you to help me keep track of my invoices",
     "Please answer me in short lines, you know my eyes are bad"],
)
def test_a_first_turn_with_a_fact_or_an_instruction_is_kept(text: str) -> None:
    assert str(RuleRouter().route(_utt(text))) != "000"


def test_talk_of_the_chat_after_the_assistants_greeting_makes_no_record() -> None:
    greeting = [_said("Good morning! How can I help?", role="assistant", speaker="Desk")]
    assert str(RuleRouter().route(_utt("my niece says you can help with the bees", before=greeting))) == "000"


def test_talk_of_the_chat_later_in_a_scope_is_left_to_the_other_rules() -> None:
    before = [_said("My nephew put this on my phone.")]
    assert str(RuleRouter().route(_utt("my niece says you can help with the bees", before=before))) != "000"
