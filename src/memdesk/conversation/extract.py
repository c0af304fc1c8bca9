"""The offline extractor: typed records from an utterance with rules, no model.

Every record is **attributed** and **anchored**:

* first person is rewritten to the speaker ("I went" -> "Priya went", "my" -> "Priya's"),
  second person to the addressee ("your" -> "Tom's"), a sentence with a dropped subject
  gets one ("Sold my bike" -> "Ravi sold Ravi's bike"), and a text that still lacks the speaker's
  name is prefixed with it ("Priya: ..."): questions name people and the embedding must see
  the name. Where a rewrite would break grammar (:mod:`.person`), the text keeps the first
  person and is attributed ("Priya: I ...");
* relative time is resolved against the message timestamp, else the time the message was added
  (``Utterance.reference_time``), and ``metadata["time_reference"]`` says which (``"said_at"`` or
  ``"added_at"``). Every resolved expression is kept in ``metadata["time_expressions"]`` (with its
  ``start`` and ``end``); a relative one also gets its date in the text ("yesterday (2023-05-07)"), a
  date said in calendar words ("15 April") is left as said;
  ``event_time`` and ``temporal_anchor`` come from the main time mention of the record's own
  sentences, else from that reference time. A date the rules did not parse is never anchored;
* an image is stored through its caption ("Priya shared an image: a photo of ...").

A turn is stored as a few short **views**, each a record whose type follows the router's cues (procedural > episodic >
semantic among the types set in the mask):

* ``sentence`` views: one per sentence (a sentence that opens with a pronoun, "It was ...", stays with the one before
  it; an image caption is a view of its own): sharp matches for one detail. A verbless fragment ("A bit.") or a
  sentence of nothing to remember (:func:`.filler.says_nothing`: :func:`.filler.evaluation_only`) gets none when a whole view carries it;
* a ``turn`` view: the whole turn (event sentences first) when it has more than one sentence view, so a question about
  the turn as a whole finds it;
* a ``context`` view: a reply embedded together with the turn it answers: its text is the reply's own words ("Priya:
  The views from the deck were lovely!"), and the turn it answers ("Tom asked: Did Priya enjoy the ferry?") is
  ``metadata["embed_context"]``, read by the embedding and the lexical index only. Short answers ("Yes, twice!", "It
  was in Porto") are found this way. Its provenance is the reply's id, then the previous turn's id. A message with no
  speaker, or said more than ``REPLY_WINDOW`` after the previous turn, is no reply;
* ``statement`` views instead of all the others for a turn that makes an attribute claim (:mod:`.facts`): one record
  per statement (:mod:`.atoms`), so a later change closes only what it replaces;
* a ``question`` view for a user's turn that only asks something (the router gives it the semantic bit): "Tom asked
  Priya: ..."; an assistant's questions make no record;
* a ``verbatim`` view for a message in a language the English rules do not read
  (:func:`memdesk.text.lang.is_english`): its sentences, unchanged and attributed, in chunks.

Views of one turn share its provenance, so the retriever's de-duplication keeps at most one of them per question; each
title is a prefix of its body, so an evidence line repeats nothing. Views hold whole sentences up to their length caps
(``max_fact_chars``, ``max_summary_chars``, ``max_context_chars``), which keep an evidence block of ~25 records near
900 tokens.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Literal

from ..text.lang import dominant_script, is_english
from ..records import EpisodicRecord, MemoryRecord, MemoryType, ProceduralRecord, RouteMask, SemanticRecord
from ..timeexpr.resolve import TimeMention, main_anchor, resolve
from .base import Utterance
from .filler import FillerTest, says_nothing
from .atoms import atoms, introduction
from .facts import claims_of
from .updates import sentence_update, values_of
from .render import attribute, chunks, fit, render
from .social import social_question
from .router import addressee_of, analyze_utterance, names_of, piece_times, reference_of, times_reader
from .rules import SUBJECTS, Sentence, analyze, content_words, greets_only, has_past_event, words

logger = logging.getLogger(__name__)

__all__ = ["RuleExtractor", "first_clause", "text_fields"]

ContextViews = Literal["none", "questions", "all"]

#: The longest gap after which a message is still read as a reply to the turn before it.
REPLY_WINDOW = timedelta(hours=6)

_ANAPHOR = re.compile(r"^(?:it|it's|that|that's|this|they|they're|these|those|she|he|which|so)\b", re.IGNORECASE)


def first_clause(text: str, start: int = 0, limit: int = 80) -> str:
    """A prefix of ``text``: everything up to the first clause break after ``start`` (<= ``limit`` chars)."""
    m = re.compile(r"[.!?;:](?:\s|$)|,\s|\s[-–—]\s").search(text, start)
    head = text[: m.start()] if m and m.start() - start >= 12 else text
    if len(head) > start + limit:
        cut = head[: start + limit]
        space = cut.rfind(" ")
        head = cut[:space] if space > start + limit // 2 else cut
    return head.rstrip(" ,;:-")


def text_fields(kind: MemoryType, text: str, reference: datetime | None) -> dict[str, Any]:
    """The fields a record's text decides, for a text written by someone else (``Memory.update``):
    the title of an episodic or procedural record, and the event time and anchor of the text's
    main time mention against ``reference`` (none when it has none)."""
    out: dict[str, Any] = {}
    if kind is not MemoryType.SEMANTIC:
        out["title"] = first_clause(text)
    if reference is not None:
        main = main_anchor(resolve(text, reference, prefer="auto"))
        if main is not None:
            out["event_time"], out["temporal_anchor"] = main.start, main.label
    return out


def _instructs(kind: MemoryType, sentences: list[Sentence]) -> bool:
    """Whether an instruction's generic "you" stays as it is: procedural text that narrates no event."""
    return kind is MemoryType.PROCEDURAL and not any(has_past_event(s.text) for s in sentences)


def _fragment(s: Sentence) -> bool:
    """A verbless short answer ("A bit.", "First try.", "Probably not.")."""
    ws = words(s.text)
    if s.image or s.times or len(ws) > 3 or not ws:
        return False
    return ws[0].split("'")[0] not in SUBJECTS and not has_past_event(s.text)


class RuleExtractor:
    """Writes attributed, time-anchored records for the types in a route mask (rules only).

    Args:
        max_fact_chars: longest sentence view. Views hold whole sentences; only a single sentence
            longer than its view's cap is cut (at a word, with "…").
        max_summary_chars: longest reply inside a context view.
        max_turn_chars: longest turn view (whole sentences: a turn view that would hold only its first
            sentence says no more than that sentence's own view).
        max_context_chars: longest quote of the previous turn inside a context view.
        context_views: ``"all"``: every reply to another speaker gets a context view;
            ``"questions"``: only replies to a question; ``"none"``: never.
        turn_views: write the whole-turn view of multi-sentence turns.
        filler: the learned small-talk test (:mod:`.filler`) the router uses too, or None.
    """

    def __init__(
        self,
        *,
        max_fact_chars: int = 240,
        max_summary_chars: int = 200,
        max_context_chars: int = 120,
        max_turn_chars: int = 320,
        context_views: ContextViews = "all",
        turn_views: bool = True,
        filler: FillerTest | None = None,
    ) -> None:
        if min(max_fact_chars, max_summary_chars, max_context_chars, max_turn_chars) < 20:
            from ..errors import ConfigError

            raise ConfigError("RuleExtractor length limits must be at least 20 characters")
        if context_views not in ("none", "questions", "all"):
            from ..errors import ConfigError

            raise ConfigError(f"context_views must be 'none', 'questions' or 'all', not {context_views!r}")
        self.max_fact_chars = max_fact_chars
        self.max_summary_chars = max_summary_chars
        self.max_context_chars = max_context_chars
        self.max_turn_chars = max_turn_chars
        self.context_views = context_views
        self.turn_views = turn_views
        self.filler = filler

    # --- public ------------------------------------------------------------------------------

    def extract(self, utterance: Utterance, mask: RouteMask) -> list[MemoryRecord]:
        """Records of the types set in ``mask`` (none for mask 000), provenance = the message id."""
        if not mask.bits:
            return []
        if not is_english(utterance.message.text()):
            if greets_only(utterance.message.text(), names_of(utterance)):
                return []  # "Gracias!", "Good idea. Obrigado.", "Dobrý večer!": thanks or a greeting in another language
            return self._verbatim(utterance, mask)
        sentences = analyze_utterance(utterance, self.filler)
        names = names_of(utterance)
        speaker = utterance.message.speaker
        addressee = addressee_of(utterance)
        content = [s for s in sentences if s.kind == "content"]
        pid = [utterance.message_id]

        if not content:
            # a question about the person asked ("How's your family?") notes nothing of the asker
            questions = [s for s in sentences if s.kind == "question" and content_words(s.text, names) and not social_question(s.text, content_words(s.text, names))]
            if not questions or utterance.message.role != "user":
                return []  # an assistant's question holds nothing anyone said about themselves
            parts, rewritten = render(questions, speaker, addressee)
            head = f"{speaker} asked {addressee}: " if speaker and addressee else (f"{speaker} asked: " if speaker else "")
            text = fit(parts, self.max_summary_chars, head=head)
            return [self._record(mask.types[0], text, utterance, questions, pid, "question", len(head))]

        out: list[MemoryRecord] = []
        before = self._previous_turn(utterance) if self.context_views != "none" else None
        if not (before is not None and before[3]) and all(not s.procedural and says_nothing(s, names) for s in content):
            return []  # nothing worth remembering about anyone (.filler.says_nothing); an answer to a question about something stays
        claims = [c for s in content for c in claims_of(s.text)]
        # a turn that claims, or a sentence giving values in two statements ("the MOT is on 4 May, and my son's recital
        # is on 9 May": either may change alone): a record per statement; of new values only if it holds two or more
        split = any(c.attribute != "update" for c in claims) or any(sum(bool(values_of(a)) for a in atoms(s.text)) > 1 or introduction(s.text) for s in content)
        if split or claims and (len(content) > 1 or any(len(atoms(s.text, clauses=False)) > 1 for s in content)):
            return self._statements(content, utterance, mask, before, split=split)
        groups = self._groups(content)
        whole = before is not None or (self.turn_views and len(groups) > 1)
        for group in groups:
            if whole and (len(group) == 1 and _fragment(group[0]) or all(says_nothing(s, names) for s in group)
                          or (self.filler is not None and self.filler.all_filler(group, names))):
                continue  # "A bit." means something only next to the rest, small talk nothing alone: the turn or context view has it
            kind = self._kind(group, mask)
            parts, rewritten = render(group, speaker, addressee, keep_you=_instructs(kind, group))
            limit = self.max_fact_chars if kind is MemoryType.SEMANTIC else self.max_summary_chars
            text = fit(parts, limit - len(speaker or "") - 2)
            out.append(self._record(kind, text, utterance, group, pid, "sentence", label=attribute(text, speaker, rewritten=rewritten)))

        if self.turn_views and len(groups) > 1:
            events = [s for s in content if s.episodic]
            procedural = sum(s.procedural for s in content) * 2 > len(content)
            ordered = content if procedural else events + [s for s in content if s not in events]
            kind = self._kind(content, mask) if procedural or not mask.episodic else MemoryType.EPISODIC
            parts, rewritten = render(ordered, speaker, addressee, keep_you=_instructs(kind, ordered))
            text = fit(parts, self.max_turn_chars - len(speaker or "") - 2)
            label = attribute(text, speaker, rewritten=rewritten)
            out.append(self._record(kind, text, utterance, events or content, pid, "turn", claim_from=content, label=label))

        if before is not None:
            who, prev_id, prev_sents, asked = before
            # the turn replied to shapes how the reply is found (its embedding), never its text: the
            # record holds the reply's own words only ("Yes, twice!" is found by "Did Priya ...?")
            quoted, _ = render(prev_sents, who, speaker)
            said = f"{who} {'asked' if asked else 'said'}: "
            quote = fit(quoted, len(said) + self.max_context_chars, head=said)
            parts, rewritten = render(content, speaker, addressee)
            text = fit(parts, self.max_summary_chars)
            kind = MemoryType.EPISODIC if mask.episodic and any(s.episodic for s in content) else self._kind(content, mask)
            prov = pid + ([prev_id] if prev_id and prev_id not in pid else [])
            record = self._record(kind, text, utterance, content, prov, "context", label=attribute(text, speaker, rewritten=rewritten))
            _embed_after(record, quote)
            out.append(record)
        return out

    def _statements(
        self, content: list[Sentence], utterance: Utterance, mask: RouteMask, before: tuple[str, str, list[Sentence], bool] | None,
        split: bool = True,
    ) -> list[MemoryRecord]:
        """A turn that changes a fact (:mod:`.facts`): one record per statement (:mod:`.atoms`), and no
        record that joins two of them, so a later change closes only the statement it replaces ("We
        moved" closes "Maya lives in a flat in Leith", not "Maya lives with Maya's cat, Biscuit"). The
        turn replied to shapes each statement's embedding, as a context view would. ``split=False`` (a turn whose
        only claims are new values): no split between two clauses of the speaker's own, a value kept with what it
        is of ("..., so we're nine now")."""
        speaker, addressee = utterance.message.speaker, addressee_of(utterance)
        times_of = times_reader(utterance)
        quote, prov = None, [utterance.message_id]
        if before is not None:
            who, prev_id, prev_sents, asked = before
            quoted, _ = render(prev_sents, who, speaker)
            said = f"{who} {'asked' if asked else 'said'}: "
            quote = fit(quoted, len(said) + self.max_context_chars, head=said)
            prov += [prev_id] if prev_id and prev_id != utterance.message_id else []
        names, out, inner = names_of(utterance), [], []
        for sentence in content:
            for piece in atoms(sentence.text, clauses=split):
                atom = sentence if piece == sentence.text else replace(
                    sentence, text=piece, times=piece_times(sentence, piece, times_of)
                )
                kind = self._kind([atom], mask)
                parts, rewritten = render([atom], speaker, addressee, keep_you=_instructs(kind, [atom]))
                limit = self.max_fact_chars if kind is MemoryType.SEMANTIC else self.max_summary_chars
                text = fit(parts, limit - len(speaker or "") - 2)
                record = self._record(kind, text, utterance, [atom], list(prov), "statement", label=attribute(text, speaker, rewritten=rewritten))
                if (update := sentence_update(sentence.text, piece)) is not None:  # memdesk.conversation.updates
                    record.metadata["claims"] = [c for c in record.metadata.get("claims", []) if c["attribute"] != "update"] + [update.as_dict()]
                if quote:
                    _embed_after(record, quote)
                out.append(record)
                inner.append(says_nothing(atom, names))
        return [r for r, empty in zip(out, inner, strict=True) if not empty] if not all(inner) else out  # "It's so fulfilling." beside a fact

    def _verbatim(self, utterance: Utterance, mask: RouteMask) -> list[MemoryRecord]:
        """Records of a message the English rules cannot read: its own words, attributed, in chunks."""
        speaker = utterance.message.speaker
        kind = mask.types[0]
        out = []
        for chunk in chunks(utterance.message.text(), self.max_summary_chars):
            rec = self._record(kind, chunk, utterance, [], [utterance.message_id], "verbatim", label=attribute(chunk, speaker, rewritten=False))
            rec.metadata["script"] = dominant_script(chunk)
            out.append(rec)
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
        if not utterance.context or not utterance.message.speaker:
            return None  # a message of no named speaker (a lone string) answers nothing we know of
        prev = utterance.context[-1]
        if not prev.speaker or prev.speaker == utterance.message.speaker:
            return None
        said = utterance.message.timestamp
        if said is not None and prev.timestamp is not None and abs(said - prev.timestamp) > REPLY_WINDOW:
            return None  # said hours apart: not a reply to it
        names = names_of(utterance)
        ts = prev.timestamp or reference_of(utterance)[0]
        sents = analyze(prev.text(), times_of=(lambda t: resolve(t, ts, prefer="auto")) if ts else None, names=names)
        questions = [s for s in sents if s.kind == "question" and content_words(s.text, names)]
        if questions:
            return prev.speaker, prev.id or "", questions[-2:], True
        if self.context_views == "all":
            said = [s for s in sents if s.kind == "content"][-1:]
            if said:
                return prev.speaker, prev.id or "", said, False
        return None

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
        claim_from: list[Sentence] | None = None,
        label: str = "",
    ) -> MemoryRecord:
        common = self._common(utterance, sentences, provenance, view)
        if label:  # whose words these are ("Maya:"): how the record is found, not its text
            common["metadata"]["embed_context"] = label
        claims = [c.as_dict() for s in (sentences if claim_from is None else claim_from) if s.kind == "content" for c in claims_of(s.text)]
        if claims:  # what the speaker says about an attribute that holds one value at a time (memdesk.conversation.supersede)
            common["metadata"]["claims"] = claims
        if kind is MemoryType.SEMANTIC:
            return SemanticRecord(fact=text, **common)
        title = first_clause(text, title_from)
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
        ts, reference = reference_of(utterance)
        event_time, anchor, mentions = self._anchor(sentences, ts)
        meta: dict[str, Any] = {"extractor": "rules", "view": view}
        if ts is not None:
            meta[reference] = ts.isoformat()
            meta["time_reference"] = reference
        if mentions:
            # each expression as said, with the interval it resolves to ([start, end), dates): the date a
            # person infers is a field beside the words, not a splice in them
            meta["time_expressions"] = [
                {"text": t.text, "label": t.label, "granularity": t.granularity,
                 "start": t.start.date().isoformat(), "end": t.end.date().isoformat() if t.end else None}
                for t in mentions
            ]  # fmt: skip
        return dict(
            scope=utterance.scope,
            speaker=utterance.message.speaker,
            event_time=event_time,
            temporal_anchor=anchor,
            provenance=list(provenance),
            metadata=meta,
        )


def _embed_after(record: MemoryRecord, quote: str) -> None:
    """The turn a record replies to, before its speaker's label, in what is embedded for it."""
    label = record.metadata.get("embed_context", "")
    record.metadata["embed_context"] = f"{quote} {label}".strip()
