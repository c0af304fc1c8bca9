"""The rule extractor reads a day of the month said alone with the month said with that day in the speaker's
earlier turns ("I leave on the 16th" after "back on 16 October"), not with turns said days before."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memdesk.conversation.base import Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.router import RuleRouter, earlier_text
from memdesk.records import Message, Scope

SCOPE = Scope(user_id="u1", run_id="r1")
TS = datetime(2025, 9, 8, 14, 0, tzinfo=timezone.utc)


def _utt(text: str, before: list[tuple[str, timedelta]]) -> Utterance:
    context = [Message(id=f"m{i}", speaker="Noor", content=t, timestamp=TS - ago) for i, (t, ago) in enumerate(before)]
    message = Message(id="m9", speaker="Noor", content=text, timestamp=TS)
    return Utterance(message_id="m9", message=message, scope=SCOPE, context=context)


def _days(u: Utterance) -> set[str]:
    records = RuleExtractor().extract(u, RuleRouter().route(u))
    return {t["start"] for r in records for t in r.metadata.get("time_expressions", [])}


def test_a_lone_day_takes_its_month_from_the_turn_before() -> None:
    u = _utt("I drive back on the 19th and start work on the 20th.", [("We're in Cornwall from 6 to 19 October.", timedelta(minutes=3))])
    assert _days(u) == {"2025-10-19", "2025-10-20"}


def test_turns_said_days_before_are_not_read() -> None:
    u = _utt("I drive back on the 19th.", [("We're in Cornwall from 6 to 19 October.", timedelta(days=3))])
    assert earlier_text(u) == ""
    assert _days(u) == {"2025-09-19"}
