"""A relative date's label is written after its words only where that splits nothing: a possessive, a hyphenated
word or a day number that carries on the expression keeps the date in the record's fields (anchor, time
expressions) instead."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.conversation.render import render
from memdesk.conversation.rules import Sentence
from memdesk.timeexpr.resolve import TimeMention


def _with(text: str, words: str, label: str) -> Sentence:
    s = text.index(words)
    m = TimeMention(text=words, span=(s, s + len(words)), start=datetime(2025, 3, 14, tzinfo=timezone.utc), end=None,
                    granularity="day", label=label)
    return Sentence(text=text, kind="content", times=[m])


@pytest.mark.parametrize(
    "text, words",
    [
        ("Essay due Friday 14th, then a break.", "Friday"),
        ("Tomorrow's match is off.", "Tomorrow"),
        ("We go Friday-ish, weather permitting.", "Friday"),
    ],
)
def test_no_label_splits_the_words(text: str, words: str) -> None:
    (out,), _ = render([_with(text, words, "2025-03-14")], None, None)
    assert "2025-03-14" not in out and out == text


def test_a_label_follows_a_whole_expression() -> None:
    (out,), _ = render([_with("Essay due Friday, then a break.", "Friday", "2025-03-14")], None, None)
    assert out == "Essay due Friday (2025-03-14), then a break."
