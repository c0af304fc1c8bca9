"""A statement split from a sentence keeps the dates the whole sentence resolved inside it (issue 28, helper 28dt3):
the piece "his two dogs in September" of "I flew to Oslo with my brother and his two dogs in September" is narrated
by "flew", though alone it has no verb. Sentences of our own."""

from __future__ import annotations

from datetime import datetime, timezone

from memdesk.conversation.router import piece_times
from memdesk.conversation.rules import analyze
from memdesk.timeexpr.resolve import TimeMention, resolve

_SAID = datetime(2025, 11, 20, 10, tzinfo=timezone.utc)


def _times_of(text: str) -> list[TimeMention]:
    return resolve(text, _SAID, prefer="auto")


def test_a_piece_keeps_its_sentences_reading() -> None:
    [sentence] = analyze("I flew to Oslo with my brother and his two dogs in September.", times_of=_times_of)
    piece = "His two dogs in September."
    got = piece_times(sentence, piece, _times_of)
    assert [t.start.date().isoformat() for t in got] == ["2025-09-01"]  # alone: the coming September (2026)
    assert piece[got[0].span[0] : got[0].span[1]] == "in September"


def test_only_the_pieces_own_dates() -> None:
    [sentence] = analyze("We met on 3 November and the wedding is on 14 February.", times_of=_times_of)
    got = piece_times(sentence, "the wedding is on 14 February", _times_of)
    assert [t.start.date().isoformat() for t in got] == ["2026-02-14"]


def test_words_not_in_the_sentence_are_read_alone() -> None:
    [sentence] = analyze("I flew to Oslo in September.", times_of=_times_of)
    got = piece_times(sentence, "Maya flew to Oslo in September", _times_of)
    assert [t.start.date().isoformat() for t in got] == ["2025-09-01"]
