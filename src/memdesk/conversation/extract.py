"""The offline extractor: typed records from an utterance with rules, no model.

Every record is **attributed** and **anchored**:

* first person is rewritten to the speaker ("I went" -> "Caroline went", "my" -> "Caroline's"),
  second person to the addressee ("your" -> "Melanie's"), a sentence with a dropped subject
  gets one ("Lost my job" -> "Jon lost Jon's job"), and a text that still lacks the speaker's
  name is prefixed with it ("Caroline: ..."): questions name people and the embedding must see
  the name;
* relative time is resolved against the message timestamp (:mod:`memdesk.timeexpr`) and the
  absolute date is written next to the expression ("yesterday (2023-05-07)"); ``event_time`` and
  ``temporal_anchor`` come from the main time mention of the record's own sentences, else from the
  message date; ``metadata["said_at"]`` keeps the message time;
* an image is stored through its caption ("Caroline shared an image: a photo of ...").

A turn is stored as a few short **views**, each a record whose type follows the router's cues
(procedural > episodic > semantic among the types set in the mask):

* ``sentence`` views: one per sentence (a sentence that opens with a pronoun, "It was ...",
  stays with the one before it; an image caption is a view of its own). Sharp, short matches
  for questions about one detail;
* a ``turn`` view: the whole turn (event sentences first) when it has more than one sentence
  view, so a question about the turn as a whole finds it;
* a ``context`` view: a reply together with the turn it answers: "Melanie asked: Did Caroline
  hear any inspiring stories? Caroline: The transgender stories were so inspiring!". Short
  answers ("Yes, twice!", "It was in Paris") only make sense this way. Its provenance is the
  reply's id, then the previous turn's id, whose words it quotes;
* a ``question`` view for a turn that only asks something (the router gives it the semantic
  bit): "Melanie asked Caroline: ...".

Views of one turn share its provenance, so the retriever's de-duplication keeps at most one of
them per question; each title is a prefix of its body, so an evidence line repeats nothing.
Lengths are capped (``max_fact_chars``, ``max_summary_chars``, ``max_context_chars``) to keep an
evidence block of ~25 records near 900 tokens.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Any, Literal

from ..records import EpisodicRecord, MemoryRecord, MemoryType, ProceduralRecord, RouteMask, SemanticRecord
from ..timeexpr import TimeMention, main_anchor, resolve
from .base import Utterance
from .router import addressee_of, analyze_utterance, names_of
from .rules import ED_ADJECTIVES, IRREGULAR_PAST, Sentence, analyze, content_words, to_third_person, words

logger = logging.getLogger(__name__)

__all__ = ["RuleExtractor"]

ContextViews = Literal["none", "questions", "all"]

_ANAPHOR = re.compile(r"^(?:it|it's|that|that's|this|they|they're|these|those|she|he|which|so)\b", re.IGNORECASE)
_IMAGE = re.compile(r"^\[shares an image: (.*)\]$")
_ELLIPSIS_LEADS = {"been": "has been", "gonna": "is gonna", "going": "is going"}


def _truncate(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with "…" when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def _first_clause(text: str, start: int = 0, limit: int = 80) -> str:
    """A prefix of ``text``: everything up to the first clause break after ``start`` (<= ``limit`` chars)."""
    m = re.compile(r"[.!?;:](?:\s|$)|,\s|\s[-–—]\s").search(text, start)
    head = text[: m.start()] if m and m.start() - start >= 12 else text
    if len(head) > start + limit:
        cut = head[: start + limit]
        space = cut.rfind(" ")
        head = cut[:space] if space > start + limit // 2 else cut
    return head.rstrip(" ,;:-")


class RuleExtractor:
    """Writes attributed, time-anchored records for the types in a route mask (rules only).

    Args:
        max_fact_chars: longest sentence view (cut at a word, with "…").
        max_summary_chars: longest turn or context view.
        max_context_chars: longest quote of the previous turn inside a context view.
        context_views: ``"all"``: every reply to another speaker gets a context view;
            ``"questions"``: only replies to a question; ``"none"``: never.
        turn_views: write the whole-turn view of multi-sentence turns.
    """

    def __init__(
        self,
        *,
        max_fact_chars: int = 240,
        max_summary_chars: int = 200,
        max_context_chars: int = 80,
        context_views: ContextViews = "all",
        turn_views: bool = True,
    ) -> None:
        if min(max_fact_chars, max_summary_chars, max_context_chars) < 20:
            from ..errors import ConfigError

            raise ConfigError("RuleExtractor length limits must be at least 20 characters")
        if context_views not in ("none", "questions", "all"):
            from ..errors import ConfigError

            raise ConfigError(f"context_views must be 'none', 'questions' or 'all', not {context_views!r}")
        self.max_fact_chars = max_fact_chars
        self.max_summary_chars = max_summary_chars
        self.max_context_chars = max_context_chars
        self.context_views = context_views
        self.turn_views = turn_views

    # --- public ------------------------------------------------------------------------------

    def extract(self, utterance: Utterance, mask: RouteMask) -> list[MemoryRecord]:
        """Records of the types set in ``mask`` (none for mask 000), provenance = the message id."""
        if not mask.bits:
            return []
        sentences = analyze_utterance(utterance)
        names = names_of(utterance)
        speaker = utterance.message.speaker
        addressee = addressee_of(utterance)
        content = [s for s in sentences if s.kind == "content"]
        pid = [utterance.message_id]

        if not content:
            questions = [s for s in sentences if s.kind == "question" and content_words(s.text, names)]
            if not questions:
                return []
            body = " ".join(self._render(q, speaker, addressee) for q in questions)
            head = f"{speaker} asked {addressee}: " if speaker and addressee else (f"{speaker} asked: " if speaker else "")
            text = _truncate(head + body, self.max_summary_chars)
            return [self._record(mask.types[0], text, utterance, questions, pid, "question", len(head))]

        out: list[MemoryRecord] = []
        groups = self._groups(content)
        for group in groups:
            kind = self._kind(group, mask)
            text = " ".join(self._render(s, speaker, addressee, keep_you=kind is MemoryType.PROCEDURAL) for s in group)
            limit = self.max_fact_chars if kind is MemoryType.SEMANTIC else self.max_summary_chars
            out.append(self._record(kind, _truncate(self._name(text, speaker), limit), utterance, group, pid, "sentence"))

        if self.turn_views and len(groups) > 1:
            events = [s for s in content if s.episodic]
            ordered = events + [s for s in content if s not in events]
            kind = MemoryType.EPISODIC if mask.episodic else self._kind(content, mask)
            text = " ".join(self._render(s, speaker, addressee) for s in ordered)
            text = _truncate(self._name(text, speaker), self.max_summary_chars)
            out.append(self._record(kind, text, utterance, events or content, pid, "turn"))

        before = self._previous_turn(utterance) if self.context_views != "none" else None
        if before is not None:
            who, prev_id, prev_sents, asked = before
            quote = _truncate(" ".join(self._render(s, who, speaker) for s in prev_sents), self.max_context_chars)
            head = f"{who} {'asked' if asked else 'said'}: {quote} "
            reply = " ".join(self._render(s, speaker, addressee) for s in content)
            text = _truncate(f"{head}{speaker or 'Reply'}: {reply}", self.max_summary_chars)
            kind = MemoryType.EPISODIC if mask.episodic and any(s.episodic for s in content) else self._kind(content, mask)
            prov = pid + ([prev_id] if prev_id and prev_id not in pid else [])
            out.append(self._record(kind, text, utterance, content, prov, "context", len(head)))
        return out

    # --- views -------------------------------------------------------------------------------

    @staticmethod
    def _kind(sentences: list[Sentence], mask: RouteMask) -> MemoryType:
        """The record type for these sentences: procedural > episodic > semantic, within the mask."""
        cues = (
            (MemoryType.PROCEDURAL, any(s.procedural for s in sentences)),
            (MemoryType.EPISODIC, any(s.episodic for s in sentences)),
            (MemoryType.SEMANTIC, any(s.semantic for s in sentences)),
        )
        for t, on in cues:
            if on and getattr(mask, t.value):
                return t
        return mask.types[0]

    @staticmethod
    def _groups(content: list[Sentence]) -> list[list[Sentence]]:
        """Sentence views: a sentence opening with a pronoun joins the one before it."""
        groups: list[list[Sentence]] = []
        for s in content:
            if groups and _ANAPHOR.match(s.text):
                groups[-1].append(s)
            else:
                groups.append([s])
        return groups

    def _previous_turn(self, utterance: Utterance) -> tuple[str, str, list[Sentence], bool] | None:
        """(speaker, id, the sentences replied to, whether they ask) of the previous turn, when it
        was someone else's: its questions, else (``context_views="all"``) its last statement."""
        if not utterance.context:
            return None
        prev = utterance.context[-1]
        if not prev.speaker or prev.speaker == utterance.message.speaker:
            return None
        names = names_of(utterance)
        ts = prev.timestamp or utterance.message.timestamp
        sents = analyze(prev.text(), times_of=(lambda t: resolve(t, ts)) if ts else None, names=names)
        questions = [s for s in sents if s.kind == "question" and content_words(s.text, names)]
        if questions:
            return prev.speaker, prev.id or "", questions[-2:], True
        if self.context_views == "all":
            said = [s for s in sents if s.kind == "content"][-1:]
            if said:
                return prev.speaker, prev.id or "", said, False
        return None

    # --- rendering ---------------------------------------------------------------------------

    @staticmethod
    def _inline_times(s: Sentence) -> str:
        """The sentence with each relative time expression followed by its absolute label."""
        text = s.text
        for t in sorted(s.times, key=lambda t: -t.span[0]):
            if t.label.lower() in t.text.lower() or t.text.strip().isdigit():
                continue
            b = t.span[1]
            text = f"{text[:b]} ({t.label}){text[b:]}"
        return text

    @staticmethod
    def _subject_for_ellipsis(text: str, speaker: str | None) -> str:
        """"Lost my job yesterday" -> "Jon lost my job yesterday" (the pronouns are rewritten next)."""
        if not speaker or text.rstrip().endswith("?"):
            return text
        ws = words(text)
        if not ws:
            return text
        def is_past(w: str) -> bool:
            return w in IRREGULAR_PAST or (w.endswith("ed") and len(w) > 4 and w not in ED_ADJECTIVES)

        first = ws[0]
        adverb_then_past = first in ("just", "finally") and len(ws) > 1 and is_past(ws[1])
        if is_past(first) or first in ("been", "gonna", "going") or adverb_then_past:
            lead = _ELLIPSIS_LEADS.get(first)
            rest = text[len(text.split()[0]) :] if lead and lead != first else text[1:]
            head = lead if lead and lead != first else text[0].lower()
            return f"{speaker} {head}{rest}"
        return text

    def _render(self, s: Sentence, speaker: str | None, addressee: str | None, *, keep_you: bool = False) -> str:
        m = _IMAGE.match(s.text)
        if m:
            return f"{speaker or 'Someone'} shared an image: {m.group(1)}"
        text = self._subject_for_ellipsis(self._inline_times(s), speaker)
        return to_third_person(text, speaker, None if keep_you else addressee)

    @staticmethod
    def _name(text: str, speaker: str | None) -> str:
        if speaker and speaker.split()[0] not in text:
            return f"{speaker}: {text}"
        return text

    # --- records -----------------------------------------------------------------------------

    def _record(
        self,
        kind: MemoryType,
        text: str,
        utterance: Utterance,
        sentences: list[Sentence],
        provenance: list[str],
        view: str,
        title_from: int = 0,
    ) -> MemoryRecord:
        common = self._common(utterance, sentences, provenance, view)
        if kind is MemoryType.SEMANTIC:
            return SemanticRecord(fact=text, **common)
        title = _first_clause(text, title_from)
        if kind is MemoryType.EPISODIC:
            return EpisodicRecord(title=title, summary=text, **common)
        return ProceduralRecord(title=title, content=text, **common)

    @staticmethod
    def _anchor(
        sentences: list[Sentence], ts: datetime | None
    ) -> tuple[datetime | None, str | None, list[TimeMention]]:
        mentions = [t for s in sentences for t in s.times]
        main = main_anchor(mentions)
        if main is not None:
            return main.start, main.label, mentions
        if ts is not None:
            return ts, ts.date().isoformat(), mentions
        return None, None, mentions

    def _common(self, utterance: Utterance, sentences: list[Sentence], provenance: list[str], view: str) -> dict[str, Any]:
        ts = utterance.message.timestamp
        event_time, anchor, mentions = self._anchor(sentences, ts)
        meta: dict[str, Any] = {"extractor": "rules", "view": view}
        if ts is not None:
            meta["said_at"] = ts.isoformat()
        if mentions:
            meta["time_expressions"] = [
                {"text": t.text, "label": t.label, "granularity": t.granularity} for t in mentions
            ]
        return dict(
            scope=utterance.scope,
            speaker=utterance.message.speaker,
            event_time=event_time,
            temporal_anchor=anchor,
            provenance=list(provenance),
            metadata=meta,
        )
