"""What a reply was asked about: the topic of the question it answers, as a field beside the record's words.

A reply to another speaker's question often does not say what it is about ("Endgames.", "Yes, it hangs by the back
door.", "Two sugars"): the question did ("Where do you lose most points?"). The record keeps the reply's own words;
the question's topic goes beside them as ``metadata["asked_about"]``: the question's content words (its words less
function words and the names of the people talking, :func:`memdesk.conversation.rules.content_words`: "lose most
points"), picked rather than the whole question pasted, which a small embedder lets drown the reply's own words
(measured in ``bench/results/28ctx``). :meth:`memdesk.records.MemoryRecord.embed_text` puts it first in what is
embedded and indexed (the vector and BM25), never in the record's text, evidence lines or answers.

It is set at ingest (:func:`memdesk.conversation.ingest.ingest`), for every processor, from the raw previous turn
of a role the processor was not shown: the admission policy shows it only the user's earlier turns (its
``context_roles``), so the assistant's question never reaches the extractor's own context views, which embed the
turns it was shown ("Tom asked: ..."). A record that already embeds that turn (its provenance names it) gets none.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..records import MemoryRecord
from .base import Utterance
from .extract import REPLY_WINDOW
from .router import names_of
from .rules import analyze, content_words

MAX_TOPIC_WORDS = 8
"""At most this many of the question's content words (its last ones: a question ends on what it asks about)."""


def asked_about(utterance: Utterance, shown: Collection[str] = ()) -> tuple[str, str] | None:
    """(the previous turn's id, the content words of its last question that has any) when ``utterance`` replies to
    another speaker's question said less than ``REPLY_WINDOW`` before it, in a turn of a role the processor was
    not shown (``shown``: the admission policy's context roles; the extractor's context views embed those turns
    already); None otherwise."""
    if not utterance.context:
        return None
    prev, message = utterance.context[-1], utterance.message
    if prev.role in shown:
        return None  # the processor saw that turn: a context view embeds it
    if (prev.speaker, prev.role) == (message.speaker, message.role) or (prev.speaker and prev.speaker == message.speaker):
        return None  # the speaker's own earlier turn is no question put to them
    if message.timestamp is not None and prev.timestamp is not None and abs(message.timestamp - prev.timestamp) > REPLY_WINDOW:
        return None  # said hours apart: not an answer to it
    names = names_of(utterance)
    for sentence in reversed(analyze(prev.text(), names=names)):
        if sentence.kind != "question":
            continue
        topic = content_words(sentence.text, names)
        if topic:
            return prev.id or "", " ".join(topic[-MAX_TOPIC_WORDS:])
    return None


def mark_asked(
    utterances: Sequence[Utterance], records_of: Sequence[Sequence[MemoryRecord]], shown: Collection[str] = ()
) -> None:
    """Set ``metadata["asked_about"]`` on the records of each utterance that answers a question (:func:`asked_about`;
    ``shown``: the roles whose turns the processor saw as context), except records that already embed the
    question's turn (their provenance names it)."""
    for utterance, records in zip(utterances, records_of, strict=True):
        if not records:
            continue
        asked = asked_about(utterance, shown)
        if asked is None:
            continue
        prev_id, topic = asked
        for record in records:
            if prev_id and prev_id in record.provenance:
                continue
            record.metadata["asked_about"] = topic
